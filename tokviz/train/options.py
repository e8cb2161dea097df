"""What every trainer takes: the parameters, the progress and cancel callbacks, and the corpus.

    >>> opts = TrainOptions(vocab_size=8000, special_tokens=["<unk>", "<s>", "</s>"], reserved_tokens=4)
    >>> opts.reserved_names()
    ['<|reserved_special_token_0|>', '<|reserved_special_token_1|>', ...]

A parameter a trainer has no use for is ignored by it (documented on each trainer).  `vocab_size`
counts everything the trained tokenizer holds: special tokens, user-defined symbols, reserved
tokens, the alphabet and the learned tokens; `pad_to_multiple_of` may then add reserved tokens to
round it up.

`min_word_count` prunes the counts every trainer starts from: once the whole corpus is counted
(on this machine or combined from a Dask cluster), the distinct words (pre-tokens) seen fewer
than that many times are dropped, and the model is learned from the others alone.  It bounds the
memory of the learning step on a big corpus, whose rare words are mostly one-offs (names, typos,
numbers); 1, the default, keeps every word.  The words that are left keep their order of first
appearance, so the same corpus and options give the same tokenizer either way.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Cancelled, TokvizError
from ..formats._util import other_unicode_message, unicode_bom
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import open_regular_text

#: progress(fraction done in [0, 1], what is happening: "counting words", "merge 1200: 'th' + 'e' (4410)");
#: the message is a tokviz.messages Message or Template (a str: the English, translatable in the GUI)
Progress = Callable[[float, str], None]

COUNTING_WORDS = QT_TRANSLATE_NOOP("train", "counting words")


def merge_message(made: int, left: str, right: str, count: int) -> Message:
    """'merge 1200: 'th' + 'e' (4410)': a merge just learnt, with the count of its pair."""
    return Message(QT_TRANSLATE_NOOP("train", "merge {made}: {left!r} + {right!r} ({count})"), made=made, left=left,
                   right=right, count=count)


def done_message(merges: int, tokens: int) -> Message:
    """The last word of a BPE or WordPiece trainer."""
    return Message(QT_TRANSLATE_NOOP("train", "done: {merges} merges, {tokens} tokens"), merges=merges, tokens=tokens)

#: cancel() -> True to stop: the trainer raises Cancelled soon after (between two merges / EM steps)
CancelCheck = Callable[[], bool]

RESERVED_FORMAT = "<|reserved_special_token_{}|>"
#: how BPE and WordPiece trainers choose among pairs of equal score (tokviz.train.bpe_core's module doc):
#: "hf" the pair of the lowest ids, as HF tokenizers' BpeTrainer; "minbpe" the pair that occurs
#: first in the corpus as it stands, as minbpe (pure Python: slower on a big corpus)
TIE_BREAKS = ("hf", "minbpe")


@dataclass
class TrainOptions:
    vocab_size: int
    min_frequency: int = 2              # a pair (BPE, WordPiece) or piece must occur this often to be learned
    min_word_count: int = 1             # words (pre-tokens) counted fewer times are dropped before learning
    special_tokens: list[str] = field(default_factory=list)       # unk/bos/eos/pad..., ids 0.. in this order
    user_defined_symbols: list[str] = field(default_factory=list)  # always one token, never split
    reserved_tokens: int = 0            # N extra special tokens named RESERVED_FORMAT, after the specials
    split_digits: bool = False          # every digit its own pre-token
    max_token_length: int | None = None  # in characters (bytes for byte-level BPE); None: no limit
    character_coverage: float = 1.0     # the rarest characters beyond this share of the text become unknown
    byte_fallback: bool = False         # unknown characters as <0xNN> byte tokens (Unigram, char BPE)
    initial_alphabet: list[str] = field(default_factory=list)  # characters always in the vocabulary
    limit_alphabet: int | None = None   # keep at most this many characters (the most frequent)
    collapse_whitespace: bool = False   # runs of white space count as one space
    pad_to_multiple_of: int | None = None  # round the vocabulary up with reserved tokens (64, 128, ...)
    tie_break: str = "hf"               # BPE/WordPiece pairs of equal count: "hf" (BpeTrainer's) or "minbpe"

    def __post_init__(self):
        if self.vocab_size < 1:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "vocab_size must be at least 1, got {value}"), value=self.vocab_size))
        if self.min_frequency < 0:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "min_frequency must be 0 or more, got {value}"), value=self.min_frequency))
        if self.min_word_count < 1:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "min_word_count must be at least 1, got {value}"), value=self.min_word_count))
        if self.reserved_tokens < 0:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "reserved_tokens must be 0 or more, got {value}"), value=self.reserved_tokens))
        if not 0.0 < self.character_coverage <= 1.0:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "character_coverage must be in (0, 1], got {value}"), value=self.character_coverage))
        if self.max_token_length is not None and self.max_token_length < 1:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "max_token_length must be at least 1, got {value}"), value=self.max_token_length))
        if self.limit_alphabet is not None and self.limit_alphabet < 1:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "limit_alphabet must be at least 1, got {value}"), value=self.limit_alphabet))
        if self.pad_to_multiple_of is not None and self.pad_to_multiple_of < 1:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "pad_to_multiple_of must be at least 1, got {value}"), value=self.pad_to_multiple_of))
        if self.tie_break not in TIE_BREAKS:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "tie_break must be one of {choices}, got {value!r}"),
                                      choices=", ".join(TIE_BREAKS), value=self.tie_break))
        dupes = _duplicates(self.special_tokens + self.user_defined_symbols)
        if dupes:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "listed twice among special tokens and user-defined "
                                                             "symbols: {tokens}"), tokens=", ".join(dupes)))

    def reserved_names(self, start: int = 0, count: int | None = None) -> list[str]:
        """Names of reserved tokens start .. start + count - 1 (count: reserved_tokens)."""
        n = self.reserved_tokens if count is None else count
        taken = set(self.special_tokens) | set(self.user_defined_symbols)
        out = []
        k = start
        while len(out) < n:
            name = RESERVED_FORMAT.format(k)
            if name not in taken:
                out.append(name)
            k += 1
        return out

    def fixed_tokens(self) -> list[str]:
        """Special tokens, then reserved tokens: the ids every trainer puts first."""
        return list(self.special_tokens) + self.reserved_names()

    def padding_names(self, vocab_size: int) -> list[str]:
        """The reserved tokens that round `vocab_size` up to pad_to_multiple_of (may be none)."""
        m = self.pad_to_multiple_of
        if not m or vocab_size % m == 0:
            return []
        return self.reserved_names(self.reserved_tokens, m - vocab_size % m)


def _duplicates(items: list[str]) -> list[str]:
    seen: set[str] = set()
    dupes = []
    for s in items:
        if s in seen and s not in dupes:
            dupes.append(s)
        seen.add(s)
    return dupes


def check_cancel(cancel: CancelCheck | None) -> None:
    """Raise Cancelled when the caller asked to stop."""
    if cancel is not None and cancel():
        raise Cancelled("training cancelled")


def read_corpus(paths: Iterable[str | os.PathLike], *, chunk_chars: int = 1 << 20) -> Iterator[str]:
    """The text of each file in pieces of about `chunk_chars` characters, cut after a newline (or
    white space) when one is near, so that no word is split; bounded memory for any file size.
    A file that is not UTF-8 text raises TokvizError naming it."""
    for p in paths:
        path = Path(p)
        with open_regular_text(path, "a training file") as fh:
            head = fh.buffer.peek(4)[:4]
            carry = ""
            while True:
                try:
                    block = fh.read(chunk_chars)
                except UnicodeDecodeError as exc:
                    encoding = unicode_bom(head)
                    if encoding is not None:
                        raise TokvizError(other_unicode_message(encoding), path) from None
                    raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "not UTF-8 text (byte {at} of a block is "
                                                                         "invalid)"), at=exc.start), path) from None
                if not block:
                    break
                text = carry + block
                cut = text.rfind("\n") + 1  # after a newline; else before a space (pre-tokenizers
                if cut == 0:                  # attach a space to the word after it)
                    cut = max(text.rfind(" "), text.rfind("\t"), 0)
                if cut == 0:
                    carry = ""
                else:
                    carry, text = text[cut:], text[:cut]
                if text:
                    yield text
            if carry:
                yield carry


def corpus_texts(corpus: Iterable[str | os.PathLike]) -> Iterator[str]:
    """The text of a corpus given as paths and/or texts: a path (os.PathLike, or a str naming an
    existing file) is streamed with read_corpus; any other str is text."""
    for item in corpus:
        if isinstance(item, os.PathLike) or (isinstance(item, str) and "\n" not in item and 0 < len(item) < 4096
                                              and os.path.isfile(item)):
            yield from read_corpus([item])
        elif isinstance(item, str):
            yield item
        else:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "a corpus item must be a path or a text, got {kind}"),
                                      kind=type(item).__name__))
