"""Memory and time of the per-model merge lookups: merges_making, used_by and merge_rank.

    python3 benchmarks/merge_index.py [--json] [TOKENIZER...]

For each tokenizer (default: Qwen2.5's vocab.json + merges.txt and Llama 3's tokenizer.json from
../shared/tokenizers), in a fresh process: load it, then time the first call of each lookup (which
builds what it caches), ask all three for every token, and report how many small Python objects
(sys.getallocatedblocks) and how much RSS the process gained, plus the bytes of the numpy arrays
the merge index holds (when there is one).  What is cached lives as long as the tokenizer, so the
growth is what a long session pays per open tokenizer.
"""
from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

DEFAULT = ["qwen2.5/vocab.json", "llama3/tokenizer.json"]


def _rss() -> int:
    with open("/proc/self/statm") as f:
        import os

        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(path: str) -> dict:
    import tokviz
    from tokviz.analysis import merges as merges_mod
    from tokviz.analysis.merges import merges_making, used_by
    from tokviz.analysis.token_info import merge_rank

    from tokviz.core.models.bpe import BPE

    tiny = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])  # (first-use imports are not the model's cost)
    merges_making(tiny), used_by(tiny, "a"), merge_rank(tiny, "ab"), list(merges_making(tiny))
    tok = tokviz.load(path)
    model = tok.model
    model.id_to_token(0)  # (the id -> token table is the model's own, built on first use anyway)
    tokens = list(model.vocab)
    gc.collect()
    blocks0, rss0 = sys.getallocatedblocks(), _rss()
    build = {}
    for name, call in (("merges_making", lambda: merges_making(model)),
                       ("used_by", lambda: used_by(model, tokens[0])),
                       ("merge_rank", lambda: merge_rank(model, tokens[0]))):
        t0 = time.perf_counter()
        call()
        build[name] = time.perf_counter() - t0
    t0 = time.perf_counter()
    making = merges_making(model)
    for t in tokens:
        making.get(t)
        used_by(model, t)
        merge_rank(model, t)
    query = time.perf_counter() - t0
    del making
    gc.collect()
    index = getattr(merges_mod, "_INDEX", {}).get(model)
    return {
        "tokenizer": path,
        "vocab_size": len(tokens),
        "build_seconds": build,
        "build_total_seconds": sum(build.values()),
        "query_all_seconds": query,
        "blocks_growth": sys.getallocatedblocks() - blocks0,
        "rss_growth_mb": (_rss() - rss0) / 2**20,
        "array_bytes": index.nbytes() if index is not None else None,
        "merges_materialised": getattr(model, "_merges", None) is not None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="runs per tokenizer (the fastest build is shown)")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # (internal: measure one tokenizer in this process)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one)))
        return 0
    rows = []
    for path in args.tokenizers or [str(SHARED / "tokenizers" / t) for t in DEFAULT]:
        runs = [json.loads(subprocess.run([sys.executable, __file__, "--one", path], check=True,
                                          capture_output=True, text=True).stdout) for _ in range(args.repeat)]
        row = min(runs, key=lambda r: r["build_total_seconds"])
        rows.append(row)
        if not args.json:
            b = row["build_seconds"]
            arrays = f"{row['array_bytes'] / 2**20:6.2f} MB arrays" if row["array_bytes"] is not None else ""
            print(f"{Path(path).parent.name}/{Path(path).name:<16} build {row['build_total_seconds']:5.2f} s "
                  f"(making {b['merges_making']:.2f}, used_by {b['used_by']:.2f}, merge_rank {b['merge_rank']:.2f})  "
                  f"all tokens {row['query_all_seconds']:5.2f} s  +{row['blocks_growth']:,} blocks  "
                  f"+{row['rss_growth_mb']:.1f} MB RSS  {arrays}"
                  f"{'  (model.merges materialised)' if row['merges_materialised'] else ''}")
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
