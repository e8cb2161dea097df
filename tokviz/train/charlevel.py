"""What the character-level trainers (BPE with </w>, WordPiece) share: choosing the alphabet,
learning merges over spelled symbols, and laying out the vocabulary.

    >>> a = choose_alphabet(["low", "new"], [5, 6], TrainOptions(vocab_size=100))
    >>> a.chars, a.complete
    (['e', 'l', 'n', 'o', 'w'], True)
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.added import AddedToken
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from . import bpe_core
from .options import CancelCheck, Progress, TrainOptions, merge_message


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


@dataclass
class SpelledCorpus:
    """The words of a character-level trainer spelled as symbol ids, ready for learn_spelled_merges,
    with the tokens the vocabulary puts around the learned ones."""

    fixed: list[str]                  # special and reserved tokens (the unknown token among them), ids 0..
    unk: str                          # the unknown token
    spell: list[str]                  # the text of each initial symbol
    word_symbols: list[list[int]]     # each word (or run of known characters) as symbol ids
    word_counts: list[int]
    lengths: list[int]                # each symbol's length for max_token_length
    room: int                         # merges that fit in vocab_size
    before_spell: list[str] = field(default_factory=list)  # tokens between the fixed ones and the symbols (bytes)


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


def merge_budget(options: TrainOptions, taken: int) -> int:
    """How many merges fit in vocab_size once `taken` tokens (fixed tokens, user-defined symbols,
    byte tokens, the alphabet) are in; a TokvizError when they alone do not fit."""
    room = options.vocab_size - taken
    if room < 0:
        raise TokvizError(Message(
            QT_TRANSLATE_NOOP("train", "vocab_size {size} is smaller than the {taken} tokens every vocabulary needs "
                                       "here (special and reserved tokens, user-defined symbols, the alphabet)"),
            size=options.vocab_size, taken=taken))
    return room


def learn_spelled_merges(
    word_symbols: list[list[int]],
    word_counts: list[int],
    spell: list[str],
    room: int,
    *,
    mode: str,
    join: Callable[[str, str], str],
    options: TrainOptions,
    lengths: list[int],
    progress: Progress | None,
    cancel: CancelCheck | None,
    start: float,
    observe: Callable[[bpe_core.MergeState], None] | None = None,
) -> tuple[list, list[str]]:
    """bpe_core.learn_merges over symbols spelled `spell`; returns the merges and the spelling of
    each new symbol (`join(left, right)`), reporting "merge k: 'a' + 'b' (count)" as it goes.
    `observe(state, spell_of)`: bpe_core.learn_merges' hook, with spell_of(symbol id) -> its text."""
    merged_spell: list[str] = []

    def spell_of(i: int) -> str:
        return spell[i] if i < len(spell) else merged_spell[i - len(spell)]

    def on_merge(fraction, done, pair, count):
        a, b = spell_of(pair[0]), spell_of(pair[1])
        if observe is None:  # (else on_state spells the new symbols)
            merged_spell.append(join(a, b))
        progress(start + (0.95 - start) * fraction, merge_message(done, a, b, count))

    def on_state(state):
        if state.pair is not None:  # (every merge here makes a new symbol, spelled before it is shown)
            merged_spell.append(join(spell_of(state.pair[0]), spell_of(state.pair[1])))
        observe(state, spell_of)

    if progress is not None:
        progress(start, QT_TRANSLATE_NOOP("train", "learning merges"))
    merges = bpe_core.learn_merges(
        word_symbols, word_counts, len(spell), room, mode=mode, min_frequency=options.min_frequency,
        max_token_length=options.max_token_length, lengths=lengths, cancel=cancel,
        progress=None if progress is None else on_merge, progress_every=1, tie_break=options.tie_break,
        observe=None if observe is None else on_state,
    )
    if progress is None and observe is None:
        for m in merges:
            merged_spell.append(join(spell_of(m.left), spell_of(m.right)))
    return merges, merged_spell


def assemble_vocab(fixed: list[str], tokens: list[str], options: TrainOptions) -> tuple[dict[str, int], list[AddedToken]]:
    """Ids in order: `fixed` (special and reserved tokens, as special added tokens), `tokens`, the
    user-defined symbols (non-special added tokens), then the reserved tokens that pad to
    pad_to_multiple_of."""
    vocab: dict[str, int] = {}
    for token in fixed + tokens:
        vocab.setdefault(token, len(vocab))
    added = [AddedToken(t, vocab[t], special=True) for t in fixed]
    for s in options.user_defined_symbols:
        if s not in vocab:
            vocab[s] = len(vocab)
        added.append(AddedToken(s, vocab[s], special=False))
    for name in options.padding_names(len(vocab)):
        vocab[name] = len(vocab)
        added.append(AddedToken(name, vocab[name], special=True))
    return vocab, added
