"""The Training panel: train in the background with live progress, cancel a run, complete another,
export the result and load it back; the window opens what was trained."""
from __future__ import annotations

import pytest

import tokviz
from tokviz.defaults import resource_path
from tokviz.gui.train_panel import TrainPanel

from .helpers import SHARED


@pytest.fixture
def panel(qtbot):
    p = TrainPanel()
    qtbot.addWidget(p)
    p.resize(1000, 700)
    p.show()
    yield p
    p.shutdown()


def test_cancel_one_run_then_train_export_and_load_back(qtbot, panel, tmp_path):
    big = SHARED / "corpus" / "en.txt"
    if not big.exists():
        pytest.skip("shared corpus not found")
    panel.set_files([big])
    panel.set_model("bytelevel-bpe")
    panel.vocab_size.setValue(30_000)
    with qtbot.waitSignal(panel.cancelled, timeout=30_000):
        assert panel.start()
        assert panel.is_training() and not panel.cancel_button.isHidden()
        qtbot.waitUntil(lambda: panel.progress.value() > 0, timeout=20_000)
        panel.cancel()
    assert panel.result is None and panel.status.text() == "Cancelled." and not panel.is_training()

    panel.set_files([resource_path("training.txt")])
    panel.vocab_size.setValue(600)
    panel.special_tokens.setText("<|endoftext|>, <pad>")
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    tok = blocker.args[0]
    assert tok.vocab_size == 600 and panel.result is tok
    points = panel.merge_points()
    assert points and [m for m, _ in points] == sorted(m for m, _ in points)
    counts = [c for _, c in points]
    assert counts[0] >= counts[-1]  # the first merges are the most frequent pairs
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
    panel.special_tokens.setText("<a>, <a>")
    assert not panel.start() and "listed twice" in panel.status.text()
    panel.special_tokens.setText("")
    panel.set_files([])
    assert not panel.start() and "no training files" in panel.status.text()


def test_the_window_opens_what_was_trained(qtbot, make_window, default_tokenizer_path):
    window = make_window(default_tokenizer_path, "a little text to encode")
    panel = window.train_panel
    panel.set_files([resource_path("training.txt")])
    panel.vocab_size.setValue(500)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        panel.start()
    qtbot.waitUntil(lambda: window.tokenizer() is blocker.args[0] and window.is_up_to_date(), timeout=30_000)
    assert window.token_view.encoding().ids == blocker.args[0].encode("a little text to encode").ids
