"""Time of the robustness corpus analysis: every perturbation over 1 MB of ../shared/corpus.

    python3 benchmarks/robustness.py [--corpus en,zh,code,multi] [--mb 1] [--rate 0.3] [--json] [TOKENIZER...]

The text: the first (MB / number of files) of each corpus file, cut at a character boundary and
joined (default 256 KB each of en, zh, code and multi).  For each tokenizer (default Qwen2.5,
151,643 tokens; cl100k_base; Llama 3): load it, then time `corpus_robustness` with that tokenizer
alone over all perturbations (the original pass plus one pass per perturbation: cut in pieces,
perturb every piece, encode).  Also timed: the perturbations alone (no tokenizer), and the three
tokenizers in one run (the perturbed pieces are shared).  Prints the mean inflation per
perturbation and tokenizer.  One thread throughout.
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

DEFAULT = {
    "qwen2.5": "qwen2.5/tokenizer.json",
    "cl100k": "cl100k_base.tiktoken",
    "llama3": "llama3/tokenizer.json",
}


def corpus_text(names: list[str], total_bytes: int) -> str:
    each = total_bytes // len(names)
    parts = []
    for name in names:
        data = (SHARED / "corpus" / f"{name}.txt").read_bytes()[:each]
        parts.append(data.decode("utf-8", errors="ignore"))  # (drops a character cut in half at the end)
    return "\n\n".join(parts)


def main(argv=None) -> int:
    import tokviz
    from tokviz.analysis.corpus_stats import table_markdown
    from tokviz.analysis.robustness import corpus_robustness

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*", help="tokenizer files (default: Qwen2.5, cl100k, Llama 3 of ../shared)")
    ap.add_argument("--corpus", default="en,zh,code,multi")
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--rate", type=float, default=0.3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    text = corpus_text(args.corpus.split(","), int(args.mb * 1024 * 1024))
    mb = len(text.encode("utf-8")) / 1e6
    paths = {Path(p).stem: p for p in args.tokenizers} or {k: str(SHARED / "tokenizers" / v) for k, v in DEFAULT.items()}
    tokenizers = {}
    results = {"text_mb": round(mb, 3), "chars": len(text), "rate": args.rate, "load_s": {}, "run_s": {}}
    for name, path in paths.items():
        t0 = time.perf_counter()
        tok = tokenizers[name] = tokviz.load(path)
        tok.encode_ids("warm up")
        results["load_s"][name] = round(time.perf_counter() - t0, 3)

    t0 = time.perf_counter()
    alone = corpus_robustness({}, text, rate=args.rate)
    results["perturb_only_s"] = round(time.perf_counter() - t0, 3)
    results["pieces"] = alone.pieces
    if not args.json:
        print(f"{mb:.2f} MB ({len(text):,} characters, {alone.pieces:,} pieces), {len(alone.perturbations)} "
              f"perturbations at rate {args.rate}; perturbing alone: {results['perturb_only_s']:.2f} s")
    for name, tok in tokenizers.items():
        t0 = time.perf_counter()
        report = corpus_robustness({name: tok}, text, rate=args.rate)
        seconds = time.perf_counter() - t0
        results["run_s"][name] = round(seconds, 3)
        if not args.json:
            print(f"{name:<10} vocab {tok.vocab_size:>8,}  {seconds:6.2f} s  ({report.original_tokens[name]:,} tokens "
                  f"in the original; {(1 + len(report.perturbations)) * mb / seconds:.1f} MB/s perturbed+encoded)")
    t0 = time.perf_counter()
    report = corpus_robustness(tokenizers, text, rate=args.rate)
    results["all_together_s"] = round(time.perf_counter() - t0, 3)
    results["inflation"] = report.as_dict()["perturbations"]
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print(f"all {len(tokenizers)} in one run: {results['all_together_s']:.2f} s\n")
        print(table_markdown(report.rows()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
