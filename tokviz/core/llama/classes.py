"""llama.cpp's own Unicode classes (its unicode-data.cpp tables, an older Unicode than the `regex`
module's): characters assigned since are undefined to llama.cpp, neither letters nor numbers.

`difference(cp)` gives llama.cpp's class where it is not the `regex` module's (core/llama/
unicode_data.py).  `LlamaSplit` runs a hand-written splitter's pattern on the text with those
characters replaced by stand-ins of llama.cpp's class (as core.patterns.ReferencePattern does for
the tiktoken/HF engines).  tokviz's native scanners class characters as HF tokenizers does, so
`LlamaClassesTokenizer` sends a text holding a character either table lists through the Python
pipeline; other texts keep the native path.
"""
from __future__ import annotations

import regex

from ..patterns import ReferencePattern, _stand_ins
from ..pre_tokenizers import Split
from ...errors import check_text
from ..tokenizer import Tokenizer

# a character the `regex` module classes as llama.cpp's class (whitespace: "w" after the letter)
_STAND_IN = {"U": 0xFDD0, "N": 0xB2, "L": 0xAA, "M": 0x300, "P": 0xA1, "S": 0xA2, "C": 0x80, "Z": 0xA1}
_WHITESPACE_STAND_IN = 0x2000

_DIFFERENT: dict[int, str] | None = None


def _table() -> dict[int, str]:
    global _DIFFERENT
    if _DIFFERENT is None:
        from . import unicode_data

        table = {}
        for item in unicode_data.DIFFERENT.split():
            span, _, kind = item.partition(":")
            first, _, last = span.partition("-")
            table.update(dict.fromkeys(range(int(first, 16), int(last or first, 16) + 1), kind))
        _DIFFERENT = table
    return _DIFFERENT


def difference(cp: int) -> str | None:
    """llama.cpp's class of code point `cp` ("N" "L" "Z" "M" "P" "S" "C" "U", "w" after it for
    whitespace) where the `regex` module classes it otherwise, else None."""
    return _table().get(cp)


def _character_map(table: str) -> dict[str, str]:
    out = {}
    for item in table.split():
        span, _, value = item.partition(":")
        first, _, last = span.partition("-")
        out.update(dict.fromkeys(map(chr, range(int(first, 16), int(last or first, 16) + 1)), chr(int(value, 16))))
    return out


def lowercase_differences() -> dict[str, str]:
    """character -> llama.cpp's lowercase, where it is not str.lower's first character."""
    from . import unicode_data

    return _character_map(unicode_data.LOWERCASE)


def nfd_differences() -> dict[str, str]:
    """character -> the first code point of llama.cpp's NFD, where it is not unicodedata's."""
    from . import unicode_data

    return _character_map(unicode_data.NFD)


def whitespace() -> frozenset[int]:
    """The code points llama.cpp counts as whitespace."""
    from . import unicode_data

    return frozenset(unicode_data.WHITESPACE)


_SPLIT_CLASSES = regex.compile(r"(?P<L>\p{L})|(?P<N>\p{N})|(?P<M>\p{M})|(?P<w>\s)")


def _split_class(c: str) -> str:
    """What the hand-written splitters ask of a character: letter, number, mark, whitespace, other."""
    m = _SPLIT_CLASSES.match(c)
    return m.lastgroup if m else ""


def _llama_split_class(kind: str) -> str:
    return "w" if kind.endswith("w") else kind if kind in ("L", "N", "M") else ""


def _utf8_sequences(first: int, last: int) -> list[list[tuple[int, int]]]:
    """Byte-range sequences matching exactly the UTF-8 of code points first..last (one length)."""
    for shift in (18, 12, 6):
        mask = (1 << shift) - 1
        if first & ~mask != last & ~mask:
            if first & mask:
                return _utf8_sequences(first, first | mask) + _utf8_sequences((first | mask) + 1, last)
            if last & mask != mask:
                return _utf8_sequences(first, (last & ~mask) - 1) + _utf8_sequences(last & ~mask, last)
    return [list(zip(chr(first).encode(), chr(last).encode()))]


def _utf8_finder(code_points: list[int]):
    """A bytes pattern finding the UTF-8 of any of `code_points` (sorted, none below U+0800)."""
    import re

    alternatives = []
    i = 0
    while i < len(code_points):
        j = i
        while j + 1 < len(code_points) and code_points[j + 1] == code_points[j] + 1:
            j += 1
        first, last = code_points[i], code_points[j]
        for length_end in (0xFFFF, 0x10FFFF):
            a, b = max(first, 0x800 if length_end == 0xFFFF else 0x10000), min(last, length_end)
            if a <= b:
                for seq in _utf8_sequences(a, b):
                    alternatives.append(b"".join(b"[\\x%02x-\\x%02x]" % r if r[0] != r[1] else b"\\x%02x" % r[0]
                                                 for r in seq))
        i = j + 1
    return re.compile(b"|".join(alternatives)) if alternatives else None


class _LlamaStandIns:
    """Where llama.cpp's classes matter to a hand-written splitter (letter, number, mark,
    whitespace): `apply` gives the text with the characters it classes otherwise than the `regex`
    module replaced by stand-ins of llama.cpp's class; `native_differs` tells whether the text
    holds one it classes otherwise than the native scanners (HF tokenizers' classes)."""

    def __init__(self):
        table = _table()
        self._map = {cp: chr(_WHITESPACE_STAND_IN if kind.endswith("w") else _STAND_IN[kind[0]])
                     for cp, kind in table.items() if _llama_split_class(kind) != _split_class(chr(cp))}
        onig = _stand_ins("onig")._map
        native = [cp for cp in set(table) | set(onig)
                  if _split_class(self._map.get(cp, chr(cp))) != _split_class(onig.get(cp, chr(cp)))]
        assert all(cp >= 0x800 for cp in native)
        by_lead: dict[bytes, list[bytes]] = {}
        for cp in sorted(native):
            if cp < 0x10000:
                by_lead.setdefault(chr(cp).encode()[:1], []).append(chr(cp).encode())
        self._native_bmp = tuple((lead, tuple(seqs)) for lead, seqs in by_lead.items())
        self._native_astral = frozenset(chr(cp).encode() for cp in native if cp >= 0x10000)
        self._astral_leads = sorted({seq[:1] for seq in self._native_astral})
        self._finder = _utf8_finder(sorted(self._map))

    def native_differs(self, text: str) -> bool:
        """Whether `text` holds a character that llama.cpp classes otherwise than tokviz's native
        scanners (substring searches over its UTF-8; none in ASCII text)."""
        if text.isascii():
            return False
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return True  # (lone surrogates: the Python path refuses them by name)
        for lead, seqs in self._native_bmp:  # (a one-byte search first: most texts lack the lead byte)
            if lead in data and any(seq in data for seq in seqs):
                return True
        for lead in self._astral_leads:
            at = data.find(lead)
            while at >= 0:
                if data[at:at + 4] in self._native_astral:
                    return True
                at = data.find(lead, at + 4)
        return False

    def apply(self, text: str) -> str | None:
        if self._finder is None or text.isascii():
            return None
        try:
            found = self._finder.search(text.encode("utf-8")) is not None
        except UnicodeEncodeError:
            found = True
        return text.translate(self._map) if found else None


_STAND_INS: _LlamaStandIns | None = None


def stand_ins() -> _LlamaStandIns:
    global _STAND_INS
    if _STAND_INS is None:
        _STAND_INS = _LlamaStandIns()
    return _STAND_INS


class _LlamaPattern(ReferencePattern):
    """A compiled pattern that classes characters as llama.cpp's tables do."""

    def __init__(self, compiled):
        super().__init__(compiled, "onig")
        self._stand_ins = stand_ins()


class LlamaSplit(Split):
    """tokenizer.json's Split (Oniguruma syntax, so the native scanners recognise the pattern)
    that, run in Python, classes characters as llama.cpp does."""

    def __post_init__(self):
        super().__post_init__()
        self._re = _LlamaPattern(self._re.compiled)

    def describe(self):
        return f"llama.cpp {super().describe()}"


class LlamaClassesTokenizer(Tokenizer):
    """A GGUF tokenizer whose pre-tokenizer the native scanners run: a text holding a character
    that llama.cpp classes otherwise than they do is encoded by the Python pipeline (LlamaSplit)."""

    def _encode(self, text, add_special_tokens, allow_special):
        if isinstance(text, str) and stand_ins().native_differs(text):
            allow = self.special_in_text if allow_special is None else allow_special
            check_text(text)
            ids, offsets, special = self._encode_python(text, allow)
            return self._finish(text, ids, offsets, special, add_special_tokens, allow)
        return super()._encode(text, add_special_tokens, allow_special)

    def _encode_ids(self, text, add_special_tokens, allow_special):
        if isinstance(text, str) and stand_ins().native_differs(text):
            return self._encode(text, add_special_tokens, allow_special).ids
        return super()._encode_ids(text, add_special_tokens, allow_special)

    def _encode_ids_batch(self, texts, threads, add_special_tokens, allow_special):
        if any(isinstance(t, str) and stand_ins().native_differs(t) for t in texts):
            return [self._encode_ids(t, add_special_tokens, allow_special) for t in texts]
        return super()._encode_ids_batch(texts, threads, add_special_tokens, allow_special)

    def _encode_batch(self, texts, threads=None, **kwargs):
        if any(isinstance(t, str) and stand_ins().native_differs(t) for t in texts):
            return [self.encode(t, **kwargs) for t in texts]
        return super()._encode_batch(texts, threads, **kwargs)
