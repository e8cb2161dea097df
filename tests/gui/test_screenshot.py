"""Rendering views to PNG offscreen."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

import tokviz
from tokviz.gui.screenshot import screenshot

from .helpers import shared_tokenizer


def test_explorer_screenshot_with_defaults(qtbot, tmp_path, default_tokenizer_path):
    out = screenshot("explorer", [], None, tmp_path / "explorer.png", width=900, height=600)
    assert out.exists() and out.stat().st_size > 10_000
    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 600)
    # not a blank image: many different colours (token boxes)
    colours = {image.pixel(x, y) for x in range(0, 900, 7) for y in range(0, 600, 7)}
    assert len(colours) > 20


def test_explorer_screenshot_with_a_tokenizer_and_text(qtbot, tmp_path):
    qwen = shared_tokenizer("qwen2.5/tokenizer.json")
    text = tmp_path / "t.txt"
    text.write_text("中文分词 and emoji 🙂 in one line\n", encoding="utf-8")
    out = screenshot("explorer", [str(qwen)], str(text), tmp_path / "sub" / "qwen.png")
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)


def test_unknown_view_lists_available_views(tmp_path):
    with pytest.raises(ValueError, match="available views: explorer"):
        screenshot("nonsense", [], None, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_bad_tokenizer_raises_tokviz_error(qtbot, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(tokviz.TokvizError, match="bad.json"):
        screenshot("explorer", [str(bad)], None, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_merges_screenshot_shows_a_tree_and_a_trace(qtbot, tmp_path):
    qwen = shared_tokenizer("qwen2.5/tokenizer.json")
    text = tmp_path / "t.txt"
    text.write_text("Tokenization specifically explained.\n", encoding="utf-8")
    out = screenshot("merges", [str(qwen)], str(text), tmp_path / "merges.png", width=1000, height=700)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)
    colours = {image.pixel(x, y) for x in range(0, 1000, 5) for y in range(0, 700, 5)}
    assert len(colours) > 20


@pytest.mark.parametrize("view", ["vocab", "stats"])
def test_statistics_screenshots(qtbot, tmp_path, view, default_tokenizer_path):
    out = screenshot(view, [str(default_tokenizer_path)], None, tmp_path / f"{view}.png", width=900, height=600)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 600)
    colours = {image.pixel(x, y) for x in range(0, 900, 5) for y in range(0, 600, 5)}
    assert len(colours) > 10


@pytest.mark.slow
def test_compare_screenshot(qtbot, tmp_path, default_tokenizer_path):
    qwen = shared_tokenizer("qwen2.5/tokenizer.json")
    out = screenshot("compare", [str(default_tokenizer_path), str(qwen)], None, tmp_path / "compare.png",
                     width=1000, height=700)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)
    assert len({image.pixel(x, y) for x in range(0, 1000, 5) for y in range(0, 700, 5)}) > 20


def test_train_screenshot(qtbot, tmp_path):
    out = screenshot("train", [], None, tmp_path / "train.png", width=900, height=650)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 650)
