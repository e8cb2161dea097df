"""The trace view's lattice (a Unigram word's pieces): its lanes, and a long word's paint."""
from __future__ import annotations

import random

from PySide6.QtWidgets import QScrollArea

from tokviz.gui.views.trace_view import LatticeBar, TraceView, lattice_lanes


def _bars(text: str, seed: int) -> list[LatticeBar]:
    rng = random.Random(seed)
    bars = [LatticeBar(s, e, text[s:e], False) for s in range(len(text)) for e in range(s + 1, min(len(text), s + 8) + 1)
            if rng.random() < 0.5]
    best, at = [], 0
    while at < len(text):  # (a best path: pieces end to end)
        end = min(len(text), at + rng.randint(1, 4))
        best.append(LatticeBar(at, end, text[at:end], True))
        at = end
    return best + bars


def test_each_bar_goes_to_the_first_lane_where_it_overlaps_nothing():
    bars = _bars("abcdefghij" * 12, seed=1)
    lanes = lattice_lanes(bars)
    assert sorted(map(id, (b for lane in lanes for b in lane))) == sorted(map(id, bars))
    assert all(b.best for b in lanes[0]) and not any(b.best for lane in lanes[1:] for b in lane)

    def overlaps(bar, lane):
        return any(bar.start < b.end and b.start < bar.end for b in lane if b is not bar)

    for k, lane in enumerate(lanes):
        for bar in lane:
            assert not overlaps(bar, lane)
            # (every earlier lane held, by the time this bar came, a bar it overlaps)
            order = sorted(bars, key=lambda b: (not b.best, b.start, -(b.end - b.start)))
            before = {id(b) for b in order[:order.index(bar)]}
            assert all(overlaps(bar, [b for b in lanes[j] if id(b) in before]) for j in range(k))


def _scrolled_view(qtbot, width: int) -> tuple[TraceView, QScrollArea]:
    view = TraceView()
    area = QScrollArea()
    area.setWidget(view)
    qtbot.addWidget(area)
    area.resize(width, 300)
    area.show()
    return view, area


def _colours_in_view(area: QScrollArea) -> int:
    image = area.viewport().grab().toImage()
    return len({image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)})


def test_a_long_words_lattice_paints_what_is_in_view(qtbot):
    text = "ab" * 200
    view, area = _scrolled_view(qtbot, 400)
    view.set_lattice(_bars(text, seed=2), text)
    assert view.width() > 4 * area.width()  # (the lattice is as wide as the word)
    for value in (0, area.horizontalScrollBar().maximum()):
        area.horizontalScrollBar().setValue(value)
        assert _colours_in_view(area) > 3  # (bars and letters drawn at both ends, not an empty stretch)


def test_a_long_trace_paints_the_rows_in_view(qtbot):
    from tokviz.gui.views.trace_view import TraceRow

    view, area = _scrolled_view(qtbot, 500)
    view.set_rows([TraceRow(f"step {k}", tuple("ab" for _ in range(400 - k)), 3) for k in range(400)])
    assert view.height() > 20 * area.height()
    bottom = area.verticalScrollBar().maximum()
    for down, right in ((0, 0), (bottom // 2, 1000), (bottom, 0)):  # (row k holds 400 - k boxes)
        area.verticalScrollBar().setValue(down)
        area.horizontalScrollBar().setValue(right)
        assert _colours_in_view(area) > 3  # (boxes drawn wherever the view is scrolled to)
