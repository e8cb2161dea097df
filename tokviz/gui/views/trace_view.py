"""Step-by-step pictures of how a word is cut: rows of token boxes, one per step (BPE merges,
WordPiece matches, Unigram's best segmentations), and the Unigram lattice.

`TraceView.set_rows(rows)` draws rows of `TraceRow`: a caption and the row's boxes, one of them
(or none) marked as what that step did.  `set_current(k)` outlines row k and dims the others, as
the panel's slider moves; captions are elided to the view's width (a tooltip shows one whole).
`set_lattice(edges, length, best)` draws a lattice instead: the word's characters along the top
and every matching piece as a bar under the characters it covers, the best path's pieces filled.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from .coloring import theme_text_color
from ..widgets.style import DEFAULT_THEME, TokenTheme, mono_font


@dataclass(frozen=True)
class TraceRow:
    caption: str
    boxes: tuple[str, ...]
    marked: int = -1  # index of the box this step made (-1: none)
    muted_tail: str = ""  # text not cut yet, drawn faintly after the boxes (WordPiece)


@dataclass(frozen=True)
class LatticeBar:
    start: int
    end: int
    label: str
    best: bool


def lattice_lanes(bars: list[LatticeBar]) -> list[list[LatticeBar]]:
    """The bars in lanes, the best path's first: each bar in the first lane where it overlaps
    nothing (each lane's spans kept sorted, so a check is a bisection, not a walk of the lane)."""
    lanes: list[list[LatticeBar]] = []
    spans: list[tuple[list[int], list[int]]] = []  # per lane: its bars' starts and ends, by start
    for bar in sorted(bars, key=lambda b: (not b.best, b.start, -(b.end - b.start))):
        for lane, (starts, ends) in zip(lanes, spans):
            k = bisect.bisect_right(starts, bar.start)
            if (k == 0 or ends[k - 1] <= bar.start) and (k == len(starts) or starts[k] >= bar.end):
                break
        else:
            lane, (starts, ends) = [], ([], [])
            lanes.append(lane)
            spans.append((starts, ends))
            k = 0
        lane.append(bar)
        starts.insert(k, bar.start)
        ends.insert(k, bar.end)
    return lanes


class TraceView(QWidget):
    MARGIN = 10.0
    PAD = 4.0
    GAP = 3.0
    ROW_GAP = 8.0

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._rows: list[TraceRow] = []
        self._current = -1
        self._lattice: tuple[list[LatticeBar], str] | None = None
        self._lanes: list[list[LatticeBar]] = []  # the lattice's bars in lanes (lattice_lanes)
        self._font = mono_font()
        self._small = QFont(self._font)
        self._small.setPointSizeF(max(6.0, self._font.pointSizeF() * 0.82))
        self.setAutoFillBackground(True)
        self.set_theme(theme)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        pal = self.palette()
        pal.setColor(self.backgroundRole(), QColor(theme.background))
        self.setPalette(pal)
        self.update()

    # ---- content ---------------------------------------------------------------------------------
    def set_rows(self, rows: list[TraceRow], current: int = -1) -> None:
        self._rows = list(rows)
        self._lattice = None
        self._lanes = []
        self._current = current
        self.updateGeometry()
        self.adjustSize()
        self.update()

    def rows(self) -> list[TraceRow]:
        return list(self._rows)

    def set_current(self, index: int) -> None:
        self._current = index
        self.update()

    def current(self) -> int:
        return self._current

    def set_lattice(self, bars: list[LatticeBar], text: str) -> None:
        self._rows = []
        self._lattice = (list(bars), text)
        self._lanes = lattice_lanes(self._lattice[0])
        self.updateGeometry()
        self.adjustSize()
        self.update()

    def row_rect(self, index: int) -> QRectF:
        """Where row `index` is drawn (for tests and scrolling to it)."""
        h = self._row_h()
        return QRectF(0, self.MARGIN + index * (h + self.ROW_GAP), self.width(), h)

    # ---- geometry ----------------------------------------------------------------------------------
    def _row_h(self) -> float:
        return QFontMetricsF(self._small).height() + QFontMetricsF(self._font).height() + 2 * self.PAD + 2

    def sizeHint(self) -> QSize:
        fm = QFontMetricsF(self._font)
        if self._lattice is not None:
            _, text = self._lattice
            cell = self._cell_w(text)
            lanes = len(self._lanes)
            return QSize(int(2 * self.MARGIN + cell * max(1, len(text))),
                         int(2 * self.MARGIN + (lanes + 1) * (fm.height() + 2 * self.PAD + self.GAP)))
        width = 0.0
        for row in self._rows:  # (captions are elided to the width: a step label shows them whole)
            w = sum(fm.horizontalAdvance(b) + 2 * self.PAD + self.GAP for b in row.boxes)
            width = max(width, w + fm.horizontalAdvance(row.muted_tail))
        height = len(self._rows) * (self._row_h() + self.ROW_GAP)
        return QSize(int(width + 2 * self.MARGIN), int(height + 2 * self.MARGIN))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def _cell_w(self, text: str) -> float:
        fm = QFontMetricsF(self._font)
        return max([fm.horizontalAdvance(c) for c in text] + [fm.horizontalAdvance("M")]) + 2 * self.PAD

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip and self._lattice is None:
            y = event.pos().y()
            row = next((k for k in range(len(self._rows)) if self.row_rect(k).contains(self.MARGIN, y)), None)
            if row is not None:
                QToolTip.showText(event.globalPos(), self._rows[row].caption, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    # ---- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        shown = QRectF(event.rect())  # (a long word's trace or lattice is far larger than the view)
        if self._lattice is not None:
            self._paint_lattice(painter, shown)
        else:
            self._paint_rows(painter, shown)
        painter.end()

    def _paint_rows(self, painter: QPainter, shown: QRectF) -> None:
        theme = self.theme
        fm, fs = QFontMetricsF(self._font), QFontMetricsF(self._small)
        palette = theme.palette
        for k, row in enumerate(self._rows):
            if not self.row_rect(k).adjusted(0, -4, 0, 4).intersects(shown):
                continue
            top = self.row_rect(k).top()
            dim = self._current >= 0 and k != self._current
            painter.setOpacity(0.45 if dim else 1.0)
            painter.setFont(self._small)
            painter.setPen(QColor(theme.message_text))
            caption = fs.elidedText(row.caption, Qt.TextElideMode.ElideRight, self.width() - 2 * self.MARGIN)
            painter.drawText(QRectF(self.MARGIN, top, self.width(), fs.height()), Qt.AlignmentFlag.AlignLeft, caption)
            y = top + fs.height() + 1
            x = self.MARGIN
            painter.setFont(self._font)
            for i, label in enumerate(row.boxes):
                if x > shown.right():
                    break
                w = fm.horizontalAdvance(label) + 2 * self.PAD
                rect = QRectF(x, y, w, fm.height() + 2 * self.PAD)
                fill = QColor(palette[i % len(palette)])
                marked = i == row.marked
                painter.setPen(QPen(QColor(theme.hover_outline) if marked else fill.darker(theme.border_darker),
                                    2.0 if marked else 1.0))
                painter.setBrush(fill)
                painter.drawRoundedRect(rect, 3, 3)
                painter.setPen(QColor(theme_text_color(fill.name(), theme)))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
                x += w + self.GAP
            if row.muted_tail:
                painter.setPen(QColor(theme.gap_text))
                painter.drawText(QRectF(x + 2, y + self.PAD, self.width(), fm.height()), Qt.AlignmentFlag.AlignLeft,
                                 row.muted_tail)
            if k == self._current:
                painter.setOpacity(1.0)
                painter.setPen(QPen(QColor(theme.current_outline), 1.5))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(self.row_rect(k).adjusted(3, -3, -3, 3), 5, 5)
        painter.setOpacity(1.0)

    def _paint_lattice(self, painter: QPainter, shown: QRectF) -> None:
        theme = self.theme
        _, text = self._lattice
        fm = QFontMetricsF(self._font)
        cell = self._cell_w(text)
        h = fm.height() + 2 * self.PAD
        first = max(0, int((shown.left() - self.MARGIN) // cell))
        last = int((shown.right() - self.MARGIN) // cell) + 1
        painter.setFont(self._font)
        painter.setPen(QColor(theme.text))
        for i in range(first, min(last + 1, len(text))):
            painter.drawText(QRectF(self.MARGIN + i * cell, self.MARGIN, cell, h), Qt.AlignmentFlag.AlignCenter, text[i])
        for lane_no, lane in enumerate(self._lanes):
            y = self.MARGIN + (lane_no + 1) * (h + self.GAP)
            for bar in lane:
                if bar.end < first or bar.start > last:
                    continue
                rect = QRectF(self.MARGIN + bar.start * cell + 1, y, (bar.end - bar.start) * cell - 2, h)
                if bar.best:
                    fill = QColor(theme.palette[bar.start % len(theme.palette)])
                    painter.setPen(QPen(QColor(theme.hover_outline), 1.5))
                else:
                    fill = QColor(theme.neutral)
                    painter.setPen(QPen(fill.darker(theme.border_darker), 1.0))
                painter.setBrush(fill)
                painter.drawRoundedRect(rect, 3, 3)
                painter.setPen(QColor(theme.text if bar.best else theme.message_text))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, bar.label)

    def lattice_bars(self) -> list[LatticeBar]:
        return list(self._lattice[0]) if self._lattice is not None else []
