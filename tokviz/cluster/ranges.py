"""Byte ranges of files, cut where the single-machine path would give the same result.

    >>> byte_ranges("big.txt", 64 << 20, training_cut)
    [(0, 67108901), (67108901, 134217790), ...]

A range ends at a cut found at or after each multiple of `target` bytes, the first in a window
of text read there:

* training: after a line end where `bpe_core.cut_text` may cut (``\\S\\n`` followed by neither
  white space nor "/"); in a window with none (one long line, CRLF line ends), before a space
  where cut_text may cut;
* Unigram training: before a space that no special token covers (`unigram.WordStarts`);
* statistics: after a line end where `core.streaming` may cut for the tokenizer (a newline between
  a non-space and a letter), else before a space between letters.

With no such place the range goes on to the next one (a whole file at most).  Only a window of
bytes around each target is read.
"""
from __future__ import annotations

import os
from collections.abc import Callable

import regex

from ..core import streaming
from ..train.bpe_core import SAFE_CUT
from .sources import CorpusFile, read_at, size_of

#: finder(text, at) -> the first cut (a character index >= at) in `text`, or -1
CutFinder = Callable[[str, int], int]

_WINDOW = 64 * 1024
_BACK = 256  # bytes read before the target: the look-behinds and the added-token guard look back


def training_cut(text: str, at: int) -> int:
    """The first line-end cut of `bpe_core.cut_text` at or after `at` (the end of its match); in a
    text with none (one long line, CRLF line ends), its first cut before a space."""
    before_space = -1
    for m in SAFE_CUT.finditer(text, max(0, at - 2)):
        if m.end() < at:
            continue
        if m.group().endswith("\n"):
            return m.end()
        if before_space < 0:
            before_space = m.end()
    return before_space


def stats_cut(tokenizer) -> CutFinder | None:
    """A CutFinder for `tokenizer`'s streaming cuts, or None when `core.streaming` reads its files
    whole (then each file is one range)."""
    patterns = streaming.cut_patterns(tokenizer)
    if patterns is None:
        return None
    guard = streaming.AddedGuard(tokenizer)
    newline = regex.compile(streaming.NEWLINE_CUT) if streaming.newline_cuts_ok(tokenizer) else None
    ok = (lambda text, c: guard.ok(text, c)) if guard.active else (lambda text, c: True)

    def find(text: str, at: int) -> int:
        for pattern in ((newline, patterns[0]) if newline is not None else (patterns[0],)):
            for m in pattern.finditer(text, at):
                if ok(text, m.start()):
                    return m.start()
        return -1

    return find


def _decode_window(data: bytes, lead: int) -> tuple[str, int]:
    """(text of `data` from its first UTF-8 lead byte, how many bytes were skipped); an incomplete
    sequence at the end is left out."""
    skip = 0
    while skip < min(len(data), 4) and data[skip] & 0xC0 == 0x80 and lead + skip > 0:
        skip += 1
    body = data[skip:]
    tail = streaming.utf8_tail(body)
    return body[: len(body) - tail].decode("utf-8", "replace"), skip


def next_cut(path: str | os.PathLike | CorpusFile, offset: int, size: int, find: CutFinder) -> int:
    """The byte offset of the first cut at or after `offset` in the file (a path, or a CorpusFile:
    a URL is read by ranged reads), or `size` if none."""
    window = _WINDOW
    while True:
        lo = max(0, offset - _BACK)
        data = read_at(path, lo, offset - lo + window)
        text, skip = _decode_window(data, lo)
        before = len(data[skip : offset - lo].decode("utf-8", "replace")) if offset - lo > skip else 0
        c = find(text, before)
        if c >= 0:
            return lo + skip + len(text[:c].encode("utf-8", "surrogatepass"))
        if lo + len(data) >= size:
            return size
        window *= 4


def byte_ranges(path: str | os.PathLike | CorpusFile, target: int, find: CutFinder | None) -> list[tuple[int, int]]:
    """[(start, end)] covering the file (a path, or a CorpusFile: its size as listed), each about
    `target` bytes, ending at cuts of `find` (None: the whole file as one range).  An empty file
    has no range."""
    size = size_of(path)
    if find is None or size <= target:
        return [(0, size)] if size else []
    ranges, start = [], 0
    while start < size:
        end = size if size - start <= target else next_cut(path, start + target, size, find)
        ranges.append((start, end))
        start = end
    return ranges
