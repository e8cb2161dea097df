"""Normalisation and round trip: what a tokenizer changes in a text, and where
`decode(encode(x)) != x`.

    >>> report = round_trip(tok, "Café  au lait")          # BERT-MiniLM
    >>> report.decoded
    'cafe au lait'
    >>> [(d.original, d.decoded, d.kind) for d in report.decode_differences]
    [('C', 'c', 'normalizer'), ('é', 'e', 'normalizer'), (' ', '', 'collapsed spaces')]

Two lists of `Difference`s, each a span [start, end) of the original text:

* normalizer changes: a character-level diff of the text and what the tokenizer's normalizer makes
  of it (NFC/NFKC, lowercasing, accent stripping, sentencepiece's charsmap and whitespace, BERT's
  control-character clean-up...), read from the alignment `core.normalized.NormalizedString`
  keeps for every normalized character;
* decode differences: the text against the decoder's output for its ids.  The token offsets are
  the anchors: the tokens are cut into chunks at clean boundaries, each chunk is decoded alone and
  found in the whole decode (the oracle), and only each chunk's own text is compared: directly when
  both hold the same letters in the same order (differing in case, accents, whitespace: the usual
  WordPiece case), else with difflib on case- and accent-folded text; so a megabyte costs tens of
  thousands of small comparisons, never one big diff.

Plain data, no Qt; `round_trip` takes `progress(done, total)` and `cancel` like the other long
jobs (benchmarks/roundtrip.py times it on 1 MB).
"""
from __future__ import annotations

import bisect
import difflib
import functools
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core.normalized import NormalizedString
from ..core.token_array import offsets_arrays
from ..errors import Cancelled

# What a normalizer did to a span, most specific first.
NORMALIZER_KINDS = ("case", "accents", "unicode form", "whitespace", "space added", "spacing", "removed", "replaced")
# Why a span does not come back from decode(encode(x)).
DECODE_KINDS = ("normalizer", "unknown token", "special token", "collapsed spaces", "added spaces", "dropped",
                "other")

CHUNK_TOKENS = 24  # tokens per decoded chunk (a chunk's own text is what difflib compares)
_SHORT_CHUNK = 8  # a chunk decoding to fewer characters could be found in the wrong place: join the next
_MAX_JOIN = 4  # chunks joined to find their decode in the whole before looking for its middle
_TRIM = 8  # characters left off each end of a chunk's decode to find its middle
_WHITESPACE = frozenset(" \t\n\r\x0b\x0c\u00a0\u3000\u2028\u2029\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                        "\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u0085")
_SPACE_CODES = sorted(ord(c) for c in _WHITESPACE)


@dataclass(slots=True)
class Difference:
    """A span [start, end) of the original text, what normalizing and decoding give for it, and why
    they differ.  `stage` is "normalizer" or "decode"; `detail` refines a decode difference the
    normalizer explains (its normalizer kind)."""

    start: int
    end: int
    original: str
    normalized: str
    decoded: str
    kind: str
    stage: str
    detail: str = ""

    @property
    def label(self) -> str:
        return f"{self.kind} ({self.detail})" if self.detail else self.kind

    def as_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "original": self.original, "normalized": self.normalized,
                "decoded": self.decoded, "kind": self.kind, "detail": self.detail, "stage": self.stage}


@dataclass
class RoundTripReport:
    """The result of `round_trip`: both lists of differences, the normalized and decoded texts."""

    text_length: int
    tokens: int
    normalized: str
    decoded: str
    normalizer_changes: list[Difference] = field(default_factory=list)
    decode_differences: list[Difference] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def round_trips(self) -> bool:
        return not self.decode_differences

    def counts(self, stage: str = "decode") -> dict[str, int]:
        """Differences of a stage by kind, in the kinds' order."""
        items = self.decode_differences if stage == "decode" else self.normalizer_changes
        kinds = DECODE_KINDS if stage == "decode" else NORMALIZER_KINDS
        found = Counter(d.kind for d in items)
        return {k: found[k] for k in kinds if found[k]}

    def summary(self) -> str:
        """One line for a status bar or the CLI."""
        if not self.decode_differences:
            head = f"decode(encode(text)) == text ({self.text_length:,} characters, {self.tokens:,} tokens)"
        else:
            changed = sum(d.end - d.start for d in self.decode_differences)
            head = (f"{len(self.decode_differences):,} decode differences over {changed:,} of "
                    f"{self.text_length:,} characters ({self.tokens:,} tokens)")
        return f"{head}; {len(self.normalizer_changes):,} normalizer changes"

    def as_dict(self, limit: int | None = None) -> dict:
        """JSON-ready; at most `limit` differences of each list (all with None)."""
        return {
            "text_length": self.text_length,
            "tokens": self.tokens,
            "round_trips": self.round_trips,
            "decoded_length": len(self.decoded),
            "normalized_length": len(self.normalized),
            "counts": {"decode": self.counts("decode"), "normalizer": self.counts("normalizer")},
            "totals": {"decode": len(self.decode_differences), "normalizer": len(self.normalizer_changes)},
            "decode_differences": [d.as_dict() for d in self.decode_differences[:limit]],
            "normalizer_changes": [d.as_dict() for d in self.normalizer_changes[:limit]],
            "seconds": round(self.seconds, 4),
        }


def _check(cancel) -> None:
    if cancel is not None and (cancel.is_set() if hasattr(cancel, "is_set") else cancel()):
        raise Cancelled("round-trip analysis cancelled")


def _codes(s: str) -> np.ndarray:
    return np.frombuffer(s.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _strip_marks(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.category(c).startswith("M"))


def _is_space(s: str) -> bool:
    return all(c in _WHITESPACE for c in s)


@functools.lru_cache(maxsize=1 << 16)
def normalizer_kind(original: str, normalized: str) -> str:
    """What a normalizer did to `original` to give `normalized` (one of NORMALIZER_KINDS)."""
    if not original:
        return "space added" if _is_space(normalized) else "replaced"
    if _is_space(original) and _is_space(normalized):
        return "whitespace"
    if not normalized:
        return "removed"
    if normalized == original.lower():
        return "case"
    if normalized in (_strip_marks(original), _strip_marks(original).lower(), _strip_marks(original.lower())):
        return "accents"
    for form in ("NFC", "NFKC", "NFD", "NFKD"):
        composed = unicodedata.normalize(form, original)
        if normalized in (composed, composed.lower()):
            return "unicode form"
    core = normalized.replace(" ", "")
    if core != normalized and core in (original.replace(" ", ""), original.replace(" ", "").lower()):
        return "spacing"
    return "replaced"


@dataclass
class NormalizedMap:
    """The whole text normalized: per normalized character its code and original [start, end)."""

    text: str
    starts: np.ndarray
    ends: np.ndarray
    _lists: tuple[list[int], list[int], list[int]] | None = None  # running max of starts, starts, ends

    def within(self, a: int, b: int) -> str:
        """The normalized characters that came from original characters [a, b)."""
        if b <= a:
            return ""
        if self._lists is None:
            reach = np.maximum.accumulate(self.starts) if len(self.starts) else self.starts
            self._lists = (reach.tolist(), self.starts.tolist(), self.ends.tolist())
        reach, starts, ends = self._lists
        lo = bisect.bisect_left(reach, a)
        hi = bisect.bisect_left(reach, b, lo)
        keep = [k for k in range(lo, hi) if starts[k] >= a and ends[k] <= b]
        if len(keep) == hi - lo:
            return self.text[lo:hi]
        return "".join(self.text[k] for k in keep)


def normalized_map(tokenizer, text: str, *, allow_special: bool | None = None) -> NormalizedMap:
    """The text as the tokenizer normalizes it before cutting, with every character's original span
    (added tokens stay as they are, as the pipeline keeps them)."""
    allow = tokenizer.special_in_text if allow_special is None else allow_special
    if tokenizer.normalizer is None and tokenizer.text_normalizer is None:
        r = np.arange(len(text), dtype=np.int64)
        return NormalizedMap(text, r, r + 1)
    pieces: list[str] = []
    starts: list[np.ndarray] = []
    ends: list[np.ndarray] = []
    # (the pipeline's own segments: the text cut at added tokens and each plain part normalized)
    for seg, _added in tokenizer._segments(text, allow):
        seg: NormalizedString
        pieces.append(seg.text)
        if seg.is_identity:
            r = np.arange(seg.base, seg.base + len(seg.text), dtype=np.int64)
            starts.append(r)
            ends.append(r + 1)
        else:
            starts.append(np.asarray(seg.starts, dtype=np.int64))
            ends.append(np.asarray(seg.ends, dtype=np.int64))
    if not pieces:
        return NormalizedMap("", np.zeros(0, np.int64), np.zeros(0, np.int64))
    return NormalizedMap("".join(pieces), np.concatenate(starts), np.concatenate(ends))


def normalizer_changes(tokenizer, text: str, nmap: NormalizedMap | None = None, *,
                       cancel=None) -> list[Difference]:
    """The spans of `text` the normalizer changes (see the module docstring).  The tokenizer's space
    marker ('▁') standing for a space is no change."""
    if nmap is None:
        nmap = normalized_map(tokenizer, text)
    if nmap.text == text:
        return []
    n, m = len(text), len(nmap.text)
    orig = _codes(text)
    norm = _codes(nmap.text)
    s, e = nmap.starts, nmap.ends
    inside = (e - s == 1) & (s >= 0) & (s < n)
    src = np.where(inside, s, 0)
    same = inside & (norm == orig[src] if n else np.zeros(m, bool))
    marker = getattr(tokenizer, "space_marker", None)
    if marker and len(marker) == 1:
        same |= inside & (norm == ord(marker)) & (orig[src] == 32 if n else False)
    # a character that shares its original with a neighbour is part of a change (an expansion)
    if m > 1:
        spans = e > s
        both = spans[1:] & spans[:-1] & (s[1:] == s[:-1])
        shared = np.zeros(m, bool)
        shared[1:] |= both
        shared[:-1] |= both
        same &= ~shared
    kept = np.zeros(n + 1, bool)
    kept[s[same]] = True
    _check(cancel)
    spans: list[tuple[int, int, int, int]] = []  # original [a, b), normalized [i, j) (-1: removed)
    changed = np.flatnonzero(~same)
    if len(changed):
        # runs of changed normalized characters whose original spans touch
        cs, ce = s[changed], e[changed]
        spaces = np.isin(norm[changed], _SPACE_CODES + ([ord(marker)] if marker and len(marker) == 1 else []))
        # a run is cut where it leaves the original text's order, or between whitespace and the rest
        breaks = np.flatnonzero((np.diff(changed) != 1) | (cs[1:] > np.maximum.accumulate(ce)[:-1])
                                | ((cs[1:] == np.maximum.accumulate(ce)[:-1]) & (spaces[1:] != spaces[:-1])))
        first = np.concatenate(([0], breaks + 1))
        last = np.concatenate((breaks, [len(changed) - 1]))
        for f, l in zip(first.tolist(), last.tolist()):
            a, b = int(cs[f:l + 1].min()), int(ce[f:l + 1].max())
            spans.append((a, b, int(changed[f]), int(changed[l]) + 1))
    # original characters no normalized character comes from: removed
    cover = np.zeros(n + 1, np.int64)
    np.add.at(cover, s[e > s], 1)
    np.add.at(cover, e[e > s], -1)
    covered = np.cumsum(cover)[:n] > 0
    gone = np.flatnonzero(~covered)
    if len(gone):
        breaks = np.flatnonzero(np.diff(gone) != 1)
        for f, l in zip(np.concatenate(([0], breaks + 1)).tolist(), np.concatenate((breaks, [len(gone) - 1])).tolist()):
            spans.append((int(gone[f]), int(gone[l]) + 1, -1, -1))
    spans.sort(key=lambda t: (t[0], t[1]))
    merged: list[list[int]] = []
    for a, b, i, j in spans:
        # a removal joins the change it touches (a mark absorbed by a composition), unless one of
        # them is whitespace and the other not
        if merged and a <= merged[-1][1] and (a < merged[-1][1] or (
                (i < 0 or merged[-1][2] < 0) and _is_space(text[a:b]) == _is_space(text[merged[-1][0]:merged[-1][1]]))):
            last = merged[-1]
            last[1] = max(last[1], b)
            if i >= 0:
                last[2], last[3] = (i, j) if last[2] < 0 else (min(last[2], i), max(last[3], j))
            continue
        merged.append([a, b, i, j])
    out = []
    for a, b, i, j in merged:
        normalized = nmap.text[i:j] if i >= 0 else ""
        if marker:
            normalized = normalized.replace(marker, " ")
        original = text[a:b]
        if normalized == original:
            continue
        out.append(Difference(a, b, original, normalized, "", normalizer_kind(original, normalized), "normalizer"))
    return out


def _unknown_id(tokenizer) -> int | None:
    model = tokenizer.model
    unk = getattr(model, "unk_id", None)
    if unk is None and getattr(model, "unk_token", None) is not None:
        unk = model.token_to_id(model.unk_token)
    return unk


def _chunk_starts(starts: np.ndarray, ends: np.ndarray, size: int) -> list[int]:
    """Token indices to cut before, about every `size` tokens: only where the token starts at or
    after the end of everything before it (not inside a character split into byte tokens), and
    after a gap when the tokens leave gaps."""
    n = len(starts)
    if n == 0:
        return [0]
    reach = np.maximum.accumulate(ends)
    after = np.zeros(n, bool)
    after[1:] = (starts[1:] >= reach[:-1]) & (starts[1:] > starts[:-1])
    gap = np.zeros(n, bool)
    gap[1:] = starts[1:] > reach[:-1]
    # after text no token covers (a space WordPiece drops) when there are enough such places: a token
    # that only continues a word ('##ing') decodes differently at the start of a chunk
    candidates = np.flatnonzero(gap)
    if len(candidates) * size * 4 < n:
        candidates = np.flatnonzero(after)
    cuts = [0]
    target = size
    while target < n:
        k = int(np.searchsorted(candidates, target))
        if k >= len(candidates):
            break
        cut = int(candidates[k])
        cuts.append(cut)
        target = cut + size
    return cuts


def decode_differences(tokenizer, text: str, encoding, nmap: NormalizedMap | None = None, *,
                       decoded: str | None = None, progress: Callable[[int, int], None] | None = None,
                       cancel=None) -> tuple[str, list[Difference]]:
    """(decode of the encoding's ids, the spans of `text` that do not come back) — see the module
    docstring."""
    ids = list(encoding.ids)
    whole = tokenizer.decode(ids) if decoded is None else decoded
    if whole == text:
        return whole, []
    starts, ends = offsets_arrays(encoding)
    cuts = _chunk_starts(starts, ends, CHUNK_TOKENS)
    n_tok = len(ids)
    bounds = cuts + [n_tok]
    # the original text of chunk c: from its first token's start (0 for the first) to the next chunk's
    xs = [0] + [int(starts[k]) for k in cuts[1:]] + [len(text)]
    pairs: list[tuple[int, int, int, int]] = []  # original [a, b) <-> decoded [p, q)
    p = 0
    pending = 0  # first chunk not yet placed in the decode
    total = len(cuts)
    for c in range(total):  # (progress: placing the chunks is the first half, comparing them the second)
        if c % 32 == 0:
            _check(cancel)
            if progress is not None:
                progress(c, 2 * total)
        if c == total - 1:
            pairs.append((xs[pending], len(text), p, len(whole)))
            break
        piece = tokenizer.decode(ids[bounds[pending]:bounds[c + 1]])
        joined = c - pending
        if len(piece) < _SHORT_CHUNK and joined < _MAX_JOIN:
            continue
        if whole.startswith(piece, p):
            q = p
        else:
            q = whole.find(piece, p, p + 2 * len(piece) + 64)
        if q < 0 and joined < _MAX_JOIN:
            continue  # (decoded with the next chunk, the joint may come out as in the whole)
        if q < 0:
            # the chunks' edges decode differently alone: find their middle, and take the decode up
            # to where the whole chunk would end
            probe = piece[_TRIM:-_TRIM]
            found = whole.find(probe, p, p + 2 * len(piece) + 256) if len(probe) >= _SHORT_CHUNK else -1
            if found < 0 and joined < 4 * _MAX_JOIN:
                continue
            end = max(p, found - _TRIM + len(piece)) if found >= 0 else min(len(whole), p + len(piece))
            pairs.append((xs[pending], xs[c + 1], p, end))
            p = end
            pending = c + 1
            continue
        if pairs and q > p:
            a, b, pp, _ = pairs[-1]
            pairs[-1] = (a, b, pp, q)  # what the decode has between two chunks goes with the first
        pairs.append((xs[pending], xs[c + 1], q if pairs else p, q + len(piece)))
        p = q + len(piece)
        pending = c + 1
    unk = _unknown_id(tokenizer)
    special = np.zeros(n_tok, bool)
    unknown = np.zeros(n_tok, bool)
    if n_tok:
        id_arr = np.asarray(ids, dtype=np.int64)
        special_ids = tokenizer.added.special_ids
        if special_ids:
            special = np.isin(id_arr, np.fromiter(special_ids, np.int64))
        if unk is not None:
            unknown = id_arr == unk
    # the text of unknown and special tokens (a decode may drop it or write it otherwise)
    cover = np.zeros(len(text) + 1, np.int64)
    odd = np.flatnonzero(special | unknown)
    np.add.at(cover, starts[odd], 1)
    np.add.at(cover, ends[odd], -1)
    hidden = np.cumsum(cover)[:len(text)] > 0
    reach = (np.maximum.accumulate(ends) if n_tok else ends).tolist()
    starts = starts.tolist()
    special = special.tolist()
    unknown = unknown.tolist()
    marker = getattr(tokenizer, "space_marker", None)
    out: list[Difference] = []
    for i, (a, b, p, q) in enumerate(pairs):
        x_part, d_part = text[a:b], whole[p:q]
        if x_part == d_part:
            continue
        if i % 32 == 0:
            _check(cancel)
            if progress is not None:
                progress(total + i * total // len(pairs), 2 * total)
        prev = None
        for run in _diff_runs(x_part, d_part, hidden[a:b]):
            run = (a + run[0], a + run[1], p + run[2], p + run[3])
            if (prev is not None and run[0] == run[1] == prev[1] and run[2] == prev[3]
                    and out[-1].kind == "unknown token"):
                run = (prev[0], run[1], prev[2], run[3])  # (what the unknown token decodes to, wherever difflib put it)
                out.pop()
            out.append(_decode_difference(text, whole, run, nmap, starts, reach, special, unknown, marker))
            prev = run
    if progress is not None:
        progress(1, 1)
    return whole, out


class _Folded(dict):
    """str.translate table folding a character to a same-length key: its first decomposed
    character, lower-cased (so that 'É' and 'e' align in difflib, and the case or accent difference
    is reported as such)."""

    def __missing__(self, code: int) -> str:
        c = chr(code)
        base = _strip_marks(unicodedata.normalize("NFKD", c))
        key = base.lower()[:1] if len(base) == 1 else c
        key = key or c
        if "\ud800" <= key <= "\udfff":
            key = c
        self[code] = key
        return key


_FOLD = _Folded()


def _diff_runs(x: str, d: str, hidden: np.ndarray | None = None) -> list[tuple[int, int, int, int]]:
    """(a, b, p, q) spans where x[a:b] and d[p:q] differ: difflib on case- and accent-folded
    keys, then the differing characters inside the blocks that match only when folded.  `hidden`
    (per character of x): text of unknown or special tokens, which the decode may leave out."""
    kx, kd = x.translate(_FOLD), d.translate(_FOLD)
    runs = _same_letters_runs(x, d, kx, kd, hidden)
    if runs is not None:
        return _join_marks(x, d, runs)
    runs = []
    run: list[int] | None = None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, kx, kd, autojunk=False).get_opcodes():
        if tag != "equal":
            if run is None:
                run = [i1, i2, j1, j2]
            else:
                run[1], run[3] = i2, j2
            continue
        if run is not None:
            runs.append(tuple(run))
            run = None
        if x[i1:i2] == d[j1:j2]:
            continue
        differ = np.flatnonzero(_codes(x[i1:i2]) != _codes(d[j1:j2]))
        breaks = np.flatnonzero(np.diff(differ) != 1)
        firsts = np.concatenate(([0], breaks + 1)).tolist()
        lasts = np.concatenate((breaks, [len(differ) - 1])).tolist()
        for f, l in zip(firsts, lasts):
            lo, hi = int(differ[f]), int(differ[l]) + 1
            runs.append((i1 + lo, i1 + hi, j1 + lo, j1 + hi))
    if run is not None:
        runs.append(tuple(run))
    return _join_marks(x, d, runs)


def _join_marks(x: str, d: str, runs: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    joined: list[tuple[int, int, int, int]] = []
    for run in runs:  # combining marks that differ belong with the character before them
        last = joined[-1] if joined else None
        if last and last[1] == run[0] and last[3] == run[2] and _starts_with_mark(x[run[0]:run[1]] or d[run[2]:run[3]]):
            joined[-1] = (last[0], run[1], last[2], run[3])
        else:
            joined.append(run)
    return joined


class _Blank(dict):
    """str.translate table: whitespace and combining marks to NUL, the rest as they are."""

    def __missing__(self, code: int) -> str:
        c = chr(code)
        key = "\0" if c in _WHITESPACE or unicodedata.category(c).startswith("M") else c
        self[code] = key
        return key


_BLANK = _Blank()


def _same_letters_runs(x: str, d: str, kx: str, kd: str,
                       hidden: np.ndarray | None = None) -> list[tuple[int, int, int, int]] | None:
    """The runs of `_diff_runs` without difflib when x and d hold the same letters (folded) in the
    same order and differ only in case, accents and the whitespace and marks between them (the
    usual difference of a WordPiece decode), the `hidden` characters of x counting as whitespace;
    None when they do not."""
    bx, bd = _codes(kx.translate(_BLANK)), _codes(kd.translate(_BLANK))
    if hidden is not None and hidden.any():
        bx = np.where(hidden, 0, bx)
    ix, jd = np.flatnonzero(bx), np.flatnonzero(bd)
    if len(ix) != len(jd) or not np.array_equal(bx[ix], bd[jd]):
        return None
    xc, dc = _codes(x), _codes(d)
    k = len(ix)
    # the gap before each letter (and after the last one): x[gx0:gx1] against d[gd0:gd1]
    gx0 = np.concatenate(([0], ix + 1))
    gx1 = np.concatenate((ix, [len(x)]))
    gd0 = np.concatenate(([0], jd + 1))
    gd1 = np.concatenate((jd, [len(d)]))
    lx, ld = gx1 - gx0, gd1 - gd0
    gap_differs = lx != ld
    same_len = np.flatnonzero(~gap_differs & (lx > 0))
    if len(same_len):
        counts = lx[same_len]
        offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        px = np.repeat(gx0[same_len], counts) + offsets
        pd = np.repeat(gd0[same_len], counts) + offsets
        bad = xc[px] != dc[pd]
        if bad.any():
            gap_differs[np.unique(np.repeat(same_len, counts)[bad])] = True
    letter_differs = xc[ix] != dc[jd] if k else np.zeros(0, bool)
    runs: list[tuple[int, int, int, int]] = []
    last_letter = None
    for g in np.flatnonzero(np.concatenate((gap_differs[:k], [False])) | np.concatenate((letter_differs, [False]))
                            | np.concatenate((np.zeros(k, bool), gap_differs[k:]))).tolist():
        if gap_differs[g]:
            runs.append(_trimmed(x, d, int(gx0[g]), int(gx1[g]), int(gd0[g]), int(gd1[g])))
        if g < k and letter_differs[g]:
            a, p = int(ix[g]), int(jd[g])
            if last_letter is not None and runs[-1] is last_letter and last_letter[1] == a and last_letter[3] == p:
                runs[-1] = (last_letter[0], a + 1, last_letter[2], p + 1)  # (a word changed letter by letter: one run)
            else:
                runs.append((a, a + 1, p, p + 1))
            last_letter = runs[-1]
    return runs


def _trimmed(x: str, d: str, a: int, b: int, p: int, q: int) -> tuple[int, int, int, int]:
    """x[a:b] against d[p:q] without what they end and then start with alike."""
    while b > a and q > p and x[b - 1] == d[q - 1]:
        b -= 1
        q -= 1
    while b > a and q > p and x[a] == d[p]:
        a += 1
        p += 1
    return a, b, p, q


def _starts_with_mark(s: str) -> bool:
    return bool(s) and unicodedata.category(s[0]).startswith("M")


def _decode_difference(text, whole, run, nmap, starts, reach, special, unknown, marker) -> Difference:
    a, b, p, q = run
    original, decoded = text[a:b], whole[p:q]
    normalized = nmap.within(a, b) if nmap is not None else ""
    if marker:
        normalized = normalized.replace(marker, " ")
    lo = bisect.bisect_right(reach, a)
    hi = bisect.bisect_left(starts, max(b, a + 1), lo)
    detail = ""
    if hi > lo and any(unknown[lo:hi]):
        kind = "unknown token"
    elif hi > lo and any(special[lo:hi]) and not decoded:
        kind = "special token"
    elif nmap is not None and normalized != original and normalized == decoded:
        kind, detail = "normalizer", normalizer_kind(original, normalized)
    elif _is_space(original) and _is_space(decoded):
        kind = "collapsed spaces" if len(decoded) < len(original) else "added spaces"
    elif not decoded:
        kind = "dropped"
    elif nmap is not None and normalized != original and decoded.strip() == normalized.strip():
        kind, detail = "normalizer", normalizer_kind(original, normalized)
    else:
        kind = "other"
    return Difference(a, b, original, normalized, decoded, kind, "decode", detail)


def round_trip(tokenizer, text: str, encoding=None, *, allow_special: bool | None = None,
               progress: Callable[[int, int], None] | None = None, cancel=None) -> RoundTripReport:
    """Normalizer changes and decode differences of `text` (`encoding`: its encoding by this
    tokenizer, when the caller has it)."""
    t0 = time.perf_counter()
    if encoding is None:
        encoding = tokenizer.encode(text, allow_special=allow_special)
    _check(cancel)
    nmap = normalized_map(tokenizer, text, allow_special=allow_special)
    _check(cancel)
    changes = normalizer_changes(tokenizer, text, nmap, cancel=cancel)
    decoded, diffs = decode_differences(tokenizer, text, encoding, nmap, progress=progress, cancel=cancel)
    return RoundTripReport(len(text), len(encoding), nmap.text, decoded, changes, diffs,
                           time.perf_counter() - t0)


def positions(differences: list[Difference], text_length: int, bins: int = 100) -> np.ndarray:
    """How many differences start in each of `bins` equal parts of the text (for a plot)."""
    if not differences or text_length <= 0:
        return np.zeros(bins, np.int64)
    at = np.fromiter((d.start for d in differences), np.int64, len(differences))
    return np.bincount(np.minimum(at * bins // text_length, bins - 1), minlength=bins)


def tokens_touched(differences: list[Difference], starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Indices of the tokens (offsets `starts`, `ends`) that overlap the differences; a difference
    between tokens (text no token covers, an insertion) touches the token before it."""
    n = len(starts)
    if not differences or n == 0:
        return np.zeros(0, np.int64)
    a = np.fromiter((d.start for d in differences), np.int64, len(differences))
    b = np.fromiter((d.end for d in differences), np.int64, len(differences))
    reach = np.maximum.accumulate(ends)
    lo = np.searchsorted(reach, a, "right")
    hi = np.searchsorted(starts, np.maximum(b, a + 1), "left")
    hi = np.maximum(hi, lo)
    none = hi == lo
    lo[none] = np.clip(lo[none] - 1, 0, n - 1)
    hi[none] = lo[none] + 1
    cover = np.zeros(n + 1, np.int64)
    np.add.at(cover, lo, 1)
    np.add.at(cover, np.minimum(hi, n), -1)
    return np.flatnonzero(np.cumsum(cover)[:n] > 0)
