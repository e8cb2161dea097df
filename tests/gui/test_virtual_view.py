"""The token view on documents of hundreds of thousands of tokens: only what is shown is laid out,
scrolling anywhere finds the right tokens, and nothing on screen jumps when heights settle."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint

import tokviz
from tokviz import defaults
from tokviz.core.token_array import TokenArray, offsets_arrays
from tokviz.gui.views.token_view import TokenView


@pytest.fixture(scope="module")
def demo():
    return tokviz.load(defaults.default_tokenizer_path())


@pytest.fixture(scope="module")
def big_encoding(demo):
    """~1.5 MB of the shipped sample text, lines of all lengths, as a TokenArray."""
    lines = defaults.sample_text().splitlines()
    text = "\n".join(lines[i % len(lines)] * (1 + i % 3) for i in range(20_000)) + "\n"
    enc = demo.encode(text)
    starts, ends = offsets_arrays(enc)
    return TokenArray(text, np.asarray(enc.ids), starts, ends, enc.special, demo)


@pytest.fixture
def view(qtbot, big_encoding):
    v = TokenView()
    qtbot.addWidget(v)
    v.resize(700, 500)
    v.show()
    qtbot.waitExposed(v)
    v.set_encoding(big_encoding)
    v.viewport().grab()
    return v


def _visible_token(view, point=QPoint(40, 30)):
    """A token near `point` (the point may fall between rows or past a short line's end)."""
    for dy in range(0, 60, 4):
        for dx in range(0, 300, 7):
            tok = view.token_at_point(point + QPoint(dx, dy))
            if tok is not None:
                return tok, point + QPoint(dx, dy)
    raise AssertionError("no token near the top left")


def test_only_the_screen_is_laid_out(view, big_encoding):
    assert len(big_encoding) > 200_000 and view.block_count() > 10_000
    assert 0 < view.laid_out_blocks() < 60
    bar = view.verticalScrollBar()
    assert bar.maximum() > 100 * view.viewport().height()


def test_scrolling_anywhere_shows_the_tokens_of_that_place(view, big_encoding):
    bar = view.verticalScrollBar()
    for fraction in (0.5, 0.93, 0.21, 1.0):
        bar.setValue(int(bar.maximum() * fraction))
        view.viewport().grab()
        tok, point = _visible_token(view, QPoint(20, 60))
        rect = next(r for r in view.token_rects(tok) if r.contains(point))
        assert 0 <= rect.top() < view.viewport().height()
        # the token's box holds the token's text: its block is where the document says it is
        start = int(big_encoding.starts[tok])
        assert view.display_text(tok).replace("·", " ").replace("↵", "\n").startswith(
            big_encoding.text[start:int(big_encoding.ends[tok])][:1].replace("\t", "→"))
    assert view.laid_out_blocks() < 250


def test_the_end_of_the_document_can_be_reached(view, big_encoding):
    bar = view.verticalScrollBar()
    last = len(big_encoding) - 1
    view.ensure_visible(last)
    view.viewport().grab()
    rect = view.token_rects(last)[-1]
    assert 0 <= rect.top() and rect.bottom() <= view.viewport().height()
    assert view.token_at_point(rect.center().toPoint()) == last
    bar.setValue(bar.maximum())
    view.viewport().grab()
    rect = view.token_rects(last)[-1]
    assert rect.bottom() <= view.viewport().height() + 1


def test_nothing_on_screen_moves_when_blocks_above_are_laid_out(view):
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    view.viewport().grab()
    tok, point = _visible_token(view)
    before = view.token_rects(tok)[0]
    top_block = view._blocks.of_token(tok)
    assert top_block > 100
    for b in range(top_block - 60, top_block):  # heights above settle (estimates -> exact)
        view.token_rects(int(view._blocks.first[b]))
    view.viewport().grab()
    assert view.token_rects(tok)[0] == before
    assert view.token_at_point(point) == tok


def test_scrolling_by_rows_moves_the_tokens_by_rows(view):
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 3)
    view.viewport().grab()
    tok, _ = _visible_token(view, QPoint(40, 200))
    y0 = view.token_rects(tok)[0].top()
    bar.setValue(bar.value() + 3 * bar.singleStep())
    view.viewport().grab()
    assert view.token_rects(tok)[0].top() == pytest.approx(y0 - 3 * bar.singleStep(), abs=1)


def test_resize_keeps_the_place(view):
    bar = view.verticalScrollBar()
    bar.setValue(int(bar.maximum() * 0.6))
    view.viewport().grab()
    tok, _ = _visible_token(view)
    view.resize(450, 500)
    view.viewport().grab()
    rects = view.token_rects(tok)
    assert rects and -view._pitch * 3 <= rects[0].top() < view.viewport().height()


def test_laid_out_blocks_are_bounded(view):
    view.CACHED_BLOCKS = 40
    bar = view.verticalScrollBar()
    for k in range(30):
        bar.setValue(bar.maximum() * k // 30)
        view.viewport().grab()
    assert view.laid_out_blocks() <= 40


def test_boxes_are_painted_in_their_colours(view, big_encoding):
    from .test_explorer import dominant_color

    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 4)
    image = view.viewport().grab().toImage()
    tok, _ = _visible_token(view)
    shown = [t for t in range(tok, tok + 40) if view.token_rects(t) and view.token_rects(t)[0].width() > 10
             and 0 <= view.token_rects(t)[0].top() and view.token_rects(t)[0].bottom() < view.viewport().height()]
    assert len(shown) > 5
    for t in shown[:10]:
        assert dominant_color(image, view.token_rects(t)[0]) == view.color_of(t)
    assert all(view.color_of(t) != view.color_of(t + 1) for t in shown[:10])


def test_colour_modes_work_per_block(view, big_encoding):
    view.set_color_mode("length")
    lengths = {len(big_encoding.token_bytes[t]): view.color_of(t) for t in range(200_000, 200_300)}
    assert len(set(lengths.values())) > 2
    view.set_color_mode("token")
    assert view.color_of(200_000) != view.color_of(200_001)
