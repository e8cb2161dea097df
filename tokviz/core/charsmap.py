"""sentencepiece's precompiled character map: a double-array trie from byte strings to replacements.

The blob (``precompiled_charsmap`` in a .model, base64 in an HF ``Precompiled`` normalizer) is
a little-endian uint32 trie size, the trie's uint32 units, then the replacement strings,
each ending in a NUL byte.  The trie is a darts-clone double array.
"""
from __future__ import annotations

import struct
from array import array
from functools import lru_cache, partial

from ..errors import TokvizError


class CharsMap:
    def __init__(self, blob: bytes, *, source: str | None = None):
        self.blob = blob
        if not blob:
            self.units = array("I")
            self.strings = b""
            return
        if len(blob) < 4:
            raise TokvizError("precompiled charsmap is shorter than its 4-byte header", source)
        (trie_size,) = struct.unpack_from("<I", blob, 0)
        if trie_size % 4 or 4 + trie_size > len(blob):
            raise TokvizError(f"precompiled charsmap declares a trie of {trie_size} bytes in a {len(blob)}-byte blob", source)
        units = array("I")
        units.frombytes(blob[4 : 4 + trie_size])
        if array("I", [1]).tobytes() != b"\x01\x00\x00\x00":
            units.byteswap()
        self.units = units
        self.strings = blob[4 + trie_size :]
        # (a cache of a function of the units, not of a bound method: that would be a reference
        # cycle through self, which the collector frees late or, once frozen, never)
        self._lookup = lru_cache(maxsize=65536)(partial(_search, units))

    @property
    def is_empty(self) -> bool:
        return len(self.units) == 0

    def _string_at(self, index: int) -> str:
        end = self.strings.find(b"\0", index)
        if end < 0:
            end = len(self.strings)
        return self.strings[index:end].decode("utf-8", "replace")

    def first_match(self, chunk: str) -> str | None:
        """HF tokenizers' rule: the replacement of the shortest matching prefix of `chunk`, if any."""
        found, _ = self._lookup(chunk.encode("utf-8"))
        return self._string_at(found[0][1]) if found else None

    def may_start(self, c: str) -> bool:
        """False when no rule can begin with character `c` (the fast path for most text)."""
        found, alive = self._lookup(c.encode("utf-8"))
        return bool(found) or alive

    def search(self, key: bytes) -> tuple[tuple[tuple[int, int], ...], bool]:
        """All (prefix length, value) of `key` in the trie, shortest first, and whether the walk
        consumed all of `key` (a longer key might still match)."""
        return _search(self.units, key)

    def longest_match(self, data: bytes) -> tuple[int, str] | None:
        """sentencepiece's rule: (bytes consumed, replacement) for the longest matching prefix of `data`."""
        found, _ = self.search(data)
        if not found:
            return None
        length, value = found[-1]
        return length, self._string_at(value)


def _search(units: array, key: bytes) -> tuple[tuple[tuple[int, int], ...], bool]:
    """All (prefix length, value) of `key` found in the trie, shortest first, and whether the
    walk consumed all of `key` (so a longer key might still match)."""
    n = len(units)
    results = []
    if n == 0:
        return (), False
    unit = units[0]
    pos = (unit >> 10) << ((unit & (1 << 9)) >> 6)
    for i, c in enumerate(key):
        if c == 0:
            return tuple(results), False
        pos ^= c
        if pos >= n:
            return tuple(results), False
        unit = units[pos]
        if (unit & ((1 << 31) | 0xFF)) != c:
            return tuple(results), False
        pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        if pos >= n:
            return tuple(results), False
        if (unit >> 8) & 1:
            results.append((i + 1, units[pos] & ((1 << 31) - 1)))
    return tuple(results), True
