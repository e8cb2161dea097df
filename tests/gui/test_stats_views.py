"""The Vocabulary and Statistics views: the numbers they show equal `tokviz stats --json`, the table
filters and sorts, long work runs in the background and can be cancelled."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

import tokviz
from tokviz.analysis.vocab_stats import token_table, vocab_stats
from tokviz.cli import main
from tokviz.defaults import default_tokenizer_path, sample_text_path
from tokviz.gui.views.stats_view import METRICS, StatsView, format_metric
from tokviz.gui.views.vocab_table import VocabModel, VocabProxy
from tokviz.gui.views.vocab_view import VocabView

from _shared import need, sweep
from _vocab_reference import SHARED_TABLES, reference_cells, reference_filter, reference_order, reference_rows, reference_stats

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
    table = view.model.table()
    view.filter_input.setText("th")
    view.apply_filter()
    expected = [int(table.ids[k]) for k in range(len(table)) if "th" in table.token(k).lower() or "th" in table.text(k).lower()]
    shown = [int(view.proxy.index(k, 0).data()) for k in range(view.proxy.rowCount())]
    assert shown == expected and 0 < len(shown) < len(table)
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
    assert view.proxy.rowCount() == sum(1 for k in range(len(table)) if table.category_name(k) == "partial UTF-8") > 0
    view.category_box.setCurrentIndex(0)
    view.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
    lengths = [int(view.proxy.index(k, 3).data()) for k in range(view.proxy.rowCount())]
    assert lengths == sorted(lengths, reverse=True)
    view.shutdown()
    # merge ranks show as integers, scores with %g, no rank as nothing
    big = dataclasses.replace(table, rank=np.full(len(table), 1234567.0), rank_is_int=True)
    assert VocabModel(big).cell(0, 6) == "1234567"
    assert VocabModel(dataclasses.replace(big, rank_is_int=False)).cell(0, 6) == "1.23457e+06"
    assert VocabModel(dataclasses.replace(big, rank=np.full(len(table), np.nan))).cell(0, 6) == ""


def _straddling_needle(rows, table):
    """A needle that is in the table's haystack only across the end of one row and the start of the next."""
    haystack = table.haystack.tobytes().decode("utf-32-le", "surrogatepass")
    for k in range(0, len(rows) - 1, max(1, len(rows) // 50)):
        a, b = (f"{r.token}\x00{r.text}".lower() for r in rows[k:k + 2])
        needle = a[-2:] + "\n" + b[:2]
        if needle in haystack and not reference_filter(rows, needle):
            return needle
    raise AssertionError("no straddling needle found")


def test_a_regex_filter_survives_an_empty_table(qtbot):
    """While another tokenizer loads the table is empty: a /regex/ filter shows no rows there (it
    raised AttributeError inside the model's reset, leaving the reset open), then filters the new one."""
    model, proxy = VocabModel(), VocabProxy()
    proxy.setSourceModel(model)
    tok = tokviz.load(DEMO)
    model.set_table(token_table(tok))
    proxy.set_filter("/^th/")
    assert proxy.rowCount() > 0
    resets = []
    proxy.modelAboutToBeReset.connect(lambda: resets.append("begin"))
    proxy.modelReset.connect(lambda: resets.append("end"))
    model.set_table(None)
    assert proxy.rowCount() == 0 and resets and resets[-1] == "end" and resets.count("begin") == resets.count("end")
    model.set_table(token_table(tok))
    shown = [proxy.index(k, 2).data() for k in range(proxy.rowCount())]
    assert shown and all(t.lower().startswith("th") for t in shown)


def test_a_new_vocabulary_is_filtered_once_and_the_same_filter_again_costs_nothing(qtbot, monkeypatch):
    from tokviz.analysis.vocab_stats import TokenTable

    searched = []
    real_matches = TokenTable.matches
    monkeypatch.setattr(TokenTable, "matches", lambda table, rx: searched.append(table) or real_matches(table, rx))
    view = VocabView()
    qtbot.addWidget(view)
    view.filter_input.setText("/^t/")
    with qtbot.waitSignal(view.ready, timeout=60_000):
        view.set_tokenizer(tokviz.load(DEMO))
    table = view.model.table()
    assert searched == [table]
    rows = view.proxy.visible_rows().copy()
    assert len(rows) and all(table.token(r).lower().startswith("t") or table.text(r).lower().startswith("t")
                             for r in rows)
    view.apply_filter()  # (the same filter on the same table)
    assert searched == [table]
    view.filter_input.setText("/e$/")
    view.apply_filter()
    assert searched == [table, table]
    assert all(table.token(r).lower().endswith("e") or table.text(r).lower().endswith("e")
               for r in view.proxy.visible_rows())
    view.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)  # (another order: rows made again)
    lengths = [int(view.proxy.index(k, 3).data()) for k in range(view.proxy.rowCount())]
    assert lengths == sorted(lengths, reverse=True) and len(searched) == 3
    view.shutdown()


@pytest.mark.shared
@pytest.mark.parametrize("name", sweep(["demo", *SHARED_TABLES], ["demo", "sp-unigram", "sp-bpe"]))  # (big ones: -m slow)
def test_vocab_table_equals_the_per_row_reference(qtbot, name):
    """Every cell of every row, the figures, filters and sorts are what the per-row table showed."""
    tok = tokviz.load(DEMO if name == "demo" else need(SHARED_TABLES[name]))
    rows = reference_rows(tok)
    table = token_table(tok)
    assert vocab_stats(tok, table).as_dict() == reference_stats(tok, rows).as_dict()
    model, proxy = VocabModel(), VocabProxy()
    proxy.setSourceModel(model)
    model.set_table(table)
    assert model.rowCount() == proxy.rowCount() == len(rows)
    display, tip, align = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    for k, r in enumerate(rows):
        assert tuple(model.cell(k, c) for c in range(7)) == reference_cells(r), k
    for k in range(0, len(rows), max(1, len(rows) // 500)):  # (the same through Qt, with tooltips and alignment)
        r = rows[k]
        assert [model.data(model.index(k, c), display) for c in range(7)] == list(reference_cells(r))
        assert [model.data(model.index(k, c), tip) for c in (1, 2)] == [repr(r.token), repr(r.text)]
        assert [model.data(model.index(k, c), align) for c in range(7)] == [right, None, None, right, right, None, right]

    filters = [("t",), ("Ing",), ("ĠTHE",), ("中",), ("中文",), ("İ",), ("ΑΣ",), ("\x00",), ("e\x00 ",), ("\n",),
               ("⟨E6",), ("<|",), ("zzqqxx",), (_straddling_needle(rows, table),),
               ("/^Ġ[a-z]+ing$/",), (r"/^\d+$/",), ("/[A-Z]{3}/",), ("/^.$/",), (r"/\s$/",), ("/[/",),
               ("", "CJK"), ("", "partial UTF-8"), ("", "special"), ("", "byte piece"), ("", "no such category"),
               ("", "", 8, 12), ("", "", 0, 2), ("", "", 5, 0), ("e", "Latin", 2, 6), ("/e$/", "Latin", 3, 0)]
    for args in filters:
        proxy.set_filter(*args)
        assert proxy.visible_rows().tolist() == reference_filter(rows, *args), args
        assert ("bad regex" in proxy.last_error) == (args[0] == "/[/")
    for text in ("e", ""):
        proxy.set_filter(text)
        shown = reference_filter(rows, text)
        for column in range(7):
            for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
                proxy.sort(column, order)
                descending = order == Qt.SortOrder.DescendingOrder
                assert proxy.visible_rows().tolist() == reference_order(rows, shown, column, descending), (text, column, order)
    k = len(rows) // 2
    assert proxy.mapToSource(proxy.index(0, 3)).row() == proxy.visible_rows()[0]
    assert proxy.mapFromSource(model.index(k, 1)).row() == proxy.visible_rows().tolist().index(k)


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


def test_a_closed_vocabulary_dock_lets_go_of_the_tokenizer_it_showed(qtbot, make_window, default_tokenizer_path,
                                                                      tmp_path):
    import gc
    import shutil
    import weakref

    copy = tmp_path / "other.model"
    shutil.copy(default_tokenizer_path, copy)
    window = make_window(copy, "hello")
    shown = weakref.ref(window.tokenizer())
    with qtbot.waitSignal(window.vocab_view.ready, timeout=60_000):
        window.vocab_dock.show()
    window.vocab_dock.close()
    window.open_tokenizer(default_tokenizer_path)
    qtbot.waitUntil(lambda: window.tokenizer() is not shown(), timeout=30_000)
    assert window.vocab_view.tokenizer() is None and window.vocab_view.model.rowCount() == 0
    # (a task on a worker may hold it until it ends: on a busy machine, after this point)
    qtbot.waitUntil(lambda: gc.collect() is not None and shown() is None, timeout=30_000)
    with qtbot.waitSignal(window.vocab_view.ready, timeout=60_000):
        window.vocab_dock.show()  # (shown again: the explorer's tokenizer)
    assert window.vocab_view.tokenizer() is window.tokenizer()


def test_the_length_histogram_puts_the_longest_half_percent_in_one_last_bar():
    from tokviz.gui.views.vocab_view import length_bins

    counts = {1: 200, 2: 3000, 3: 4000, 4: 2000, 5: 700, 6: 60, 7: 20, 9: 5, 40: 3, 130: 1}  # 9,989 tokens
    lengths, heights, tail = length_bins(counts)
    assert tail == (7, 130, 29)  # (6 bytes and under: 99.6%; 7-130 bytes: the longest 29 tokens)
    assert lengths.tolist() == [1, 2, 3, 4, 5, 6, 7] and heights.tolist() == [200, 3000, 4000, 2000, 700, 60, 29]
    assert heights.sum() == sum(counts.values())  # (every token in a bar)
    # no tail worth a bar of its own: every length keeps its bar
    assert length_bins({1: 10, 2: 20, 3: 1})[2] is None
    assert length_bins({})[2] is None


def test_the_vocabulary_charts_have_titles(qtbot):
    view = VocabView()
    qtbot.addWidget(view)
    view.resize(340, 700)  # (narrow: the charts are tabs, with titles all the same)
    view.show()
    with qtbot.waitSignal(view.ready, timeout=60_000):
        view.set_tokenizer(tokviz.load(DEMO))
    assert not view.panes.is_wide()
    assert view.script_plot.getPlotItem().titleLabel.text == "Scripts of the tokens"
    assert view.length_tail is None  # (the demo's lengths: 1-11 bytes, every one its bar)
    assert view.length_plot.getPlotItem().titleLabel.text == "Token length (bytes)"
    # a vocabulary with a long tail (a few tokens of up to 130 bytes): one last "≥ N" bar, said in the title
    view.stats.length_bytes = {1: 200, 2: 3000, 3: 4000, 4: 2000, 5: 700, 6: 60, 7: 20, 9: 5, 40: 3, 130: 1}
    view._plot(view.stats)
    assert view.length_tail == (7, 130, 29)
    title = view.length_plot.getPlotItem().titleLabel.text
    assert title.startswith("Token length (bytes)") and "the longest 29 tokens (7–130 bytes)" in title
    labels = [item for item in view.length_plot.getPlotItem().items if hasattr(item, "textItem")]
    assert [item.textItem.toPlainText() for item in labels] == ["≥ 7"]
    x_range = view.length_plot.getPlotItem().getViewBox().childrenBounds()[0]
    assert x_range[1] < 10  # (the axis ends at the last bar, not at 130 bytes)
