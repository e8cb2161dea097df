"""Time of the vocabulary overlap / merge-order report on Qwen2.5 (151,643 tokens), Llama 3 and
cl100k_base.

    python3 benchmarks/overlap.py [--repeat N] [--json] [TOKENIZER...]

Cold: freshly loaded tokenizers, so the run also builds each model's merge index (for cl100k,
a tiktoken ranking, that derives every token's merge from its rank).  Warm: the same tokenizers
again (the merge indexes are kept per model, as in the app).  Also the time of the last step
alone: the pairs compared in the shared code space.  The fastest of --repeat runs counts.
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

DEFAULT = ["qwen2.5/tokenizer.json", "llama3/tokenizer.json", "cl100k_base.tiktoken"]


def main(argv=None) -> int:
    import tokviz
    from tokviz.analysis import overlap as ov
    from tokviz.analysis.corpus_stats import unique_name

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    paths = args.tokenizers or [str(SHARED / "tokenizers" / t) for t in DEFAULT]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        print(f"missing: {', '.join(missing)} (../shared is absent?)", file=sys.stderr)
        return 1

    def load_all() -> tuple[dict, float]:
        t0 = time.perf_counter()
        toks: dict = {}
        for p in paths:
            tok = tokviz.load(p)
            toks[unique_name(tok.source.name or Path(p).name, toks)] = tok
        return toks, time.perf_counter() - t0

    load_s, cold, warm, pairs_s = [], [], [], []
    report = None
    for _ in range(max(1, args.repeat)):
        toks, seconds = load_all()
        load_s.append(seconds)
        t0 = time.perf_counter()
        report = ov.overlap(toks)
        cold.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ov.overlap(toks)
        warm.append(time.perf_counter() - t0)
        # the pairs alone (sides and codes built outside the timing)
        sides = [ov._Side(n, t) for n, t in toks.items()]
        codes: dict = {}
        for s in sides:
            for k in s.keys:
                codes.setdefault(k, len(codes))
            for content in s.special:
                codes.setdefault(("special", content), len(codes))
        coded = [ov._code(s, codes) for s in sides]
        t0 = time.perf_counter()
        for x in range(len(sides)):
            for y in range(x + 1, len(sides)):
                ov._pair(sides[x], sides[y], coded[x], coded[y], str)
        pairs_s.append(time.perf_counter() - t0)
    result = {
        "tokenizers": [t.as_dict() for t in report.tokenizers],
        "pairs": len(report.pairs),
        "load_s": min(load_s), "cold_s": min(cold), "warm_s": min(warm), "pairs_only_s": min(pairs_s),
        "jaccard": {f"{p.a} / {p.b}": round(p.jaccard, 4) for p in report.pairs},
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    for t in report.tokenizers:
        print(f"{t.name:<14}{t.tokens:>9,} tokens  {t.merges:>8,} merges ({t.merge_source})")
    print(f"load {result['load_s']:.2f} s; overlap cold {result['cold_s']:.2f} s, warm {result['warm_s']:.2f} s, "
          f"the {len(report.pairs)} pairs alone {result['pairs_only_s']:.2f} s (fastest of {args.repeat})")
    for p in report.pairs:
        print(f"  {p.a} / {p.b}: Jaccard {p.jaccard:.3f} — {p.verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
