"""The Training panel: train in the background with live progress, cancel a run, complete another,
export the result and load it back; the window opens what was trained.  The plots show what the
chosen trainer does (merges for the BPE family, EM and pruning for Unigram), and the panel fits a
narrow dock."""
from __future__ import annotations

import math
import warnings

import pytest

import tokviz
from tokviz.defaults import resource_path
from tokviz.gui.panels.train_panel import TrainPanel, _CountAxis
from tokviz.train import TrainOptions, train

from ._inner_editors import clipped_controls
from .helpers import DOCK_PANEL_MAX_MIN_HEIGHT, DOCK_PANEL_MAX_MIN_WIDTH, SHARED, docked, speaking


@pytest.fixture
def panel(qtbot):
    p = TrainPanel()
    qtbot.addWidget(p)
    p.resize(1000, 700)
    p.show()
    yield p
    p.shutdown()


def assert_ready(panel, word: str) -> None:
    """Back to a ready state after a run that ended as `word` says (cancelled / failed)."""
    assert not panel.is_training() and panel.cancel_button.isHidden()
    assert panel.train_button.isEnabled() and not panel.train_button.isHidden()
    assert panel.progress.value() == 0 and panel.progress.text() == word


@pytest.mark.shared
def test_cancel_one_run_then_train_export_and_load_back(qtbot, panel, tmp_path):
    big = SHARED / "corpus" / "en.txt"
    if not big.exists():
        pytest.skip("shared corpus not found")
    panel.set_files([big])
    panel.set_model("bytelevel-bpe")
    panel.vocab_size.setValue(30_000)
    with qtbot.waitSignal(panel.cancelled, timeout=30_000):
        assert panel.start()
        assert panel.is_training() and not panel.cancel_button.isHidden() and panel.train_button.isHidden()
        qtbot.waitUntil(lambda: panel.progress.value() > 0, timeout=20_000)
        panel.cancel()
    assert panel.result is None and panel.status.text() == "Cancelled."
    assert_ready(panel, "cancelled")

    panel.set_files([resource_path("training.txt")])
    panel.vocab_size.setValue(600)
    panel.special_tokens.setText("<|endoftext|>, <pad>")
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
        assert panel.progress.text() == "0%"
    tok = blocker.args[0]
    assert tok.vocab_size == 600 and panel.result is tok
    assert panel.progress.value() == panel.progress.maximum()
    points = panel.merge_points()
    assert points and [m for m, _ in points] == sorted(m for m, _ in points)
    counts = [c for _, c in points]
    assert counts[0] >= counts[-1]  # the first merges are the most frequent pairs
    assert panel.plot_kind() == "merges" and panel.plotted()[0] == [(float(m), float(c)) for m, c in points]
    out = panel.export(tmp_path / "trained.json")
    again = tokviz.load(out)
    text = resource_path("training.txt").read_text(encoding="utf-8")[:5000]
    assert again.encode(text).ids == tok.encode(text).ids
    assert {t.content for t in again.added.tokens} >= {"<|endoftext|>", "<pad>"}


def test_every_algorithm_trains_and_bad_parameters_are_explained(qtbot, panel):
    panel.set_files([resource_path("training.txt")])
    for model, size in (("bpe", 400), ("wordpiece", 400), ("unigram", 600)):
        panel.set_model(model)
        panel.vocab_size.setValue(size)
        with qtbot.waitSignal(panel.trained, timeout=120_000) as blocker:
            assert panel.start()
        assert blocker.args[0].model.kind in ("BPE", "WordPiece", "Unigram")
    panel.vocab_size.setValue(300)  # below the unigram model's alphabet: the trainer says so
    with qtbot.waitSignal(panel.failed, timeout=60_000) as blocker:
        assert panel.start()
    assert "alphabet" in blocker.args[0] and "alphabet" in panel.status.text()
    assert_ready(panel, "failed")
    panel.special_tokens.setText("<a>, <a>")
    assert not panel.start() and "listed twice" in panel.status.text()
    panel.special_tokens.setText("")
    panel.set_files([])
    assert not panel.start() and "no training files" in panel.status.text()


def test_unigram_shows_its_em_objective_and_pruning_rounds(qtbot, panel):
    """The Unigram plots hold what its trainer reported: the objective of each EM step and the
    pieces left after each pruning round (round 0: the seeds); the BPE plots come back with BPE."""
    files = [str(resource_path("training.txt"))]
    panel.set_files(files)
    panel.set_model("bytelevel-bpe")
    panel.vocab_size.setValue(500)
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        panel.start()
    assert panel.plotted()[0] and panel.main_plot.getAxis("bottom").labelText == "merge"
    time_axis = panel.size_plot.getAxis("bottom")  # (a real run's times: ms or s, never "(x0.001)")
    assert time_axis.labelText in ("time (ms)", "time (s)") and "(x" not in time_axis.labelString()

    panel.set_model("unigram")
    panel.vocab_size.setValue(350)
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
        assert panel.plotted() == ([], [])  # a new run starts from empty plots, in its own axes
        assert panel.plot_kind() == "unigram" and not panel.main_plot.getAxis("left").logMode

    messages = []
    train("unigram", files, TrainOptions(vocab_size=350), progress=lambda f, m: messages.append(m))
    objectives = [float(m.rsplit(" ", 1)[1]) for m in messages if m.startswith("EM round")]
    seeds = [int(m.split()[0]) for m in messages if m.endswith(" seed pieces") and m[0].isdigit()]
    pruned = [int(m.split()[2]) for m in messages if m.startswith("pruned to")]
    assert len(pruned) >= 2 and len(objectives) == 2 * (len(pruned) + 1)  # two EM steps a round
    assert panel.em_points() == list(enumerate(objectives, 1))
    assert panel.pruning_points() == list(enumerate(seeds + pruned))
    assert all(a > b for (_, a), (_, b) in zip(panel.pruning_points(), panel.pruning_points()[1:]))
    upper, lower = panel.plotted()
    assert upper == [(float(x), y) for x, y in panel.em_points()]
    assert lower == [(float(x), float(y)) for x, y in panel.pruning_points()]
    assert panel.main_plot.getAxis("bottom").labelText == "EM step"
    assert "pruning round" in panel.size_plot.getPlotItem().titleLabel.text
    assert not panel.merge_points()  # nothing of the BPE run is left over

    panel.set_model("wordpiece")  # between runs the plots follow the chosen algorithm
    assert panel.plot_kind() == "merges" and panel.plotted() == ([], [])
    assert panel.main_plot.getAxis("left").logMode and "merge" in panel.main_plot.getPlotItem().titleLabel.text
    panel.set_model("unigram")
    assert panel.plotted()[0] == upper

    # A BPE run right after: the objective's negative values never meet its log axis (pyqtgraph
    # bounded them as all-NaN and warned on every repaint)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        panel.set_model("bytelevel-bpe")
        panel.vocab_size.setValue(500)
        with qtbot.waitSignal(panel.trained, timeout=60_000):
            assert panel.start()
            panel.grab()
        panel.grab()
    assert [str(w.message) for w in warned] == []


def _feed_merges(panel, seconds) -> None:
    """What a BPE trainer reports at these times, as the worker hands it over."""
    panel._run_model = "bytelevel-bpe"
    panel._clear_series()
    with panel._lock:
        panel._events = [(t, k / len(seconds), f"merge {k}: a b ({1000 - k})") for k, t in enumerate(seconds, 1)]
    panel._drain()


def test_the_time_axis_says_milliseconds_or_seconds_without_si_scaling(qtbot, panel, monkeypatch):
    """Tokens against time: a short run in ms, a long one in s, said by the label itself (pyqtgraph's
    SI prefix on a unitless label read "seconds (x0.001)"), and the label translatable."""
    panel.set_model("bytelevel-bpe")
    axis = panel.size_plot.getAxis("bottom")
    assert axis.labelText == "time (ms)"  # (before any run)
    _feed_merges(panel, [0.05, 0.2, 0.45])
    assert axis.labelText == "time (ms)" and "(x" not in axis.labelString()
    assert [x for x, _ in panel.plotted()[1]] == pytest.approx([50, 200, 450])
    _feed_merges(panel, [0.5, 1.5, 3.0])
    assert axis.labelText == "time (s)" and "(x" not in axis.labelString()
    assert [x for x, _ in panel.plotted()[1]] == pytest.approx([0.5, 1.5, 3.0])
    for side in ("left", "bottom"):  # (no axis of either plot adds a scale factor to its label)
        assert not panel.main_plot.getAxis(side).autoSIPrefix and not panel.size_plot.getAxis(side).autoSIPrefix

    from tokviz.gui.panels import train_panel

    chinese = {"time (ms)": "时间（毫秒）", "time (s)": "时间（秒）"}
    monkeypatch.setattr(train_panel.QCoreApplication, "translate", lambda context, text: chinese.get(text, text))
    _feed_merges(panel, [0.1, 0.3])
    assert axis.labelText == "时间（毫秒）" and "(x" not in axis.labelString()
    _feed_merges(panel, [0.5, 2.5])
    assert axis.labelText == "时间（秒）"


def test_log_count_axis_labels_keep_apart():
    axis = _CountAxis("left")
    axis.setLogMode(False, True)
    for lo, hi, pixels in ((0.3, 2.1, 60), (0.3, 2.1, 400), (0.0, 5.0, 100), (1.1, 1.9, 200)):
        ((_, values),) = axis.tickValues(lo, hi, pixels)
        assert len(values) >= 2 and all(lo <= v <= hi for v in values)
        gaps = [(b - a) * pixels / (hi - lo) for a, b in zip(values, values[1:])]
        assert min(gaps) >= 18 or len(values) == 2
        for v, label in zip(values, axis.tickStrings(values, 1, None)):
            assert math.isclose(float(label.replace(",", "")), 10 ** v, rel_tol=1e-6)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("dock_width", [340, 420])
def test_docked_panel_fits_a_narrow_dock(qtbot, dock_width, language):
    """In English and in Chinese (check boxes, buttons and form labels of either length)."""
    with speaking(language):
        _fits_a_narrow_dock(qtbot, dock_width)


def _fits_a_narrow_dock(qtbot, dock_width):
    panel = TrainPanel()
    hint = panel.minimumSizeHint()
    assert hint.width() <= DOCK_PANEL_MAX_MIN_WIDTH and hint.height() <= DOCK_PANEL_MAX_MIN_HEIGHT
    window, dock = docked(qtbot, panel, dock_width=dock_width)
    try:
        content = panel.setup_area.widget()
        for model in ("bytelevel-bpe", "bpe", "wordpiece", "unigram"):
            panel.set_model(model)
            qtbot.wait(10)
            assert clipped_controls(panel) == []
            assert clipped_controls(content) == []  # nor in the parameters, which scroll
            assert content.width() >= content.minimumSizeHint().width()
            assert not panel.setup_area.horizontalScrollBar().isVisible()
            for field in (panel.model_box, panel.vocab_size, panel.special_tokens, panel.byte_fallback, panel.threads):
                assert field.isVisibleTo(panel) and field.geometry().right() <= content.width()
        assert panel.main_plot.height() >= 120 and panel.size_plot.height() >= 120
        assert panel.setup_area.height() >= 200
    finally:
        panel.shutdown()


def test_the_window_opens_what_was_trained(qtbot, make_window, default_tokenizer_path):
    window = make_window(default_tokenizer_path, "a little text to encode")
    panel = window.train_panel
    panel.set_files([resource_path("training.txt")])
    panel.vocab_size.setValue(500)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        panel.start()
    qtbot.waitUntil(lambda: window.tokenizer() is blocker.args[0] and window.is_up_to_date(), timeout=30_000)
    assert window.token_view.encoding().ids == blocker.args[0].encode("a little text to encode").ids
