"""Decoders: turn a list of token strings back into text (HF tokenizers' decoders)."""
from __future__ import annotations

from abc import ABC, abstractmethod

from dataclasses import dataclass, field

import regex

from .bytelevel import CHAR_TO_BYTE
from .patterns import bounded_sub, compile_pattern


class Decoder(ABC):
    @abstractmethod
    def decode_chain(self, tokens: list[str]) -> list[str]:
        """The tokens after this decoding step."""

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(tokens))

    def describe(self) -> str:
        return type(self).__name__


@dataclass
class ByteLevel(Decoder):
    def decode_chain(self, tokens):
        data = bytearray()
        for t in tokens:
            bs = [CHAR_TO_BYTE.get(c) for c in t]
            if None in bs:  # not a byte-level string (e.g. an added token): its own UTF-8
                data += t.encode("utf-8")
            else:
                data += bytes(bs)
        return [data.decode("utf-8", "replace")]


_CLEANUPS = (
    (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
    (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
)


def cleanup(text: str) -> str:
    for a, b in _CLEANUPS:
        text = text.replace(a, b)
    return text


@dataclass
class WordPiece(Decoder):
    prefix: str = "##"
    cleanup: bool = True

    def decode_chain(self, tokens):
        out = []
        for i, t in enumerate(tokens):
            if i:
                t = t[len(self.prefix):] if t.startswith(self.prefix) else " " + t
            out.append(cleanup(t) if self.cleanup else t)
        return out


@dataclass
class Metaspace(Decoder):
    replacement: str = "▁"
    prepend_scheme: str = "always"

    def decode_chain(self, tokens):
        """Each replacement character becomes a space, except in the first token where (unless the
        scheme is "never") HF drops every one of them, not only a leading one."""
        out = []
        for i, t in enumerate(tokens):
            if i == 0 and self.prepend_scheme != "never":
                out.append(t.replace(self.replacement, ""))
            else:
                out.append(t.replace(self.replacement, " "))
        return out


@dataclass
class BPEDecoder(Decoder):
    suffix: str = "</w>"

    def decode_chain(self, tokens):
        n = len(tokens)
        return [t.replace(self.suffix, "" if i == n - 1 else " ") for i, t in enumerate(tokens)]


# HF's rule: a token of 6 bytes "<0x..>" whose two middle characters Rust's u8::from_str_radix(.., 16)
# accepts: two hex digits of either case, or "+" and one digit.
_BYTE_TOKEN = regex.compile(r"<0x(\+?[0-9A-Fa-f]{1,2})>")


@dataclass
class ByteFallback(Decoder):
    def decode_chain(self, tokens):
        out: list[str] = []
        pending = bytearray()

        def flush():
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend(["\ufffd"] * len(pending))
                pending.clear()

        for t in tokens:
            m = _BYTE_TOKEN.fullmatch(t) if len(t) == 6 else None  # (6 characters of ASCII: 6 bytes)
            if m:
                pending.append(int(m.group(1), 16))
            else:
                flush()
                out.append(t)
        flush()
        return out


@dataclass
class Fuse(Decoder):
    def decode_chain(self, tokens):
        return ["".join(tokens)]


@dataclass
class Strip(Decoder):
    content: str = " "
    start: int = 0
    stop: int = 0

    def decode_chain(self, tokens):
        return [self._strip(t) for t in tokens]

    def _strip(self, t: str) -> str:
        """t without up to `start` leading and `stop` trailing `content` characters."""
        if len(self.content) != 1:  # (HF's content is one character: anything else never matches)
            return t
        a = len(t) - len(t.lstrip(self.content))
        t = t[min(a, self.start):]
        b = len(t) - len(t.rstrip(self.content))
        return t[: len(t) - min(b, self.stop)]


@dataclass
class Replace(Decoder):
    pattern: str
    content: str
    is_regex: bool = False
    _re: regex.Pattern = field(init=False, repr=False)

    def __post_init__(self):
        # (a regex is HF's Oniguruma pattern: read with its meaning)
        self._re = compile_pattern(self.pattern) if self.is_regex else regex.compile(regex.escape(self.pattern))

    def decode_chain(self, tokens):
        return [bounded_sub(self._re, self.content, t, "the Replace decoder's pattern") for t in tokens]


@dataclass
class CTC(Decoder):
    pad_token: str = "<pad>"
    word_delimiter_token: str = "|"
    cleanup: bool = True

    def decode_chain(self, tokens):
        out = []
        prev = None
        for t in tokens:
            if t != prev:
                t2 = "" if t == self.pad_token else t
                if self.cleanup:
                    t2 = cleanup(t2).replace(self.word_delimiter_token, " ")
                out.append(t2)
            prev = t
        return [t for t in out if t]


@dataclass
class Sequence(Decoder):
    decoders: list[Decoder]

    def decode_chain(self, tokens):
        for d in self.decoders:
            tokens = d.decode_chain(tokens)
        return tokens

    def describe(self):
        return " + ".join(d.describe() for d in self.decoders)


def transformers_cleanup(text: str) -> str:
    """transformers' `clean_up_tokenization` (decode with clean_up_tokenization_spaces), on the whole text."""
    for a, b in _TRANSFORMERS_CLEANUPS:
        text = text.replace(a, b)
    return text


_TRANSFORMERS_CLEANUPS = (
    (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
    (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
)
