"""The UI thread goes first for the GIL.

While the UI thread handles an event, worker threads that run Python pause at their next call (at
most 20 ms at a time, then at least 4 ms of work: see tokviz/native/src/ui_gate.c).  Beside two
threads encoding with the Python pipeline, a paint of 3,000 words took 86 ms (median) and up to
108 ms; with the gate 18 ms and up to 20, as with no worker at all, and the workers did 17% less
work meanwhile (benchmarks/ui_gate.py, 2 cores).  The app's QApplication is a `GatedApplication`:
its `notify`, through which Qt hands every event to its receiver, says when the UI thread starts and
ends handling one.  Without the C module (not built) nothing pauses.
"""
from __future__ import annotations

from contextlib import contextmanager
from functools import partial

from PySide6.QtCore import QAbstractEventDispatcher
from PySide6.QtWidgets import QApplication

try:
    from ... import _uigate
except ImportError:
    _uigate = None

available = _uigate is not None


class GatedApplication(QApplication):
    """A QApplication during whose event handling the workers pause.  A nested event loop (a modal
    dialog's) that waits for events is idle too."""

    def __init__(self, argv: list[str]):
        super().__init__(argv)
        self._depth = 0
        self._dispatcher = QAbstractEventDispatcher.instance(self.thread())
        self._dispatcher.aboutToBlock.connect(partial(_uigate.set_busy, False))

    def notify(self, receiver, event) -> bool:
        self._depth += 1
        _uigate.set_busy(True)
        try:
            return super().notify(receiver, event)
        finally:
            self._depth -= 1
            _uigate.set_busy(self._depth > 0)


def application_class() -> type[QApplication]:
    """The QApplication class the app runs on: gated where the C module is built."""
    return GatedApplication if available else QApplication


def join_this_thread() -> None:
    """This worker thread pauses while the UI thread is busy (until `leave_this_thread`)."""
    if _uigate is not None:
        _uigate.join_this_thread()


def leave_this_thread() -> None:
    if _uigate is not None:
        _uigate.leave_this_thread()


@contextmanager
def ui_thread_waits():
    """Around a wait of the UI thread for workers: they run freely meanwhile (else a worker that
    pauses for the UI thread would make it wait longer)."""
    if _uigate is None or not _uigate.is_busy():
        yield
        return
    _uigate.set_busy(False)
    try:
        yield
    finally:
        _uigate.set_busy(True)
