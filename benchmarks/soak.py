#!/usr/bin/env python3
"""Soak test of the desktop app: does tokviz stay flat when it is used for a long time?

    python3 benchmarks/soak.py [--minutes 10] [--json out.json]

Drives a real MainWindow the way a person would, through its public methods and widgets (no
mocks), with the Qt event loop running all the time (waits pump the loop; nothing sleeps on it):

* opens 20 tokenizers: the ones in ../shared/tokenizers and the shipped one from the Library (a
  folder added to it), bert's vocab.txt and qwen's vocab.json + merges.txt with File > Open, and
  variants trained or copied into a scratch folder the Library also shows;
* compares them on a large text (2 MB of English, Chinese, code and mixed text, opened in the
  explorer) in the Compare tab, eight at a time (the view's maximum), waiting for every result;
* then, until the time is up, cycles: switch the explorer's tokenizer from the Library, edit the
  text, start a training and cancel it (every few cycles one runs to the end and is opened), open
  the Merges dock (a merge tree, a trace, a health check cancelled), the Vocabulary dock, the
  Statistics dock (a run cancelled; every few cycles one finishes), the Edit vocabulary dock (an
  edit checked and applied), and compare again with a rotated set of tokenizers;
* samples every ~10 s: RSS (VmRSS), Python's allocated blocks, Python and native threads, open
  file descriptors, active QThreadPool threads, QObjects under the window, live tokenizers and
  their native encoders' caches; at the start and the end also a census of Python objects by type
  and of QObjects by class, the RSS by kind of mapping and the memory by allocator (Python's
  small-object arenas and the blocks live in them, glibc malloc in use, free and mapped apart).

"start" is measured after the warm-up (the setup and the first `finish_every` cycles, so that every
step has run once, a training and a statistics run to the end too: the window keeps the last
trained tokenizer and the last statistics as a person would find them), "end" after the last
cycle, and the same "home" state after every cycle; each after the app is idle and the thread
pools' idle threads are released (`QThreadPool.waitForDone`, which the pools recreate on demand).
The timed samples fall in the middle of steps and go up and down with what each has open; the
slope is that of the home samples.  Any error dialog, uncaught
exception (UI or worker thread) or traceback printed by a worker is a failure.  The verdict is
flat when RSS grew less than --rss-limit MB with a second-half slope under --slope-limit MB/min,
threads and file descriptors are back to their start values, no pool thread is still busy and the
QObject count did not grow; the exit status is 1 otherwise.

--tracemalloc (several times slower: a diagnosis, not a measurement) traces Python's allocations
(numpy arrays included) from the start sample on: the report then says how much of what the cycles
allocated Python still holds at the end and where it was allocated; the rest of the RSS change is
native (Qt, the C extensions, the allocator's fragmentation).
"""
from __future__ import annotations

import argparse
import gc
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
import tracemalloc
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import tokviz.gui  # noqa: E402,F401  (the binding work-arounds, before any Qt use)
from PySide6.QtCore import QEventLoop, QObject, QThreadPool, QTimer, qInstallMessageHandler  # noqa: E402
from PySide6.QtCore import QtMsgType  # noqa: E402
from PySide6.QtWidgets import QDialog, QMessageBox  # noqa: E402

SHARED = REPO.parent / "shared"
SHARED_TOKENIZERS = SHARED / "tokenizers"
CORPUS = SHARED / "corpus"
TRAIN_MODELS = ("bytelevel-bpe", "bpe", "wordpiece", "unigram")
SAMPLE_SECONDS = 10.0


class SoakError(Exception):
    """A step of the soak did not complete (a wait timed out, a pane failed...)."""


# ---- the event loop ------------------------------------------------------------------------------


def pump(ms: int) -> None:
    """Run the Qt event loop for `ms` milliseconds."""
    loop = QEventLoop()
    # (a lambda, not loop.quit: PySide6 6.11 keeps ~1 block for each bound method of a QObject
    # that is gone when its single shot fires, which made the soak's own waits look like a leak)
    QTimer.singleShot(max(0, int(ms)), lambda: loop.quit())
    loop.exec()


def wait_until(predicate: Callable[[], bool], timeout_s: float, what: str, step_ms: int = 20) -> float:
    """Pump the event loop until `predicate()` holds; the seconds it took.  SoakError on timeout."""
    t0 = time.monotonic()
    while not predicate():
        if time.monotonic() - t0 > timeout_s:
            raise SoakError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        pump(step_ms)
    return time.monotonic() - t0


# ---- measurements --------------------------------------------------------------------------------


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def rss_after_trim_mb() -> float | None:
    """RSS once glibc has given its free heap pages back (malloc_trim): what live data holds,
    without the allocator's retained free memory.  None where there is no glibc."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return None
    return rss_mb()


def _stderr_of(fn: Callable[[], None]) -> str:
    """What `fn` writes to file descriptor 2 (C code's stderr)."""
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(tmp.fileno(), 2)
            fn()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode("utf-8", "replace")


def python_arenas() -> int:
    """How many small-object arenas Python has now (each 1 MiB since 3.10; freed only once empty)."""
    import re

    m = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", _stderr_of(sys._debugmallocstats))
    return int(m.group(1).replace(",", "")) if m else 0


def allocator_mb() -> dict[str, float]:
    """Where the memory is, by allocator (MB): Python's small-object arenas (their live blocks and
    free room), glibc malloc's arenas (in use, free) and its separately mapped big chunks."""
    import ctypes
    import ctypes.util
    import re

    out: dict[str, float] = {}
    stats = _stderr_of(sys._debugmallocstats)
    for key, label in (("bytes in allocated blocks", "python blocks"), ("bytes in available blocks", "python free room")):
        m = re.search(rf"# {key}\s*=\s*([\d,]+)", stats)
        if m:
            out[label] = int(m.group(1).replace(",", "")) / 2**20
    out["python arenas"] = float(python_arenas())
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.fopen.restype = ctypes.c_void_p
        libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.fclose.argtypes = [ctypes.c_void_p]
    except (OSError, AttributeError):
        return out
    with tempfile.NamedTemporaryFile(suffix=".xml") as tmp:
        fp = libc.fopen(tmp.name.encode(), b"w")
        if not fp:
            return out
        libc.malloc_info(0, fp)
        libc.fclose(fp)
        xml = Path(tmp.name).read_text(encoding="utf-8", errors="replace")
    tail = xml[xml.rfind("</heap>"):]  # the totals over all arenas
    free = sum(int(v) for v in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"', tail))
    current = int(m.group(1)) if (m := re.search(r'<system type="current" size="(\d+)"', tail)) else 0
    mapped = int(m.group(1)) if (m := re.search(r'<total type="mmap" count="\d+" size="(\d+)"', tail)) else 0
    out["malloc in use"] = (current - free) / 2**20
    out["malloc free"] = free / 2**20
    out["malloc big chunks"] = mapped / 2**20
    return out


def rss_by_kind() -> dict[str, float]:
    """Resident MB by kind of mapping (/proc/self/smaps): the main heap, anonymous mappings (the
    threads' malloc arenas, big allocations, Qt's and numpy's buffers), files (libraries, fonts)."""
    kinds: Counter = Counter()
    kind = "anonymous"
    try:
        with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                head = line.split(None, 1)[0]
                if not head.endswith(":"):  # a mapping's first line: address perms offset dev inode [path]
                    parts = line.split(None, 5)
                    path = parts[5].strip() if len(parts) > 5 else ""
                    kind = path if path.startswith("[") else "file" if path else "anonymous"
                elif head == "Rss:":
                    kinds[kind] += int(line.split()[1]) / 1024
    except OSError:
        return {}
    return {k: round(v, 1) for k, v in kinds.most_common()}


def native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def python_threads() -> list[threading.Thread]:
    """Python's threads that are still running: threading.enumerate() keeps a dummy entry for each
    foreign thread (a Qt pool's) that once ran Python code, after that thread has ended."""
    return [t for t in threading.enumerate()
            if t.native_id is not None and os.path.exists(f"/proc/self/task/{t.native_id}")]


def native_thread_names() -> Counter:
    names = Counter()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm", encoding="utf-8", errors="replace") as fh:
                names[fh.read().strip()] += 1
        except OSError:
            pass
    return names


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def fd_targets() -> Counter:
    out = Counter()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        out["socket/pipe/anon" if target.split(":")[0] in ("socket", "pipe", "anon_inode") else target] += 1
    return out


def type_census(top: int | None = None) -> Counter:
    """Python objects the collector tracks, by type name (frozen ones are not walked)."""
    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
    return Counter(dict(counts.most_common(top))) if top else counts


def qobject_census(window) -> Counter:
    """QObjects under the window by class (where a growth of QObjects comes from)."""
    return Counter(o.metaObject().className() for o in window.findChildren(QObject))


def thread_pools(window) -> list[QThreadPool]:
    return [*window.findChildren(QThreadPool), QThreadPool.globalInstance()]


@dataclass
class Sample:
    t: float  # seconds since the soak began
    cycle: int
    phase: str
    rss_mb: float
    py_blocks: int  # sys.getallocatedblocks()
    py_threads: int  # still running (see python_threads)
    py_thread_entries: int  # threading.active_count(), with the dummies of ended threads
    native_threads: int
    fds: int
    pool_active: int
    qobjects: int
    tokenizers_alive: int  # of those the soak saw loaded, trained or edited
    native_caches: int  # the C encoders' caches with tables, over the live tokenizers
    native_cache_mb: float  # their tables' size (allocated; pages are resident once touched)
    gc_counts: tuple


def take_sample(window, t0: float, cycle: int, phase: str, tokenizers=()) -> Sample:
    tokenizers = list(tokenizers)
    caches = [t.native_cache_info() for t in tokenizers]
    return Sample(
        t=round(time.monotonic() - t0, 2), cycle=cycle, phase=phase, rss_mb=round(rss_mb(), 1),
        py_blocks=sys.getallocatedblocks(), py_threads=len(python_threads()),
        py_thread_entries=threading.active_count(), native_threads=native_threads(),
        fds=open_fds(), pool_active=sum(p.activeThreadCount() for p in thread_pools(window)),
        qobjects=len(window.findChildren(QObject)), tokenizers_alive=len(tokenizers),
        native_caches=sum(c["caches"] for c in caches), native_cache_mb=round(sum(c["bytes"] for c in caches) / 2**20, 1),
        gc_counts=gc.get_count())


# ---- errors --------------------------------------------------------------------------------------


class _StderrTee(io.TextIOBase):
    """Passes writes to the real stderr and notes tracebacks (a worker's unexpected exception)."""

    def __init__(self, real, on_traceback: Callable[[str], None]):
        self.real = real
        self.on_traceback = on_traceback

    def write(self, s: str) -> int:
        if "Traceback (most recent call last)" in s:
            self.on_traceback(s)
        return self.real.write(s)

    def flush(self) -> None:
        self.real.flush()


class ErrorCatcher:
    """Collects every failure: error dialogs (the window's error_handler), uncaught exceptions on
    the UI thread (sys.excepthook) and on Python threads, tracebacks printed by workers, Qt critical
    messages; Qt warnings are only counted."""

    def __init__(self):
        self.errors: list[str] = []
        self.qt_warnings: Counter = Counter()
        self._installed = False

    def dialog(self, title: str, message: str) -> None:
        self.errors.append(f"error dialog: {title}: {message[:300]}")

    def install(self) -> None:
        self._old = (sys.excepthook, threading.excepthook, sys.stderr)
        sys.excepthook = lambda t, v, tb: self.errors.append(
            "uncaught exception: " + "".join(traceback.format_exception(t, v, tb))[-1500:])
        threading.excepthook = lambda args: self.errors.append(
            f"uncaught exception in thread {args.thread.name if args.thread else '?'}: "
            + "".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback))[-1500:])
        sys.stderr = _StderrTee(sys.stderr, lambda s: self.errors.append("traceback on stderr: " + s[-1500:]))
        self._old_qt_handler = qInstallMessageHandler(self._qt_message)
        self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            sys.excepthook, threading.excepthook, sys.stderr = self._old
            qInstallMessageHandler(self._old_qt_handler)
            self._installed = False

    def _qt_message(self, kind, _context, message: str) -> None:
        if kind in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            self.errors.append(f"Qt critical: {message}")
        elif kind == QtMsgType.QtWarningMsg:
            self.qt_warnings[message[:120]] += 1

    def check_dialogs(self, app) -> None:
        for w in app.topLevelWidgets():
            if isinstance(w, (QMessageBox, QDialog)) and w.isVisible():
                self.errors.append(f"a dialog is open: {w.windowTitle()!r}")
                w.close()


# ---- what to open --------------------------------------------------------------------------------


def build_variants(folder: Path, *, count: int) -> list[Path]:
    """Up to `count` tokenizers trained or copied into `folder` (one sub-folder each), for the
    Library to find.  Training here is setup, not part of what is measured."""
    import tokviz
    from tokviz.errors import TokvizError
    from tokviz.train import TrainOptions, train

    folder.mkdir(parents=True, exist_ok=True)
    texts = {}
    for name, size in (("en", 300_000), ("zh", 200_000), ("code", 200_000), ("multi", 200_000)):
        path = folder / f"_{name}.txt.corpus"
        path.write_text((CORPUS / f"{name}.txt").read_text(encoding="utf-8")[:size], encoding="utf-8")
        texts[name] = path

    def trained(model: str, corpus: str, size: int, **kw):
        return lambda: train(model, [texts[corpus]], TrainOptions(vocab_size=size), **kw)

    plan = [
        ("bytelevel-en-2k", "tokenizer.json", trained("bytelevel-bpe", "en", 2000)),
        ("bytelevel-en-2k-gpt2", "vocab.json", trained("bytelevel-bpe", "en", 2000)),
        ("charbpe-en-2k", "tokenizer.json", trained("bpe", "en", 2000, end_of_word="glued")),
        ("wordpiece-en-2k", "vocab.txt", trained("wordpiece", "en", 2000)),
        ("unigram-en-2k", "tokenizer.json", trained("unigram", "en", 2000)),
        ("bytelevel-zh-4k", "tokenizer.json", trained("bytelevel-bpe", "zh", 4000)),
        ("bytelevel-code-3k", "tokenizer.json", trained("bytelevel-bpe", "code", 3000, pattern="cl100k")),
        ("minbpe-multi-1k", "tokenizer.model", trained("bytelevel-bpe", "multi", 1000)),
        ("wordpiece-zh-3k", "vocab.txt", trained("wordpiece", "zh", 3000)),
        ("bert-copy", "tokenizer.json", lambda: tokviz.load(SHARED_TOKENIZERS / "bert-minilm" / "vocab.txt")),
        ("demo-copy", "tokenizer.json", lambda: tokviz.load(REPO / "resources" / "tokviz-demo.model")),
        ("unigram-multi-3k", "tokenizer.json", trained("unigram", "multi", 3000)),
    ]
    out = []
    for name, file_name, make in plan[:count]:
        target = folder / name / file_name
        target.parent.mkdir(exist_ok=True)
        tok = make()
        try:
            out.append(Path(tokviz.save(tok, target)))
        except TokvizError:  # (a format that cannot hold it: the HF file can)
            out.append(Path(tokviz.save(tok, target.with_name("tokenizer.json"))))
    return out


def compare_text(size_bytes: int) -> str:
    """`size_bytes` of UTF-8 text: English, Chinese, code and mixed text in equal parts."""
    parts = []
    share = size_bytes // 4
    for name in ("en", "zh", "code", "multi"):
        data = (CORPUS / f"{name}.txt").read_bytes()[:share]
        parts.append(data.decode("utf-8", errors="ignore"))
    return "\n".join(parts)


@dataclass
class Plan:
    """What a soak opens and works on."""

    workdir: Path
    tokenizers: int = 20  # distinct tokenizers to open
    compare_bytes: int = 2_000_000  # the text compared (opened in the explorer: under its big-file size)
    panes: int = 8  # tokenizers side by side in the Compare tab
    cancel_corpus: list[Path] = field(default_factory=lambda: sorted(CORPUS.glob("*.txt")))  # trainings cancelled
    finish_corpus_bytes: int = 200_000  # trainings that finish
    finish_every: int = 3  # every this many cycles a training and a statistics run finish
    stats_corpus: list[Path] = field(default_factory=lambda: [CORPUS / "en.txt", CORPUS / "zh.txt"])
    shared_tokenizers: bool = True  # open ../shared/tokenizers (else only the shipped one and variants)
    extra_paths: list[Path] = field(default_factory=lambda: [SHARED_TOKENIZERS / "bert-minilm" / "vocab.txt",
                                                             SHARED_TOKENIZERS / "qwen2.5" / "vocab.json"])
    wait_s: float = 180.0  # the longest any step may take


@dataclass
class Entry:
    """A tokenizer the soak opened: where it is and what the Library calls it."""

    path: str
    name: str
    encoding: str | None = None


# ---- the soak ------------------------------------------------------------------------------------


class Soak:
    """Drives `window` (a shown MainWindow whose error_handler is `catcher.dialog`).
    `open_tokenizers()` and `compare_all()` are the setup; `cycle()` one round of everything."""

    def __init__(self, window, plan: Plan, catcher: ErrorCatcher, log: Callable[[str], None] = print):
        self.window = window
        self.plan = plan
        self.catcher = catcher
        self.log = log
        self.counts: Counter = Counter()
        self.latencies: dict[str, list[float]] = {}
        self.entries: list[Entry] = []
        self.cycles = 0
        self.tokenizers_seen: weakref.WeakSet = weakref.WeakSet()  # every tokenizer the window got; the live ones
        self.tokenizers_loaded = 0
        self.rss_by_step: Counter = Counter()  # net RSS change (MB) over each kind of step of the cycles
        self.arenas_by_step: Counter = Counter()  # net change of Python's arenas (1 MiB each), the same way
        window.controller.tokenizerLoaded.connect(lambda result: self._saw(result.tokenizer))
        window.compare_view.paneEncoded.connect(lambda i: self._saw(window.compare_view.panes[i].tokenizer))
        window.edit_panel.applied.connect(self._saw)
        self._finish_corpus = plan.workdir / "train-finish.txt"
        self._stats_small = plan.workdir / "stats-small.txt"
        self._text_path = plan.workdir / "compare-text.txt"
        panel = window.train_panel
        panel.trained.connect(lambda tok: (self.counts.update(["training finished"]), self._saw(tok)))
        panel.cancelled.connect(lambda: self.counts.update(["training cancelled"]))
        panel.failed.connect(lambda reason: self.catcher.errors.append(f"training failed: {reason}"))

    # -- helpers --------------------------------------------------------------------------------------
    def _saw(self, tokenizer) -> None:
        if tokenizer is not None and tokenizer not in self.tokenizers_seen:
            self.tokenizers_seen.add(tokenizer)
            self.tokenizers_loaded += 1

    def _note(self, what: str, seconds: float | None = None) -> None:
        self.counts[what] += 1
        if seconds is not None:
            self.latencies.setdefault(what, []).append(seconds)

    def _wait(self, predicate, what: str, timeout_s: float | None = None) -> float:
        return wait_until(predicate, timeout_s or self.plan.wait_s, what)

    def idle(self) -> bool:
        """Nothing under way anywhere in the window."""
        from tokviz.gui.work.workers import TaskRunner

        w = self.window
        return (w.is_up_to_date() and not w.compare_view.is_busy() and not w.train_panel.is_training()
                and not w.stats_view.is_running() and not w.merges_panel.is_checking()
                and all(r.pending() == 0 for r in w.findChildren(TaskRunner)))

    def settle(self) -> None:
        """Wait until idle (the window's idle clean-up done too), let deferred deletes run,
        release the pools' idle threads, collect."""
        self._wait(self.idle, "the window to be idle")
        self._wait(lambda: not self.window.idle.pending(), "the window's idle clean-up")
        pump(300)
        for pool in thread_pools(self.window):
            if not pool.waitForDone(10_000):
                raise SoakError("a thread pool still has a busy thread 10 s after the window went idle")
        pump(50)
        gc.collect()

    # -- setup ----------------------------------------------------------------------------------------
    def open_tokenizers(self) -> None:
        """Open `plan.tokenizers` distinct tokenizers the way a person would: folders added to the
        Library and its entries double-clicked, the others with File > Open (then in Recent)."""
        from tokviz.formats.discover import FOLDER, RECENT, SHIPPED

        w, plan = self.window, self.plan
        variants_dir = plan.workdir / "variants"
        library = w.library
        known = 1 + (6 + len(plan.extra_paths) if plan.shared_tokenizers else 0)  # shipped, shared
        build_variants(variants_dir, count=max(0, plan.tokenizers - known))
        self._finish_corpus.write_text(compare_text(plan.finish_corpus_bytes), encoding="utf-8")
        self._stats_small.write_text(compare_text(300_000), encoding="utf-8")
        folders = [str(variants_dir)] + ([str(SHARED_TOKENIZERS)] if plan.shared_tokenizers else [])
        for folder in folders:
            library.add_folder(folder)
        self._wait(lambda: not library.is_busy() and len(library.entries()) > 1, "the Library to list the folders")
        seen: set[str] = set()
        for found in list(library.entries()):
            key = os.path.realpath(found.path)
            if found.origin not in (RECENT, SHIPPED, FOLDER) or key in seen or len(self.entries) >= plan.tokenizers:
                continue
            seen.add(key)
            item = library.item_for(found)
            library.tree.itemActivated.emit(item, 0)  # (a double-click)
            self._wait_explorer(found.path, f"{found.name} to open")
            self.entries.append(Entry(os.fspath(found.path), found.name, found.encoding))
            self._note("tokenizer opened")
        for path in plan.extra_paths if plan.shared_tokenizers else []:
            if len(self.entries) >= plan.tokenizers:
                break
            w.open_tokenizer(path)
            self._wait_explorer(path, f"{path} to open")
            self.entries.append(Entry(os.fspath(path), f"{path.parent.name} ({path.name})"))
            self._note("tokenizer opened")
        library.refresh_button.click()  # the ones opened by path are in its Recent group now
        self._wait(lambda: not library.is_busy(), "the Library to refresh")
        listed = {os.path.realpath(f.path) for f in library.entries()}
        missing = [e.path for e in self.entries if os.path.realpath(e.path) not in listed]
        if missing:
            raise SoakError(f"opened but not in the Library: {missing}")
        if len(self.entries) < plan.tokenizers:
            raise SoakError(f"only {len(self.entries)} distinct tokenizers to open, {plan.tokenizers} asked")
        self.log(f"opened {len(self.entries)} tokenizers: " + ", ".join(e.name for e in self.entries))

    def _wait_explorer(self, path, what: str) -> float:
        w = self.window
        target = os.path.realpath(path)

        def shown() -> bool:
            tok = w.tokenizer()
            return (w.is_up_to_date() and tok is not None and tok.source.path is not None
                    and os.path.realpath(w.controller.tokenizer_path or "") == target)

        return self._wait(lambda: shown() or bool(self.catcher.errors), what)

    def open_text(self) -> None:
        """The large text, opened in the explorer (File > Open text)."""
        self._text_path.write_text(compare_text(self.plan.compare_bytes), encoding="utf-8")
        if not self.window.open_text_file(self._text_path):
            raise SoakError("could not open the compare text")
        if self.window.is_big_file():
            raise SoakError("the compare text opened in big-file mode: the Compare tab would see its preview only")
        self._wait(self.window.is_up_to_date, "the explorer to encode the text")

    def compare_all(self) -> None:
        """Every opened tokenizer compared on the text, `plan.panes` at a time."""
        n = self.plan.panes
        for k in range(0, len(self.entries), n):
            group = self.entries[k:k + n]
            if len(group) < 2:
                group = self.entries[-n:]
            self.compare(group)
        self.go_home()

    # -- actions --------------------------------------------------------------------------------------
    def compare(self, group: list[Entry]) -> None:
        """Show the Compare tab with exactly `group`'s panes and wait for the whole comparison."""
        w = self.window
        view = w.compare_view
        w.show_compare()
        wanted = {e.path for e in group}
        for index in reversed(range(len(view.panes))):
            if view.panes[index].source.path not in wanted:
                view.remove_pane(index)
                self._note("compare pane removed")
        present = {p.source.path for p in view.panes}
        for e in group:
            if e.path not in present:
                view.add_path(e.path, e.name, e.encoding)
                self._note("compare pane added")
        t0 = time.monotonic()

        def done() -> bool:
            if view.is_busy():
                return False
            failed = [p.name() for p in view.panes if p.encoding is None]
            if failed:
                raise SoakError(f"compare panes without a result: {failed}")
            return view.comparison is not None and view.text() == w.current_text()

        self._wait(done, "the comparison")
        self._note("compare", time.monotonic() - t0)
        w.tabs.setCurrentWidget(w.splitter)  # back to the Explorer tab

    def switch_tokenizer(self, entry: Entry | None = None) -> None:
        """Open `entry` (default: the next one) from the Library in the explorer."""
        library = self.window.library
        entry = entry or self.entries[(self.cycles * 7 + 3) % len(self.entries)]
        found = next((f for f in library.entries() if os.path.realpath(f.path) == os.path.realpath(entry.path)), None)
        if found is None:
            raise SoakError(f"{entry.path} is no longer in the Library")
        library.tree.itemActivated.emit(library.item_for(found), 0)
        self._note("explorer tokenizer switched", self._wait_explorer(entry.path, f"{entry.name} in the explorer"))

    def edit_text(self) -> None:
        """Type at the end of the text; every other cycle undo it."""
        from PySide6.QtGui import QTextCursor

        editor = self.window.editor
        cursor = editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(f"\nsoak edit {self.cycles}: unaffable 乌鲁木齐 🙂")
        editor.setTextCursor(cursor)
        self._note("text edited", self._wait(self.window.is_up_to_date, "the edited text to encode"))
        if self.cycles % 2:
            editor.undo()
            self._note("text edit undone", self._wait(self.window.is_up_to_date, "the undone text to encode"))

    def train_and_cancel(self) -> None:
        """Train on the big corpus, let it progress, press Cancel."""
        w, panel = self.window, self.window.train_panel
        w.train_dock.show()
        w.train_dock.raise_()
        model = TRAIN_MODELS[self.cycles % len(TRAIN_MODELS)]
        panel.set_files(self.plan.cancel_corpus)
        panel.set_model(model)
        panel.vocab_size.setValue(30_000)
        before = self.counts["training cancelled"] + self.counts["training finished"]
        panel.train_button.click()
        if not panel.is_training():
            raise SoakError(f"training did not start: {panel.status.text()}")
        self._wait(lambda: panel.progress.value() > 0 or not panel.is_training(), f"{model} training to progress")
        pump(50 + 50 * (self.cycles % 5))
        t0 = time.monotonic()
        panel.cancel_button.click()
        self._wait(lambda: not panel.is_training(), f"{model} training to stop after Cancel", 60)
        self._note(f"training cancelled: {model}", time.monotonic() - t0)
        if self.counts["training cancelled"] + self.counts["training finished"] != before + 1:
            raise SoakError(f"the {model} training neither finished nor reported its cancel")

    def train_to_the_end(self) -> None:
        """Train on a small corpus to the end: the window opens the result (and the Compare tab adds it)."""
        w, panel = self.window, self.window.train_panel
        model = TRAIN_MODELS[(self.cycles // self.plan.finish_every) % len(TRAIN_MODELS)]
        panel.set_files([self._finish_corpus])
        panel.set_model(model)
        panel.vocab_size.setValue(3000 if model == "unigram" else 1500)
        before = self.counts["training finished"]
        panel.train_button.click()
        seconds = self._wait(lambda: not panel.is_training(), f"{model} training to finish")
        if self.counts["training finished"] != before + 1:
            raise SoakError(f"the {model} training did not finish: {panel.status.text()}")
        self._wait(lambda: w.tokenizer() is panel.result and w.is_up_to_date(), "the trained tokenizer in the explorer")
        self._note(f"training finished: {model}", seconds)

    def merges_dock(self) -> None:
        """Open the Merges dock: a merge tree, a trace, a health check cancelled; close it."""
        w, panel = self.window, self.window.merges_panel
        w.merges_dock.show()
        w.merges_dock.raise_()
        if panel.is_bpe():
            panel.show_token(min(300, w.tokenizer().vocab_size - 1))
            self._note("merge tree shown")
        panel.trace_text("Tokenizers cut unaffable words and 乌鲁木齐 differently.")
        self._note("word traced")
        panel.check_health()
        if panel.is_checking():
            pump(200)
            panel.cancel_health()
            self._wait(lambda: not panel.is_checking(), "the health check to stop", 60)
            self._note("health check cancelled")
        w.merges_dock.close()
        self._note("dock opened and closed")

    def vocab_dock(self) -> None:
        """Open the Vocabulary dock (it reads the vocabulary on a worker), then close it."""
        w = self.window
        w.vocab_dock.show()
        w.vocab_dock.raise_()
        self._note("vocabulary shown", self._wait(lambda: not w.vocab_view.is_busy(), "the vocabulary view"))
        pump(50)
        w.vocab_dock.close()
        self._note("dock opened and closed")

    def stats_dock(self) -> None:
        """Statistics: a run on the big corpus cancelled; every few cycles one on a small corpus finishes."""
        w, view = self.window, self.window.stats_view
        w.stats_dock.show()
        w.stats_dock.raise_()
        view.set_corpus(self.plan.stats_corpus)
        view.run_button.click()
        if not view.is_running():
            raise SoakError(f"statistics did not start: {view.status.text()}")
        self._wait(lambda: view.progress.value() > 0 or not view.is_running(), "statistics to progress")
        t0 = time.monotonic()
        view.cancel_button.click()
        self._wait(lambda: not view.is_running(), "statistics to stop after Cancel", 60)
        self._note("statistics cancelled", time.monotonic() - t0)
        if self.cycles % self.plan.finish_every == 0:
            view.set_corpus([self._stats_small])
            view.run_button.click()
            self._note("statistics finished", self._wait(lambda: not view.is_running(), "statistics to finish"))
            if view.result is None:
                raise SoakError(f"statistics did not finish: {view.status.text()}")
        w.stats_dock.close()
        self._note("dock opened and closed")

    def edit_dock(self) -> None:
        """Edit vocabulary: check an added token, apply it, and every other cycle undo it."""
        w, panel = self.window, self.window.edit_panel
        w.edit_dock.show()
        w.edit_dock.raise_()
        before = w.tokenizer()
        if panel.propose("tokens", f"soaktoken{self.cycles}"):
            self._wait(lambda: not panel.is_busy(), "the vocabulary edit check")
            if panel.apply_button.isEnabled():
                panel.apply_button.click()
                self._wait(lambda: w.tokenizer() is not before and w.is_up_to_date(), "the edited tokenizer")
                self._note("vocabulary edit applied")
                if self.cycles % 2:
                    panel.undo_button.click()
                    self._wait(lambda: w.tokenizer() is before and w.is_up_to_date(), "the edit undone")
                    self._note("vocabulary edit undone")
        w.edit_dock.close()
        self._note("dock opened and closed")

    def home_group(self) -> list[Entry]:
        """The Compare tab's panes at the end of every cycle: the last ones opened (the big ones)."""
        return self.entries[-self.plan.panes:]

    def go_home(self) -> None:
        """The state every cycle ends in, so that one cycle's end can be compared with another's:
        the home tokenizer in the explorer, its vocabulary shown and hidden, the home panes compared."""
        self.switch_tokenizer(self.entries[-1])
        self.vocab_dock()
        self.compare(self.home_group())

    def cycle(self) -> None:
        """One round of everything (see the module docstring)."""
        self.cycles += 1
        n = self.plan.panes
        start = (self.cycles * 5) % len(self.entries)
        group = [self.entries[(start + k) % len(self.entries)] for k in range(min(n, len(self.entries)))]
        steps = [self.switch_tokenizer, self.edit_text, self.train_and_cancel]
        if self.cycles % self.plan.finish_every == 0:
            steps.append(self.train_to_the_end)
        steps += [self.merges_dock, self.vocab_dock, self.stats_dock, self.edit_dock, lambda: self.compare(group),
                  self.go_home]
        for step in steps:
            name = step.__name__.replace("<lambda>", "compare")
            rss, arenas = rss_mb(), python_arenas()
            step()
            self.rss_by_step[name] += rss_mb() - rss
            self.arenas_by_step[name] += python_arenas() - arenas
        self._note("cycle")


# ---- running and reporting -----------------------------------------------------------------------


MEASURES = (("rss_mb", "RSS (MB)"), ("py_blocks", "Python allocated blocks"), ("py_threads", "Python threads"),
            ("py_thread_entries", "threading.active_count()"),
            ("native_threads", "native threads"), ("fds", "open file descriptors"),
            ("pool_active", "QThreadPool active threads"), ("qobjects", "QObjects under the window"),
            ("tokenizers_alive", "Tokenizer objects alive"), ("native_caches", "native encoder caches"),
            ("native_cache_mb", "native encoder caches (MB)"))


def slope_per_minute(samples: list[Sample], key: str = "rss_mb") -> float:
    """Least-squares slope of `key` against time, per minute."""
    if len(samples) < 3:
        return 0.0
    xs = [s.t / 60 for s in samples]
    ys = [getattr(s, key) for s in samples]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


@dataclass
class Limits:
    rss_mb: float = 50.0  # end - start
    slope_mb_per_min: float = 3.0  # RSS over the second half
    qobjects: int = 20  # end - start
    tokenizers: int = 2  # end - start (the last trained one may differ)


def verdict(start: Sample, end: Sample, second_half: list[Sample], errors: list[str], limits: Limits) -> list[str]:
    """The checks that failed (empty: flat)."""
    failed = []
    if errors:
        failed.append(f"{len(errors)} error(s)")
    if end.rss_mb - start.rss_mb >= limits.rss_mb:
        failed.append(f"RSS grew {end.rss_mb - start.rss_mb:.1f} MB (limit {limits.rss_mb:.0f})")
    slope = slope_per_minute(second_half)
    if slope >= limits.slope_mb_per_min:
        failed.append(f"RSS slope {slope:.2f} MB/min over the second half (limit {limits.slope_mb_per_min})")
    for key, label in (("native_threads", "native threads"), ("py_threads", "Python threads"), ("fds", "file descriptors")):
        if getattr(end, key) > getattr(start, key):
            failed.append(f"{label}: {getattr(start, key)} at the start, {getattr(end, key)} at the end")
    if end.pool_active:
        failed.append(f"{end.pool_active} pool thread(s) still busy at the end")
    if end.qobjects - start.qobjects > limits.qobjects:
        failed.append(f"QObjects grew from {start.qobjects} to {end.qobjects}")
    if end.tokenizers_alive - start.tokenizers_alive > limits.tokenizers:
        failed.append(f"tokenizers alive grew from {start.tokenizers_alive} to {end.tokenizers_alive}")
    return failed


def alive_names(tokenizers) -> list[str]:
    """The names of the tokenizers still alive (the state start and end are compared in)."""
    return sorted(t.source.name if t.source else "?" for t in list(tokenizers))


def report_text(result: dict) -> str:
    s, e, peak = result["start"], result["end"], result["peak"]
    lines = [f"tokviz soak: {result['minutes_run']:.1f} min, {result['cycles']} cycles, "
             f"{result['tokenizers']} tokenizers, compare text {result['compare_mb']:.2f} MB, "
             f"{len(result['samples'])} samples", ""]
    lines.append(f"{'measure':<28}{'start':>14}{'end':>14}{'peak':>14}{'change':>12}")
    for key, label in MEASURES:
        a, b, p = s[key], e[key], peak[key]
        fmt = (lambda v: f"{v:,.1f}") if isinstance(a, float) else (lambda v: f"{v:,}")
        lines.append(f"{label:<28}{fmt(a):>14}{fmt(b):>14}{fmt(p):>14}{fmt(b - a):>12}")
    if result.get("alive_start") != result.get("alive_end"):
        lines.append(f"{'tokenizers alive at start':<28}{', '.join(result['alive_start'])}")
        lines.append(f"{'tokenizers alive at end':<28}{', '.join(result['alive_end'])}")
    if result["rss_trimmed_start"] is not None:
        a, b = result["rss_trimmed_start"], result["rss_trimmed_end"]
        lines.append(f"{'RSS after malloc_trim (MB)':<28}{a:>14,.1f}{b:>14,.1f}{'':>14}{b - a:>12,.1f}")
    for kind, (a, b) in sorted(result.get("rss_kinds", {}).items(), key=lambda kv: -kv[1][1]):
        if max(a, b) >= 1:
            lines.append(f"{'  RSS in ' + kind[:18] + ' (MB)':<28}{a:>14,.1f}{b:>14,.1f}{'':>14}{b - a:>12,.1f}")
    for name, (a, b) in result.get("allocators", {}).items():
        lines.append(f"{'  ' + name + ' (MB)':<28}{a:>14,.1f}{b:>14,.1f}{'':>14}{b - a:>12,.1f}")
    lines.append(f"{'RSS slope, 2nd half (MB/min)':<28}{result['rss_slope_second_half']:>14.2f}   (settled home state)")
    lines.append(f"{'RSS slope, all (MB/min)':<28}{result['rss_slope_all']:>14.2f}")
    home = result.get("rss_home") or []
    if home:
        lines.append(f"RSS at home after each cycle (MB): min {min(home):,.0f}, max {max(home):,.0f}; "
                     + " ".join(f"{v:.0f}" for v in home))
    lines.append(f"{'gc-tracked objects':<28}{result['gc_objects_start']:>14,}{result['gc_objects_end']:>14,}"
                 f"{'':>14}{result['gc_objects_end'] - result['gc_objects_start']:>12,}")
    lines.append(f"{'tokenizers loaded in all':<28}{result['tokenizers_loaded']:>14,}")
    lines.append(f"at the end, cyclic garbage that gc.freeze() had kept: {result['frozen_garbage']:,} objects "
                 f"(RSS {result['rss_after_unfreeze'] or 0:,.1f} MB once collected and trimmed)")
    lines += ["", "setup: " + result["setup"], "", "actions:"]
    for name, n in sorted(result["counts"].items()):
        lat = result["latency"].get(name)
        extra = f"   (mean {lat['mean']:.2f} s, max {lat['max']:.2f} s)" if lat else ""
        lines.append(f"  {name:<40}{n:>6}{extra}")
    if result.get("rss_by_step"):
        lines += ["", "net change over the cycles by step: RSS (MB), Python arenas (MiB) (where memory was kept):"]
        lines += [f"  {name:<40}{mb:>+10,.1f}{arenas:>+10,}" for name, (mb, arenas) in result["rss_by_step"].items()]
    if result["census_growth"]:
        lines += ["", "object types that grew most (start -> end):"]
        for name, (a, b) in result["census_growth"].items():
            lines.append(f"  {name:<40}{a:>10,} -> {b:,}")
    if result.get("traced_mb") is not None:
        lines += ["", f"allocated by Python (tracemalloc) after the start and still held at the end: "
                      f"{result['traced_mb']:,.1f} MB; the rest of the RSS change is native"]
        lines += [f"  {line}" for line in result["traced_growth"]]
    if result.get("qobject_changes"):
        lines += ["", "QObject classes whose count changed (start -> end):"]
        for name, (a, b) in result["qobject_changes"].items():
            lines.append(f"  {name:<40}{a:>10,} -> {b:,}")
    if result["threads_end_by_name"] != result["threads_start_by_name"]:
        lines += ["", f"native threads by name: start {result['threads_start_by_name']}",
                  f"                          end   {result['threads_end_by_name']}"]
    if result["py_threads_end"] != result["py_threads_start"]:
        lines += ["", f"Python threads: start {result['py_threads_start']}", f"                end   {result['py_threads_end']}"]
    if result["new_fds"]:
        lines += ["", f"file descriptors open at the end, not at the start: {result['new_fds']}"]
    if result["qt_warnings"]:
        lines += ["", "Qt warnings (not failures):"] + [f"  {n} x {m}" for m, n in result["qt_warnings"].items()]
    lines += ["", f"errors: {len(result['errors'])}"] + [f"  - {err}" for err in result["errors"][:20]]
    lines += ["", "verdict: " + ("FLAT (no leak found)" if not result["failed"] else "NOT FLAT: " + "; ".join(result["failed"]))]
    return "\n".join(lines)


def traced_growth(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, top: int = 15) -> list[str]:
    """Where the Python-traced memory grew between two snapshots, by allocating line."""
    lines = []
    for stat in after.compare_to(before, "traceback")[:top]:
        if stat.size_diff <= 0:
            break
        frames = [f"{Path(f.filename).name}:{f.lineno}" for f in stat.traceback[-4:]]
        lines.append(f"{stat.size_diff / 2**20:+9.1f} MB {stat.count_diff:+8,} blocks  " + " < ".join(reversed(frames)))
    return lines


def run_soak(minutes: float, plan: Plan, limits: Limits, log=print, trace: bool = False) -> dict:
    from tokviz.gui.app import ensure_application
    from tokviz.gui.window.main_window import MainWindow
    from tokviz.gui.settings import Settings

    app = ensure_application()
    catcher = ErrorCatcher()
    catcher.install()
    t0 = time.monotonic()
    settings = Settings(plan.workdir / "settings.ini")
    window = MainWindow(REPO / "resources" / "tokviz-demo.model", "A first text.", settings=settings,
                        error_handler=catcher.dialog)
    window.resize(1400, 900)
    window.show()
    samples: list[Sample] = []
    soak = Soak(window, plan, catcher, log)
    state = {"phase": "setup"}

    def sample() -> None:
        catcher.check_dialogs(app)
        samples.append(take_sample(window, t0, soak.cycles, state["phase"], soak.tokenizers_seen))

    sampler = QTimer()
    sampler.setInterval(int(SAMPLE_SECONDS * 1000))
    sampler.timeout.connect(sample)
    sampler.start()
    result: dict = {}
    try:
        wait_until(window.is_up_to_date, plan.wait_s, "the first tokenizer")
        soak.open_tokenizers()
        soak.open_text()
        soak.compare_all()
        setup = (f"{len(soak.entries)} tokenizers opened from the Library and File > Open, compared on "
                 f"{plan.compare_bytes / 1e6:.2f} MB in {soak.counts['compare']} rounds "
                 f"in {time.monotonic() - t0:.0f} s")
        log(setup)
        deadline = time.monotonic() + minutes * 60  # (the cycling lasts `minutes`, the setup aside)
        for _ in range(max(1, plan.finish_every)):  # the warm-up: every step has run once, a training
            soak.cycle()  # and a statistics run to the end too (the window then holds their results)
        soak.settle()
        state["phase"] = "soak"
        start = take_sample(window, t0, soak.cycles, "start", soak.tokenizers_seen)
        soak.rss_by_step.clear()
        soak.arenas_by_step.clear()
        alive_start = alive_names(soak.tokenizers_seen)
        trimmed_start = rss_after_trim_mb()
        kinds_start = rss_by_kind()
        alloc_start = allocator_mb()
        census_start = type_census()
        qcensus_start = qobject_census(window)
        if trace:  # (from here: what the soak allocates and still holds at the end)
            tracemalloc.start(8)
            traced_start = tracemalloc.take_snapshot()
        gc_start = sum(census_start.values())
        threads_start, fds_start = native_thread_names(), fd_targets()
        py_threads_start = sorted(t.name for t in python_threads())
        log(f"start after warm-up: RSS {start.rss_mb:.0f} MB, {start.native_threads} threads, {start.fds} fds")
        homes: list[Sample] = []  # the same (home) state after every cycle, settled: what is compared
        while time.monotonic() < deadline and not catcher.errors:
            soak.cycle()
            soak.settle()
            homes.append(take_sample(window, t0, soak.cycles, "home", soak.tokenizers_seen))
            log(f"cycle {soak.cycles} done at {(time.monotonic() - t0) / 60:.1f} min: RSS {homes[-1].rss_mb:.0f} MB "
                f"at home, {homes[-1].native_threads} threads, {homes[-1].fds} fds")
        state["phase"] = "end"
        soak.settle()
        end = take_sample(window, t0, soak.cycles, "end", soak.tokenizers_seen)
        alive_end = alive_names(soak.tokenizers_seen)
        trimmed_end = rss_after_trim_mb()
        kinds_end = rss_by_kind()
        alloc_end = allocator_mb()
        census_end = type_census()
        qcensus_end = qobject_census(window)
        traced_end = tracemalloc.take_snapshot() if trace else None
        traced_mb_end = tracemalloc.get_traced_memory()[0] / 2**20 if trace else None
        tracemalloc.stop()
        # (last, as it changes what it looks at) what gc.freeze() kept that was already garbage
        gc.unfreeze()
        frozen_garbage = gc.collect()
        rss_unfrozen = rss_after_trim_mb()
        growth = {name: (census_start.get(name, 0), n) for name, n in census_end.items()
                  if n - census_start.get(name, 0) > 50}
        growth = dict(sorted(growth.items(), key=lambda kv: kv[1][0] - kv[1][1])[:12])
        measured = [s for s in samples if s.t >= start.t] + [end]
        measured = sorted([start, *measured], key=lambda s: s.t)
        half = start.t + (end.t - start.t) / 2
        # (the trend of the settled home state: samples in the middle of a step go up and down by
        # hundreds of MB with what that step has open)
        second_half = [s for s in [start, *homes, end] if s.t >= half]
        failed = verdict(start, end, second_half, catcher.errors, limits)
        fds_end = fd_targets()
        result = {
            "minutes_run": (time.monotonic() - t0) / 60, "cycles": soak.cycles, "tokenizers": len(soak.entries),
            "compare_mb": plan.compare_bytes / 1e6, "setup": setup, "tokenizers_loaded": soak.tokenizers_loaded,
            "start": start.__dict__, "end": end.__dict__,
            "peak": {key: max(getattr(s, key) for s in measured) for key, _ in MEASURES},
            "rss_trimmed_start": trimmed_start, "rss_trimmed_end": trimmed_end,
            "allocators": {k: (alloc_start.get(k, 0.0), alloc_end.get(k, 0.0)) for k in alloc_start},
            "rss_kinds": {k: (kinds_start.get(k, 0.0), kinds_end.get(k, 0.0)) for k in {**kinds_start, **kinds_end}},
            "frozen_garbage": frozen_garbage, "rss_after_unfreeze": rss_unfrozen,
            "rss_slope_second_half": slope_per_minute(second_half),
            "rss_slope_all": slope_per_minute([start, *homes, end]),
            "rss_home": [s.rss_mb for s in homes],
            "gc_objects_start": gc_start, "gc_objects_end": sum(census_end.values()),
            "census_growth": growth, "counts": dict(soak.counts),
            "rss_by_step": {k: (round(v, 1), soak.arenas_by_step[k]) for k, v in soak.rss_by_step.most_common()},
            "traced_mb": traced_mb_end,
            "traced_growth": traced_growth(traced_start, traced_end) if trace else [],
            "qobject_changes": {name: (qcensus_start.get(name, 0), qcensus_end.get(name, 0))
                                for name in sorted(set(qcensus_start) | set(qcensus_end))
                                if qcensus_start.get(name, 0) != qcensus_end.get(name, 0)},
            "latency": {k: {"mean": sum(v) / len(v), "max": max(v)} for k, v in soak.latencies.items()},
            "threads_start_by_name": dict(threads_start), "threads_end_by_name": dict(native_thread_names()),
            "py_threads_start": py_threads_start, "py_threads_end": sorted(t.name for t in python_threads()),
            "new_fds": {k: v - fds_start.get(k, 0) for k, v in fds_end.items() if v > fds_start.get(k, 0)},
            "qt_warnings": dict(catcher.qt_warnings.most_common(10)),
            "alive_start": alive_start, "alive_end": alive_end,
            "errors": list(catcher.errors), "failed": failed, "limits": limits.__dict__,
            "samples": [s.__dict__ for s in samples],
        }
    except SoakError as exc:
        catcher.errors.append(f"soak step failed: {exc}")
        result = {"errors": list(catcher.errors), "failed": [str(exc)], "counts": dict(soak.counts),
                  "samples": [s.__dict__ for s in samples]}
    finally:
        sampler.stop()
        window.close()
        pump(100)
        catcher.uninstall()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0,
                        help="how long to cycle, after opening and comparing the tokenizers (default 10)")
    parser.add_argument("--json", metavar="PATH", help="also write the report and every sample as JSON")
    parser.add_argument("--compare-mb", type=float, default=2.0, help="size of the compared text (default 2 MB)")
    parser.add_argument("--rss-limit", type=float, default=Limits.rss_mb, help="MB of RSS growth allowed")
    parser.add_argument("--slope-limit", type=float, default=Limits.slope_mb_per_min,
                        help="MB/min of RSS growth allowed over the second half")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="trace Python's allocations (slower) and report where traced memory grew")
    args = parser.parse_args(argv)
    if not SHARED_TOKENIZERS.is_dir() or not CORPUS.is_dir():
        print(f"soak: {SHARED} (tokenizers and corpus) is needed", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="tokviz-soak-"))
    try:
        plan = Plan(workdir, compare_bytes=int(args.compare_mb * 1e6))
        limits = Limits(args.rss_limit, args.slope_limit)
        result = run_soak(args.minutes, plan, limits, trace=args.tracemalloc)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if "start" in result:
        print(report_text(result))
    else:
        print("soak did not complete:\n  " + "\n  ".join(result["errors"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    return 0 if not result["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
