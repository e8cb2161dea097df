"""Jobs on a worker with a progress bar and Cancel: what a person sees while one runs, when it is
cancelled and when another takes its place."""
from __future__ import annotations

import tokviz
from tokviz import defaults
from tokviz.gui.analyses.overlap_view import OverlapView


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


def _job(qtbot):
    """A BackgroundJob whose progress bar and Cancel button are shown in a widget, with a status label."""
    from PySide6.QtWidgets import QLabel, QWidget

    from tokviz.gui.work.jobs import BackgroundJob

    host = QWidget()
    qtbot.addWidget(host)
    status = QLabel("idle", host)
    job = BackgroundJob(status=status, parent=host)
    job.progress_bar.setParent(host)
    job.cancel_button.setParent(host)
    host.show()
    return job, status, host  # (the test holds `host`: the job and its widgets live as long)


def _waiting(gate, reached=None):
    """Work that reports half done, then waits for `gate` (or a cancel) and reports all done."""
    from tokviz.errors import Cancelled

    def work(cancel, progress):
        progress(1, 2)
        if reached is not None:
            reached.set()
        while not gate.wait(0.01):
            if cancel.is_set():
                raise Cancelled("cancelled")
        progress(2, 2)
        return "result"
    return work


def test_job_shows_progress_and_reports_its_result(qtbot):
    import threading

    job, status, _host = _job(qtbot)
    gate, outcomes, ended = threading.Event(), [], []
    job.ended.connect(lambda: ended.append(job.is_running()))
    job.start(_waiting(gate), outcomes.append, on_failed=outcomes.append, on_cancelled=lambda: outcomes.append("c"))
    assert job.is_running() and job.progress_bar.isVisible() and job.cancel_button.isVisible()
    qtbot.waitUntil(lambda: job.progress_bar.value() == 500, timeout=10_000)  # (1 of 2, per mille)
    gate.set()
    qtbot.waitUntil(lambda: bool(outcomes), timeout=10_000)
    assert outcomes == ["result"] and ended == [False] and status.text() == "idle"
    assert not job.is_running() and not job.progress_bar.isVisible() and not job.cancel_button.isVisible()
    job.shutdown()


def test_cancelled_job_says_cancelled_and_hides_its_progress(qtbot):
    import threading

    job, status, _host = _job(qtbot)
    gate, reached, outcomes = threading.Event(), threading.Event(), []
    job.start(_waiting(gate, reached), outcomes.append, on_failed=outcomes.append,
              on_cancelled=lambda: outcomes.append("cancelled"))
    assert reached.wait(10)
    job.cancel_button.click()
    qtbot.waitUntil(lambda: bool(outcomes), timeout=10_000)
    assert outcomes == ["cancelled"] and status.text() == "Cancelled."
    assert not job.progress_bar.isVisible() and not job.cancel_button.isVisible() and not job.is_running()
    job.shutdown()


def test_failed_job_reports_the_exception(qtbot):
    job, status, _host = _job(qtbot)
    outcomes = []

    def work(cancel, progress):
        raise ValueError("no such thing")

    job.start(work, outcomes.append, on_failed=outcomes.append, on_cancelled=lambda: outcomes.append("c"))
    qtbot.waitUntil(lambda: bool(outcomes), timeout=10_000)
    assert isinstance(outcomes[0], ValueError) and status.text() == "idle" and not job.progress_bar.isVisible()
    job.shutdown()


def test_a_replaced_or_abandoned_job_never_reports(qtbot):
    import threading

    job, status, _host = _job(qtbot)
    first_gate, second_gate, outcomes = threading.Event(), threading.Event(), []
    job.start(_waiting(first_gate), lambda r: outcomes.append(("first", r)),
              on_cancelled=lambda: outcomes.append("first cancelled"))
    job.start(_waiting(second_gate), lambda r: outcomes.append(("second", r)),
              on_cancelled=lambda: outcomes.append("second cancelled"))
    second_gate.set()
    qtbot.waitUntil(lambda: bool(outcomes) and not job.is_pending(), timeout=10_000)
    assert outcomes == [("second", "result")]

    outcomes.clear()
    job.start(_waiting(threading.Event()), outcomes.append, on_cancelled=lambda: outcomes.append("cancelled"))
    job.abandon()
    assert not job.is_running() and not job.progress_bar.isVisible() and not job.cancel_button.isVisible()
    qtbot.waitUntil(lambda: not job.is_pending(), timeout=10_000)
    qtbot.wait(50)
    assert outcomes == [] and status.text() == "idle"
    job.shutdown()
