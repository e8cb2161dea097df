"""What the Learn view shows of one step: `MergePage` (BPE, byte-level BPE, WordPiece) and
`UnigramPage`.  Each `show(run, position)` fills its tables from the run's recorded steps and
returns (headline, notes): texts in the app's language for the view to put above and below.

Position 0 is the corpus before training; position k (1..n) is step k: for a merge model the
tables as they stand before merge k (the pair about to be merged highlighted, its occurrences in
the words filled), the vocabulary once it is made and the merges so far; for Unigram the
vocabulary after step k (seeds, an EM step or a pruning round), that step's expected counts or
losses, and each word's best (Viterbi) segmentation.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QListWidget, QListWidgetItem, QSplitter, QVBoxLayout, QWidget

from ...messages import QT_TRANSLATE_NOOP, Message  # (templates that know their context: shown translated)
from ...train.learn.markdown import change_sentence
from ...train.learn.merges import TIE_RULES, MergeStep
from ..widgets.messages import show
from .learn_tables import Chips, StepTable, pair_positions, step_table_view

VOCAB_SHOWN = 1000  # the vocabulary list shows at most this many tokens (a byte-level one starts at 256)


def _group(title: str, *widgets: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    lay = QVBoxLayout(box)
    lay.setContentsMargins(4, 4, 4, 4)
    lay.setSpacing(4)
    for w in widgets:
        lay.addWidget(w, 1 if not isinstance(w, QListWidget) else 0)
    return box


def _splitter(*widgets: QWidget) -> QSplitter:
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setChildrenCollapsible(False)
    for w in widgets:
        splitter.addWidget(w)
    return splitter


def stop_note(run) -> str:
    return show(Message(QT_TRANSLATE_NOOP("learn", "Stopped: {reason}."), reason=run.stop))


class MergePage(QWidget):
    """The corpus, the pair counts (WordPiece: the scores), the vocabulary and the merges so far."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.words = StepTable([self.tr("count"), self.tr("symbols")], self)  # (long words scroll, counts stay)
        self.pairs = StepTable([], self)
        self.merges = StepTable([self.tr("#"), self.tr("merge"), self.tr("count"), self.tr("new symbol")], self)
        self.words_view = step_table_view(self.words, "LearnWords")
        self.pairs_view = step_table_view(self.pairs, "LearnPairs")
        self.merges_view = step_table_view(self.merges, "LearnMerges")
        self.vocab = QListWidget()
        self.vocab.setObjectName("LearnVocabulary")
        self.vocab.setFlow(QListWidget.Flow.LeftToRight)
        self.vocab.setWrapping(True)
        self.vocab.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.vocab.setSpacing(2)
        self.vocab.setMaximumHeight(110)
        self.vocab.setMinimumHeight(50)
        self.words_box = _group(self.tr("Corpus: each word's symbols"), self.words_view)
        self.pairs_box = _group(self.tr("Pair counts"), self.pairs_view)
        self.vocab_box = _group(self.tr("Vocabulary"), self.vocab, self.merges_view)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.splitter = _splitter(self.words_box, self.pairs_box, self.vocab_box)
        self.splitter.setSizes([300, 360, 300])
        lay.addWidget(self.splitter)
        self._wordpiece: bool | None = None

    def _set_kind(self, wordpiece: bool) -> None:
        if wordpiece == self._wordpiece:
            return
        self._wordpiece = wordpiece
        self.splitter.setSizes([260, 460, 260] if wordpiece else [300, 360, 300])  # (six columns of scores)
        if wordpiece:
            self.pairs.set_headers([self.tr("pair"), self.tr("count(ab)"), self.tr("count(a)"), self.tr("count(b)"),
                                    self.tr("score"), self.tr("note")])
        else:
            self.pairs.set_headers([self.tr("pair"), self.tr("count"), self.tr("note")])

    def _pairs_title(self, table: MergeStep | None) -> str:
        title = self.tr("Scores: count(ab) / (count(a) · count(b))") if self._wordpiece else self.tr("Pair counts")
        shown = len(table.pair_counts) if table is not None else 0
        total = getattr(table, "pairs_total", shown)  # (a step keeps the best pairs of a long table)
        if total > shown:
            title = self.tr("{title}: the best {shown} of {total}").format(title=title, shown=f"{shown:,}",
                                                                           total=f"{total:,}")
        return title

    def show_step(self, run, position: int) -> tuple[str, list[str]]:
        steps = run.steps
        self._set_kind(run.model == "wordpiece")
        step = steps[position - 1] if position else None
        table = steps[position - 1] if position else (steps[0] if steps else None)
        notes: list[str] = []
        if table is None:
            self.words.clear()
            self.pairs.clear()
        else:
            pair = step.merge if step is not None else None
            self.words.set_rows([[n, Chips(symbols, pair_positions(symbols, pair))] for symbols, n in table.words])
            self._fill_pairs(table, step)
        self.pairs_box.setTitle(self._pairs_title(table))
        self._fill_vocab(run, position)
        self.merges.set_rows([[k, Chips(s.merge), s.count, s.new_symbol] for k, s in enumerate(steps[:position], 1)],
                             current=position - 1 if position else None)
        if position:
            self.merges_view.scrollTo(self.merges.index(position - 1, 0))
            self.pairs_view.scrollToTop()
        if step is None:
            headline = self.tr("Before training: each word split into its symbols; {count} merges to come").format(
                count=f"{len(steps):,}")
        else:
            headline = self.tr("Step {number}: merge {left} + {right} → {symbol} ({count} times)").format(
                number=step.number, left=step.merge[0], right=step.merge[1], symbol=step.new_symbol,
                count=f"{step.count:,}")
            if step.tied:
                pairs = ", ".join(f"{a} + {b}" for a, b in step.tied)
                notes.append(show(Message(QT_TRANSLATE_NOOP("learn", "Tied with {pairs}: {rule}."), pairs=pairs,
                                          rule=TIE_RULES[run.options.tie_break])))
            if step.bpe_pick is not None:
                notes.append(show(Message(QT_TRANSLATE_NOOP(
                    "learn", "BPE would merge {left} + {right}, the most frequent pair; WordPiece prefers the pair "
                             "whose parts are rarer on their own."), left=step.bpe_pick[0], right=step.bpe_pick[1])))
            notes.append(show(change_sentence(step)))
        if position == len(steps):
            notes.append(stop_note(run))
        return headline, notes

    def _fill_pairs(self, table: MergeStep, step: MergeStep | None) -> None:
        merged = self.tr("merged")
        tied = set(step.tied) if step is not None else set()
        tied_note = self.tr("tied")
        rows, current, marked = [], None, []
        bpe_note = self.tr("BPE's pick")

        def note_for(i: int, pair: tuple[str, str]) -> str:
            """The row's note (merged / tied / BPE's pick), marking the row as it goes."""
            nonlocal current
            note = ""
            if step is not None and pair == step.merge:
                current, note = i, merged
            elif pair in tied:
                marked.append(i)
                note = tied_note
            if step is not None and pair == step.bpe_pick:
                note = f"{note}, {bpe_note}" if note else bpe_note
            return note

        if table.scores is not None:
            for i, (a, b, ab, ca, cb) in enumerate(table.scores):
                rows.append([Chips((a, b)), ab, ca, cb, ab / (ca * cb), note_for(i, (a, b))])
        else:
            for i, (a, b, c) in enumerate(table.pair_counts):
                rows.append([Chips((a, b)), c, note_for(i, (a, b))])
        self.pairs.set_rows(rows, current=current, marked=marked)

    def _fill_vocab(self, run, position: int) -> None:
        """The tokens after `position` merges: the trained vocabulary's first ids (a merge's token
        takes the next id), the newest one selected."""
        steps = run.steps
        if position:
            size = steps[position - 1].vocab_size
        elif steps:
            size = steps[0].vocab_size - (1 if steps[0].new else 0)
        else:
            size = run.tokenizer.vocab_size
        tok = run.tokenizer
        self.vocab.clear()
        newest = steps[position - 1].new_symbol if position else None
        start = max(0, size - VOCAB_SHOWN)
        for i in range(start, size):
            token = tok.id_to_token(i)
            item = QListWidgetItem(token if token is not None else "")
            self.vocab.addItem(item)
            if token == newest:
                self.vocab.setCurrentItem(item)
                font = item.font()
                font.setBold(True)
                item.setFont(font)
        if self.vocab.currentItem() is not None:
            self.vocab.scrollToItem(self.vocab.currentItem())
        self.vocab_box.setTitle(self.tr("Vocabulary: {count} tokens").format(count=f"{size:,}"))

    def vocabulary(self) -> list[str]:
        return [self.vocab.item(i).text() for i in range(self.vocab.count())]


class UnigramPage(QWidget):
    """The pieces and their probabilities, the step's expected counts or losses, the segmentations."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pieces = StepTable([self.tr("piece"), self.tr("probability"), self.tr("log probability")], self)
        self.detail = StepTable([], self)
        self.segmentations = StepTable([self.tr("word"), self.tr("count"), self.tr("best segmentation")], self)
        self.pieces_view = step_table_view(self.pieces, "LearnPieces")
        self.detail_view = step_table_view(self.detail, "LearnStepDetail")
        self.segmentations_view = step_table_view(self.segmentations, "LearnSegmentations")
        self.pieces_box = _group(self.tr("Vocabulary"), self.pieces_view)
        self.detail_box = _group(self.tr("Expected counts"), self.detail_view)
        self.segmentations_box = _group(self.tr("Best (Viterbi) segmentation of each word"), self.segmentations_view)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.splitter = _splitter(self.pieces_box, self.detail_box, self.segmentations_box)
        self.splitter.setSizes([320, 300, 360])
        lay.addWidget(self.splitter)

    def show_step(self, run, position: int) -> tuple[str, list[str]]:
        steps = run.steps
        step = steps[position - 1] if position else None
        notes: list[str] = []
        if step is None:
            self.pieces.clear()
            self.detail.clear()
            self.detail_box.hide()
            self.segmentations.set_rows([[Chips([w]), c, Chips([])] for w, c in zip(run.words, run.counts)])
            self.pieces_box.setTitle(self.tr("Vocabulary"))
            headline = self.tr("Before training: {words} distinct words; {steps} steps to come").format(
                words=f"{len(run.words):,}", steps=f"{len(steps):,}")
        else:
            removed = set(step.removed)
            self.pieces.set_rows([[Chips([p]), math.exp(s), s] for p, s in step.pieces])
            self.pieces_box.setTitle(self.tr("Vocabulary: {count} pieces").format(count=f"{len(step.pieces):,}"))
            self._fill_detail(step, removed)
            self.segmentations.set_rows([[Chips([w]), c, Chips(ps)] for w, c, ps in step.segmentations])
            headline = show(_title(step))
            if step.objective is not None:
                notes.append(show(Message(QT_TRANSLATE_NOOP("learn", "Objective: {objective:.6g}"),
                                          objective=step.objective)))
            if step.removed:
                template = (QT_TRANSLATE_NOOP("learn", "Removed (expected fewer than 0.5 times): {pieces}")
                            if step.kind == "em" else QT_TRANSLATE_NOOP("learn", "Removed: {pieces}"))
                notes.append(show(Message(template, pieces=" ".join(step.removed))))
        if position == len(steps):
            notes.append(stop_note(run))
        return headline, notes

    def _fill_detail(self, step, removed: set[str]) -> None:
        if step.kind == "em":
            self.detail_box.setTitle(self.tr("Expected counts (E step)"))
            self.detail.set_headers([self.tr("piece"), self.tr("expected count"), self.tr("note")])
            note = self.tr("removed")
            rows = [[Chips([p]), x, note if p in removed else ""] for p, x in step.expected]
        elif step.kind == "prune":
            self.detail_box.setTitle(self.tr("Loss of removing each piece"))
            self.detail.set_headers([self.tr("piece"), self.tr("loss"), self.tr("note")])
            note = self.tr("pruned")
            rows = [[Chips([p]), x, note if p in removed else ""] for p, x in step.losses]
        else:
            self.detail.clear()
            self.detail_box.hide()
            return
        self.detail_box.show()
        self.detail.set_rows(rows, marked=[i for i, row in enumerate(rows) if row[2]])

    def pruned(self) -> list[str]:
        """The pieces marked pruned (removed) in the step's table."""
        return [self.detail.cell(i, 0)[0] for i in sorted(self.detail.marked_rows())]


def _title(step) -> Message:
    if step.kind == "seed":
        return Message(QT_TRANSLATE_NOOP("learn", "Step {number}: seed pieces"), number=step.number)
    if step.kind == "em":
        return Message(QT_TRANSLATE_NOOP("learn", "Step {number}: round {round}, EM step {iteration}"),
                       number=step.number, round=step.round, iteration=step.iteration)
    return Message(QT_TRANSLATE_NOOP("learn", "Step {number}: round {round}, pruning"), number=step.number,
                   round=step.round)
