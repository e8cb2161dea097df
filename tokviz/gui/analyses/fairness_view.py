"""The Fairness page of the Analyses tab: what the same content costs in tokens in each language.

Pick parallel files (one per language: de.txt, whatis.pt_BR.txt...) or a folder of them and a pivot
language; Run measures every tokenizer of the set on a worker (`analysis.fairness`, in pieces, with
a progress bar and Cancel).  A grouped bar chart shows each language's premium (tokens relative to
the pivot's for the same content; a dashed line at 1.0), one colour per tokenizer; the table
across tokenizers gives premium, single-token word rate (STRR) and unknown + byte-fallback share,
and copies as CSV or Markdown.  Warnings (files that may not be parallel) and notes (languages
written without spaces, where STRR is n/a) show under the table.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ...analysis.corpus_stats import table_csv, table_markdown
from ...analysis.fairness import WORD_DEFINITION, FairnessResult, fairness_files, language_of
from ...defaults import parallel_sample_path
from ...errors import TokvizError
from ...paths import folder_entries, is_regular_file
from ..widgets.click_guard import guard_clicks
from ..work.jobs import BackgroundJob
from ..widgets.plots import CategoryAxis, FittedAxis, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..widgets.layout import WrappedLabel
from ..work.workers import describe_error

# one colour per tokenizer (Okabe & Ito's palette: distinguishable with colour-blindness, on light or dark)
BAR_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999", "#F0E442")
GROUP_WIDTH = 0.8  # of the room one language has on the x axis


def _expand(paths) -> list[Path]:
    """The files a list of files and folders stands for (a folder: its *.txt files).  Never raises
    and never opens a file: a path that cannot be looked at or listed stands for itself (the run
    names what is wrong with it)."""
    out = []
    for given in paths:
        p = Path(given)
        try:
            if stat.S_ISDIR(os.stat(given).st_mode):
                out.extend(f for f in folder_entries(given) if f.suffix.lower() == ".txt" and is_regular_file(f))
                continue
        except (OSError, ValueError, TokvizError):
            pass
        out.append(p)
    return out


class FairnessView(QWidget):
    """See the module docstring.  From code: `set_tokenizers`, `set_files(paths)`, `set_pivot(lang)`,
    `run()`, `cancel()`; `finished(FairnessResult)`, `cancelled()` and `failed(reason)` report."""

    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._tokenizers: dict = {}
        self.result: FairnessResult | None = None
        self._bars: list[pg.BarGraphItem] = []

        self.file_list = QListWidget()
        self.file_list.setToolTip("Parallel files, one per language (the language from the name: de.txt, "
                                  "page.pt_BR.txt), or folders of *.txt files")
        self.file_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.file_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.file_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        add_files = QPushButton("Add files…")
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton("Add folder…")
        add_folder.clicked.connect(self._ask_folder)
        remove = QPushButton("Remove")
        remove.clicked.connect(self._remove_selected)
        self.languages_label = WrappedLabel("")
        self.pivot_combo = QComboBox()
        self.pivot_combo.setToolTip("The language every premium is relative to (its premium is 1.0)")
        self.pivot_combo.setMinimumContentsLength(6)
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Measure every tokenizer of the set on the parallel files")
        self.run_button.clicked.connect(self.run)
        guard_clicks(self.run_button)  # (enabled again as the job ends, under a click meant for Cancel)
        self.status = WrappedLabel("Add parallel files (one per language) or a folder of them, then Run.")
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.ended.connect(lambda: self.run_button.setEnabled(bool(self._tokenizers)))
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button

        self.axis = CategoryAxis("bottom")
        self.plot = make_plot("Token premium by language (tokens relative to the pivot's)",
                              {"bottom": self.axis, "left": FittedAxis("left", integer=False)})
        self.plot.setLabel("left", "premium")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(220)
        self.legend = self.plot.addLegend(offset=(10, 5), colCount=1)
        # room under the names for descenders (pt_BR's underscore)
        self.axis.setHeight(int(QFontMetricsF(self.axis.style["tickFont"]).height() * 1.6) + 12)
        self.pivot_line = pg.InfiniteLine(pos=1.0, angle=0, movable=False)
        self.plot.addItem(self.pivot_line)
        self.plot.scene().sigMouseMoved.connect(self._hover)

        self.table = QTableWidget(0, 0)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        copy_csv = QPushButton("Copy CSV")
        copy_csv.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.table_csv()))
        copy_md = QPushButton("Copy Markdown")
        copy_md.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.table_markdown()))
        self.copy_buttons = (copy_csv, copy_md)
        for b in self.copy_buttons:
            b.setEnabled(False)
        self.notes = WrappedLabel("")
        self.notes.setTextFormat(Qt.TextFormat.RichText)

        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(QLabel("Parallel files"))
        sl.addWidget(self.file_list, 1)
        buttons = QHBoxLayout()
        for b in (add_files, add_folder, remove):
            buttons.addWidget(b)
        sl.addLayout(buttons)
        sl.addWidget(self.languages_label)
        pivot_row = QHBoxLayout()
        pivot_row.addWidget(QLabel("Pivot language"))
        pivot_row.addWidget(self.pivot_combo, 1)
        sl.addLayout(pivot_row)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        sl.addLayout(run_row)
        sl.addWidget(self.status)
        definition = WrappedLabel("STRR (single-token word rate): " + WORD_DEFINITION + ".")
        definition.setStyleSheet("color: gray")
        sl.addWidget(definition)

        below = QWidget()
        bl = QVBoxLayout(below)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(self.table, 1)
        copy_row = QHBoxLayout()
        copy_row.addWidget(copy_csv)
        copy_row.addWidget(copy_md)
        copy_row.addStretch(1)
        bl.addLayout(copy_row)
        bl.addWidget(self.notes)

        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.plot)
        right.addWidget(below)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        right.setSizes([400, 400])
        right.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(side)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([280, 1000])
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)
        self.set_theme(theme)
        self.set_files([parallel_sample_path()])  # (a start: whatis(1) in 18 languages, shipped)

    # ---- the container's interface ----------------------------------------------------------------
    def set_tokenizers(self, tokenizers: dict) -> None:
        """The tokenizers to measure (name -> Tokenizer, in display order).  A result shown for
        another set stays until the next Run."""
        self._tokenizers = dict(tokenizers)
        self.run_button.setEnabled(bool(self._tokenizers) and not self.job.is_running())
        if not self._tokenizers:
            self.run_button.setToolTip("No tokenizer: open one, or add tokenizers to the Compare tab")
        else:
            self.run_button.setToolTip("Measure every tokenizer of the set on the parallel files")

    def set_text(self, text: str) -> None:
        """(The explorer's text: this page measures the parallel files instead.)"""

    def is_busy(self) -> bool:
        return self.job.is_running()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.job.shutdown(timeout_ms)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        theme_plot(self.plot, theme)
        self.pivot_line.setPen(pg.mkPen(theme.text, width=1.5, style=Qt.PenStyle.DashLine))
        self.legend.setLabelTextColor(theme.text)
        self.legend.setBrush(pg.mkBrush(QColor(theme.background)))
        self.legend.setPen(pg.mkPen(theme.marker))
        if self.result is not None:
            self._show(self.result)

    # ---- files ----------------------------------------------------------------------------------
    def set_files(self, paths) -> None:
        """Parallel files and folders to measure (replacing those listed)."""
        self.file_list.clear()
        for p in paths:
            self._add_path(p)
        self._files_changed()

    def files(self) -> list[str]:
        return [self.file_list.item(k).text() for k in range(self.file_list.count())]

    def languages(self) -> list[str]:
        """The languages of the listed files, from their names (in list order, once each)."""
        seen: list[str] = []
        for f in _expand(self.files()):
            lang = language_of(f)
            if lang not in seen:
                seen.append(lang)
        return seen

    def set_pivot(self, language: str) -> bool:
        """Choose the pivot; False if no listed file is in `language`."""
        k = self.pivot_combo.findText(language)
        if k < 0:
            return False
        self.pivot_combo.setCurrentIndex(k)
        return True

    def pivot(self) -> str:
        return self.pivot_combo.currentText()

    def _add_path(self, path) -> None:
        item = QListWidgetItem(os.fspath(path))
        item.setToolTip(os.fspath(path))
        self.file_list.addItem(item)

    def _ask_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add parallel files (one per language)", "",
                                                "Text files (*.txt);;All files (*)")
        for n in names:
            self._add_path(n)
        self._files_changed()

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of parallel files")
        if folder:
            self._add_path(folder)
            self._files_changed()

    def _remove_selected(self) -> None:
        for item in self.file_list.selectedItems():
            self.file_list.takeItem(self.file_list.row(item))
        self._files_changed()

    def _files_changed(self) -> None:
        current = self.pivot()
        languages = self.languages()
        self.pivot_combo.blockSignals(True)
        self.pivot_combo.clear()
        self.pivot_combo.addItems(languages)
        self.pivot_combo.blockSignals(False)
        if not (current and self.set_pivot(current)) and not self.set_pivot("en"):
            self.pivot_combo.setCurrentIndex(0 if languages else -1)
        n = len(languages)
        self.languages_label.setText(f"{n} language{'s' if n != 1 else ''}: {', '.join(languages)}" if n else
                                     "No files yet.")

    # ---- running --------------------------------------------------------------------------------
    def run(self) -> None:
        """Measure the tokenizers on the files, on a worker (`finished` follows, or `failed` / `cancelled`)."""
        if not self._tokenizers:
            self._fail("No tokenizer: open one, or add tokenizers to the Compare tab.")
            return
        paths = self.files()
        if not paths:
            self._fail("Add parallel files (one per language) or a folder of them first.")
            return
        pivot = self.pivot()
        tokenizers = dict(self._tokenizers)

        def done(result: FairnessResult) -> None:
            self.result = result
            self._show(result)
            self.finished.emit(result)

        def failed(exc) -> None:
            self._fail(f"Failed: {exc if isinstance(exc, TokvizError) else describe_error(exc)}")

        self.run_button.setEnabled(False)
        self.status.setText(f"Measuring {len(tokenizers)} tokenizer{'s' if len(tokenizers) != 1 else ''}…")
        self.job.start(lambda cancel, progress: fairness_files(tokenizers, paths, pivot, progress=progress,
                                                               cancel=cancel),
                       done, on_failed=failed, on_cancelled=self.cancelled.emit)

    def cancel(self) -> None:
        self.job.cancel()

    def _fail(self, reason: str) -> None:
        self.status.setText(reason)
        self.failed.emit(reason)

    # ---- showing --------------------------------------------------------------------------------
    def table_csv(self) -> str:
        return table_csv(self.result.rows()) if self.result is not None else ""

    def table_markdown(self) -> str:
        return table_markdown(self.result.rows()) if self.result is not None else ""

    def bar_heights(self) -> dict[str, list[float]]:
        """The chart as drawn: tokenizer -> premium per language (in `result.languages` order)."""
        return {name: [float(h) for h in bar.opts["height"]] for name, bar in zip(self.result.tokenizers, self._bars)} \
            if self.result is not None else {}

    def _show(self, result: FairnessResult) -> None:
        self._draw_chart(result)
        self._fill_table(result)
        worst = max(((f.premium, name, lang) for name, per in result.figures.items() for lang, f in per.items()),
                    default=None)
        summary = (f"{len(result.languages)} languages against {result.pivot}, {len(result.tokenizers)} "
                   f"tokenizer{'s' if len(result.tokenizers) != 1 else ''}.")
        if worst is not None and worst[0] > 1:
            summary += f" Highest premium: {worst[2]} with {worst[1]}, {worst[0]:.2f}× the tokens."
        self.status.setText(summary)
        lines = [f"<span style='color:{self._warning_color()}'>⚠ {_escape(w)}</span>" for w in result.warnings]
        lines += [_escape(n) for n in result.notes]
        self.notes.setText("<br>".join(lines))
        for b in self.copy_buttons:
            b.setEnabled(True)

    def _warning_color(self) -> str:
        return self.theme.truncation

    def _draw_chart(self, result: FairnessResult) -> None:
        for bar in self._bars:
            self.plot.removeItem(bar)
        self._bars = []
        self.legend.clear()
        names, languages = result.tokenizers, result.languages
        self.legend.setColumnCount(max(1, len(names)))  # (one line over the headroom above the bars)
        self.axis.set_names(languages)
        k = max(1, len(names))
        width = GROUP_WIDTH / k
        x0 = np.arange(len(languages), dtype=float) - GROUP_WIDTH / 2 + width / 2
        top = 1.0
        for j, name in enumerate(names):
            heights = np.array(result.premiums(name), float)
            heights = np.where(np.isfinite(heights), heights, 0.0)
            top = max(top, float(heights.max(initial=0.0)))
            color = QColor(BAR_COLORS[j % len(BAR_COLORS)])
            bar = pg.BarGraphItem(x=x0 + j * width, height=heights, width=width * 0.92, brush=pg.mkBrush(color),
                                  pen=pg.mkPen(color.darker(130)))
            self.plot.addItem(bar)
            self.legend.addItem(bar, name)
            self._bars.append(bar)
        self.plot.setXRange(-0.6, len(languages) - 0.4, padding=0)
        self.plot.setYRange(0, top * 1.18, padding=0)

    def bar_at(self, pos: QPointF) -> tuple[str, str] | None:
        """(tokenizer, language) of the bar under the scene position `pos`, or None."""
        result = self.result
        if result is None or not self._bars or not self.plot.sceneBoundingRect().contains(pos):
            return None
        point = self.plot.getPlotItem().vb.mapSceneToView(pos)
        k = len(result.tokenizers)
        width = GROUP_WIDTH / k
        i = int(round(point.x()))
        j = int((point.x() - i + GROUP_WIDTH / 2) // width)
        if not (0 <= i < len(result.languages) and 0 <= j < k):
            return None
        name, lang = result.tokenizers[j], result.languages[i]
        if not 0 <= point.y() <= max(result.figures[name][lang].premium, 0.05):
            return None
        return name, lang

    def _hover(self, pos: QPointF) -> None:
        """A tooltip naming the bar under the mouse: tokenizer, language, premium and tokens."""
        hit = self.bar_at(pos)
        if hit is None:
            QToolTip.hideText()
            return
        result = self.result
        name, lang = hit
        f = result.figures[name][lang]
        pivot_tokens = result.figures[name][result.pivot].tokens
        strr = "n/a" if f.strr is None else f"{f.strr:.1%}"
        text = (f"<b>{_escape(name)}</b>, {_escape(lang)}: premium {f.premium:.3f}<br>"
                f"{f.tokens:,} tokens ({_escape(result.pivot)}: {pivot_tokens:,}); "
                f"{f.chars_per_token:.2f} chars, {f.bytes_per_token:.2f} bytes per token<br>"
                f"STRR {strr}; unknown + byte fallback {f.fallback_share:.2%}")
        QToolTip.showText(self.plot.mapToGlobal(self.plot.mapFromScene(pos)), text, self.plot)

    def _fill_table(self, result: FairnessResult) -> None:
        rows = result.rows()
        cols = list(rows[0]) if rows else []
        table = self.table
        table.clear()
        table.setColumnCount(len(cols))
        table.setRowCount(len(rows))
        table.setHorizontalHeaderLabels([c.rsplit(" ", 1)[0] + "\n" + c.rsplit(" ", 1)[1] if " " in c else c
                                         for c in cols])
        bold = QFont(table.font())
        bold.setBold(True)
        muted = QColor(self.theme.message_text)
        for c, col in enumerate(cols):
            header = table.horizontalHeaderItem(c)
            header.setToolTip(_column_tip(col, result.pivot))
        for r, row in enumerate(rows):
            lang = row["language"]
            for c, col in enumerate(cols):
                v = row[col]
                if isinstance(v, float):
                    text = f"{v:.2%}" if col.endswith("unk/byte") else f"{v:.3f}"
                else:
                    text = str(v)
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if v == "n/a":
                    item.setForeground(muted)
                    item.setToolTip(f"{lang} is written mostly without spaces: no STRR")
                if lang == result.pivot:
                    item.setFont(bold)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)


def _column_tip(col: str, pivot: str) -> str:
    if col.endswith("premium"):
        return f"Tokens for this language over tokens for {pivot}, same content, same tokenizer"
    if col.endswith("STRR"):
        return "Single-token word rate: share of words lying inside one token (n/a: written without spaces)"
    if col.endswith("unk/byte"):
        return "Unknown and byte-fallback tokens over all tokens"
    return ""


def _escape(text: str) -> str:
    import html

    return html.escape(str(text))
