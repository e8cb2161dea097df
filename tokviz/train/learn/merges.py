"""Learn for the merge trainers (char BPE, byte-level BPE, WordPiece): one step per merge.

Each step is what bpe_core.learn_merges saw before the merge (its `observe` hook), spelled out:

    >>> run = learn_merges("bpe", ["low", "lowest", "new", "widest"], [5, 2, 6, 3], TrainOptions(vocab_size=1000))
    >>> step = run.steps[0]
    >>> step.pair_counts[:3], step.merge, step.delta
    ([('w', '</w>', 11), ('l', 'o', 7), ('o', 'w', 7)], ('w', '</w>'), 0)

(`delta` 0: 'w</w>' is new, and '</w>' no longer occurs on its own.)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

from ...core.tokenizer import Tokenizer
from ...errors import TokvizError
from ...messages import QT_TRANSLATE_NOOP, Message
from .. import bpe_core
from ..options import CancelCheck, TrainOptions
from .run import LearnRun

#: the tie rules of TrainOptions.tie_break, as a learner reads them
TIE_RULES = {
    "hf": QT_TRANSLATE_NOOP("learn", "ties go to the pair of the lowest token ids (HF tokenizers' BpeTrainer)"),
    "minbpe": QT_TRANSLATE_NOOP("learn", "ties go to the pair that occurs first in the corpus as it stands (minbpe)"),
}


@dataclass
class MergeStep:
    """One merge, with the tables a textbook shows before it is made."""

    number: int                                 # 1-based
    words: list[tuple[list[str], int]]          # the corpus before the merge: each word's symbols, its count
    pair_counts: list[tuple[str, str, int]]     # every pair that may be merged, best first (score, then tie rule)
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

    @property
    def delta(self) -> int:
        """+1, 0 or -1: how the symbols in use change (the new one in, the parts that are gone out)."""
        return self.symbols_after - self.symbols_before


def score_of(entry: tuple[str, str, int, int, int]) -> Fraction:
    """A WordPiece score count(ab) / (count(a) * count(b)), exactly."""
    return Fraction(entry[2], entry[3] * entry[4])


@dataclass
class MergeRun(LearnRun):
    @property
    def merges(self) -> list[tuple[str, str]]:
        return [s.merge for s in self.steps]

    def _build_at(self, step: int) -> Tokenizer:
        if self.model == "bytelevel-bpe":
            from ..bytelevel import _build

            return _build(self.options, *self._bytelevel_parts, self._merges_made[:step], self.model_options["pattern"])
        # every merge of these trainers makes a new symbol: the vocabulary `step` tokens smaller
        # stops the same trainer after `step` merges
        smaller = dataclasses.replace(self.options, vocab_size=self.tokenizer.vocab_size - len(self.steps) + step,
                                      pad_to_multiple_of=None)
        return _train(self.model, self.words, self.counts, smaller, self.model_options)[0]

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
    tokenizer, recorder = _train(model, words, counts, options, model_options, cancel=cancel)
    run = MergeRun(model, list(words), list(counts), options, model_options, recorder.steps, recorder.stop, tokenizer)
    base = tokenizer.vocab_size - recorder.new_symbols
    for s in run.steps:
        s.vocab_size += base
    if model == "bytelevel-bpe":
        regex, _ = bpe_core.resolve_pattern(pattern)
        run._bytelevel_parts = (regex, options.fixed_tokens() + list(options.user_defined_symbols))
        run._merges_made = recorder.merges
    return run


def _train(model: str, words: list[str], counts: list[int], options: TrainOptions, model_options: dict, *,
           cancel: CancelCheck | None = None):
    """(the trainer's tokenizer, a _Recorder of its steps)."""
    recorder = _Recorder(model, options)
    if model == "bpe":
        from ..charbpe import char_bpe_from_counts

        tokenizer = char_bpe_from_counts(words, counts, options, cancel=cancel, observe=recorder.spelled,
                                         **model_options)
    elif model == "wordpiece":
        from ..wordpiece import wordpiece_from_counts

        tokenizer = wordpiece_from_counts(words, counts, options, cancel=cancel, observe=recorder.spelled)
    else:
        from ...core.bytelevel import BYTE_TO_CHAR
        from ..bytelevel import train_bytelevel_bpe

        spelling = [BYTE_TO_CHAR[b] for b in range(256)]
        pieces = [_unbyte(w) for w in words]

        def count(*_args, **_kwargs):
            return pieces, list(counts)

        def observe(state):
            recorder.spelled(state, lambda i: spelling[i])
            if state.pair is not None and state.merged == len(spelling):
                spelling.append(spelling[state.pair[0]] + spelling[state.pair[1]])

        tokenizer = train_bytelevel_bpe([], options, pattern=model_options["pattern"], cancel=cancel, count=count,
                                        observe=observe)
    return tokenizer, recorder


def _unbyte(word: str) -> bytes:
    """A word spelled in byte-level characters ('Ġlow') back to its bytes."""
    from ...core.bytelevel import CHAR_TO_BYTE

    return bytes(CHAR_TO_BYTE[c] for c in word)


class _Recorder:
    """Turns bpe_core.MergeState (symbol ids) into MergeSteps (strings), and says why training stopped."""

    def __init__(self, model: str, options: TrainOptions):
        self.model = model
        self.options = options
        self.steps: list[MergeStep] = []
        self.merges: list[bpe_core.Merge] = []
        self.new_symbols = 0
        self.stop = ""

    def spelled(self, state: bpe_core.MergeState, spell) -> None:
        words = [([spell(s) for s in syms], n) for syms, n in zip(state.words, state.counts) if syms]
        pairs = [(spell(a), spell(b), c) for a, b, c in state.pair_counts]
        if state.pair is None:
            self.stop = self._stop_reason(state, pairs)
            return
        left, right = state.pair
        joined = self._join(spell(left), spell(right))
        in_use = {s for syms in state.words for s in syms}
        after = _after_merge(state, left, right)
        gone = [spell(s) for s in dict.fromkeys((left, right)) if s not in after]
        self.new_symbols += state.new
        step = MergeStep(
            number=len(self.steps) + 1,
            words=words,
            pair_counts=pairs,
            merge=(spell(left), spell(right)),
            count=next(c for a, b, c in state.pair_counts if (a, b) == state.pair),
            new_symbol=joined,
            new=state.new,
            tied=[(spell(a), spell(b)) for a, b in state.tied],
            symbols_before=len(in_use),
            symbols_after=len(after),
            gone=gone,
            vocab_size=self.new_symbols,  # made absolute by learn_merges once the base is known
        )
        if self.model == "wordpiece":
            sc = state.symbol_counts
            step.scores = sorted(((spell(a), spell(b), c, sc[a], sc[b]) for a, b, c in state.pair_counts),
                                 key=lambda e: -score_of(e))  # stable: the tie rule's order among equals
            top = state.pair_counts[0] if state.pair_counts else None
            most = max(state.pair_counts, key=lambda p: p[2]) if top else None
            if most is not None and (most[0], most[1]) != state.pair:
                step.bpe_pick = (spell(most[0]), spell(most[1]))
        self.steps.append(step)
        self.merges.append(bpe_core.Merge(left, right, state.merged, step.count))

    def _join(self, a: str, b: str) -> str:
        if self.model == "wordpiece" and b.startswith("##"):
            return a + b[2:]
        return a + b

    def _stop_reason(self, state: bpe_core.MergeState, pairs: list[tuple[str, str, int]]) -> Message:
        if not state.pair_counts:
            return Message(QT_TRANSLATE_NOOP("learn", "no pair is left to merge: every word is one symbol"))
        best = max(pairs, key=lambda p: p[2])
        if best[2] < self.options.min_frequency:
            return Message(QT_TRANSLATE_NOOP("learn", "the most frequent pair, {left} + {right}, occurs {count} "
                                                      "times, fewer than min_frequency {min}"),
                           left=best[0], right=best[1], count=best[2], min=self.options.min_frequency)
        return Message(QT_TRANSLATE_NOOP("learn", "the vocabulary is full: {size} tokens"),
                       size=self.options.vocab_size)


def _after_merge(state: bpe_core.MergeState, left: int, right: int) -> set[int]:
    """The distinct symbols of the corpus once (left, right) is merged everywhere."""
    out: set[int] = set()
    for syms in state.words:
        i = 0
        while i < len(syms):
            if i + 1 < len(syms) and syms[i] == left and syms[i + 1] == right:
                out.add(state.merged)
                i += 2
            else:
                out.add(syms[i])
                i += 1
    return out
