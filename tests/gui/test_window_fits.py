"""The window never asks for more than the screen: with every dock open and eight Compare panes it
can be 900x600, typing in a filter does not widen it, and `tokviz screenshot window` renders it
exactly at the sizes people have, nothing cut below its minimum size."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

import tokviz
from tokviz import defaults
from tokviz.gui.screenshot import DOCKS, screenshot

from .helpers import TOKENIZERS, clipped_widgets

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _open_everything(window):
    for dock in window.docks.all():
        dock.show()
    window.show_compare()


def test_every_dock_and_eight_panes_fit_a_small_screen(qtbot, make_window):
    demo = tokviz.load(defaults.default_tokenizer_path())
    window = make_window(demo, "a text to compare, 一些中文 and emoji 🙂")
    _open_everything(window)
    view = window.compare_view
    while len(view.panes) < 8:
        view.add_tokenizer(demo, name=f"demo {len(view.panes)}")
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=30_000)
    hint = window.minimumSizeHint()
    assert hint.width() <= 900 and hint.height() <= 600, (hint.width(), hint.height())
    window.resize(900, 600)
    qtbot.wait(100)
    assert (window.width(), window.height()) == (900, 600)


def test_typing_a_long_vocabulary_filter_does_not_widen_the_window(qtbot, make_window):
    window = make_window(tokviz.load(defaults.default_tokenizer_path()), "hello")
    window.vocab_dock.show()
    qtbot.waitUntil(lambda: not window.vocab_view.is_busy(), timeout=30_000)
    window.resize(1280, 800)
    qtbot.wait(50)
    before = window.minimumSizeHint().width()
    filter_box = window.vocab_view.findChild(type(window.find_bar.field), None)
    assert filter_box is not None
    qtbot.keyClicks(filter_box, "a very long filter text that goes on and on " * 4)
    qtbot.wait(100)
    assert window.minimumSizeHint().width() <= before and window.width() == 1280


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_the_window_screenshot_is_exactly_the_size_asked(tmp_path, size, qapp):
    shared = [TOKENIZERS / "qwen2.5", TOKENIZERS / "cl100k_base.tiktoken", TOKENIZERS / "bert-minilm"]
    toks = [str(p) for p in shared if p.exists()] or [str(defaults.default_tokenizer_path())]
    for dock in DOCKS:
        out = screenshot("window", toks, None, tmp_path / f"{dock}.png", *size, dock=dock)
        image = QImage(str(out))
        assert (image.width(), image.height()) == size


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_nothing_is_cut_below_its_minimum_size(qtbot, make_window, size):
    window = make_window(tokviz.load(defaults.default_tokenizer_path()), "some text 一些中文")
    window.resize(*size)
    _open_everything(window)
    qtbot.waitUntil(lambda: not window.compare_view.is_busy() and not window.vocab_view.is_busy(), timeout=30_000)
    for tab in (2, 1, 0):  # Chat, Compare, then the explorer
        window.tabs.setCurrentIndex(tab)
        for dock in window.docks.right():
            dock.raise_()  # (the right-hand docks are tabbed: the raised one is on screen)
            qtbot.wait(50)
            for part in (dock, window.docks.library, window.docks.ids, window.centralWidget()):
                assert clipped_widgets(part) == [], (tab, dock.objectName(), part.objectName())
