"""Pre-tokenizers: cut normalized text into pieces that the model encodes one by one.

Semantics follow HF tokenizers' pre-tokenizers of the same name, including the five ways a
`Split` treats what its pattern matched (the "behaviors").
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import regex

from .bytelevel import BYTE_TO_CHAR, bytes_to_unicode
from .normalized import NormalizedString
from .patterns import GPT2_PATTERN, ReferencePattern, bounded_spans, compile_pattern
from .unicode import hf_is_numeric, hf_script, hf_word_classes, is_punctuation, is_whitespace

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")

Parts = list[tuple[int, int, bool]]  # (start, end, is_match) covering a string


def _parts_from_matches(n: int, spans: Iterable[tuple[int, int]]) -> Parts:
    parts: Parts = []
    prev = 0
    for a, b in spans:
        if a != prev:
            parts.append((prev, a, False))
        parts.append((a, b, True))
        prev = b
    if prev != n or n == 0:
        parts.append((prev, n, False))
    return parts


def _apply_behavior(parts: Parts, behavior: str) -> list[tuple[int, int]]:
    if behavior == "Removed":
        return [(a, b) for a, b, m in parts if not m]
    if behavior == "Isolated":
        return [(a, b) for a, b, _ in parts]
    out: list[list[int]] = []
    previous = False
    if behavior == "Contiguous":
        for a, b, m in parts:
            if m == previous and out:
                out[-1][1] = b
            else:
                out.append([a, b])
            previous = m
    elif behavior == "MergedWithPrevious":
        for a, b, m in parts:
            if m and not previous and out:
                out[-1][1] = b
            else:
                out.append([a, b])
            previous = m
    elif behavior == "MergedWithNext":
        for a, b, m in reversed(parts):
            if m and not previous and out:
                out[-1][0] = a
            else:
                out.append([a, b])
            previous = m
        out.reverse()
    else:
        raise ValueError(f"unknown split behavior {behavior!r}")
    return [(a, b) for a, b in out]


def split_normalized(
    ns: NormalizedString, spans: Iterable[tuple[int, int]], behavior: str, invert: bool = False
) -> list[NormalizedString]:
    parts = _parts_from_matches(len(ns.text), spans)
    if invert:
        parts = [(a, b, not m) for a, b, m in parts]
    return ns.split_spans(_apply_behavior(parts, behavior))


def _char_spans(text: str, pred: Callable[[str], bool]) -> Iterator[tuple[int, int]]:
    for i, c in enumerate(text):
        if pred(c):
            yield i, i + 1


class PreTokenizer(ABC):
    def pre_tokenize(self, pieces: list[NormalizedString]) -> list[NormalizedString]:
        out: list[NormalizedString] = []
        for p in pieces:
            out.extend(self.split(p))
        return out

    @abstractmethod
    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        """The pieces of one normalized string."""

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Convenience: the pieces of `text` with their original offsets."""
        return [(p.text, p.original_span(0, len(p.text))) for p in self.pre_tokenize([NormalizedString(text)])]

    @property
    def byte_level(self) -> bool:
        """True when the pieces come out as GPT-2 byte-level characters."""
        return False

    def describe(self) -> str:
        return type(self).__name__


@dataclass
class Split(PreTokenizer):
    pattern: str
    behavior: str = "Isolated"
    invert: bool = False
    is_regex: bool = True
    dialect: str = "onig"  # whose regex semantics the pattern was written for (see patterns.py)
    _re: ReferencePattern = field(init=False, repr=False)

    def __post_init__(self):
        if self.behavior not in BEHAVIORS:
            raise ValueError(f"unknown split behavior {self.behavior!r}")
        self._re = compile_pattern(self.pattern if self.is_regex else regex.escape(self.pattern), self.dialect)

    def split(self, ns):
        spans = bounded_spans(self._re, ns.text, "the Split pre-tokenizer's pattern")
        return split_normalized(ns, spans, self.behavior, self.invert)

    def describe(self):
        return f"Split({self.pattern!r}, {self.behavior}{', invert' if self.invert else ''})"


def to_byte_level(ns: NormalizedString) -> NormalizedString:
    """The piece as byte-level characters, each byte keeping the span of the character it came from."""
    text = ns.text
    if text.isascii():
        return NormalizedString(bytes_to_unicode(text.encode("ascii")), ns.base, ns.starts, ns.ends)
    starts, ends = ns.spans()
    out, ps, pe = [], [], []
    for i, c in enumerate(text):
        bs = c.encode("utf-8")
        out.append("".join(BYTE_TO_CHAR[b] for b in bs))
        ps.extend([starts[i]] * len(bs))
        pe.extend([ends[i]] * len(bs))
    return NormalizedString("".join(out), ns.base, ps, pe)


@dataclass
class ByteLevel(PreTokenizer):
    add_prefix_space: bool = False
    use_regex: bool = True
    _re: ReferencePattern = field(init=False, repr=False)

    def __post_init__(self):
        self._re = ReferencePattern(regex.compile(GPT2_PATTERN), "onig")  # (HF runs it with Oniguruma)

    @property
    def byte_level(self):
        return True

    def split(self, ns):
        if self.add_prefix_space and not ns.text.startswith(" "):
            ns = ns.prepend(" ")
        pieces = [ns]
        if self.use_regex:
            pieces = split_normalized(ns, (m.span() for m in self._re.finditer(ns.text)), "Isolated")
        return [to_byte_level(p) for p in pieces]

    def describe(self):
        return "ByteLevel" + ("(gpt2 regex)" if self.use_regex else "") + (" +prefix space" if self.add_prefix_space else "")


@dataclass
class Metaspace(PreTokenizer):
    replacement: str = "▁"
    prepend_scheme: str = "always"  # always, first, never
    split_on_replacement: bool = True

    def split(self, ns):
        rep = self.replacement
        ns = ns.with_char_map(lambda c: rep if c == " " else c)
        if not ns.text.startswith(rep):
            if self.prepend_scheme == "always" or (
                self.prepend_scheme == "first" and ns.original_span(0, len(ns.text))[0] == 0
            ):
                ns = ns.prepend(rep)
        if not self.split_on_replacement:
            return [ns] if ns.text else []
        return split_normalized(ns, _char_spans(ns.text, lambda c: c == rep), "MergedWithNext")

    def describe(self):
        return f"Metaspace({self.replacement!r}, prepend {self.prepend_scheme})"


_WORDS_OR_OTHERS = regex.compile(r"a+|!+")  # over hf_word_classes(text): \w+|[^\w\s]+


@dataclass
class Whitespace(PreTokenizer):
    def split(self, ns):
        spans = (m.span() for m in _WORDS_OR_OTHERS.finditer(hf_word_classes(ns.text)))
        return split_normalized(ns, spans, "Removed", invert=True)


@dataclass
class WhitespaceSplit(PreTokenizer):
    def split(self, ns):
        return split_normalized(ns, _char_spans(ns.text, is_whitespace), "Removed")


@dataclass
class BertPreTokenizer(PreTokenizer):
    def split(self, ns):
        out = []
        for p in split_normalized(ns, _char_spans(ns.text, is_whitespace), "Removed"):
            out.extend(split_normalized(p, _char_spans(p.text, is_punctuation), "Isolated"))
        return out


@dataclass
class Punctuation(PreTokenizer):
    behavior: str = "Isolated"

    def split(self, ns):
        return split_normalized(ns, _char_spans(ns.text, is_punctuation), self.behavior)


@dataclass
class Digits(PreTokenizer):
    individual_digits: bool = False

    def split(self, ns):
        behavior = "Isolated" if self.individual_digits else "Contiguous"
        return split_normalized(ns, _char_spans(ns.text, hf_is_numeric), behavior)


@dataclass
class CharDelimiterSplit(PreTokenizer):
    delimiter: str

    def split(self, ns):
        return split_normalized(ns, _char_spans(ns.text, lambda c: c == self.delimiter), "Removed")


@dataclass
class FixedLength(PreTokenizer):
    """Pieces of `length` characters (code points), the last one shorter (HF's FixedLength)."""

    length: int = 5

    def __post_init__(self):
        if self.length < 1:
            raise ValueError(f"FixedLength needs a length of at least 1, got {self.length}")

    def split(self, ns):
        n, step = len(ns.text), self.length
        return ns.split_spans([(a, min(a + step, n)) for a in range(0, n, step)])

    def describe(self):
        return f"FixedLength({self.length})"


# The scripts of Unicode 8.0 (what the Unigram trainer's script classes use; HF's UnicodeScripts
# pre-tokenizer has its own table: tokviz.core.unicode.hf_script).
UNICODE_8_SCRIPTS = """Latin Greek Cyrillic Armenian Hebrew Arabic Syriac Thaana Devanagari Bengali Gurmukhi Gujarati
Oriya Tamil Telugu Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Georgian Hangul Ethiopic Cherokee
Khmer Mongolian Han Hiragana Katakana Bopomofo Yi Ahom Anatolian_Hieroglyphs Avestan Balinese Bamum
Bassa_Vah Batak Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham
Coptic Cuneiform Cypriot Deseret Duployan Egyptian_Hieroglyphs Elbasan Glagolitic Gothic Grantha Hanunoo
Hatran Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kayah_Li Kharoshthi
Khojki Khudawadi Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Mandaic Manichaean Meetei_Mayek
Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mro Multani Nabataean New_Tai_Lue Nko Ogham
Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_South_Arabian Old_Turkic
Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan
Saurashtra Sharada Shavian Siddham SignWriting Sora_Sompeng Sundanese Syloti_Nagri Tagalog Tagbanwa Tai_Le
Tai_Tham Tai_Viet Takri Tifinagh Tirhuta Ugaritic Vai Warang_Citi Inherited Common""".split()
_SCRIPT_RE = regex.compile("|".join(f"(?P<{s}>\\p{{Script={s}}})" for s in UNICODE_8_SCRIPTS))


def fixed_script(c: str) -> str:
    """Script of `c` among Unicode 8.0's scripts as the `regex` module knows them: kana (and the
    long-vowel mark) count as Han, a space and a character of a later script are "Any" (it joins
    either side)."""
    if c == " ":
        return "Any"
    if c == "\u30fc":
        return "Han"
    m = _SCRIPT_RE.match(c)
    if m is None:
        return "Any"
    s = m.lastgroup
    return "Han" if s in ("Hiragana", "Katakana") else s


@dataclass
class UnicodeScripts(PreTokenizer):
    def split(self, ns):
        text = ns.text
        bounds = []
        last = None
        for i, c in enumerate(text):
            s = "Any" if c == " " else hf_script(c)
            if s != "Any" and last != "Any" and s != last:
                bounds.append(i)
            if s != "Any":
                last = s
        # As in HF tokenizers, text before the first script change (leading spaces) is not kept.
        bounds.append(len(text))
        return ns.split_spans(zip(bounds, bounds[1:]))


@dataclass
class Sequence(PreTokenizer):
    pre_tokenizers: list[PreTokenizer]

    def pre_tokenize(self, pieces):
        for p in self.pre_tokenizers:
            pieces = p.pre_tokenize(pieces)
        return pieces

    def split(self, ns):
        return self.pre_tokenize([ns])

    @property
    def byte_level(self):
        return any(p.byte_level for p in self.pre_tokenizers)

    def describe(self):
        return " + ".join(p.describe() for p in self.pre_tokenizers)
