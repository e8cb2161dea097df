"""A Learn run: the corpus, the options, every step, why it stopped, and the tokenizer at any step."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from ...core.tokenizer import Tokenizer
from ...errors import TokvizError
from ...messages import QT_TRANSLATE_NOOP, Message
from ..options import CancelCheck, Progress, TrainOptions

MODELS = ("bpe", "bytelevel-bpe", "wordpiece", "unigram")


@dataclass
class LearnRun(ABC):
    """What a trainer did, step by step.  Subclasses (MergeRun, UnigramRun) say what a step is."""

    model: str
    words: list[str]                 # the corpus as the trainer counted it: distinct words ...
    counts: list[int]                # ... and how often each occurs
    options: TrainOptions
    model_options: dict              # what that trainer alone takes (end_of_word, marker, pattern ...)
    steps: list                      # MergeStep or UnigramStep, in order
    stop: str                        # why training stopped (a tokviz.messages Message)
    tokenizer: Tokenizer             # the trained tokenizer, as `tokviz train` makes it
    _at: dict = field(default_factory=dict, repr=False)

    def tokenizer_at(self, step: int) -> Tokenizer:
        """The tokenizer trained up to `step` steps (0: before the first; len(steps): the end)."""
        if not 0 <= step <= len(self.steps):
            raise IndexError(f"step {step} is not in 0..{len(self.steps)}")
        if step == len(self.steps):
            return self.tokenizer
        if step not in self._at:
            self._at.clear()  # one kept: a learner steps back and forth around one place
            self._at[step] = self._build_at(step)
        return self._at[step]

    @abstractmethod
    def _build_at(self, step: int) -> Tokenizer:
        """The tokenizer after `step` steps (0 <= step < len(steps)), assembled as the trainer does."""

    @abstractmethod
    def to_json(self) -> dict:
        """The run as JSON-ready data: {"model", "words", "steps": [...], "stop", ...}."""

    @abstractmethod
    def to_markdown(self, max_steps: int | None = None) -> str:
        """The run's tables as Markdown, the first `max_steps` steps (None: all)."""


def learn(
    model: str,
    words: list[str],
    counts: list[int],
    options: TrainOptions,
    *,
    cancel: CancelCheck | None = None,
    progress: Progress | None = None,
    **model_options,
) -> LearnRun:
    """Train `model` on distinct `words` occurring `counts` times (as counted by that trainer:
    tokviz.train.learn.words), recording every step.  `model_options`: bpe: end_of_word
    ("separate", "glued", "none") and marker; bytelevel-bpe: pattern; wordpiece: none;
    unigram: shrinking_factor, em_iterations, max_piece_length, seed_size.  progress(fraction,
    message) and cancel() as for tokviz.train's trainers."""
    if model not in MODELS:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("learn", "unknown model {model!r} (choose from {choices})"),
                                  model=model, choices=", ".join(MODELS)))
    if len(words) != len(counts):
        raise ValueError("words and counts differ in length")
    if model == "unigram":
        from .unigram import learn_unigram

        return learn_unigram(words, counts, options, cancel=cancel, progress=progress, **model_options)
    from .merges import learn_merges

    return learn_merges(model, words, counts, options, cancel=cancel, progress=progress, **model_options)
