"""Corpus statistics and training on one process vs a Dask LocalCluster: time and peak memory.

    python3 benchmarks/cluster_scaling.py [--gb 1] [--tokenizer PATH] [--workers 1,2] [--keep] [--json]
                                          [--only stats|train] [--model unigram] [--min-word-count N]

A corpus of --gb GB is generated from ../shared/corpus (en, zh, code, multi): blocks of lines drawn
at random (seeded) from all four, so that no two megabytes are the same text and a piece cache
cannot make the later ones free.  Then, each in a fresh process:

* `stats`: `corpus_stats` of the tokenizer (default Qwen2.5 from ../shared, else the demo
  tokenizer) over the corpus, on this process ("one process"), then on a LocalCluster of N worker
  processes (`corpus_stats_on`);
* `train`: training --model (default bytelevel-bpe) with a vocabulary of 8,192 on the corpus, the
  same way (the cluster counts the words, pruned to --min-word-count; the model is learned here).

Reported per run: wall seconds, MB/s, the peak resident memory of the process that ran it and, on a
cluster, of each worker process (`ru_maxrss` of each, read after the run), and whether the result
equals the one-process result (statistics: every figure but the timing; training: the same file).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

BLOCK_LINES = 2000


def generate(path: Path, gb: float, seed: int = 0) -> int:
    """Write about `gb` GB of lines drawn from ../shared/corpus to `path`; returns its size."""
    lines = []
    for name in ("en", "zh", "code", "multi"):
        lines += (SHARED / "corpus" / f"{name}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    rng = random.Random(seed)
    target = int(gb * (1 << 30))
    size = 0
    with open(path, "w", encoding="utf-8") as out:
        while size < target:
            block = "".join(rng.choice(lines) for _ in range(BLOCK_LINES))
            out.write(block)
            size += len(block.encode("utf-8"))
    return path.stat().st_size


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (Linux: KB)


def run_one(kind: str, corpus: str, tokenizer: str, workers: int, out: str, model: str = "bytelevel-bpe",
            min_word_count: int = 1) -> dict:
    """One measurement, in this (fresh) process."""
    import tokviz
    from tokviz.analysis.corpus_stats import corpus_stats

    cluster = None
    if workers:
        from tokviz.cluster import Cluster

        cluster = Cluster(workers=workers)
    try:
        t0 = time.perf_counter()
        if kind == "stats":
            tok = tokviz.load(tokenizer)
            if cluster is None:
                stats = corpus_stats(tok, [corpus])
            else:
                from tokviz.cluster import corpus_stats_on

                stats = corpus_stats_on(cluster, (tokenizer, None), [corpus], tokenizer=tok)
            result = {k: v for k, v in stats.as_dict().items() if k not in ("seconds", "mb_per_second")}
        else:
            from tokviz.train import train
            from tokviz.train.options import TrainOptions

            options = TrainOptions(vocab_size=8192, min_word_count=min_word_count, special_tokens=["<unk>"])
            trained = train(model, [corpus], options, cluster=cluster)
            from tokviz.formats import save

            save(trained, out, overwrite=True)
            result = {"bytes": Path(out).stat().st_size}  # (the parent compares the files)
        seconds = time.perf_counter() - t0
        workers_mb = []
        if cluster is not None:
            rss = cluster.client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
            workers_mb = sorted(round(v) for v in rss.values())
    finally:
        if cluster is not None:
            cluster.close()
    return {"seconds": seconds, "here_mb": round(_peak_mb()), "workers_mb": workers_mb, "result": result}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--tokenizer")
    ap.add_argument("--workers", default="1,2", help="cluster sizes to measure besides one process (default 1,2)")
    ap.add_argument("--only", choices=["stats", "train"], help="measure one of the two")
    ap.add_argument("--model", default="bytelevel-bpe", help="the trainer measured (default bytelevel-bpe)")
    ap.add_argument("--min-word-count", type=int, default=1, help="training's pruning of the word counts (default 1)")
    ap.add_argument("--keep", help="keep (or reuse) the generated corpus at this path")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--_one", nargs=7, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._one:
        kind, corpus, tokenizer, workers, out, model, min_word_count = args._one
        print(json.dumps(run_one(kind, corpus, tokenizer, int(workers), out, model, int(min_word_count))))
        return 0

    tokenizer = args.tokenizer or str(SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json")
    if not Path(tokenizer).exists():
        from tokviz.defaults import default_tokenizer_path

        tokenizer = str(default_tokenizer_path())
    scratch = tempfile.TemporaryDirectory()
    corpus = Path(args.keep) if args.keep else Path(scratch.name) / "corpus.txt"
    if not corpus.exists():
        t0 = time.perf_counter()
        size = generate(corpus, args.gb)
        print(f"generated {size / 1e6:,.0f} MB in {time.perf_counter() - t0:.0f} s: {corpus}", flush=True)
    size = corpus.stat().st_size
    rows = []
    for kind in (["stats", "train"] if args.only is None else [args.only]):
        reference = None
        for workers in [0, *(int(w) for w in args.workers.split(",") if w)]:
            out = str(Path(scratch.name) / f"{kind}-{workers}.json")
            proc = subprocess.run([sys.executable, __file__, "--_one", kind, str(corpus), tokenizer, str(workers), out,
                                   args.model, str(args.min_word_count)],
                                  capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            if proc.returncode != 0:
                print(proc.stderr[-2000:], file=sys.stderr)
                return 1
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            same = None
            if kind == "train":
                data = Path(out).read_bytes()
                same = reference is None or data == reference
                reference = reference or data
            else:
                same = reference is None or r["result"] == reference
                reference = reference or r["result"]
            step = kind if kind == "stats" else f"train {args.model}, words >= {args.min_word_count}"
            row = {"step": step, "run on": "one process" if not workers else f"{workers} worker process(es)",
                   "seconds": round(r["seconds"], 1), "MB/s": round(size / 1e6 / r["seconds"], 1),
                   "peak MB here": r["here_mb"], "peak MB per worker": r["workers_mb"], "same result": same}
            rows.append(row)
            print(f"  {step:<5} {row['run on']:<22} {row['seconds']:7.1f} s {row['MB/s']:7.1f} MB/s  "
                  f"peak here {row['peak MB here']:,} MB  workers {row['peak MB per worker']}  "
                  f"same: {same}", flush=True)
    if args.json:
        json.dump({"corpus_mb": round(size / 1e6), "tokenizer": tokenizer, "rows": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    scratch.cleanup()
    return 0 if all(r["same result"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
