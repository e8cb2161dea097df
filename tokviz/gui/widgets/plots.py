"""Plots for the analysis views (pyqtgraph): axes whose labels never run into each other
(`FittedAxis` for numbers, `CategoryAxis` for names), a plot that fits a narrow dock (`make_plot`),
a chart of rows that scrolls rather than squeezes its rows (`RowsScroll`) and its colours from the
token theme (`theme_plot`).
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QGuiApplication
from PySide6.QtWidgets import QFrame, QScrollArea

from .style import TokenTheme

_UNITS = ((1e9, "G"), (1e6, "M"), (1e3, "k"))


def compact_numbers(values, step: float) -> list[str]:
    """Axis labels for `values` (a tick every `step`): 0, 850, 20k, 1.5M..., one unit for all of them
    (the largest's), with the decimals `step` needs."""
    values = [float(v) for v in values]
    top = max((abs(v) for v in values), default=0.0)
    div, suffix = next(((d, s) for d, s in _UNITS if top >= d), (1.0, ""))
    places = max(0, math.ceil(-math.log10(step / div) - 1e-9)) if step > 0 else 0
    return ["0" if abs(v) < step * 1e-6 else f"{v / div:.{places}f}{suffix}" for v in values]


class FittedAxis(pg.AxisItem):
    """A plot axis whose tick labels never run into each other: the tick spacing is chosen from the
    size of the labels at the length the axis is laid out at (as many labels as fit).  Numbers read
    0, 850, 20k, 1.5M; in log mode the labels are powers of ten (1, 10, 100, 1k...) or, when the
    axis is too short for that, every 2nd, 3rd... decade; the rest get unlabelled ticks.
    `integer`: the values are counts, so no ticks between whole numbers."""

    LABEL_GAP = 6  # px kept free between neighbouring labels side by side (stacked: none, as lines of text)

    def __init__(self, orientation: str, *, integer: bool = True, **kwargs):
        super().__init__(orientation, **kwargs)
        self.integer = integer
        self.setStyle(maxTextLevel=0)  # (only the chosen ticks are labelled; the minor ones never)
        self.setTickFont(QFont(QGuiApplication.font()))

    def label_extent(self, text: str) -> float:
        """The room a label takes along the axis, in px."""
        metrics = QFontMetricsF(self.style["tickFont"])
        if self.orientation in ("left", "right"):
            return metrics.height()
        return metrics.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, text).width()

    def labels_fit(self, values, px_per_unit: float, *, spaced: bool = True) -> bool:
        """Whether labels at `values` (sorted) leave LABEL_GAP px between neighbours; `spaced`: and
        stacked numbers at least two lines apart (a label on every line is hard to read)."""
        extents = [self.label_extent(s) for s in self.tickStrings(values, 1.0, None)]
        stacked = self.orientation in ("left", "right")
        gap = 0 if stacked else self.LABEL_GAP
        pitch = 2 * QFontMetricsF(self.style["tickFont"]).height() if stacked and spaced else 0
        return all(abs(values[k] - values[k - 1]) * px_per_unit >= max(pitch, (extents[k] + extents[k - 1]) / 2 + gap)
                   for k in range(1, len(values)))

    def tickValues(self, minVal, maxVal, size):
        lo, hi = sorted((float(minVal), float(maxVal)))
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or size <= 0:
            return []
        px_per_unit = size / (hi - lo)
        return self._log_ticks(lo, hi, px_per_unit) if self.logMode else self._linear_ticks(lo, hi, px_per_unit)

    def _linear_ticks(self, lo: float, hi: float, px_per_unit: float):
        labelled, step, minor_step = [], hi - lo, None
        for step, minor_step in self._steps(lo, hi, px_per_unit):
            labelled = _multiples(lo, hi, step)
            if self.labels_fit(labelled, px_per_unit):
                break
        else:
            labelled = labelled[:1]  # (not even two labels fit: one)
        levels = [(step, labelled)]
        if minor_step and minor_step * px_per_unit >= 5 and not (self.integer and minor_step < 1):
            levels.append((minor_step, [v for v in _multiples(lo, hi, minor_step)
                                        if abs(v / step - round(v / step)) > 1e-6]))
        return levels

    def _steps(self, lo: float, hi: float, px_per_unit: float):
        """Candidate (step, minor step) pairs, densest first: 1, 2, 5 x 10^k."""
        first = math.floor(math.log10(hi - lo)) - 3
        for exponent in range(first, first + 12):
            for mantissa, parts in ((1, 5), (2, 4), (5, 5)):
                step = mantissa * 10.0 ** exponent
                if step * px_per_unit >= 4 and not (self.integer and step < 1):
                    yield step, step / parts

    def _log_ticks(self, lo: float, hi: float, px_per_unit: float):
        """Ticks on a log10 axis: labelled decades (every one, or every 2nd, 3rd...; on an axis
        spanning less than two decades 1-9, 1-2-5... of each), unlabelled ticks at the others and,
        where a decade is 30 px or more, at 2..9 of it."""
        decades = range(math.floor(lo), math.ceil(hi) + 1)
        inside = [float(d) for d in decades if lo - 1e-9 <= d <= hi + 1e-9]
        candidates = [[v for v in inside if int(v) % every == 0] for every in (1, 2, 3, 4, 5, 10, 20, 50, 100)] \
            if len(inside) >= 2 else []
        candidates += [[v for d in decades for m in mantissas if lo - 1e-9 <= (v := d + math.log10(m)) <= hi + 1e-9]
                       for mantissas in ((1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 5), (1, 3), (1,))]
        labelled = next((c for c in candidates if c and self.labels_fit(c, px_per_unit)), candidates[-1][:1])
        sub = range(1, 10) if px_per_unit >= 30 else (1,)
        minor = [v for d in decades for m in sub
                 if lo <= (v := d + math.log10(m)) <= hi and all(abs(v - u) > 1e-6 for u in labelled)]
        return [(None, labelled), (None, minor)]

    def tickStrings(self, values, scale, spacing):
        if self.logMode:
            return [compact_numbers([10.0 ** v], 10.0 ** math.floor(v + 1e-9))[0] for v in values]
        step = spacing if spacing else (abs(values[1] - values[0]) if len(values) > 1 else 1.0)
        return compact_numbers([v * scale for v in values], step * scale)


def _multiples(lo: float, hi: float, step: float) -> list[float]:
    """The multiples of `step` in [lo, hi]."""
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [k * step for k in range(first, min(last, first + 1000) + 1)]


class CategoryAxis(FittedAxis):
    """Names at 0, 1, 2...: all of them when they fit, else every 2nd, 3rd... (the others get an
    unlabelled tick), never overlapping."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.names: list[str] = []

    def set_names(self, names) -> None:
        self.names = list(names)
        self.picture = None
        self.update()

    def tickValues(self, minVal, maxVal, size):
        lo, hi = sorted((float(minVal), float(maxVal)))
        shown = [float(k) for k in range(len(self.names)) if lo - 1e-9 <= k <= hi + 1e-9]
        if not shown or hi <= lo or size <= 0:
            return []
        px_per_unit = size / (hi - lo)
        for every in range(1, len(shown) + 1):
            labelled = [v for v in shown if int(v) % every == 0]
            if self.labels_fit(labelled, px_per_unit, spaced=False):
                break
        return [(None, labelled), (None, [v for v in shown if v not in labelled])]

    def tickStrings(self, values, scale, spacing):
        return [self.names[int(round(v))] if 0 <= round(v) < len(self.names) else "" for v in values]


PLOT_TITLE_SIZE = "10pt"
MIN_PLOT_HEIGHT = 140


def make_plot(title: str, axes: dict[str, pg.AxisItem]) -> pg.PlotWidget:
    """A plot with these axes ('left', 'bottom'...) and a title that fits a narrow dock."""
    plot = pg.PlotWidget(axisItems=axes)
    plot.setTitle(title, size=PLOT_TITLE_SIZE)
    plot.setMinimumSize(200, MIN_PLOT_HEIGHT)
    return plot


MIN_BAR_PX = 4  # the thinnest a bar of a RowsScroll chart is drawn
ROW_GAP_PX = 4  # between the rows of a RowsScroll chart, at least


class RowsScroll(QScrollArea):
    """A chart of rows (names down a `CategoryAxis` on the left, one row per group of bars) in a
    scroll area.  `set_rows(rows, bars)` makes the plot tall enough for every row's name to be drawn
    and every bar to be MIN_BAR_PX thick (a group's bars share `fill` of its row); when the area is
    shorter, it scrolls instead of squeezing the rows."""

    def __init__(self, plot: pg.PlotWidget, axis: CategoryAxis, parent=None):
        super().__init__(parent)
        self.plot, self.axis = plot, axis
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(plot)
        self.rows, self.bars, self.fill = 0, 1, 0.8

    def row_px(self) -> float:
        """The height one row needs: its name's line, or its bars at MIN_BAR_PX each."""
        line = QFontMetricsF(self.axis.style["tickFont"]).height()
        return max(line + ROW_GAP_PX, self.bars * MIN_BAR_PX / self.fill + ROW_GAP_PX)

    def set_rows(self, rows: int, bars: int = 1, fill: float = 0.8) -> None:
        """The chart shows `rows` rows of `bars` bars each, taking `fill` of the row's height."""
        self.rows, self.bars, self.fill = rows, max(1, bars), fill
        self._fit()

    def overhead_px(self) -> int:
        """The plot's height outside its rows: title, bottom axis, margins (as laid out, or a guess)."""
        item = self.plot.getPlotItem()
        view = item.getViewBox()
        if self.plot.height() > 0 and view.height() > 0:
            return int(self.plot.height() - view.height()) + 2
        line = QFontMetricsF(self.axis.style["tickFont"]).height()
        return int(4 * line + 30)

    def _fit(self) -> None:
        # (the rows' room plus half a row's margin above and below: the views set a range of -0.6..n-0.4)
        self.plot.setMinimumHeight(max(MIN_PLOT_HEIGHT, int((self.rows + 0.2) * self.row_px()) + self.overhead_px()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.rows:
            self._fit()  # (the overhead as laid out now)


def rows_drawn(plot: pg.PlotWidget, axis: CategoryAxis) -> tuple[list[int], float]:
    """A chart of rows as laid out: the rows whose names its axis draws, and the thinnest of its
    horizontal bars on screen, in px (inf without bars)."""
    import numpy as np

    view = plot.getPlotItem().getViewBox()
    lo, hi = sorted(view.viewRange()[1])
    if hi <= lo or view.height() <= 0:
        return [], 0.0
    labelled = axis.tickValues(lo, hi, view.height())
    rows = [int(round(v)) for v in labelled[0][1]] if labelled else []
    heights = [float(np.min(item.opts["height"])) for item in plot.getPlotItem().items
               if isinstance(item, pg.BarGraphItem)]
    return rows, min(heights, default=math.inf) * view.height() / (hi - lo)


def theme_plot(plot: pg.PlotWidget, theme: TokenTheme) -> None:
    """Colour a plot's background, axes, title and axis titles with `theme`."""
    plot.setBackground(theme.background)
    title = plot.getPlotItem().titleLabel
    if title.isVisible():
        title.setText(title.text, color=theme.text, size=PLOT_TITLE_SIZE)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setTextPen(theme.text)
        axis.setPen(theme.marker)
        if axis.labelText:
            axis.setLabel(axis.labelText, color=theme.text)
