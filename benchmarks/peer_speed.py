"""tokviz beside the fastest tokenizer libraries on PyPI, on text none of them has seen.

    python3 benchmarks/peer_speed.py [--mb 2] [--tokenizers cl100k,o200k,qwen2.5,llama3] [--extra]
                                     [--corpora en,zh,code,multi] [--peers fastokens,tokie,...]
                                     [--runs 3] [--jobs 1] [--json]

For each (encoder, tokenizer, corpus) a fresh process (this script with --worker) loads the encoder
(load time: the loader call alone, imports excluded) and, one thread, one encode call per 8 KB chunk
(cut at character boundaries, tokviz.bench.read_chunks), times

  cold          the first --mb MB of the corpus (first use after the load),
  warm-unseen   the next --mb MB (caches warm, text not seen),
  repeat        the best of 3 passes over the warm-unseen chunks again (the old way of measuring).

With --runs N every worker runs N times (each a fresh process) and each phase's median MB/s
counts; --jobs J runs up to J workers at once, each pinned to a core of its own (for a many-core
machine: the cells stay one thread each).

MB/s = UTF-8 bytes / seconds.  tokviz is `tokviz.load(path)` then `encode_ids(chunk)`; the peers
are loaded and called as tokviz.bench.PEERS says (tokviz bench uses the same code).  Each worker
writes the ids of every chunk to a scratch file; the parent compares them chunk by chunk with
tokviz's (repeat included) and reports the first differing chunk and token.  Exit status 1 when
any ids differ.  A peer that is not installed or cannot load a file is listed as skipped.

o200k: ../shared has no o200k file; bpe-openai's package data holds o200k_base.tiktoken.gz, which
is unpacked once to ~/.cache/tokviz-bench/ (skipped when bpe-openai is not installed).
--extra adds bert-minilm (WordPiece) and the sentencepiece bpe_8k / unigram_8k models.
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import queue
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

from tokviz import bench  # noqa: E402
from tokviz.bench_runs import applicable_peers, ids_arrays, machine, median_record, worker_record  # noqa: E402

TOKENIZERS = {
    "cl100k": SHARED / "tokenizers" / "cl100k_base.tiktoken",
    "o200k": None,  # unpacked from bpe-openai's package data (o200k_file)
    "qwen2.5": SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json",
    "llama3": SHARED / "tokenizers" / "llama3" / "tokenizer.json",
}
EXTRA_TOKENIZERS = {
    "bert-minilm": SHARED / "tokenizers" / "bert-minilm" / "tokenizer.json",
    "sp-bpe_8k": SHARED / "tokenizers" / "sentencepiece" / "bpe_8k.model",
    "sp-unigram_8k": SHARED / "tokenizers" / "sentencepiece" / "unigram_8k.model",
}
CORPORA = ("en", "zh", "code", "multi")
ONE_THREAD = {"RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def o200k_file() -> Path:
    """o200k_base.tiktoken unpacked from bpe-openai's package data into a cache folder (where a
    copy already lies there, bpe-openai is not needed)."""
    from importlib.resources import files

    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tokviz-bench"
    target = cache / "o200k_base.tiktoken"  # the name tells tokviz.load its split pattern
    if not target.exists():
        packed = files("bpe_openai.data") / "o200k_base.tiktoken.gz"  # ModuleNotFoundError without bpe-openai
        cache.mkdir(parents=True, exist_ok=True)
        scratch = target.with_suffix(f".{os.getpid()}.tmp")
        with packed.open("rb") as raw, gzip.open(raw) as src, open(scratch, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.replace(scratch, target)
    return target


# ---- worker: one encoder, one tokenizer, one corpus, in a fresh process ---------------------------


def worker(args) -> dict:
    """Load one encoder, time the three passes, write the ids to args.ids_out; the record as a dict."""
    cold, warm = bench.two_passes(args.corpus, args.mb, args.chunk_kb)
    if args.worker == "tokviz":
        import tokviz

        start = time.perf_counter()
        tok = tokviz.load(args.tokenizer)
        load_seconds = time.perf_counter() - start
        encode, version, detail = tok.encode_ids, tokviz.__version__, None  # (describe() would build the encoder)
    else:
        try:
            peer = bench.load_peer(args.worker, bench.source_of(args.tokenizer))
        except bench._Skip as why:
            return {"encoder": args.worker, "skipped": str(why)}
        encode, version, load_seconds, detail = peer.encode, peer.version, peer.load_seconds, None
    seconds, ids = bench.measure(encode, cold, warm, args.repeat)
    if args.worker == "tokviz":
        detail = tok.describe()["encoder_detail"]
    arrays = {phase: ids_arrays(ids[phase]) for phase in bench.PHASES}
    np.savez(args.ids_out, **{phase: a[0] for phase, a in arrays.items()},
             **{f"{phase}_offsets": a[1] for phase, a in arrays.items()})
    sizes = {"cold": bench.utf8_size(cold), "warm_unseen": bench.utf8_size(warm)}
    sizes["repeat"] = sizes["warm_unseen"]
    return {
        "encoder": args.worker,
        "version": version,
        "detail": detail,
        "load_seconds": load_seconds,
        "chunks": {"cold": len(cold), "warm_unseen": len(warm)},
        "repeat_same_ids": ids["repeat"] == ids["warm_unseen"],
        "phases": {p: {"seconds": seconds[p], "bytes": sizes[p], "mb_per_s": sizes[p] / 1e6 / seconds[p],
                       "tokens": sum(map(len, ids[p]))} for p in bench.PHASES},
    }


# ---- parent ----------------------------------------------------------------------------------


def measure_cell(encoders: list[str], tokenizer: Path, corpus: Path, args, scratch: Path):
    """(encoder, median record) for each encoder on one tokenizer and corpus: args.runs fresh workers
    each, up to args.jobs at once, each pinned to a core no other worker holds (the last cores this
    process may use).  Run k of an encoder writes its ids to scratch/ENCODER-k.npz."""
    jobs = [(encoder, k) for k in range(args.runs) for encoder in encoders]
    free_cores: queue.Queue = queue.Queue()
    for core in sorted(os.sched_getaffinity(0))[-args.jobs:] if args.jobs > 1 else [None]:
        free_cores.put(core)

    def one(job):
        encoder, k = job
        core = free_cores.get()
        try:
            return run_worker(encoder, tokenizer, corpus, args, scratch / f"{encoder}-{k}.npz", core)
        finally:
            free_cores.put(core)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, jobs))
    for encoder in encoders:
        yield encoder, median_record([r for (e, _), r in zip(jobs, results) if e == encoder])


def run_worker(encoder: str, tokenizer: Path, corpus: Path, args, ids_out: Path, core: int | None = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", encoder, "--tokenizer", str(tokenizer),
           "--corpus", str(corpus), "--mb", str(args.mb), "--chunk-kb", str(args.chunk_kb),
           "--repeat", str(args.repeat), "--ids-out", str(ids_out)]
    pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    return worker_record(encoder, cmd, {**os.environ, **ONE_THREAD}, pin)


def compare_ids(reference: Path, other: Path, corpus: Path, args) -> dict | None:
    """None when every chunk's ids agree in every pass, else where they first differ."""
    ours, theirs = np.load(reference), np.load(other)
    for phase in bench.PHASES:
        mine = "warm_unseen" if phase == "repeat" else phase  # same chunks; tokviz's own repeat is checked apart
        a, a_off = ours[mine], ours[f"{mine}_offsets"]
        b, b_off = theirs[phase], theirs[f"{phase}_offsets"]
        if np.array_equal(a_off, b_off) and np.array_equal(a, b):
            continue
        for k in range(len(a_off) - 1):
            x, y = a[a_off[k] : a_off[k + 1]], b[b_off[k] : b_off[k + 1]]
            if not np.array_equal(x, y):
                n = min(len(x), len(y))
                diff = np.flatnonzero(x[:n] != y[:n])
                i = int(diff[0]) if len(diff) else n
                cold, warm = bench.two_passes(corpus, args.mb, args.chunk_kb)
                text = (cold if phase == "cold" else warm)[k]
                bad = sum(not np.array_equal(a[a_off[j] : a_off[j + 1]], b[b_off[j] : b_off[j + 1]])
                          for j in range(len(a_off) - 1))
                return {"pass": phase, "chunk": k, "token": i, "chunks_differing": bad,
                        "tokviz": x[i : i + 5].tolist(), "peer": y[i : i + 5].tolist(), "text": text[:60]}
    return None


def tokenizer_paths(names) -> tuple[dict[str, Path], dict[str, str]]:
    """(name -> file, name -> why it is missing)."""
    found, missing = {}, {}
    for name in names:
        path = TOKENIZERS.get(name, EXTRA_TOKENIZERS.get(name))
        if name == "o200k":
            try:
                path = o200k_file()
            except ModuleNotFoundError:
                missing[name] = "no o200k file: bpe-openai (whose package data holds it) is not installed"
                continue
        if path is None or not path.exists():
            missing[name] = f"not found: {path}"
            continue
        found[name] = path
    return found, missing


def run(args) -> dict:
    names = args.tokenizers.split(",") if args.tokenizers else list(TOKENIZERS) + (list(EXTRA_TOKENIZERS) if args.extra else [])
    unknown = [n for n in names if n not in TOKENIZERS and n not in EXTRA_TOKENIZERS]
    if unknown:
        sys.exit(f"unknown tokenizer {', '.join(unknown)} (choose from {', '.join([*TOKENIZERS, *EXTRA_TOKENIZERS])})")
    peers = args.peers.split(",") if args.peers else list(bench.PEERS)
    unknown = [p for p in peers if p not in bench.PEERS]
    if unknown:
        sys.exit(f"unknown peer {', '.join(unknown)} (choose from {', '.join(bench.PEERS)})")
    corpora = args.corpora.split(",")
    paths, skipped_tokenizers = tokenizer_paths(names)
    records, skipped, mismatches = [], [], []
    scratch = Path(tempfile.mkdtemp(prefix="tokviz-peer-speed-"))
    try:
        for name, path in paths.items():
            applicable, not_applicable = applicable_peers(peers, bench.source_of(path))
            skipped += [{"tokenizer": name, "encoder": peer, "reason": str(why)}
                        for peer, why in not_applicable if why.applies or args.peers]
            for corpus_name in corpora:
                corpus = SHARED / "corpus" / f"{corpus_name}.txt"
                if not corpus.exists():
                    sys.exit(f"corpus not found: {corpus}")
                reference = scratch / "tokviz-0.npz"
                for encoder, rec in measure_cell(["tokviz", *applicable], path, corpus, args, scratch):
                    ids_out = scratch / f"{encoder}-0.npz"
                    if args.progress:
                        print(f"{name} {corpus_name} {encoder}: "
                              f"{rec.get('skipped') or ' / '.join(_mbps(rec, p) for p in bench.PHASES)}",
                              file=sys.stderr, flush=True)
                    if "skipped" in rec:
                        if encoder == "tokviz":
                            sys.exit(f"tokviz failed on {name} {corpus_name}: {rec['skipped']}")
                        if not any(s["tokenizer"] == name and s["encoder"] == encoder for s in skipped):
                            skipped.append({"tokenizer": name, "encoder": encoder, "reason": rec["skipped"]})
                        continue
                    rec.update(tokenizer=name, corpus=corpus_name)
                    if encoder != "tokviz":
                        rec["mismatch"] = compare_ids(reference, ids_out, corpus, args)
                    elif not rec["repeat_same_ids"]:
                        rec["mismatch"] = {"pass": "repeat", "chunk": None, "token": None, "chunks_differing": None,
                                           "tokviz": None, "peer": None, "text": "tokviz's repeat ids differ from its first pass"}
                    if rec.get("mismatch"):
                        mismatches.append(rec)
                    records.append(rec)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "mb": args.mb,
        "chunk_kb": args.chunk_kb,
        "repeat": args.repeat,
        "runs": args.runs,
        "jobs": args.jobs,
        "corpora": corpora,
        "tokenizers": list(paths),
        "records": records,
        "skipped": skipped,
        "missing_tokenizers": skipped_tokenizers,
        "agree": not mismatches,
    }


# ---- tables ----------------------------------------------------------------------------------


def _mbps(rec, phase) -> str:
    value = rec["phases"][phase]["mb_per_s"]
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def markdown(report: dict) -> str:
    m = report["machine"]
    corpora = report["corpora"]
    lines = [
        f"# tokviz beside its peers, {report['date']}",
        "",
        f"{m['platform']}, {m['cpu']}, {m['cores']} cores, Python {m['python']}.  One thread, one encode "
        f"call per {report['chunk_kb']:g} KB chunk, each encoder freshly loaded in its own process per "
        f"tokenizer and corpus; MB/s of UTF-8 input.  cold = the first {report['mb']:g} MB of the corpus, "
        f"warm-unseen = the next {report['mb']:g} MB, repeat = best of {report['repeat']} over the "
        f"warm-unseen text again.  Load: median of the encoder's loads (loader call only).  "
        + (f"Each cell is the median of {report['runs']} runs, each a fresh process.  " if report["runs"] > 1 else "")
        + (f"Up to {report['jobs']} workers ran at once, each pinned to a core of its own.  " if report["jobs"] > 1 else "")
        + "tokviz ÷ fastest: tokviz's speed over the fastest peer's in that cell.",
        "",
    ]
    by_key = {(r["tokenizer"], r["encoder"], r["corpus"]): r for r in report["records"]}
    encoders = list(dict.fromkeys((r["tokenizer"], r["encoder"]) for r in report["records"]))
    for title, phases in (("cold / warm-unseen", ("cold", "warm_unseen")), ("repeat", ("repeat",))):
        lines += [f"## {title} (MB/s)", "",
                  "| tokenizer | encoder | load s | " + " | ".join(corpora) + " | ids |",
                  "| --- | --- | ---: | " + " | ".join("---:" for _ in corpora) + " | --- |"]
        for tokenizer in report["tokenizers"]:
            rows = [e for e in encoders if e[0] == tokenizer]
            for _, encoder in rows:
                recs = [by_key.get((tokenizer, encoder, c)) for c in corpora]
                present = [r for r in recs if r]
                load = statistics.median(r["load_seconds"] for r in present)
                cells = [" / ".join(_mbps(r, p) for p in phases) if r else "—" for r in recs]
                ids = "—" if encoder == "tokviz" else (
                    "agree" if not any(r.get("mismatch") for r in present) else "**DIFFER**")
                label = f"{encoder} {present[0]['version']}"
                lines.append(f"| {tokenizer} | {label} | {load:.2f} | " + " | ".join(cells) + f" | {ids} |")
            if len(rows) > 1:
                cells = []
                for c in corpora:
                    mine = by_key.get((tokenizer, "tokviz", c))
                    peers = [by_key[(tokenizer, e, c)] for _, e in rows if e != "tokviz" and (tokenizer, e, c) in by_key]
                    if not mine or not peers:
                        cells.append("—")
                        continue
                    cells.append(" / ".join(
                        f"{mine['phases'][p]['mb_per_s'] / max(r['phases'][p]['mb_per_s'] for r in peers):.2f}"
                        for p in phases))
                lines.append(f"| {tokenizer} | tokviz ÷ fastest peer | | " + " | ".join(cells) + " | |")
        lines.append("")
    mismatched = [r for r in report["records"] if r.get("mismatch")]
    if mismatched:
        lines += ["## Ids that differ from tokviz's", ""]
        for r in mismatched:
            d = r["mismatch"]
            if d["chunk"] is None:
                lines.append(f"- {r['tokenizer']} / {r['encoder']} / {r['corpus']}: {d['text']}")
                continue
            lines.append(f"- {r['tokenizer']} / {r['encoder']} / {r['corpus']}: {d['chunks_differing']} chunk(s) of "
                         f"the {d['pass']} pass, first chunk {d['chunk']} token {d['token']}: tokviz {d['tokviz']} vs "
                         f"{d['peer']} in {d['text']!r}")
        lines.append("")
    if report["skipped"] or report["missing_tokenizers"]:
        lines += ["## Skipped", ""]
        lines += [f"- {name}: {why}" for name, why in report["missing_tokenizers"].items()]
        lines += [f"- {s['tokenizer']} / {s['encoder']}: {s['reason']}" for s in report["skipped"]]
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=2, help="MB per pass (default 2: cold 2 MB, warm-unseen the next 2 MB)")
    ap.add_argument("--tokenizers", help=f"comma-separated, from {', '.join([*TOKENIZERS, *EXTRA_TOKENIZERS])} "
                                         f"(default {','.join(TOKENIZERS)})")
    ap.add_argument("--extra", action="store_true", help="also bert-minilm and the sentencepiece models")
    ap.add_argument("--corpora", default=",".join(CORPORA), help="comma-separated (default en,zh,code,multi)")
    ap.add_argument("--peers", help=f"comma-separated, from {','.join(bench.PEERS)} (default: all that apply)")
    ap.add_argument("--chunk-kb", type=float, default=8)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the repeat pass (default 3)")
    ap.add_argument("--runs", type=int, default=1, help="fresh workers per cell; the median counts (default 1)")
    ap.add_argument("--jobs", type=int, default=1, help="workers at once, each pinned to a core (default 1)")
    ap.add_argument("--json", action="store_true", help="print the records as JSON instead of the tables")
    ap.add_argument("--progress", action="store_true", help="one line on stderr per measurement")
    # worker mode (used by the parent)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--tokenizer", help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--ids-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0
    report = run(args)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(markdown(report))
    return 0 if report["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
