"""Learn for the merge trainers (char BPE, byte-level BPE, WordPiece): one step per merge.

Each step is what bpe_core.learn_merges saw before the merge (its `observe` hook), spelled out:

    >>> run = learn_merges("bpe", ["low", "lowest", "new", "widest"], [5, 2, 6, 3], TrainOptions(vocab_size=1000))
    >>> step = run.steps[0]
    >>> step.pair_counts[:3], step.merge, step.delta
    ([('w', '</w>', 11), ('l', 'o', 7), ('o', 'w', 7)], ('w', '</w>'), 1)

(`delta` +1: 'w</w>' is new, and 'w' and '</w>' still occur elsewhere.)
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from ...core.tokenizer import Tokenizer
from ...errors import TokvizError
from ...messages import QT_TRANSLATE_NOOP, Message
from .. import bpe_core
from ..options import CancelCheck, Progress, TrainOptions
from .run import LearnRun

#: the tie rules of TrainOptions.tie_break, as a learner reads them
TIE_RULES = {
    "hf": QT_TRANSLATE_NOOP("learn", "ties go to the pair of the lowest token ids (HF tokenizers' BpeTrainer)"),
    "minbpe": QT_TRANSLATE_NOOP("learn", "ties go to the pair that occurs first in the corpus as it stands (minbpe)"),
}


#: a step keeps this many pairs of its table, the best (`pairs_total` says how many there were)
PAIR_ROWS = 500


@dataclass
class MergeStep:
    """One merge, with the tables a textbook shows before it is made."""

    number: int                                 # 1-based
    pair_counts: list[tuple[str, str, int]]     # the pairs that may be merged, best first (score, then tie rule)
    pairs_total: int                            # how many pairs there are (pair_counts keeps PAIR_ROWS)
    merge: tuple[str, str]                      # the pair merged
    count: int                                  # how often it occurs
    new_symbol: str                             # what the merge makes
    new: bool                                   # False: that spelling was already a token (byte-level BPE)
    tied: list[tuple[str, str]]                 # the other pairs of the same score, which the tie rule passed over
    symbols_before: int                         # distinct symbols in the corpus before the merge ...
    symbols_after: int                          # ... and after it
    gone: list[str]                             # the merged pair's parts that no longer occur on their own
    vocab_size: int                             # tokens in the trained vocabulary after this merge
    scores: list[tuple[str, str, int, int, int]] | None = None  # WordPiece: (a, b, count(ab), count(a), count(b)), best first
    bpe_pick: tuple[str, str] | None = None     # WordPiece: the most frequent pair, which BPE would merge
    history: _History | None = field(default=None, repr=False, compare=False)

    @property
    def words(self) -> list[tuple[list[str], int]]:
        """The corpus before the merge: each word's symbols and its count."""
        return self.history.words_before(self.number - 1)

    @property
    def delta(self) -> int:
        """+1, 0 or -1: how the symbols in use change (the new one in, the parts that are gone out)."""
        return self.symbols_after - self.symbols_before


class _History:
    """The corpus before every merge, kept as the words each merge rewrote, with a full copy every
    SNAPSHOT merges (a step's corpus is then at most SNAPSHOT rewrites away)."""

    SNAPSHOT = 64

    def __init__(self, words: list[list[str]], counts: list[int]):
        self.counts = counts
        self.current = [list(w) for w in words]
        self.snapshots = {0: [list(w) for w in words]}
        self.rewrites: list[list[tuple[int, list[str]]]] = []

    def add(self, rewritten: list[tuple[int, list[str]]]) -> None:
        """One merge's rewritten words: (index, its symbols after the merge)."""
        for i, symbols in rewritten:
            self.current[i] = symbols
        self.rewrites.append(rewritten)
        if len(self.rewrites) % self.SNAPSHOT == 0:
            self.snapshots[len(self.rewrites)] = [list(w) for w in self.current]

    def words_before(self, merges: int) -> list[tuple[list[str], int]]:
        """The corpus once `merges` merges are made."""
        base = merges - merges % self.SNAPSHOT
        words = list(self.snapshots[base])
        for rewritten in self.rewrites[base:merges]:
            for i, symbols in rewritten:
                words[i] = symbols
        return [(list(w), n) for w, n in zip(words, self.counts)]


def score_of(entry: tuple[str, str, int, int, int]) -> Fraction:
    """A WordPiece score count(ab) / (count(a) * count(b)), exactly."""
    return Fraction(entry[2], entry[3] * entry[4])


@dataclass
class MergeRun(LearnRun):
    _merges_made: list = field(default_factory=list, repr=False)  # the merges as the trainer made them (ids)

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [s.merge for s in self.steps]

    def _build_at(self, step: int) -> Tokenizer:
        """The trainer's own tokenizer assembly, given the first `step` merges."""
        made = self._merges_made[:step]
        if self.model == "bytelevel-bpe":
            from ..bytelevel import _build

            regex, _ = bpe_core.resolve_pattern(self.model_options["pattern"])
            fixed = self.options.fixed_tokens() + list(self.options.user_defined_symbols)
            return _build(self.options, regex, fixed, made, self.model_options["pattern"])
        spelled = [s.new_symbol for s in self.steps[:step]]
        if self.model == "bpe":
            from ..charbpe import char_bpe_tokenizer, spell_words

            corpus = spell_words(self.words, self.counts, self.options, **self.model_options)
            return char_bpe_tokenizer(corpus, made, spelled, self.options, **self.model_options)
        from ..wordpiece import spell_words, wordpiece_tokenizer

        corpus = spell_words(self.words, self.counts, self.options)
        return wordpiece_tokenizer(corpus, made, spelled, self.options)

    def to_json(self) -> dict:
        steps = []
        for s in self.steps:
            item = {
                "merge": list(s.merge),
                "count": s.count,
                "new_symbol": s.new_symbol,
                "tied": [list(p) for p in s.tied],
                "pair_counts": [list(p) for p in s.pair_counts],
                "words": [[symbols, n] for symbols, n in s.words],
                "symbols_before": s.symbols_before,
                "symbols_after": s.symbols_after,
                "delta": s.delta,
                "gone": s.gone,
                "vocab_size": s.vocab_size,
            }
            if s.scores is not None:
                item["scores"] = [[a, b, ab, ca, cb, float(score_of(e))] for e in s.scores for a, b, ab, ca, cb in [e]]
                item["bpe_pick"] = list(s.bpe_pick) if s.bpe_pick else None
            steps.append(item)
        return {
            "model": self.model,
            "words": [[w, c] for w, c in zip(self.words, self.counts)],
            "options": _options_json(self.options, self.model_options),
            "tie_rule": self.options.tie_break,
            "steps": steps,
            "merges": [list(m) for m in self.merges],
            "stop": str(self.stop),
            "vocab_size": self.tokenizer.vocab_size,
        }

    def to_markdown(self, max_steps: int | None = None) -> str:
        from .markdown import merge_run_markdown

        return merge_run_markdown(self, max_steps)


def _options_json(options: TrainOptions, model_options: dict) -> dict:
    return {"vocab_size": options.vocab_size, "min_frequency": options.min_frequency,
            "tie_break": options.tie_break, **{k: v for k, v in model_options.items() if v is not None}}


def learn_merges(
    model: str,
    words: list[str],
    counts: list[int],
    options: TrainOptions,
    *,
    cancel: CancelCheck | None = None,
    progress: Progress | None = None,
    end_of_word: str = "separate",
    marker: str = "</w>",
    pattern: str = "gpt2",
) -> MergeRun:
    """Train `model` ("bpe", "bytelevel-bpe", "wordpiece") on the counted `words`, one MergeStep
    per merge.  end_of_word / marker: bpe only; pattern: bytelevel-bpe only."""
    if model == "bpe":
        model_options = {"end_of_word": end_of_word, "marker": marker}
    elif model == "bytelevel-bpe":
        model_options = {"pattern": pattern}
    elif model == "wordpiece":
        model_options = {}
    else:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "unknown model {model!r}"), model=model))
    options = dataclasses.replace(options, pad_to_multiple_of=None)  # the vocabulary as learned
    recorder = _Recorder(model, options)
    report = None
    if progress is not None:
        # the trainer's fraction is of vocab_size, mostly far off here: no word has more merges
        # than symbols - 1, which bounds the run better
        most = max(1, min(options.vocab_size, sum(len(w) for w in words)))

        def report(fraction, message):
            progress(min(1.0, max(fraction, len(recorder.steps) / most)), message)
    tokenizer = _train(model, words, counts, options, model_options, recorder, cancel=cancel, progress=report)
    run = MergeRun(model, list(words), list(counts), options, model_options, recorder.steps, recorder.stop, tokenizer)
    base = tokenizer.vocab_size - recorder.new_symbols
    for s in run.steps:
        s.vocab_size += base
    run._merges_made = recorder.merges
    return run


def _train(model: str, words: list[str], counts: list[int], options: TrainOptions, model_options: dict,
           recorder: _Recorder, *, cancel: CancelCheck | None = None, progress: Progress | None = None) -> Tokenizer:
    """The trainer's tokenizer, its steps told to `recorder`."""
    if model == "bpe":
        from ..charbpe import char_bpe_from_counts

        tokenizer = char_bpe_from_counts(words, counts, options, cancel=cancel, progress=progress,
                                         observe=recorder.spelled, **model_options)
    elif model == "wordpiece":
        from ..wordpiece import wordpiece_from_counts

        tokenizer = wordpiece_from_counts(words, counts, options, cancel=cancel, progress=progress,
                                          observe=recorder.spelled)
    else:
        from ...core.bytelevel import BYTE_TO_CHAR
        from ..bytelevel import train_bytelevel_bpe

        spelling = [BYTE_TO_CHAR[b] for b in range(256)]
        pieces = [_unbyte(w) for w in words]

        def count(*_args, **_kwargs):
            return pieces, list(counts)

        def observe(state):
            if state.pair is not None and state.merged == len(spelling):
                spelling.append(spelling[state.pair[0]] + spelling[state.pair[1]])
            recorder.spelled(state, spelling.__getitem__)

        tokenizer = train_bytelevel_bpe([], options, pattern=model_options["pattern"], cancel=cancel, count=count,
                                        progress=progress, observe=observe)
    return tokenizer


def _unbyte(word: str) -> bytes:
    """A word spelled in byte-level characters ('Ġlow') back to its bytes."""
    from ...core.bytelevel import CHAR_TO_BYTE

    return bytes(CHAR_TO_BYTE[c] for c in word)


class _Recorder:
    """Turns bpe_core.MergeStates (symbol ids, live) into MergeSteps (strings), keeping the corpus as
    it goes, and says why training stopped."""

    def __init__(self, model: str, options: TrainOptions):
        self.model = model
        self.options = options
        self.steps: list[MergeStep] = []
        self.merges: list[bpe_core.Merge] = []
        self.new_symbols = 0
        self.stop = ""
        self.history: _History | None = None
        self.in_use: Counter = Counter()  # symbol id -> its occurrences in the distinct words

    def spelled(self, state: bpe_core.MergeState, spell) -> None:
        if self.history is None:
            self.history = _History([[spell(s) for s in w] for w in state.words], list(state.counts))
            for w in state.words:
                self.in_use.update(w)
        if state.pair is None:
            self.stop = self._stop_reason(state, spell)
            return
        left, right = state.pair
        before = len(self.in_use)
        rewritten = []
        for i in state.changed:
            old = state.words[i]
            new = _merged(old, left, right, state.merged)
            if len(new) != len(old):
                self.in_use.subtract(old)
                self.in_use.update(new)
                rewritten.append((i, [spell(s) for s in new]))
        self.in_use += Counter()  # (drops the symbols counted 0)
        pairs, total = state.pair_counts(PAIR_ROWS)
        self.new_symbols += state.new
        step = MergeStep(
            number=len(self.steps) + 1,
            pair_counts=[(spell(a), spell(b), c) for a, b, c in pairs],
            pairs_total=total,
            merge=(spell(left), spell(right)),
            count=state.count,
            new_symbol=self._join(spell(left), spell(right)),
            new=state.new,
            tied=[(spell(a), spell(b)) for a, b in state.tied],
            symbols_before=before,
            symbols_after=len(self.in_use),
            gone=[spell(s) for s in dict.fromkeys((left, right)) if self.in_use[s] == 0],
            vocab_size=self.new_symbols,  # made absolute by learn_merges once the base is known
            history=self.history,
        )
        if self.model == "wordpiece":
            sc = state.symbol_counts
            step.scores = [(spell(a), spell(b), c, sc[a], sc[b]) for a, b, c in pairs]
            most = state.most_frequent()
            if most is not None and most[0] != state.pair:
                step.bpe_pick = (spell(most[0][0]), spell(most[0][1]))
        self.history.add(rewritten)
        self.steps.append(step)
        self.merges.append(bpe_core.Merge(left, right, state.merged, step.count))

    def _join(self, a: str, b: str) -> str:
        if self.model == "wordpiece" and b.startswith("##"):
            return a + b[2:]
        return a + b

    def _stop_reason(self, state: bpe_core.MergeState, spell) -> Message:
        most = state.most_frequent()
        if most is None:
            return Message(QT_TRANSLATE_NOOP("learn", "no pair is left to merge: every word is one symbol"))
        (left, right), count = most
        if count < self.options.min_frequency:
            return Message(QT_TRANSLATE_NOOP("learn", "the most frequent pair, {left} + {right}, occurs {count} "
                                                      "times, fewer than min_frequency {min}"),
                           left=spell(left), right=spell(right), count=count, min=self.options.min_frequency)
        return Message(QT_TRANSLATE_NOOP("learn", "the vocabulary is full: {size} tokens"),
                       size=self.options.vocab_size)


def _merged(symbols: list[int], left: int, right: int, merged: int) -> list[int]:
    """`symbols` with each (left, right), left to right, made `merged` (as the trainer merges)."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(merged)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out

