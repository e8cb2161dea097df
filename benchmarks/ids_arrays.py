"""MB/s of `encode_ids_batch(chunks, threads=N)` returning lists against `as_array=True`.

    python3 benchmarks/ids_arrays.py [--threads 1 2] [--mb 1.5] [--repeat 3] [TOKENIZER...]

The four ../shared/corpus files are cut into 8 KB chunks (`tokviz.bench.read_chunks`) and
interleaved (en, zh, code, multi, en, ...).  For each tokenizer (freshly loaded) a first slice of
--mb MB warms the encoder; then every measurement encodes the next, unseen slice of --mb MB, the
two forms and the thread counts taking turns, --repeat times each.  The median MB/s counts.  The
arrays are checked against the lists of the same slice (outside the timing).  Before each
measurement it waits (up to --wait s) for other processes to use at most 0.2 of a core, and the
"others" column gives the median share of a core they used during the measurements (see
benchmarks/thread_scaling.py: on a shared 2-core machine a neighbour halves the 2-thread figures).
Prints a Markdown table.  Default tokenizers: cl100k_base.tiktoken and qwen2.5/tokenizer.json in ../shared/tokenizers.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from thread_scaling import Interference, wait_quiet  # noqa: E402

DEFAULT_TOKENIZERS = ["cl100k_base.tiktoken", "qwen2.5/tokenizer.json"]
CORPORA = ["en.txt", "zh.txt", "code.txt", "multi.txt"]


def interleaved_chunks() -> list[str]:
    from tokviz.bench import read_chunks

    per_file = [read_chunks([SHARED / "corpus" / name], chunk_kb=8) for name in CORPORA]
    out = []
    for i in range(max(len(c) for c in per_file)):
        out.extend(c[i] for c in per_file if i < len(c))
    return out


class Slices:
    """Consecutive slices of about `mb` MB of the chunks, each handed out once."""

    def __init__(self, chunks: list[str], mb: float):
        self.chunks, self.target, self.at = chunks, int(mb * 2**20), 0

    def next(self) -> tuple[list[str], int]:
        got, size = [], 0
        while size < self.target:
            if self.at >= len(self.chunks):
                raise SystemExit("the corpus is too small for this many measurements: lower --mb or --repeat")
            chunk = self.chunks[self.at]
            self.at += 1
            got.append(chunk)
            size += len(chunk.encode("utf-8"))
        return got, size


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tokenizers", nargs="*", help="paths under ../shared/tokenizers or anywhere")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--mb", type=float, default=1.5, help="MB of text per measurement (default 1.5)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for a quiet machine (default 10)")
    args = parser.parse_args()
    if not (SHARED / "corpus").is_dir():
        raise SystemExit(f"needs the shared corpus at {SHARED / 'corpus'}")
    import tokviz

    chunks = interleaved_chunks()
    print(f"{cpu_model()}, {os.cpu_count()} cores; {args.mb} MB of unseen text per measurement, "
          f"8 KB chunks, median of {args.repeat}\n")
    print("| tokenizer | threads | lists MB/s | arrays MB/s | arrays / lists | others (cores) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in args.tokenizers or DEFAULT_TOKENIZERS:
        path = Path(name) if Path(name).exists() else SHARED / "tokenizers" / name
        tok = tokviz.load(path)
        slices = Slices(chunks, args.mb)
        warm, _ = slices.next()
        tok.encode_ids_batch(warm, threads=max(args.threads))
        speeds = {(t, form): [] for t in args.threads for form in ("lists", "arrays")}
        others = {t: [] for t in args.threads}
        for r in range(args.repeat):
            for threads in args.threads:
                forms = ("lists", "arrays") if r % 2 == 0 else ("arrays", "lists")
                for form in forms:
                    texts, size = slices.next()
                    gc.collect()
                    wait_quiet(0.2, args.wait)
                    with Interference() as other:
                        start = time.perf_counter()
                        result = tok.encode_ids_batch(texts, threads=threads, as_array=form == "arrays")
                        seconds = time.perf_counter() - start
                    others[threads].append(other.cores)
                    speeds[(threads, form)].append(size / 2**20 / seconds)
                    if form == "arrays":
                        ids, offsets = result
                        lists = tok.encode_ids_batch(texts, threads=threads)
                        if [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(texts))] != lists:
                            raise SystemExit(f"{name}: the arrays differ from the lists")
                    del result
        label = tok.source.name or path.name
        for threads in args.threads:
            lists = statistics.median(speeds[(threads, "lists")])
            arrays = statistics.median(speeds[(threads, "arrays")])
            busy = statistics.median(others[threads])
            print(f"| {label} | {threads} | {lists:.1f} | {arrays:.1f} | {arrays / lists:.2f} | {busy:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
