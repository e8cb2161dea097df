"""The vocabulary as a Qt table: a model over `analysis.vocab_stats.TokenRow`s and a proxy that
filters and sorts them in bulk.

A QSortFilterProxyModel calls Python once per row for every filter change (a second or more for
250k tokens).  `VocabProxy` instead computes the visible rows in one pass over precomputed
lower-case strings (a filter is ~20-40 ms at 150k tokens; benchmarks/vocab_table.py) and sorts with
numpy, then maps rows like any QAbstractProxyModel, so the view only ever asks for what it shows.
"""
from __future__ import annotations

import numpy as np
import regex
from PySide6.QtCore import QAbstractProxyModel, QAbstractTableModel, QModelIndex, Qt

from ..analysis.vocab_stats import TokenRow
from .token_view import runs_display, text_runs

COLUMNS = ("id", "token", "text", "bytes", "chars", "category", "rank / score")


class VocabModel(QAbstractTableModel):
    """Every token of a vocabulary, one per row."""

    def __init__(self, rows: list[TokenRow] | None = None, parent=None):
        super().__init__(parent)
        self._rows: list[TokenRow] = rows or []

    def set_rows(self, rows: list[TokenRow]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rows(self) -> list[TokenRow]:
        return self._rows

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(r, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3, 4, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 2):
            return repr(r.token) if col == 1 else repr(r.text)
        return None

    @staticmethod
    def cell(r: TokenRow, col: int):
        if col == 0:
            return str(r.id)
        if col == 1:
            return r.token
        if col == 2:
            return runs_display(text_runs(r.text))
        if col == 3:
            return str(r.n_bytes)
        if col == 4:
            return str(r.n_chars)
        if col == 5:
            return r.category
        if r.rank is None:
            return ""
        return f"{r.rank:g}" if isinstance(r.rank, float) else str(r.rank)


class VocabProxy(QAbstractProxyModel):
    """Filters (text or /regex/, category, byte length) and sorts the rows of a VocabModel in bulk."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._visible = np.zeros(0, np.int64)  # proxy row -> source row
        self._source_to_proxy = np.zeros(0, np.int64)
        self._search: list[str] = []  # per source row: token + text, lower case
        self._filter = ("", "", 0, 0)
        self._sort = (0, Qt.SortOrder.AscendingOrder)
        self.last_error = ""

    def setSourceModel(self, model: VocabModel) -> None:
        super().setSourceModel(model)
        model.modelReset.connect(self._source_reset)
        self._source_reset()

    def _source_reset(self) -> None:
        rows = self.sourceModel().rows()
        self._search = [f"{r.token}\x00{r.text}".lower() for r in rows]  # (substring: both at once)
        self._keys = {
            0: np.array([r.id for r in rows], np.int64),
            3: np.array([r.n_bytes for r in rows], np.int64),
            4: np.array([r.n_chars for r in rows], np.int64),
            6: np.array([np.inf if r.rank is None else float(r.rank) for r in rows]),
        }
        self._apply()

    # ---- filter and sort --------------------------------------------------------------------------
    def set_filter(self, text: str = "", category: str = "", min_bytes: int = 0, max_bytes: int = 0) -> None:
        """Show the tokens whose string or text contains `text` (case-insensitive; /.../ for a
        regex), of `category` (all if empty), and of min_bytes..max_bytes bytes (0: no bound)."""
        self._filter = (text, category, min_bytes, max_bytes)
        self._apply()

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order)
        self._apply()

    def _apply(self) -> None:
        self.beginResetModel()
        rows = self.sourceModel().rows() if self.sourceModel() is not None else []
        text, category, lo, hi = self._filter
        keep = np.ones(len(rows), bool)
        self.last_error = ""
        if text:
            if len(text) > 2 and text.startswith("/") and text.endswith("/"):
                try:
                    rx = regex.compile(text[1:-1], regex.IGNORECASE)
                    keep &= np.fromiter((rx.search(r.token) is not None or rx.search(r.text) is not None
                                         for r in rows), bool, len(rows))
                except regex.error as exc:
                    self.last_error = f"bad regex: {exc}"
            else:
                needle = text.lower()
                keep &= np.fromiter((needle in s for s in self._search), bool, len(rows))
        if category:
            keep &= np.fromiter((r.category == category for r in rows), bool, len(rows))
        if lo:
            keep &= self._keys[3] >= lo if rows else keep
        if hi:
            keep &= self._keys[3] <= hi if rows else keep
        visible = np.flatnonzero(keep)
        column, order = self._sort
        if len(visible):
            visible = visible[np.argsort(self._sort_key(column)[visible], kind="stable")]
        if order == Qt.SortOrder.DescendingOrder:
            visible = visible[::-1]
        self._visible = visible
        self._source_to_proxy = np.full(len(rows), -1, np.int64)
        self._source_to_proxy[visible] = np.arange(len(visible))
        self.endResetModel()

    def _sort_key(self, column: int) -> np.ndarray:
        """A numeric key per source row for `column`: the value, or for text the row's place in
        the sorted column (computed once, so later sorts and filters are numpy only)."""
        key = self._keys.get(column)
        if key is None:
            rows = self.sourceModel().rows()
            texts = np.array([VocabModel.cell(r, column) for r in rows], dtype=object)
            key = np.empty(len(rows), np.int64)
            key[np.argsort(texts, kind="stable")] = np.arange(len(rows))
            self._keys[column] = key
        return key

    def visible_rows(self) -> np.ndarray:
        """Source rows shown, in order."""
        return self._visible

    # ---- QAbstractProxyModel ------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._visible)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def index(self, row: int, column: int, parent=QModelIndex()) -> QModelIndex:
        if parent.isValid() or not (0 <= row < len(self._visible)) or not (0 <= column < len(COLUMNS)):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, index=QModelIndex()) -> QModelIndex:
        return QModelIndex()

    def mapToSource(self, proxy: QModelIndex) -> QModelIndex:
        if not proxy.isValid() or self.sourceModel() is None:
            return QModelIndex()
        return self.sourceModel().index(int(self._visible[proxy.row()]), proxy.column())

    def mapFromSource(self, source: QModelIndex) -> QModelIndex:
        if not source.isValid():
            return QModelIndex()
        row = int(self._source_to_proxy[source.row()])
        return QModelIndex() if row < 0 else self.index(row, source.column())

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal:
            return self.sourceModel().headerData(section, orientation, role) if self.sourceModel() else None
        return None
