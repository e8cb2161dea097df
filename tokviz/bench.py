"""`tokviz bench`: encoding speed of tokviz next to other tokenizer libraries ("peers"), in one run.

    >>> report = run_bench(tok, ["en.txt"], against=["tiktoken"], load_seconds=0.6)
    >>> [(p, report["results"][1]["phases"][p]["ratio"]) for p in PHASES]
    [('cold', 0.9), ('warm_unseen', 5.1), ('repeat', 5.3)]

What is measured (one thread, one encode call per chunk, MB/s = UTF-8 bytes / seconds):

* the files are cut into chunks of about `chunk_kb` KB at character boundaries (`read_chunks`);
  the first half of each file's chunks makes the *cold* pass, the second half the *warm-unseen*
  pass, so both passes hold the same mix of files;
* each encoder is loaded once (`load_seconds`: the loader call alone, imports excluded), then encodes
  the cold chunks (first use: whatever it builds lazily or caches is built now), then the
  warm-unseen chunks (its caches are warm, the text is new to it), then *repeat*: the best of
  `repeat` runs over the warm-unseen chunks again (text already seen: what a cache flatters most).
  The garbage collector is paused during each timed pass, for every encoder alike.

All encoders run in this process, one after the other; `tok` is used as given (pass a freshly
loaded one for a true cold figure).  benchmarks/peer_speed.py measures the same passes with each
encoder in a fresh process on separate parts of the corpora.

With ``threads > 1`` each pass is one batch call on `threads` threads instead (tokviz
``encode_ids_batch``, each peer's own batch call).  The Rust peers size their thread pools from
RAYON_NUM_THREADS (fastokens' batch from FASTOKENS_BPE_THREADS), set here to `threads` if it is not
set yet (read once, when a pool first starts).

Peers (all optional: imported lazily; one that is not installed, does not apply to the file's
format or cannot load the file is reported as skipped with the reason), each called as its plain
single-text encode without special tokens:

==============  =====================================================================================
hf              ``tokenizers.Tokenizer.from_file(json)``; ``encode(text, add_special_tokens=False).ids``
tiktoken        ``tiktoken.Encoding`` over the file's ranks and tokviz's split pattern; ``encode_ordinary``
sentencepiece   ``SentencePieceProcessor(model_file=...)``; ``encode(text)``
fastokens       ``Tokenizer.from_file(json)``: ``encode(text, add_special_tokens=False).ids``;
                ``Tokenizer.from_tiktoken(path, encoding="cl100k_base")`` (its presets; otherwise
                ``pattern=...``): ``encode_ordinary(text).ids``
tokie           ``Tokenizer.from_json(json)``; ``encode(text, add_special_tokens=False).ids``
kitoken         ``Kitoken.from_tokenizers_file`` / ``from_tiktoken_file`` / ``from_sentencepiece_file``;
                ``encode(text)`` (padding and truncation steps of a tokenizer.json removed, as
                ``no_padding()`` / ``no_truncation()`` do for the others)
bpe-openai      ``bpe_openai.get_encoding(name).encode_ordinary`` (cl100k_base, o200k_base built in)
rs-bpe          ``rs_bpe.bpe.openai.cl100k_base()`` / ``o200k_base()``; ``encode(text)``
==============  =====================================================================================

Every peer's ids are compared chunk by chunk with tokviz's in every pass (repeat included);
`agree` is False when any chunk differs.  Ratios are tokviz's speed divided by the peer's (above 1:
tokviz is faster).  No Qt here.
"""
from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .core.gcpause import paused_gc
from .core.tokenizer import Source
from .errors import TokvizError
from .paths import read_limited

PHASES = ("cold", "warm_unseen", "repeat")
MAX_BENCH_FILE = 1 << 30  # a benchmark file is read whole, then cut into chunks
PHASE_LABELS = {"cold": "cold", "warm_unseen": "warm-unseen", "repeat": "repeat"}


def read_chunks(paths, chunk_kb: float = 8, limit_kb: float | None = None) -> list[str]:
    """The files' text cut into chunks of about `chunk_kb` KB, never inside a UTF-8 character.
    `limit_kb`: use only that much of each file."""
    size = max(1, int(chunk_kb * 1024))
    chunks: list[str] = []
    for p in paths:
        data = read_limited(p, MAX_BENCH_FILE, "a text file")
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


def split_halves(paths, chunk_kb: float = 8, limit_kb: float | None = None) -> tuple[list[str], list[str]]:
    """(cold, warm-unseen) chunks: the first half of each file's chunks, then the second halves."""
    cold: list[str] = []
    warm: list[str] = []
    for p in paths:
        chunks = read_chunks([p], chunk_kb, limit_kb)
        cut = (len(chunks) + 1) // 2
        cold += chunks[:cut]
        warm += chunks[cut:]
    return cold, warm


def two_passes(path, mb: float, chunk_kb: float = 8) -> tuple[list[str], list[str]]:
    """(first `mb` MB, next `mb` MB) of a file as chunks (1 MB = 10**6 bytes, as in MB/s); each pass
    ends with the chunk that reaches its size.  A file shorter than that gives shorter passes."""
    chunks = read_chunks([path], chunk_kb, limit_kb=(2 * mb * 1e6 + 2 * chunk_kb * 1024) / 1024)
    passes: tuple[list[str], list[str]] = ([], [])
    which, size = 0, 0
    for chunk in chunks:
        passes[which].append(chunk)
        size += len(chunk.encode("utf-8"))
        if size >= mb * 1e6:
            if which == 1:
                break
            which, size = 1, 0
    return passes


# ---- timing ------------------------------------------------------------------------------------


def time_pass(encode: Callable, chunks: list[str], batch: bool = False) -> tuple[float, list]:
    """(seconds, outputs): `encode` called once per chunk, or once on all of them with `batch`."""
    with paused_gc():
        t0 = time.perf_counter()
        out = encode(chunks) if batch else [encode(c) for c in chunks]
        seconds = time.perf_counter() - t0
    return seconds, out


def measure(encode: Callable, cold: list[str], warm: list[str], repeat: int = 3,
            batch: bool = False) -> tuple[dict, dict]:
    """The three passes of the module docstring: ({phase: seconds}, {phase: ids per chunk})."""
    seconds, ids = {}, {}
    seconds["cold"], ids["cold"] = time_pass(encode, cold, batch)
    seconds["warm_unseen"], ids["warm_unseen"] = time_pass(encode, warm, batch)
    best = float("inf")
    for _ in range(max(1, repeat)):
        ids["repeat"] = None  # free the previous run's output before the clock starts, not inside it
        took, ids["repeat"] = time_pass(encode, warm, batch)
        best = min(best, took)
    seconds["repeat"] = best
    return seconds, {k: [list(v) for v in out] for k, out in ids.items()}


def utf8_size(chunks: list[str]) -> int:
    return sum(len(c.encode("utf-8")) for c in chunks)


# ---- peers: each loads a tokenizer file with another library ---------------------------------------


class _Skip(Exception):
    """The peer cannot run: `applies` False when it is not for this tokenizer's format at all."""

    def __init__(self, reason: str, applies: bool = False):
        super().__init__(reason)
        self.applies = applies


def source_of(path, pattern: str | None = None) -> Source:
    """What the peers need to know of a tokenizer file or folder (its `Tokenizer.source`), without
    loading it: the format detected as `tokviz.load` does, a .tiktoken file's split pattern from its
    name unless given."""
    from .core.patterns import TIKTOKEN_PATTERNS
    from .formats import detect

    fmt, target = detect(Path(path).expanduser())
    name = target.name.split(".")[0] if target.is_file() else target.name
    extra = {}
    if fmt == "tiktoken":
        extra["pattern"] = pattern or TIKTOKEN_PATTERNS.get(name)
    return Source(fmt, str(target), name, extra)


@dataclass
class Peer:
    """A loaded peer: `encode(text) -> ids`, `batch(texts) -> ids lists` (None: single calls only)."""

    name: str
    version: str
    load_seconds: float
    encode: Callable[[str], list]
    batch: Callable[[list[str]], list] | None = None


@dataclass(frozen=True)
class PeerSpec:
    """How to load one peer library.  `setup(source, threads)` imports it and returns
    (construct, wrap): `construct()` is the timed loader call, `wrap(obj)` gives (encode, batch)."""

    module: str
    package: str
    formats: tuple[str, ...]
    setup: Callable
    names: tuple[str, ...] | None = None  # the only tokenizers it has (bpe-openai, rs-bpe)


def _file(source) -> str:
    path = Path(source.path)
    if path.is_dir():
        from .formats import detect

        path = detect(path)[1]
    return str(path)


def _tiktoken_ranks(path: str) -> dict[bytes, int]:
    """A .tiktoken file's ranks as tiktoken reads them (its own loader would copy a local file into
    its download cache first)."""
    import base64

    with open(path, "rb") as fh:
        return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in fh if line.strip())}


def _setup_tiktoken(source, threads):
    import tiktoken

    def construct():
        return tiktoken.Encoding(name=f"tokviz-bench-{source.name}", pat_str=source.extra["pattern"],
                                 mergeable_ranks=_tiktoken_ranks(_file(source)), special_tokens={})

    return construct, lambda enc: (enc.encode_ordinary,
                                   lambda texts: enc.encode_ordinary_batch(texts, num_threads=threads))


def _setup_hf(source, threads):
    import tokenizers

    def wrap(ref):
        ref.no_padding()
        ref.no_truncation()
        return (lambda text: ref.encode(text, add_special_tokens=False).ids,
                lambda texts: [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)])

    return lambda: tokenizers.Tokenizer.from_file(_file(source)), wrap


def _setup_sentencepiece(source, threads):
    import sentencepiece

    return (lambda: sentencepiece.SentencePieceProcessor(model_file=_file(source)),
            lambda sp: (sp.encode, lambda texts: sp.encode(texts, num_threads=threads)))


def _setup_fastokens(source, threads):
    import fastokens

    if source.format == "tiktoken":
        from .core.patterns import TIKTOKEN_PATTERNS

        # Its presets (cl100k_base, o200k_base) run a pre-tokenizer written for the pattern; a pattern
        # given as text may go through PCRE2 instead (4x slower on cl100k's possessive spelling).
        pattern = source.extra["pattern"]
        preset = source.name if source.name in _OPENAI and pattern == TIKTOKEN_PATTERNS.get(source.name) else None

        def construct():
            if preset:
                return fastokens.Tokenizer.from_tiktoken(_file(source), encoding=preset, special_tokens={})
            return fastokens.Tokenizer.from_tiktoken(_file(source), pattern=pattern, special_tokens={})

        return construct, lambda t: (lambda text: t.encode_ordinary(text).ids,
                                     lambda texts: [e.ids for e in t.encode_batch(texts)])

    def wrap(t):
        t.no_padding()
        t.no_truncation()
        return (lambda text: t.encode(text, add_special_tokens=False).ids,
                lambda texts: [e.ids for e in t.encode_batch(texts, add_special_tokens=False)])

    return lambda: fastokens.Tokenizer.from_file(_file(source)), wrap


def _setup_tokie(source, threads):
    import tokie

    def wrap(t):
        t.no_padding()
        t.no_truncation()
        return (lambda text: t.encode(text, add_special_tokens=False).ids,
                lambda texts: [e.ids for e in t.encode_batch(texts, add_special_tokens=False)])

    return lambda: tokie.Tokenizer.from_json(_file(source)), wrap


def _setup_kitoken(source, threads):
    import kitoken

    loader = {"hf-json": kitoken.Kitoken.from_tokenizers_file, "tiktoken": kitoken.Kitoken.from_tiktoken_file,
              "sentencepiece": kitoken.Kitoken.from_sentencepiece_file}[source.format]

    def wrap(k):
        config = k.config()
        steps = config.get("processing") or []
        kept = [s for s in steps if not (isinstance(s, dict) and {"Pad", "Truncate"} & set(s))]
        if len(kept) != len(steps):  # a tokenizer.json's padding / truncation: off, as for the others
            config["processing"] = kept
            k.set_config(config)
        return k.encode, k.encode_all

    return lambda: loader(_file(source)), wrap


def _setup_bpe_openai(source, threads):
    import bpe_openai

    return (lambda: bpe_openai.get_encoding(source.name),
            lambda enc: (enc.encode_ordinary, lambda texts: enc.encode_ordinary_batch(texts, num_threads=threads)))


def _setup_rs_bpe(source, threads):
    from rs_bpe.bpe import openai

    options = openai.ParallelOptions(min_batch_size=1, chunk_size=1, max_threads=threads)
    return (getattr(openai, source.name),
            lambda t: (t.encode, lambda texts: t.encode_batch_parallel(texts, options)[0]))


_OPENAI = ("cl100k_base", "o200k_base")

PEERS: dict[str, PeerSpec] = {
    "fastokens": PeerSpec("fastokens", "fastokens", ("hf-json", "tiktoken"), _setup_fastokens),
    "tokie": PeerSpec("tokie", "tokie", ("hf-json",), _setup_tokie),
    "kitoken": PeerSpec("kitoken", "kitoken", ("hf-json", "tiktoken", "sentencepiece"), _setup_kitoken),
    "bpe-openai": PeerSpec("bpe_openai", "bpe-openai", ("tiktoken",), _setup_bpe_openai, names=_OPENAI),
    "rs-bpe": PeerSpec("rs_bpe", "rs-bpe", ("tiktoken",), _setup_rs_bpe, names=_OPENAI),
    "tiktoken": PeerSpec("tiktoken", "tiktoken", ("tiktoken",), _setup_tiktoken),
    "hf": PeerSpec("tokenizers", "tokenizers", ("hf-json",), _setup_hf),
    "sentencepiece": PeerSpec("sentencepiece", "sentencepiece", ("sentencepiece",), _setup_sentencepiece),
}


def _format_list(formats) -> str:
    files = {"hf-json": "tokenizer.json", "tiktoken": ".tiktoken", "sentencepiece": "sentencepiece .model"}
    return " and ".join(files.get(f, f) for f in formats)


def check_peer(name: str, source) -> None:
    """Raise _Skip when peer `name` does not apply to `source` or is not installed (nothing imported)."""
    spec = PEERS[name]
    if source.format not in spec.formats:
        raise _Skip(f"applies to {_format_list(spec.formats)} files only")
    if spec.names is not None and source.name not in spec.names:
        raise _Skip(f"has only {', '.join(spec.names)} built in")
    if source.format == "tiktoken" and not source.extra.get("pattern"):
        raise _Skip("the .tiktoken file's split pattern is unknown", applies=True)
    if importlib.util.find_spec(spec.module) is None:
        raise _Skip(f"not installed (pip install {spec.package})", applies=True)


def package_version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


def load_peer(name: str, source, threads: int = 1) -> Peer:
    """Peer `name` loaded on `source`'s file, its load timed; _Skip with the reason when it cannot run."""
    check_peer(name, source)
    spec = PEERS[name]
    try:
        construct, wrap = spec.setup(source, threads)
    except ImportError as exc:
        raise _Skip(f"cannot import {spec.module}: {exc}", applies=True) from None
    try:
        t0 = time.perf_counter()
        obj = construct()
        load_seconds = time.perf_counter() - t0
        encode, batch = wrap(obj)
    except Exception as exc:  # each library has its own exception types
        message = " ".join(str(exc).split())[:300]
        raise _Skip(f"cannot load {Path(source.path).name}: {type(exc).__name__}: {message}", applies=True) from None
    return Peer(name, package_version(spec.package), load_seconds, encode, batch)


# ---- the report ----------------------------------------------------------------------------------


def _speed(seconds: float, nbytes: int, tokens: int) -> dict:
    return {
        "seconds": seconds,
        "mb_per_s": nbytes / 1e6 / seconds if seconds > 0 else None,
        "tokens": tokens,
        "tokens_per_s": tokens / seconds if seconds > 0 else None,
    }


def first_mismatch(chunks, ours, theirs, k: int) -> dict:
    """Where chunk `k`'s ids first differ: token index, five ids from there on each side, the text."""
    a, b = ours[k], theirs[k]
    i = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return {"chunk": k, "token": i, "tokviz": a[i : i + 5], "reference": b[i : i + 5], "text": chunks[k][:80]}


def run_bench(tok, paths, *, threads: int = 1, against=None, chunk_kb: float = 8,
              limit_kb: float | None = None, repeat: int = 3, load_seconds: float | None = None) -> dict:
    """Measure tokviz and the peers (module docstring); a plain dict that `tokviz bench --json` prints.
    `against`: names from PEERS; None for every one that applies to the tokenizer's format (those
    that do not apply are then not even listed as skipped).  `load_seconds`: how long loading `tok`
    took, when the caller timed it."""
    explicit = against is not None
    against = list(against) if explicit else list(PEERS)
    unknown = [a for a in against if a not in PEERS]
    if unknown:
        raise TokvizError(f"unknown reference {', '.join(unknown)} (choose from {', '.join(PEERS)})")
    cold, warm = split_halves(paths, chunk_kb, limit_kb)
    chunks = cold + warm
    phase_chunks = {"cold": cold, "warm_unseen": warm, "repeat": warm}
    phase_bytes = {p: utf8_size(c) for p, c in phase_chunks.items()}
    nbytes = phase_bytes["cold"] + phase_bytes["warm_unseen"]
    batch = threads > 1
    os.environ.setdefault("RAYON_NUM_THREADS", str(threads))  # the Rust peers' thread pools
    os.environ.setdefault("FASTOKENS_BPE_THREADS", str(threads))  # (fastokens' batch has its own)

    def row(name, version, load, seconds, ids) -> dict:
        out = {"name": name, "version": version, "load_seconds": load}
        out.update(_speed(seconds["cold"] + seconds["warm_unseen"], nbytes,
                          sum(map(len, ids["cold"])) + sum(map(len, ids["warm_unseen"]))))
        out["phases"] = {p: _speed(seconds[p], phase_bytes[p], sum(map(len, ids[p]))) for p in PHASES}
        return out

    from . import __version__

    encode = (lambda texts: tok.encode_ids_batch(texts, threads=threads)) if batch else tok.encode_ids
    seconds, ours = measure(encode, cold, warm, repeat, batch)
    info = tok.describe()  # (after the cold pass: describing the encoder builds it)
    mine = row("tokviz", __version__, load_seconds, seconds, ours)
    mine["encoder"] = info.get("encoder", "python")
    own = _differences(warm, ours["warm_unseen"], ours["repeat"], len(cold), "repeat, against tokviz's first pass")
    if own[0]:  # tokviz's row says nothing about ids unless its repeat disagrees with itself
        _record(mine, [own])
    results, skipped = [mine], []
    for name in against:
        try:
            peer = load_peer(name, tok.source, threads)
        except _Skip as why:
            if explicit or why.applies:
                skipped.append({"name": name, "reason": str(why)})
            continue
        peer_seconds, theirs = measure(peer.batch if batch else peer.encode, cold, warm, repeat, batch)
        r = row(name, peer.version, peer.load_seconds, peer_seconds, theirs)
        r["ratio"] = r["seconds"] / mine["seconds"] if mine["seconds"] > 0 else None
        for p in PHASES:
            mine_s, theirs_s = mine["phases"][p]["seconds"], r["phases"][p]["seconds"]
            r["phases"][p]["ratio"] = theirs_s / mine_s if mine_s > 0 else None
        _record(r, [
            _differences(cold, ours["cold"], theirs["cold"]),
            _differences(warm, ours["warm_unseen"], theirs["warm_unseen"], len(cold)),
            _differences(warm, ours["warm_unseen"], theirs["repeat"], len(cold), "repeat"),
        ])
        results.append(r)
    return {
        "tokenizer": tok.source.name or tok.source.path,
        "format": tok.source.format,
        "encoder": mine["encoder"],
        "files": [os.fspath(p) for p in paths],
        "bytes": nbytes,
        "chunks": len(chunks),
        "chunk_kb": chunk_kb,
        "threads": threads,
        "method": f"one batch call per pass, {threads} threads" if batch else "one encode call per chunk",
        "passes": {p: {"chunks": len(phase_chunks[p]), "bytes": phase_bytes[p]} for p in PHASES},
        "repeat": max(1, repeat),
        "results": results,
        "skipped": skipped,
        "agree": all(r.get("agree", True) for r in results),
    }


def _differences(chunks, expected, got, offset: int = 0, label: str | None = None) -> tuple[list[int], dict | None]:
    """(indices of the chunks whose ids differ, counted from `offset`; where the first one differs)."""
    bad = [k for k, (a, b) in enumerate(zip(expected, got)) if a != b]
    if not bad:
        return [], None
    first = first_mismatch(chunks, expected, got, bad[0])
    first["chunk"] += offset
    if label:
        first["pass"] = label
    return [k + offset for k in bad], first


def _record(row: dict, found: list) -> None:
    bad = set().union(*(set(indices) for indices, _ in found))
    row["mismatched_chunks"] = len(bad)
    row["first_mismatch"] = next((first for _, first in found if first), None)
    row["agree"] = not bad


def format_report(report: dict) -> str:
    """The human-readable table `tokviz bench` prints."""
    passes = report["passes"]
    lines = [
        f"{report['tokenizer']} ({report['format']}, encoder {report['encoder']}): "
        f"{report['bytes'] / 1e6:.2f} MB in {report['chunks']:,} chunks of {report['chunk_kb']:g} KB, "
        f"{report['threads']} thread{'s' if report['threads'] != 1 else ''}, {report['method']}",
        f"cold: {passes['cold']['chunks']:,} chunks right after the load; warm-unseen: the other "
        f"{passes['warm_unseen']['chunks']:,} (new text); repeat: best of {report['repeat']} over those again",
        "",
    ]
    table = [["encoder", "load s", "cold MB/s", "warm-unseen MB/s", "repeat MB/s", "tokens/s", "tokens",
              "tokviz/ref cold · warm · repeat", "ids"]]
    for r in report["results"]:
        phases = r["phases"]
        ratios = " · ".join(_ratio(phases[p].get("ratio")) for p in PHASES) if "ratio" in r else ""
        ids = "" if "agree" not in r else ("agree" if r["agree"] else f"{r['mismatched_chunks']} chunks DIFFER")
        table.append([
            f"{r['name']} {r.get('version') or ''}".strip(),
            f"{r['load_seconds']:.2f}" if r.get("load_seconds") is not None else "–",
            *(_num(phases[p]["mb_per_s"]) for p in PHASES),
            f"{r['tokens_per_s']:,.0f}" if r["tokens_per_s"] is not None else "–",
            f"{r['tokens']:,}",
            ratios,
            ids,
        ])
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:7], widths[1:7])] + row[7:]
        lines.append("  ".join(cells).rstrip())
    for s in report["skipped"]:
        lines.append(f"{s['name']}: skipped, {s['reason']}")
    for r in report["results"]:
        m = r.get("first_mismatch")
        if m:
            where = f" ({m['pass']})" if m.get("pass") else ""
            lines.append(f"first mismatch with {r['name']}{where}: chunk {m['chunk']} token {m['token']}: "
                         f"tokviz {m['tokviz']} vs {m['reference']} in {m['text']!r}")
    return "\n".join(lines)


def _ratio(value) -> str:
    return "–" if value is None else f"{value:.2f}x"


def _num(value) -> str:
    if value is None:
        return "–"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"
