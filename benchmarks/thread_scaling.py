"""How `Tokenizer.encode_batch(chunks, threads=N)` scales from 1 to N threads.

    python3 benchmarks/thread_scaling.py [--threads 2] [--repeat 10] [--mb 0] [--json] [TOKENIZER...]

Each ../shared/corpus/*.txt is cut into 8 KB chunks (`tokviz.bench.read_chunks`, the chunks
`tokviz bench` uses).  For every tokenizer and file, runs with 1 thread and with N threads
alternate (so a noisy neighbour on a shared machine slows both alike), each starting with empty
piece caches; the best of --repeat runs of each counts, and the ratio of the two is the scaling.
The ids of the N-thread run are checked against the 1-thread run.  Default tokenizers: every
one in ../shared/tokenizers.
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

DEFAULT_TOKENIZERS = [
    "cl100k_base.tiktoken",
    "qwen2.5/tokenizer.json",
    "llama3/tokenizer.json",
    "bert-minilm/tokenizer.json",
    "sentencepiece/unigram_8k.model",
    "sentencepiece/bpe_8k.model",
]


def best_times(tok, chunks, threads: int, repeat: int) -> tuple[float, float, list]:
    """Best seconds with 1 thread and with `threads`, runs alternating; and the ids of both."""
    best = {1: float("inf"), threads: float("inf")}
    ids = {}
    for _ in range(repeat):
        for n in (1, threads):
            tok.clear_cache()
            gc.collect()
            t0 = time.perf_counter()
            encs = tok.encode_batch(chunks, threads=n)
            best[n] = min(best[n], time.perf_counter() - t0)
            ids[n] = [e.ids for e in encs]
            del encs
    return best[1], best[threads], ids


def main(argv=None) -> int:
    import tokviz
    from tokviz.bench import read_chunks

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*", help="paths (default: the shared tokenizers)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--mb", type=float, default=0, help="use only the first MB of each file (0: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    paths = args.tokenizers or [str(SHARED / "tokenizers" / t) for t in DEFAULT_TOKENIZERS]
    files = sorted((SHARED / "corpus").glob("*.txt"))
    rows = []
    status = 0
    for path in paths:
        tok = tokviz.load(path)
        for f in files:
            chunks = read_chunks([f], 8, args.mb * 1024 or None)
            nbytes = sum(len(c.encode("utf-8")) for c in chunks)
            one, many, ids = best_times(tok, chunks, args.threads, args.repeat)
            same = ids[1] == ids[args.threads]
            status |= not same
            rows.append({
                "tokenizer": Path(path).parent.name if Path(path).name == "tokenizer.json" else Path(path).name,
                "encoder": tok.describe()["encoder"],
                "file": f.name,
                "mb_s_1": nbytes / one / 1e6,
                f"mb_s_{args.threads}": nbytes / many / 1e6,
                "scaling": one / many,
                "ids_equal": same,
            })
            if not args.json:
                r = rows[-1]
                print(f"{r['tokenizer']:<22}{r['encoder']:<8}{f.name:<11}{r['mb_s_1']:8.1f} MB/s "
                      f"{r[f'mb_s_{args.threads}']:8.1f} MB/s   x{r['scaling']:.2f}"
                      f"{'' if same else '   IDS DIFFER'}", flush=True)
    if args.json:
        print(json.dumps({"threads": args.threads, "repeat": args.repeat, "rows": rows}, indent=2))
    return status


if __name__ == "__main__":
    sys.exit(main())
