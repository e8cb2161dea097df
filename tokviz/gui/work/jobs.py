"""A long job on a worker shown by a progress bar and a Cancel button: the lifecycle the analysis
views share (the Fairness, Robustness and Overlap pages, the Statistics view, the Merges panel's
health check, the Vocabulary view's health filter and the Round trip panel).

>>> job = BackgroundJob(status=label, parent=view)     # layout: job.progress_bar, job.cancel_button
>>> job.start(lambda cancel, progress: measure(progress=progress, cancel=cancel), show_result,
...           on_failed=show_error, on_cancelled=view.cancelled.emit)
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QAbstractButton, QLabel, QProgressBar, QPushButton

from ...errors import Cancelled
from ..widgets.click_guard import guard_clicks
from .workers import TaskRunner

Progress = Callable[[int, int], None]  # progress(done, total), called on the worker


class BackgroundJob(QObject):
    """Runs `work(cancel, progress)` on a thread of its own, one job at a time.

    While a job runs, `progress_bar` and `cancel_button` show (the bar polls what the worker last
    reported every `interval_ms`; `timer` ticks then, for views that show more).  When it ends, both
    hide, `ended` is emitted, then one of `on_done(result)`, `on_failed(exc)` or, after `status`
    says "Cancelled.", `on_cancelled()` is called.  A job replaced by `start` or `abandon` never
    reports."""

    ended = Signal()

    def __init__(self, *, status: QLabel | None = None, cancel_button: QAbstractButton | None = None,
                 interval_ms: int = 50, parent: QObject | None = None):
        super().__init__(parent)
        self.status = status
        self.runner = TaskRunner(1, self)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.hide()
        self.cancel_button = cancel_button if cancel_button is not None else QPushButton()
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        guard_clicks(self.cancel_button)  # (it appears beside or in place of the button that started the job)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(lambda: self.progress_bar.setValue(self._done[0]))
        self._done = [0]  # the running job's progress in steps of the bar, written by its worker
        self._cancel: threading.Event | None = None
        self._id = 0

    def start(self, work: Callable[[threading.Event, Progress], Any], on_done: Callable[[Any], None], *,
              on_failed: Callable[[BaseException], None] | None = None,
              on_cancelled: Callable[[], None] | None = None) -> None:
        """Cancel the running job (it never reports) and run `work(cancel, progress)` instead."""
        self.cancel()
        self._id += 1
        job = self._id
        cancel = self._cancel = threading.Event()
        done_cell = self._done = [0]
        steps = self.progress_bar.maximum()  # (read here: the worker must not touch widgets)

        def progress(done: int, total: int) -> None:
            done_cell[0] = steps if total <= 0 else min(steps, done * steps // total)

        def done(result) -> None:
            if job == self._id:
                self._end()
                on_done(result)

        def failed(exc: BaseException) -> None:
            if job != self._id:
                return
            self._end()
            if isinstance(exc, Cancelled):
                if self.status is not None:
                    self.status.setText(self.tr("Cancelled."))
                if on_cancelled is not None:
                    on_cancelled()
            elif on_failed is not None:
                on_failed(exc)

        self.progress_bar.setValue(0)
        self.progress_bar.show()
        self.cancel_button.show()
        self.timer.start()
        self.runner.submit(lambda: work(cancel, progress), done, failed)

    def cancel(self) -> None:
        """Ask the running job to stop: it reports as cancelled."""
        if self._cancel is not None:
            self._cancel.set()

    def abandon(self) -> None:
        """Stop the running job and never report it; its progress bar and Cancel go at once."""
        self.cancel()
        self._id += 1
        if self._cancel is not None:
            self._end()

    def is_running(self) -> bool:
        """From `start` until the job has ended (reported, or abandoned)."""
        return self._cancel is not None

    def is_pending(self) -> bool:
        """A job's work is queued, running, or its outcome on its way (even one abandoned)."""
        return self.runner.pending() > 0

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Abandon the running job and wait for its worker (before the application quits)."""
        self.abandon()
        return self.runner.shutdown(timeout_ms)

    def _end(self) -> None:
        self._cancel = None
        self.timer.stop()
        self.progress_bar.hide()
        self.cancel_button.hide()
        self.ended.emit()
