"""The Merges, Library and Ids panels as the window docks them: small minimum sizes (the window
with its docks must fit a 900x600 screen) and nothing squashed at the widths and heights users
dock them at, with real content (Chinese and emoji tokens, long tokens, many ids)."""
from __future__ import annotations

import shutil

import pytest

import tokviz
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.defaults import default_tokenizer_path
from tokviz.formats.discover import RECENT, Found
from tokviz.gui.widgets import style
from tokviz.gui.panels.ids_panel import IdsPanel
from tokviz.gui.panels.library_panel import LibraryPanel
from tokviz.gui.panels.merges_panel import MergesPanel

from .helpers import DOCK_PANEL_MAX_MIN_HEIGHT, DOCK_PANEL_MAX_MIN_WIDTH, clipped_widgets, docked, shared_tokenizer

TEXT = "Tokens: 中文的分词器 and émoji 🙂, spaces  and\ttabs.\n"
SIDE = [(340, (1280, 800)), (420, (1600, 1000))]
BOTTOM = [(170, (1280, 800)), (250, (1600, 1000))]


@pytest.fixture(scope="module")
def demo():
    return tokviz.load(default_tokenizer_path())


def _fits(panel) -> None:
    hint = panel.minimumSizeHint()
    assert hint.width() <= DOCK_PANEL_MAX_MIN_WIDTH, hint
    assert hint.height() <= DOCK_PANEL_MAX_MIN_HEIGHT, hint


def _settle(qtbot, dock, size: int, vertical: bool = False) -> None:
    """Wait for the window's layout to give the dock the size it was asked for (a panel asking for
    more would keep it wider: this then times out)."""
    qtbot.waitUntil(lambda: abs((dock.height() if vertical else dock.width()) - size) <= 2, timeout=5_000)


def _merges(qtbot, tokenizer, token: str, text: str) -> MergesPanel:
    panel = MergesPanel()
    panel.set_tokenizer(tokenizer)
    assert panel.show_token(token)
    panel.trace_text(text)
    qtbot.waitUntil(lambda: not panel.is_indexing(), timeout=60_000)  # (the tree waits for its tables)
    return panel


def _long_token(tokenizer) -> str:
    return max(tokenizer.model.vocab, key=lambda t: (len(tokenizer.token_bytes(tokenizer.model.vocab[t])), t))


def dashes(n: int = 64) -> Tokenizer:
    """A BPE whose merges build a run of `n` dashes (a long token without spaces, a wide tree)."""
    vocab, merges, k = {"-": 0}, [], 1
    while k < n:
        merges.append(("-" * k, "-" * k))
        k *= 2
        vocab["-" * k] = len(vocab)
    return Tokenizer(BPE(vocab, merges))


@pytest.mark.parametrize("theme", [style.LIGHT, style.DARK])
@pytest.mark.parametrize("width,size", SIDE)
def test_merges_panel_docked_on_the_right(qtbot, demo, width, size, theme):
    panel = _merges(qtbot, demo, "Ġtokenizer", " 分词器 🙂 tokenizer")
    panel.set_theme(theme)
    window, dock = docked(qtbot, panel, size=size, dock_width=width, area="right")
    try:
        _settle(qtbot, dock, width)
        assert clipped_widgets(panel) == []
        _fits(panel)
        panel.used_toggle.click()
        panel.tabs.setCurrentIndex(1)
        panel.health_progress.show()  # what a running check shows
        panel.health_cancel.show()
        qtbot.wait(1)
        assert clipped_widgets(panel) == []
        _fits(panel)
    finally:
        panel.shutdown()


def test_a_long_token_and_trace_do_not_widen_the_merges_panel(qtbot):
    """Labels wrap a long token instead of asking for its width (the dock would grow, or the Build
    tab would scroll sideways and hide its buttons)."""
    tok = dashes(128)
    panel = _merges(qtbot, tok, "-" * 128, "-" * 200)
    window, dock = docked(qtbot, panel, dock_width=340)
    try:
        _settle(qtbot, dock, 340)
        assert panel.fontMetrics().horizontalAdvance("-" * 128) > 340
        _fits(panel)
        build = panel.tabs.widget(0)
        assert build.horizontalScrollBar().maximum() == 0
        assert clipped_widgets(panel) == []
        assert panel.zoom_in_button.isVisible() and panel.zoom_in_button.geometry().right() < build.viewport().width()
    finally:
        panel.shutdown()


@pytest.mark.slow
def test_merges_panel_with_a_real_vocabulary(qtbot):
    qwen = tokviz.load(shared_tokenizer("qwen2.5/tokenizer.json"))
    long = _long_token(qwen)
    panel = _merges(qtbot, qwen, long, " 乌鲁木齐 🙂 internationalization")
    window, dock = docked(qtbot, panel, size=(1600, 1000), dock_width=420)
    try:
        _settle(qtbot, dock, 420)
        _fits(panel)
        assert clipped_widgets(panel) == []
        assert panel.tabs.widget(0).horizontalScrollBar().maximum() == 0
    finally:
        panel.shutdown()


def _library(tmp_path) -> LibraryPanel:
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(shared_tokenizer("sentencepiece/bpe_8k.model"), folder / "bpe_8k.model")
    (folder / "broken.model").write_bytes(b"\x0a\x05not a model")
    recent = [Found("中文分词器 🙂", default_tokenizer_path(), "minbpe", RECENT)]
    return LibraryPanel([str(folder)], env={"HF_HOME": str(tmp_path / "none"), "TIKTOKEN_CACHE_DIR": ""},
                        recent=lambda: list(recent))


@pytest.mark.shared
@pytest.mark.parametrize("width,size", SIDE + [(280, (1280, 800))])
def test_library_panel_docked_on_the_left(qtbot, tmp_path, width, size):
    panel = _library(tmp_path)
    window, dock = docked(qtbot, panel, size=size, dock_width=width, area="left")
    try:
        with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
            panel.refresh()
        _settle(qtbot, dock, width)
        assert clipped_widgets(panel) == []
        _fits(panel)
        tree = panel.tree
        header = tree.header()
        widths = [0 if header.isSectionHidden(c) else header.sectionSize(c) for c in range(4)]
        assert widths == panel.column_widths()
        assert widths[0] >= 0.4 * tree.viewport().width()
        for col in range(1, 4):  # a column shown is wide enough for what it holds
            assert widths[col] == 0 or widths[col] >= tree.sizeHintForColumn(col)
        assert widths[3] > 0  # (the vocabulary size is the last to be left out)
    finally:
        panel.shutdown()


@pytest.mark.parametrize("theme", [style.LIGHT, style.DARK])
@pytest.mark.parametrize("height,size", BOTTOM)
def test_ids_panel_docked_at_the_bottom(qtbot, demo, height, size, theme):
    panel = IdsPanel()
    panel.set_tokenizer(demo)
    panel.decoded_tokens.set_theme(theme)
    window, dock = docked(qtbot, panel, size=size, dock_width=height, area="bottom")
    panel.set_encoding(demo.encode(TEXT * 3000))  # more ids than the pane shows: the longest count line
    panel.decode_input.setText(" ".join(map(str, demo.encode(TEXT).ids)))
    assert panel.decode_input_ids() is not None
    _settle(qtbot, dock, height, vertical=True)
    assert "shown" in panel.count_label.text()
    assert clipped_widgets(panel) == []
    _fits(panel)
    # wide enough: the style names are not cut short
    box = panel.style_box
    assert box.width() >= box.fontMetrics().horizontalAdvance(box.currentText())
