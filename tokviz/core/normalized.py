"""Text that has been normalized or cut, remembering where each character came from.

Every stage before the model (normalizers, added-token splitting, pre-tokenizers) works on
`NormalizedString`s.  Each character of `.text` knows the span of the *original* text it came
from, so a token found much later can still be shown at the right place in what the user typed.
When nothing changed the text the spans are implicit (`base + i`), which keeps the common case
(ASCII text, NFC text) cheap.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

_CHUNK = 512  # characters per piece of a text that unicode_normalize checks as a whole
_JAMO = re.compile("[\u1160-\u11ff]")  # vowel and trailing jamo: they join the preceding cluster


class NormalizedString:
    """`text` plus, for every character, the [start, end) span it covers in the original text."""

    __slots__ = ("text", "base", "starts", "ends")

    def __init__(self, text: str, base: int = 0, starts: list[int] | None = None, ends: list[int] | None = None):
        self.text = text
        self.base = base
        self.starts = starts  # None: character i covers [base + i, base + i + 1)
        self.ends = ends

    def __repr__(self) -> str:
        return f"NormalizedString({self.text!r}, span={self.original_span(0, len(self.text))})"

    def __len__(self) -> int:
        return len(self.text)

    # ---- where characters came from -------------------------------------------------------
    @property
    def is_identity(self) -> bool:
        return self.starts is None

    def spans(self) -> tuple[list[int], list[int]]:
        """Per-character original starts and ends (materialised)."""
        if self.starts is None:
            r = range(self.base, self.base + len(self.text))
            return list(r), [i + 1 for i in r]
        return self.starts, self.ends  # type: ignore[return-value]

    def original_span(self, a: int, b: int) -> tuple[int, int]:
        """Original [start, end) of the characters [a, b) of this string."""
        if self.starts is None:
            return self.base + a, self.base + b
        n = len(self.text)
        if n == 0:
            return self.base, self.base
        if a >= b:
            pos = self.starts[a] if a < n else self.ends[n - 1]
            return pos, pos
        return min(self.starts[a:b]), max(self.ends[a:b])

    # ---- cutting ------------------------------------------------------------------------
    def slice(self, a: int, b: int) -> NormalizedString:
        if self.starts is None:
            return NormalizedString(self.text[a:b], self.base + a)
        return NormalizedString(self.text[a:b], self.base, self.starts[a:b], self.ends[a:b])

    def split_spans(self, parts: Iterable[tuple[int, int]]) -> list[NormalizedString]:
        """Slices for the given [a, b) parts, leaving out empty ones."""
        return [self.slice(a, b) for a, b in parts if b > a]

    # ---- changing the text --------------------------------------------------------------
    def with_char_map(self, fn: Callable[[str], str], whole: Callable[[str], str] | None = None) -> NormalizedString:
        """Replace each character c by fn(c) (zero or more characters), each new one keeping c's span.

        `whole`, when given, computes the new text in one go (e.g. str.lower, which knows about a
        final sigma) and is trusted when it has the same length as the per-character result.
        """
        text = self.text
        if whole is not None:
            new = whole(text)
            if new == text:
                return self
            if len(new) == len(text):
                return NormalizedString(new, self.base, self.starts, self.ends)
        starts, ends = self.spans()
        out: list[str] = []
        ns: list[int] = []
        ne: list[int] = []
        for i, c in enumerate(text):
            m = fn(c)
            if m == c:
                out.append(c)
                ns.append(starts[i])
                ne.append(ends[i])
            elif m:
                out.append(m)
                ns.extend([starts[i]] * len(m))
                ne.extend([ends[i]] * len(m))
        new_text = "".join(out)
        if whole is not None:
            candidate = whole(text)
            if len(candidate) == len(new_text):
                new_text = candidate
        if new_text == text:
            return self
        return NormalizedString(new_text, self.base, ns, ne)

    def with_replacements(self, matches: Iterable[tuple[int, int]], content: str) -> NormalizedString:
        """Replace each [a, b) match by `content`, aligned as HF tokenizers aligns it: the new
        characters take the span of the match's last character (an empty match: of the character
        before it, or an empty span at the start).
        """
        text = self.text
        starts, ends = self.spans()
        out: list[str] = []
        ns: list[int] = []
        ne: list[int] = []
        prev = 0
        changed = False
        for a, b in matches:
            out.append(text[prev:a])
            ns.extend(starts[prev:a])
            ne.extend(ends[prev:a])
            if content or a != b:
                changed = True
            if content:
                if b > a:
                    s, e = starts[b - 1], ends[b - 1]
                elif a > 0:
                    s, e = starts[a - 1], ends[a - 1]
                else:
                    s = e = self.base
                out.append(content)
                ns.extend([s] * len(content))
                ne.extend([e] * len(content))
            prev = b
        if not changed:
            return self
        out.append(text[prev:])
        ns.extend(starts[prev:])
        ne.extend(ends[prev:])
        return NormalizedString("".join(out), self.base, ns, ne)

    def prepend(self, s: str) -> NormalizedString:
        """Add `s` in front; it is attributed to the first character (as HF tokenizers does)."""
        if not s:
            return self
        starts, ends = self.spans()
        if self.text:
            a, b = starts[0], ends[0]
        else:
            a = b = self.base
        return NormalizedString(s + self.text, self.base, [a] * len(s) + starts, [b] * len(s) + ends)

    def append(self, s: str) -> NormalizedString:
        if not s:
            return self
        starts, ends = self.spans()
        if self.text:
            a, b = starts[-1], ends[-1]
        else:
            a = b = self.base
        return NormalizedString(self.text + s, self.base, starts + [a] * len(s), ends + [b] * len(s))

    def strip(self, left: bool, right: bool, is_space: Callable[[str], bool] = str.isspace) -> NormalizedString:
        text = self.text
        a, b = 0, len(text)
        if left:
            while a < b and is_space(text[a]):
                a += 1
        if right:
            while b > a and is_space(text[b - 1]):
                b -= 1
        if (a, b) == (0, len(text)):
            return self
        return self.slice(a, b)

    def unicode_normalize(self, form: str) -> NormalizedString:
        """NFC/NFD/NFKC/NFKD with spans aligned as HF tokenizers aligns them.

        Each character is decomposed (its first character takes the original's span, the others
        count as inserted), combining marks are put in canonical order, and a composition takes the
        span of its first character: marks it absorbed, and characters moved by the reordering,
        lose their own place, as in HF's `Encoding.offsets`."""
        text = self.text
        if unicodedata.is_normalized(form, text):
            return self
        new = unicodedata.normalize(form, text)
        starts, ends = self.spans()
        out: list[str] = []
        ns: list[int] = []
        ne: list[int] = []
        compose = form in ("NFC", "NFKC")
        decomposition = "NFKD" if form.startswith("NFK") else "NFD"
        for a, b in _clusters(text, form, starts, ends, out, ns, ne):
            if b - a == 1 and unicodedata.is_normalized(form, text[a]):
                out.append(text[a])
                ns.append(starts[a])
                ne.append(ends[a])
                continue
            pieces = _decompose(text[a:b], decomposition)
            if compose:
                pieces = _compose(pieces)
            _align(pieces, a, starts, ends, self.base, out, ns, ne)
        if "".join(out) != new:
            # Composition reached across our cluster boundaries: attribute the text as a whole.
            s, e = self.original_span(0, len(text))
            return NormalizedString(new, self.base, [s] * len(new), [e] * len(new))
        return NormalizedString(new, self.base, ns, ne)

    def transform(self, changes: Iterable[tuple[str, int]]) -> NormalizedString:
        """The text made of (character, change) pairs, aligned as HF tokenizers' `transform`:
        change <= 0 takes the next character's span and skips -change more characters; change 1
        is inserted and takes the span of the character taken last (an empty span at the start)."""
        starts, ends = self.spans()
        out: list[str] = []
        ns: list[int] = []
        ne: list[int] = []
        taken = _align(changes, 0, starts, ends, self.base, out, ns, ne)
        new = "".join(out)
        if new == self.text and taken == len(self.text) and ns == starts and ne == ends:
            return self
        return NormalizedString(new, self.base, ns, ne)

    def with_text(self, new: str) -> NormalizedString:
        """A new text whose relation to this one is unknown: every character spans the whole."""
        if new == self.text:
            return self
        s, e = self.original_span(0, len(self.text))
        return NormalizedString(new, self.base, [s] * len(new), [e] * len(new))


def normalize_lines(form: str, text: str) -> str:
    """unicodedata.normalize(form, text), a line at a time.

    A line feed is a starter that no composition takes in, so nothing composes or reorders across
    it: each line normalizes on its own, and the lines in the form already pass unicodedata's quick
    check without being rebuilt (a text with a few characters to change costs a few lines, not the
    whole text)."""
    return "\n".join([unicodedata.normalize(form, line) for line in text.split("\n")])


def _align(changes: Iterable[tuple[str, int]], taken: int, starts: list[int], ends: list[int], base: int,
           out: list[str], ns: list[int], ne: list[int]) -> int:
    """Append (character, change) pairs to out and their spans to ns/ne as HF tokenizers aligns
    them (see `NormalizedString.transform`), `taken` being the next character of the old text to
    replace; the new `taken`."""
    for char, change in changes:
        if change > 0:
            s, e = (starts[taken - 1], ends[taken - 1]) if taken else (base, base)
        else:
            s, e = starts[taken], ends[taken]
            taken += 1 - change
        out.append(char)
        ns.append(s)
        ne.append(e)
    return taken


def _decompose(text: str, form: str) -> list[tuple[str, int]]:
    """(character, change) pairs of the decomposition in canonical order: change 0 for the first
    character of each original one, +1 for the others (inserted)."""
    pieces: list[tuple[str, int]] = []
    for c in text:
        for k, d in enumerate(unicodedata.normalize(form, c)):
            pieces.append((d, 0 if k == 0 else 1))
    # canonical ordering: stable sort of each run of non-starters by combining class
    i, n = 0, len(pieces)
    while i < n:
        if unicodedata.combining(pieces[i][0]) == 0:
            i += 1
            continue
        j = i
        while j < n and unicodedata.combining(pieces[j][0]) != 0:
            j += 1
        pieces[i:j] = sorted(pieces[i:j], key=lambda p: unicodedata.combining(p[0]))
        i = j
    return pieces


def _compose(pieces: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Canonical composition of decomposed (character, change) pairs; a composite replaces its
    starter and what it absorbed, so its change is the sum of theirs, less one per absorbed one."""
    out: list[tuple[str, int]] = []
    starter = -1  # index in out of the last starter that may still compose
    last_class = -1  # combining class of the last character kept after that starter; -1: none
    for char, change in pieces:
        ccc = unicodedata.combining(char)
        if starter >= 0 and (last_class == -1 or (last_class < ccc)):
            base, base_change = out[starter]
            composite = _primary_composite(base, char)
            if composite is not None:
                out[starter] = (composite, base_change + change - 1)
                continue
        if ccc == 0:
            starter = len(out)
            last_class = -1
        elif starter >= 0:
            last_class = ccc
        out.append((char, change))
    return out


_COMPOSITES: dict[tuple[str, str], str | None] = {}


def _primary_composite(a: str, b: str) -> str | None:
    key = (a, b)
    if key not in _COMPOSITES:
        both = unicodedata.normalize("NFC", a + b)
        _COMPOSITES[key] = both if len(both) == 1 else None
    return _COMPOSITES[key]


def _starts_cluster(c: str, form: str) -> bool:
    """Whether nothing before c can compose or reorder with c (its decomposition starts with a
    starter that is not a vowel or trailing jamo)."""
    first = unicodedata.normalize(form, c)[:1] if c >= "\u00c0" else c
    return not first or (
        unicodedata.combining(first) == 0 and not ("\u1160" <= first <= "\u11ff") and first not in _second_starters()
    )


# _second_starters() for the Unicode versions it has been computed for (computing it walks 130 K
# code points: ~90 ms, which the first text that needs normalizing would wait for).
_KNOWN_SECOND_STARTERS = {
    "14.0.0": "\u09be\u09d7\u0b3e\u0b56\u0b57\u0bbe\u0bd7\u0cc2\u0cd5\u0cd6\u0d3e\u0d57\u0dcf\u0ddf\u102e"
              "\u1b35\U00011127\U0001133e\U00011357\U000114b0\U000114ba\U000114bd\U000115af\U00011930",
}


@functools.cache
def _second_starters() -> frozenset[str]:
    """Starters that compose with the starter before them (Indic two-part vowels, U+0DCF ...)."""
    known = _KNOWN_SECOND_STARTERS.get(unicodedata.unidata_version)
    return frozenset(known) if known is not None else _compute_second_starters()


def _compute_second_starters() -> frozenset[str]:
    found = set()
    for code in range(0x300, 0x20000):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            first, second = (chr(int(p, 16)) for p in parts)
            if unicodedata.combining(second) == 0 and len(unicodedata.normalize("NFC", first + second)) == 1:
                found.add(second)
    return frozenset(found)


def _clusters(text: str, form: str, starts: list[int], ends: list[int], out: list[str], ns: list[int], ne: list[int]):
    """Cut text before every starter character that cannot combine with what precedes it.

    Most of a text that needs normalizing is usually in the form already: pieces of about _CHUNK
    characters (cut at cluster starts) that are in the form and only hold one-character clusters
    are appended to out/ns/ne as they are (each character normalizes to itself) instead of being
    yielded cluster by cluster."""
    n = len(text)
    a = 0
    while a < n:
        b = min(a + _CHUNK, n)
        while b < n and not _starts_cluster(text[b], form):
            b += 1
        chunk = text[a:b]
        if (unicodedata.is_normalized(form, chunk) and not _JAMO.search(chunk)
                and not any(map(unicodedata.combining, chunk))):
            out.append(chunk)
            ns.extend(starts[a:b])
            ne.extend(ends[a:b])
        else:
            start = a
            for i in range(a + 1, b):
                if _starts_cluster(text[i], form):
                    yield start, i
                    start = i
            yield start, b
        a = b
