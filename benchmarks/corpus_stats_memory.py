"""Corpus statistics over a big corpus: time, progress, cancel and peak memory.

    python3 benchmarks/corpus_stats_memory.py [--mb 100] [--tokenizer PATH]

Writes a corpus of --mb MB (../shared/corpus files repeated) to a temporary folder, then in a child
process runs `analysis.corpus_stats.corpus_stats` on it with a progress callback, and reports the
time, MB/s, the longest gap between progress reports, the peak resident memory (ru_maxrss), and how
long a cancel takes to stop a second run.  Goal (issue 7): memory bounded (not growing with the
corpus), progress and cancel working.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

CHILD = r"""
import json, resource, sys, threading, time
sys.path.insert(0, sys.argv[3])
import tokviz
from tokviz.analysis.corpus_stats import corpus_stats
from tokviz.errors import Cancelled
tok = tokviz.load(sys.argv[1])
folder = sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
marks = []
t0 = time.perf_counter()
stats = corpus_stats(tok, [folder], progress=lambda d, t: marks.append(time.perf_counter()))
seconds = time.perf_counter() - t0
gaps = [b - a for a, b in zip([t0] + marks, marks)]
stop = threading.Event()
threading.Timer(1.0, stop.set).start()
t1 = time.perf_counter()
try:
    corpus_stats(tok, [folder], cancel=stop)
    cancel_s = None
except Cancelled:
    cancel_s = time.perf_counter() - t1 - 1.0
print(json.dumps({"mb": stats.bytes / 1e6, "tokens": stats.tokens, "seconds": seconds,
                  "mb_per_s": stats.bytes / 1e6 / seconds, "max_progress_gap_s": max(gaps),
                  "rss_after_load_mb": base, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "cancel_latency_s": cancel_s, "chars_per_token": stats.chars_per_token}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--tokenizer", default=str(SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json"))
    args = ap.parse_args(argv)
    seed = "\n".join(p.read_text(encoding="utf-8") for p in sorted((SHARED / "corpus").glob("*.txt"))).encode()
    with tempfile.TemporaryDirectory() as tmp:
        written = 0
        k = 0
        while written < args.mb * 1e6:
            path = Path(tmp) / f"part{k}.txt"
            path.write_bytes(seed)
            written += len(seed)
            k += 1
        out = subprocess.run([sys.executable, "-c", CHILD, args.tokenizer, tmp, str(ROOT)],
                             capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
