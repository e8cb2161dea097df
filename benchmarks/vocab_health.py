"""Time of the vocabulary health report on the shared tokenizers, and what it finds.

    python3 benchmarks/vocab_health.py [--json] [TOKENIZER...]

For each tokenizer (default: every one in ../shared/tokenizers): load it, then time
`tokviz.analysis.health.vocab_health` (reachability of every token, the merge list, partial UTF-8
tokens, duplicates, added tokens the pre-tokenizer would split) and print its counts.  Goal
(issue 6): under 10 s per tokenizer.
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
        row = {"tokenizer": path, "model": report.model, "vocab_size": report.vocab_size, "seconds": seconds,
               "checked": report.checked, **report.counts(), "examples": [t for _, t, _ in report.unreachable[:5]],
               "notes": report.notes}
        rows.append(row)
        if not args.json:
            name = Path(path).parent.name if Path(path).name == "tokenizer.json" else Path(path).name
            counts = ", ".join(f"{k} {v:,}" for k, v in report.counts().items())
            print(f"{name:<22}{report.model:<10}{report.vocab_size:>8,} tokens  {seconds:5.2f} s  {counts}")
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
