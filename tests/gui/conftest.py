"""Fixtures for the GUI tests (pytest-qt, offscreen)."""
from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

import tokviz.gui  # noqa: F401  (applies the binding work-arounds before any Qt use)
from tokviz import defaults

from .helpers import shared_tokenizer


@pytest.fixture
def default_tokenizer_path() -> Path:
    path = defaults.default_tokenizer_path()
    if not path.exists():
        pytest.skip(f"the shipped default tokenizer is missing: {path}")
    return path


@pytest.fixture
def qwen_path() -> Path:
    return shared_tokenizer("qwen2.5/tokenizer.json")


@pytest.fixture
def make_window(qtbot, tmp_path):
    """make_window(tokenizer, text) -> a shown MainWindow, once its tokenizer is loaded and the text encoded.
    Errors are collected in window.errors instead of opening message boxes.  Each window starts from
    empty settings of its own (pass settings= to share them)."""
    from tokviz.gui.window.main_window import MainWindow
    from tokviz.gui.settings import Settings

    count = iter(range(1000))

    def make(tokenizer=None, text=None, **kwargs):
        errors: list[tuple[str, str]] = []
        kwargs.setdefault("error_handler", lambda title, message: errors.append((title, message)))
        kwargs.setdefault("settings", Settings(tmp_path / f"settings-{next(count)}.ini"))
        window = MainWindow(tokenizer, text, **kwargs)
        window.errors = errors
        qtbot.addWidget(window)
        window.resize(1100, 700)
        window.show()
        qtbot.waitUntil(lambda: window.controller.is_up_to_date() or bool(errors), timeout=30_000)
        return window

    yield make

