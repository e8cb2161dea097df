"""Time of the vocabulary health report on the shared tokenizers, and what it finds.

    python3 benchmarks/vocab_health.py [--json] [TOKENIZER...]

For each tokenizer (default: every one in ../shared/tokenizers): load it, then time
`tokviz.analysis.health.vocab_health` (reachability of every token, the merge list, partial UTF-8
tokens, duplicates, added tokens the pre-tokenizer would split) and
`tokviz.analysis.token_health.token_health` (undecodable tokens, specials text never produces,
intermediate-only tokens by IoS on the shipped sample texts, added tokens duplicating model tokens,
ids that decode alike, stray-byte tokens) and print their counts.  Goals: under 10 s per tokenizer
(issue 6); the whole report (`full_health`, what `tokviz health` prints) a few seconds on the 150k
vocabularies (issue 23).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

DEFAULT = [
    "qwen2.5/tokenizer.json",
    "llama3/tokenizer.json",
    "cl100k_base.tiktoken",
    "bert-minilm/tokenizer.json",
    "sentencepiece/unigram_8k.model",
    "sentencepiece/bpe_8k.model",
]


def main(argv=None) -> int:
    import tokviz
    from tokviz.analysis.health import vocab_health
    from tokviz.analysis.token_health import token_health

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for path in args.tokenizers or [str(SHARED / "tokenizers" / t) for t in DEFAULT]:
        tok = tokviz.load(path)
        t0 = time.perf_counter()
        report = vocab_health(tok)
        seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        tokens = token_health(tok)
        token_seconds = time.perf_counter() - t0
        row = {"tokenizer": path, "model": report.model, "vocab_size": report.vocab_size, "seconds": seconds,
               "token_health_seconds": token_seconds, "checked": report.checked, **report.counts(),
               **tokens.counts(), "round_trip": tokens.round_trip, "ios_corpus": tokens.corpus,
               "examples": [t for _, t, _ in report.unreachable[:5]], "notes": report.notes + tokens.notes}
        rows.append(row)
        if not args.json:
            name = Path(path).parent.name if Path(path).name == "tokenizer.json" else Path(path).name
            counts = ", ".join(f"{k} {v:,}" for k, v in report.counts().items())
            print(f"{name:<22}{report.model:<10}{report.vocab_size:>8,} tokens  {seconds:5.2f} s  {counts}")
            counts = ", ".join(f"{k} {v:,}" for k, v in tokens.counts().items())
            print(f"{'':<40}  token health {token_seconds:5.2f} s  {counts}; whole report "
                  f"{seconds + token_seconds:5.2f} s")
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
