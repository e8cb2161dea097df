"""The Merges panel: how a token is built and how a word is cut, and where a vocabulary is broken.

"Build" tab:
* a token (typed, an id, or clicked in the token view) and its merge tree (`MergeTreeView`, fitted
  to the view down to a legible size, then scrolling; − Fit + zoom); clicking a node shows that
  token's tree, Back returns; "Used by" (folded under the tree) lists the merges that take the token
  as a part (double-click to go there);
* a word's trace: type text, pick one of its words (as the model sees them), and step through the
  cut with the slider or the ◀ ▶ buttons — BPE's merges one by one, WordPiece's longest matches,
  or for a Unigram model the lattice with the best path and the N best segmentations with their
  probabilities.

The tables these read (a trace's rank table, the merge index of "used by" and of unreachable
trees) are built on a worker the first time they are needed (`MergeTables`): meanwhile the tree,
the list or the trace reads "indexing…", and the token or word asked for last is drawn when they
arrive.

"Health" tab: `analysis.token_health.full_health` (`vocab_health` and `token_health`) on a
worker, with a progress bar and Cancel; a bar chart of the count per finding (log scale: a few
split specials beside 50k bad merges) and the findings in a tree (unreachable tokens, bad merges,
partial UTF-8 tokens, duplicates, added tokens the pre-tokenizer would split, undecodable tokens,
specials text never produces, intermediate-only tokens, added tokens duplicating model tokens, ids
that decode alike, stray-byte tokens); double-click a token to see its tree.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSlider,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...analysis.health import HealthReport
from ...analysis.token_health import full_health
from ...analysis.merges import built_merge_index, listed_tree, trace_bpe, trace_ready, traced_tree
from ...analysis.segments import unigram_lattice, word_spans, wordpiece_trace, words_of
from ...core.bytelevel import unicode_to_bytes
from ...core.encoding import display_string
from ...core.models.bpe import BPE
from ...core.models.unigram import Unigram
from ...core.models.wordpiece import WordPiece
from ...core.sentencepiece import SentencePieceBPE
from ..widgets.click_guard import guard_clicks
from ..work.jobs import BackgroundJob
from .merge_tables import MergeTables
from .merges_health import counts_tooltip, fill_tree, fit_tree_columns, health_summary, plot_counts
from ..views.merge_tree_view import MergeTreeView
from ..widgets.plots import CategoryAxis, FittedAxis, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..views.token_view import runs_display, text_runs
from ..views.trace_view import LatticeBar, TraceRow, TraceView
from ..work.workers import describe_error

N_BEST = 8
MIN_TREE_HEIGHT = 150  # below this the Build tab scrolls rather than squash the tree
MIN_TRACE_HEIGHT = 80
USED_BY_HEIGHT = 140
MIN_HEALTH_TREE_HEIGHT = 180
_LONG_RUN = re.compile(r"(\S{12})(?=\S)")


def wrappable(text: str) -> str:
    """`text` with a zero-width space after every 12 characters of a run without spaces, so that a
    word-wrapped label can break a long token instead of widening the dock."""
    return _LONG_RUN.sub("\\1\u200b", text)


class MergesPanel(QWidget):
    """See the module docstring.  `show_token(token or id)`, `trace_text(text)`, `set_step(k)` and
    `check_health()` drive it from code and tests."""

    healthFinished = Signal(object)  # HealthReport
    healthCancelled = Signal()

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self._tokenizer = None
        self._token: str | None = None  # the token asked for: shown, or shown once its tables are built
        self._history: list[str] = []
        self._trace_rows: list[TraceRow] = []
        self._tree_waits = self._used_waits = self._trace_waits = False  # for the merge tables (see MergeTables)
        self.tables = MergeTables(self)
        self.tables.built.connect(self._tables_built)
        self.tables.failed.connect(self._tables_failed)
        self.report: HealthReport | None = None
        self.theme = theme

        # -- build tab: token and tree
        self.token_input = QLineEdit()
        self.token_input.setPlaceholderText(self.tr("Token or id, e.g. Ġtokenizer or 45702"))
        self.token_input.returnPressed.connect(lambda: self.show_token(self.token_input.text()))
        self.back_button = QToolButton()
        self.back_button.setText(self.tr("◀ Back"))
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self.go_back)
        self.tree_info = QLabel("")
        self.tree_info.setWordWrap(True)
        self.tree_view = MergeTreeView(theme=theme)
        self.tree_view.setMinimumHeight(MIN_TREE_HEIGHT)
        self.tree_view.tokenActivated.connect(self.show_token)
        self.zoom_out_button = self._tool("−", self.tr("Zoom out (Ctrl+wheel, -)"),
                                          lambda: self.tree_view.zoom(1 / 1.25))
        self.fit_button = self._tool(self.tr("Fit"), self.tr("Fit the tree to the view (0)"), self.tree_view.fit)
        self.zoom_in_button = self._tool("+", self.tr("Zoom in (Ctrl+wheel, +)"), lambda: self.tree_view.zoom(1.25))
        self.used_toggle = QToolButton()
        self.used_toggle.setCheckable(True)
        self.used_toggle.setAutoRaise(True)
        self.used_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.used_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.used_toggle.setText(self.tr("Used by"))
        self.used_toggle.setToolTip(self.tr("The merges that take this token as a part (double-click one to go "
                                            "there)"))
        self.used_toggle.toggled.connect(self._show_used_by)
        self.used_by = QListWidget()
        self.used_by.itemActivated.connect(lambda item: self.show_token(item.data(Qt.ItemDataRole.UserRole)))
        self.used_by.setMaximumHeight(USED_BY_HEIGHT)
        self.used_by.hide()

        # -- build tab: trace
        self.text_input = QLineEdit()
        self.text_input.setPlaceholderText(self.tr("Text to trace, e.g. lower or 乌鲁木齐"))
        self.text_input.returnPressed.connect(lambda: self.trace_text(self.text_input.text()))
        self.word_box = QComboBox()
        # (a long word must not widen the dock: the popup shows it whole)
        self.word_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.word_box.setMinimumContentsLength(6)
        self.word_box.currentIndexChanged.connect(self._trace_current_word)
        self.prev_button = QToolButton()
        self.prev_button.setText("◀")
        self.prev_button.clicked.connect(lambda: self.set_step(self.slider.value() - 1))
        self.next_button = QToolButton()
        self.next_button.setText("▶")
        self.next_button.clicked.connect(lambda: self.set_step(self.slider.value() + 1))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.valueChanged.connect(self._on_slider)
        self.step_label = QLabel("")
        self.step_label.setWordWrap(True)
        self.trace_view = TraceView(theme=theme)
        self.trace_scroll = QScrollArea()
        self.trace_scroll.setWidget(self.trace_view)
        self.trace_scroll.setWidgetResizable(True)  # (as wide as the pane, wider only for its boxes)
        self.trace_scroll.setMinimumHeight(MIN_TRACE_HEIGHT)
        self.nbest = QTableWidget(0, 3)
        self.nbest.setHorizontalHeaderLabels([self.tr("segmentation"), self.tr("log-prob"), self.tr("probability")])
        self.nbest.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.nbest.verticalHeader().setVisible(False)
        self.nbest.hide()

        top = QHBoxLayout()
        top.addWidget(self.back_button)
        top.addWidget(self.token_input, 1)
        for button in (self.zoom_out_button, self.fit_button, self.zoom_in_button):
            top.addWidget(button)
        tree_box = self.tree_box = QWidget()
        tree_layout = QVBoxLayout(tree_box)
        tree_layout.setContentsMargins(0, 0, 0, 0)
        tree_layout.setSpacing(3)
        tree_layout.addLayout(top)
        tree_layout.addWidget(self.tree_info)
        tree_layout.addWidget(self.tree_view, 1)
        tree_layout.addWidget(self.used_toggle)
        tree_layout.addWidget(self.used_by)

        trace_top = QHBoxLayout()
        trace_top.addWidget(self.text_input, 2)
        trace_top.addWidget(self.word_box, 1)
        steps = QHBoxLayout()
        steps.addWidget(self.prev_button)
        steps.addWidget(self.slider, 1)
        steps.addWidget(self.next_button)
        trace_box = QWidget()
        trace_layout = QVBoxLayout(trace_box)
        trace_layout.setContentsMargins(0, 0, 0, 0)
        trace_layout.setSpacing(3)
        trace_layout.addLayout(trace_top)
        trace_layout.addLayout(steps)
        trace_layout.addWidget(self.step_label)
        trace_layout.addWidget(self.trace_scroll, 2)
        trace_layout.addWidget(self.nbest, 1)

        # The tree over the trace, the tree getting the larger share; below their comfortable
        # height (a short dock) the whole tab scrolls instead of squashing either.
        self.build_split = QSplitter(Qt.Orientation.Vertical)
        self.build_split.setChildrenCollapsible(False)
        self.build_split.addWidget(tree_box)
        self.build_split.addWidget(trace_box)
        self.build_split.setStretchFactor(0, 2)
        self.build_split.setStretchFactor(1, 1)
        self.build_split.setSizes([650, 350])
        build = QScrollArea()
        build.setWidgetResizable(True)
        build.setFrameShape(QFrame.Shape.NoFrame)
        build.setWidget(self.build_split)

        # -- health tab
        self.health_button = QPushButton(self.tr("Check the vocabulary"))
        self.health_button.clicked.connect(self.check_health)
        guard_clicks(self.health_button)  # (enabled again as the job ends, under a click meant for Cancel)
        self.health_summary = QLabel(self.tr("Finds unreachable tokens, merges that cannot work, partial UTF-8 "
                                             "tokens, duplicates, added tokens the pre-tokenizer would split, "
                                             "undecodable tokens, specials text never produces, intermediate-only "
                                             "tokens (IoS on the sample texts), added tokens duplicating model "
                                             "tokens, ids that decode alike and stray-byte tokens."))
        self.health_summary.setWordWrap(True)
        self.health_job = BackgroundJob(status=self.health_summary, parent=self)
        self.health_job.ended.connect(lambda: self.health_button.setEnabled(True))
        self.health_progress, self.health_cancel = self.health_job.progress_bar, self.health_job.cancel_button
        self.health_tree = QTreeWidget()
        self.health_tree.setHeaderLabels([self.tr("finding"), self.tr("detail")])
        self.health_tree.itemActivated.connect(self._on_health_item)
        self.health_axis = CategoryAxis("left")
        count_axis = FittedAxis("bottom")
        count_axis.setLogMode(True)
        self.health_plot = make_plot("", {"bottom": count_axis, "left": self.health_axis})
        self.health_plot.setTitle(None)
        self.health_plot.setLabel("bottom", self.tr("count (log scale)"))
        self.health_plot.getViewBox().invertY(True)
        self.health_plot.setMouseEnabled(x=False, y=False)
        self.health_plot.hideButtons()
        self.health_plot.hide()
        theme_plot(self.health_plot, theme)
        health = QWidget()
        h_layout = QVBoxLayout(health)
        h_row = QHBoxLayout()
        h_row.addWidget(self.health_button)
        h_row.addWidget(self.health_cancel)
        h_row.addStretch(1)
        h_layout.addLayout(h_row)
        h_layout.addWidget(self.health_progress)
        self.health_split = QSplitter(Qt.Orientation.Vertical)
        self.health_split.setChildrenCollapsible(False)
        self.health_split.addWidget(self.health_plot)
        self.health_split.addWidget(self.health_tree)
        self.health_split.setStretchFactor(0, 0)
        self.health_split.setStretchFactor(1, 1)
        self.health_tree.setMinimumHeight(MIN_HEALTH_TREE_HEIGHT)
        # the findings and the chart scroll together in a short dock rather than squash the list
        findings = QWidget()
        f_layout = QVBoxLayout(findings)
        f_layout.setContentsMargins(0, 0, 0, 0)
        f_layout.addWidget(self.health_summary)
        f_layout.addWidget(self.health_split, 1)
        health_scroll = QScrollArea()
        health_scroll.setWidgetResizable(True)
        health_scroll.setFrameShape(QFrame.Shape.NoFrame)
        health_scroll.setWidget(findings)
        h_layout.addWidget(health_scroll, 1)

        self.tabs = QTabWidget()
        self.tabs.setUsesScrollButtons(False)  # (two short tabs always fit; the arrows only inflate the minimum)
        self.tabs.addTab(build, self.tr("Build"))
        self.tabs.addTab(health, self.tr("Health"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)
        self._update_enabled()

    def _tool(self, text: str, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    def _show_used_by(self, shown: bool) -> None:
        self.used_by.setVisible(shown)
        self.used_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    # ---- tokenizer ------------------------------------------------------------------------------
    def sizeHint(self) -> QSize:
        """As wide as the Build tab asks: the Health tab's chart and summary take the width they get
        (their own hints would open the dock twice as wide)."""
        hint = super().sizeHint()
        build = self.tabs.widget(0).sizeHint().width() + self.width() - self.tabs.width()
        hint.setWidth(min(hint.width(), max(build, self.minimumSizeHint().width())))
        return hint

    def set_tokenizer(self, tokenizer) -> None:
        self.cancel_health()
        self._tokenizer = tokenizer
        self._token = None
        self._tree_waits = self._used_waits = self._trace_waits = False
        self._history = []
        self.report = None
        self.health_tree.clear()
        self.health_plot.clear()
        self.health_plot.hide()
        self.tree_view.set_tree(None)
        self.used_by.clear()
        self.used_toggle.setText(self.tr("Used by"))
        self.tree_info.setText("")
        self.tree_box.setVisible(self.is_bpe())  # (merge trees are for BPE models)
        self.word_box.clear()
        self.trace_view.set_rows([])
        self._update_enabled()

    def tokenizer(self):
        return self._tokenizer

    def is_bpe(self) -> bool:
        return self._tokenizer is not None and isinstance(self._tokenizer.model, (BPE, SentencePieceBPE))

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        self.tree_view.set_theme(theme)
        self.trace_view.set_theme(theme)
        theme_plot(self.health_plot, theme)
        if self.report is not None:
            self._plot_counts(self.report.counts())

    def _update_enabled(self) -> None:
        bpe = self.is_bpe()
        self.token_input.setEnabled(bpe)
        self.health_button.setEnabled(self._tokenizer is not None)

    def label_of(self, symbol: str) -> str:
        """What people read for a model symbol: its bytes as text (whitespace as · ↵ →, partial
        characters as ⟨e6⟩ chips); a symbol that is not a token as it is."""
        tok = self._tokenizer
        i = tok.model.vocab.get(symbol) if tok is not None else None
        if i is None:  # (a whole word of a byte-level model is still shown as its text)
            data = unicode_to_bytes(symbol) if tok is not None and tok.byte_level else None
            return runs_display(text_runs(display_string(data) if data is not None else symbol))
        return runs_display(text_runs(display_string(tok.token_bytes(i))))

    # ---- merge tree ---------------------------------------------------------------------------------
    def show_token(self, token_or_id, *, remember: bool = True) -> bool:
        """Show the merge tree of a token (its string in the model's alphabet, or its id): at once,
        or "indexing…" and the tree once the tables it needs are built (the last token asked for
        then)."""
        if not self.is_bpe():
            return False
        token = self._resolve(str(token_or_id).strip())
        if token is None:
            self.tree_info.setText(wrappable(self.tr("{token} is not a token of this model.").format(
                token=repr(token_or_id))))
            return False
        current = self.current_token()
        if remember and current is not None and current != token:
            self._history.append(current)
        self.back_button.setEnabled(bool(self._history))
        self._token = token
        self.token_input.setText(token)
        self._draw_token()
        return True

    def _draw_token(self) -> None:
        """Draw `_token`'s tree and fill "used by" from the tables built so far; ask for the others."""
        self._draw_tree()
        self._fill_used_by()

    def _draw_tree(self) -> None:
        model, token = self._tokenizer.model, self._token
        tree = None
        if trace_ready(model):
            tree = traced_tree(model, token)
            if tree is None and built_merge_index(model) is not None:
                tree = listed_tree(model, token)  # (unreachable: its own string never encodes to it)
                tree.reachable = False
        self._tree_waits = tree is None
        name = f"<b>{self._html(wrappable(self.label_of(token)))}</b>"
        if tree is None:
            self.tables.request(model)
            self.tree_view.set_tree(None)
            self.tree_info.setText(self.tr("{token} · indexing…").format(token=name))
            return
        self.tree_view.set_tree(tree, self.label_of)
        facts = [name, self.tr("id {id}").format(id=tree.id) if tree.id is not None else ""]
        if tree.rank is not None:
            facts.append(self.tr("merge #{rank}").format(rank=tree.rank))
        facts.append(self.tr("{symbols} symbols, depth {depth}").format(symbols=len(tree.leaves()), depth=tree.depth()))
        if not tree.reachable:
            facts.append("<span style='color:#c0392b'>{}</span>".format(self._html(self.tr(
                "unreachable: its own string never encodes to it (the tree its listed merges imply)"))))
        self.tree_info.setText(" · ".join(f for f in facts if f))

    def _fill_used_by(self) -> None:
        model, token = self._tokenizer.model, self._token
        index = built_merge_index(model)
        self._used_waits = index is None
        self.used_by.clear()
        if index is None:
            self.tables.request(model)
            self.used_toggle.setText(self.tr("Used by: indexing…"))
            self.used_by.setToolTip("")
            return
        users = index.users(model, token)
        for rank, merged in users[:500]:
            item = QListWidgetItem(f"#{rank}  {self.label_of(merged)}")
            item.setData(Qt.ItemDataRole.UserRole, merged)
            self.used_by.addItem(item)
        self.used_toggle.setText(self.tr("Used by 1 merge") if len(users) == 1
                                 else self.tr("Used by {count} merges").format(count=f"{len(users):,}"))
        self.used_by.setToolTip(self.tr("The first 500 of {count}").format(count=f"{len(users):,}")
                                if len(users) > 500 else "")

    def is_indexing(self) -> bool:
        """Whether the tree, "used by" or the trace waits for merge tables being built."""
        return self._tree_waits or self._used_waits or self._trace_waits

    def _tables_built(self) -> None:
        if self._tokenizer is None:
            return
        if self._token is not None:
            if self._tree_waits:
                self._draw_tree()
            if self._used_waits:
                self._fill_used_by()
        if self._trace_waits:
            self._trace_current_word()

    def _tables_failed(self, reason: str) -> None:
        message = self.tr("Could not index the merges: {0}").format(reason)
        if self._tree_waits:
            self.tree_info.setText(self._html(message))
        if self._used_waits:
            self.used_toggle.setText(self.tr("Used by: not indexed"))
        if self._trace_waits:
            self._set_trace([TraceRow(message, ())])
        self._tree_waits = self._used_waits = self._trace_waits = False

    def _resolve(self, text: str) -> str | None:
        model = self._tokenizer.model
        if text in model.vocab:
            return text
        if text.isdecimal():  # (an id; not isdigit: "¹" is a digit int() does not read)
            token = self._tokenizer.id_to_token(int(text))
            return token if token in model.vocab else None
        words = [w for w, _ in words_of(self._tokenizer, text)] if text else []
        if len(words) == 1 and words[0] in model.vocab:
            return words[0]  # typed as text ("lower" -> "Ġlower" is not guessed, but "中" -> its bytes is)
        return None

    def current_token(self) -> str | None:
        """The token shown, or asked for and shown once the merge tables are built."""
        return self._token

    def go_back(self) -> None:
        if self._history:
            self.show_token(self._history.pop(), remember=False)
            self.back_button.setEnabled(bool(self._history))

    # ---- traces -------------------------------------------------------------------------------------
    def trace_text(self, text: str) -> int:
        """Pre-tokenize `text` and trace its first word (pick others in the word box); returns how
        many words it has."""
        self.text_input.setText(text)
        self.word_box.blockSignals(True)
        self.word_box.clear()
        if self._tokenizer is not None and text:
            for word, source in words_of(self._tokenizer, text):
                self.word_box.addItem(f"{source!r} → {self.label_of(word)}" if source != word else repr(word), word)
        self.word_box.blockSignals(False)
        self._trace_current_word()
        return self.word_box.count()

    def show_in_context(self, text: str, char_index: int, token: str | None = None) -> None:
        """Show `token`'s tree and trace the word of `text` that holds character `char_index`
        (what clicking a token in the token view does)."""
        if token is not None and self.is_bpe():
            self.show_token(token)
        start = text.rfind("\n", 0, char_index) + 1
        end = text.find("\n", char_index)
        end = len(text) if end < 0 else end
        start, end = max(start, char_index - 200), min(end, char_index + 200)
        self.trace_text(text[start:end])
        spans = word_spans(self._tokenizer, text[start:end]) if self._tokenizer is not None else []
        for k, (_, a, b) in enumerate(spans):
            if a <= char_index - start < b:
                self.word_box.setCurrentIndex(k)
                break

    def trace_word(self, word: str) -> None:
        """Trace one word in the model's alphabet."""
        model = self._tokenizer.model
        self.nbest.hide()
        self._trace_waits = False
        if isinstance(model, (BPE, SentencePieceBPE)) and not trace_ready(model):
            self._trace_waits = True
            self.tables.request(model)
            self._set_trace([TraceRow(self.tr("indexing…"), ())])
        elif isinstance(model, (BPE, SentencePieceBPE)):
            trace = trace_bpe(model, word)
            rows = [TraceRow(self.tr("initial symbols") if not trace.whole_word
                             else self.tr("the word is a token: taken whole"),
                             tuple(self.label_of(s) for s in trace.initial))]
            if trace.whole_word:
                rows.append(TraceRow(self.tr("ignore_merges: whole-word lookup"), (self.label_of(word),), 0))
            for k, step in enumerate(trace.steps, 1):
                parts = {"step": k, "left": self.label_of(step.left), "right": self.label_of(step.right),
                         "merged": self.label_of(step.merged)}
                caption = (self.tr("step {step}: merge #{rank}  {left} + {right} → {merged}").format(
                    rank=step.rank, **parts) if step.rank is not None else
                    self.tr("step {step}: best piece score {score}  {left} + {right} → {merged}").format(
                    score=f"{step.score:.2f}", **parts))
                rows.append(TraceRow(caption, tuple(self.label_of(s) for s in step.symbols), step.position))
            self._set_trace(rows)
        elif isinstance(model, WordPiece):
            trace = wordpiece_trace(model, word)
            rows = [TraceRow(self.tr("the word"), (), -1, word)]
            done: list[str] = []
            for k, step in enumerate(trace.steps, 1):
                tried = ", ".join(repr(t) for t in step.tried[:6]) + (" …" if len(step.tried) > 6 else "")
                if step.id is None:
                    rows.append(TraceRow(self.tr("step {step}: nothing matches at character {at} → the whole word "
                                                 "is {unk}").format(step=k, at=step.start, unk=model.unk_token),
                                         (model.unk_token,), 0))
                    break
                done.append(step.piece)
                caption = (self.tr("step {step}: longest match at character {at}: {piece} (id {id})").format(
                    step=k, at=step.start, piece=repr(step.piece), id=step.id) if not tried else
                    self.tr("step {step}: longest match at character {at}: {piece} (id {id}); not in the "
                            "vocabulary: {tried}").format(step=k, at=step.start, piece=repr(step.piece), id=step.id,
                                                           tried=tried))
                rows.append(TraceRow(caption, tuple(done), len(done) - 1, word[step.end:]))
            if trace.too_long:
                rows.append(TraceRow(self.tr("longer than {count} characters → {unk}").format(
                    count=model.max_input_chars_per_word, unk=model.unk_token), (model.unk_token,), 0))
            self._set_trace(rows)
        elif isinstance(model, Unigram):
            lattice = unigram_lattice(model, word)
            best = lattice.n_best(N_BEST)
            best_edges = {(e.start, e.end, e.id) for e in best[0].edges} if best else set()
            bars = [LatticeBar(e.start, e.end, e.piece if e.id >= 0 else "<unk>", (e.start, e.end, e.id) in best_edges)
                    for e in lattice.edges]
            self.trace_view.set_lattice(bars, word)
            self._trace_rows = []
            self.slider.setRange(0, 0)
            self.step_label.setText(self.tr("{count} pieces match; the filled ones are the best path (what the "
                                            "model encodes)").format(count=len(lattice.edges)))
            self.nbest.setRowCount(len(best))
            for r, seg in enumerate(best):
                self.nbest.setItem(r, 0, QTableWidgetItem(" | ".join(seg.pieces)))
                self.nbest.setItem(r, 1, QTableWidgetItem(f"{seg.score:.3f}"))
                self.nbest.setItem(r, 2, QTableWidgetItem(f"{seg.probability:.4f}"))
            self.nbest.show()
        else:
            self._set_trace([TraceRow(self.tr("no trace for {kind} models").format(kind=model.kind), ())])

    def _trace_current_word(self) -> None:
        word = self.word_box.currentData()
        if self._tokenizer is None or word is None:
            self._trace_waits = False
            self._set_trace([])
            return
        self.trace_word(word)

    def _set_trace(self, rows: list[TraceRow]) -> None:
        self._trace_rows = rows
        self.trace_view.set_rows(rows)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, len(rows) - 1))
        self.slider.setValue(max(0, len(rows) - 1))
        self.slider.blockSignals(False)
        self._on_slider(self.slider.value())

    def set_step(self, step: int) -> None:
        """Show step `step` of the trace (0: before any merge or match)."""
        self.slider.setValue(min(max(step, 0), self.slider.maximum()))

    def step(self) -> int:
        return self.slider.value()

    def step_count(self) -> int:
        return max(0, len(self._trace_rows) - 1)

    @Slot(int)
    def _on_slider(self, value: int) -> None:
        if not self._trace_rows:
            self.step_label.setText("")
            return
        self.trace_view.set_current(value)
        self.step_label.setText(wrappable(self.tr("{step} of {steps}: {caption}").format(
            step=value, steps=len(self._trace_rows) - 1, caption=self._trace_rows[value].caption)))
        rect = self.trace_view.row_rect(value)
        self.trace_scroll.ensureVisible(0, int(rect.center().y()), 0, int(rect.height()))
        self.prev_button.setEnabled(value > 0)
        self.next_button.setEnabled(value < self.slider.maximum())

    def current_segmentation(self) -> tuple[str, ...]:
        rows = self._trace_rows
        return rows[self.slider.value()].boxes if rows else ()

    # ---- health -------------------------------------------------------------------------------------
    def check_health(self) -> None:
        """Run the health check on a worker (progress bar, Cancel); `healthFinished` follows."""
        if self._tokenizer is None:
            return
        tokenizer = self._tokenizer

        def done(report) -> None:
            self._show_report(report)
            self.healthFinished.emit(report)

        def failed(exc) -> None:
            self.health_summary.setText(self.tr("The check failed: {reason}").format(reason=describe_error(exc)))

        self.health_button.setEnabled(False)
        self.health_summary.setText(self.tr("Checking…"))
        self.health_job.start(lambda cancel, progress: full_health(tokenizer, progress=progress, cancel=cancel),
                              done, on_failed=failed, on_cancelled=self.healthCancelled.emit)

    def cancel_health(self) -> None:
        self.health_job.cancel()

    def is_checking(self) -> bool:
        return self.health_progress.isVisible()

    def _show_report(self, report: HealthReport) -> None:
        """The summary, the findings tree and the chart of `report` (see merges_health)."""
        self.report = report
        counts = report.counts()
        self.health_summary.setText(health_summary(report))
        self.health_summary.setToolTip(counts_tooltip(counts))
        fill_tree(self.health_tree, report, self.label_of, self._tokenizer.id_to_token)
        self._plot_counts(counts)
        fit_tree_columns(self.health_tree)

    def _plot_counts(self, counts: dict[str, int]) -> None:
        """Horizontal bars of the count per finding on a log axis, each labelled with its count."""
        plot_counts(self.health_plot, self.health_axis, counts, self.theme)

    def _on_health_item(self, item: QTreeWidgetItem) -> None:
        token = item.data(0, Qt.ItemDataRole.UserRole)
        if token is not None and self.show_token(token):
            self.tabs.setCurrentIndex(0)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.health_job.shutdown(timeout_ms)
        self.tables.shutdown(timeout_ms)

    @staticmethod
    def _html(s: str) -> str:
        import html

        return html.escape(s)
