"""The editor and the token view kept in step: hovering a token marks its text, clicking one puts the
cursor on it, dragging over tokens selects their text and selecting text highlights its tokens;
moving the cursor outlines the token under it.  Positions go through `editor.qt_pos` / `py_index`
(Qt counts UTF-16 units and a \\r\\n pair as one break), counted from the start of the part of the
text the editor holds (`editor_span`: all of it, or in big-file mode a part of the file)."""
from __future__ import annotations

import bisect

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

from .editor import py_index, qt_pos, token_at_char


class EditorTokenLink(QObject):
    """Links `window.editor` and `window.token_view` (window: a MainWindow)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.editor = window.editor
        self.view = window.token_view
        self.starts: list[int] = []  # the shown tokens' start characters, sorted
        self.cursor_moved_by_user = False  # outline the token at the cursor only once the user moves it
        self._selecting_from_tokens = False
        # (text, char, piece) of the last token clicked while the Merges dock was hidden: shown there
        # once the dock is (`merges_dock_shown`)
        self._clicked: tuple[str, int, str] | None = None
        self.editor.cursorPositionChanged.connect(self.cursor_position_changed)
        self.editor.focusChanged.connect(lambda _focused: self.cursor_moved())
        self.editor.selectionChanged.connect(self.editor_selection_changed)
        self.view.tokenHovered.connect(self.token_hovered)
        self.view.tokenClicked.connect(self.token_clicked)
        self.view.tokensSelected.connect(self.select_tokens)

    def encoding_shown(self) -> None:
        """The token view shows another encoding."""
        self.starts = self.view.token_starts() if self.view.encoding() is not None else []
        self.cursor_moved()

    def goto_token(self, index: int) -> bool:
        """Outline token `index` (0-based), scroll it into view and put the editor's cursor on it (in
        big-file mode, past the preview: with the part of the file around it in the editor)."""
        enc = self.view.encoding()
        if enc is None or not 0 <= index < len(enc):
            return False
        if self.window.big.is_active():
            self.window.big.show_region(enc.text, enc.offsets[index][0])
        self.token_clicked(index)  # (moving the cursor outlines the token before a boundary)
        self.view.set_current_token(index)
        return True

    def select_tokens(self, first: int, last: int) -> None:
        """Select the text of tokens first..last in the editor (and highlight them)."""
        enc = self.view.encoding()
        span = self.editor_span(enc)
        if span is None or not 0 <= first <= last < len(enc):
            return
        start, end = enc.offsets[first][0], max(e for _, e in enc.offsets[first:last + 1])
        self.view.set_selection(first, last)
        held_start, held_end = max(start, span[0]), min(end, span[1])
        if held_start > held_end or (held_start == held_end and start != end):
            return  # (a big file's tokens outside the part the editor holds)
        cursor = self.editor.textCursor()
        cursor.setPosition(self.editor_position(enc, span, held_start))
        cursor.setPosition(self.editor_position(enc, span, held_end), QTextCursor.MoveMode.KeepAnchor)
        self._selecting_from_tokens = True
        try:
            self.editor.setTextCursor(cursor)
        finally:
            self._selecting_from_tokens = False
        self.view.set_selection(first, last)

    def select_span(self, start: int, end: int) -> None:
        """Select characters [start, end) in the editor and their tokens in the token view (an
        empty span: the characters on either side)."""
        enc = self.view.encoding()
        if enc is None or not 0 <= start <= end <= len(enc.text):
            return
        if end == start:
            start, end = max(0, start - 1), min(len(enc.text), end + 1)
        span = self.tokens_in_range(start, end)
        if span is None:  # (text no token covers: the token before it)
            before = self.tokens_in_range(0, start)
            span = (before[1], before[1]) if before else None
        held = self.editor_span(enc)
        if held is not None and held[0] <= start and end <= held[1]:
            cursor = self.editor.textCursor()
            cursor.setPosition(self.editor_position(enc, held, start))
            cursor.setPosition(self.editor_position(enc, held, end), QTextCursor.MoveMode.KeepAnchor)
            self.editor.setTextCursor(cursor)
            self.editor.ensureCursorVisible()
        if span is not None:
            self.view.set_selection(*span)
            self.view.ensure_visible(span[0])

    def tokens_in_range(self, start: int, end: int) -> tuple[int, int] | None:
        """(first, last) index of the tokens overlapping characters [start, end), or None."""
        enc = self.view.encoding()
        if enc is None or end <= start:
            return None
        hits = []  # tokens are ordered by start: scan from the first that may overlap to the last
        k = max(0, bisect.bisect_right(self.starts, start) - 1)
        while k > 0 and enc.offsets[k - 1][1] > start:
            k -= 1
        while k < len(enc) and enc.offsets[k][0] < end:
            a, b = enc.offsets[k]
            if b > start and b > a:
                hits.append(k)
            k += 1
        return (hits[0], hits[-1]) if hits else None

    def editor_span(self, enc) -> tuple[int, int] | None:
        """[start, end): the characters of `enc`'s text the editor holds (all of them, or in big-file
        mode the preview or the part of the file gone to), or None when it shows another text."""
        if enc is None:
            return None
        big = self.window.big
        if big.is_active():
            start, held = big.editor_region()
            return (start, start + len(held)) if enc.text.startswith(held, start) else None
        text = self.window.current_text()
        return (0, len(text)) if enc.text == text else None

    @staticmethod
    def _held_text(enc, span: tuple[int, int]) -> str:
        return enc.text if span == (0, len(enc.text)) else enc.text[span[0]:span[1]]

    def editor_position(self, enc, span: tuple[int, int], index: int) -> int:
        """The editor's position of character `index` of `enc`'s text (inside `span`)."""
        return qt_pos(self._held_text(enc, span), index - span[0])

    def char_index(self, enc, span: tuple[int, int], position: int) -> int:
        """The character of `enc`'s text at the editor's `position` (the inverse of editor_position)."""
        return span[0] + py_index(self._held_text(enc, span), position)

    def editor_selection_changed(self) -> None:
        if self._selecting_from_tokens:
            return
        enc = self.view.encoding()
        cursor = self.editor.textCursor()
        span = self.editor_span(enc)
        if not cursor.hasSelection() or span is None:
            self.view.set_selection(-1, -1)
            return
        start = self.char_index(enc, span, cursor.selectionStart())
        end = self.char_index(enc, span, cursor.selectionEnd())
        span = self.tokens_in_range(start, end)
        self.view.set_selection(*(span or (-1, -1)))

    def token_hovered(self, index: int) -> None:
        enc = self.view.encoding()
        selections = []
        span = self.editor_span(enc)
        if span is not None and 0 <= index < len(enc):
            s, e = enc.offsets[index]
            if span[0] <= s < e <= span[1]:
                sel = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setBackground(QColor(self.view.color_of(index)))
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
                sel.format = fmt
                cur = QTextCursor(self.editor.document())
                cur.setPosition(self.editor_position(enc, span, s))
                cur.setPosition(self.editor_position(enc, span, e), QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cur
                selections.append(sel)
        self.editor.setExtraSelections(selections)

    def token_clicked(self, index: int) -> None:
        enc = self.view.encoding()
        if enc is None or not 0 <= index < len(enc):  # (a click queued before the view showed a shorter text)
            return
        if not enc.special[index]:
            self._clicked = (enc.text, enc.offsets[index][0], enc.pieces[index])
            if self.window.merges_dock.isVisible():
                self.merges_dock_shown(True)
        span = self.editor_span(enc)
        if span is None or not span[0] <= enc.offsets[index][0] <= span[1]:
            return
        cur = self.editor.textCursor()
        cur.setPosition(self.editor_position(enc, span, enc.offsets[index][0]))
        self.editor.setTextCursor(cur)
        self.editor.ensureCursorVisible()

    def merges_dock_shown(self, visible: bool) -> None:
        """The Merges dock came into sight: it shows the token last clicked (once: raised again later,
        it keeps what the user looked at since), if the token view still shows that text."""
        if not visible or self._clicked is None:
            return
        text, char, piece = self._clicked
        self._clicked = None
        enc = self.view.encoding()
        if enc is not None and (enc.text is text or enc.text == text):
            self.window.merges_panel.show_in_context(text, char, piece)

    def cursor_position_changed(self) -> None:
        if not self.window.is_setting_text():
            self.cursor_moved_by_user = True
        self.cursor_moved()

    def cursor_moved(self) -> None:
        enc = self.view.encoding()
        span = self.editor_span(enc)
        if (enc is None or not len(enc) or not self.cursor_moved_by_user or not self.editor.hasFocus()
                or span is None):
            self.view.set_current_token(-1)
            return
        idx = self.char_index(enc, span, self.editor.textCursor().position())
        self.view.set_current_token(token_at_char(enc.offsets, self.starts, max(0, idx - 1)))
