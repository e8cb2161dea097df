"""The characters a character-level trainer (BPE, WordPiece) keeps as its base symbols.

    >>> a = choose_alphabet(["low", "new"], [5, 6], TrainOptions(vocab_size=100))
    >>> a.chars, a.complete
    (['e', 'l', 'n', 'o', 'w'], True)
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .options import TrainOptions


@dataclass
class Alphabet:
    chars: list[str]  # sorted by code point
    complete: bool    # every character of the corpus is kept

    def __post_init__(self):
        self._known = frozenset(self.chars)

    def known_runs(self, word: str) -> list[tuple[str, bool]]:
        """The runs of kept characters in `word`, each with whether it ends the word (a dropped
        character splits the word: no learned token may span it)."""
        if self.complete or all(c in self._known for c in word):
            return [(word, True)]
        runs = []
        start = None
        for i, c in enumerate(word):
            if c in self._known:
                if start is None:
                    start = i
            elif start is not None:
                runs.append((word[start:i], False))
                start = None
        if start is not None:
            runs.append((word[start:], True))
        return runs


def choose_alphabet(words: list[str], counts: list[int], options: TrainOptions) -> Alphabet:
    """The characters of `words` (weighted by `counts`) that cover `character_coverage` of all
    character occurrences, at most `limit_alphabet` of them (the most frequent; ties: first seen),
    plus `initial_alphabet`."""
    freq: Counter = Counter()
    for word, count in zip(words, counts):
        for c in word:
            freq[c] += count
    ranked = sorted(freq, key=lambda c: -freq[c])  # stable: ties keep first-seen order
    keep = len(ranked)
    if options.character_coverage < 1.0:
        total = sum(freq.values())
        covered = 0
        for k, c in enumerate(ranked):
            if covered >= options.character_coverage * total:
                keep = k
                break
            covered += freq[c]
    if options.limit_alphabet is not None:
        keep = min(keep, options.limit_alphabet)
    chars = set(ranked[:keep])
    complete = keep == len(ranked)
    chars.update(c for c in options.initial_alphabet if len(c) == 1)
    return Alphabet(sorted(chars), complete)


def unk_token_for(tokens: list[str], options: TrainOptions, *, alphabet_complete: bool, default: str = "<unk>") -> str:
    """The unknown token: a given special token whose name says unk, else `default` (added by the
    caller): text met later may hold characters the training text did not."""
    for t in tokens:
        if "unk" in t.lower():
            return t
    return default
