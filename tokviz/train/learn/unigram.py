"""Learn for Unigram: the seeds, every EM step and every pruning round of `train_unigram`.

    >>> run = learn_unigram(["low", "lowest", "new", "widest"], [5, 2, 6, 3], TrainOptions(vocab_size=12))
    >>> [(s.kind, s.round, s.iteration, len(s.pieces)) for s in run.steps][:4]
    [('seed', 0, 0, 26), ('em', 1, 1, 14), ('em', 1, 2, 14), ('prune', 1, 0, 12)]

The steps are recorded by `train_unigram` itself (its `observe` hook, called by `run_rounds`) on the
pure-Python lattice, which gives the results of the C one; the words go in through its `count`
drop-in, so the run's tokenizer is the one `tokviz train` makes of a text holding those words.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass

from ...core.tokenizer import Tokenizer
from ...messages import QT_TRANSLATE_NOOP, Message
from ..options import CancelCheck, Progress, TrainOptions
from ..unigram import RoundEvent, _final_pieces, _fixed_pieces, build_tokenizer, train_unigram
from .run import LearnRun

#: rows of each Markdown table (the rest is counted in a line below it)
TABLE_ROWS = 30


@dataclass
class UnigramStep:
    """One step of Unigram training: the seeds, an EM step, or a pruning round."""

    number: int                     # 1-based
    kind: str                       # "seed" | "em" | "prune"
    round: int                      # the pruning round it belongs to (1-based; 0 for the seeds)
    iteration: int                  # em: the EM step within the round (1-based), else 0
    pieces: list[tuple[str, float]]  # the vocabulary after the step, best first: piece, log probability
    objective: float | None         # em: the objective the trainer reports
    expected: list[tuple[str, float]]  # em: the expected count of each piece, most first
    removed: list[str]              # em: the pieces expected fewer than 0.5 times; prune: those pruned
    losses: list[tuple[str, float]]  # prune: the likelihood lost without each candidate, in the order they go
    segmentations: list[tuple[str, int, list[str]]]  # each word ('▁low'), its count, its best pieces after the step

    def to_json(self) -> dict:
        return {
            "number": self.number, "kind": self.kind, "round": self.round, "iteration": self.iteration,
            "pieces": [[p, s] for p, s in self.pieces], "objective": self.objective,
            "expected": [[p, x] for p, x in self.expected], "removed": list(self.removed),
            "losses": [[p, x] for p, x in self.losses],
            "segmentations": [[w, c, list(ps)] for w, c, ps in self.segmentations],
        }


@dataclass
class UnigramRun(LearnRun):
    """A Unigram Learn run: `steps` are UnigramSteps; `alphabet` the characters the trainer kept."""

    alphabet: list[str] | None = None

    def _build_at(self, step: int) -> Tokenizer:
        """The tokenizer of every piece after `step` (0 and 1: the seeds), built as the trainer
        builds its own (uncut: the final step's cut to vocab_size is `tokenizer`)."""
        pieces = self.steps[max(step, 1) - 1].pieces
        index = {c: i for i, c in enumerate(self.alphabet)}
        learned = _final_pieces([(tuple(index[c] for c in p), s) for p, s in pieces], self.alphabet, len(pieces))
        fixed, unk_id = _fixed_pieces(self.options)
        return build_tokenizer(fixed, unk_id, learned, self.options)

    def to_json(self) -> dict:
        return {
            "model": "unigram",
            "words": [[w, c] for w, c in zip(self.words, self.counts)],
            "options": asdict(self.options),
            "model_options": dict(self.model_options),
            "steps": [s.to_json() for s in self.steps],
            "pieces": [[p, s] for p, s in self.tokenizer.model.pieces],
            "stop": str(self.stop),
        }

    def to_markdown(self, max_steps: int | None = None) -> str:
        """The run's tables in Markdown: the words, then a heading and tables per step."""
        out = [f"# {QT_TRANSLATE_NOOP('learn', 'Unigram, step by step')}", ""]
        out += _table([QT_TRANSLATE_NOOP("learn", "word"), QT_TRANSLATE_NOOP("learn", "count")],
                      [[w, str(c)] for w, c in zip(self.words, self.counts)])
        shown = self.steps if max_steps is None else self.steps[:max_steps]
        for step in shown:
            out += _step_markdown(step)
        if len(shown) < len(self.steps):
            out += [str(Message(QT_TRANSLATE_NOOP("learn", "… {n} more steps"),
                                n=len(self.steps) - len(shown))), ""]
        out += [f"**{QT_TRANSLATE_NOOP('learn', 'Stop')}**: {self.stop}", ""]
        return "\n".join(out)


def learn_unigram(
    words: list[str],
    counts: list[int],
    options: TrainOptions,
    *,
    cancel: CancelCheck | None = None,
    progress: Progress | None = None,
    shrinking_factor: float = 0.75,
    em_iterations: int = 2,
    max_piece_length: int = 16,
    seed_size: int = 1_000_000,
) -> UnigramRun:
    """Train Unigram on distinct `words` (without their leading '▁', as `count_words` counts them)
    occurring `counts` times, recording every step.  The keywords are train_unigram's."""
    kept = [(w, c) for w, c in zip(words, counts) if c >= options.min_word_count]
    steps: list[UnigramStep] = []
    seen: dict = {}

    def count(corpus, options_, progress, cancel_):
        return Counter(dict(kept))

    def observe(event: RoundEvent) -> None:
        seen["event"] = event
        steps.append(_step(len(steps) + 1, event))

    tokenizer = train_unigram(
        [], options, cancel=cancel, progress=progress, native=False, count=count, observe=observe, threads=1,
        shrinking_factor=shrinking_factor, em_iterations=em_iterations, max_piece_length=max_piece_length,
        seed_size=seed_size,
    )
    last: RoundEvent = seen["event"]
    return UnigramRun(
        model="unigram",
        words=[w for w, _ in kept],
        counts=[c for _, c in kept],
        options=options,
        model_options={"shrinking_factor": shrinking_factor, "em_iterations": em_iterations,
                       "max_piece_length": max_piece_length, "seed_size": seed_size},
        steps=steps,
        stop=_stop_message(last, options),
        tokenizer=tokenizer,
        alphabet=list(last.alphabet),
    )


def _step(number: int, event: RoundEvent) -> UnigramStep:
    lattice, alphabet = event.lattice, event.alphabet

    def text(piece) -> str:
        return "".join(alphabet[c] for c in piece)

    pieces = sorted(((text(p), s) for p, s in lattice.pieces()), key=lambda ps: (-ps[1], ps[0]))
    expected, removed, losses = [], [], []
    if event.kind == "em":
        expected = sorted(((text(p), x) for p, x in lattice.last_expected()), key=lambda px: (-px[1], px[0]))
        removed = [text(p) for p in lattice.last_removed()]
    elif event.kind == "prune":
        removed = [text(p) for p in lattice.last_removed()]
        losses = [(text(p), x) for p, x in lattice.last_losses()]
    names = [text(p) for p, _ in lattice.pieces()]
    segmentations = [(text(word), int(f), [names[i] for i in path])
                     for word, f, path in zip(lattice.words, lattice.freqs, lattice.segment())]
    return UnigramStep(number, event.kind, event.round, event.iteration, pieces, event.objective,
                       expected, removed, losses, segmentations)


def _stop_message(last: RoundEvent, options: TrainOptions) -> Message:
    budget = options.vocab_size - len(_fixed_pieces(options)[0])
    if last.n <= budget:
        return Message(QT_TRANSLATE_NOOP("learn", "the vocabulary fits: {n} pieces, at most {desired} wanted "
                                                  "(vocab_size leaves room for {budget})"),
                       n=last.n, desired=last.desired, budget=budget)
    return Message(QT_TRANSLATE_NOOP("learn", "the vocabulary fits: {n} pieces, at most {desired} wanted "
                                              "(vocab_size leaves room for {budget}); the {budget} best-scoring make "
                                              "the vocabulary"),
                   n=last.n, desired=last.desired, budget=budget)


# ---- Markdown ----------------------------------------------------------------------------------

def _step_markdown(step: UnigramStep) -> list[str]:
    if step.kind == "seed":
        title = Message(QT_TRANSLATE_NOOP("learn", "Step {number}: seed pieces"), number=step.number)
    elif step.kind == "em":
        title = Message(QT_TRANSLATE_NOOP("learn", "Step {number}: round {round}, EM step {iteration}"),
                        number=step.number, round=step.round, iteration=step.iteration)
    else:
        title = Message(QT_TRANSLATE_NOOP("learn", "Step {number}: round {round}, pruning"),
                        number=step.number, round=step.round)
    out = [f"## {title}", ""]
    if step.objective is not None:
        out += [str(Message(QT_TRANSLATE_NOOP("learn", "Objective: {objective:.6g}"), objective=step.objective)), ""]
    if step.kind == "em":
        out += _table([QT_TRANSLATE_NOOP("learn", "piece"), QT_TRANSLATE_NOOP("learn", "expected count")],
                      [[_cell(p), f"{x:.4f}"] for p, x in step.expected])
    if step.kind == "prune":
        out += _table([QT_TRANSLATE_NOOP("learn", "piece"), QT_TRANSLATE_NOOP("learn", "loss")],
                      [[_cell(p), f"{x:.6g}"] for p, x in step.losses])
    if step.removed:
        template = (QT_TRANSLATE_NOOP("learn", "Removed (expected fewer than 0.5 times): {pieces}") if step.kind == "em"
                    else QT_TRANSLATE_NOOP("learn", "Removed: {pieces}"))
        out += [str(Message(template, pieces=" ".join(_cell(p) for p in step.removed))), ""]
    out += [str(Message(QT_TRANSLATE_NOOP("learn", "Vocabulary: {n} pieces"), n=len(step.pieces))), ""]
    out += _table([QT_TRANSLATE_NOOP("learn", "piece"), QT_TRANSLATE_NOOP("learn", "log probability"),
                   QT_TRANSLATE_NOOP("learn", "probability")],
                  [[_cell(p), f"{s:.4f}", f"{math.exp(s):.4f}"] for p, s in step.pieces])
    out += _table([QT_TRANSLATE_NOOP("learn", "word"), QT_TRANSLATE_NOOP("learn", "count"),
                   QT_TRANSLATE_NOOP("learn", "best segmentation")],
                  [[_cell(w), str(c), " ".join(_cell(p) for p in ps)] for w, c, ps in step.segmentations])
    return out


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows[:TABLE_ROWS]]
    if len(rows) > TABLE_ROWS:
        out += ["", str(Message(QT_TRANSLATE_NOOP("learn", "… and {n} more rows"), n=len(rows) - TABLE_ROWS))]
    return out + [""]


def _cell(text: str) -> str:
    """`text` for a Markdown table cell: '|' escaped, control characters and white space as escapes."""
    return "".join("\\|" if c == "|" else (c if c.isprintable() else repr(c)[1:-1]) for c in text) or "∅"
