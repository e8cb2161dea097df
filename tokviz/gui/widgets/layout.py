"""Layout pieces for narrow docks: labels that wrap or elide instead of widening their panel, rows
and panes that rearrange themselves with the width they get, a table of named figures and a page
that scrolls when its dock is shorter than it.  The Statistics, Vocabulary and analysis views use them.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPainter, QTextDocument, QTextDocumentFragment
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedLayout,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QWidget,
)


def button_grid(*buttons: QWidget, columns: int = 2) -> QGridLayout:
    """`buttons` `columns` to a row: a list's Add files / Add folder / Add URL / Remove fit a narrow dock."""
    grid = QGridLayout()
    grid.setSpacing(4)
    for k, button in enumerate(buttons):
        grid.addWidget(button, k // columns, k % columns)
    return grid


def scroll_page(content: QWidget) -> QScrollArea:
    """`content` in a frameless scroll area: it fills the area, and scrolls only when the area is
    smaller than the content's minimum size, so the page itself asks for almost no room."""
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(content)
    return area


_LONG_WORD = re.compile(r"\S{25,}")
_BREAK_AFTER = re.compile(r"([/\\_.,:;=-])")


def breakable(text: str, longest: int = 24) -> str:
    """`text` with zero-width spaces where a word longer than `longest` characters (a path, a file
    name) may wrap: after / \\ _ . , : ; = - and at least every `longest` characters."""
    def split(word: str) -> str:
        pieces = _BREAK_AFTER.sub("\\1\u200b", word).split("\u200b")
        return "\u200b".join(p[i:i + longest] for p in pieces for i in range(0, max(len(p), 1), longest))
    return _LONG_WORD.sub(lambda m: split(m.group()), text)


class WrappedLabel(QLabel):
    """Word-wrapped text that never widens its panel: a long word (a path, a name) wraps too.  Its
    minimum height is the height of its lines at the width it has, so a splitter or a scroll area
    gives it room.  `text()` is the text as set."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self._text = ""
        self._lines_height = -1
        self.setWordWrap(True)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._text = str(text)
        super().setText(breakable(self._text))
        self._lines_height = -1
        self.updateGeometry()

    def text(self) -> str:
        return self._text

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        height = self.heightForWidth(event.size().width())
        if height != self._lines_height:  # (more or fewer lines: the layouts above must know)
            self._lines_height = height
            self.updateGeometry()


class ElidedLabel(QLabel):
    """One line of plain text elided to the label's width (the full text in its tooltip), so a long
    name or message never raises its panel's minimum width.  `text()` is the full text;
    `hint_chars`: ask for at most about that many characters' width, leaving the rest of a row to
    its neighbours."""

    def __init__(self, text: str = "", parent=None, mode=Qt.TextElideMode.ElideRight, hint_chars: int | None = None):
        super().__init__(parent)
        self._mode = mode
        self._hint_chars = hint_chars
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self._hint_chars is not None:
            margins = self.contentsMargins()
            most = self.fontMetrics().averageCharWidth() * self._hint_chars + margins.left() + margins.right()
            hint.setWidth(min(hint.width(), most))
        return hint

    def setText(self, text: str) -> None:
        super().setText(" ".join(str(text).splitlines()))
        self._update_tooltip()

    def minimumSizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance("M…") * 2 + margins.left() + margins.right()
        return QSize(width, super().minimumSizeHint().height())

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_tooltip()

    def _update_tooltip(self) -> None:
        self.setToolTip(self.text() if self.is_elided() else "")

    def paintEvent(self, event) -> None:
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), self._mode, rect.width())
        painter = QPainter(self)
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(),
                                  shown, self.foregroundRole())


class HeaderLabel(QLabel):
    """A pane's one-line rich-text header ("<b>name</b> details · details · …") that never widens its
    pane: when its text is wider than the label, the last " · " parts are left out and " · …" ends
    it, and the whole text goes to the tooltip (unless one was set with setToolTip)."""

    SEPARATOR = " · "

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("PaneHeader")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._full = ""
        self._own_tip = ""

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self._fit()

    def setToolTip(self, tip: str) -> None:
        self._own_tip = tip
        self._fit()

    def shown_text(self) -> str:
        """What the label shows at its width (the text, or its first parts and " · …")."""
        return super().text()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _width_of(self, rich: str) -> float:
        document = QTextDocument()
        document.setDefaultFont(self.font())
        document.setDocumentMargin(0)
        document.setHtml(rich)
        return document.idealWidth()

    def _fit(self) -> None:
        room = self.contentsRect().width() - 2 * self.margin()
        shown = self._full
        if room > 0 and self._width_of(shown) > room:
            parts = self._full.split(self.SEPARATOR)
            for k in range(len(parts) - 1, 0, -1):
                shown = self.SEPARATOR.join(parts[:k]) + self.SEPARATOR + "…"
                if self._width_of(shown) <= room:
                    break
        super().setText(shown)
        elided = shown != self._full
        tip = self._own_tip or (QTextDocumentFragment.fromHtml(self._full).toPlainText() if elided else "")
        super().setToolTip(tip)


class ReflowRow(QWidget):
    """Groups of controls on one row when the row is at least `wide_width` px wide, else one row
    per group, so a narrow dock wraps the controls instead of squeezing or widening."""

    def __init__(self, groups: list[tuple[QLayout, int]], wide_width: int, parent=None):
        super().__init__(parent)
        self._wide_width = wide_width
        self._groups = [group for group, _ in groups]
        self._box = QBoxLayout(QBoxLayout.Direction.TopToBottom, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        for group, stretch in groups:
            self._box.addLayout(group, stretch)

    def is_wide(self) -> bool:
        return self._box.direction() == QBoxLayout.Direction.LeftToRight

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        one_row = sum(g.minimumSize().width() for g in self._groups) + self._box.spacing() * (len(self._groups) - 1)
        wide = event.size().width() >= max(self._wide_width, one_row)
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if direction != self._box.direction():
            self._box.setDirection(direction)


class ResponsivePanes(QWidget):
    """Pages side by side in a splitter (`row`) when there is room (`wide_width` px, and at least the
    sum of their minimum widths), else stacked in a vertical splitter or, with `tabs`, on tabs.
    `below`: a (widget, title) under the row when wide (the row as tall as it needs, or dragged
    away) and the first tab when narrow (tabs only).  Pages move between the arrangements with their
    state; `wide_changed(bool)` tells which is shown.  `pages`: (widget, title, (share of the width
    side by side, share of the height stacked))."""

    wide_changed = Signal(bool)

    def __init__(self, pages: list[tuple[QWidget, str, tuple[int, int]]], *, wide_width: int, tabs: bool = False,
                 below: tuple[QWidget, str] | None = None, parent=None):
        super().__init__(parent)
        self._pages = pages
        self._below = below
        self._wide_width = wide_width
        self.row = QSplitter(Qt.Orientation.Vertical)
        self.row.setChildrenCollapsible(False)
        self.column: QSplitter | None = None
        self.tabs = QTabWidget() if tabs or below is not None else None
        self._stack = QStackedLayout(self)
        if below is not None:
            self.column = QSplitter(Qt.Orientation.Vertical)
            self.column.addWidget(self.row)
            self._stack.addWidget(self.column)
        else:
            self._stack.addWidget(self.row)
        if self.tabs is not None:
            self.tabs.setDocumentMode(True)
            self._stack.addWidget(self.tabs)
        self._tab = 0
        self._wide: bool | None = None
        self._arrange(False)  # (docks start narrow; the first resize decides)

    def is_wide(self) -> bool:
        return bool(self._wide)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        side_by_side = sum(qsmart_min_width(w) for w, _, _ in self._pages) + \
            self.row.handleWidth() * (len(self._pages) - 1)
        self._arrange(event.size().width() >= max(self._wide_width, side_by_side))

    def _arrange(self, wide: bool) -> None:
        if wide == self._wide:
            return
        if self.tabs is not None and self.tabs.count():
            self._tab = self.tabs.currentIndex()
        self._wide = wide
        if self.tabs is not None and not wide:
            for page, title in ([self._below] if self._below else []) + [(p, t) for p, t, _ in self._pages]:
                self.tabs.addTab(page, title)
            self.tabs.setCurrentIndex(self._tab)
            self._stack.setCurrentWidget(self.tabs)
            self.wide_changed.emit(wide)
            return
        shares = [share[0 if wide else 1] for _, _, share in self._pages]
        for index, (page, _, _) in enumerate(self._pages):
            _move_into(self.row, page)
            self.row.setStretchFactor(index, shares[index])
        self.row.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        self.row.setSizes([1000 * share for share in shares])
        if self.column is not None:
            _move_into(self.column, self._below[0])
            self.column.setCollapsible(0, True)
            self.column.setCollapsible(1, False)
            self.column.setStretchFactor(0, 0)
            self.column.setStretchFactor(1, 1)
            self.column.setSizes([1, 1000])
        self._stack.setCurrentWidget(self.column if self.column is not None else self.row)
        self.wide_changed.emit(wide)


def _move_into(splitter: QSplitter, page: QWidget) -> None:
    """Append `page` to `splitter` unless it is there, shown (a tab page that was not current is hidden)."""
    if page.parentWidget() is not splitter:
        splitter.addWidget(page)
        page.show()


def qsmart_min_width(widget: QWidget) -> int:
    """The width below which a layout will not shrink `widget` (as Qt's qSmartMinSize)."""
    if widget.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Ignored:
        return widget.minimumWidth()
    return max(widget.minimumWidth(), widget.minimumSizeHint().width())


class FigureTable(QTableWidget):
    """Named figures, one per row, read only.  The value column is as wide as its widest value, up to
    `value_share` of the table (longer values are elided); the name column takes the rest and
    elides, so the table fits a narrow dock.  Full texts are in the tooltips."""

    FULL_TEXT = Qt.ItemDataRole.UserRole

    def __init__(self, headers=("figure", "value"), value_share: float = 0.45, parent=None):
        super().__init__(0, 2, parent)
        self.value_share = value_share
        self.setHorizontalHeaderLabels(list(headers))
        rows = self.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 8)
        columns = self.horizontalHeader()
        columns.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        columns.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)

    def set_rows(self, rows) -> None:
        """(name, value) pairs, one per row."""
        rows = list(rows)
        self.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            self.set_name(r, name)
            self.set_value(r, value)

    def set_name(self, row: int, name: str) -> None:
        item = QTableWidgetItem(name)
        item.setToolTip(name)
        self.setItem(row, 0, item)

    def set_value(self, row: int, value: str) -> None:
        item = self.item(row, 1)
        if item is None:
            item = QTableWidgetItem()
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, 1, item)
        item.setData(self.FULL_TEXT, value)
        self._elide(item)

    def value(self, row: int) -> str:
        """The full value of a row (the cell may show it elided)."""
        item = self.item(row, 1)
        return "" if item is None else item.data(self.FULL_TEXT) or ""

    def value_width(self) -> int:
        """The widest a value is shown, in px."""
        return max(60, int(self.viewport().width() * self.value_share))

    def _elide(self, item: QTableWidgetItem) -> None:
        value = item.data(self.FULL_TEXT) or ""
        shown = self.fontMetrics().elidedText(value, Qt.TextElideMode.ElideRight, self.value_width())
        item.setText(shown)
        item.setToolTip(value if shown != value else "")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            for r in range(self.rowCount()):
                if self.item(r, 1) is not None:
                    self._elide(self.item(r, 1))
