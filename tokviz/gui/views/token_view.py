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
"""
from __future__ import annotations

import bisect
import html
import math
import re
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QStaticText
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from ...core import Encoding
from ...core.token_array import Blocks, layout_blocks, offsets_arrays
from .coloring import token_fills
from ..widgets.style import DEFAULT_THEME, TokenTheme, mono_font

# Run kinds inside a piece.
TEXT, MARK, CHIP, SPECIAL, GAP_TEXT, GAP_MARK = range(6)

WHITESPACE_MARKS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\u00a0": "⍽", "\x7f": "␡"}
WHITESPACE_MARKS.update({chr(c): chr(0x2400 + c) for c in range(0x20) if chr(c) not in WHITESPACE_MARKS})
# Markers of what an editor shows as blank space: drawn blank when whitespace markers are off (the
# marks of control characters stay, else those characters would be invisible).
BLANK_MARKS = frozenset("·→↵␍⍽")
_SPLIT_MARKS = re.compile("([" + re.escape("".join(WHITESPACE_MARKS)) + "])")


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


def text_runs(s: str, text_kind: int = TEXT, mark_kind: int = MARK) -> list[tuple[int, str]]:
    """Split text into (kind, string) runs, whitespace/control characters replaced by markers.
    A newline run is always a single '↵' so a line break can follow it; a marker run holds only
    BLANK_MARKS or none of them."""
    runs: list[tuple[int, str]] = []
    for part in _SPLIT_MARKS.split(s):
        if not part:
            continue
        if len(part) == 1 and part in WHITESPACE_MARKS:
            mark = WHITESPACE_MARKS[part]
            if (runs and runs[-1][0] == mark_kind and part != "\n" and not runs[-1][1].endswith("↵")
                    and (runs[-1][1][0] in BLANK_MARKS) == (mark in BLANK_MARKS)):
                runs[-1] = (mark_kind, runs[-1][1] + mark)
            else:
                runs.append((mark_kind, mark))
        else:
            runs.append((text_kind, part))
    return runs


def byte_runs(data: bytes) -> list[tuple[int, str]]:
    """Runs for a token's bytes: valid UTF-8 as text (with markers), other bytes as hex chips."""
    runs: list[tuple[int, str]] = []
    i = 0
    while i < len(data):
        try:
            runs += text_runs(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as exc:
            if exc.start:
                runs += text_runs(data[i : i + exc.start].decode("utf-8"))
            for b in data[i + exc.start : i + exc.end]:
                runs.append((CHIP, f"{b:02x}"))
            i += exc.end
    return runs


def runs_display(runs) -> str:
    """The plain string for runs: text and markers as drawn, chips as ⟨e6⟩."""
    return "".join(f"⟨{t}⟩" if k == CHIP else t for k, t, *_ in runs)


@dataclass
class _Layout:
    """One block laid out: its placed pieces (token index or -1 for uncovered text, x, width, runs)
    and the first placed piece of each row."""

    tok: list[int] = field(default_factory=list)
    x: list[float] = field(default_factory=list)
    w: list[float] = field(default_factory=list)
    runs: list[list[tuple[int, str, float]]] = field(default_factory=list)
    row_start: list[int] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return len(self.row_start)

    def row_range(self, row: int) -> range:
        end = self.row_start[row + 1] if row + 1 < len(self.row_start) else len(self.tok)
        return range(self.row_start[row], end)

    def row_of(self, j: int) -> int:
        return bisect.bisect_right(self.row_start, j) - 1


class TokenView(QAbstractScrollArea):
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
        hexbytes = " ".join(f"{b:02x}" for b in data) or "(none)"
        flags = []
        if enc.special[index]:
            flags.append("special token")
        if enc.partial[index]:
            flags.append("part of a UTF-8 character")
        span = f"{s}–{e} ({e - s} char{'s' if e - s != 1 else ''})" if e > s else f"{s} (empty: added by the post-processor)"
        rows = [
            ("id", f"<b>{int(enc.ids[index])}</b>"),
            ("piece", f"<code>{html.escape(repr(enc.pieces[index]))}</code>"),
            ("text", f"<code>{html.escape(self.display_text(index))}</code>"),
            ("bytes", f"<code>{hexbytes}</code> ({len(data)})"),
            ("chars", span),
        ]
        if s < e:
            rows.append(("source", f"<code>{html.escape(repr(enc.text[s:e]))}</code>"))
        if self._details is not None:
            for label, value in self._details(int(enc.ids[index])).items():
                rows.append((html.escape(label), html.escape(str(value))))
        if flags:
            rows.append(("", "<i>" + ", ".join(flags) + "</i>"))
        body = "".join(
            f"<tr><td style='color:#6f7b8a; padding-right:8px'>{k}</td><td>{v}</td></tr>" for k, v in rows
        )
        return f"<p style='margin:0'>token {index + 1:,} of {len(enc):,}</p><table cellspacing='0'>{body}</table>"

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

    def _update_fonts(self) -> None:
        base = QFont(self.font())
        self._font = base
        self._bold = QFont(base)
        self._bold.setBold(True)
        self._small = QFont(base)
        self._small.setPointSizeF(max(6.0, base.pointSizeF() * 0.78))
        self._fm = QFontMetricsF(self._font)
        self._fm_bold = QFontMetricsF(self._bold)
        self._fm_small = QFontMetricsF(self._small)
        self._box_h = round(self._fm.height() + 2 * self.PAD_Y)
        self._pitch = self._box_h + self.ROW_GAP
        self._chip_h = self._fm_small.height() + 1
        self._char_w = self._fm.horizontalAdvance("x")
        self._width_cache: dict[tuple[int, str], float] = {}
        self._static: dict[tuple[int, str], QStaticText] = {}  # laid-out glyphs of each run drawn

    def _run_width(self, kind: int, text: str) -> float:
        key = (kind, text)
        w = self._width_cache.get(key)
        if w is None:
            if kind == CHIP:
                w = self._fm_small.horizontalAdvance(text) + 8.0
            elif kind == SPECIAL:
                w = self._fm_bold.horizontalAdvance(text)
            else:
                w = self._fm.horizontalAdvance(text)
            self._width_cache[key] = w
        return w

    # ---- block heights and scrolling ------------------------------------------------------------
    def _reset_layout(self, *, keep_top: bool) -> None:
        """Drop every laid-out block and estimate all heights again (new encoding, width or font);
        with keep_top the block at the top of the viewport stays there."""
        top_block, offset = 0, 0.0
        if keep_top and len(self._heights):
            value = self.verticalScrollBar().value()
            top_block = self._block_at(value - self.MARGIN)
            offset = value - self._block_top_doc(top_block)  # (negative in the top margin)
        self._layouts.clear()
        self._layout_width = float(self.viewport().width())
        self._heights = self._estimate()
        self._exact = np.zeros(len(self._heights), bool)
        self._cum_dirty = True
        self._update_scrollbar()
        self._set_scroll(max(0.0, self._block_top_doc(top_block) + offset) if keep_top else 0)
        self.viewport().update()

    def _estimate(self, scale: float = 1.0) -> np.ndarray:
        """Estimated height of every block from its characters, tokens and newlines."""
        blocks = self._blocks
        if len(blocks) == 0:
            return np.zeros(0)
        if self._block_sizes is None or self._block_sizes[0] is not blocks:
            chars = np.diff(blocks.chars).astype(np.float32)
            tokens = np.diff(blocks.first).astype(np.float32)
            lines = blocks.lines.astype(np.float32)
            self._block_sizes = (blocks, chars, tokens, lines - (lines > 0), (chars == 0) & (tokens == 0))
        _, chars, tokens, extra_rows, empty = self._block_sizes
        avail = max(80.0, self.viewport().width() - 2 * self.MARGIN)
        width = chars * np.float32(self._char_w * scale / avail)
        width += tokens * np.float32((2 * self.PAD_X + self.BOX_GAP) * scale / avail)
        rows = np.maximum(np.ceil(width, out=width) + extra_rows, 1.0)
        rows[empty] = 0.0
        return rows.astype(np.float64) * self._pitch

    def _calibrate(self) -> None:
        """Once per document, after the first screen: scale the estimates of the blocks not laid
        out by how the laid-out ones came out (wide CJK characters, byte chips...)."""
        exact = self._exact
        if exact.all() or not exact.any():
            return
        est = self._estimate()
        if est[exact].sum() <= 0:
            return
        ratio = self._heights[exact].sum() / est[exact].sum()
        if 0.8 < ratio < 1.25:
            return
        scaled = self._estimate(scale=ratio)
        top = self._block_at(self.verticalScrollBar().value() - self.MARGIN)
        offset = self.verticalScrollBar().value() - self._block_top_doc(top)
        self._heights[~exact] = scaled[~exact]
        self._cum_dirty = True
        self._update_scrollbar()
        self._set_scroll(self._block_top_doc(top) + offset)

    def _cum_heights(self) -> np.ndarray:
        if self._cum_dirty:
            self._cum = np.concatenate(([0.0], np.cumsum(self._heights)))
            self._cum_dirty = False
        return self._cum

    def _total(self) -> float:
        return float(self._cum_heights()[-1])

    def _block_at(self, doc_y: float) -> int:
        """Block whose rows cover document y (relative to the top margin), clamped."""
        cum = self._cum_heights()
        n = len(self._heights)
        if n == 0:
            return 0
        return min(max(int(np.searchsorted(cum, doc_y, side="right")) - 1, 0), n - 1)

    def _block_top_doc(self, b: int) -> float:
        cum = self._cum_heights()
        return self.MARGIN + float(cum[min(b, len(cum) - 1)])

    def _block_top(self, b: int) -> float:
        """Top of block b in viewport coordinates."""
        return self._block_top_doc(b) - self.verticalScrollBar().value()

    def _set_height(self, b: int, height: float) -> None:
        """Block b measured `height`: if it lies above the top of the viewport the scroll
        position moves with it, so the content on screen stays where it is."""
        delta = height - self._heights[b]
        self._exact[b] = True
        if delta == 0:
            return
        bar = self.verticalScrollBar()
        above = self._block_top_doc(b + 1) <= bar.value() if b + 1 <= len(self._heights) else False
        self._heights[b] = height
        self._cum_dirty = True
        self._update_scrollbar()
        if above:
            self._set_scroll(bar.value() + delta)

    def _set_scroll(self, value: float) -> None:
        self.verticalScrollBar().setValue(int(round(value)))

    def _update_scrollbar(self) -> None:
        bar = self.verticalScrollBar()
        total = int(math.ceil(self.content_height()))
        bar.setRange(0, max(0, total - self.viewport().height()))
        bar.setPageStep(max(1, self.viewport().height()))
        bar.setSingleStep(int(self._pitch))

    def _prepare_visible(self) -> list[int]:
        """Lay out the blocks the viewport shows (heights settle first: laying out a block can
        move the ones after it), and return them."""
        vh = self.viewport().height()
        for _ in range(6):
            top = self.verticalScrollBar().value()
            b = self._block_at(top - self.MARGIN)
            shown = []
            changed = False
            while b < len(self._heights) and self._block_top_doc(b) < top + vh:
                was = self._heights[b]
                self._layout(b)
                changed |= self._heights[b] != was
                shown.append(b)
                b += 1
            if not changed:
                break
        if not self._calibrated and shown:
            self._calibrated = True
            QTimer.singleShot(0, self._calibrate)  # (it may scroll: not while painting)
        return shown

    # ---- laying out one block -------------------------------------------------------------------
    def _token_pieces(self, i: int) -> list[tuple[list, float, bool]]:
        """Token i as measured pieces (cut at its newlines), shared by every token with the same
        bytes."""
        enc = self._encoding
        special = bool(enc.special[i])
        data = enc.token_bytes[i]
        piece = enc.pieces[i] if special else ""
        key = (data, special, piece)
        pieces = self._pieces_of.get(key)
        if pieces is None:
            runs = [(SPECIAL, piece)] if special else byte_runs(data)
            if not runs:
                runs = [(MARK, "∅")]  # a token with no bytes (should not happen, but stay visible)
            pieces = self._pieces_of[key] = self._split(runs)
        return pieces

    def _split(self, runs: list[tuple[int, str]]) -> list[tuple[list, float, bool]]:
        """Cut runs into pieces at newlines: [(runs with widths, width, break after)]."""
        out: list[tuple[list, float, bool]] = []
        cur: list[tuple[int, str, float]] = []
        for kind, t in runs:
            cur.append((kind, t, self._run_width(kind, t)))
            if t == "↵" and kind in (MARK, GAP_MARK):
                out.append((cur, sum(r[2] for r in cur), True))
                cur = []
        if cur:
            out.append((cur, sum(r[2] for r in cur), False))
        return out

    def _layout(self, b: int) -> _Layout:
        """Block b laid out at the current width (from the cache when it is there)."""
        layout = self._layouts.get(b)
        if layout is not None:
            self._layouts.move_to_end(b)
            return layout
        layout = self._flow(self._block_pieces(b))
        self._layouts[b] = layout
        if len(self._layouts) > self.CACHED_BLOCKS:
            self._layouts.popitem(last=False)
        self._set_height(b, layout.rows * self._pitch)
        return layout

    def _block_pieces(self, b: int) -> list[tuple[int, list, float, bool]]:
        """(token or -1, runs, width, break after) for everything block b shows, in order."""
        enc = self._encoding
        text = enc.text
        first, stop = int(self._blocks.first[b]), int(self._blocks.first[b + 1])
        covered = int(self._blocks.chars[b])
        end = int(self._blocks.chars[b + 1])
        out = []
        starts, ends = self._starts, self._ends
        for i in range(first, stop):
            start = int(starts[i])
            if start > covered:
                out.extend((-1, *p) for p in self._split(text_runs(text[covered:start], GAP_TEXT, GAP_MARK)))
            covered = max(covered, int(ends[i]))
            out.extend((i, *p) for p in self._token_pieces(i))
        if covered < end:
            out.extend((-1, *p) for p in self._split(text_runs(text[covered:end], GAP_TEXT, GAP_MARK)))
        return out

    def _flow(self, pieces) -> _Layout:
        """Place pieces on rows at the current width; every block starts a new row."""
        out = _Layout()
        left = self.MARGIN
        right = max(left + 80.0, self._layout_width - self.MARGIN)
        avail = right - left
        pad2 = 2 * self.PAD_X
        x = left
        row_open = False
        prev_token = None
        for tok, runs, width, brk in pieces:
            w = width + (pad2 if tok >= 0 else 0.0)
            gap = self.BOX_GAP if (row_open and x > left and tok != prev_token and tok >= 0 and prev_token not in (None, -1)) else 0.0
            if not row_open:
                out.row_start.append(len(out.tok))
                row_open = True
                x = left
                gap = 0.0
            if x + gap + w > right and x > left:  # wrap before this piece
                out.row_start.append(len(out.tok))
                x = left
                gap = 0.0
            if w > avail:  # longer than a whole row: cut it into row-sized parts
                for part_runs, part_w in self._cut(runs, avail - (pad2 if tok >= 0 else 0.0)):
                    if x > left:
                        out.row_start.append(len(out.tok))
                        x = left
                    pw = part_w + (pad2 if tok >= 0 else 0.0)
                    self._place(out, tok, x, pw, part_runs)
                    x += pw
            else:
                x += gap
                self._place(out, tok, x, w, runs)
                x += w
            prev_token = tok
            if brk:
                row_open = False
                prev_token = None
        return out

    @staticmethod
    def _place(out: _Layout, tok: int, x: float, w: float, runs) -> None:
        out.tok.append(tok)
        out.x.append(x)
        out.w.append(w)
        out.runs.append(runs)

    def _cut(self, runs, avail: float):
        """Split runs into parts no wider than `avail` (by characters)."""
        parts, cur, cur_w = [], [], 0.0
        for kind, t, w in runs:
            if cur_w + w <= avail:
                cur.append((kind, t, w))
                cur_w += w
                continue
            i = 0
            while i < len(t):
                # the longest prefix of t[i:] that fits in what is left of the row
                lo, hi = i + 1, len(t)
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if self._run_width(kind, t[i:mid]) <= avail - cur_w:
                        lo = mid
                    else:
                        hi = mid - 1
                if self._run_width(kind, t[i:lo]) > avail - cur_w and cur:
                    parts.append((cur, cur_w))
                    cur, cur_w = [], 0.0
                    continue
                chunk = t[i:lo]
                cw = self._run_width(kind, chunk)
                cur.append((kind, chunk, cw))
                cur_w += cw
                i = lo
                if i < len(t):
                    parts.append((cur, cur_w))
                    cur, cur_w = [], 0.0
        if cur:
            parts.append((cur, cur_w))
        return parts

    # ---- geometry helpers ----------------------------------------------------------------------
    def _placed_at(self, pt: QPointF) -> tuple[_Layout, int] | None:
        if self._encoding is None or not len(self._heights):
            return None
        doc_y = pt.y() + self.verticalScrollBar().value() - self.MARGIN
        if doc_y < 0 or doc_y >= self._total():
            return None
        b = self._block_at(doc_y)
        layout = self._layout(b)
        y = pt.y() - self._block_top(b)  # (laying it out may have moved it)
        row = int(y // self._pitch)
        if not 0 <= row < layout.rows or y - row * self._pitch > self._box_h:
            return None
        rng = layout.row_range(row)
        if not len(rng):
            return None
        k = bisect.bisect_right(layout.x, pt.x(), rng.start, rng.stop) - 1
        if k < rng.start:
            return None
        if pt.x() <= layout.x[k] + layout.w[k]:
            return layout, k
        return None

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
        special_pen = pens[SPECIAL]
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
                    special = False
                    if tok >= 0:
                        special = bool(special_flags[tok])
                        fill = fills[tok - first_token]
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
                            painter.setPen(special_pen if kind == MARK and special else pens[kind])
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
        r = self.viewport().rect().adjusted(24, 24, -24, -24)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._message)
