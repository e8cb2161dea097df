"""The soak script (benchmarks/soak.py) in small: a few tokenizers, a small text, two cycles of
everything it does (train and cancel, compare, docks, edits); once the window is idle again no
worker thread, file descriptor, QObject or tokenizer is left behind, and nothing failed."""
from __future__ import annotations

import importlib.util
import sys
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import QThreadPool

from .helpers import SHARED

SOAK_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"


@pytest.fixture(scope="module")
def soak():
    if not (SHARED / "corpus").is_dir():
        pytest.skip("the shared corpus is absent")
    spec = importlib.util.spec_from_file_location("tokviz_soak", SOAK_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.mark.shared
@pytest.mark.slow
def test_soak_cycles_leave_nothing_behind(qtbot, make_window, tmp_path, soak):
    catcher = soak.ErrorCatcher()
    plan = soak.Plan(tmp_path, tokenizers=4, compare_bytes=40_000, panes=3, shared_tokenizers=False,
                     cancel_corpus=[SHARED / "corpus" / "en.txt"], finish_every=2, wait_s=60,
                     stats_corpus=[SHARED / "corpus" / "en.txt"])
    window = make_window(soak.REPO / "resources" / "tokviz-demo.model", "A first text.", error_handler=catcher.dialog)
    catcher.install()
    try:
        driver = soak.Soak(window, plan, catcher, log=lambda _message: None)
        driver.open_tokenizers()
        driver.open_text()
        driver.compare_all()
        driver.cycle()  # (warm-up: every path has run once)
        driver.settle()
        start = soak.take_sample(window, 0, driver.cycles, "start", driver.tokenizers_seen)
        driver.cycle()
        driver.cycle()
        driver.settle()
        end = soak.take_sample(window, 0, driver.cycles, "end", driver.tokenizers_seen)
    finally:
        catcher.uninstall()
    assert not catcher.errors
    assert driver.counts["training cancelled"] + driver.counts["training finished"] >= 3
    assert driver.counts["training finished: " + soak.TRAIN_MODELS[1]] == 1  # (cycle 2 trains to the end)
    assert driver.counts["compare"] >= 6 and driver.counts["statistics cancelled"] == 3
    # what the soak checks over ten minutes, after two cycles
    assert end.native_threads <= start.native_threads, "a worker thread outlived its job"
    assert end.py_threads <= start.py_threads
    assert end.fds <= start.fds, "a file was left open"
    assert end.pool_active == 0
    assert end.qobjects <= start.qobjects + 5
    # what was loaded, trained and dropped is freed: the panes', the explorer's and the last trained one live
    alive = soak.alive_names(driver.tokenizers_seen)
    assert end.tokenizers_alive <= plan.panes + 2, f"{end.tokenizers_alive} tokenizers still alive: {alive}"
    assert soak.verdict(start, end, [start, end], catcher.errors, soak.Limits(rss_mb=200)) == []


def test_a_finished_task_lets_go_of_its_work(qtbot):
    """A TaskRunner's task, once reported, no longer holds its callable (nor what that holds)."""
    from tokviz.gui.work.workers import TaskRunner

    class Payload:
        pass

    runner = TaskRunner(2)
    refs, results = [], []
    for _ in range(10):
        payload = Payload()
        refs.append(weakref.ref(payload))
        runner.submit(lambda p=payload: id(p), results.append)
        del payload
    qtbot.waitUntil(lambda: len(results) == 10 and runner.pending() == 0, timeout=10_000)
    assert runner.pool.waitForDone(5000) and QThreadPool.globalInstance().waitForDone(5000)
    import gc

    gc.collect()
    assert sum(r() is not None for r in refs) == 0
    runner.shutdown()


def test_a_task_that_has_run_holds_nothing_of_its_work(qtbot):
    """PySide may keep a finished task's Python side for a while: it must not keep the work's
    closure (and its tokenizer and text) alive meanwhile."""
    from tokviz.gui.work.workers import _Relay, _Task

    class Payload:
        pass

    relay, reported = _Relay(), []
    relay.finished.connect(lambda task_id, outcome: reported.append((task_id, outcome[0])))
    for is_current in (None, lambda: True, lambda: False):
        payload = Payload()
        ref = weakref.ref(payload)
        task = _Task(7, lambda p=payload: id(p), relay, is_current)
        del payload
        task.run()  # (here, on the test's thread)
        assert ref() is None and task.fn is None and task.is_current is None
    assert reported == [(7, "ok"), (7, "ok"), (7, "skipped")]
