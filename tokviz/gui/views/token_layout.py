"""Where the token view's boxes go: a mixin of `TokenView` that measures tokens, flows one block of
the document into rows of boxes at the view's width (`_Layout`), and keeps every block's height
(estimated until it is laid out, then exact) and the scroll position over those heights.  See
the token view's module docstring for how the document is virtualised."""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np

from PySide6.QtCore import QPointF, QTimer
from PySide6.QtGui import QFont, QFontMetricsF, QStaticText

from .token_runs import CHIP, GAP_MARK, GAP_TEXT, MARK, SPECIAL, byte_runs, text_runs


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



class BlockLayout:
    """The layout half of `TokenView` (a mixin: it uses the view's scroll bar, viewport and
    encoding, and the sizes TokenView declares: MARGIN, PAD_X, ROW_GAP, BOX_GAP, CACHED_BLOCKS)."""

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
