"""View › Theme in a window with docks and tabs open: every widget takes the new colours (the chrome
under the window's style sheet too), a panel out of sight takes them when it comes into sight, and
switching back and forth leaves no object behind."""
from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from tokviz.gui.widgets.style import CHROME_COLOURS, DARK, LIGHT, dark_palette

TEXT = "Theme switch: colours for tokens, 中文 and the chrome around them."


def _settle(qtbot) -> None:
    qtbot.wait(20)
    QApplication.processEvents()


def _window_with_panels(qtbot, make_window, default_tokenizer_path):
    window = make_window(default_tokenizer_path, TEXT)
    window.set_theme("light")
    for dock in (window.merges_dock, window.vocab_dock, window.stats_dock, window.train_dock):
        dock.show()
    window.merges_dock.raise_()  # (the other right-hand docks are tabbed behind it: out of sight)
    window.tabs.setCurrentWidget(window.compare_view)
    window.tabs.setCurrentWidget(window.splitter)
    _settle(qtbot)
    return window


def _header_fill(label: QLabel) -> str:
    """The colour a pane header is painted with, inside its padding."""
    return label.grab().toImage().pixelColor(3, 3).name()


def _expected_base(dark: bool) -> str:
    palette = dark_palette() if dark else QApplication.style().standardPalette()
    return palette.color(QPalette.ColorRole.Base).name()


def _check_colours(window, name: str) -> None:
    dark = name == "dark"
    assert window.is_dark() is dark and window.theme() == name
    assert window.token_view.theme is (DARK if dark else LIGHT)
    assert window.chat_view.view.theme is (DARK if dark else LIGHT)
    # widgets under the window's style sheet follow the application palette
    for widget in (window.editor, window.library.tree, window.ids_panel):
        assert widget.palette().color(QPalette.ColorRole.Base).name() == _expected_base(dark), widget
    header = window.tokenizer_header
    assert _header_fill(header) == CHROME_COLOURS[name][0]
    assert QColor(header.palette().color(QPalette.ColorRole.WindowText)).name() == CHROME_COLOURS[name][2]


def test_light_dark_light_gives_every_part_its_colours(qtbot, make_window, default_tokenizer_path):
    window = _window_with_panels(qtbot, make_window, default_tokenizer_path)
    _check_colours(window, "light")
    for name in ("dark", "light", "dark"):
        window.set_theme(name)
        _settle(qtbot)
        _check_colours(window, name)
        theme = DARK if name == "dark" else LIGHT
        assert window.merges_panel.theme is theme  # (in sight: at once)
        # a tabbed dock out of sight takes the theme when its tab is picked
        for dock, panel in ((window.vocab_dock, window.vocab_view), (window.stats_dock, window.stats_view),
                            (window.train_dock, window.train_panel)):
            dock.raise_()
            _settle(qtbot)
            assert panel.theme is theme, dock.objectName()
        window.merges_dock.raise_()
        # the Analyses tab (hidden) and each of its pages when shown
        window.tabs.setCurrentWidget(window.analyses_view)
        for index, page in enumerate(window.analyses_view.pages):
            window.analyses_view.tabs.setCurrentIndex(index)
            _settle(qtbot)
            assert page.theme is theme, type(page).__name__
        window.tabs.setCurrentWidget(window.splitter)
        _settle(qtbot)


def test_a_panel_out_of_sight_keeps_its_theme_until_it_is_seen(qtbot, make_window, default_tokenizer_path):
    window = _window_with_panels(qtbot, make_window, default_tokenizer_path)
    window.set_theme("dark")
    _settle(qtbot)
    assert window.stats_view.theme is LIGHT  # (behind the Merges tab: not redrawn yet)
    window.set_theme("light")
    window.set_theme("dark")
    window.stats_dock.raise_()
    _settle(qtbot)
    assert window.stats_view.theme is DARK


@pytest.mark.slow
def test_switching_twenty_times_leaves_no_object_behind(qtbot, make_window, default_tokenizer_path):
    window = _window_with_panels(qtbot, make_window, default_tokenizer_path)
    app = QApplication.instance()

    def switch_both() -> None:
        for name in ("dark", "light"):
            window.set_theme(name)
            _settle(qtbot)

    switch_both()  # (the first switch sets up what later ones reuse)
    gc.collect()
    # (widgets earlier tests left for deletion go now, not while this counts)
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    objects, widgets = len(window.findChildren(QObject)), len(app.allWidgets())
    for _ in range(10):
        switch_both()
    gc.collect()
    assert len(window.findChildren(QObject)) == objects
    assert len(app.allWidgets()) == widgets
    _check_colours(window, "light")
