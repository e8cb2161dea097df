"""The inline find bar under the editor (Ctrl+F): finds as you type, Enter / Shift+Enter for the
next / previous match, "k of n" matches, Esc closes it and returns to the text."""
from __future__ import annotations

import bisect
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QToolButton, QWidget

from .editor import TextEditor, py_index

MAX_COUNTED = 100_000  # beyond this many matches the bar says "100,000+"


class FindBar(QWidget):
    """Finds in `editor`.  `closed` is emitted when the bar hides itself (Esc or ✕)."""

    closed = Signal()

    def __init__(self, editor: TextEditor, parent=None):
        super().__init__(parent)
        self.setObjectName("FindBar")
        self.editor = editor
        self.field = QLineEdit()
        self.field.setObjectName("FindField")
        self.field.setPlaceholderText(self.tr("Find in text"))
        self.field.setClearButtonEnabled(True)
        self.field.setMinimumWidth(80)
        self.previous_button, self.next_button, self.close_button = QToolButton(), QToolButton(), QToolButton()
        for button, text, tip in ((self.previous_button, "▲", self.tr("Previous match (Shift+Enter)")),
                                  (self.next_button, "▼", self.tr("Next match (Enter)")),
                                  (self.close_button, "✕", self.tr("Close the find bar (Esc)"))):
            button.setText(text)
            button.setToolTip(tip)
            button.setAutoRaise(True)
        self.case_box = QCheckBox(self.tr("Match case"))
        self.count_label = QLabel()
        self.count_label.setObjectName("FindCount")
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.count_label.setMinimumWidth(60)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 4, 2)
        layout.setSpacing(4)
        layout.addWidget(self.field, 3)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.case_box)
        layout.addWidget(self.count_label, 2)
        layout.addWidget(self.close_button)

        self.field.textEdited.connect(lambda _t: self.find(from_selection_start=True))
        self.field.returnPressed.connect(self.find_next)
        self.next_button.clicked.connect(self.find_next)
        self.previous_button.clicked.connect(self.find_previous)
        self.case_box.toggled.connect(lambda _on: self.find(from_selection_start=True))
        self.close_button.clicked.connect(self.close_bar)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close_bar,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Shift+Return"), self.field, self.find_previous,
                  context=Qt.ShortcutContext.WidgetShortcut)
        self.hide()

    # ---- public ---------------------------------------------------------------------------------
    def open_bar(self) -> None:
        """Show the bar with the editor's selection (if one line) as the text to find, focused."""
        selected = self.editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.field.setText(selected)
        self.show()
        self.field.setFocus()
        self.field.selectAll()
        self._update_count()

    def close_bar(self) -> None:
        self.hide()
        self.editor.setFocus()
        self.closed.emit()

    def needle(self) -> str:
        return self.field.text()

    def find_next(self) -> bool:
        return self.find()

    def find_previous(self) -> bool:
        return self.find(backward=True)

    def find(self, *, backward: bool = False, from_selection_start: bool = False) -> bool:
        """Select the next (or previous) match, wrapping around; False, with the field marked, if none."""
        needle = self.field.text()
        found = bool(needle) and self._find(needle, backward, from_selection_start)
        self.field.setProperty("error", bool(needle) and not found)
        self.field.style().unpolish(self.field)
        self.field.style().polish(self.field)
        self._update_count()
        return found

    # ---- internals ------------------------------------------------------------------------------
    def _flags(self, backward: bool):
        flags = QTextDocument.FindFlag(0)
        if self.case_box.isChecked():
            flags |= QTextDocument.FindFlag.FindCaseSensitively
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        return flags

    def _find(self, needle: str, backward: bool, from_selection_start: bool) -> bool:
        editor = self.editor
        if from_selection_start:  # (typing refines the match where it is)
            cursor = editor.textCursor()
            cursor.setPosition(cursor.selectionStart())
            editor.setTextCursor(cursor)
        if editor.find(needle, self._flags(backward)):
            return True
        cursor = editor.textCursor()
        saved = QTextCursor(cursor)
        cursor.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
        editor.setTextCursor(cursor)
        if editor.find(needle, self._flags(backward)):
            return True
        editor.setTextCursor(saved)
        return False

    def _update_count(self) -> None:
        needle = self.field.text()
        if not needle:
            self.count_label.setText("")
            return
        text = self.editor.text()
        pattern = re.compile(re.escape(needle), 0 if self.case_box.isChecked() else re.IGNORECASE)
        starts = []
        for match in pattern.finditer(text):
            starts.append(match.start())
            if len(starts) >= MAX_COUNTED:
                break
        if not starts:
            self.count_label.setText(self.tr("no match"))
            return
        total = f"{len(starts):,}{'+' if len(starts) >= MAX_COUNTED else ''}"
        cursor = self.editor.textCursor()
        if cursor.hasSelection():
            here = py_index(text, cursor.selectionStart())
            k = bisect.bisect_left(starts, here)
            if k < len(starts) and starts[k] == here:
                self.count_label.setText(self.tr("{index} of {total}").format(index=f"{k + 1:,}", total=total))
                return
        self.count_label.setText(self.tr("1 match") if len(starts) == 1
                                 else self.tr("{count} matches").format(count=total))
