"""`tokviz bench --runs N` and `--threads 1,2,4,...`: each measurement in a fresh process, the median
of N, a single-thread table and a table of batches by thread count, the machine printed.

    >>> report = run_table(tok, ["en.txt"], threads=[1, 2, 4], runs=3, against=["fastokens"])
    >>> print(format_table(report))

For every encoder (tokviz and each peer that applies) and every configuration, `runs` fresh
processes (``python -m tokviz.bench_runs SPEC``) each load the encoder (the load timed alone) and
time the passes of tokviz.bench on the same chunks: cold (first use after the load), warm-unseen
(new text, caches warm) and repeat (the best of `repeat` runs over the warm-unseen chunks again).
A cell is the median of its runs.  The configurations:

* one thread, one encode call per chunk (tokviz ``encode_ids``, each peer's plain encode), when 1 is
  among `threads`;
* for each thread count in `threads` when any is above 1: one batch call per pass (tokviz
  ``encode_ids_batch(texts, threads=N, as_array=True)``, numpy arrays; each peer's own batch call
  with its pool sized to N: RAYON_NUM_THREADS, FASTOKENS_BPE_THREADS).

A fresh process per cell is what makes cold mean cold, lets each Rust peer size its thread pool
(read once per process), and keeps one encoder's caches from warming another's.  Every peer's ids of
the first run are compared chunk by chunk with tokviz's in the same configuration.  No Qt here.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .bench import PEERS, PHASES, _Skip, check_peer, load_peer, split_halves, time_pass, utf8_size
from .errors import TokvizError

SINGLE = "single"  # the configuration of one encode call per chunk


def machine() -> dict:
    """The CPU model, its cores, the platform and the Python, for a benchmark's heading."""
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version()}


# ---- the worker: one encoder, one configuration, in its own process --------------------------------


def ids_arrays(out):
    """(flat ids, offsets) int64 arrays of a pass's output: a list of id lists, or tokviz's
    (ids, offsets) arrays as they are."""
    import numpy as np

    if isinstance(out, tuple):
        ids, offsets = out
        return np.asarray(ids, dtype=np.int64), np.asarray(offsets, dtype=np.int64)
    offsets = np.cumsum([0] + [len(x) for x in out], dtype=np.int64)
    return np.fromiter((i for x in out for i in x), dtype=np.int64, count=int(offsets[-1])), offsets


def worker(spec: dict) -> dict:
    """Load one encoder, time the passes, write the ids of the cold and warm-unseen passes to
    spec["ids_out"]; the record (or {"skipped": why})."""
    import numpy as np

    cold, warm = split_halves(spec["files"], spec["chunk_kb"], spec["limit_kb"])
    threads, batch = spec["threads"], spec["threads"] is not None
    if spec["encoder"] == "tokviz":
        from . import __version__
        from .formats import load

        start = time.perf_counter()
        tok = load(spec["tokenizer"], pattern=spec["pattern"])
        load_seconds, version = time.perf_counter() - start, __version__
        if batch:
            def encode(texts):
                return tok.encode_ids_batch(texts, threads=threads, as_array=True)
        else:
            encode = tok.encode_ids
    else:
        from .bench import source_of

        try:
            peer = load_peer(spec["encoder"], source_of(spec["tokenizer"], spec["pattern"]), threads or 1)
        except _Skip as why:
            return {"skipped": str(why)}
        if batch and peer.batch is None:
            return {"skipped": "no batch call"}
        encode, version, load_seconds = (peer.batch if batch else peer.encode), peer.version, peer.load_seconds
    seconds, arrays = {}, {}
    for phase, chunks in (("cold", cold), ("warm_unseen", warm)):
        seconds[phase], out = time_pass(encode, chunks, batch)
        arrays[phase] = ids_arrays(out)
        del out
    best, repeat_same = float("inf"), True
    for _ in range(max(1, spec["repeat"])):
        took, out = time_pass(encode, warm, batch)
        best = min(best, took)
        ids, offsets = ids_arrays(out)
        del out
        repeat_same = repeat_same and np.array_equal(ids, arrays["warm_unseen"][0]) and \
            np.array_equal(offsets, arrays["warm_unseen"][1])
    seconds["repeat"] = best
    np.savez(spec["ids_out"], **{p: a[0] for p, a in arrays.items()}, **{f"{p}_offsets": a[1] for p, a in arrays.items()})
    sizes = {"cold": utf8_size(cold), "warm_unseen": utf8_size(warm)}
    sizes["repeat"] = sizes["warm_unseen"]
    tokens = {p: int(arrays[p][1][-1]) for p in arrays}
    tokens["repeat"] = tokens["warm_unseen"]
    return {"version": version, "load_seconds": load_seconds, "repeat_same_ids": bool(repeat_same),
            "phases": {p: {"seconds": seconds[p], "bytes": sizes[p], "tokens": tokens[p],
                           "mb_per_s": sizes[p] / 1e6 / seconds[p] if seconds[p] > 0 else None} for p in PHASES}}


def worker_record(encoder: str, cmd: list[str], env: dict, preexec_fn=None) -> dict:
    """Run a worker process; the record it printed last, or a "skipped" record saying why not."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, preexec_fn=preexec_fn)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-1:])[:300]
        return {"encoder": encoder, "skipped": f"its process failed (exit {proc.returncode}): {tail}"}
    return json.loads(lines[-1])


def _run_worker(spec: dict) -> dict:
    threads = spec["threads"] or 1
    env = {**os.environ, "RAYON_NUM_THREADS": str(threads), "FASTOKENS_BPE_THREADS": str(threads),
           "TOKENIZERS_PARALLELISM": "true" if threads > 1 else "false", "OMP_NUM_THREADS": "1"}
    return worker_record(spec["encoder"], [sys.executable, "-m", "tokviz.bench_runs", json.dumps(spec)], env)


def applicable_peers(peers: list[str], source) -> tuple[list[str], list[tuple[str, _Skip]]]:
    """(the peers that apply to the tokenizer, (peer, why) for the others)."""
    applicable, not_applicable = [], []
    for peer in peers:
        try:
            check_peer(peer, source)
            applicable.append(peer)
        except _Skip as why:
            not_applicable.append((peer, why))
    return applicable, not_applicable


# ---- the parent ------------------------------------------------------------------------------------


def median_record(runs: list[dict]) -> dict:
    """The first run's record with the median load time and, for each phase, the median MB/s and
    seconds (and each run's MB/s); a run's "skipped" record, when there is one, stands for them all."""
    skipped = next((r for r in runs if "skipped" in r), None)
    if skipped is not None:
        return skipped
    rec = dict(runs[0], phases={p: dict(v) for p, v in runs[0]["phases"].items()})
    rec["load_seconds"] = statistics.median(r["load_seconds"] for r in runs)
    if "repeat_same_ids" in rec:
        rec["repeat_same_ids"] = all(r["repeat_same_ids"] for r in runs)
    for phase, values in rec["phases"].items():
        speeds = [r["phases"][phase]["mb_per_s"] for r in runs]
        values["mb_per_s"] = statistics.median(speeds)
        values["seconds"] = statistics.median(r["phases"][phase]["seconds"] for r in runs)
        values["runs_mb_per_s"] = speeds
    return rec


def _first_difference(reference: Path, other: Path, cold: list[str], warm: list[str]) -> dict | None:
    """None when both files hold the same ids for every chunk of both passes, else where they first differ."""
    import numpy as np

    ours, theirs = np.load(reference), np.load(other)
    for phase, chunks in (("cold", cold), ("warm_unseen", warm)):
        a, a_off, b, b_off = ours[phase], ours[f"{phase}_offsets"], theirs[phase], theirs[f"{phase}_offsets"]
        if np.array_equal(a, b) and np.array_equal(a_off, b_off):
            continue
        for k in range(len(chunks)):
            x, y = a[a_off[k] : a_off[k + 1]], b[b_off[k] : b_off[k + 1]]
            if not np.array_equal(x, y):
                n = min(len(x), len(y))
                diff = np.flatnonzero(x[:n] != y[:n])
                i = int(diff[0]) if len(diff) else n
                return {"pass": phase, "chunk": k, "token": i, "tokviz": x[i : i + 5].tolist(),
                        "reference": y[i : i + 5].tolist(), "text": chunks[k][:80]}
    return None


def run_table(tok, paths, *, threads=(1,), runs: int = 3, against=None, chunk_kb: float = 8,
              limit_kb: float | None = None, repeat: int = 3, progress=None) -> dict:
    """Measure tokviz (`tok`'s file, loaded again in each process) and the peers as the module
    docstring says; a plain dict that `tokviz bench --json` prints.  `against`: names from PEERS, None
    for every one that applies to the tokenizer's format.  `progress(line)`: called after each cell."""
    threads = sorted(set(threads))
    if not threads or threads[0] < 1 or runs < 1:
        raise TokvizError("threads and runs must be at least 1")
    explicit = against is not None
    against = list(against) if explicit else list(PEERS)
    unknown = [a for a in against if a not in PEERS]
    if unknown:
        raise TokvizError(f"unknown reference {', '.join(unknown)} (choose from {', '.join(PEERS)})")
    source = tok.source
    pattern = source.extra.get("pattern") if source.format == "tiktoken" else None
    peers, not_applicable = applicable_peers(against, source)
    skipped = [{"name": name, "reason": str(why)} for name, why in not_applicable if explicit or why.applies]
    configs = ([SINGLE] if 1 in threads else []) + (threads if threads[-1] > 1 else [])
    cold, warm = split_halves(paths, chunk_kb, limit_kb)
    if not cold:
        raise TokvizError("nothing to measure: the files are empty")
    cells = {}
    with tempfile.TemporaryDirectory(prefix="tokviz-bench-") as scratch:
        for config in configs:
            reference = None
            for encoder in ["tokviz", *[p for p in peers if p not in {s["name"] for s in skipped}]]:
                ids_out = Path(scratch) / f"{encoder}.npz"
                spec = {"encoder": encoder, "tokenizer": str(source.path), "pattern": pattern,
                        "files": [os.fspath(p) for p in paths], "chunk_kb": chunk_kb, "limit_kb": limit_kb,
                        "repeat": repeat, "threads": None if config == SINGLE else config}
                records = []
                for k in range(runs):
                    rec = _run_worker({**spec, "ids_out": str(ids_out) if k == 0 else str(Path(scratch) / "later.npz")})
                    if "skipped" in rec:
                        break
                    records.append(rec)
                if "skipped" in rec:
                    if encoder == "tokviz":
                        raise TokvizError(f"tokviz could not be measured: {rec['skipped']}")
                    if config == SINGLE or rec["skipped"] != "no batch call":
                        skipped.append({"name": encoder, "reason": rec["skipped"]})
                    continue
                cell = median_record(records)
                if encoder == "tokviz":
                    reference = ids_out.with_name("tokviz-reference.npz")
                    ids_out.replace(reference)
                    cell["agree"] = cell["repeat_same_ids"]
                    cell["first_mismatch"] = None if cell["agree"] else {"pass": "repeat", "text": "tokviz's repeat differs from its first pass"}
                else:
                    cell["first_mismatch"] = _first_difference(reference, ids_out, cold, warm)
                    cell["agree"] = cell["first_mismatch"] is None and cell["repeat_same_ids"]
                cells[(encoder, config)] = cell
                if progress:
                    speeds = " / ".join(_num(cell["phases"][p]["mb_per_s"]) for p in PHASES)
                    where = "1 thread, per chunk" if config == SINGLE else f"batch, {config} threads"
                    progress(f"{encoder} ({where}): {speeds} MB/s")
    from . import __version__

    encoders = list(dict.fromkeys(e for e, _ in cells))
    return {
        "tokenizer": source.name or source.path,
        "format": source.format,
        "tokviz": __version__,
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d"),
        "files": [os.fspath(p) for p in paths],
        "bytes": utf8_size(cold) + utf8_size(warm),
        "chunks": len(cold) + len(warm),
        "chunk_kb": chunk_kb,
        "runs": runs,
        "repeat": max(1, repeat),
        "threads": threads,
        "single": {e: cells[(e, SINGLE)] for e in encoders if (e, SINGLE) in cells},
        "batch": {e: {str(t): cells[(e, t)] for t in threads if (e, t) in cells} for e in encoders
                  if any((e, t) in cells for t in threads)},
        "versions": {e: next(c["version"] for (name, _), c in cells.items() if name == e) for e in encoders},
        "skipped": list({s["name"]: s for s in skipped}.values()),
        "agree": all(c["agree"] for c in cells.values()),
    }


# ---- the tables ------------------------------------------------------------------------------------


def _num(value) -> str:
    if value is None:
        return "–"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]).rstrip() for r in rows]


def _ids(cell: dict, encoder: str) -> str:
    if encoder == "tokviz":
        return "" if cell["agree"] else "repeat DIFFERS"
    return "agree" if cell["agree"] else "DIFFER"


def _fastest_ratio(mine: float | None, others: list) -> str:
    others = [o for o in others if o]
    return f"{mine / max(others):.2f}" if mine and others else "–"


def format_table(report: dict) -> str:
    """The text `tokviz bench --runs N / --threads 1,2,...` prints."""
    m, versions = report["machine"], report["versions"]
    lines = [
        f"{report['tokenizer']} ({report['format']}) · {m['cpu']}, {m['cores']} cores · Python {m['python']} · "
        f"tokviz {report['tokviz']} · {report['date']}",
        f"{report['bytes'] / 1e6:.2f} MB in {report['chunks']:,} chunks of {report['chunk_kb']:g} KB: cold = the "
        f"first half of each file, right after the load; warm-unseen = the second half; repeat = best of "
        f"{report['repeat']} over it again.",
        f"Each cell: the median of {report['runs']} run{'s' if report['runs'] != 1 else ''}, each encoder loaded "
        "in a fresh process.  MB/s of UTF-8 text.",
    ]
    single = report["single"]
    if single:
        lines += ["", "One thread, one encode call per chunk (MB/s)"]
        rows = [["encoder", "load s", "cold", "warm-unseen", "repeat", "ids"]]
        for encoder, cell in single.items():
            rows.append([f"{encoder} {versions[encoder]}", f"{cell['load_seconds']:.2f}",
                         *(_num(cell["phases"][p]["mb_per_s"]) for p in PHASES), _ids(cell, encoder)])
        if len(single) > 1 and "tokviz" in single:
            rows.append(["tokviz ÷ fastest peer", "",
                         *(_fastest_ratio(single["tokviz"]["phases"][p]["mb_per_s"],
                                          [c["phases"][p]["mb_per_s"] for e, c in single.items() if e != "tokviz"])
                           for p in PHASES), ""])
        lines += _table(rows)
    batch = report["batch"]
    if batch:
        counts = [str(t) for t in report["threads"]]
        lines += ["", "Batches: one call per pass; warm-unseen MB/s by threads (tokviz returns numpy arrays)"]
        rows = [["encoder", *counts, f"{counts[-1]} ÷ {counts[0]}", "ids"]]
        for encoder, by in batch.items():
            speeds = [by[t]["phases"]["warm_unseen"]["mb_per_s"] if t in by else None for t in counts]
            scale = f"{speeds[-1] / speeds[0]:.1f}×" if speeds[0] and speeds[-1] else "–"
            rows.append([f"{encoder} {versions[encoder]}", *map(_num, speeds), scale,
                         "" if encoder == "tokviz" and all(c["agree"] for c in by.values()) else
                         _ids({"agree": all(c["agree"] for c in by.values())}, encoder)])
        if len(batch) > 1 and "tokviz" in batch:
            mine = batch["tokviz"]
            rows.append(["tokviz ÷ fastest peer",
                         *(_fastest_ratio(mine[t]["phases"]["warm_unseen"]["mb_per_s"] if t in mine else None,
                                          [by[t]["phases"]["warm_unseen"]["mb_per_s"] for e, by in batch.items()
                                           if e != "tokviz" and t in by]) for t in counts), "", ""])
        lines += _table(rows)
    for s in report["skipped"]:
        lines.append(f"{s['name']}: skipped, {s['reason']}")
    cells = [(e, "1 thread", c) for e, c in single.items()] + \
            [(e, f"{t} threads", c) for e, by in batch.items() for t, c in by.items()]
    for encoder, where, cell in cells:
        found = cell.get("first_mismatch")
        if found and encoder != "tokviz":
            lines.append(f"first mismatch with {encoder} ({where}, {found['pass']}): chunk {found['chunk']} token "
                         f"{found['token']}: tokviz {found['tokviz']} vs {found['reference']} in {found['text']!r}")
        elif found:
            lines.append(f"tokviz ({where}): {found['text']}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(worker(json.loads(sys.argv[1]))))
