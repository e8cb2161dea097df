"""The vocabulary as a Qt table: a model over an `analysis.vocab_stats.TokenTable` (numpy columns;
a token's text is decoded from its bytes when its cell is shown) and a proxy that filters and sorts
it in bulk.

A QSortFilterProxyModel calls Python once per row for every filter change (a second or more for
250k tokens).  `VocabProxy` instead computes the visible rows with numpy (a substring search of the
table's one haystack, category and length masks; a /regex/ looks at each row) and sorts with numpy,
then maps rows like any QAbstractProxyModel, so the view only ever asks for what it shows
(benchmarks/vocab_table.py).
"""
from __future__ import annotations

import numpy as np
import regex
from PySide6.QtCore import (QAbstractProxyModel, QAbstractTableModel, QCoreApplication, QModelIndex, QT_TRANSLATE_NOOP,
                            Qt)

from ...analysis.vocab_stats import CATEGORIES, TokenTable
from .token_runs import runs_display, text_runs

COLUMNS = (QT_TRANSLATE_NOOP("VocabModel", "id"), QT_TRANSLATE_NOOP("VocabModel", "token"),
           QT_TRANSLATE_NOOP("VocabModel", "text"), QT_TRANSLATE_NOOP("VocabModel", "bytes"),
           QT_TRANSLATE_NOOP("VocabModel", "chars"), QT_TRANSLATE_NOOP("VocabModel", "category"),
           QT_TRANSLATE_NOOP("VocabModel", "rank / score"), QT_TRANSLATE_NOOP("VocabModel", "health"))
# The categories of `analysis.vocab_stats` (scripts first) as shown; the data keeps the English names.
CATEGORY_NAMES = {
    "Latin": QT_TRANSLATE_NOOP("VocabCategory", "Latin"),
    "CJK": QT_TRANSLATE_NOOP("VocabCategory", "CJK"),
    "Hangul": QT_TRANSLATE_NOOP("VocabCategory", "Hangul"),
    "Cyrillic": QT_TRANSLATE_NOOP("VocabCategory", "Cyrillic"),
    "Greek": QT_TRANSLATE_NOOP("VocabCategory", "Greek"),
    "Arabic": QT_TRANSLATE_NOOP("VocabCategory", "Arabic"),
    "Hebrew": QT_TRANSLATE_NOOP("VocabCategory", "Hebrew"),
    "Devanagari": QT_TRANSLATE_NOOP("VocabCategory", "Devanagari"),
    "Thai": QT_TRANSLATE_NOOP("VocabCategory", "Thai"),
    "other letters": QT_TRANSLATE_NOOP("VocabCategory", "other letters"),
    "mixed scripts": QT_TRANSLATE_NOOP("VocabCategory", "mixed scripts"),
    "digits": QT_TRANSLATE_NOOP("VocabCategory", "digits"),
    "punctuation": QT_TRANSLATE_NOOP("VocabCategory", "punctuation"),
    "whitespace": QT_TRANSLATE_NOOP("VocabCategory", "whitespace"),
    "symbols": QT_TRANSLATE_NOOP("VocabCategory", "symbols"),
    "partial UTF-8": QT_TRANSLATE_NOOP("VocabCategory", "partial UTF-8"),
    "byte piece": QT_TRANSLATE_NOOP("VocabCategory", "byte piece"),
    "control": QT_TRANSLATE_NOOP("VocabCategory", "control"),
    "user-defined": QT_TRANSLATE_NOOP("VocabCategory", "user-defined"),
    "special": QT_TRANSLATE_NOOP("VocabCategory", "special"),
}


def category_name(category: str) -> str:
    """A category (or script) of `analysis.vocab_stats.CATEGORIES` as shown."""
    return QCoreApplication.translate("VocabCategory", CATEGORY_NAMES[category]) if category in CATEGORY_NAMES \
        else category


def column_name(section: int) -> str:
    """The header of the table's column `section`, as shown."""
    return QCoreApplication.translate("VocabModel", COLUMNS[section])


class VocabModel(QAbstractTableModel):
    """Every token of a vocabulary, one per row."""

    def __init__(self, table: TokenTable | None = None, parent=None):
        super().__init__(parent)
        self._table = TokenTable.empty() if table is None else table
        self._notes: dict[int, str] = {}  # id -> why the chosen health section names it

    def set_notes(self, notes: dict[int, str] | None) -> None:
        """The "health" column's text by token id (None: empty)."""
        self._notes = notes or {}
        if len(self._table):
            self.dataChanged.emit(self.index(0, 7), self.index(len(self._table) - 1, 7))

    def set_table(self, table: TokenTable | None) -> None:
        """Show `table` (None: no rows)."""
        self.beginResetModel()
        self._table = TokenTable.empty() if table is None else table
        self.endResetModel()

    def table(self) -> TokenTable:
        return self._table

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._table)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return column_name(section)
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        return self.row_data(index.row(), index.column(), role)

    def row_data(self, row: int, col: int, role=Qt.ItemDataRole.DisplayRole):
        """`data` of the cell at (row, col)."""
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3, 4, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 2):
            return repr(self._table.token(row)) if col == 1 else repr(self._table.text(row))
        if role == Qt.ItemDataRole.ToolTipRole and col == 7:
            return self.cell(row, col) or None
        return None

    def cell(self, row: int, col: int) -> str:
        """The text shown in a cell."""
        t = self._table
        if col == 0:
            return str(t.ids[row])
        if col == 1:
            return t.token(row)
        if col == 2:
            return runs_display(text_runs(t.text(row)))
        if col == 3:
            return str(t.n_bytes[row])
        if col == 4:
            return str(t.n_chars[row])
        if col == 5:
            return category_name(t.category_name(row))
        if col == 7:
            return self._notes.get(int(t.ids[row]), "")
        rank = t.rank[row]
        if np.isnan(rank):
            return ""
        return str(int(rank)) if t.rank_is_int else f"{float(rank):g}"


class VocabProxy(QAbstractProxyModel):
    """Filters (text or /regex/, category, byte length) and sorts the rows of a VocabModel in bulk."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._visible = np.zeros(0, np.int64)  # proxy row -> source row
        self._source_to_proxy = np.zeros(0, np.int64)
        self._filter = ("", "", 0, 0)
        self._ids: np.ndarray | None = None  # only these token ids (a health section), or all
        self._keys: dict[int, np.ndarray] = {}
        self._sort = (0, Qt.SortOrder.AscendingOrder)
        self._applied: tuple | None = None  # (table, filter, ids, sort) the rows shown were made with
        self.last_error = ""

    def setSourceModel(self, model: VocabModel) -> None:
        super().setSourceModel(model)
        model.modelReset.connect(self._source_reset)
        self._source_reset()

    def _source_reset(self) -> None:
        t = self.sourceModel().table()
        self._keys = {0: t.ids, 3: t.n_bytes, 4: t.n_chars, 6: np.where(np.isnan(t.rank), np.inf, t.rank)}
        self._apply()

    # ---- filter and sort --------------------------------------------------------------------------
    def set_filter(self, text: str = "", category: str = "", min_bytes: int = 0, max_bytes: int = 0, *,
                   ids: np.ndarray | None = None) -> None:
        """Show the tokens whose string or text contains `text` (case-insensitive; /.../ for a
        regex), of `category` (all if empty), of min_bytes..max_bytes bytes (0: no bound) and, if
        given, among `ids` (e.g. `TokenHealth.ids(section)`)."""
        self._filter = (text, category, min_bytes, max_bytes)
        self._ids = None if ids is None else np.asarray(ids, np.int64)
        self._keys.pop(7, None)  # (the health notes may have changed)
        self._apply()

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order)
        self._apply()

    def _apply(self) -> None:
        t = self.sourceModel().table() if self.sourceModel() is not None else TokenTable.empty()
        # The same filter and order on the same table again (the view sets its filter after a new
        # table, whose reset already applied it): nothing to do.  A regex over 150k tokens is 0.1 s.
        applied = (t, self._filter, self._ids, self._sort)
        last = self._applied
        if (last is not None and self._sort[0] != 7 and last[0] is t and last[1] == self._filter
                and last[2] is self._ids and last[3] == self._sort):
            return
        self._applied = None  # (until these rows are in: an error below applies again next time)
        text, category, lo, hi = self._filter
        keep = np.ones(len(t), bool)
        self.last_error = ""
        if text:
            if len(text) > 2 and text.startswith("/") and text.endswith("/"):
                try:
                    keep &= t.matches(regex.compile(text[1:-1], regex.IGNORECASE))
                except regex.error as exc:
                    self.last_error = self.tr("bad regex: {error}").format(error=exc)
            else:
                keep &= t.contains(text)
        if category:
            keep &= (t.category == CATEGORIES.index(category)) if category in CATEGORIES else False
        if lo:
            keep &= t.n_bytes >= lo
        if hi:
            keep &= t.n_bytes <= hi
        if self._ids is not None:
            keep &= np.isin(t.ids, self._ids)
        visible = np.flatnonzero(keep)
        column, order = self._sort
        if len(visible):
            visible = visible[np.argsort(self._sort_key(column)[visible], kind="stable")]
        if order == Qt.SortOrder.DescendingOrder:
            visible = visible[::-1]
        source_to_proxy = np.full(len(t), -1, np.int64)
        source_to_proxy[visible] = np.arange(len(visible))
        self.beginResetModel()  # (only once the rows are known: an error above leaves no reset open)
        self._visible, self._source_to_proxy = visible, source_to_proxy
        self.endResetModel()
        self._applied = applied

    def _sort_key(self, column: int) -> np.ndarray:
        """A numeric key per source row for `column`: the value, or for text the row's place in
        the sorted column (computed once, so later sorts and filters are numpy only)."""
        key = self._keys.get(column)
        if key is None:
            model = self.sourceModel()
            t = model.table()
            if column == 5:  # the order of the category names shown, looked up by code
                shown = np.array([category_name(c) for c in CATEGORIES], dtype=object)
                places = np.argsort(np.argsort(shown, kind="stable"))
                key = places[t.category]
            else:
                cells = t.tokens if column == 1 else [model.cell(r, column) for r in range(len(t))]
                texts = np.array(cells, dtype=object)
                key = np.empty(len(t), np.int64)
                key[np.argsort(texts, kind="stable")] = np.arange(len(t))
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

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        # (straight to the source's row: Qt's own would call mapToSource, one more call into Python
        # per cell and role, each waiting for the GIL while workers run Python)
        if not index.isValid() or self.sourceModel() is None:
            return None
        return self.sourceModel().row_data(int(self._visible[index.row()]), index.column(), role)

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
