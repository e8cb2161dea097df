"""Helpers shared by the GUI tests."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

from _shared import SHARED, TOKENIZERS, as_shared  # (without ../shared: the copies tests/data/real holds)


def shared_corpus(name: str) -> str:
    """The text of ../shared/corpus/NAME.txt, or skip (it is absent on a user's machine)."""
    path = SHARED / "corpus" / f"{name}.txt"
    if not path.exists():
        pytest.skip(f"shared corpus not found: {path} (../shared is absent)")
    return path.read_text(encoding="utf-8")


def shared_tokenizer(rel: str) -> Path:
    """A tokenizer from ../shared/tokenizers, or skip (it is absent on a user's machine)."""
    path = TOKENIZERS / rel
    if not path.exists():
        pytest.skip(f"shared tokenizer not found: {as_shared(path)} (../shared is absent)")
    return path


def wait_encoded(qtbot, window, text: str):
    """Wait until the token view shows an encoding of exactly `text`."""
    qtbot.waitUntil(
        lambda: window.token_view.encoding() is not None
        and window.token_view.encoding().text == text
        and window.controller.is_up_to_date(),
        timeout=30_000,
    )
    return window.token_view.encoding()


DOCK_PANEL_MAX_MIN_WIDTH = 300  # a dock's panel never asks for more: the window must fit 900 px
DOCK_PANEL_MAX_MIN_HEIGHT = 260


def docked(qtbot, panel, *, size=(1280, 800), dock_width=360, area="right"):
    """`panel` in a QDockWidget of a shown QMainWindow (a text editor in the middle), the dock
    `dock_width` px wide, as the app docks its panels.  Returns (window, dock)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDockWidget, QMainWindow, QPlainTextEdit

    window = QMainWindow()
    window.setCentralWidget(QPlainTextEdit("central"))
    dock = QDockWidget("Panel", window)
    dock.setWidget(panel)
    where = {"right": Qt.DockWidgetArea.RightDockWidgetArea, "left": Qt.DockWidgetArea.LeftDockWidgetArea,
             "bottom": Qt.DockWidgetArea.BottomDockWidgetArea}[area]
    window.addDockWidget(where, dock)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    orientation = Qt.Orientation.Vertical if area == "bottom" else Qt.Orientation.Horizontal
    window.resizeDocks([dock], [dock_width], orientation)
    qtbot.waitExposed(window)
    return window, dock


QT_INTERNAL = ("qt_", "ScrollLeftButton", "ScrollRightButton")


def clipped_widgets(root) -> list[str]:
    """Visible widgets under `root` laid out smaller than their minimum size hint (what a user sees
    as cut text or squashed controls), as 'ClassName objectName text: WxH < WxH' lines."""
    from PySide6.QtWidgets import QAbstractScrollArea, QWidget

    out = []
    for w in root.findChildren(QWidget):
        # (on screen only: a tabbed dock that is not raised keeps stale sizes; Qt's own parts, such as
        # a tab bar's scroll arrows and the editors inside spin boxes, are laid out by Qt itself)
        if not w.isVisible() or w.isWindow() or w.objectName().startswith(QT_INTERNAL):
            continue
        parent = w.parentWidget()
        while parent is not None and parent is not root:
            if isinstance(parent, QAbstractScrollArea):
                break  # (inside a scroll area being smaller is what scrolling is for)
            parent = parent.parentWidget()
        if parent is not None and parent is not root:
            continue
        hint, size = w.minimumSizeHint(), w.size()
        if not hint.isValid():
            continue
        if size.width() < hint.width() or size.height() < hint.height():
            label = getattr(w, "text", lambda: "")()
            label = label if isinstance(label, str) else ""
            out.append(f"{type(w).__name__} {w.objectName()} {label[:30]!r}: "
                       f"{size.width()}x{size.height()} < {hint.width()}x{hint.height()}")
    return out


@contextmanager
def speaking(language: str):
    """The app speaks `language` inside the block, and its own language again after it."""
    from tokviz.gui import i18n

    before = i18n.current_language()
    i18n.install(language)
    try:
        yield
    finally:
        i18n.install(before)
