"""Resource limits checked before tokviz allocates: file sizes against the memory available, and
token ids against the vocabulary size (tables indexed by id are as long as the largest id).

    >>> check_ids(max_id=2**40, count=3, path="vocab.json")
    Traceback (most recent call last):
    tokviz.errors.TokvizError: vocab.json: token id 1099511627776 is too large: ids must be below 2**31 (2147483648)
"""
from __future__ import annotations

import os

from ..errors import TokvizError

MAX_ID = (1 << 31) - 1  # ids are 32-bit signed everywhere (HF tokenizers, sentencepiece, numpy views)
ID_SLACK = 1 << 20  # ids may leave gaps: up to this many ids beyond 4x the token count are accepted
UNKNOWN_MEMORY = 4 << 30  # assumed available when the system does not say


def available_memory() -> int:
    """Bytes of memory that can be allocated without swapping (MemAvailable on Linux)."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return UNKNOWN_MEMORY


def _size(n: float) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} bytes"


def check_fits_in_memory(size: int, factor: float, path, what: str) -> None:
    """Refuse a file of `size` bytes whose use needs about `factor` times its size in memory
    when that is more than the memory available now (`what` says what would be done with it)."""
    need = size * factor
    free = available_memory()
    if need > free:
        raise TokvizError(
            f"file is {_size(size)}; {what} needs about {_size(need)} of memory but only {_size(free)} "
            "is available, so it was refused before reading",
            path,
        )


def max_sane_id(count: int) -> int:
    """The largest id accepted for a vocabulary of `count` tokens."""
    return min(MAX_ID, max(4 * count, count + ID_SLACK))


def check_ids(max_id: int, count: int, path, what: str = "token") -> None:
    """Refuse ids that would make id-indexed tables huge: over 2**31, or far beyond the number of
    tokens (a vocabulary of 3 tokens with id 10**9 would need a table of a billion entries)."""
    if max_id > MAX_ID:
        raise TokvizError(f"{what} id {max_id} is too large: ids must be below 2**31 ({MAX_ID + 1})", path)
    if max_id > max_sane_id(count):
        raise TokvizError(
            f"{what} id {max_id} is out of range for a vocabulary of {count} tokens "
            f"(ids up to {max_sane_id(count)} are accepted; larger ones would need tables of "
            f"{max_id + 1} entries)",
            path,
        )


def check_tokenizer_ids(tokenizer, path) -> None:
    """`check_ids` over a loaded tokenizer's vocabulary and added tokens, before any table by id is built."""
    ids = tokenizer.model.vocab.values()
    added = [t.id for t in tokenizer.added.tokens]
    count = len(ids) + len(added)
    top = max(max(ids, default=0), max(added, default=0))
    check_ids(top, count, path)
