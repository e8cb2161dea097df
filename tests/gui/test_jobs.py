"""Jobs on a worker with a progress bar and Cancel: what a person sees while one runs, when it is
cancelled and when another takes its place."""
from __future__ import annotations

import tokviz
from tokviz import defaults
from tokviz.gui.overlap_view import OverlapView


def test_overlap_page_changing_the_set_during_a_run_ends_the_run(qtbot):
    demo = tokviz.load(defaults.default_tokenizer_path())
    view = OverlapView()
    qtbot.addWidget(view)
    view.show()
    view.set_tokenizers({"a": demo, "b": demo})
    view.run()
    assert view.progress.isVisible() and not view.run_button.isEnabled()
    view.set_tokenizers({"a": demo, "c": demo})  # (the old run's result is for another set: dropped)
    assert not view.progress.isVisible() and not view.cancel_button.isVisible() and view.run_button.isEnabled()
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=60_000)
    assert view.report is None and view.status.text() == "2 tokenizers: Run to compare them."
    with qtbot.waitSignal(view.finished, timeout=60_000):
        view.run()
    assert view.report is not None and view.run_button.isEnabled()
    view.shutdown()
