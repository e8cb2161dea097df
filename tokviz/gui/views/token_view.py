"""The token view: the text drawn as coloured token boxes, virtualised for documents of any size.

Why custom painting (a QAbstractScrollArea that lays out and paints boxes itself) and not a
QTextDocument with char formats: a box per token with a thin border, rounded corners, hex byte
chips and outlined special tokens cannot be expressed with QTextCharFormat, and a document with one
format run per token gets slow to build for 100 KB of text (~25k fragments).

Virtualised like QPlainTextEdit, for files of tens of MB and millions of tokens:

* The document is cut into *blocks* (`core.token_array.layout_blocks`: a block starts where a
  line starts, or after 512 tokens without one), computed with numpy from the token offsets.
* Only blocks that are shown (or asked about, e.g. by `token_rects`) are laid out: their tokens
  turned into measured pieces (widths cached per distinct token) and flowed into rows.  Laid-out
  blocks are kept in a bounded LRU cache; a width or font change drops them.
* Every block has a height: exact once laid out, until then estimated from its characters, tokens
  and newlines (scaled by what the laid-out blocks measured).  The scroll bar is in pixels over
  those heights; when a block above the viewport is laid out and its height changes, the scroll
  position moves by the same amount, so what is on screen never jumps.
* Colours are computed per block on first paint.  Memory is the encoding's arrays plus a few
  numbers per block: proportional to the tokens, not to widgets or laid-out rows.

What is drawn: every token's own bytes (its display string), so the box shows what the tokenizer
produced (lower-cased by a normalizer, a sentencepiece '▁' as a space, ...).  Whitespace is shown
as · (space), → (tab), ↵ (newline, then a real line break), ␍ (carriage return), or as blank space
with `set_show_whitespace(False)` (same layout: only the markers are not drawn); bytes that are not
a whole UTF-8 character are small hex chips; special tokens are dark boxes with bold white text.
Source text that no token covers (the spaces a WordPiece model drops) is drawn faintly, without a
box, so the text keeps its shape.

The view is in four modules: this one (the widget: its API, events and tooltips), `token_layout`
(measuring and flowing blocks into rows, block heights and scrolling), `token_paint` (drawing the
rows) and `token_runs` (a token's bytes as runs of text, markers and chips; this module re-exports
its names).
"""
from __future__ import annotations

import html
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from ...core import Encoding
from ...core.token_array import Blocks, layout_blocks, offsets_arrays
from .coloring import theme_text_color, token_fills
from .token_layout import BlockLayout, _Layout
from .token_paint import TokenPainting
from .token_runs import (BLANK_MARKS, CHIP, GAP_MARK, GAP_TEXT, MARK, SPECIAL, TEXT, WHITESPACE_MARKS, byte_runs,
                         runs_display, text_runs)
from ..widgets.style import DEFAULT_THEME, TokenTheme, mono_font

__all__ = ["BLANK_MARKS", "CHIP", "GAP_MARK", "GAP_TEXT", "MARK", "SPECIAL", "TEXT", "WHITESPACE_MARKS", "TokenSpan",
           "TokenView", "byte_runs", "runs_display", "text_runs"]


@dataclass(frozen=True)
class TokenSpan:
    """One rendered token: its index in the Encoding, its [start, end) span in the source text,
    its background colour ('#rrggbb'), flags, and the string the view shows for it."""

    index: int
    start: int
    end: int
    color: str
    special: bool
    partial: bool
    display: str



class TokenView(QAbstractScrollArea, BlockLayout, TokenPainting):
    """Shows an Encoding of a text as coloured boxes.  Set it with `set_encoding(encoding)`; any
    Encoding works, a `core.token_array.TokenArray` for documents of millions of tokens.

    Testable API: `spans()`, `token_at_point(QPoint)`, `token_rects(i)`, `display_text(i)`,
    `tooltip_text(i)`, `color_of(i)`, `laid_out_blocks()`."""

    tokenHovered = Signal(int)  # token index, -1 when the pointer leaves tokens
    tokenClicked = Signal(int)
    tokensSelected = Signal(int, int)  # first and last token index of a drag over the tokens

    PAD_X = 2.0  # inside a box, left and right of the text
    PAD_Y = 2.0
    ROW_GAP = 5.0
    BOX_GAP = 1.0  # between two boxes on a row
    MARGIN = 12.0
    RADIUS = 3.0
    BLOCK_TOKENS = 512  # a block is cut after this many tokens without a line start
    CACHED_BLOCKS = 3000  # laid-out blocks kept (the rest are laid out again when shown)

    def __init__(self, parent: QWidget | None = None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._encoding: Encoding | None = None
        self._color_mode = "token"
        self._rank_of = None
        self._unk_id: int | None = None
        self._truncate_at: int | None = None  # tokens from this index on are past a max length
        self._details = None  # id -> {label: value} of model facts for the tooltip (merge rank, ...)
        self._selection: tuple[int, int] | None = None  # first, last selected token
        self._drag_from: int | None = None
        self._message = ""
        self._hover = -1
        self._current = -1
        self._starts = np.zeros(0, np.int64)
        self._ends = np.zeros(0, np.int64)
        self._blocks = Blocks(np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64))
        self._heights = np.zeros(0)  # per block, in pixels (rows * pitch): exact where laid out
        self._exact = np.zeros(0, bool)
        self._cum = np.zeros(1)  # _cum[b]: sum of the heights of the blocks before b
        self._cum_dirty = False
        self._calibrated = False
        self._layout_width = -1.0
        self._layouts: OrderedDict[int, _Layout] = OrderedDict()
        self._fills: dict[int, list[QColor]] = {}  # block -> fills of its tokens
        self._pieces_of: dict[tuple, list[tuple[list, float, bool]]] = {}  # token key -> its pieces
        self._block_sizes = None  # (blocks, chars, tokens, extra rows, empty) of each block, for estimates
        self._painting = False
        self._marks: np.ndarray | None = None  # per token: marked (see set_marks)
        self._underlines: list[tuple[QColor, np.ndarray]] = []  # (colour, per token: underlined) (set_underlines)
        self._show_whitespace = True
        self.setFont(mono_font())
        self.viewport().setMouseTracking(True)
        self.viewport().setAutoFillBackground(True)
        pal = self.viewport().palette()
        pal.setColor(self.viewport().backgroundRole(), QColor(theme.background))
        self.viewport().setPalette(pal)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QAbstractScrollArea.Shape.NoFrame)
        self._update_fonts()

    # ---- public API ---------------------------------------------------------------------------
    def set_encoding(self, encoding: Encoding | None) -> None:
        """Show `encoding` (None: show the message); marks are cleared.  A TokenArray's precomputed blocks are used
        as they are (`TokenArray.layout_blocks`), so a huge document costs the UI thread only
        the estimate of its blocks' heights."""
        self._encoding = encoding
        self._selection = None
        self._marks = None
        self._underlines = []
        self._hover = -1
        self._current = -1 if encoding is None or self._current >= len(encoding) else self._current
        if encoding is None:
            self._starts = self._ends = np.zeros(0, np.int64)
            self._blocks = Blocks(np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64))
        else:
            self._starts, self._ends = offsets_arrays(encoding)
            blocks = getattr(encoding, "cached_blocks", None)
            self._blocks = blocks if blocks is not None else layout_blocks(
                encoding.text, self._starts, self._ends, self.BLOCK_TOKENS)
        self._pieces_of = {}
        self._calibrated = False
        self._reset_layout(keep_top=False)
        self._recolor()

    def encoding(self) -> Encoding | None:
        return self._encoding

    def set_show_whitespace(self, on: bool) -> None:
        """Draw spaces, tabs and newlines as markers (· → ↵, the default) or as blank space.  The
        boxes and the layout stay the same; `display_text` keeps the markers either way."""
        on = bool(on)
        if on != self._show_whitespace:
            self._show_whitespace = on
            self.viewport().update()

    def show_whitespace(self) -> bool:
        return self._show_whitespace

    def token_starts(self) -> np.ndarray:
        """Start character of every token (sorted), as an array."""
        return self._starts

    def set_message(self, text: str) -> None:
        """Text shown centred when there is no encoding (e.g. 'Loading…', 'Open a tokenizer')."""
        self._message = text
        self.viewport().update()

    def message(self) -> str:
        return self._message

    def set_color_mode(self, mode: str, *, rank_of=None, unk_id: int | None = None) -> None:
        """Colour tokens by `mode` (see gui/coloring.MODES); `rank_of(id)` in 0..1 for "rank",
        `unk_id` for "special"."""
        self._color_mode = mode
        self._rank_of = rank_of
        self._unk_id = unk_id
        self._recolor()

    def color_mode(self) -> str:
        return self._color_mode

    def set_selection(self, first: int, last: int) -> None:
        """Highlight tokens first..last (inclusive); first > last or -1: none."""
        sel = (first, last) if 0 <= first <= last else None
        if sel != self._selection:
            self._selection = sel
            self.viewport().update()

    def selection(self) -> tuple[int, int] | None:
        return self._selection

    def set_theme(self, theme: TokenTheme) -> None:
        """Colours for fills, text, chips and background (style.LIGHT / style.DARK)."""
        self.theme = theme
        pal = self.viewport().palette()
        pal.setColor(self.viewport().backgroundRole(), QColor(theme.background))
        self.viewport().setPalette(pal)
        self._recolor()

    def set_details_provider(self, provider) -> None:
        """`provider(id)` -> {label: value}: model facts added to each token's details."""
        self._details = provider

    def set_truncation(self, max_length: int | None) -> None:
        """Show where a max length of `max_length` tokens cuts the sequence: the tokens after it
        are dimmed and a red bar marks the cut (None: no max length)."""
        self._truncate_at = max_length if max_length and max_length > 0 else None
        self.viewport().update()

    def truncation(self) -> int | None:
        return self._truncate_at

    def is_truncated(self, index: int) -> bool:
        return self._truncate_at is not None and index >= self._truncate_at

    def color_of(self, index: int) -> str:
        b = self._blocks.of_token(index)
        return self._block_fills(b)[index - int(self._blocks.first[b])].name()

    def text_color_of(self, index: int) -> str:
        """The colour token `index`'s text is drawn in ('#rrggbb'): readable on its fill."""
        special = bool(self._encoding.special[index])
        return theme_text_color(self.color_of(index), self.theme, special)

    def _recolor(self) -> None:
        self._fills = {}
        self.viewport().update()

    def _block_fills(self, b: int) -> list[QColor]:
        fills = self._fills.get(b)
        if fills is None:
            enc = self._encoding
            first, stop = int(self._blocks.first[b]), int(self._blocks.first[b + 1])
            names = token_fills(enc, self._color_mode, self.theme, rank_of=self._rank_of, unk_id=self._unk_id,
                                indices=range(first, stop))
            fills = self._fills[b] = [QColor(f) for f in names]
            if len(self._fills) > self.CACHED_BLOCKS:
                self._fills.pop(next(iter(self._fills)))
        return fills

    def spans(self) -> list[TokenSpan]:
        """For each token, in order: index, source span, colour, flags and the shown string."""
        enc = self._encoding
        if enc is None:
            return []
        special, partial = enc.special, enc.partial
        return [
            TokenSpan(i, int(s), int(e), self.color_of(i), bool(special[i]), bool(partial[i]), self.display_text(i))
            for i, (s, e) in enumerate(zip(self._starts, self._ends))
        ]

    def display_text(self, index: int) -> str:
        """The string drawn for token `index`: markers for whitespace, ⟨e6⟩ for byte chips."""
        return "".join(runs_display(runs) for runs, _, _ in self._token_pieces(index))

    def token_at_point(self, point: QPoint | QPointF) -> int | None:
        """Index of the token under `point` (viewport coordinates), or None."""
        hit = self._placed_at(QPointF(point))
        if hit is None:
            return None
        layout, j = hit
        token = layout.tok[j]
        return token if token >= 0 else None

    def token_rects(self, index: int) -> list[QRectF]:
        """Boxes of token `index` in viewport coordinates (several if it spans lines); the token's
        block is laid out if it was not."""
        if self._encoding is None or not (0 <= index < len(self._encoding)):
            return []
        b = self._blocks.of_token(index)
        layout = self._layout(b)
        top = self._block_top(b)
        return [QRectF(layout.x[j], top + layout.row_of(j) * self._pitch, layout.w[j], self._box_h)
                for j in range(len(layout.tok)) if layout.tok[j] == index]

    def tooltip_text(self, index: int) -> str:
        """Rich-text tooltip for a token: id, piece, bytes in hex, character span, flags."""
        enc = self._encoding
        if enc is None or not (0 <= index < len(enc)):
            return ""
        s, e = int(self._starts[index]), int(self._ends[index])
        data = enc.token_bytes[index]
        hexbytes = " ".join(f"{b:02x}" for b in data) or self.tr("(none)")
        flags = []
        if enc.special[index]:
            flags.append(self.tr("special token"))
        if enc.partial[index]:
            flags.append(self.tr("part of a UTF-8 character"))
        if e <= s:
            span = self.tr("{start} (empty: added by the post-processor)").format(start=s)
        elif e - s == 1:
            span = self.tr("{start}–{end} (1 char)").format(start=s, end=e)
        else:
            span = self.tr("{start}–{end} ({n} chars)").format(start=s, end=e, n=e - s)
        rows = [
            (self.tr("id"), f"<b>{int(enc.ids[index])}</b>"),
            (self.tr("piece"), f"<code>{html.escape(repr(enc.pieces[index]))}</code>"),
            (self.tr("text"), f"<code>{html.escape(self.display_text(index))}</code>"),
            (self.tr("bytes"), f"<code>{hexbytes}</code> ({len(data)})"),
            (self.tr("chars"), span),
        ]
        if s < e:
            rows.append((self.tr("source"), f"<code>{html.escape(repr(enc.text[s:e]))}</code>"))
        if self._details is not None:
            for label, value in self._details(int(enc.ids[index])).items():
                rows.append((html.escape(label), html.escape(str(value))))
        if flags:
            rows.append(("", "<i>" + self.tr(", ").join(flags) + "</i>"))
        body = "".join(
            f"<tr><td style='color:#6f7b8a; padding-right:8px'>{k}</td><td>{v}</td></tr>" for k, v in rows
        )
        head = self.tr("token {k:,} of {n:,}").format(k=index + 1, n=len(enc))
        return f"<p style='margin:0'>{head}</p><table cellspacing='0'>{body}</table>"

    def set_current_token(self, index: int, *, ensure_visible: bool = True) -> None:
        """Outline token `index` (e.g. the one under the editor's cursor); -1 for none."""
        if index == self._current:
            return
        self._current = index
        if ensure_visible and index >= 0:
            self.ensure_visible(index)
        self.viewport().update()

    def current_token(self) -> int:
        return self._current

    def hovered_token(self) -> int:
        return self._hover

    def set_linked_hover(self, index: int) -> None:
        """Outline token `index` as hovered without the pointer being here (a compare view shows
        the token under the pointer in another pane); -1 for none.  Emits nothing."""
        if index != self._hover:
            self._hover = index
            self.viewport().update()

    def set_marks(self, indices) -> None:
        """Draw a red bar at the left edge of these tokens (the compare view's boundary diff)."""
        n = len(self._encoding) if self._encoding is not None else 0
        mask = np.zeros(n, bool)
        idx = np.asarray(indices, dtype=np.int64)
        mask[idx[(idx >= 0) & (idx < n)]] = True
        self._marks = mask if mask.any() else None
        self.viewport().update()

    def marks(self) -> set[int]:
        return set() if self._marks is None else {int(i) for i in np.flatnonzero(self._marks)}

    def set_underlines(self, layers) -> None:
        """Underline tokens: `layers` is [(colour, token indices)], each layer a line of its colour
        under its tokens, the later ones below (the Round trip panel's normalizer changes and decode
        differences); [] clears them."""
        n = len(self._encoding) if self._encoding is not None else 0
        out = []
        for color, indices in layers:
            mask = np.zeros(n, bool)
            idx = np.asarray(indices, dtype=np.int64)
            mask[idx[(idx >= 0) & (idx < n)]] = True
            if mask.any():
                out.append((QColor(color), mask))
        self._underlines = out
        self.viewport().update()

    def underlined(self) -> list[set[int]]:
        """The underlined token indices of each layer set by `set_underlines` (empty ones left out)."""
        return [{int(i) for i in np.flatnonzero(mask)} for _color, mask in self._underlines]

    def top_token(self) -> int:
        """Index of the first token at the top of the viewport (-1 when nothing is shown)."""
        if self._encoding is None or not len(self._heights):
            return -1
        self._prepare_visible()
        top = self.verticalScrollBar().value()
        b = self._block_at(top - self.MARGIN)
        for b in range(b, min(b + 50, len(self._heights))):
            layout = self._layout(b)
            block_top = self._block_top_doc(b)
            for row in range(layout.rows):
                if block_top + row * self._pitch + self._box_h >= top:
                    for j in layout.row_range(row):
                        if layout.tok[j] >= 0:
                            return layout.tok[j]
        return -1

    def scroll_to_token(self, index: int) -> None:
        """Scroll so the row of token `index` is the top row."""
        rects = self.token_rects(index)
        if rects:
            bar = self.verticalScrollBar()
            target = bar.value() + rects[0].top() - self.MARGIN
            bar.setValue(0 if target <= self.MARGIN else int(target))  # (the first row: the very top)

    def ensure_visible(self, index: int) -> None:
        """Scroll so token `index` is on screen.  The blocks it brings into view are laid out
        first (their heights may differ from the estimates and move it), then it is checked again."""
        vh = self.viewport().height()
        bar = self.verticalScrollBar()
        for _ in range(4):
            rects = self.token_rects(index)
            if not rects:
                return
            r = rects[0]
            if r.top() < 0:
                bar.setValue(int(bar.value() + r.top() - self.MARGIN))
            elif r.bottom() > vh:
                bar.setValue(int(bar.value() + r.bottom() - vh + self.MARGIN))
            else:
                return
            self._prepare_visible()

    def row_count(self) -> int:
        """Rows of the whole document (estimated for blocks not laid out yet)."""
        return int(round(self._total() / self._pitch))

    def content_height(self) -> float:
        return 2 * self.MARGIN + self._total() - (self.ROW_GAP if len(self._heights) and self._total() else 0)

    def laid_out_blocks(self) -> int:
        """How many blocks are laid out now (the rest of the document costs nothing)."""
        return len(self._layouts)

    def block_count(self) -> int:
        return len(self._blocks)

    def sizeHint(self) -> QSize:
        return QSize(500, 400)

    # ---- fonts and metrics -------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._update_fonts()
            self._pieces_of = {}
            self._reset_layout(keep_top=True)
        super().changeEvent(event)

    # ---- events ---------------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if float(self.viewport().width()) != self._layout_width:
            self._reset_layout(keep_top=True)
        else:
            self._update_scrollbar()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        if self._painting or abs(dy) >= self.viewport().height():
            self.viewport().update()
        else:
            self.viewport().scroll(dx, dy)  # move the pixels; only the uncovered strip is painted

    def mouseMoveEvent(self, event) -> None:
        tok = self.token_at_point(event.position())
        self._set_hover(-1 if tok is None else tok)
        if self._drag_from is not None and tok is not None and event.buttons() & Qt.MouseButton.LeftButton:
            first, last = sorted((self._drag_from, tok))
            if (first, last) != self._selection:
                self.set_selection(first, last)
                self.tokensSelected.emit(first, last)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event) -> None:
        tok = self.token_at_point(event.position())
        if tok is not None and event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = tok
            self.set_selection(-1, -1)
            self.set_current_token(tok, ensure_visible=False)
            self.tokenClicked.emit(tok)
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        self._drag_from = None
        super().mouseReleaseEvent(event)

    def leaveEvent(self, event) -> None:
        self._set_hover(-1)
        super().leaveEvent(event)

    def _set_hover(self, tok: int) -> None:
        if tok != self._hover:
            self._hover = tok
            self.viewport().update()
            self.tokenHovered.emit(tok)

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            tok = self.token_at_point(event.pos())
            if tok is None:
                QToolTip.hideText()
                event.ignore()
            else:
                rects = self.token_rects(tok)
                rect = rects[0].toAlignedRect() if rects else QRect()
                QToolTip.showText(event.globalPos(), self.tooltip_text(tok), self.viewport(), rect)
            return True
        return super().viewportEvent(event)

    # ---- painting -------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        self._paint(event)
