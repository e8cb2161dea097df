"""The Learn view's tables: rows of plain values and of symbols drawn as chips, one row current.

`StepTable` is a read-only table model filled row by row (`set_rows`); a cell is a number, a text,
or `Chips` (a word's symbols, a pair, a segmentation), which `ChipsDelegate` draws as separate
rounded boxes so that "l o w </w>" reads as four symbols, the ones about to be merged filled.
One row may be the current one (the pair merged, the merge made: filled and bold) and others
marked (pairs tied with it, pieces pruned).  The display text of a chips cell is its symbols joined
by spaces, which is also what Copy and the tests read.

    >>> model = StepTable(["symbols", "count"])
    >>> model.set_rows([[Chips(["l", "o", "w"], marked={0, 1}), 5]], current=0)
    >>> model.data(model.index(0, 0))
    'l o w'
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QStyledItemDelegate, QTableView

CHIPS_ROLE = Qt.ItemDataRole.UserRole + 1  # the Chips of a cell, for the delegate
CHIP_PAD = 4  # px of padding left and right of a symbol in its chip
CHIP_GAP = 3  # px between two chips
CURRENT = QColor(255, 196, 0, 110)  # the current row (the pair merged): amber
MARKED = QColor(120, 160, 255, 70)  # rows marked (tied pairs, pruned pieces): blue
CHIP_FILL = QColor(128, 128, 128, 40)
CHIP_MARKED = QColor(255, 150, 0, 150)


class Chips(tuple):
    """Symbols shown as chips; `marked`: the positions drawn filled (an occurrence of the pair merged)."""

    marked: frozenset

    def __new__(cls, symbols: Iterable[str], marked: Iterable[int] = ()):
        self = super().__new__(cls, symbols)
        self.marked = frozenset(marked)
        return self

    def __str__(self) -> str:
        return " ".join(self)


def pair_positions(symbols: Sequence[str], pair: tuple[str, str] | None) -> set[int]:
    """Positions of `symbols` in a left-to-right, non-overlapping occurrence of `pair` (as a merge
    replaces them)."""
    out: set[int] = set()
    if pair is None:
        return out
    i = 0
    while i + 1 < len(symbols):
        if (symbols[i], symbols[i + 1]) == pair:
            out.update((i, i + 1))
            i += 2
        else:
            i += 1
    return out


def cell_text(value) -> str:
    if isinstance(value, Chips):
        return str(value)
    if isinstance(value, bool):
        return ""
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


class StepTable(QAbstractTableModel):
    """Rows of cells (numbers, texts, Chips) under `headers`, one row current and some marked."""

    def __init__(self, headers: list[str], parent=None):
        super().__init__(parent)
        self._headers = list(headers)
        self._rows: list[list] = []
        self._current: int | None = None
        self._marked: frozenset[int] = frozenset()

    def set_headers(self, headers: list[str]) -> None:
        self.beginResetModel()
        self._headers = list(headers)
        self._rows = [row + [None] * (len(headers) - len(row)) for row in self._rows]
        self.endResetModel()

    def set_rows(self, rows: list[list], *, current: int | None = None, marked: Iterable[int] = ()) -> None:
        self.beginResetModel()
        self._rows = [list(r) for r in rows]
        self._current = current
        self._marked = frozenset(marked)
        self.endResetModel()

    def clear(self) -> None:
        self.set_rows([])

    def cell(self, row: int, column: int):
        """The value of a cell as given (a number, a text, Chips)."""
        return self._rows[row][column]

    def texts(self, row: int) -> list[str]:
        """A row as shown."""
        return [cell_text(v) for v in self._rows[row]]

    def current_row(self) -> int | None:
        return self._current

    def marked_rows(self) -> frozenset[int]:
        return self._marked

    # ---- QAbstractTableModel ------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._headers[section] if 0 <= section < len(self._headers) else None
        return str(section + 1)

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        value = row[index.column()] if index.column() < len(row) else None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return cell_text(value)
        if role == CHIPS_ROLE:
            return value if isinstance(value, Chips) else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            if index.row() == self._current:
                return CURRENT
            if index.row() in self._marked:
                return MARKED
            return None
        if role == Qt.ItemDataRole.FontRole and index.row() == self._current:
            font = QFont()
            font.setBold(True)
            return font
        return None


class ChipsDelegate(QStyledItemDelegate):
    """Draws a Chips cell as a row of rounded boxes, one per symbol (marked ones filled)."""

    def paint(self, painter: QPainter, option, index) -> None:
        chips = index.data(CHIPS_ROLE)
        if chips is None:
            super().paint(painter, option, index)
            return
        self.initStyleOption(option, index)
        option.text = ""
        style = option.widget.style() if option.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        painter.save()
        painter.setClipRect(option.rect)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(option.font)
        metrics = QFontMetrics(option.font)
        rect = option.rect
        height = min(rect.height() - 4, metrics.height() + 4)
        top = rect.top() + (rect.height() - height) / 2
        x = rect.left() + 3
        text_color = option.palette.color(QPalette.ColorRole.Text)
        for i, symbol in enumerate(chips):
            width = metrics.horizontalAdvance(symbol) + 2 * CHIP_PAD
            if x >= rect.right():
                break
            box = QRectF(x, top, width, height)
            painter.setPen(QColor(128, 128, 128, 160))
            painter.setBrush(CHIP_MARKED if i in chips.marked else CHIP_FILL)
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(text_color)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, symbol)
            x += width + CHIP_GAP
        painter.restore()

    def sizeHint(self, option, index) -> QSize:
        chips = index.data(CHIPS_ROLE)
        hint = super().sizeHint(option, index)
        if chips is None:
            return hint
        metrics = QFontMetrics(option.font)
        width = sum(metrics.horizontalAdvance(s) + 2 * CHIP_PAD + CHIP_GAP for s in chips) + 6
        return QSize(width, max(hint.height(), metrics.height() + 8))


class StepTableView(QTableView):
    """A compact read-only view of a StepTable, chips drawn, its columns fitted to their contents
    and to its width (again whenever it is resized)."""

    def __init__(self, model: StepTable, object_name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setModel(model)
        self.setItemDelegate(ChipsDelegate(self))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(QFontMetrics(self.font()).height() + 10)
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(30)
        model.modelReset.connect(self.fit)

    def fit(self) -> None:
        fit_columns(self)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()


def step_table_view(model: StepTable, object_name: str) -> StepTableView:
    return StepTableView(model, object_name)


def fit_columns(view: QTableView, rows: int = 100) -> None:
    """Size the columns to the contents of the first `rows` rows (cheap on long tables).  Where they
    would not fit the view's width, a last column of notes gives up its room; symbols and figures
    are never cut: the table scrolls sideways instead."""
    model = view.model()
    if model is None or model.columnCount() == 0:
        return
    metrics = QFontMetrics(view.font())
    widths, headers = [], []
    notes_last = True
    for column in range(model.columnCount()):
        width = metrics.horizontalAdvance(str(model.headerData(column, Qt.Orientation.Horizontal) or "")) + 16
        headers.append(width)
        for row in range(min(rows, model.rowCount())):
            index = model.index(row, column)
            chips = index.data(CHIPS_ROLE)
            if chips is not None:
                width = max(width, sum(metrics.horizontalAdvance(s) + 2 * CHIP_PAD + CHIP_GAP for s in chips) + 8)
                notes_last = notes_last and column != model.columnCount() - 1
            else:
                width = max(width, metrics.horizontalAdvance(index.data() or "") + 12)
        widths.append(max(view.horizontalHeader().minimumSectionSize(), width))
    notes_last = notes_last and model.columnCount() > 2
    bar = view.verticalScrollBar()
    room = view.width() - 2 * view.frameWidth() - (bar.sizeHint().width() if bar.isVisible() else 0) - 2
    excess = sum(widths) - room
    if room > 0 and (excess < 0 or notes_last):
        widths[-1] = max(60, headers[-1], widths[-1] - excess)  # (the last column takes the room left, or a note gives it up)
    for column, width in enumerate(widths):
        view.setColumnWidth(column, width)
