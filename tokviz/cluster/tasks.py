"""What runs on the workers: counting one byte range, and combining partial counts.

Every function here is importable by name (Dask pickles a reference, not the code), takes plain
values and returns plain values.  Tokenizers travel as (path, pattern) and are loaded once per
worker process (`tokenizer`)."""
from __future__ import annotations

import codecs
import os
import threading
from collections.abc import Iterator

import numpy as np

from ..errors import TokvizError
from ..paths import open_regular

_TOKENIZERS: dict = {}
_LOCK = threading.Lock()

# the scalar fields of CorpusStats that add up over ranges
STAT_FIELDS = ("bytes", "chars", "words", "tokens", "han_chars", "han_tokens", "unknown", "byte_fallback")


def tokenizer(path: str, pattern: str | None = None):
    """The tokenizer at `path` (file, folder or Hub name, as tokviz.formats.load reads it), loaded
    once per process and file version."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = None  # a Hub name
    key = (path, pattern, stamp)
    with _LOCK:
        tok = _TOKENIZERS.get(key)
        if tok is None:
            from ..formats import load

            tok = _TOKENIZERS[key] = load(path, pattern=pattern)
    return tok


def stats_range(spec: tuple[str, str | None], path: str, start: int, end: int, alpha: float) -> dict:
    """The additive statistics of bytes [start, end) of `path` (see CorpusCounter)."""
    from ..analysis.corpus_stats import CorpusCounter, counting_encoder
    from ..core.streaming import encode_file

    counter = CorpusCounter(tokenizer(*spec), alpha)
    encode_file(counter.tokenizer, path, start=start, end=end, keep_ids=False, piece_chars=64 * 1024,
                encode_many=counting_encoder(counter.tokenizer, threads=1),
                on_chunk=lambda chunk: counter.add(chunk.encoding.text, chunk.encoding))
    s = counter.stats
    out = {name: getattr(s, name) for name in STAT_FIELDS}
    out["counts"] = s.counts
    return out


def combine_stats(*parts: dict) -> dict:
    """The sum of partial statistics."""
    out = {name: sum(p[name] for p in parts) for name in STAT_FIELDS}
    counts = parts[0]["counts"].copy()
    for p in parts[1:]:
        counts += p["counts"]
    out["counts"] = counts
    return out


def read_range(path: str, start: int, end: int, block: int = 1 << 20) -> Iterator[str]:
    """The text of bytes [start, end) of `path` in blocks (bounded memory), as read_corpus reads it
    (UTF-8, newlines and a byte-order mark kept)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open_regular(path, "a training file") as fh:
        fh.seek(start)
        offset = start
        while offset < end:
            data = fh.read(min(block, end - offset))
            if not data:
                break
            try:
                text = decoder.decode(data)
            except UnicodeDecodeError as exc:
                raise TokvizError(f"not UTF-8 text (byte {offset + exc.start} is invalid)", path) from None
            offset += len(data)
            if text:
                yield text
        try:
            text = decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise TokvizError(f"not UTF-8 text (the range ending at byte {end} ends inside a character)", path) from None
        if text:
            yield text


# Piece counts travel packed: (the pieces' bytes end to end, their lengths, their counts).  Dask
# serializes a list element by element, which for a million small pieces takes seconds.
Packed = tuple[bytes, np.ndarray, np.ndarray]


def pack(pieces: list[bytes], counts: list[int]) -> Packed:
    return b"".join(pieces), np.fromiter(map(len, pieces), np.int64, len(pieces)), np.asarray(counts, np.int64)


def unpack(packed: Packed) -> tuple[list[bytes], list[int]]:
    blob, lengths, counts = packed
    ends = np.cumsum(lengths).tolist()
    starts = [0] + ends[:-1]
    return [blob[a:b] for a, b in zip(starts, ends)], counts.tolist()


def count_range(path: str, start: int, end: int, options: dict) -> Packed:
    """The pieces and counts of bytes [start, end) of `path`, in order of first appearance, counted
    as bpe_core.count_corpus counts a file (`options`: its keyword arguments); packed."""
    from ..train import bpe_core

    chunk = options.get("chunk_chars", bpe_core.CHUNK_CHARS)
    texts = bpe_core.rechunk(read_range(path, start, end, block=chunk), chunk)
    return pack(*bpe_core.count_corpus(texts, files=False, threads=1, **options))


def count_words_range(path: str, start: int, end: int, options) -> Packed:
    """The Unigram trainer's words of bytes [start, end) of `path` (a range that starts at the
    file's start or before a space), UTF-8, in order of first appearance; packed.  `options`: its
    TrainOptions."""
    from ..train.unigram import WordCounter

    counter = WordCounter(options)
    for block in read_range(path, start, end):
        counter.add(block)
    words = counter.result()
    return pack([w.encode("utf-8") for w in words], list(words.values()))


def prune_packed(packed: Packed, min_count: int) -> Packed:
    """The packed pieces counted `min_count` times or more, in the same order."""
    blob, lengths, counts = packed
    keep = counts >= min_count
    ends = np.cumsum(lengths)
    starts = ends - lengths
    kept = b"".join(blob[a:b] for a, b in zip(starts[keep].tolist(), ends[keep].tolist()))
    return kept, lengths[keep], counts[keep]


def combine_counts(*parts: Packed) -> Packed:
    """Packed partial counts added up, pieces in order of first appearance (`parts` in corpus order)."""
    merged: dict[bytes, int] = {}
    for part in parts:
        get = merged.get
        for piece, n in zip(*unpack(part)):
            merged[piece] = get(piece, 0) + n
    return pack(list(merged), list(merged.values()))


def empty_stats(size: int) -> dict:
    out = {name: 0 for name in STAT_FIELDS}
    out["counts"] = np.zeros(size, np.int64)
    return out
