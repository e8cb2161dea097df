"""How `Tokenizer.encode_batch(chunks, threads=N)` scales from 1 to N threads.

    python3 benchmarks/thread_scaling.py [--threads 2] [--repeat 10] [--mb 0] [--json] [TOKENIZER...]

Each ../shared/corpus/*.txt is cut into 8 KB chunks (`tokviz.bench.read_chunks`, the chunks
`tokviz bench` uses).  For every tokenizer and file, runs with 1 thread and with N threads
alternate (so a noisy neighbour on a shared machine slows both alike), each starting with empty
piece caches; the best of --repeat runs of each counts, and the ratio of the two is the scaling.
The ids of the N-thread run are checked against the 1-thread run.  Default tokenizers: every
one in ../shared/tokenizers.

On Linux a run during which other processes kept the CPUs busy (more than --busy of one core,
read from /proc/stat beside this process's own CPU time) is not counted and is run again, up to
--repeat more times, and each run first waits (up to --wait seconds) for the other processes to
calm down: on a shared machine a neighbour's burst would otherwise look like poor scaling.  The
"disturbed" column says how many runs were set aside.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
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


def _busy_ticks() -> int | None:
    """CPU time all processes have used so far, in clock ticks (None where /proc/stat is missing)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return user + nice + system + irq + softirq + steal


def _own_ticks() -> float:
    t = os.times()
    return (t.user + t.system) * os.sysconf("SC_CLK_TCK")


class Interference:
    """How much of a core other processes used during a run (0 where it cannot be told)."""

    def __enter__(self):
        self.busy, self.own, self.t0 = _busy_ticks(), _own_ticks(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        busy = _busy_ticks()
        ticks = (time.perf_counter() - self.t0) * os.sysconf("SC_CLK_TCK")
        if busy is None or self.busy is None or ticks <= 0:
            self.cores = 0.0
        else:
            self.cores = max(0.0, (busy - self.busy) - (_own_ticks() - self.own)) / ticks
        return False


def wait_quiet(busy: float, max_wait: float) -> None:
    """Wait until other processes use at most `busy` of a core (over 0.2 s), for `max_wait` s at most."""
    deadline = time.perf_counter() + max_wait
    while time.perf_counter() < deadline:
        with Interference() as other:
            time.sleep(0.2)
        if other.cores <= busy:
            return


def best_times(tok, chunks, threads: int, repeat: int, busy: float = 0.1,
               wait: float = 0.0) -> tuple[float, float, list, int]:
    """Best seconds with 1 thread and with `threads`, runs alternating; the ids of both; and how
    many runs were set aside because other processes used more than `busy` of a core meanwhile."""
    best = {1: float("inf"), threads: float("inf")}
    ids = {}
    counted = {1: 0, threads: 0}
    disturbed = 0
    attempts = 0
    while min(counted.values()) < repeat and attempts < 2 * repeat:
        attempts += 1
        for n in (1, threads):
            if counted[n] >= repeat and attempts > 1:
                continue
            tok.clear_cache()
            gc.collect()
            if wait:
                wait_quiet(busy, wait)
            with Interference() as other:
                t0 = time.perf_counter()
                encs = tok.encode_batch(chunks, threads=n)
                elapsed = time.perf_counter() - t0
            ids[n] = [e.ids for e in encs]
            del encs
            # (the last attempt counts whatever happened: some figure beats none)
            if other.cores > busy and attempts < 2 * repeat:
                disturbed += 1
                continue
            counted[n] += 1
            best[n] = min(best[n], elapsed)
    return best[1], best[threads], ids, disturbed


def main(argv=None) -> int:
    import tokviz
    from tokviz.bench import read_chunks

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*", help="paths (default: the shared tokenizers)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--mb", type=float, default=0, help="use only the first MB of each file (0: all)")
    ap.add_argument("--busy", type=float, default=0.1,
                    help="set a run aside when other processes used more than this many cores meanwhile")
    ap.add_argument("--wait", type=float, default=30.0,
                    help="seconds to wait at most, before each run, for the other processes to calm down")
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
            one, many, ids, disturbed = best_times(tok, chunks, args.threads, args.repeat, args.busy, args.wait)
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
                "disturbed": disturbed,
            })
            if not args.json:
                r = rows[-1]
                print(f"{r['tokenizer']:<22}{r['encoder']:<8}{f.name:<11}{r['mb_s_1']:8.1f} MB/s "
                      f"{r[f'mb_s_{args.threads}']:8.1f} MB/s   x{r['scaling']:.2f}"
                      f"{f'   ({disturbed} disturbed)' if disturbed else ''}"
                      f"{'' if same else '   IDS DIFFER'}", flush=True)
    if args.json:
        print(json.dumps({"threads": args.threads, "repeat": args.repeat, "rows": rows}, indent=2))
    return status


if __name__ == "__main__":
    sys.exit(main())
