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

    def rules(self):
        """Every (key bytes, replacement) of the trie, keys in byte order (a walk of the trie from
        its root; each node's children found by probing its 255 possible labels at once)."""
        import numpy as np

        units = np.asarray(self.units, dtype=np.int64)
        n = len(units)
        if n == 0:
            return
        labels = np.arange(1, 256, dtype=np.int64)

        def base_of(i: int) -> int:
            u = int(units[i])
            return i ^ ((u >> 10) << ((u & 0x200) >> 6))

        stack = [(b"", 0)]
        while stack:
            key, node = stack.pop()
            base = base_of(node)
            u = int(units[node])
            if key and (u >> 8) & 1 and base < n:
                yield key, self._string_at(int(units[base]) & 0x7FFFFFFF)
            children = base ^ labels
            inside = children < n
            kids, kid_labels = children[inside], labels[inside]
            found = kid_labels[(units[kids] & 0x800000FF) == kid_labels]
            for c in found[::-1]:
                stack.append((key + bytes([int(c)]), base ^ int(c)))

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


def sentencepiece_charsmap_problem(blob: bytes) -> str | None:
    """Why sentencepiece refuses the precompiled charsmap `blob` when it loads a model (None: it
    takes it).  Its checks: the header's trie size leaves room for the replacement strings, the
    trie is whole blocks of 256 units, the strings end in a NUL byte, every unit of the trie
    points inside the trie (a branch) or inside the strings (a leaf's value), and every branch
    that ends a rule points at a leaf.  (The last check is measured, not read: sentencepiece 0.2.3
    refuses exactly the charsmaps these checks refuse among thousands of randomly damaged ones.)"""
    if not blob:
        return None
    if len(blob) <= 4:
        return f"is {len(blob)} bytes long, not even its 4-byte header and one string"
    (trie_size,) = struct.unpack_from("<I", blob, 0)
    if trie_size >= len(blob) - 4:
        return f"declares a trie of {trie_size} bytes, which leaves no room for its strings in {len(blob) - 4} bytes"
    if trie_size < 1024 or trie_size % 1024:
        return f"declares a trie of {trie_size} bytes, not a whole number of 256-unit blocks"
    strings = blob[4 + trie_size :]
    if strings[-1] != 0:
        return "ends its replacement strings without a NUL byte"
    import numpy as np

    units = np.frombuffer(blob, dtype="<u4", count=trie_size // 4, offset=4).astype(np.int64)
    n = len(units)
    labels = units & 0x800000FF
    offsets = (units >> 10) << ((units & 0x200) >> 6)
    root = int(units[0])
    if labels[0] != 0 or (root >> 8) & 1 or offsets[0] == 0 or (int(offsets[0]) | 0xFF) >= n:
        return "has a trie whose root unit is not a valid branch"
    branch = labels[1:] <= 0xFF
    targets = (np.arange(1, n, dtype=np.int64) ^ offsets[1:]) | 0xFF
    bad = np.flatnonzero(branch & (targets >= n))
    if len(bad):
        return f"has a trie unit ({int(bad[0]) + 1}) that points outside the trie's {n} units"
    values = units[1:] & 0x7FFFFFFF
    bad = np.flatnonzero(~branch & (values >= len(strings)))
    if len(bad):
        return (f"has a trie unit ({int(bad[0]) + 1}) whose replacement starts at byte {int(values[bad[0]])}, "
                f"past the {len(strings)} bytes of strings")
    with_leaf = np.flatnonzero((labels <= 0xFF) & ((units >> 8) & 1 == 1))
    bad = with_leaf[(units[np.arange(n, dtype=np.int64)[with_leaf] ^ offsets[with_leaf]] >> 31) == 0]
    if len(bad):
        return f"has a trie unit ({int(bad[0])}) whose rule's end points at a unit that holds no replacement"
    return None
