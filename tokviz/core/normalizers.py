"""Normalizers: the first stage of the pipeline, rewriting text before it is cut.

Each normalizer maps a `NormalizedString` to a new one, keeping every character's original span.
The semantics are those of HF tokenizers' normalizers of the same name.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from dataclasses import dataclass, field

import regex

from . import hf_normalizer_classes as _hf_norm
from .charsmap import CharsMap
from .normalized import NormalizedString
from .patterns import bounded_spans, compile_pattern
from .unicode import is_bert_chinese_char, is_control, is_whitespace


class Normalizer(ABC):
    """Base class: `normalize` returns the rewritten string (possibly the same object)."""

    @abstractmethod
    def normalize(self, ns: NormalizedString) -> NormalizedString:
        """The rewritten string (possibly `ns` itself)."""

    def normalize_str(self, text: str) -> str:
        return self.normalize(NormalizedString(text)).text

    def describe(self) -> str:
        return type(self).__name__


def _code_point_class(text: str) -> regex.Pattern:
    items = []
    for item in text.split():
        first, _, last = item.partition("-")
        items.append(f"\\U{int(first, 16):08X}" + (f"-\\U{int(last, 16):08X}" if last else ""))
    return regex.compile(f"[{''.join(items)}]")


_HF_NORMALIZATION_UNKNOWN = _code_point_class(_hf_norm.NORMALIZATION_UNKNOWN)


def is_hf_normalization_unknown(c: str) -> bool:
    """A character HF's Unicode normal forms treat as unassigned (their tables are older)."""
    return _HF_NORMALIZATION_UNKNOWN.match(c) is not None


def hf_unicode_normalize(ns: NormalizedString, form: str) -> NormalizedString:
    """`ns` in normal form `form` as HF tokenizers makes it: the characters its normalization tables
    do not know (core/hf_normalizer_classes.py) are unassigned to it, starters that neither
    decompose nor compose, so the text between them is normalized piece by piece."""
    text = ns.text
    cuts = None if text.isascii() else [m.start() for m in _HF_NORMALIZATION_UNKNOWN.finditer(text)]
    if not cuts:
        return ns.unicode_normalize(form)
    parts, at = [], 0
    for cut in cuts:
        parts += [ns.slice(at, cut).unicode_normalize(form), ns.slice(cut, cut + 1)]
        at = cut + 1
    parts.append(ns.slice(at, len(text)).unicode_normalize(form))
    starts, ends = [], []
    for part in parts:
        a, b = part.spans()
        starts += a
        ends += b
    return NormalizedString("".join(part.text for part in parts), ns.base, starts, ends)


@dataclass
class UnicodeForm(Normalizer):
    form: str  # NFC, NFD, NFKC or NFKD

    def normalize(self, ns):
        return hf_unicode_normalize(ns, self.form)

    def describe(self):
        return self.form


def hf_lower_char(c: str) -> str:
    """Rust's char::to_lowercase, which HF's Lowercase applies to each character on its own: no
    final sigma, and the case pairs of the Unicode version the library was built with."""
    return _HF_LOWERCASE.get(c) or c.lower()


def _hf_lower(text: str) -> str:
    """What HF's Lowercase makes of `text`: str.lower where no capital sigma nor a character of
    the measured table is in it, else character by character."""
    if "\u03a3" not in text and (text.isascii() or _HF_LOWERCASE_FIND.search(text) is None):
        return text.lower()
    return "".join(map(hf_lower_char, text))


def _lowercase_table() -> tuple[dict[str, str], regex.Pattern]:
    table = {}
    for item in _hf_norm.LOWERCASE.split():
        cp, _, lowered = item.partition(":")
        table[chr(int(cp, 16))] = "".join(chr(int(x, 16)) for x in lowered.split("+") if x)
    return table, regex.compile("[" + "".join(regex.escape(c) for c in table) + "]")


_HF_LOWERCASE, _HF_LOWERCASE_FIND = _lowercase_table()


@dataclass
class Lowercase(Normalizer):
    """HF's Lowercase: each character lowercased on its own (a capital sigma is always σ)."""

    def normalize(self, ns):
        return ns.with_char_map(hf_lower_char, whole=_hf_lower)


def _code_point_set(text: str) -> frozenset[str]:
    out = set()
    for item in text.split():
        first, _, last = item.partition("-")
        out.update(map(chr, range(int(first, 16), int(last or first, 16) + 1)))
    return frozenset(out)


_HF_COMBINING_MARKS = _code_point_set(_hf_norm.STRIP_ACCENTS)
_HF_BERT_NONSPACING = _code_point_set(_hf_norm.BERT_NONSPACING)


def _strip_marks(c: str) -> str:
    """StripAccents drops the combining marks of HF's normalization tables (an older Unicode)."""
    return "" if c in _HF_COMBINING_MARKS else c


@dataclass
class StripAccents(Normalizer):
    """Removes combining marks (use after NFD/NFKD to strip accents)."""

    def normalize(self, ns):
        return ns.with_char_map(_strip_marks)


@dataclass
class Replace(Normalizer):
    pattern: str
    content: str
    is_regex: bool = False
    _compiled: regex.Pattern = field(init=False, repr=False)

    def __post_init__(self):
        # (a regex is HF's Oniguruma pattern: read with its meaning)
        self._compiled = compile_pattern(self.pattern) if self.is_regex else regex.compile(regex.escape(self.pattern))

    def normalize(self, ns):
        spans = bounded_spans(self._compiled, ns.text, "the Replace normalizer's pattern")
        return ns.with_replacements(spans, self.content)

    def describe(self):
        return f"Replace({self.pattern!r} -> {self.content!r})"


@dataclass
class Prepend(Normalizer):
    prepend: str

    def normalize(self, ns):
        return ns.prepend(self.prepend) if ns.text else ns

    def describe(self):
        return f"Prepend({self.prepend!r})"


@dataclass
class Strip(Normalizer):
    left: bool = True
    right: bool = True

    def normalize(self, ns):
        return ns.strip(self.left, self.right, is_whitespace)


def _bert_clean(c: str) -> str:
    if c == "\0" or c == "\ufffd" or is_control(c):
        return ""
    return " " if is_whitespace(c) else c


def _bert_pad_chinese(c: str) -> str:
    return f" {c} " if is_bert_chinese_char(c) else c


def is_hf_bert_nonspacing(c: str) -> bool:
    """A non-spacing mark as HF's BertNormalizer(strip_accents=True) sees it (its Unicode tables)."""
    return c in _HF_BERT_NONSPACING


def _strip_nonspacing(c: str) -> str:
    return "" if c in _HF_BERT_NONSPACING else c


@dataclass
class BertNormalizer(Normalizer):
    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None  # None: follow `lowercase`
    lowercase: bool = True

    def normalize(self, ns):
        if self.clean_text:
            ns = ns.with_char_map(_bert_clean)
        if self.handle_chinese_chars:
            ns = ns.with_char_map(_bert_pad_chinese)
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        if strip:
            ns = hf_unicode_normalize(ns, "NFD").with_char_map(_strip_nonspacing)
        if self.lowercase:
            ns = ns.with_char_map(hf_lower_char, whole=_hf_lower)
        return ns

    def describe(self):
        on = [k for k in ("clean_text", "handle_chinese_chars", "lowercase") if getattr(self, k)]
        return f"BertNormalizer({', '.join(on)})"


_NMT_REMOVE = set(range(0x1, 0x9)) | {0xB} | set(range(0xE, 0x20)) | {0x7F, 0x8F, 0x9F}
_NMT_SPACE = {0x9, 0xA, 0xC, 0xD, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD}


def _nmt(c: str) -> str:
    o = ord(c)
    if o in _NMT_REMOVE:
        return ""
    return " " if o in _NMT_SPACE else c


@dataclass
class Nmt(Normalizer):
    def normalize(self, ns):
        return ns.with_char_map(_nmt)


@dataclass
class Precompiled(Normalizer):
    """A sentencepiece character map applied the way HF tokenizers applies it: grapheme by grapheme."""

    charsmap: CharsMap

    def normalize(self, ns):
        if self.charsmap.is_empty:
            return ns
        text = ns.text
        parts: list[tuple[int, int, str]] = []  # (a, b, replacement) in ns coordinates
        lookup = self.charsmap.first_match
        for m in regex.finditer(r"\X", text):
            a, b = m.span()
            g = m.group()
            if len(g.encode("utf-8")) < 6:
                norm = lookup(g)
                if norm is not None:
                    parts.append((a, b, norm))
                    continue
            for i in range(a, b):
                norm = lookup(text[i])
                if norm is not None:
                    parts.append((i, i + 1, norm))
        return _apply_parts(ns, parts)

    def describe(self):
        return "Precompiled(sentencepiece charsmap)"


def _apply_parts(ns: NormalizedString, parts: list[tuple[int, int, str]]) -> NormalizedString:
    """Replace non-overlapping, sorted [a, b) ranges with new text, aligned as HF's Precompiled
    normalizer aligns them: the new characters replace the old ones in order, extra new ones
    count as inserted, and the last one absorbs old ones left over (an empty replacement: the
    character before it does, or nothing at the very start)."""
    if not parts or all(ns.text[a:b] == r for a, b, r in parts):
        return ns
    text = ns.text
    changes: list[tuple[str, int]] = []
    prev = 0
    for a, b, rep in parts:
        changes.extend((c, 0) for c in text[prev:a])
        changes.extend((c, 0) for c in rep)
        diff = len(rep) - (b - a)
        if diff > 0:
            for k in range(len(changes) - diff, len(changes)):
                changes[k] = (changes[k][0], 1)
        elif diff < 0 and changes:
            c, change = changes[-1]
            changes[-1] = (c, change + diff)
        prev = b
    changes.extend((c, 0) for c in text[prev:])
    return ns.transform(changes)


@dataclass
class ByteLevelNormalizer(Normalizer):
    """Rewrites text as GPT-2 byte-level characters (rarely used as a normalizer)."""

    def normalize(self, ns):
        from .bytelevel import BYTE_TO_CHAR

        return ns.with_char_map(lambda c: "".join(BYTE_TO_CHAR[b] for b in c.encode("utf-8")))


@dataclass
class Sequence(Normalizer):
    normalizers: list[Normalizer]

    def normalize(self, ns):
        for n in self.normalizers:
            ns = n.normalize(ns)
        return ns

    def describe(self):
        return " + ".join(n.describe() for n in self.normalizers) or "none"
