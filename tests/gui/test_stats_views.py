"""The Vocabulary and Statistics views: the numbers they show equal `tokviz stats --json`, the table
filters and sorts, long work runs in the background and can be cancelled."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

import tokviz
from tokviz.cli import main
from tokviz.defaults import default_tokenizer_path, sample_text_path
from tokviz.gui.stats_view import METRICS, StatsView, format_metric
from tokviz.gui.vocab_view import VocabView

DEMO = str(default_tokenizer_path())


@pytest.fixture(scope="module")
def cli_stats():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["stats", "-t", DEMO, "--corpus", f"sample={sample_text_path()}", "--json"]) == 0
    return json.loads(out.getvalue())


def test_vocab_view_shows_what_tokviz_stats_prints(qtbot, cli_stats):
    view = VocabView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    with qtbot.waitSignal(view.ready, timeout=60_000):
        view.set_tokenizer(tokviz.load(DEMO))
    shown = view.summary_values()
    for key in ("size", "divisible_by_64", "divisible_by_128", "special", "reserved", "byte_pieces",
                "length_bytes", "length_chars", "script_counts", "cjk_single_chars", "numbers_single_token", "mean_bytes"):
        assert shown[key] == cli_stats["vocab"][key], key
    assert f"{shown['size']:,}" in view.summary.text()
    assert view.model.rowCount() == view.proxy.rowCount() == tokviz.load(DEMO).vocab_size
    view.shutdown()


def test_vocab_table_filters_and_sorts(qtbot):
    view = VocabView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.ready, timeout=60_000):
        view.set_tokenizer(tokviz.load(DEMO))
    rows = view.model.rows()
    view.filter_input.setText("th")
    view.apply_filter()
    expected = [r.id for r in rows if "th" in r.token.lower() or "th" in r.text.lower()]
    shown = [int(view.proxy.index(k, 0).data()) for k in range(view.proxy.rowCount())]
    assert shown == expected and 0 < len(shown) < len(rows)
    assert view.count_label.text().startswith(f"{len(expected):,} of")
    view.filter_input.setText("/^t.e$/")
    view.apply_filter()
    shown = {view.proxy.index(k, 2).data() for k in range(view.proxy.rowCount())}
    assert shown and all(len(s) == 3 and s[0] == "t" and s[2] == "e" for s in shown)
    view.filter_input.setText("/[/")
    view.apply_filter()
    assert "bad regex" in view.count_label.text()
    view.filter_input.setText("")
    view.category_box.setCurrentIndex(view.category_box.findData("partial UTF-8"))
    assert view.proxy.rowCount() == sum(1 for r in rows if r.category == "partial UTF-8") > 0
    view.category_box.setCurrentIndex(0)
    view.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
    lengths = [int(view.proxy.index(k, 3).data()) for k in range(view.proxy.rowCount())]
    assert lengths == sorted(lengths, reverse=True)
    view.shutdown()


def test_stats_view_shows_what_tokviz_stats_prints(qtbot, cli_stats):
    view = StatsView()
    qtbot.addWidget(view)
    view.set_tokenizer(tokviz.load(DEMO))
    view.set_corpus([sample_text_path()])
    with qtbot.waitSignal(view.finished, timeout=60_000):
        view.run()
    expected = cli_stats["corpus"]["sample"]
    shown = view.shown_values()
    for _, key, kind in METRICS:
        if key in ("seconds", "mb_per_second", "files"):
            continue  # (time differs run to run; files: a list)
        assert shown[key] == format_metric(expected[key], kind), key
    assert view.progress.isHidden() and not view.is_running()
    view.shutdown()


def test_stats_run_in_background_and_cancel(qtbot, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text(sample_text_path().read_text(encoding="utf-8") * 3000, encoding="utf-8")
    view = StatsView()
    qtbot.addWidget(view)
    view.set_tokenizer(tokviz.load(DEMO))
    view.set_corpus([big])
    with qtbot.waitSignal(view.cancelled, timeout=30_000):
        view.run()
        assert view.is_running() and not view.progress.isHidden() and not view.cancel_button.isHidden()
        qtbot.waitUntil(lambda: view.progress.value() > 0, timeout=20_000)
        view.cancel()
    assert view.result is None and view.status.text() == "Cancelled."
    view.shutdown()


def test_compare_table(qtbot, tmp_path):
    zh = tmp_path / "zh.txt"
    zh.write_text("中文分词的例子。" * 100, encoding="utf-8")
    view = StatsView()
    qtbot.addWidget(view)
    view.set_tokenizer(tokviz.load(DEMO))
    view.set_corpus([zh])
    view.add_compare(DEMO)
    with qtbot.waitSignal(view.compared, timeout=60_000) as blocker:
        view.compare()
    rows = blocker.args[0]
    assert len(rows) == 2 and rows[0]["zh chars/token"] == rows[1]["zh chars/token"]
    assert view.compare_table.rowCount() == 2
    headers = [view.compare_table.horizontalHeaderItem(k).text() for k in range(view.compare_table.columnCount())]
    assert headers[:4] == ["tokenizer", "vocab size", "zh tokens", "zh chars/token"]
    view.shutdown()


def test_vocabulary_dock_fills_when_shown(qtbot, make_window, default_tokenizer_path):
    window = make_window(default_tokenizer_path, "hello")
    assert window.vocab_view.stats is None  # hidden: nothing computed
    with qtbot.waitSignal(window.vocab_view.ready, timeout=60_000):
        window.vocab_dock.show()
    assert window.vocab_view.model.rowCount() > 0
