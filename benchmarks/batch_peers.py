"""Batch encoding on 1 to N threads: tokviz's array batch call beside every peer that batches.

    python3 benchmarks/batch_peers.py [--threads 1,2,4,8,16] [--tokenizers cl100k,qwen2.5]
                                      [--peers fastokens,hf,tiktoken,tokie] [--slice-mb 4] [--runs 3]

The four ../shared/corpus files are cut into 8 KB chunks (`tokviz.bench.read_chunks`) and
interleaved (en, zh, code, multi, en, ...), then split into consecutive slices of --slice-mb MB.
For each tokenizer, encoder and thread count a fresh process (this script with --worker) loads
the encoder, encodes slice 0 as one batch call (the first pass: caches warm up), then slices
1..--runs, each text it has not seen, one batch call each; the median MB/s of those counts.

  tokviz      `encode_ids_batch(chunks, threads=N, as_array=True)`: (ids, offsets) numpy arrays
  peers       their own batch call as tokviz.bench.PEERS says (lists of ids); the Rust peers'
              thread pools sized by RAYON_NUM_THREADS=N, fastokens' by FASTOKENS_BPE_THREADS=N
              (its batch call does not use rayon's pool: without it, it runs on every core)

Every peer's ids of every slice are compared with tokviz's (exit status 1 when any differ).
Prints the CPU model and a Markdown table (MB/s by thread count, then tokviz ÷ the fastest peer,
and each encoder's N-thread speed over its own 1-thread speed).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_speed import SHARED, TOKENIZERS, tokenizer_paths  # noqa: E402
from tokviz.bench_runs import applicable_peers, ids_arrays, machine, worker_record  # noqa: E402
from tokviz import bench  # noqa: E402

CORPORA = ("en", "zh", "code", "multi")
BATCH_PEERS = ("fastokens", "hf", "tiktoken", "tokie")


def slices(slice_mb: float, count: int) -> list[list[str]]:
    """`count` consecutive slices of about `slice_mb` MB of the interleaved corpus chunks."""
    per_file = [bench.read_chunks([SHARED / "corpus" / f"{name}.txt"], chunk_kb=8) for name in CORPORA]
    chunks = [c for group in zip(*per_file) for c in group]
    out, current, size, limit = [], [], 0, slice_mb * 1e6
    for chunk in chunks:
        current.append(chunk)
        size += len(chunk.encode("utf-8"))
        if size >= limit:
            out.append(current)
            current, size = [], 0
            if len(out) == count:
                return out
    raise SystemExit(f"the corpus holds fewer than {count} slices of {slice_mb} MB")


def worker(args) -> dict:
    parts = slices(args.slice_mb, args.runs + 1)
    if args.worker == "tokviz":
        import tokviz

        start = time.perf_counter()
        tok = tokviz.load(args.tokenizer)
        load_seconds, version = time.perf_counter() - start, tokviz.__version__

        def batch(texts):
            return tok.encode_ids_batch(texts, threads=args.threads, as_array=True)
    else:
        try:
            peer = bench.load_peer(args.worker, bench.source_of(args.tokenizer), threads=args.threads)
        except bench._Skip as why:
            return {"encoder": args.worker, "skipped": str(why)}
        if peer.batch is None:
            return {"encoder": args.worker, "skipped": "no batch call"}
        batch, version, load_seconds = peer.batch, peer.version, peer.load_seconds
    from tokviz.core.gcpause import paused_gc

    speeds, flat, offsets = [], {}, {}
    for k, texts in enumerate(parts):
        nbytes = sum(len(t.encode("utf-8")) for t in texts)
        with paused_gc():
            start = time.perf_counter()
            out = batch(texts)
            took = time.perf_counter() - start
        if k:
            speeds.append(nbytes / 1e6 / took)
        flat[f"s{k}"], offsets[f"o{k}"] = ids_arrays(out)
    np.savez(args.ids_out, **flat, **offsets)
    return {"encoder": args.worker, "version": version, "threads": args.threads, "load_seconds": load_seconds,
            "runs_mb_per_s": speeds, "mb_per_s": statistics.median(speeds)}


def run_worker(encoder: str, tokenizer: Path, threads: int, args, ids_out: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", encoder, "--tokenizer", str(tokenizer),
           "--threads", str(threads), "--slice-mb", str(args.slice_mb), "--runs", str(args.runs),
           "--ids-out", str(ids_out)]
    env = {**os.environ, "RAYON_NUM_THREADS": str(threads), "FASTOKENS_BPE_THREADS": str(threads),
           "TOKENIZERS_PARALLELISM": "true", "OMP_NUM_THREADS": "1"}
    return worker_record(encoder, cmd, env)


def same_ids(a: Path, b: Path, runs: int) -> bool:
    x, y = np.load(a), np.load(b)
    return all(np.array_equal(x[f"s{k}"], y[f"s{k}"]) and np.array_equal(x[f"o{k}"], y[f"o{k}"])
               for k in range(runs + 1))


def run(args) -> dict:
    thread_counts = [int(t) for t in args.threads.split(",")]
    paths, missing = tokenizer_paths(args.tokenizers.split(","))
    peers = args.peers.split(",")
    records, skipped = [], []
    scratch = Path(tempfile.mkdtemp(prefix="tokviz-batch-peers-"))
    try:
        for name, path in paths.items():
            applicable, not_applicable = applicable_peers(peers, bench.source_of(path))
            skipped += [{"tokenizer": name, "encoder": peer, "reason": str(why)} for peer, why in not_applicable]
            for threads in thread_counts:
                reference = scratch / "tokviz.npz"
                for encoder in ["tokviz", *applicable]:
                    ids_out = reference if encoder == "tokviz" else scratch / f"{encoder}.npz"
                    rec = run_worker(encoder, path, threads, args, ids_out)
                    if "skipped" in rec:
                        if encoder == "tokviz":
                            sys.exit(f"tokviz failed on {name}: {rec['skipped']}")
                        skipped.append({"tokenizer": name, "encoder": encoder, "reason": rec["skipped"]})
                        continue
                    rec.update(tokenizer=name)
                    rec["agree"] = True if encoder == "tokviz" else same_ids(reference, ids_out, args.runs)
                    if args.progress:
                        print(f"{name} {encoder} {threads}: {rec['mb_per_s']:.1f} MB/s"
                              f"{'' if rec['agree'] else ' (ids DIFFER)'}", file=sys.stderr, flush=True)
                    records.append(rec)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"date": datetime.date.today().isoformat(), "machine": machine(), "slice_mb": args.slice_mb,
            "runs": args.runs, "threads": thread_counts, "tokenizers": list(paths), "records": records,
            "skipped": skipped, "missing_tokenizers": missing, "agree": all(r["agree"] for r in records)}


def _fmt(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def markdown(report: dict) -> str:
    m, threads = report["machine"], report["threads"]
    lines = [f"# Batch encoding by thread count, {report['date']}", "",
             f"{m['platform']}, {m['cpu']}, {m['cores']} cores, Python {m['python']}.  The four corpora in 8 KB "
             f"chunks, interleaved; one batch call per {report['slice_mb']:g} MB slice; each encoder and thread "
             f"count in a fresh process, a first slice to warm up, then the median MB/s of {report['runs']} "
             f"unseen slices.  tokviz returns numpy arrays (`as_array=True`), the peers lists.", "",
             "| tokenizer | encoder | " + " | ".join(f"{t} thr" for t in threads) + f" | {threads[-1]} ÷ {threads[0]} | ids |",
             "| --- | --- | " + " | ".join("---:" for _ in threads) + " | ---: | --- |"]
    by_key = {(r["tokenizer"], r["encoder"], r["threads"]): r for r in report["records"]}
    for tokenizer in report["tokenizers"]:
        encoders = list(dict.fromkeys(r["encoder"] for r in report["records"] if r["tokenizer"] == tokenizer))
        for encoder in encoders:
            recs = [by_key.get((tokenizer, encoder, t)) for t in threads]
            cells = [_fmt(r["mb_per_s"]) if r else "—" for r in recs]
            scale = f"{recs[-1]['mb_per_s'] / recs[0]['mb_per_s']:.1f}×" if recs[0] and recs[-1] else "—"
            version = next(r["version"] for r in recs if r)
            ids = "—" if encoder == "tokviz" else ("agree" if all(r["agree"] for r in recs if r) else "**DIFFER**")
            lines.append(f"| {tokenizer} | {encoder} {version} | " + " | ".join(cells) + f" | {scale} | {ids} |")
        ratios = []
        for t in threads:
            mine = by_key.get((tokenizer, "tokviz", t))
            others = [by_key[(tokenizer, e, t)]["mb_per_s"] for e in encoders
                      if e != "tokviz" and (tokenizer, e, t) in by_key]
            ratios.append(f"{mine['mb_per_s'] / max(others):.2f}" if mine and others else "—")
        lines.append(f"| {tokenizer} | tokviz ÷ fastest peer | " + " | ".join(ratios) + " | | |")
    if report["skipped"] or report["missing_tokenizers"]:
        lines += ["", "Skipped:"]
        lines += [f"- {name}: {why}" for name, why in report["missing_tokenizers"].items()]
        seen = set()
        for s in report["skipped"]:
            if (s["tokenizer"], s["encoder"]) not in seen:
                seen.add((s["tokenizer"], s["encoder"]))
                lines.append(f"- {s['tokenizer']} / {s['encoder']}: {s['reason']}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default="1,2,4,8,16", help="comma-separated thread counts (default 1,2,4,8,16)")
    ap.add_argument("--tokenizers", default="cl100k,qwen2.5", help=f"comma-separated, from {', '.join(TOKENIZERS)}")
    ap.add_argument("--peers", default=",".join(BATCH_PEERS), help=f"comma-separated (default {','.join(BATCH_PEERS)})")
    ap.add_argument("--slice-mb", type=float, default=4, help="MB per batch call (default 4)")
    ap.add_argument("--runs", type=int, default=3, help="unseen slices timed after the first (default 3)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--progress", action="store_true", help="one line on stderr per measurement")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--tokenizer", help=argparse.SUPPRESS)
    ap.add_argument("--ids-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        args.threads = int(args.threads)
        print(json.dumps(worker(args)))
        return 0
    report = run(args)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else markdown(report))
    return 0 if report["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
