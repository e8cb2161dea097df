"""How the token view paints: a mixin of `TokenView` that draws the laid-out rows of the blocks on
screen (fills, borders, text, markers, byte chips), then the selection, the truncation bar, the
compare marks, the underlines and the hover / current outlines, or the view's message when there
is nothing to show."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QStaticText, QTextOption

from .coloring import theme_text_color
from .token_runs import BLANK_MARKS, CHIP, GAP_MARK, GAP_TEXT, MARK, SPECIAL, TEXT


def _mix(a: QColor, b: QColor, share_of_a: float) -> QColor:
    return QColor.fromRgbF(*(share_of_a * x + (1 - share_of_a) * y
                             for x, y in zip(a.getRgbF()[:3], b.getRgbF()[:3])))


class TokenPainting:
    """The painting half of `TokenView` (a mixin: TokenView.paintEvent calls `_paint`)."""

    def _paint(self, event) -> None:
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if self._encoding is None or not self._total():
            self._paint_message(painter)
            return
        self._painting = True
        try:
            self._paint_blocks(painter, event.rect())
        finally:
            self._painting = False
            painter.end()

    def _paint_blocks(self, painter: QPainter, clip: QRect) -> None:
        shown = self._prepare_visible()
        theme = self.theme
        pens = {kind: QPen(QColor(color)) for kind, color in (
            (TEXT, theme.text), (MARK, theme.marker), (GAP_TEXT, theme.gap_text), (GAP_MARK, theme.gap_text),
            (SPECIAL, theme.special_text))}
        fonts = {TEXT: self._font, MARK: self._font, GAP_TEXT: self._font, GAP_MARK: self._font, SPECIAL: self._bold}
        inks: dict[tuple[int, bool], tuple[QPen, QPen]] = {}  # (fill, special) -> pens of its text and markers
        special_outline = QPen(QColor(theme.special_outline), 1.0)
        borders: dict[int, QPen] = {}
        enc = self._encoding
        special_flags = enc.special
        emphasis = []
        cut = self._truncate_at
        cut_mark = None
        rows_drawn = []  # (layout, row, top) for the selection overlay
        current_font = None
        blank = () if self._show_whitespace else BLANK_MARKS
        for b in shown:
            layout = self._layout(b)
            fills = self._block_fills(b)
            first_token = int(self._blocks.first[b])
            block_top = self._block_top(b)
            for row in range(layout.rows):
                top = block_top + row * self._pitch
                if top + self._box_h < clip.top() or top > clip.bottom():
                    continue
                rows_drawn.append((layout, row, top))
                text_top = top + self.PAD_Y
                for j in layout.row_range(row):
                    tok = layout.tok[j]
                    x, w = layout.x[j], layout.w[j]
                    painter.setOpacity(0.3 if cut is not None and tok >= cut else 1.0)
                    if tok == cut and cut_mark is None:
                        cut_mark = QRectF(x - 2.0, top - 2.0, 3.0, self._box_h + 4.0)
                    ink = None
                    if tok >= 0:
                        special = bool(special_flags[tok])
                        fill = fills[tok - first_token]
                        ink = inks.get((fill.rgb(), special))
                        if ink is None:
                            ink = inks[fill.rgb(), special] = self._ink(fill, special)
                        rect = QRectF(x + 0.5, top + 0.5, w - 1.0, self._box_h - 1.0)
                        if special:
                            painter.setPen(special_outline)
                        else:
                            rgb = fill.rgb()
                            pen = borders.get(rgb)
                            if pen is None:
                                pen = borders[rgb] = QPen(fill.darker(theme.border_darker), 1.0)
                            painter.setPen(pen)
                        painter.setBrush(fill)
                        painter.drawRoundedRect(rect, self.RADIUS, self.RADIUS)
                        if tok == self._hover or tok == self._current:
                            emphasis.append((rect, tok == self._hover))
                        tx = x + self.PAD_X
                    else:
                        tx = x
                    for kind, t, rw in layout.runs[j]:
                        if (kind == MARK or kind == GAP_MARK) and t[0] in blank:
                            pass
                        elif kind == CHIP:
                            self._paint_chip(painter, tx, top, rw, t)
                            current_font = self._small
                        else:
                            font = fonts[kind]
                            if font is not current_font:
                                painter.setFont(font)
                                current_font = font
                            if ink is None or kind == GAP_TEXT or kind == GAP_MARK:
                                painter.setPen(pens[kind])
                            else:
                                painter.setPen(ink[1] if kind == MARK else ink[0])
                            painter.drawStaticText(QPointF(tx, text_top), self._static_text(kind, t, font))
                        tx += rw
        painter.setOpacity(1.0)
        if self._selection is not None:
            first_sel, last_sel = self._selection
            painter.setPen(Qt.PenStyle.NoPen)
            overlay = QColor(theme.selection)
            overlay.setAlpha(90)
            painter.setBrush(overlay)
            for layout, row, top in rows_drawn:
                for j in layout.row_range(row):
                    if first_sel <= layout.tok[j] <= last_sel:
                        painter.drawRoundedRect(QRectF(layout.x[j], top, layout.w[j], self._box_h),
                                                self.RADIUS, self.RADIUS)
        if cut_mark is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(theme.truncation))
            painter.drawRect(cut_mark)
        if self._marks is not None:
            marks = self._marks
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(theme.truncation))
            for layout, row, top in rows_drawn:
                for j in layout.row_range(row):
                    tok = layout.tok[j]
                    if tok >= 0 and marks[tok] and (j == 0 or layout.tok[j - 1] != tok):
                        painter.drawRect(QRectF(layout.x[j] - 1.5, top - 1.0, 2.0, self._box_h + 2.0))
        for k, (color, mask) in enumerate(self._underlines):
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            y = self._box_h + 0.5 + 2.0 * k
            for layout, row, top in rows_drawn:
                for j in layout.row_range(row):
                    tok = layout.tok[j]
                    if tok >= 0 and mask[tok]:
                        painter.drawRect(QRectF(layout.x[j], top + y, layout.w[j], 2.0))
        for rect, hovered in emphasis:
            color = QColor(theme.hover_outline if hovered else theme.current_outline)
            painter.setPen(QPen(color, 2.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), self.RADIUS, self.RADIUS)

    def _ink(self, fill: QColor, special: bool) -> tuple[QPen, QPen]:
        """Pens of the text and of the whitespace markers in a box of `fill`: the theme's where the
        text is readable (WCAG contrast of 4.5 or more), else text of the other lightness and
        markers between it and the fill (`coloring.text_color`)."""
        theme = self.theme
        text = QColor(theme_text_color(fill.name(), theme, special))
        if special:
            return QPen(text), QPen(text)
        marker = QColor(theme.marker) if text == QColor(theme.text) else _mix(text, fill, 0.7)
        return QPen(text), QPen(marker)

    def _static_text(self, kind: int, text: str, font: QFont) -> QStaticText:
        """The run's glyphs, laid out once (drawing a QStaticText skips text layout)."""
        key = (kind, text)
        static = self._static.get(key)
        if static is None:
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(font=font)
            self._static[key] = static
            if len(self._static) > 50_000:
                self._static.clear()
        return static

    def _paint_chip(self, painter: QPainter, x: float, top: float, w: float, hexbyte: str) -> None:
        theme = self.theme
        h = self._chip_h
        rect = QRectF(x + 1.5, top + (self._box_h - h) / 2, w - 3.0, h)
        painter.setPen(QPen(QColor(theme.chip_outline), 1.0))
        painter.setBrush(QColor(theme.chip_fill))
        painter.drawRoundedRect(rect, 2.0, 2.0)
        painter.setFont(self._small)
        painter.setPen(QColor(theme.chip_text))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, hexbyte)

    def _paint_message(self, painter: QPainter) -> None:
        if not self._message:
            return
        painter.setPen(QColor(self.theme.message_text))
        painter.setFont(self.font())
        margin = min(24, self.viewport().width() // 12)
        option = QTextOption(Qt.AlignmentFlag.AlignCenter)
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)  # (file names longer than the pane)
        painter.drawText(QRectF(self.viewport().rect().adjusted(margin, margin, -margin, -margin)), self._message,
                         option)
