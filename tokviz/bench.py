"""`tokviz bench`: encoding speed of tokviz next to the reference libraries, on the same chunks.

    >>> report = run_bench(tok, ["en.txt"], threads=1, against=["tiktoken"], chunk_kb=8)
    >>> report["results"][1]["ratio"], report["agree"]
    (0.08, True)

The files are cut into chunks of about `chunk_kb` KB (at character boundaries, so every chunk is
valid UTF-8); tokviz encodes them with ``encode_batch(chunks, threads=N)`` and each reference library
with its own batch call on the very same chunks:

* tiktoken (for a .tiktoken file): a ``tiktoken.Encoding`` built from the same file and the split
  pattern tokviz uses, ``encode_ordinary_batch``;
* HF tokenizers (for a tokenizer.json): ``Tokenizer.from_file`` with padding and truncation off,
  ``encode_batch(chunks, add_special_tokens=False)``;
* sentencepiece (for a .model file): ``SentencePieceProcessor(model_file=...).encode(chunks)``.

The reference libraries are optional: they are imported here, lazily, and a missing one is reported
and skipped.  Every reference's ids are compared chunk by chunk with tokviz's; `agree` is False when
any chunk differs.  Ratios are tokviz's speed divided by the reference's (above 1: tokviz is faster).
Each of the `repeat` runs (the best is reported) starts with tokviz's piece caches emptied.
No Qt here.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from .errors import TokvizError

REFERENCES = ("tiktoken", "hf", "sentencepiece")


def read_chunks(paths, chunk_kb: float = 8, limit_kb: float | None = None) -> list[str]:
    """The files' text cut into chunks of about `chunk_kb` KB, never inside a UTF-8 character.
    `limit_kb`: use only that much of each file."""
    size = max(1, int(chunk_kb * 1024))
    chunks: list[str] = []
    for p in paths:
        try:
            data = Path(p).read_bytes()
        except OSError as exc:
            raise TokvizError(f"cannot read: {exc.strerror or exc}", p) from None
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if limit_kb is not None:
            data = data[: int(limit_kb * 1024)]
            data = data[: len(data.decode("utf-8", "ignore").encode("utf-8"))] if data else data
        pos = 0
        while pos < len(data):
            end = min(len(data), pos + size)
            while end < len(data) and data[end] & 0xC0 == 0x80:  # inside a character: move back
                end -= 1
            if end == pos:  # a chunk smaller than one character
                end = pos + 1
                while end < len(data) and data[end] & 0xC0 == 0x80:
                    end += 1
            try:
                chunks.append(data[pos:end].decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise TokvizError(
                    f"not UTF-8 text: byte 0x{data[pos + exc.start]:02x} at offset {pos + exc.start}", p
                ) from None
            pos = end
    return chunks


# ---- reference encoders: each returns a batch function, or raises _Skip with the reason -----------


class _Skip(Exception):
    """The reference cannot run: `applies` False when it is not for this tokenizer's format."""

    def __init__(self, reason: str, applies: bool = False):
        super().__init__(reason)
        self.applies = applies


def _tiktoken_encoder(tok, threads: int) -> Callable[[list[str]], list[list[int]]]:
    if tok.source.format != "tiktoken":
        raise _Skip("applies to .tiktoken files only")
    try:
        import tiktoken
    except ImportError:
        raise _Skip("not installed (pip install tiktoken)", applies=True) from None
    from .formats.tiktoken_file import read_ranks

    ranks = read_ranks(Path(tok.source.path))
    pattern = tok.source.extra.get("pattern")
    enc = tiktoken.Encoding(name=f"tokviz-bench-{tok.source.name}", pat_str=pattern, mergeable_ranks=ranks,
                            special_tokens={})
    return lambda chunks: enc.encode_ordinary_batch(chunks, num_threads=threads)


def _hf_encoder(tok, threads: int):
    path = tok.source.path
    if tok.source.format != "hf-json" or not path:
        raise _Skip("applies to tokenizer.json files only")
    # HF parallelism is process-wide (RAYON_NUM_THREADS), read when its thread pool first starts.
    os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
    try:
        import tokenizers
    except ImportError:
        raise _Skip("not installed (pip install tokenizers)", applies=True) from None
    if os.path.isdir(path):
        path = os.path.join(path, "tokenizer.json")
    ref = tokenizers.Tokenizer.from_file(path)
    ref.no_padding()
    ref.no_truncation()
    return lambda chunks: [e.ids for e in ref.encode_batch(chunks, add_special_tokens=False)]


def _sentencepiece_encoder(tok, threads: int):
    if tok.source.format != "sentencepiece":
        raise _Skip("applies to sentencepiece .model files only")
    try:
        import sentencepiece
    except ImportError:
        raise _Skip("not installed (pip install sentencepiece)", applies=True) from None
    sp = sentencepiece.SentencePieceProcessor(model_file=tok.source.path)
    return lambda chunks: sp.encode(chunks, num_threads=threads)


_FACTORIES = {"tiktoken": _tiktoken_encoder, "hf": _hf_encoder, "sentencepiece": _sentencepiece_encoder}


def _timed(fn, chunks, repeat: int, before=None):
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        out = None  # free the previous run's results before the clock starts, not inside it
        if before is not None:
            before()
        t0 = time.perf_counter()
        out = fn(chunks)
        best = min(best, time.perf_counter() - t0)
    return best, out


def _row(name: str, seconds: float, nbytes: int, tokens: int) -> dict:
    return {
        "name": name,
        "seconds": seconds,
        "mb_per_s": nbytes / 1e6 / seconds if seconds > 0 else None,
        "tokens": tokens,
        "tokens_per_s": tokens / seconds if seconds > 0 else None,
    }


def run_bench(tok, paths, *, threads: int = 1, against=None, chunk_kb: float = 8,
              limit_kb: float | None = None, repeat: int = 1) -> dict:
    """Measure tokviz and the reference libraries on the same chunks; a plain dict (see the module
    docstring) that `tokviz bench --json` prints as is.  `against`: names from REFERENCES; None for
    every one that applies to the tokenizer's format (the others are then not even listed as skipped)."""
    explicit = against is not None
    against = list(against) if explicit else list(REFERENCES)
    unknown = [a for a in against if a not in _FACTORIES]
    if unknown:
        raise TokvizError(f"unknown reference {', '.join(unknown)} (choose from {', '.join(REFERENCES)})")
    chunks = read_chunks(paths, chunk_kb, limit_kb)
    nbytes = sum(len(c.encode("utf-8")) for c in chunks)
    info = tok.describe()
    # Every run starts with tokviz's piece caches empty, so that a repeat does not time the recall
    # of pieces the previous run computed (the references keep no such cache across calls).
    seconds, encs = _timed(lambda cs: tok.encode_batch(cs, threads=threads), chunks, repeat, tok.clear_cache)
    ours = [e.ids for e in encs]
    tokens = sum(len(i) for i in ours)
    mine = _row("tokviz", seconds, nbytes, tokens)
    mine["encoder"] = info.get("encoder", "python")
    results = [mine]
    skipped = []
    for name in against:
        try:
            encode = _FACTORIES[name](tok, threads)
        except _Skip as why:
            if explicit or why.applies:
                skipped.append({"name": name, "reason": str(why)})
            continue
        ref_seconds, theirs = _timed(encode, chunks, repeat)
        theirs = [list(ids) for ids in theirs]
        row = _row(name, ref_seconds, nbytes, sum(len(i) for i in theirs))
        bad = [k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b]
        row["ratio"] = ref_seconds / seconds if seconds > 0 else None  # tokviz speed / reference speed
        row["mismatched_chunks"] = len(bad)
        row["first_mismatch"] = _first_mismatch(chunks, ours, theirs, bad[0]) if bad else None
        row["agree"] = not bad
        results.append(row)
    return {
        "tokenizer": tok.source.name or tok.source.path,
        "format": tok.source.format,
        "encoder": mine["encoder"],
        "files": [os.fspath(p) for p in paths],
        "bytes": nbytes,
        "chunks": len(chunks),
        "chunk_kb": chunk_kb,
        "threads": threads,
        "results": results,
        "skipped": skipped,
        "agree": all(r.get("agree", True) for r in results),
    }


def _first_mismatch(chunks, ours, theirs, k: int) -> dict:
    a, b = ours[k], theirs[k]
    i = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return {"chunk": k, "token": i, "tokviz": a[i : i + 5], "reference": b[i : i + 5],
            "text": chunks[k][:80]}


def format_report(report: dict) -> str:
    """The human-readable table `tokviz bench` prints."""
    lines = [
        f"{report['tokenizer']} ({report['format']}, encoder {report['encoder']}): "
        f"{report['bytes'] / 1e6:.2f} MB in {report['chunks']:,} chunks of {report['chunk_kb']:g} KB, "
        f"{report['threads']} thread{'s' if report['threads'] != 1 else ''}",
        "",
        f"{'encoder':<14}{'MB/s':>10}{'tokens/s':>14}{'tokens':>12}{'tokviz/ref':>12}  ids",
    ]
    for r in report["results"]:
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") is not None else "–"
        speed = f"{r['mb_per_s']:.2f}" if r["mb_per_s"] is not None else "–"
        rate = f"{r['tokens_per_s']:,.0f}" if r["tokens_per_s"] is not None else "–"
        ids = "–" if "agree" not in r else ("agree" if r["agree"] else f"{r['mismatched_chunks']} chunks DIFFER")
        lines.append(f"{r['name']:<14}{speed:>10}{rate:>14}{r['tokens']:>12,}{ratio:>12}  {ids}")
    for s in report["skipped"]:
        lines.append(f"{s['name']:<14}skipped: {s['reason']}")
    for r in report["results"]:
        m = r.get("first_mismatch")
        if m:
            lines.append(f"first mismatch with {r['name']}: chunk {m['chunk']} token {m['token']}: "
                         f"tokviz {m['tokviz']} vs {m['reference']} in {m['text']!r}")
    return "\n".join(lines)
