"""The source-text editor, and positions in it: Python character indices <-> Qt's UTF-16 positions."""
from __future__ import annotations

import bisect
import re

import regex
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import QPlainTextEdit

_NON_BMP = re.compile("[\U00010000-\U0010ffff]")

# Qt's word wrapping rescans an unbreakable run for every line it wraps, so its cost grows with the
# square of the run: a 100,000-character line of comma-separated numbers took 0.2 s to lay out per
# keystroke.  Texts with a run this long wrap anywhere instead (at most a few ms).
LONG_RUN = 1000
# (the look-behind starts a match only where a run starts, so each run is read once: without it a
# text of runs just short of LONG_RUN took seconds)
_UNBREAKABLE_RUN = regex.compile(r"(?<![^\s\p{Line_Break=Ideographic}])[^\s\p{Line_Break=Ideographic}]{%d}" % LONG_RUN)
_RECHECK_MS = 500


def has_long_run(text: str) -> bool:
    """Whether `text` holds LONG_RUN characters in a row with no white space or ideograph."""
    # (concurrent=False: the search keeps the GIL, rather than taking it back at every check
    # beside busy worker threads; a 600K-character text is read in ~20 ms)
    return _UNBREAKABLE_RUN.search(text, concurrent=False) is not None


class TextEditor(QPlainTextEdit):
    """The source text.  File drops are left to the window (which decides tokenizer or text).

    `setPlainText` is an edit here, like pasting over everything: one undo step, and the document is
    modified.  The window puts a file's text in with `load_text` (or its TextDocument's edit block)."""

    focusChanged = Signal(bool)

    def __init__(self, font, parent=None):
        super().__init__(parent)
        self.setObjectName("TextEditor")
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # long runs of spaces overhang
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.document().setDocumentMargin(10)
        self.setPlaceholderText(self.tr("Type or paste text here, or drop a text file…"))
        self.set_text_font(font)
        self._wrap_recheck = QTimer(self, singleShot=True, interval=_RECHECK_MS)
        self._wrap_recheck.timeout.connect(lambda: self._wrap_for(self.document().toRawText()))
        self.document().contentsChange.connect(self._on_contents_change)

    def wraps_anywhere(self) -> bool:
        """Whether lines wrap at any character (the text has a long unbreakable run) rather than
        at word boundaries."""
        return self.wordWrapMode() == QTextOption.WrapMode.WrapAnywhere

    def _wrap_for(self, text: str, *, only_anywhere: bool = False) -> None:
        anywhere = has_long_run(text)
        if anywhere == self.wraps_anywhere() or (only_anywhere and not anywhere):
            return
        self.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere if anywhere
                             else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)

    def _on_contents_change(self, position: int, removed: int, added: int) -> None:
        if self.wraps_anywhere():
            self._wrap_recheck.start()  # (an edit may have broken the last long run)
        else:  # (an insertion, or a deletion joining two runs, may make a long run)
            block = self.document().findBlock(position)
            if block.length() > LONG_RUN:  # (a new run holds the edit: look only around it)
                at = position - block.position()
                around = block.text()[max(at - LONG_RUN, 0):at + added + LONG_RUN]
                self._wrap_for(around, only_anywhere=True)

    def set_text_font(self, font) -> None:
        self.setFont(font)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))

    def load_text(self, text: str) -> None:
        """Qt's setPlainText: the text, unmodified, with no undo history."""
        self._wrap_for(text)
        super().setPlainText(text)

    def setPlainText(self, text: str) -> None:
        self._wrap_for(text)
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()
        self.moveCursor(QTextCursor.MoveOperation.Start)  # (where Qt's setPlainText leaves it)

    def text(self) -> str:
        # toRawText keeps non-breaking spaces (toPlainText turns them into spaces)
        return self.document().toRawText().replace("\u2029", "\n")

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.focusChanged.emit(True)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.focusChanged.emit(False)

    def insertFromMimeData(self, source) -> None:
        if source.hasText() and not source.hasUrls():
            self._wrap_for(source.text(), only_anywhere=True)  # (before Qt lays the pasted text out)
        super().insertFromMimeData(source)

    def canInsertFromMimeData(self, source) -> bool:
        if source.hasUrls():
            return False
        return super().canInsertFromMimeData(source)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.ignore()
            return
        super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.ignore()
            return
        super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if event.mimeData().hasUrls():
            event.ignore()
            return
        super().dropEvent(event)


def qt_pos(text: str, index: int) -> int:
    """Python character index in `text` -> position in the editor's document (UTF-16 units;
    a \\r\\n pair is one paragraph break there)."""
    prefix = text[:index]
    return index + len(_NON_BMP.findall(prefix)) - prefix.count("\r\n")


def py_index(text: str, position: int) -> int:
    """Editor position -> Python character index (the inverse of qt_pos, by scanning)."""
    if not _NON_BMP.search(text) and "\r\n" not in text:
        return position
    pos = i = 0
    n = len(text)
    while i < n and pos < position:
        ch = text[i]
        if ch == "\r" and i + 1 < n and text[i + 1] == "\n":
            i += 2
            pos += 1
            continue
        pos += 2 if ord(ch) > 0xFFFF else 1
        i += 1
    return i


def token_at_char(offsets, starts: list[int], char: int) -> int:
    """Index of the first token whose span holds character `char` (-1 if none); `starts` are the
    spans' starts, sorted (as an Encoding's are)."""
    k = bisect.bisect_right(starts, char) - 1
    if k < 0:
        return -1
    while k > 0 and starts[k - 1] <= char < offsets[k - 1][1]:
        k -= 1
    s, e = offsets[k]
    return k if s <= char < e else -1
