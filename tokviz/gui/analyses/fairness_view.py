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
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, Qt, Signal
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
from ...analysis.fairness import (UNSPACED_LIMIT, UNSPACED_SCRIPTS, WORD_DEFINITION, FairnessResult, fairness_files,
                                  language_of)
from ...defaults import parallel_sample_path
from ...errors import TokvizError
from ...paths import folder_entries, is_regular_file
from ..widgets.click_guard import guard_clicks
from ..work.jobs import BackgroundJob
from ..widgets.plots import CategoryAxis, FittedAxis, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..widgets.layout import WrappedLabel
from ..widgets.messages import show
from ..work.workers import describe_error

# one colour per tokenizer (Okabe & Ito's palette: distinguishable with colour-blindness, on light or dark)
BAR_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999", "#F0E442")
GROUP_WIDTH = 0.8  # of the room one language has on the x axis
# the figures of the table's columns (a column is "<tokenizer> <figure>"), shown translated
FIGURES = {"premium": QT_TRANSLATE_NOOP("FairnessView", "premium"), "STRR": QT_TRANSLATE_NOOP("FairnessView", "STRR"),
           "unk/byte": QT_TRANSLATE_NOOP("FairnessView", "unk/byte"),
           "language": QT_TRANSLATE_NOOP("FairnessView", "language")}

# the scripts written without spaces (analysis.fairness.UNSPACED_SCRIPTS) as shown
SCRIPT_NAMES = {"Han": QT_TRANSLATE_NOOP("FairnessView", "Han"), "Hiragana": QT_TRANSLATE_NOOP("FairnessView", "Hiragana"),
                "Katakana": QT_TRANSLATE_NOOP("FairnessView", "Katakana"), "Thai": QT_TRANSLATE_NOOP("FairnessView", "Thai"),
                "Lao": QT_TRANSLATE_NOOP("FairnessView", "Lao"), "Khmer": QT_TRANSLATE_NOOP("FairnessView", "Khmer"),
                "Myanmar": QT_TRANSLATE_NOOP("FairnessView", "Myanmar")}


def _tr(text: str) -> str:
    return QCoreApplication.translate("FairnessView", text)


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

    KEY = "fairness"  # (AnalysesView.index_of)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.setObjectName("FairnessPage")
        self.theme = theme
        self._tokenizers: dict = {}
        self.result: FairnessResult | None = None
        self._bars: list[pg.BarGraphItem] = []

        self.file_list = QListWidget()
        self.file_list.setToolTip(self.tr("Parallel files, one per language (the language from the name: de.txt, "
                                          "page.pt_BR.txt), or folders of *.txt files"))
        self.file_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.file_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.file_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        add_files = QPushButton(self.tr("Add files…"))
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton(self.tr("Add folder…"))
        add_folder.clicked.connect(self._ask_folder)
        remove = QPushButton(self.tr("Remove"))
        remove.clicked.connect(self._remove_selected)
        self.languages_label = WrappedLabel("")
        self.pivot_combo = QComboBox()
        self.pivot_combo.setToolTip(self.tr("The language every premium is relative to (its premium is 1.0)"))
        self.pivot_combo.setMinimumContentsLength(6)
        self.run_button = QPushButton(self.tr("Run"))
        self.run_button.setToolTip(self.tr("Measure every tokenizer of the set on the parallel files"))
        self.run_button.clicked.connect(self.run)
        guard_clicks(self.run_button)  # (enabled again as the job ends, under a click meant for Cancel)
        self.status = WrappedLabel(self.tr("Add parallel files (one per language) or a folder of them, then Run."))
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.ended.connect(lambda: self.run_button.setEnabled(bool(self._tokenizers)))
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button

        self.axis = CategoryAxis("bottom")
        # (a short title: a plot's title does not wrap, and the page may be narrow; the rest in the tooltip)
        self.plot = make_plot(self.tr("Token premium by language"),
                              {"bottom": self.axis, "left": FittedAxis("left", integer=False)})
        self.plot.setToolTip(self.tr("Token premium: the tokens of a language relative to the pivot language's, "
                                     "for the same content"))
        self.plot.setLabel("left", self.tr("premium"))
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(220)
        # the key above the plot, not inside it: in a narrow plot an inner legend covers the bars; hidden
        # until a run gives it names (no empty box)
        self.key = QLabel()
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setWordWrap(True)
        self.key.hide()
        # room under the names for descenders (pt_BR's underscore)
        self.axis.setHeight(int(QFontMetricsF(self.axis.style["tickFont"]).height() * 1.6) + 12)
        self.pivot_line = pg.InfiniteLine(pos=1.0, angle=0, movable=False)
        self.plot.addItem(self.pivot_line)
        self.plot.scene().sigMouseMoved.connect(self._hover)

        self.table = QTableWidget(0, 0)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        copy_csv = QPushButton(self.tr("Copy CSV"))
        copy_csv.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.table_csv()))
        copy_md = QPushButton(self.tr("Copy Markdown"))
        copy_md.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.table_markdown()))
        self.copy_buttons = (copy_csv, copy_md)
        for b in self.copy_buttons:
            b.setEnabled(False)
        self.notes = WrappedLabel("")
        self.notes.setTextFormat(Qt.TextFormat.RichText)

        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(QLabel(self.tr("Parallel files")))
        sl.addWidget(self.file_list, 1)
        buttons = QHBoxLayout()
        for b in (add_files, add_folder, remove):
            buttons.addWidget(b)
        sl.addLayout(buttons)
        sl.addWidget(self.languages_label)
        pivot_row = QHBoxLayout()
        pivot_row.addWidget(QLabel(self.tr("Pivot language")))
        pivot_row.addWidget(self.pivot_combo, 1)
        sl.addLayout(pivot_row)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        sl.addLayout(run_row)
        sl.addWidget(self.status)
        definition = WrappedLabel(self._definition())
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

        chart = QWidget()
        cl = QVBoxLayout(chart)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(2)
        cl.addWidget(self.key)
        cl.addWidget(self.plot, 1)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(chart)
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

    def _definition(self) -> str:
        """What STRR measures (analysis.fairness.WORD_DEFINITION), translated."""
        english = "STRR (single-token word rate): " + WORD_DEFINITION + "."
        template = self.tr("STRR (single-token word rate): a word is a maximal run of \\w characters outside "
                           "scripts written without spaces ({scripts}); STRR is the share of word occurrences "
                           "lying inside one token that is not the unknown token; a language whose word characters "
                           "are more than {limit} in those scripts has no STRR (n/a).")
        scripts, limit = ", ".join(UNSPACED_SCRIPTS), f"{UNSPACED_LIMIT:.0%}"
        # (the template must say what the analysis does: when it no longer does, the English is shown)
        if _english_definition(scripts, limit) != english:
            return english
        shown = self.tr(", ").join(self.tr(SCRIPT_NAMES[s]) if s in SCRIPT_NAMES else s for s in UNSPACED_SCRIPTS)
        return template.format(scripts=shown, limit=limit)

    def page_title(self) -> str:
        """The title of this page's tab."""
        return self.tr("Fairness")

    # ---- the container's interface ----------------------------------------------------------------
    def set_tokenizers(self, tokenizers: dict) -> None:
        """The tokenizers to measure (name -> Tokenizer, in display order).  A result shown for
        another set stays until the next Run."""
        self._tokenizers = dict(tokenizers)
        self.run_button.setEnabled(bool(self._tokenizers) and not self.job.is_running())
        if not self._tokenizers:
            self.run_button.setToolTip(self.tr("No tokenizer: open one, or add tokenizers to the Compare tab"))
        else:
            self.run_button.setToolTip(self.tr("Measure every tokenizer of the set on the parallel files"))

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
        names, _ = QFileDialog.getOpenFileNames(self, self.tr("Add parallel files (one per language)"), "",
                                                self.tr("Text files (*.txt);;All files (*)"))
        for n in names:
            self._add_path(n)
        self._files_changed()

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of parallel files"))
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
        listed = ", ".join(languages)
        self.languages_label.setText(self.tr("No files yet.") if not n else
                                     self.tr("1 language: {languages}").format(languages=listed) if n == 1 else
                                     self.tr("{n} languages: {languages}").format(n=n, languages=listed))

    # ---- running --------------------------------------------------------------------------------
    def run(self) -> None:
        """Measure the tokenizers on the files, on a worker (`finished` follows, or `failed` / `cancelled`)."""
        if not self._tokenizers:
            self._fail(self.tr("No tokenizer: open one, or add tokenizers to the Compare tab."))
            return
        paths = self.files()
        if not paths:
            self._fail(self.tr("Add parallel files (one per language) or a folder of them first."))
            return
        pivot = self.pivot()
        tokenizers = dict(self._tokenizers)

        def done(result: FairnessResult) -> None:
            self.result = result
            self._show(result)
            self.finished.emit(result)

        def failed(exc) -> None:
            self._fail(self.tr("Failed: {reason}").format(
                reason=exc if isinstance(exc, TokvizError) else describe_error(exc)))

        self.run_button.setEnabled(False)
        self.status.setText(self.tr("Measuring 1 tokenizer…") if len(tokenizers) == 1 else
                            self.tr("Measuring {n} tokenizers…").format(n=len(tokenizers)))
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
        summary = (self.tr("{languages} languages against {pivot}, 1 tokenizer.") if len(result.tokenizers) == 1
                   else self.tr("{languages} languages against {pivot}, {n} tokenizers.")).format(
            languages=len(result.languages), pivot=result.pivot, n=len(result.tokenizers))
        if worst is not None and worst[0] > 1:
            summary += self.tr(" Highest premium: {language} with {tokenizer}, {premium}× the tokens.").format(
                language=worst[2], tokenizer=worst[1], premium=f"{worst[0]:.2f}")
        self.status.setText(summary)
        lines = [f"<span style='color:{self._warning_color()}'>⚠ {_escape(show(w))}</span>" for w in result.warnings]
        lines += [_escape(show(n)) for n in result.notes]
        self.notes.setText("<br>".join(lines))
        for b in self.copy_buttons:
            b.setEnabled(True)

    def _warning_color(self) -> str:
        return self.theme.truncation

    def _draw_chart(self, result: FairnessResult) -> None:
        for bar in self._bars:
            self.plot.removeItem(bar)
        self._bars = []
        names, languages = result.tokenizers, result.languages
        self.key.setText("&nbsp;&nbsp; ".join(
            f"<span style='color: {BAR_COLORS[j % len(BAR_COLORS)]}'>■</span>&nbsp;{_escape(name)}"
            for j, name in enumerate(names)))
        self.key.setVisible(bool(names))
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
            self._bars.append(bar)
        self.plot.setXRange(-0.6, len(languages) - 0.4, padding=0)
        self.plot.setYRange(0, top * 1.05, padding=0)

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
        strr = self.tr("n/a") if f.strr is None else f"{f.strr:.1%}"
        text = self.tr("{tokenizer}, {language}: premium {premium}<br>"
                       "{tokens} tokens ({pivot}: {pivot_tokens}); {chars} chars, {bytes} bytes per token<br>"
                       "STRR {strr}; unknown + byte fallback {fallback}").format(
            tokenizer=f"<b>{_escape(name)}</b>", language=_escape(lang), premium=f"{f.premium:.3f}",
            tokens=f"{f.tokens:,}", pivot=_escape(result.pivot), pivot_tokens=f"{pivot_tokens:,}",
            chars=f"{f.chars_per_token:.2f}", bytes=f"{f.bytes_per_token:.2f}", strr=strr,
            fallback=f"{f.fallback_share:.2%}")
        QToolTip.showText(self.plot.mapToGlobal(self.plot.mapFromScene(pos)), text, self.plot)

    def _fill_table(self, result: FairnessResult) -> None:
        rows = result.rows()
        cols = list(rows[0]) if rows else []
        table = self.table
        table.clear()
        table.setColumnCount(len(cols))
        table.setRowCount(len(rows))
        table.setHorizontalHeaderLabels([_column_title(c) for c in cols])
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
                    item.setText(self.tr("n/a"))
                    item.setForeground(muted)
                    item.setToolTip(self.tr("{language} is written mostly without spaces: no STRR").format(language=lang))
                if lang == result.pivot:
                    item.setFont(bold)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)


def _column_title(col: str) -> str:
    """A column's header: "<tokenizer>\n<figure>" (the figure translated), or the figure alone."""
    name, _, figure = col.rpartition(" ")
    shown = _tr(FIGURES[figure]) if figure in FIGURES else figure
    return f"{name}\n{shown}" if name else shown


def _english_definition(scripts: str, limit: str) -> str:
    return ("STRR (single-token word rate): a word is a maximal run of \\w characters outside scripts written "
            f"without spaces ({scripts}); STRR is the share of word occurrences lying inside one token that is not "
            f"the unknown token; a language whose word characters are more than {limit} in those scripts has no "
            "STRR (n/a).")


def _column_tip(col: str, pivot: str) -> str:
    if col.endswith("premium"):
        return QCoreApplication.translate(
            "FairnessView", "Tokens for this language over tokens for {pivot}, same content, same tokenizer").format(
            pivot=pivot)
    if col.endswith("STRR"):
        return QCoreApplication.translate(
            "FairnessView", "Single-token word rate: share of words lying inside one token (n/a: written without spaces)")
    if col.endswith("unk/byte"):
        return QCoreApplication.translate("FairnessView", "Unknown and byte-fallback tokens over all tokens")
    return ""


def _escape(text: str) -> str:
    import html

    return html.escape(str(text))
