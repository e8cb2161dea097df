"""Loading and encoding off the UI thread: results by signal, debounce, stale results dropped."""
from __future__ import annotations

import sys
import threading

import pytest

import tokviz
from tokviz.gui.workers import EncodeController, TaskRunner


@pytest.fixture
def controller(qtbot):
    c = EncodeController(debounce_ms=150)
    yield c
    c.shutdown()


@pytest.fixture
def demo_tokenizer(default_tokenizer_path):
    return tokviz.load(default_tokenizer_path)


def test_load_runs_on_a_worker_and_reports_by_signal(qtbot, controller, default_tokenizer_path):
    with qtbot.waitSignal(controller.tokenizerLoaded, timeout=30_000) as blocker:
        controller.load_tokenizer(default_tokenizer_path)
        assert controller.is_busy()
    result = blocker.args[0]
    assert result.tokenizer.vocab_size == tokviz.load(default_tokenizer_path).vocab_size
    assert controller.tokenizer is result.tokenizer


def test_encoding_happens_off_the_ui_thread(qtbot, controller, demo_tokenizer):
    threads = []
    original = demo_tokenizer.encode

    def spy(text, **kw):
        threads.append(threading.current_thread())
        return original(text, **kw)

    demo_tokenizer.encode = spy
    controller.set_text("hello world")
    with qtbot.waitSignal(controller.encoded, timeout=30_000) as blocker:
        controller.set_tokenizer(demo_tokenizer)
    assert blocker.args[0].encoding.ids == original("hello world").ids
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_typing_is_debounced_and_only_the_last_text_is_delivered(qtbot, controller, demo_tokenizer):
    controller.set_tokenizer(demo_tokenizer)
    qtbot.waitUntil(controller.is_up_to_date)
    delivered = []
    controller.encoded.connect(lambda r: delivered.append(r.text))
    for i in range(1, 6):
        controller.set_text("abcde"[:i])  # no event loop between the keystrokes
    assert controller.is_busy()
    qtbot.waitUntil(controller.is_up_to_date, timeout=30_000)
    assert delivered == ["abcde"]


def test_stale_results_are_discarded(qtbot, controller, demo_tokenizer):
    controller.set_tokenizer(demo_tokenizer)
    qtbot.waitUntil(controller.is_up_to_date)
    delivered = []
    controller.encoded.connect(lambda r: delivered.append((r.generation, r.text)))
    controller.set_text("first text", immediate=True)  # queued on the worker now...
    controller.set_text("second text", immediate=True)  # ...and superseded before it can report
    qtbot.waitUntil(controller.is_up_to_date, timeout=30_000)
    assert delivered and delivered[-1][1] == "second text"
    assert all(text == "second text" for _, text in delivered)
    assert controller.last_result.generation == controller.generation


def test_an_older_load_never_replaces_a_newer_one(qtbot, controller, default_tokenizer_path):
    from .helpers import shared_tokenizer

    qwen = shared_tokenizer("qwen2.5/tokenizer.json")
    loaded = []
    controller.tokenizerLoaded.connect(lambda r: loaded.append(r.path))
    controller.load_tokenizer(qwen)  # slow (~0.4 s)
    controller.load_tokenizer(default_tokenizer_path)  # fast, requested last: it wins
    qtbot.waitUntil(lambda: not controller.is_busy(), timeout=30_000)
    assert loaded == [str(default_tokenizer_path)]
    assert controller.tokenizer.source.name == "tokviz-demo"


def test_load_errors_come_back_as_signals(qtbot, controller, tmp_path):
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("not base64 at all !!\n", encoding="utf-8")
    with qtbot.waitSignal(controller.loadFailed, timeout=30_000) as blocker:
        controller.load_tokenizer(bad)
    path, reason = blocker.args
    assert path.endswith("bad.tiktoken") and reason
    assert controller.tokenizer is None and not controller.is_busy()


def test_encode_errors_come_back_as_signals(qtbot, controller, demo_tokenizer):
    controller.set_tokenizer(demo_tokenizer)
    qtbot.waitUntil(controller.is_up_to_date)
    with qtbot.waitSignal(controller.encodeFailed, timeout=30_000) as blocker:
        controller.set_text("lone surrogate \ud800 here", immediate=True)
    assert "surrogate" in blocker.args[0]
    qtbot.waitUntil(controller.is_up_to_date)


def test_task_runner_reports_results_and_errors_on_the_ui_thread(qtbot):
    runner = TaskRunner(2)
    results, errors, threads = [], [], []

    def record(value):
        threads.append(threading.current_thread())
        results.append(value)

    runner.submit(lambda: 6 * 7, record, errors.append)
    runner.submit(lambda: 1 / 0, record, errors.append)
    runner.submit(lambda: "never", record, errors.append, is_current=lambda: False)
    qtbot.waitUntil(lambda: runner.pending() == 0, timeout=30_000)
    assert results == [42]
    assert len(errors) == 1 and isinstance(errors[0], ZeroDivisionError)
    assert threads == [threading.main_thread()]
    runner.shutdown()


def test_qt_calls_keep_none_alive(qtbot):
    """PySide6 6.12.0 drops a reference to None on every void call, which kills Python 3.11 after a
    few thousand calls; pyproject.toml excludes it. This fails (or crashes) on such a binding."""
    from PySide6.QtWidgets import QWidget

    w = QWidget()
    qtbot.addWidget(w)
    before = sys.getrefcount(None)
    for _ in range(20_000):
        w.update()
    runner = TaskRunner(2)
    for _ in range(2000):
        runner.submit(lambda: None)
    qtbot.waitUntil(lambda: runner.pending() == 0, timeout=60_000)
    runner.shutdown()
    assert sys.getrefcount(None) > before - 1000


def test_pool_threads_leave_no_dummy_thread_in_threading(qtbot):
    """A task that starts Python threads (a ThreadPoolExecutor, as the trainers do) makes threading
    register the pool thread; that entry must not outlive the task (CPython < 3.13 keeps it after
    the thread ends, so every pool thread that ever trained would stay listed)."""
    from concurrent.futures import ThreadPoolExecutor

    def work():
        with ThreadPoolExecutor(2) as pool:
            return sum(pool.map(abs, range(-5, 5)))

    runner = TaskRunner(max_threads=2)
    before = threading.active_count()
    results = []
    for _ in range(6):
        runner.submit(work, results.append)
    qtbot.waitUntil(lambda: len(results) == 6, timeout=10_000)
    assert results == [25] * 6
    assert runner.pool.waitForDone(5_000)  # (the pool's threads end)
    assert threading.active_count() == before
    runner.shutdown()
