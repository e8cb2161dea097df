"""Workers pause while the UI thread is busy (tokviz._uigate, gui/ui_gate.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from tokviz.gui.work import ui_gate

gate = pytest.importorskip("tokviz._uigate", reason="the C module tokviz._uigate is not built")


def step(n: int) -> int:
    return n + 1


class Spinner:
    """A thread running Python calls, joined to the gate or not; counts its steps."""

    def __init__(self, join: bool):
        self.steps = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, args=(join,), daemon=True)
        self.thread.start()

    def run(self, join: bool) -> None:
        if join:
            ui_gate.join_this_thread()
        try:
            while not self.stop:
                self.steps = step(self.steps)
        finally:
            ui_gate.leave_this_thread()

    def steps_during(self, seconds: float) -> int:
        before = self.steps
        time.sleep(seconds)
        return self.steps - before

    def end(self) -> None:
        self.stop = True
        self.thread.join(5)


@pytest.fixture
def idle_afterwards():
    yield
    gate.set_busy(False)


def test_a_joined_thread_pauses_while_the_ui_thread_is_busy(idle_afterwards):
    spinner = Spinner(join=True)
    try:
        idle = spinner.steps_during(0.3)
        pauses_before = gate.stats()[0]
        gate.set_busy(True)
        busy = spinner.steps_during(0.3)
        gate.set_busy(False)
        assert gate.stats()[0] > pauses_before
        assert busy < idle / 2  # (paused 20 ms for every 4 ms it runs)
        assert spinner.steps_during(0.1) > 0  # it runs again once the UI thread is idle
    finally:
        spinner.end()


def test_a_thread_that_left_or_never_joined_does_not_pause(idle_afterwards):
    spinner = Spinner(join=False)
    try:
        pauses_before = gate.stats()[0]
        gate.set_busy(True)
        assert spinner.steps_during(0.2) > 0
        assert gate.stats()[0] == pauses_before
    finally:
        spinner.end()


EVENT_LOOP_SCRIPT = r"""
import threading, time
from PySide6.QtCore import QEventLoop, QTimer
from tokviz import _uigate
from tokviz.gui.work.ui_gate import GatedApplication

app = GatedApplication(["gate-test"])
seen = {}

def watch(key, delay):
    time.sleep(delay)
    seen[key] = _uigate.is_busy()

def in_handler():
    seen["handler"] = _uigate.is_busy()
    nested = QEventLoop()  # (as a modal dialog's: blocked in it, the UI thread is idle)
    watcher = threading.Thread(target=watch, args=("nested loop blocked", 0.15))
    watcher.start()
    QTimer.singleShot(300, nested.quit)
    nested.exec()
    watcher.join()
    seen["handler after its nested loop"] = _uigate.is_busy()
    loop.quit()

loop = QEventLoop()
QTimer.singleShot(300, in_handler)
watcher = threading.Thread(target=watch, args=("loop blocked", 0.15))
watcher.start()
loop.exec()
watcher.join()
seen["after"] = _uigate.is_busy()
print(sorted(seen.items()))
"""


def test_the_ui_thread_is_busy_while_it_handles_an_event():
    """In the app's GatedApplication (a child process: the tests run on a plain QApplication)."""
    done = subprocess.run([sys.executable, "-c", EVENT_LOOP_SCRIPT], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == str(sorted({
        "loop blocked": False, "handler": True, "nested loop blocked": False,
        "handler after its nested loop": True, "after": False}.items()))


def test_a_wait_of_the_ui_thread_lets_the_workers_run(idle_afterwards):
    gate.set_busy(True)
    with ui_gate.ui_thread_waits():
        assert not gate.is_busy()
    assert gate.is_busy()


def test_a_thread_that_ended_without_leaving_is_forgotten():
    """The gate never touches the state of a thread that is gone (in a child: a crash must not take
    the test run down)."""
    script = (
        "import threading, time\n"
        "from tokviz import _uigate as g\n"
        "threads = [threading.Thread(target=g.join_this_thread) for _ in range(50)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "junk = [bytearray(4096) for _ in range(10000)]\n"
        "for _ in range(100): g.set_busy(True); g.set_busy(False)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
