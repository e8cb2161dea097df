"""A BPE model's "a b" merge lines kept compactly, and the (a, b) pairs read from them.

A list of Llama 3's 280k merge lines takes some 24 MB (a Python string per line); the same lines as
one string and an array of where each ends take 4.  The model keeps them so, for as long as it is
open; a caller that wants the strings (the C table builder, a rank table) makes them for as long as
it needs them.
"""
from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import accumulate

_CHUNK = 4096  # lines made at a time when iterating


class MergeLines(Sequence):
    """The lines, in rank order: len, index (a slice gives a list of str), iterate; `to_list()`."""

    __slots__ = ("_text", "_ends")

    def __init__(self, lines: Sequence[str]):
        self._text = "".join(lines)
        self._ends = array("q", accumulate(map(len, lines)))

    def __len__(self) -> int:
        return len(self._ends)

    def _line(self, k: int) -> str:
        return self._text[self._ends[k - 1] if k else 0 : self._ends[k]]

    def __getitem__(self, k):
        if isinstance(k, slice):
            start, stop, step = k.indices(len(self))
            if step != 1:
                return [self._line(i) for i in range(start, stop, step)]
            return self._between(start, stop)
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("merge line index out of range")
        return self._line(k)

    def _between(self, start: int, stop: int) -> list[str]:
        if stop <= start:
            return []
        text, ends = self._text, self._ends
        starts = ends[start - 1 : stop - 1] if start else array("q", (0,)) + ends[: stop - 1]
        return [text[a:b] for a, b in zip(starts, ends[start:stop])]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), _CHUNK):
            yield from self._between(start, min(start + _CHUNK, len(self)))

    def to_list(self) -> list[str]:
        """Every line as a str (a new list: what C functions that read a list take)."""
        return self._between(0, len(self))

    def __eq__(self, other) -> bool:
        if isinstance(other, MergeLines):
            return self._text == other._text and self._ends == other._ends
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == list(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"MergeLines({len(self)} lines)"


class MergePairs(Sequence):
    """The (a, b) pairs of merge lines, made as they are read (`BPE.merges` for a model loaded
    from lines): a pass over them keeps no tuple per merge."""

    __slots__ = ("_lines",)

    def __init__(self, lines: MergeLines):
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [tuple(line.split(" ")) for line in self._lines[k]]
        return tuple(self._lines[k].split(" "))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for line in self._lines:
            yield tuple(line.split(" "))

    def __eq__(self, other) -> bool:
        if isinstance(other, MergePairs):
            return self._lines == other._lines
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == [tuple(p) for p in other]

    __hash__ = None

    def __repr__(self) -> str:
        return f"MergePairs({len(self)} merges)"
