"""The Overlap page: runs on a worker with progress and Cancel, shows what `tokviz overlap --json`
prints, and plots the selected pair."""
from __future__ import annotations

import json
import lzma
from pathlib import Path

import pyqtgraph as pg
import pytest

import tokviz
from tokviz.cli import main
from tokviz.gui.analyses.overlap_view import COLUMNS, OverlapView
from tokviz.gui.widgets.style import DARK

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("overlap_view")
    qwen = root / "qwen2.5" / "tokenizer.json"
    qwen.parent.mkdir()
    qwen.write_bytes(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    gpt2 = root / "gpt2.tiktoken"
    gpt2.write_bytes(lzma.decompress((REAL / "whisper-gpt2.tiktoken.xz").read_bytes()))
    bert = root / "bert-minilm" / "tokenizer.json"
    bert.parent.mkdir()
    bert.write_bytes(lzma.decompress((REAL / "bert-minilm" / "tokenizer.json.xz").read_bytes()))
    return {"qwen": qwen, "gpt2": gpt2, "bert": bert}


def _view(qtbot) -> OverlapView:
    view = OverlapView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    return view


def _items(plot, kind):
    return [i for i in plot.getPlotItem().items if isinstance(i, kind)]


def assert_headers_fit(view: OverlapView) -> None:
    """Each column's header text (every line of it) fits in its section: nothing is clipped."""
    header = view.table.horizontalHeader()
    metrics = header.fontMetrics()
    for c in range(view.table.columnCount()):
        text = view.table.horizontalHeaderItem(c).text()
        widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
        assert widest + 8 <= header.sectionSize(c), (text, widest, header.sectionSize(c))
        lines = len(text.split("\n"))
        assert header.height() >= lines * metrics.height(), text


def test_headers_are_readable_before_and_after_a_run(qtbot):
    view = _view(qtbot)
    qtbot.wait(50)
    assert_headers_fit(view)
    assert all(view.table.horizontalHeaderItem(c).toolTip() for c in range(len(COLUMNS)))
    view.shutdown()


@pytest.mark.slow
def test_shows_what_the_cli_prints(qtbot, files, capsys):
    assert main(["overlap", "-t", str(files["qwen"]), "-t", str(files["gpt2"]), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)["pairs"][0]
    from tiktoken.load import load_tiktoken_bpe
    from tokenizers import Tokenizer

    # the shared count, measured apart: GPT-2's ranks against Qwen's vocabulary with its byte alphabet undone
    from test_overlap import bytelevel

    qwen_bytes = {bytelevel(t) for t in Tokenizer.from_file(str(files["qwen"])).get_vocab(with_added_tokens=False)}
    assert cli["shared"] == len(qwen_bytes & load_tiktoken_bpe(str(files["gpt2"])).keys())

    view = _view(qtbot)
    view.set_tokenizers({cli["a"]: tokviz.load(files["qwen"]), cli["b"]: tokviz.load(files["gpt2"])})
    with qtbot.waitSignal(view.finished, timeout=120_000) as blocker:
        view.run()
        assert view.is_busy() and view.progress.isVisible() and view.cancel_button.isVisible()
    report = blocker.args[0]
    assert not view.progress.isVisible() and view.run_button.isEnabled()
    row = dict(zip(COLUMNS, view.shown_rows()[0]))
    assert (row["A"], row["B"]) == (cli["a"], cli["b"])
    assert row["shared"] == f"{cli['shared']:,}"
    assert row["Jaccard"] == f"{cli['jaccard']:.3f}"
    assert row["A in B"] == f"{cli['a_in_b']:.1%}" and row["B in A"] == f"{cli['b_in_a']:.1%}"
    assert row["common merge prefix"] == f"{cli['merges']['common_prefix']:,}"
    assert row["verdict"] == cli["verdict"]

    pair = view.selected_pair()
    assert pair is report.pairs[0]
    assert cli["verdict"] in view.verdict.text()
    assert f"{pair.special_only_a:,} only in {pair.a}" in view.details.text()
    bars = _items(view.scripts_plot, pg.BarGraphItem)
    assert len(bars) == 3  # shared, only A, only B
    # every category named, its bar at least MIN_BAR_PX thick (the chart scrolls when the page is short)
    from tokviz.gui.widgets.plots import MIN_BAR_PX, rows_drawn

    for size in ((1280, 800), (900, 420)):
        view.resize(*size)
        qtbot.wait(100)
        rows, thinnest = rows_drawn(view.scripts_plot, view.scripts_axis)
        assert rows == list(range(len(pair.scripts))), "a name per category"
        assert thinnest >= MIN_BAR_PX - 0.5, f"bars {thinnest:.1f} px thick"
        assert_headers_fit(view)
    view.resize(1280, 800)
    assert view.scripts_axis.names[0].startswith(next(iter(pair.scripts)))
    points = _items(view.ranks_plot, pg.ScatterPlotItem)
    assert len(points) == 1 and len(points[0].data) == len(pair.merges.rank_a) > 0
    view.set_theme(DARK)  # redrawn in the new colours
    assert view.scripts_plot.backgroundBrush().color().name() == DARK.background
    assert len(_items(view.scripts_plot, pg.BarGraphItem)) == 3
    view.shutdown()


@pytest.mark.slow
def test_three_tokenizers_and_a_wordpiece(qtbot, files):
    view = _view(qtbot)
    view.set_tokenizers({"qwen": tokviz.load(files["qwen"]), "gpt2": tokviz.load(files["gpt2"]),
                         "bert": tokviz.load(files["bert"])})
    with qtbot.waitSignal(view.finished, timeout=120_000):
        view.run()
    rows = view.shown_rows()
    assert [(r[0], r[1]) for r in rows] == [("qwen", "gpt2"), ("qwen", "bert"), ("gpt2", "bert")]
    assert rows[1][COLUMNS.index("common merge prefix")] == "—"
    view.select_pair(1)
    assert view.selected_pair().b == "bert"
    assert "bert is a WordPiece" in view.ranks_key.text()
    assert not _items(view.ranks_plot, pg.ScatterPlotItem)
    view.shutdown()


@pytest.mark.slow
def test_cancel_and_too_few_tokenizers(qtbot, files):
    view = _view(qtbot)
    view.set_tokenizers({"qwen": tokviz.load(files["qwen"])})
    view.run()
    assert not view.is_busy() and "at least two" in view.status.text()

    view.set_tokenizers({"qwen": tokviz.load(files["qwen"]), "gpt2": tokviz.load(files["gpt2"]),
                         "bert": tokviz.load(files["bert"])})
    with qtbot.waitSignal(view.cancelled, timeout=120_000):
        view.run()
        view.cancel_button.click()
    assert view.report is None and view.status.text() == "Cancelled." and view.run_button.isEnabled()
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=60_000)
    view.shutdown()


@pytest.mark.slow
def test_screenshot_of_the_page(files, tmp_path):
    from PySide6.QtGui import QImage

    from tokviz.gui.screenshot import VIEWS, screenshot

    assert "overlap" in VIEWS
    out = screenshot("overlap", [str(files["qwen"]), str(files["gpt2"])], None, tmp_path / "overlap.png", 1280, 800)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
