"""The Round trip panel and dock: the analysis on a worker while the dock is shown, the list of
differences, clicking one selects it in the editor and the token view, the token view's marks."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.gui.panels.roundtrip_panel import MAX_ROWS, RoundTripPanel, visible
from tokviz.gui.window.editor import py_index

from .helpers import DOCK_PANEL_MAX_MIN_HEIGHT, DOCK_PANEL_MAX_MIN_WIDTH, clipped_widgets, docked, wait_encoded

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(scope="module")
def bert_path(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("rtgui") / "tokenizer.json"
    dest.write_bytes(lzma.decompress((REAL / "bert-minilm" / "tokenizer.json.xz").read_bytes()))
    return dest


def _reference_decode(path: Path, text: str) -> str:
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_truncation()
    return ref.decode(ref.encode(text, add_special_tokens=False).ids)


@pytest.fixture
def panel(qtbot):
    p = RoundTripPanel()
    qtbot.addWidget(p)
    p.resize(380, 700)
    p.show()
    yield p
    p.shutdown()


def test_panel_lists_differences(qtbot, panel, bert_path):
    tok = tokviz.load(bert_path)
    text = "Café  au lait, HELLO"
    panel.set_tokenizer(tok)
    panel.set_active(True)
    with qtbot.waitSignal(panel.finished, timeout=30_000) as blocker:
        panel.set_text(text)
    report = blocker.args[0]
    assert report.decoded == _reference_decode(bert_path, text) == "cafe au lait, hello"
    rows = [[panel.table.item(r, c).text() for c in range(panel.table.columnCount())]
            for r in range(panel.table.rowCount())]
    assert rows[0] == ["0", "C", "c", "c", "normalizer (case)"]
    assert ["4", "·", "·", "∅", "collapsed spaces"] in rows or ["5", "·", "·", "∅", "collapsed spaces"] in rows
    assert "decode differences" in panel.summary.text()
    panel.set_stage("normalizer")
    assert panel.table.isColumnHidden(3)
    assert [panel.table.item(r, 1).text() for r in range(panel.table.rowCount())] == ["C", "é", "HELLO"]
    with qtbot.waitSignal(panel.spanActivated) as activated:
        panel.table.itemActivated.emit(panel.table.item(2, 1))
    assert activated.args == [text.index("HELLO"), len(text)]


def test_panel_waits_until_shown(qtbot, panel, bert_path):
    panel.set_tokenizer(tokviz.load(bert_path))
    panel.set_text("Hello")
    qtbot.wait(200)
    assert panel.report is None and not panel.is_busy()
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        panel.set_active(True)
    assert panel.report.decoded == "hello"


def test_panel_big_text_lists_first_rows_and_cancels(qtbot, panel, bert_path):
    tok = tokviz.load(bert_path)
    text = "Hello World, ÉTÉ. " * 6000
    panel.set_tokenizer(tok)
    panel.set_active(True)
    with qtbot.waitSignal(panel.finished, timeout=60_000):
        panel.set_text(text)
    assert len(panel.report.decode_differences) > MAX_ROWS
    assert panel.table.rowCount() == MAX_ROWS
    assert panel.count_label.text().startswith(f"first {MAX_ROWS:,} of ")
    with qtbot.waitSignal(panel.cancelled, timeout=30_000):
        panel.set_text(text + "x")
        panel.cancel()
    assert panel.summary.text() == "Cancelled."


def test_visible():
    assert visible("") == "∅"
    assert visible(" \t\n") == "·→↵"
    assert visible("x" * 50, limit=10) == "x" * 10 + "…"


def test_dock_in_window(qtbot, make_window, bert_path):
    text = "Café au lait. HELLO   world\n"
    window = make_window(str(bert_path), text)
    qtbot.waitUntil(lambda: window.controller.tokenizer is not None and window.token_view.encoding() is not None,
                    timeout=30_000)
    panel = window.roundtrip_panel
    assert panel.report is None  # (nothing computed while the dock is hidden)
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        window.roundtrip_dock.show()
        window.roundtrip_dock.raise_()
    report = panel.report
    assert report.decoded == _reference_decode(bert_path, text)
    normalizer_marked, decode_marked = window.token_view.underlined()
    enc = window.token_view.encoding()
    # the tokens of 'Café' and 'HELLO' are marked in both layers; 'au' in neither
    au = next(i for i, (a, b) in enumerate(enc.offsets) if text[a:b] == "au")
    for word in ("Caf", "HELLO"):
        at = text.index(word)
        i = next(i for i, (a, b) in enumerate(enc.offsets) if a <= at < b)
        assert i in normalizer_marked and i in decode_marked
    assert au not in normalizer_marked and au not in decode_marked
    # clicking the 'HELLO' row selects it in the editor and its token in the token view
    row = next(r for r in range(panel.table.rowCount()) if panel.table.item(r, 1).text() == "HELLO")
    panel.table.itemClicked.emit(panel.table.item(row, 1))
    cursor = window.editor.textCursor()
    start = text.index("HELLO")
    assert (py_index(text, cursor.selectionStart()), py_index(text, cursor.selectionEnd())) == (start, start + 5)
    first, last = window.token_view.selection()
    assert text[enc.offsets[first][0]:enc.offsets[last][1]] == "HELLO"
    # hiding the dock removes the marks; editing the text while hidden computes nothing
    window.roundtrip_dock.hide()
    assert window.token_view.underlined() == []
    window.roundtrip_dock.show()  # (shown again, same text: the marks come back without a new analysis)
    assert window.token_view.underlined() == [normalizer_marked, decode_marked]
    window.roundtrip_dock.hide()
    window.editor.setPlainText("Naïve TEXT")
    wait_encoded(qtbot, window, "Naïve TEXT")
    qtbot.wait(100)
    assert panel.report is report and not panel.is_busy()
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        window.roundtrip_dock.show()
    assert panel.report.decoded == _reference_decode(bert_path, "Naïve TEXT") == "naive text"
    action = next(a for a in window.dock_actions if a.text().startswith("Round tri&p"))
    assert action.isChecked()
    action.trigger()  # (View ▸ Round trip hides it again)
    assert not window.roundtrip_dock.isVisible()


def test_panel_byte_level_round_trips(qtbot, panel, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    text = "Hello  world\n\n\tcafé 東京 🙂"
    panel.set_tokenizer(tokviz.load(path))
    panel.set_active(True)
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        panel.set_text(text)
    assert _reference_decode(path, text) == text == panel.report.decoded
    assert panel.table.rowCount() == 0 and panel.count_label.text().startswith("none")
    assert panel.summary.text().startswith("decode(encode(text)) == text")


@pytest.mark.parametrize("dock_width", [300, 420])
def test_panel_fits_a_narrow_dock(qtbot, bert_path, dock_width):
    """Its minimum size stays within what a dock's panel may ask, and at 1280x800 in a narrow dock
    nothing is laid out below its minimum size, the list and the plots filled."""
    panel = RoundTripPanel()
    hint = panel.minimumSizeHint()
    assert hint.width() <= DOCK_PANEL_MAX_MIN_WIDTH and hint.height() <= DOCK_PANEL_MAX_MIN_HEIGHT
    window, dock = docked(qtbot, panel, dock_width=dock_width)
    panel.set_tokenizer(tokviz.load(bert_path))
    panel.set_active(True)
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        panel.set_text("Café  au lait — HELLO, naïve 東京 🙂\n\n" * 40)
    qtbot.wait(50)
    assert clipped_widgets(dock) == []
    assert panel.table.rowCount() > 0 and panel.table.height() > 100
    assert panel.kind_plot.height() >= 100 and panel.where_plot.width() >= 100
    panel.shutdown()
