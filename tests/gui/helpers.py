"""Helpers shared by the GUI tests."""
from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared"
TOKENIZERS = SHARED / "tokenizers"


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
        pytest.skip(f"shared tokenizer not found: {path} (../shared is absent)")
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
