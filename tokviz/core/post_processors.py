"""Post-processors: the special tokens a model expects around a sequence ([CLS] ... [SEP], <s> ...).

A post-processor returns what to put before and after the encoded sequence, as lists of
(id, token string).  It never changes the tokens of the sequence itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Wrap = tuple[list[tuple[int, str]], list[tuple[int, str]]]


class PostProcessor:
    def wrap(self) -> Wrap:
        """(tokens before, tokens after) the sequence for a single input."""
        return [], []

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


@dataclass
class RobertaProcessing(BertProcessing):
    pass


@dataclass
class ByteLevel(PostProcessor):
    """Only trims offsets in HF tokenizers; tokviz reports untrimmed offsets, so nothing to add."""


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

    def describe(self):
        return " + ".join(p.describe() for p in self.processors)
