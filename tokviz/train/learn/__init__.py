"""Step through training as textbooks do: every table of every step, from the real trainers.

    >>> run = learn("bpe", *parse_word_counts("low:5 lowest:2 new:6 widest:3"), TrainOptions(vocab_size=1000))
    >>> run.steps[0].merge, run.steps[0].count
    (('w', '</w>'), 11)
    >>> run.merges[:3]
    [('w', '</w>'), ('l', 'o'), ('e', 'w</w>')]

The steps are recorded by the trainers of tokviz.train themselves (bpe_core.learn_merges'
`observe` hook, the Unigram trainer's rounds), so a Learn run and `tokviz train` on the same words
and options learn the same merges and pieces.  Learn is meant for small corpora (a word list, a
paragraph, a short file): every step keeps a copy of the corpus and of its tables.

=================  ===========================================================================
model              steps
=================  ===========================================================================
bpe                one merge each (MergeStep): words as symbols, pair counts, ties, the new symbol
bytelevel-bpe      the same over bytes, shown as their byte-level characters (Ġ for a space)
wordpiece          one merge each, with the scores count(ab) / (count(a) count(b))
unigram            seeds, each EM iteration, each pruning round (UnigramStep)
=================  ===========================================================================
"""
from __future__ import annotations

from ..options import TrainOptions
from .run import MODELS, LearnRun, learn
from .words import MAX_WORDS, count_text, parse_word_counts

__all__ = ["MAX_WORDS", "MODELS", "LearnRun", "TrainOptions", "count_text", "learn", "parse_word_counts"]
