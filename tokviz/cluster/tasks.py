"""What runs on the workers: counting one byte range, and combining partial counts.

Every function here is importable by name (Dask pickles a reference, not the code), takes plain
values and returns plain values.  Files travel as CorpusFiles (an absolute local path or a URL,
and the size seen on the client); the tokenizer as its bytes (shipping.TokenizerPayload, scattered
to every worker once), unpickled once per worker process (`shipped_tokenizer`).  What a worker
cannot read is said with its address (`WorkerReadError`)."""
from __future__ import annotations

import codecs
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from ..errors import TokvizError
from .sources import CorpusFile, filesystem, reason

_TOKENIZERS: OrderedDict = OrderedDict()  # digest -> tokenizer, the latest few
_KEEP = 4
_LOCK = threading.Lock()

# the scalar fields of CorpusStats that add up over ranges
STAT_FIELDS = ("bytes", "chars", "words", "tokens", "han_chars", "han_tokens", "unknown", "byte_fallback")

NOT_SHARED = ("the workers do not see this machine's files: put the corpus where they can read it, e.g. "
              "s3://bucket/corpus/, or on a file system every worker mounts at the same path")


def shipped_tokenizer(payload):
    """The tokenizer of a shipping.TokenizerPayload, unpickled once per process (the last few kept)."""
    with _LOCK:
        tok = _TOKENIZERS.get(payload.digest)
        if tok is None:
            try:
                tok = payload.load()
            except Exception as exc:
                raise TokvizError(f"worker {worker_address()}: cannot load the tokenizer sent to it "
                                  f"({type(exc).__name__}: {exc}); is the same tokviz version installed there?") from None
            _TOKENIZERS[payload.digest] = tok
            while len(_TOKENIZERS) > _KEEP:
                _TOKENIZERS.popitem(last=False)
        else:
            _TOKENIZERS.move_to_end(payload.digest)
    return tok


def worker_address() -> str:
    """This worker's address (tcp://...), or "this process" outside a Dask worker."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "this process"


class WorkerReadError(TokvizError):
    """A worker could not read a file of the corpus (the message names the worker and the file)."""


def _cannot_read(src: CorpusFile, why: str, hint: str = "") -> WorkerReadError:
    return WorkerReadError(f"worker {worker_address()}: cannot read {src.url}: {why}" + (f" ({hint})" if hint else ""))


def check_readable(src: CorpusFile) -> None:
    """Raise a WorkerReadError when this worker cannot read `src`, or sees another file there (a
    local path of another size than on the client)."""
    if src.remote:
        return  # (said by the read itself: see reading())
    try:
        st = os.stat(src.url)
    except OSError as exc:
        hint = NOT_SHARED if isinstance(exc, (FileNotFoundError, NotADirectoryError, PermissionError)) else ""
        raise _cannot_read(src, reason(exc), hint) from None
    if st.st_size != src.size:
        raise _cannot_read(src, f"it is {st.st_size:,} bytes here and {src.size:,} bytes on the client, not the same "
                                "file", NOT_SHARED)


@contextmanager
def reading(src: CorpusFile):
    """Errors of reading `src` raised as a WorkerReadError naming this worker; a TokvizError about
    the text itself (not UTF-8, binary) as it is."""
    check_readable(src)
    try:
        yield
    except TokvizError:
        raise
    except (OSError, ImportError) as exc:
        raise _cannot_read(src, reason(exc)) from None
    except Exception as exc:  # (fsspec back ends raise their own errors: botocore's, aiohttp's...)
        if type(exc).__module__.split(".")[0] in ("botocore", "aiobotocore", "aiohttp", "s3fs", "gcsfs", "fsspec",
                                                  "google", "azure", "adlfs", "pyarrow"):
            raise _cannot_read(src, reason(exc)) from None
        raise


def _remote_blocks(src: CorpusFile, start: int, end: int, block: int) -> Iterator[bytes]:
    """Bytes [start, end) of a URL, `block` at a time, each one ranged read."""
    try:
        fs, path = filesystem(src.url)
    except TokvizError as exc:  # (fsspec or the protocol's package not installed here)
        raise _cannot_read(src, exc.reason) from None
    offset = start
    while offset < end:
        data = fs.cat_file(path, start=offset, end=min(end, offset + block))
        if not data:
            raise _cannot_read(src, f"it ends at byte {offset:,}, before the {src.size:,} bytes listed on the client "
                                    "(changed meanwhile?)")
        offset += len(data)
        yield data


def stats_range(payload, src: CorpusFile, start: int, end: int, alpha: float) -> dict:
    """The additive statistics of bytes [start, end) of `src` (see CorpusCounter), counted with
    the tokenizer of `payload`.  A URL's range is copied to a local file first, at its own offset
    (a sparse file: the bytes before it are a hole), and counted there as a local file is."""
    from ..analysis.corpus_stats import CorpusCounter, counting_encoder
    from ..core.streaming import encode_file

    counter = CorpusCounter(shipped_tokenizer(payload), alpha)

    def count(path: str) -> None:
        encode_file(counter.tokenizer, path, start=start, end=end, keep_ids=False, piece_chars=64 * 1024,
                    encode_many=counting_encoder(counter.tokenizer, threads=1),
                    on_chunk=lambda chunk: counter.add(chunk.encoding.text, chunk.encoding))

    with reading(src):
        if not src.remote:
            count(src.url)
        else:
            with tempfile.NamedTemporaryFile(prefix="tokviz-range-", suffix=".txt", dir=_scratch()) as tmp:
                tmp.seek(start)
                for data in _remote_blocks(src, start, end, 8 << 20):
                    tmp.write(data)
                tmp.flush()
                try:
                    count(tmp.name)
                except TokvizError as exc:
                    if exc.path == tmp.name:
                        raise TokvizError(exc.reason, src.name) from None
                    raise
    s = counter.stats
    out = {name: getattr(s, name) for name in STAT_FIELDS}
    out["counts"] = s.counts
    return out


def _scratch() -> str | None:
    """The worker's local folder for scratch files (None: the system's temporary folder)."""
    try:
        from distributed import get_worker

        return get_worker().local_directory
    except (ImportError, ValueError, AttributeError):
        return None


def combine_stats(*parts: dict) -> dict:
    """The sum of partial statistics."""
    out = {name: sum(p[name] for p in parts) for name in STAT_FIELDS}
    counts = parts[0]["counts"].copy()
    for p in parts[1:]:
        counts += p["counts"]
    out["counts"] = counts
    return out


def read_range(src: CorpusFile | str | os.PathLike, start: int, end: int, block: int = 1 << 20) -> Iterator[str]:
    """The text of bytes [start, end) of `src` in blocks (bounded memory), as read_corpus reads it
    (UTF-8, newlines and a byte-order mark kept); a URL by ranged reads."""
    from ..paths import open_regular

    name = src.name if isinstance(src, CorpusFile) else os.fspath(src)
    decoder = codecs.getincrementaldecoder("utf-8")()

    def blocks() -> Iterator[bytes]:
        if isinstance(src, CorpusFile) and src.remote:
            yield from _remote_blocks(src, start, end, block)
            return
        with open_regular(src.url if isinstance(src, CorpusFile) else src, "a training file") as fh:
            fh.seek(start)
            offset = start
            while offset < end:
                data = fh.read(min(block, end - offset))
                if not data:
                    break
                offset += len(data)
                yield data

    offset = start
    for data in blocks():
        try:
            text = decoder.decode(data)
        except UnicodeDecodeError as exc:
            raise TokvizError(f"not UTF-8 text (byte {offset + exc.start} is invalid)", name) from None
        offset += len(data)
        if text:
            yield text
    try:
        text = decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise TokvizError(f"not UTF-8 text (the range ending at byte {end} ends inside a character)", name) from None
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


def count_range(src: CorpusFile, start: int, end: int, options: dict) -> Packed:
    """The pieces and counts of bytes [start, end) of `src`, in order of first appearance, counted
    as bpe_core.count_corpus counts a file (`options`: its keyword arguments); packed."""
    from ..train import bpe_core

    chunk = options.get("chunk_chars", bpe_core.CHUNK_CHARS)
    with reading(src):
        texts = bpe_core.rechunk(read_range(src, start, end, block=chunk), chunk)
        return pack(*bpe_core.count_corpus(texts, files=False, threads=1, **options))


def count_words_range(src: CorpusFile, start: int, end: int, options) -> Packed:
    """The Unigram trainer's words of bytes [start, end) of `src` (a range that starts at the
    file's start or before a space), UTF-8, in order of first appearance; packed.  `options`: its
    TrainOptions."""
    from ..train.unigram import WordCounter

    counter = WordCounter(options)
    with reading(src):
        for block in read_range(src, start, end):
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
