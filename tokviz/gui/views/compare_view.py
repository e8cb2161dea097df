"""The Compare view: one text, 2 to 8 tokenizers side by side.

* Panes, one tokenizer each, with the token count, characters per token and encode time in their
  header; ◀ ▶ move a pane, ✕ removes it; tokenizers are added with "Add…", by dropping files or
  the Library's entries on the view.  The set is remembered between runs (the window saves
  `paths()`).
* Scrolling one pane scrolls the others to the same place in the text; hovering a token outlines,
  in every pane, the token that covers the same character.
* Boundary diff: a red bar marks each token that starts where the tokenizers disagree about a cut;
  the summary says how much of the text all of them cut identically, and lists the words one of them
  splits into the most pieces.
* Under the panes, the table of counts (tokens, bytes and characters per token, unknown and
  byte-fallback tokens, time); Copy CSV / Markdown, Save PNG of the panes.

Encodes run in parallel on workers and each pane fills as its result arrives (a 1 MB text with five
tokenizers keeps the window responsive); the encodings are turned into TokenArrays with their
layout blocks on the worker, so showing one costs the UI thread little.  The diff is computed on a
worker once all panes are filled (`analysis.compare`).
"""
from __future__ import annotations

import html
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMimeData, QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...analysis.compare import Comparison, compare_text
from ...analysis.corpus_stats import table_csv, table_markdown, unique_name
from ...core.gcpause import freeze_long_lived
from ...core.token_array import encode_to_array
from ..window.open_tokenizers import open_found, open_tokenizer
from ..widgets.style import DEFAULT_THEME, TokenTheme
from .token_view import TokenView
from ..work.workers import TaskRunner, describe_error

MAX_PANES = 8
DEFAULT_PNG_NAME = "compare.png"  # (a file name: not translated)
PANE_MIN_WIDTH = 220  # narrower than this, the panes scroll sideways instead
TOKENIZER_MIME = "application/x-tokviz-tokenizer"  # JSON list of {"path", "name", "format", "encoding"}
# The table's columns (the keys of `analysis.compare`'s rows, which Copy CSV / Markdown keep) as shown.
COLUMN_NAMES = {
    "tokenizer": QT_TRANSLATE_NOOP("CompareView", "tokenizer"),
    "vocab size": QT_TRANSLATE_NOOP("CompareView", "vocab size"),
    "tokens": QT_TRANSLATE_NOOP("CompareView", "tokens"),
    "bytes/token": QT_TRANSLATE_NOOP("CompareView", "bytes/token"),
    "chars/token": QT_TRANSLATE_NOOP("CompareView", "chars/token"),
    "unknown": QT_TRANSLATE_NOOP("CompareView", "unknown"),
    "byte fallback": QT_TRANSLATE_NOOP("CompareView", "byte fallback"),
    "time (ms)": QT_TRANSLATE_NOOP("CompareView", "time (ms)"),
}


def column_name(key: str) -> str:
    """A column of the comparison table as shown (its key in the rows, translated)."""
    return QCoreApplication.translate("CompareView", COLUMN_NAMES[key]) if key in COLUMN_NAMES else key


def tokenizer_mime(entries: list[dict]) -> QMimeData:
    """Mime data for dragging tokenizers (the Library's entries) onto the Compare view."""
    mime = QMimeData()
    mime.setData(TOKENIZER_MIME, json.dumps(entries).encode("utf-8"))
    return mime


@dataclass
class _Source:
    path: str
    name: str
    encoding: str | None = None  # a tiktoken cache file's encoding name

    def load(self):
        if self.encoding is None:
            return open_tokenizer(self.path)
        from ...formats.discover import Found

        return open_found(Found(self.name, Path(self.path), "tiktoken", "dropped", self.encoding))


def _unbreakable(text: str) -> str:
    """`text` that a word-wrapped label never breaks: no-break spaces, and word joiners between
    characters (Chinese breaks between any two characters)."""
    return "\u2060".join(text.replace(" ", "\u00a0"))


class ComparePane(QFrame):
    """One tokenizer's pane: a header with its name (elided in the middle when the pane is narrow)
    and buttons, its figures under it (wrapping between figures, never inside one), and a
    TokenView.  The header's tooltip holds the name and figures whole."""

    moveRequested = Signal(object, int)  # pane, -1 / +1
    removeRequested = Signal(object)

    def __init__(self, source: _Source, theme: TokenTheme):
        super().__init__()
        self.source = source
        self.tokenizer = None
        self.encoding = None
        self.seconds = 0.0
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(PANE_MIN_WIDTH)
        self.title = QLabel()
        self.title.setObjectName("PaneTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bold = QFont(self.title.font())
        bold.setBold(True)
        self.title.setFont(bold)
        # a long name is elided in the middle (the tooltip has it whole): it never widens the pane
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        left, right, close = QToolButton(), QToolButton(), QToolButton()
        for b, text, tip in ((left, "◀", self.tr("Move left")), (right, "▶", self.tr("Move right")),
                             (close, "✕", self.tr("Remove"))):
            b.setText(text)
            b.setToolTip(tip)
            b.setAutoRaise(True)
        left.clicked.connect(lambda: self.moveRequested.emit(self, -1))
        right.clicked.connect(lambda: self.moveRequested.emit(self, 1))
        close.clicked.connect(lambda: self.removeRequested.emit(self))
        self.view = TokenView(theme=theme)
        self.view.set_message(self.tr("Loading…"))
        self.figures = QLabel()
        self.figures.setObjectName("PaneFigures")
        self.figures.setTextFormat(Qt.TextFormat.RichText)
        self.figures.setWordWrap(True)  # (in a narrow pane the figures take two or three lines)
        self.figures.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        head = QHBoxLayout()
        head.setContentsMargins(4, 2, 2, 0)
        head.addWidget(self.title, 1)
        for b in (left, right, close):
            head.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(head)
        layout.addWidget(self.figures)
        layout.addWidget(self.view, 1)
        self._figures: list[str] = []
        self._set_title([self.tr("loading…")])

    def name(self) -> str:
        return self.source.name

    def figure_texts(self) -> list[str]:
        """The figures under the name, each as plain text (the tokens, characters per token, time)."""
        return list(self._figures)

    def _set_title(self, figures: list[str], tip: str = "", color: str | None = None) -> None:
        """The name on the first line, `figures` under it: they wrap between figures, never inside one."""
        self._figures = figures
        self._fit_title()
        style = f" style='color:{color}'" if color else ""
        self.figures.setText(" · ".join(f"<span{style}>{html.escape(_unbreakable(f))}</span>" for f in figures))
        self.figures.setContentsMargins(4, 0, 4, 2)
        tip = tip or "\n".join((self.source.name, " · ".join(figures)))
        for label in (self.title, self.figures):
            label.setToolTip(tip)

    def _fit_title(self) -> None:
        """The name elided in the middle to the room the buttons leave (the whole name in the tooltip)."""
        width = self.title.contentsRect().width()
        name = self.source.name
        self.title.setText(self.title.fontMetrics().elidedText(name, Qt.TextElideMode.ElideMiddle, width)
                           if width > 0 else name)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_title()

    def show_encoding(self, encoding, seconds: float) -> None:
        self.encoding = encoding
        self.seconds = seconds
        self.view.set_encoding(encoding)
        n = len(encoding)
        chars = len(encoding.text)
        figures = [self.tr("1 token") if n == 1 else self.tr("{n:,} tokens").format(n=n)]
        if n:
            figures.append(self.tr("{ratio:.2f} chars/token").format(ratio=chars / n))
        figures.append(self.tr("{ms:,.0f} ms").format(ms=seconds * 1000))
        self._set_title(figures)

    def show_error(self, message: str) -> None:
        self._set_title([self.tr("failed")], message, color="#c0392b")
        self.view.set_encoding(None)
        self.view.set_message(message)


class CompareView(QWidget):
    """See the module docstring.  `set_text`, `add_path` / `add_tokenizer`, `remove_pane`,
    `move_pane`, `paths()`; `paneEncoded(index)` as panes fill, `compared(Comparison)` when the
    diff is done, `panesChanged()` when the set changes."""

    paneEncoded = Signal(int)
    compared = Signal(object)
    panesChanged = Signal()

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME, threads: int = 2):
        super().__init__(parent)
        self.theme = theme
        self.panes: list[ComparePane] = []
        self.comparison: Comparison | None = None
        self._text = ""
        self._generation = 0
        self._runner = TaskRunner(threads, self)
        self._diff_runner = TaskRunner(1, self)
        self._syncing = False
        self._closed = False
        self.setAcceptDrops(True)

        self.pane_box = QSplitter(Qt.Orientation.Horizontal)
        self.pane_box.setChildrenCollapsible(False)
        # panes share the width; past PANE_MIN_WIDTH each, they scroll sideways (the window never grows)
        self.pane_scroll = QScrollArea()
        self.pane_scroll.setWidgetResizable(True)
        self.pane_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.pane_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pane_scroll.setWidget(self.pane_box)
        self._show_whitespace = True
        self.empty = QLabel(self.tr("Add tokenizers to compare (Add…, or drop tokenizer files or Library entries "
                                    "here)."))
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.add_button = QPushButton(self.tr("Add tokenizer…"))
        self.add_button.clicked.connect(self.ask_add)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 0)
        self.table.verticalHeader().setVisible(False)
        self.words = QListWidget()
        self.words.setToolTip(self.tr("Words one tokenizer splits into the most pieces"))
        copy_csv = QPushButton(self.tr("Copy CSV"))
        copy_csv.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.table_text("csv")))
        copy_md = QPushButton(self.tr("Copy Markdown"))
        copy_md.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.table_text("markdown")))
        save_png = QPushButton(self.tr("Save PNG…"))
        save_png.clicked.connect(self._ask_save_png)
        self._diff_timer = QTimer(self)
        self._diff_timer.setSingleShot(True)
        self._diff_timer.setInterval(50)
        self._diff_timer.timeout.connect(self._start_diff)

        top = QHBoxLayout()
        top.addWidget(self.add_button)
        top.addWidget(self.summary, 1)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.table)
        bottom.addWidget(self.words)
        bottom.setSizes([700, 300])
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (copy_csv, copy_md, save_png):
            buttons.addWidget(b)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(bottom, 1)
        ll.addLayout(buttons)
        body = QSplitter(Qt.Orientation.Vertical)
        panes = QWidget()
        pl = QVBoxLayout(panes)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.empty)
        pl.addWidget(self.pane_scroll, 1)
        body.addWidget(panes)
        body.addWidget(lower)
        body.setSizes([520, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        self._update_empty()

    # ---- the set of tokenizers ----------------------------------------------------------------------
    def paths(self) -> list[dict]:
        """The panes' sources, in order (what the window keeps in its settings)."""
        return [{"path": p.source.path, "name": p.source.name, "encoding": p.source.encoding} for p in self.panes]

    def tokenizers(self) -> dict:
        """name -> Tokenizer of the panes whose tokenizer has loaded, in pane order."""
        return {p.name(): p.tokenizer for p in self.panes if p.tokenizer is not None}

    def add_path(self, path: str | os.PathLike, name: str | None = None, encoding: str | None = None) -> bool:
        """Add a pane for the tokenizer at `path` (loaded on a worker); False when 8 are open."""
        if len(self.panes) >= MAX_PANES:
            self.summary.setText(self.tr("At most {n} tokenizers side by side.").format(n=MAX_PANES))
            return False
        path = os.fspath(path)
        source = _Source(path, unique_name(name or Path(path).name, {p.name() for p in self.panes}), encoding)
        pane = self._new_pane(source)

        def done(tok) -> None:
            if pane in self.panes:
                freeze_long_lived()  # (a vocabulary: see core.gcpause)
                pane.tokenizer = tok
                if name is None and tok.source.name:  # (a folder's or file's own name, once known)
                    source.name = unique_name(tok.source.name, {p.name() for p in self.panes if p is not pane})
                    self.panesChanged.emit()
                self._encode(pane, self._generation)  # (the text may have changed while it loaded)

        def failed(exc) -> None:
            if pane in self.panes:
                pane.show_error(self.tr("Could not load {path}:\n{error}").format(path=path, error=describe_error(exc)))

        self._runner.submit(source.load, done, failed)
        return True

    def add_tokenizer(self, tokenizer, name: str | None = None) -> bool:
        """Add a pane for an already loaded tokenizer."""
        if len(self.panes) >= MAX_PANES:
            return False
        path = tokenizer.source.path or ""
        source = _Source(os.fspath(path), unique_name(name or tokenizer.source.name or Path(path).name,
                                                      {p.name() for p in self.panes}))
        pane = self._new_pane(source)
        pane.tokenizer = tokenizer
        freeze_long_lived()
        self._encode(pane, self._generation)
        return True

    def _new_pane(self, source: _Source) -> ComparePane:
        pane = ComparePane(source, self.theme)
        pane.view.set_show_whitespace(self._show_whitespace)
        pane.moveRequested.connect(lambda p, d: self.move_pane(self.panes.index(p), d))
        pane.removeRequested.connect(lambda p: self.remove_pane(self.panes.index(p)))
        pane.view.tokenHovered.connect(lambda i, p=pane: self._hovered(p, i))
        pane.view.verticalScrollBar().valueChanged.connect(lambda _v, p=pane: self._scrolled(p))
        self.panes.append(pane)
        self.pane_box.addWidget(pane)
        self.comparison = None
        self._update_empty()
        self.panesChanged.emit()
        return pane

    def set_tokenizer_path(self, tokenizer, path: str) -> None:
        """`tokenizer` has a file now (kept or exported): its panes refer to it from now on."""
        changed = False
        for pane in self.panes:
            if pane.tokenizer is tokenizer and pane.source.path != path:
                pane.source.path = path
                changed = True
        if changed:
            self.panesChanged.emit()

    def uses_path(self, path: str) -> bool:
        return any(p.source.path == path for p in self.panes)

    def remove_path(self, path: str) -> None:
        """Remove the panes of the tokenizer at `path` (it was discarded)."""
        for index in reversed(range(len(self.panes))):
            if self.panes[index].source.path == path:
                self.remove_pane(index)

    def set_show_whitespace(self, on: bool) -> None:
        self._show_whitespace = on
        for pane in self.panes:
            pane.view.set_show_whitespace(on)

    def remove_pane(self, index: int) -> None:
        pane = self.panes.pop(index)
        pane.setParent(None)
        pane.deleteLater()
        self.comparison = None  # (it holds the removed pane's tokenizer and tokens)
        self._update_empty()
        self.panesChanged.emit()
        self._diff_timer.start()

    def move_pane(self, index: int, delta: int) -> None:
        target = index + delta
        if not (0 <= index < len(self.panes) and 0 <= target < len(self.panes)):
            return
        pane = self.panes.pop(index)
        self.panes.insert(target, pane)
        self.pane_box.insertWidget(target, pane)
        self.panesChanged.emit()
        self._diff_timer.start()

    def _update_empty(self) -> None:
        self.empty.setVisible(not self.panes)
        self.pane_scroll.setVisible(bool(self.panes))

    # ---- text and encoding --------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Compare on `text`: every pane is encoded again."""
        if text == self._text and all(p.encoding is not None for p in self.panes if p.tokenizer is not None):
            return
        self._text = text
        self._generation += 1
        self.comparison = None
        for pane in self.panes:
            if pane.tokenizer is not None:
                self._encode(pane, self._generation)

    def text(self) -> str:
        return self._text

    def _encode(self, pane: ComparePane, gen: int) -> None:
        if self._closed:
            return
        tok, text = pane.tokenizer, self._text
        pane.encoding = None
        pane.view.set_encoding(None)
        pane.view.set_message(self.tr("Encoding…"))

        def work():
            tok.encode("warm up")  # (a first call builds the native encoder: not part of the time)
            t0 = time.perf_counter()
            tokens = encode_to_array(tok, text)  # (long texts piece by piece: no call holds the GIL long)
            seconds = time.perf_counter() - t0
            tokens.prepare_blocks(TokenView.BLOCK_TOKENS)
            return tokens, seconds

        def done(result) -> None:
            if gen != self._generation or pane not in self.panes:
                return
            pane.show_encoding(*result)
            self.paneEncoded.emit(self.panes.index(pane))
            self._diff_timer.start()

        def failed(exc) -> None:
            if gen == self._generation and pane in self.panes:
                pane.show_error(describe_error(exc))

        self._runner.submit(work, done, failed)

    def is_busy(self) -> bool:
        return self._runner.pending() > 0 or self._diff_runner.pending() > 0 or self._diff_timer.isActive()

    # ---- the diff -----------------------------------------------------------------------------------
    def _start_diff(self) -> None:
        if self._closed:
            return
        ready = [p for p in self.panes if p.encoding is not None]
        if len(ready) != len(self.panes) or len(ready) < 2:
            self.comparison = None
            self.summary.setText("" if len(ready) >= 2 or not self.panes
                                 else self.tr("Add another tokenizer to compare."))
            self._show_table([])
            return
        gen = self._generation
        tokenizers = {p.name(): p.tokenizer for p in ready}
        encodings = [p.encoding for p in ready]
        seconds = [p.seconds for p in ready]
        text = self._text
        order = list(ready)

        def done(result: Comparison) -> None:
            if gen != self._generation or order != self.panes:
                return  # stale: the set or the text changed since
            self.comparison = result
            for k, pane in enumerate(self.panes):
                # one pane repainted at a time: all at once is one long paint of every pane
                marks = result.differing_tokens(k)
                QTimer.singleShot(25 * k, self, lambda p=pane, m=marks: self._mark(p, m))
            self._show_table(result.rows)
            self.words.clear()
            for w in result.split_words:
                counts = ", ".join(f"{n} {c}" for n, c in w["pieces"].items())
                self.words.addItem(f"{w['word']}: {counts}")
            self.summary.setText(self.tr(
                "{share:.1%} of the {chars:,} characters are in tokens all {n} tokenizers cut the same way; "
                "the cuts differ at {places:,} places (red marks).").format(
                    share=result.identical_share, chars=len(text), n=len(order),
                    places=len(result.differing_positions())))
            self.compared.emit(result)

        self._diff_runner.submit(lambda: compare_text(tokenizers, text, encodings=encodings, seconds=seconds), done,
                                 lambda exc: self.summary.setText(
                                     self.tr("Could not compare: {error}").format(error=describe_error(exc))))

    def _mark(self, pane: ComparePane, marks) -> None:
        if not self._closed and pane in self.panes:
            pane.view.set_marks(marks)

    def _show_table(self, rows: list[dict]) -> None:
        self.table.clear()
        cols: list[str] = []
        for r in rows:
            cols.extend(k for k in r if k not in cols)
        self.table.setColumnCount(len(cols))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels([column_name(c) for c in cols])
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                v = r.get(c, "")
                text = f"{v:,}" if isinstance(v, int) else (f"{v:.3f}" if isinstance(v, float) else str(v))
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()

    def table_rows(self) -> list[dict]:
        return self.comparison.rows if self.comparison is not None else []

    def table_text(self, style: str) -> str:
        rows = self.table_rows()
        return table_csv(rows) if style == "csv" else table_markdown(rows)

    # ---- synchronised hover and scroll ------------------------------------------------------------------
    def _hovered(self, source: ComparePane, index: int) -> None:
        char = int(source.view.token_starts()[index]) if index >= 0 and source.encoding is not None else -1
        for pane in self.panes:
            if pane is source or pane.encoding is None:
                continue
            other = pane.encoding.token_at(char) if char >= 0 else None
            pane.view.set_linked_hover(-1 if other is None else other)

    def _scrolled(self, source: ComparePane) -> None:
        if self._syncing or source.encoding is None:
            return
        top = source.view.top_token()
        if top < 0:
            return
        char = int(source.view.token_starts()[top])
        self._syncing = True
        try:
            for pane in self.panes:
                if pane is not source and pane.encoding is not None:
                    other = pane.encoding.token_at(char)
                    if other is None:  # (an uncovered character: the next token)
                        other = min(int(pane.encoding.starts.searchsorted(char)), len(pane.encoding) - 1)
                    pane.view.scroll_to_token(other)
        finally:
            self._syncing = False

    # ---- dropping, adding, saving -------------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        mime = event.mimeData()
        if mime.hasFormat(TOKENIZER_MIME) or mime.hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        mime = event.mimeData()
        if mime.hasFormat(TOKENIZER_MIME):
            for entry in json.loads(bytes(mime.data(TOKENIZER_MIME)).decode("utf-8")):
                self.add_path(entry["path"], entry.get("name"), entry.get("encoding"))
        else:
            for url in mime.urls():
                if url.isLocalFile():
                    self.add_path(url.toLocalFile())
        event.acceptProposedAction()

    def ask_add(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, self.tr("Add a tokenizer to compare"))
        if name:
            self.add_path(name)

    def _ask_save_png(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, self.tr("Save the panes as PNG"), DEFAULT_PNG_NAME,
                                              self.tr("PNG images (*.png)"))
        if name:
            self.save_png(name)

    def save_png(self, path: str | os.PathLike) -> bool:
        return self.pane_box.grab().save(os.fspath(path), "PNG")

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for pane in self.panes:
            pane.view.set_theme(theme)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._closed = True
        self._diff_timer.stop()
        self._generation += 1
        self._runner.shutdown(timeout_ms)
        self._diff_runner.shutdown(timeout_ms)
