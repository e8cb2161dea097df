"""Work off the UI thread: loading tokenizers and encoding text on a QThreadPool.

Two layers:

* `TaskRunner` runs plain Python callables on its own QThreadPool and calls back on the UI
  thread.  Every task reports exactly once, through one long-lived relay QObject that belongs to
  the runner (so no per-task QObject can die while a queued signal is still on its way).  A task
  can be given an ``is_current`` predicate: when it is no longer current by the time a thread
  picks it up, it is skipped instead of run.  Later views (stats, vocab, training) reuse it.
* `EncodeController` is the explorer's pipeline: it owns the current tokenizer and text, loads
  (and prepares) tokenizers on a worker and encodes on a worker: on every change while updates are
  cheap, one encode at a time with the changes made meanwhile coalesced into the next one (never
  starving steady typing); long or costly texts debounced with a maximum wait.  Every change of text, tokenizer or
  options bumps a generation counter; a result from before a change of tokenizer or options is
  discarded.

Errors never escape to Qt: they come back as signals (`loadFailed(path, reason)`,
`encodeFailed(reason)`) and the window decides how to show them.
"""
from __future__ import annotations

import gc
import itertools
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThread, QThreadPool, QTimer, Signal, Slot

from ...core import Encoding, Tokenizer
from ...core.token_array import TokenArrayBuilder, encode_to_array
from ...errors import Cancelled, TokvizError
from ..window.open_tokenizers import open_tokenizer
from ..platform import lower_this_thread
from .ui_gate import join_this_thread, leave_this_thread, ui_thread_waits
from ..views.token_view import TokenView
from ..widgets.messages import show

# Texts up to LIVE_CHARS characters are encoded on every change while showing the last results took
# the UI thread under LIVE_BUDGET_MS and encoding them the worker under LIVE_ENCODE_MS (each smoothed;
# see EncodeController); others after DEBOUNCE_MS of quiet, or MAX_WAIT_MS after their first change
# not yet encoded.  (An encode under DEBOUNCE_MS shows a key sooner live than the debounce would.)
LIVE_CHARS = 256 * 1024
LIVE_BUDGET_MS = 30.0
LIVE_ENCODE_MS = 150.0
DEBOUNCE_MS = 150
MAX_WAIT_MS = 400
# A text longer than this is encoded into a TokenArray (arrays, piece by piece) rather than an
# Encoding with Python objects per token: a megabyte would otherwise be millions of small objects
# that live while it is shown and leave Python's allocator fragmented once freed.
COMPACT_CHARS = 64 * 1024


# ---- generic task runner ------------------------------------------------------------------------


class _Relay(QObject):
    """Carries (task id, outcome) from a worker thread to the UI thread (queued connection)."""

    finished = Signal(int, object)


class _Task(QRunnable):
    def __init__(self, task_id: int, fn: Callable[[], Any], relay: _Relay, is_current: Callable[[], bool] | None,
                 *, background: bool = False):
        super().__init__()
        # The pool deletes the task once it has run; until PySide lets go of the Python side (not
        # always at once) it must not hold the work's closure, tokenizer and text: run() drops them.
        self.setAutoDelete(True)
        self.task_id = task_id
        self.fn = fn
        self.relay = relay
        self.is_current = is_current
        self.background = background

    def run(self) -> None:  # on a pool thread
        if self.background and not lower_this_thread():
            QThread.currentThread().setPriority(QThread.Priority.LowPriority)  # (elsewhere than Linux)
        fn, is_current = self.fn, self.is_current
        self.fn = self.is_current = None
        join_this_thread()
        try:
            if is_current is not None and not is_current():
                outcome = ("skipped", None)
            else:
                try:
                    outcome = ("ok", fn())
                except Exception as exc:  # reported to the UI thread, never raised into Qt
                    outcome = ("error", exc, traceback.format_exc())
        finally:
            leave_this_thread()
        del fn, is_current
        _forget_dummy_thread()
        try:
            self.relay.finished.emit(self.task_id, outcome)
        except RuntimeError:  # the runner was deleted while we worked (application exit)
            pass


def _forget_dummy_thread() -> None:
    """Drop the `threading._DummyThread` entry of this pool thread, if the task made one.

    A thread Python did not start gets a `threading._DummyThread` entry the first time code on it
    asks for the current thread (creating a ThreadPoolExecutor does, in the trainers), and CPython
    before 3.13 (python/cpython#114423) keeps that entry after the thread has ended: one more for
    every pool thread that ever trained, for the whole session.  The next task on this thread makes
    a new one if needed."""
    active, lock, dummy = (getattr(threading, name, None) for name in ("_active", "_active_limbo_lock", "_DummyThread"))
    if active is None or lock is None or dummy is None:
        return
    ident = threading.get_ident()
    with lock:
        if isinstance(active.get(ident), dummy):
            del active[ident]


class TaskRunner(QObject):
    """Run callables on a private thread pool; `on_done(result)` / `on_error(exc)` run on the UI thread.

    Its threads run below the UI thread's CPU priority (`platform.lower_this_thread`), unless it is
    a `foreground` runner: the explorer's, whose result the user is waiting for after a keystroke."""

    taskFinished = Signal()  # after every task has reported (done, failed or skipped)

    def __init__(self, max_threads: int = 1, parent: QObject | None = None, *, foreground: bool = False):
        super().__init__(parent)
        self.foreground = foreground
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._on_finished)
        self._ids = itertools.count(1)
        self._tasks: dict[int, tuple[Callable | None, Callable | None]] = {}  # id -> (on_done, on_error)
        self._closed = False

    def submit(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        is_current: Callable[[], bool] | None = None,
    ) -> int:
        """Queue `fn()`; returns a task id.  Nothing is called back for a task skipped as stale."""
        if self._closed:
            raise RuntimeError("TaskRunner is shut down")
        task_id = next(self._ids)
        self._tasks[task_id] = (on_done, on_error)
        self.pool.start(_Task(task_id, fn, self._relay, is_current, background=not self.foreground))
        return task_id

    def pending(self) -> int:
        """Tasks submitted and not yet reported back (running, queued, or result in flight)."""
        return len(self._tasks)

    @Slot(int, object)
    def _on_finished(self, task_id: int, outcome: tuple) -> None:
        entry = self._tasks.pop(task_id, None)
        if entry is None or self._closed:
            return
        on_done, on_error = entry
        kind = outcome[0]
        try:
            if kind == "ok" and on_done is not None:
                on_done(outcome[1])
            elif kind == "error":
                exc, tb = outcome[1], outcome[2]
                if not isinstance(exc, (TokvizError, Cancelled)):  # (expected: no traceback)
                    print(tb, file=sys.stderr, end="")
                if on_error is not None:
                    on_error(exc)
        finally:
            self.taskFinished.emit()

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Stop calling back, drop queued tasks and wait for running ones.  True if all finished."""
        self._closed = True
        self.pool.clear()
        with ui_thread_waits():
            return self.pool.waitForDone(timeout_ms)


# ---- the explorer's encode pipeline ------------------------------------------------------------


@dataclass(frozen=True)
class LoadResult:
    """A tokenizer loaded and prepared (`Tokenizer.prepare`) on a worker: `seconds` is the whole
    wait, `prepare_seconds` the part spent building what its first encode would otherwise build."""

    generation: int
    path: str
    tokenizer: Tokenizer
    seconds: float
    prepare_seconds: float = 0.0


@dataclass(frozen=True)
class EncodeResult:
    """An encoding of `text`.  While someone types it may be for a text a few keystrokes behind
    the controller's (`generation` < `EncodeController.generation`): the newest one follows."""

    generation: int
    tokenizer: Tokenizer
    text: str
    encoding: Encoding
    seconds: float


def describe_error(exc: BaseException) -> str:
    """The reason to show a person: a TokvizError's reason (a Message from the layers without Qt shown
    in the app's language), else the exception type and message."""
    if isinstance(exc, TokvizError):
        return show(exc.reason)
    return QCoreApplication.translate("describe_error", "{kind}: {message}").format(kind=type(exc).__name__,
                                                                                   message=exc)


def error_text(exc: BaseException) -> str:
    """str(exc) as the app shows it: a TokvizError's "path: reason" with the reason in the app's
    language (`describe_error` for the rest, and for a TokvizError without a path)."""
    if isinstance(exc, TokvizError) and exc.path:
        return QCoreApplication.translate("describe_error", "{path}: {reason}").format(path=exc.path,
                                                                                      reason=show(exc.reason))
    return describe_error(exc)


def _smoothed(previous_ms: float, ms: float) -> float:
    return ms if not previous_ms else 0.7 * previous_ms + 0.3 * ms


class EncodeController(QObject):
    """Owns the current tokenizer and text and keeps an up-to-date Encoding of them, off the UI thread.

    As an editor does it: a text of up to `live_chars` characters is encoded on every change, at
    once, as long as showing recent results (the `encoded` slots, on the UI thread) took under
    `live_budget_ms` and encoding them (on the worker) under `live_encode_ms`, each smoothed.  One
    encode runs at a time; changes made meanwhile are coalesced, and when it
    ends the newest text is encoded next, so steady typing shows a result every encode's time and the
    last keystroke's result always arrives.  A longer text, or one whose updates cost more, is
    encoded after `debounce_ms` of quiet, or `max_wait_ms` after its first change not yet encoded,
    whichever comes first.  Results come in
    order; one whose tokenizer or options changed since it was started is dropped.

    >>> c = EncodeController()
    >>> c.encoded.connect(lambda r: print(len(r.encoding)))
    >>> c.load_tokenizer("tokenizer.json"); c.set_text("hello")   # results arrive by signal
    """

    loadStarted = Signal(str)  # path
    tokenizerLoaded = Signal(object)  # LoadResult
    loadFailed = Signal(str, str)  # path, reason
    encodeStarted = Signal()
    encoded = Signal(object)  # EncodeResult
    encodeFailed = Signal(str)  # reason
    busyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None, *, debounce_ms: int = DEBOUNCE_MS,
                 max_wait_ms: int = MAX_WAIT_MS, live_chars: int = LIVE_CHARS,
                 live_budget_ms: float = LIVE_BUDGET_MS, live_encode_ms: float = LIVE_ENCODE_MS):
        super().__init__(parent)
        self._encoder = TaskRunner(1, self, foreground=True)
        self._loader = TaskRunner(2, self, foreground=True)
        self._timer = QTimer(self)  # the debounce of long texts
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._request)
        self._debounce_ms = debounce_ms
        self._max_wait_ms = max_wait_ms
        self._live_chars = live_chars
        self._live_budget_ms = live_budget_ms
        self._live_encode_ms = live_encode_ms
        # recent results' time on the UI thread (showing them) and on the worker (encoding them),
        # smoothed; 0 after a new setup
        self.last_show_ms = 0.0
        self.last_encode_ms = 0.0
        self._waiting_since = 0.0  # when the debounce of the current burst of changes began
        self._encoder.taskFinished.connect(self._update_busy)
        self._loader.taskFinished.connect(self._update_busy)
        self._tokenizer: Tokenizer | None = None
        self._tokenizer_path: str | None = None
        self._text = ""
        self._add_special = False
        self._allow_special: bool | None = None  # match special-token strings in text; None: the format's way
        self._generation = 0  # bumped by every change of text, tokenizer or options
        self._setup = 0  # bumped by every change of tokenizer or options: older results are wrong
        self._load_generation = 0  # bumped by every load request: only the newest load applies
        self._failed_generation = -1
        self._running: int | None = None  # generation of the encode in progress
        self._delivered = -1  # generation of the last result emitted
        self._busy = False
        self.encodes_started = 0
        self.last_result: EncodeResult | None = None

    # -- state ------------------------------------------------------------------------------
    @property
    def tokenizer(self) -> Tokenizer | None:
        return self._tokenizer

    @property
    def tokenizer_path(self) -> str | None:
        return self._tokenizer_path

    @property
    def text(self) -> str:
        return self._text

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def add_special_tokens(self) -> bool:
        return self._add_special

    def is_loading(self) -> bool:
        return self._loader.pending() > 0

    def is_busy(self) -> bool:
        """True while a load, a debounce or an encode is under way."""
        return self.is_loading() or self._timer.isActive() or self._running is not None

    def is_up_to_date(self) -> bool:
        """Idle, and the last result is for the current tokenizer and text (or there is no tokenizer)."""
        if self.is_busy():
            return False
        if self._tokenizer is None:
            return True
        r = self.last_result
        return (r is not None and r.generation == self._generation) or self._failed_generation == self._generation

    # -- requests ---------------------------------------------------------------------------
    def set_text(self, text: str, *, immediate: bool = False) -> None:
        """New text: encoded now if updates are cheap (or with `immediate`), else after the debounce."""
        if text == self._text and not immediate:
            return
        self._text = text
        self._generation += 1
        if immediate or self.is_live(len(text)):
            self._request()
        else:
            now = time.monotonic()
            if not self._timer.isActive():
                self._waiting_since = now
            left_ms = self._max_wait_ms - (now - self._waiting_since) * 1000
            self._timer.start(int(max(0.0, min(self._debounce_ms, left_ms))))
            self._update_busy()

    def is_live(self, chars: int) -> bool:
        """Whether a text of `chars` characters is encoded on every change rather than debounced."""
        return (chars <= self._live_chars and self.last_show_ms < self._live_budget_ms
                and self.last_encode_ms < self._live_encode_ms)

    @property
    def allow_special(self) -> bool | None:
        return self._allow_special

    def set_allow_special(self, allow: bool | None) -> None:
        """Whether special-token strings typed in the text become special tokens (None: what the
        tokenizer's format does: yes for HF tokenizers, no for tiktoken and sentencepiece)."""
        if allow != self._allow_special:
            self._allow_special = allow
            self._changed_setup()

    def set_add_special_tokens(self, on: bool) -> None:
        if on != self._add_special:
            self._add_special = on
            self._changed_setup()

    def set_tokenizer(self, tokenizer: Tokenizer | None, path: str | None = None) -> None:
        """Use `tokenizer` from now on and encode the current text with it at once."""
        if tokenizer is not None:
            # A tokenizer's tables (vocab, merges, caches) are millions of long-lived objects; left
            # in the collector's generations, every full collection walks them all (25+ ms on the
            # UI thread while a worker allocates).  Freezing moves what exists now out of its way;
            # frozen objects are still freed by reference counting when the tokenizer is dropped.
            gc.freeze()
        self._tokenizer = tokenizer
        self._tokenizer_path = path if path is not None else (tokenizer.source.path if tokenizer else None)
        self._changed_setup()

    def _changed_setup(self) -> None:
        self.last_show_ms = self.last_encode_ms = 0.0  # (another tokenizer or options: costs not known yet)
        self._setup += 1
        self._generation += 1
        self._request()

    def load_tokenizer(self, path: str | os.PathLike, loader: Callable[[], Tokenizer] | None = None) -> None:
        """Load a tokenizer file/folder on a worker and prepare it there (`Tokenizer.prepare`: the
        first encode is then as fast as later ones); `tokenizerLoaded` or `loadFailed` follows.
        `loader()`, when given, does the loading instead (a file that needs more than its path,
        such as a tiktoken cache file named by a hash)."""
        path = os.fspath(Path(path).expanduser())
        self._load_generation += 1
        gen = self._load_generation
        self.loadStarted.emit(path)

        def work() -> LoadResult:
            t0 = time.perf_counter()
            tok = loader() if loader is not None else open_tokenizer(path)
            t1 = time.perf_counter()
            if gen == self._load_generation:  # (not for a load a newer request has replaced)
                tok.prepare()
            t2 = time.perf_counter()
            return LoadResult(gen, path, tok, t2 - t0, t2 - t1)

        def done(result: LoadResult) -> None:
            if result.generation == self._load_generation:  # a newer load request wins
                self.set_tokenizer(result.tokenizer, result.path)
                self.tokenizerLoaded.emit(result)

        def failed(exc: BaseException) -> None:
            if gen == self._load_generation:
                where = exc.path if isinstance(exc, TokvizError) and exc.path else path
                self.loadFailed.emit(where, describe_error(exc))

        self._loader.submit(work, done, failed, is_current=lambda: gen == self._load_generation)
        self._update_busy()

    def encode_now(self) -> None:
        """Encode the current text with the current tokenizer without waiting for the debounce."""
        self._request()

    def _request(self) -> None:
        """Start an encode of the current state, or, while one runs, leave it for when it ends."""
        self._timer.stop()
        if self._running is None:
            self._start()
        self._update_busy()

    def _start(self) -> None:
        tok, text, special, gen = self._tokenizer, self._text, self._add_special, self._generation
        allow, setup = self._allow_special, self._setup
        if tok is None:
            return

        def work() -> EncodeResult:
            t0 = time.perf_counter()
            if len(text) > COMPACT_CHARS:
                enc = encode_to_array(tok, text, add_special_tokens=special, allow_special=allow)
                seconds = time.perf_counter() - t0
                enc.prepare_blocks(TokenView.BLOCK_TOKENS)
            else:
                enc = tok.encode(text, add_special_tokens=special, allow_special=allow)
                seconds = time.perf_counter() - t0
            return EncodeResult(gen, tok, text, enc, seconds)

        def done(result: EncodeResult) -> None:
            self._finished()  # (the next encode starts first: it runs while this one is shown)
            if setup == self._setup and gen > self._delivered:
                self._delivered = gen
                self.last_result = result
                t0 = time.perf_counter()
                self.encoded.emit(result)
                # (smoothed: one slow update, a collection or a busy moment, does not end live typing)
                self.last_show_ms = _smoothed(self.last_show_ms, (time.perf_counter() - t0) * 1000)
                self.last_encode_ms = _smoothed(self.last_encode_ms, result.seconds * 1000)

        def failed(exc: BaseException) -> None:
            self._finished()
            if gen == self._generation:
                self._failed_generation = gen
                self.encodeFailed.emit(describe_error(exc))

        self._running = gen
        self.encodes_started += 1
        self.encodeStarted.emit()
        self._encoder.submit(work, done, failed)

    def _finished(self) -> None:
        ran, self._running = self._running, None
        if ran != self._generation and not self._timer.isActive():
            self._start()  # what changed while it ran (a debounced long text waits for its timer)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop timers and wait for workers (call before the application quits)."""
        self._timer.stop()
        self._encoder.shutdown(timeout_ms)
        self._loader.shutdown(timeout_ms)

    def _update_busy(self) -> None:
        busy = self.is_busy()
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)


# ---- encoding a whole (big) file ----------------------------------------------------------------


@dataclass(frozen=True)
class FileEncodeResult:
    """A file encoded by `FileEncodeJob`: `tokens` is a TokenArray of its text and every token
    (ids, offsets), laid-out blocks prepared; `ids` the ids alone.  After a cancel, `complete` is
    False and both hold what was encoded up to there (`bytes` of the file)."""

    path: str
    tokenizer: Tokenizer
    tokens: Any
    chars: int
    bytes: int
    seconds: float
    complete: bool = True

    @property
    def ids(self):
        return self.tokens.ids


class _FileRelay(QObject):
    progressed = Signal(int, int, int)  # job id, bytes done, total


class FileEncodeJob(QObject):
    """Encodes a file of any size with `tokviz.core.streaming.encode_file` on a worker thread.

    One job at a time: `start(tokenizer, path)` cancels a running one first (its outcome is never
    reported).  Signals, all on the UI thread:

    * `progressed(bytes_done, total)` at most every PROGRESS_MS,
    * then exactly one of `finished(FileEncodeResult)`, `cancelled(bytes_done, total)` after
      `cancel()` (`partial` then holds a FileEncodeResult of what was encoded), or
      `failed(reason)` (unreadable or non-UTF-8 file, with the byte offset).

    The worker encodes ~8 KB pieces and checks the cancel flag between them, so it gives the GIL
    back to the UI thread often and stops within a piece's time (tens of milliseconds) of `cancel()`.
    The result is the whole text with a TokenArray of its tokens (13 bytes a token) and the
    token view's layout blocks, all prepared on the worker."""

    progressed = Signal(int, int)
    finished = Signal(object)
    cancelled = Signal(int, int)
    failed = Signal(str)

    PROGRESS_MS = 50
    PIECE_CHARS = 8 * 1024
    CHUNK_BYTES = 256 * 1024
    BLOCK_TOKENS = TokenView.BLOCK_TOKENS

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._runner = TaskRunner(1, self)
        self._relay = _FileRelay(self)
        self._relay.progressed.connect(self._on_progress)
        self._job = 0
        self._cancel = None  # threading.Event of the running job
        self._running = False
        self.bytes_done = 0
        self.total_bytes = 0
        self.partial: FileEncodeResult | None = None  # what a cancelled job had encoded

    def is_running(self) -> bool:
        return self._running

    def start(self, tokenizer: Tokenizer, path: str | os.PathLike) -> None:
        import threading

        from ...core.streaming import Cancelled, encode_file

        self.cancel()
        self._job += 1
        job = self._job
        self.partial = None
        cancel = self._cancel = threading.Event()
        path = os.fspath(path)
        self._running = True
        self.bytes_done, self.total_bytes = 0, 0
        relay = self._relay

        def work():
            t0 = time.perf_counter()
            last = [0.0]

            def progress(done: int, total: int) -> None:
                now = time.perf_counter()
                if done >= total or now - last[0] >= self.PROGRESS_MS / 1000:
                    last[0] = now
                    relay.progressed.emit(job, done, total)

            builder = TokenArrayBuilder(tokenizer)

            def collected(complete: bool, nbytes: int) -> FileEncodeResult:
                tokens = builder.build()
                tokens.prepare_blocks(self.BLOCK_TOKENS)  # here, not on the UI thread
                return FileEncodeResult(path, tokenizer, tokens, builder.chars, nbytes,
                                        time.perf_counter() - t0, complete)

            try:
                encode_file(tokenizer, path, progress=progress, cancel=cancel,
                            on_chunk=lambda chunk: builder.add(chunk.encoding, chunk.char_start),
                            keep_ids=False, chunk_bytes=self.CHUNK_BYTES, piece_chars=self.PIECE_CHARS)
            except Cancelled as exc:
                return ("cancelled", collected(False, exc.bytes_done), exc.total_bytes)
            return ("done", collected(True, os.path.getsize(path)))

        def done(outcome) -> None:
            if job != self._job:
                return
            self._running = False
            if outcome[0] == "cancelled":
                self.partial = outcome[1]
                self.cancelled.emit(outcome[1].bytes, outcome[2])
            else:
                self.bytes_done = self.total_bytes = outcome[1].bytes
                self.finished.emit(outcome[1])

        def failed(exc: BaseException) -> None:
            if job == self._job:
                self._running = False
                self.failed.emit(describe_error(exc))

        self._runner.submit(work, done, failed)

    def cancel(self) -> None:
        """Ask the running job to stop; `cancelled` follows (unless a new `start` supersedes it)."""
        if self._cancel is not None:
            self._cancel.set()

    def abandon(self) -> None:
        """Stop the running job and never report it."""
        self.cancel()
        self._job += 1
        self._running = False

    @Slot(int, int, int)
    def _on_progress(self, job: int, done: int, total: int) -> None:
        if job == self._job:
            self.bytes_done, self.total_bytes = done, total
            self.progressed.emit(done, total)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.abandon()
        self._runner.shutdown(timeout_ms)
