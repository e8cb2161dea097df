"""A button that appears in another's place, or is enabled again, ignores clicks for a moment: a click
meant for the button that was there must not act on the new one (Cancel clicked as a run ends must not
start another run).  The guard's clock is replaced by one the test moves, so nothing sleeps."""
from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from tokviz.defaults import resource_path
from tokviz.errors import Cancelled
from tokviz.gui.widgets.click_guard import QUIET_MS, click_guard
from tokviz.gui.work.jobs import BackgroundJob
from tokviz.gui.panels.train_panel import TrainPanel

LEFT = Qt.MouseButton.LeftButton


class Clock:
    """A monotonic clock that moves only when the test says."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def later(self, ms: float) -> None:
        self.now += ms / 1000


def _clocked(*buttons) -> Clock:
    clock = Clock()
    for button in buttons:
        guard = click_guard(button)
        guard.clock = clock
        guard.arm()  # (as if it had just appeared, on this clock)
    return clock


def test_a_click_on_train_as_it_replaces_cancel_starts_no_run(qtbot):
    panel = TrainPanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    clock = _clocked(panel.train_button, panel.cancel_button)
    panel.set_files([resource_path("training.txt")])
    panel.set_model("bytelevel-bpe")
    panel.vocab_size.setValue(400)
    runs = []
    panel.trained.connect(runs.append)

    clock.later(QUIET_MS * 2)
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        qtbot.mouseClick(panel.train_button, LEFT)  # (long after it appeared: a real click)
        assert panel.is_training() and panel.train_button.isHidden()
    # the run has ended: Train is back where Cancel was, and the click meant for Cancel lands on it
    assert not panel.is_training() and panel.train_button.isVisible()
    clock.later(QUIET_MS / 4)
    qtbot.mouseClick(panel.train_button, LEFT)
    qtbot.keyClick(panel.train_button, Qt.Key.Key_Space)
    assert not panel.is_training() and click_guard(panel.train_button).ignored == 2
    qtbot.wait(100)
    assert len(runs) == 1

    clock.later(QUIET_MS)  # once the moment has passed, Train trains
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        qtbot.mouseClick(panel.train_button, LEFT)
        assert panel.is_training()
    assert len(runs) == 2
    panel.shutdown()


def _job_in(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    job = BackgroundJob(status=QLabel("idle", host), parent=host)
    job.progress_bar.setParent(host)
    job.cancel_button.setParent(host)
    host.show()
    return job, host


def test_a_cancel_button_that_just_appeared_ignores_a_click(qtbot):
    job, _host = _job_in(qtbot)
    clock = _clocked(job.cancel_button)
    started, outcomes = threading.Event(), []

    def work(cancel, progress):
        started.set()
        while not cancel.wait(0.01):
            pass
        raise Cancelled("cancelled")

    job.start(work, outcomes.append, on_cancelled=lambda: outcomes.append("cancelled"))
    assert started.wait(10) and job.cancel_button.isVisible()
    qtbot.mouseClick(job.cancel_button, LEFT)  # (a double-click on Run: its second click lands here)
    qtbot.wait(50)
    assert job.is_running() and outcomes == [] and click_guard(job.cancel_button).ignored == 1

    clock.later(QUIET_MS + 1)
    qtbot.mouseClick(job.cancel_button, LEFT)
    qtbot.waitUntil(lambda: bool(outcomes), timeout=10_000)
    assert outcomes == ["cancelled"] and not job.is_running()
    job.shutdown()


def test_a_token_click_queued_before_the_text_shrank_is_ignored(qtbot, make_window, default_tokenizer_path):
    from .helpers import wait_encoded

    long_text = "Tokenizers cut words into pieces. " * 20
    window = make_window(default_tokenizer_path, long_text)
    enc = wait_encoded(qtbot, window, long_text)
    stale = len(enc) - 1
    window.merges_dock.show()
    window.editor.setPlainText("short")
    wait_encoded(qtbot, window, "short")
    window.editor.moveCursor(window.editor.textCursor().MoveOperation.End)
    cursor = window.editor.textCursor().position()
    assert cursor == len("short")
    window.token_view.tokenClicked.emit(stale)
    window.token_view.tokenHovered.emit(stale)
    assert window.editor.textCursor().position() == cursor
    window.token_view.tokenClicked.emit(0)  # (a click on a token that is there still moves the cursor)
    assert window.editor.textCursor().position() == 0
