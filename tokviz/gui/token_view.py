"""The token view: the text drawn as coloured token boxes.

Why custom painting (a QAbstractScrollArea that lays out and paints boxes itself) and not a
QTextDocument with char formats:

* A box per token with a thin border, rounded corners, hex byte chips and outlined special tokens
  cannot be expressed with QTextCharFormat (no per-fragment borders or padding), and a document
  with one format run per token gets slow to build for 100 KB of text (~25k fragments).
* Here the work is split in two cheap passes: *build* (once per encoding) turns each token into
  measured pieces (width cached per distinct token), and *flow* (once per width change) places the
  pieces on rows.  Painting touches only the rows in the viewport (binary search), so scrolling
  and hover stay fast whatever the text length; issue 5 (virtualised view) can grow from this by
  making build/flow incremental.
* Hit-testing (`token_at_point`) and geometry (`token_rects`) come straight from the layout arrays.

What is drawn: every token's own bytes (its display string), so the box shows what the tokenizer
produced (lower-cased by a normalizer, a sentencepiece '▁' as a space, ...).  Whitespace is shown
as · (space), → (tab), ↵ (newline, then a real line break), ␍ (carriage return); bytes that are not
a whole UTF-8 character are small hex chips; special tokens are dark boxes with bold white text.
Source text that no token covers (the spaces a WordPiece model drops) is drawn faintly, without a
box, so the text keeps its shape.
"""
from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from ..core import Encoding
from .coloring import token_fills
from .style import DEFAULT_THEME, TokenTheme, mono_font

# Run kinds inside a piece.
TEXT, MARK, CHIP, SPECIAL, GAP_TEXT, GAP_MARK = range(6)

WHITESPACE_MARKS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\u00a0": "⍽", "\x7f": "␡"}
WHITESPACE_MARKS.update({chr(c): chr(0x2400 + c) for c in range(0x20) if chr(c) not in WHITESPACE_MARKS})
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
    A newline run is always a single '↵' so a line break can follow it."""
    runs: list[tuple[int, str]] = []
    for part in _SPLIT_MARKS.split(s):
        if not part:
            continue
        if len(part) == 1 and part in WHITESPACE_MARKS:
            mark = WHITESPACE_MARKS[part]
            if runs and runs[-1][0] == mark_kind and part != "\n" and not runs[-1][1].endswith("↵"):
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


class TokenView(QAbstractScrollArea):
    """Shows an Encoding of a text as coloured boxes.  Set it with `set_encoding(encoding)`.

    Testable API: `spans()`, `token_at_point(QPoint)`, `token_rects(i)`, `display_text(i)`,
    `tooltip_text(i)`, `color_of(i)`."""

    tokenHovered = Signal(int)  # token index, -1 when the pointer leaves tokens
    tokenClicked = Signal(int)
    tokensSelected = Signal(int, int)  # first and last token index of a drag over the tokens

    PAD_X = 2.0  # inside a box, left and right of the text
    PAD_Y = 2.0
    ROW_GAP = 5.0
    BOX_GAP = 1.0  # between two boxes on a row
    MARGIN = 12.0
    RADIUS = 3.0

    def __init__(self, parent: QWidget | None = None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._encoding: Encoding | None = None
        self._color_mode = "token"
        self._rank_of = None
        self._unk_id: int | None = None
        self._fills: list[QColor] = []
        self._truncate_at: int | None = None  # tokens from this index on are past a max length
        self._details = None  # id -> {label: value} of model facts for the tooltip (merge rank, ...)
        self._selection: tuple[int, int] | None = None  # first, last selected token
        self._drag_from: int | None = None
        self._message = ""
        self._hover = -1
        self._current = -1
        self._layout_width = -1.0
        # build output, per piece (a piece is a run of a token between line breaks)
        self._p_token: list[int] = []  # token index, or -1 for uncovered source text
        self._p_runs: list[list[tuple[int, str, float]]] = []
        self._p_width: list[float] = []
        self._p_break: list[bool] = []  # a line break follows
        self._token_pieces: list[list[int]] = []  # token index -> its piece indices
        # flow output, per placed piece
        self._f_piece: list[int] = []
        self._f_x: list[float] = []
        self._f_w: list[float] = []
        self._f_runs: list[list[tuple[int, str, float]]] = []
        self._row_start: list[int] = []  # first placed piece of each row
        self._token_placed: list[list[int]] = []
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
        """Show `encoding` (None: show the message)."""
        self._encoding = encoding
        self._selection = None
        self._recolor()
        self._hover = -1
        self._current = -1 if encoding is None or self._current >= len(encoding) else self._current
        self._build()
        self._layout_width = -1.0
        self._relayout()
        self.viewport().update()

    def encoding(self) -> Encoding | None:
        return self._encoding

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
        self.viewport().update()

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
        self.viewport().update()

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
        return self._fills[index].name()

    def _recolor(self) -> None:
        enc = self._encoding
        fills = token_fills(enc, self._color_mode, self.theme, rank_of=self._rank_of, unk_id=self._unk_id) if enc else []
        self._fills = [QColor(f) for f in fills]

    def spans(self) -> list[TokenSpan]:
        """For each token, in order: index, source span, colour, flags and the shown string."""
        enc = self._encoding
        if enc is None:
            return []
        return [
            TokenSpan(i, s, e, self.color_of(i), bool(enc.special[i]), bool(enc.partial[i]), self.display_text(i))
            for i, (s, e) in enumerate(enc.offsets)
        ]

    def display_text(self, index: int) -> str:
        """The string drawn for token `index`: markers for whitespace, ⟨e6⟩ for byte chips."""
        return "".join(runs_display(self._p_runs[p]) for p in self._token_pieces[index])

    def token_at_point(self, point: QPoint | QPointF) -> int | None:
        """Index of the token under `point` (viewport coordinates), or None."""
        j = self._placed_at(QPointF(point))
        if j is None:
            return None
        token = self._p_token[self._f_piece[j]]
        return token if token >= 0 else None

    def token_rects(self, index: int) -> list[QRectF]:
        """Boxes of token `index` in viewport coordinates (several if it spans lines)."""
        if not (0 <= index < len(self._token_placed)):
            return []
        return [self._placed_rect(j) for j in self._token_placed[index]]

    def tooltip_text(self, index: int) -> str:
        """Rich-text tooltip for a token: id, piece, bytes in hex, character span, flags."""
        enc = self._encoding
        if enc is None or not (0 <= index < len(enc)):
            return ""
        s, e = enc.offsets[index]
        data = enc.token_bytes[index]
        hexbytes = " ".join(f"{b:02x}" for b in data) or "(none)"
        flags = []
        if enc.special[index]:
            flags.append("special token")
        if enc.partial[index]:
            flags.append("part of a UTF-8 character")
        span = f"{s}–{e} ({e - s} char{'s' if e - s != 1 else ''})" if e > s else f"{s} (empty: added by the post-processor)"
        rows = [
            ("id", f"<b>{enc.ids[index]}</b>"),
            ("piece", f"<code>{html.escape(repr(enc.pieces[index]))}</code>"),
            ("text", f"<code>{html.escape(self.display_text(index))}</code>"),
            ("bytes", f"<code>{hexbytes}</code> ({len(data)})"),
            ("chars", span),
        ]
        if s < e:
            rows.append(("source", f"<code>{html.escape(repr(enc.text[s:e]))}</code>"))
        if self._details is not None:
            for label, value in self._details(enc.ids[index]).items():
                rows.append((html.escape(label), html.escape(str(value))))
        if flags:
            rows.append(("", "<i>" + ", ".join(flags) + "</i>"))
        body = "".join(
            f"<tr><td style='color:#6f7b8a; padding-right:8px'>{k}</td><td>{v}</td></tr>" for k, v in rows
        )
        return f"<p style='margin:0'>token {index + 1} of {len(enc)}</p><table cellspacing='0'>{body}</table>"

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

    def ensure_visible(self, index: int) -> None:
        rects = self.token_rects(index)
        if not rects:
            return
        r = rects[0]
        vh = self.viewport().height()
        bar = self.verticalScrollBar()
        if r.top() < 0:
            bar.setValue(int(bar.value() + r.top() - self.MARGIN))
        elif r.bottom() > vh:
            bar.setValue(int(bar.value() + r.bottom() - vh + self.MARGIN))

    def row_count(self) -> int:
        return len(self._row_start)

    def content_height(self) -> float:
        return 2 * self.MARGIN + len(self._row_start) * self._pitch - (self.ROW_GAP if self._row_start else 0)

    def sizeHint(self) -> QSize:
        return QSize(500, 400)

    # ---- fonts and metrics -------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._update_fonts()
            self._build()
            self._layout_width = -1.0
            self._relayout()
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
        self._width_cache: dict[tuple[int, str], float] = {}

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

    # ---- build: encoding -> measured pieces ----------------------------------------------------
    def _build(self) -> None:
        self._p_token, self._p_runs, self._p_width, self._p_break = [], [], [], []
        self._token_pieces = []
        enc = self._encoding
        if enc is None:
            return
        text = enc.text
        cache: dict[tuple[bytes, bool, str], list[tuple[list, float, bool]]] = {}
        covered = 0
        self._token_pieces = [[] for _ in range(len(enc))]
        for i, (start, end) in enumerate(enc.offsets):
            if start > covered:
                self._add_pieces(-1, self._split(text_runs(text[covered:start], GAP_TEXT, GAP_MARK)))
            covered = max(covered, end)
            special = bool(enc.special[i])
            data = enc.token_bytes[i]
            key = (data, special, enc.pieces[i] if special else "")
            pieces = cache.get(key)
            if pieces is None:
                runs = [(SPECIAL, enc.pieces[i])] if special else byte_runs(data)
                if not runs:
                    runs = [(MARK, "∅")]  # a token with no bytes (should not happen, but stay visible)
                pieces = cache[key] = self._split(runs)
            self._token_pieces[i] = self._add_pieces(i, pieces)
        if covered < len(text):
            self._add_pieces(-1, self._split(text_runs(text[covered:], GAP_TEXT, GAP_MARK)))

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

    def _add_pieces(self, token: int, pieces) -> list[int]:
        idx = []
        for runs, width, brk in pieces:
            idx.append(len(self._p_token))
            self._p_token.append(token)
            self._p_runs.append(runs)
            self._p_width.append(width)
            self._p_break.append(brk)
        return idx

    # ---- flow: pieces -> rows ------------------------------------------------------------------
    def _relayout(self) -> None:
        width = float(self.viewport().width())
        if width == self._layout_width:
            return
        self._layout_width = width
        f_piece, f_x, f_w, f_runs, row_start = [], [], [], [], []
        self._token_placed = [[] for _ in range(len(self._token_pieces))]
        left = self.MARGIN
        right = max(left + 80.0, width - self.MARGIN)
        avail = right - left
        pad2 = 2 * self.PAD_X
        x = left
        row_open = False
        prev_token = None
        p_token, p_width, p_break, p_runs = self._p_token, self._p_width, self._p_break, self._p_runs
        for p in range(len(p_token)):
            tok = p_token[p]
            w = p_width[p] + (pad2 if tok >= 0 else 0.0)
            gap = self.BOX_GAP if (row_open and x > left and tok != prev_token and tok >= 0 and prev_token not in (None, -1)) else 0.0
            if not row_open:
                row_start.append(len(f_piece))
                row_open = True
                x = left
                gap = 0.0
            if x + gap + w > right and x > left:  # wrap before this piece
                row_start.append(len(f_piece))
                x = left
                gap = 0.0
            if w > avail:  # longer than a whole row: cut it into row-sized parts
                for part_runs, part_w in self._cut(p_runs[p], avail - (pad2 if tok >= 0 else 0.0)):
                    if x > left:
                        row_start.append(len(f_piece))
                        x = left
                    pw = part_w + (pad2 if tok >= 0 else 0.0)
                    self._place(p, x, pw, part_runs, f_piece, f_x, f_w, f_runs)
                    x += pw
            else:
                x += gap
                self._place(p, x, w, p_runs[p], f_piece, f_x, f_w, f_runs)
                x += w
            prev_token = tok
            if p_break[p]:
                row_open = False
                prev_token = None
        self._f_piece, self._f_x, self._f_w, self._f_runs, self._row_start = f_piece, f_x, f_w, f_runs, row_start
        self._update_scrollbar()

    def _place(self, p, x, w, runs, f_piece, f_x, f_w, f_runs) -> None:
        tok = self._p_token[p]
        if tok >= 0:
            self._token_placed[tok].append(len(f_piece))
        f_piece.append(p)
        f_x.append(x)
        f_w.append(w)
        f_runs.append(runs)

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

    def _update_scrollbar(self) -> None:
        bar = self.verticalScrollBar()
        total = int(self.content_height())
        bar.setRange(0, max(0, total - self.viewport().height()))
        bar.setPageStep(max(1, self.viewport().height()))
        bar.setSingleStep(int(self._pitch))

    # ---- geometry helpers ----------------------------------------------------------------------
    def _row_of(self, j: int) -> int:
        return bisect.bisect_right(self._row_start, j) - 1

    def _row_top(self, row: int) -> float:
        return self.MARGIN + row * self._pitch - self.verticalScrollBar().value()

    def _placed_rect(self, j: int) -> QRectF:
        return QRectF(self._f_x[j], self._row_top(self._row_of(j)), self._f_w[j], self._box_h)

    def _row_range(self, row: int) -> range:
        end = self._row_start[row + 1] if row + 1 < len(self._row_start) else len(self._f_piece)
        return range(self._row_start[row], end)

    def _placed_at(self, pt: QPointF) -> int | None:
        if not self._row_start:
            return None
        y = pt.y() + self.verticalScrollBar().value() - self.MARGIN
        if y < 0:
            return None
        row = int(y // self._pitch)
        if row >= len(self._row_start) or y - row * self._pitch > self._box_h:
            return None
        rng = self._row_range(row)
        if not len(rng):
            return None
        k = bisect.bisect_right(self._f_x, pt.x(), rng.start, rng.stop) - 1
        if k < rng.start:
            return None
        if pt.x() <= self._f_x[k] + self._f_w[k]:
            return k
        return None

    # ---- events ---------------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._relayout()
        self._update_scrollbar()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self.viewport().update()

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
                rect = self.token_rects(tok)[0].toAlignedRect() if self.token_rects(tok) else QRect()
                QToolTip.showText(event.globalPos(), self.tooltip_text(tok), self.viewport(), rect)
            return True
        return super().viewportEvent(event)

    # ---- painting -------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if self._encoding is None or not self._row_start:
            self._paint_message(painter)
            return
        theme = self.theme
        clip = event.rect()
        scroll = self.verticalScrollBar().value()
        first = max(0, int((clip.top() + scroll - self.MARGIN) // self._pitch))
        last = min(len(self._row_start) - 1, int((clip.bottom() + scroll - self.MARGIN) // self._pitch))
        ascent = self._fm.ascent()
        text_color = QColor(theme.text)
        mark_color = QColor(theme.marker)
        gap_color = QColor(theme.gap_text)
        special_text = QColor(theme.special_text)
        enc = self._encoding
        emphasis = []
        cut = self._truncate_at
        cut_mark = None
        for row in range(first, last + 1):
            top = self._row_top(row)
            baseline = top + self.PAD_Y + ascent
            for j in self._row_range(row):
                tok = self._p_token[self._f_piece[j]]
                x, w = self._f_x[j], self._f_w[j]
                painter.setOpacity(0.3 if cut is not None and tok >= cut else 1.0)
                if tok == cut and cut_mark is None:
                    cut_mark = QRectF(x - 2.0, top - 2.0, 3.0, self._box_h + 4.0)
                if tok >= 0:
                    special = bool(enc.special[tok])
                    fill = self._fills[tok]
                    rect = QRectF(x + 0.5, top + 0.5, w - 1.0, self._box_h - 1.0)
                    painter.setPen(QPen(QColor(theme.special_outline) if special else fill.darker(theme.border_darker), 1.0))
                    painter.setBrush(fill)
                    painter.drawRoundedRect(rect, self.RADIUS, self.RADIUS)
                    if tok == self._hover or tok == self._current:
                        emphasis.append((rect, tok == self._hover))
                    tx = x + self.PAD_X
                else:
                    tx = x
                for kind, t, rw in self._f_runs[j]:
                    if kind == TEXT:
                        painter.setFont(self._font)
                        painter.setPen(text_color)
                        painter.drawText(QPointF(tx, baseline), t)
                    elif kind == MARK:
                        painter.setFont(self._font)
                        painter.setPen(special_text if enc.special[tok] else mark_color)
                        painter.drawText(QPointF(tx, baseline), t)
                    elif kind == SPECIAL:
                        painter.setFont(self._bold)
                        painter.setPen(special_text)
                        painter.drawText(QPointF(tx, baseline), t)
                    elif kind == CHIP:
                        self._paint_chip(painter, tx, top, rw, t)
                    else:  # GAP_TEXT / GAP_MARK
                        painter.setFont(self._font)
                        painter.setPen(gap_color)
                        painter.drawText(QPointF(tx, baseline), t)
                    tx += rw
        painter.setOpacity(1.0)
        if self._selection is not None:
            first_sel, last_sel = self._selection
            painter.setPen(Qt.PenStyle.NoPen)
            overlay = QColor(theme.selection)
            overlay.setAlpha(90)
            painter.setBrush(overlay)
            for row in range(first, last + 1):
                top = self._row_top(row)
                for j in self._row_range(row):
                    tok = self._p_token[self._f_piece[j]]
                    if first_sel <= tok <= last_sel:
                        painter.drawRoundedRect(QRectF(self._f_x[j], top, self._f_w[j], self._box_h),
                                                self.RADIUS, self.RADIUS)
        if cut_mark is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(theme.truncation))
            painter.drawRect(cut_mark)
        for rect, hovered in emphasis:
            color = QColor(theme.hover_outline if hovered else theme.current_outline)
            painter.setPen(QPen(color, 2.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), self.RADIUS, self.RADIUS)
        painter.end()

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
