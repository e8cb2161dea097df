"""The small corpora Learn steps through: a word-count list or a text, counted as each trainer
counts its corpus.

    >>> parse_word_counts("low:5 lowest:2 new:6 widest:3")
    (['low', 'lowest', 'new', 'widest'], [5, 2, 6, 3])
    >>> parse_word_counts('{"low": 5, "lowest": 2}')        # the textbooks' dictionary
    (['low', 'lowest'], [5, 2])
"""
from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable

from ...errors import TokvizError
from ...messages import QT_TRANSLATE_NOOP, Message
from ..options import TrainOptions

#: Learn keeps every table of every step: beyond this many distinct words, `tokviz train` is the tool
MAX_WORDS = 2000
#: the vocabulary of a merge model's run unless told: big enough that training stops when no pair
#: is frequent enough (the textbooks' stop), not when the vocabulary is full
MERGE_VOCAB_SIZE = 100_000


def default_vocab_size(model: str, words: list[str]) -> int:
    """A merge model: MERGE_VOCAB_SIZE.  Unigram: <unk>, the characters and '▁', and one piece per
    two distinct words, so that a small corpus is pruned at least once."""
    if model != "unigram":
        return MERGE_VOCAB_SIZE
    return 1 + len({c for w in words for c in w} | {"\u2581"}) + max(1, len(words) // 2)

_PAIR = re.compile(r"^(?P<word>.+?)\s*[:=]\s*(?P<count>[+-]?\d+)$")
_LINE = re.compile(r"^(?P<word>\S+)\s+(?P<count>[+-]?\d+)$")


def parse_word_counts(text: str) -> tuple[list[str], list[int]]:
    """Words and their counts from `word:count` items (separated by white space or commas), lines of
    `word count`, or a JSON object {"word": count}.  A word listed twice has its counts added; the
    order is that of first appearance.  TokvizError names the first item that is neither."""
    stripped = text.strip()
    items: list[tuple[str, int]] = []
    if stripped.startswith("{"):
        try:
            table = json.loads(stripped)
        except ValueError as exc:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "not a JSON object of word counts: {reason}"),
                                      reason=str(exc))) from None
        for word, count in table.items():
            if not isinstance(count, int) or isinstance(count, bool):
                raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "the count of {word!r} is not a whole number: "
                                                                     "{count!r}"), word=word, count=count))
            items.append((word, count))
    else:
        for line in stripped.splitlines():
            line = line.strip()
            if not line:
                continue
            m = _LINE.match(line)
            if m and ":" not in line and "=" not in line:
                items.append((m["word"], int(m["count"])))
                continue
            for item in re.split(r"[\s,]+", line):
                if not item:
                    continue
                m = _PAIR.match(item)
                if m is None:
                    raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "{item!r} is not word:count (for example "
                                                                         "low:5)"), item=item))
                items.append((m["word"], int(m["count"])))
    totals: dict[str, int] = {}
    for word, count in items:
        if count < 1:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "the count of {word!r} must be at least 1, not "
                                                                 "{count}"), word=word, count=count))
        totals[word] = totals.get(word, 0) + count
    if not totals:
        raise TokvizError(QT_TRANSLATE_NOOP("learn", "no words given"))
    return list(totals), list(totals.values())


#: texts -> (words, counts): a trainer's own counting (see `counter_for`)
Counter = Callable[[list[str]], tuple[list[str], list[int]]]


def counter_for(model: str, options: TrainOptions, *, pattern: str | None = None) -> Counter:
    """The way `model`'s trainer counts the words of its corpus: char BPE and WordPiece cut words
    at white space and punctuation (WordPiece lower-cases and strips accents first), byte-level BPE
    cuts by its split pattern and spells each word as bytes, Unigram cuts before each space."""
    from .. import bpe_core

    if model == "bpe":
        from ..charbpe import WORD_PATTERN

        def count(texts):
            pieces, counts = bpe_core.count_corpus(list(texts), WORD_PATTERN, split_digits=options.split_digits,
                                                   files=False, dialect="rust")
            return [p.decode("utf-8") for p in pieces], counts
    elif model == "wordpiece":
        from ...core.bert_fast import bert_word_pattern
        from ..wordpiece import BertText

        def count(texts):
            pieces, counts = bpe_core.count_corpus(list(texts), bert_word_pattern()[0].pattern, files=False,
                                                   split_digits=options.split_digits, normalize=BertText(True))
            return [p.decode("utf-8") for p in pieces], counts
    elif model == "bytelevel-bpe":
        from ...core.bytelevel import bytes_to_unicode
        from ..bytelevel import _dialect

        regex, _ = bpe_core.resolve_pattern(pattern or "gpt2")

        def count(texts):
            pieces, counts = bpe_core.count_corpus(list(texts), regex, split_digits=options.split_digits, files=False,
                                                   dialect=_dialect(pattern or "gpt2"))
            return [bytes_to_unicode(p) for p in pieces], counts
    elif model == "unigram":
        from ..unigram import count_words

        every = dataclasses.replace(options, min_word_count=1)  # (pruned once the counts are whole)

        def count(texts):
            words = count_words(list(texts), every)
            return list(words), list(words.values())
    else:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "unknown model {model!r}"), model=model))
    return count


def count_text(model: str, text: str, options: TrainOptions, *, pattern: str | None = None) -> tuple[list[str], list[int]]:
    """The words of `text` and their counts, as `model`'s trainer counts them (`counter_for`)."""
    words, counts = counter_for(model, options, pattern=pattern)([text])
    return check_size(*prune(words, counts, options))


def count_listed_words(model: str, words: list[str], counts: list[int], options: TrainOptions, *,
                       pattern: str | None = None) -> tuple[list[str], list[int]]:
    """A word-count list as `model`'s trainer would count a text holding each word `count` times:
    each word goes through its counting (lower-cased for WordPiece, cut at punctuation ...)."""
    count = counter_for(model, options, pattern=pattern)
    totals: dict[str, int] = {}
    for word, n in zip(words, counts):
        for piece, k in zip(*count([word])):
            totals[piece] = totals.get(piece, 0) + k * n
    return check_size(*prune(list(totals), list(totals.values()), options))


def prune(words: list[str], counts: list[int], options: TrainOptions) -> tuple[list[str], list[int]]:
    """The words counted options.min_word_count times or more, as the trainers prune their counts."""
    kept = [(w, n) for w, n in zip(words, counts) if n >= options.min_word_count]
    return [w for w, _ in kept], [n for _, n in kept]


def check_size(words: list[str], counts: list[int]) -> tuple[list[str], list[int]]:
    if not words:
        raise TokvizError(QT_TRANSLATE_NOOP("learn", "the corpus has no words"))
    if len(words) > MAX_WORDS:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "{n} distinct words: Learn steps through corpora of up to "
                                                             "{limit} (every step keeps its tables); train bigger "
                                                             "corpora with Train"), n=len(words), limit=MAX_WORDS))
    return words, counts
