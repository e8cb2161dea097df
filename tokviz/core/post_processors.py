"""Post-processors: the special tokens a model expects around a sequence ([CLS] ... [SEP], <s> ...).

A post-processor returns what to put before and after the encoded sequence, as lists of
(id, token string).  It never changes the tokens of the sequence itself; the byte-level ones
may trim their offsets (`trim_offsets`), as HF tokenizers does on every encode.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Wrap = tuple[list[tuple[int, str]], list[tuple[int, str]]]


class PostProcessor:
    trims_offsets = False

    def wrap(self) -> Wrap:
        """(tokens before, tokens after) the sequence for a single input."""
        return [], []

    def trim(self, tokens: list[str], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Offsets of the sequence's tokens as this post-processor reports them."""
        return offsets

    def describe(self) -> str:
        return type(self).__name__


@dataclass
class TemplateProcessing(PostProcessor):
    single: list[tuple[str, str]]  # ("special", name) or ("sequence", "A")
    special_tokens: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def wrap(self):
        before: list[tuple[int, str]] = []
        after: list[tuple[int, str]] = []
        seen_sequence = False
        for kind, name in self.single:
            if kind == "sequence":
                seen_sequence = True
                continue
            (after if seen_sequence else before).extend(self.special_tokens.get(name, []))
        return before, after

    def describe(self):
        return "Template(" + " ".join(n if k == "special" else "$" + n for k, n in self.single) + ")"


@dataclass
class BertProcessing(PostProcessor):
    sep: tuple[int, str]
    cls: tuple[int, str]

    def wrap(self):
        return [self.cls], [self.sep]


# Rust's char::is_whitespace (the White_Space property) and the byte-level alphabet's space
_WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                         "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\u0120")


def trim_spaces(tokens: list[str], offsets: list[tuple[int, int]], add_prefix_space: bool) -> list[tuple[int, int]]:
    """HF tokenizers' byte-level trimming: a token's offsets leave out its leading and trailing
    spaces ('Ġ' or white space), except the one space added in front of the first token."""
    out = []
    for i, (token, (a, b)) in enumerate(zip(tokens, offsets)):
        lead = 0
        while lead < len(token) and token[lead] in _WHITE_SPACE:
            lead += 1
        trail = 0
        while trail < len(token) and token[-1 - trail] in _WHITE_SPACE:
            trail += 1
        if lead and not (add_prefix_space and lead == 1 and (i == 0 or a == 0)):
            a = min(a + lead, b)
        if trail and b >= trail:
            b = max(b - trail, a)
        out.append((a, b))
    return out


class _TrimsSpaces:
    """trim_offsets and add_prefix_space of the byte-level post-processors."""

    trim_offsets: bool
    add_prefix_space: bool

    @property
    def trims_offsets(self) -> bool:
        return self.trim_offsets

    def trim(self, tokens, offsets):
        return trim_spaces(tokens, offsets, self.add_prefix_space) if self.trim_offsets else offsets


@dataclass
class RobertaProcessing(_TrimsSpaces, BertProcessing):
    trim_offsets: bool = True
    add_prefix_space: bool = True


@dataclass
class ByteLevel(_TrimsSpaces, PostProcessor):
    """Adds no tokens; with trim_offsets, offsets leave out the spaces a token holds."""

    trim_offsets: bool = False
    add_prefix_space: bool = True


@dataclass
class Sequence(PostProcessor):
    processors: list[PostProcessor]

    def wrap(self):
        before: list[tuple[int, str]] = []
        after: list[tuple[int, str]] = []
        for p in self.processors:
            b, a = p.wrap()
            before = b + before
            after = after + a
        return before, after

    @property
    def trims_offsets(self) -> bool:
        return any(p.trims_offsets for p in self.processors)

    def trim(self, tokens, offsets):
        for p in self.processors:
            offsets = p.trim(tokens, offsets)
        return offsets

    def describe(self):
        return " + ".join(p.describe() for p in self.processors)
