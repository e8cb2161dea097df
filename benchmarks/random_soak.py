#!/usr/bin/env python3
"""Seeded random use of the desktop app: does a long session stay fast and small?

    python3 benchmarks/random_soak.py [--minutes 10] [--seed 1] [--json out.json] [--stacks [--native-stacks]]

Where benchmarks/soak.py repeats one fixed cycle, this one drives a real MainWindow with actions
drawn at random (seeded, so a run can be repeated) from what people do in a session: open
tokenizers (the shipped one, ../shared/tokenizers, tests/data/real) and texts (corpus slices, a
200K-character text, a 100,000-character line of numbers, emoji and combining marks), type, paste,
undo, compare, the Analyses and Chat tabs, the Merges dock with a token clicked and hovered, the
Vocabulary dock with a filter, statistics and training started and cancelled, File › Export
tokenizer (cancelled, or written), Help › About, File › Unsaved tokenizers, themes, zoom and
window resizes.  The Qt event loop runs between actions for a random 20-400 ms; any dialog that
opens is answered by the "user" (Cancel or Discard) after a moment, as the dialog would be.  The
process runs as `tokviz` runs the app: with glibc's allocator for Python objects (tokviz/launch.py;
--default-allocator keeps Python's own), the window's allocator and thread settings, and workers
that pause while the UI thread is busy (gui/ui_gate.py; --no-ui-gate turns that off).

Measured:
* UI-thread stalls: a 20 ms heartbeat timer on the UI thread; a gap between two of its ticks is
  time the event loop could not run (an action's own synchronous work included).  Each stall over
  --stall-ms is reported with the action that was running or had just run; with --stacks a sampler
  thread takes the UI thread's Python stack once a stall passes --stack-after seconds (with
  --native-stacks, py-spy's, with Qt's C++ frames), and the report counts where stalls were.
* every 10 s: RSS, top-level widgets, QObjects under the window, live tokenizers (of those the window
  got), Python threads, open file descriptors;
* errors: uncaught exceptions (UI thread and workers), tracebacks printed by workers, error dialogs,
  Qt critical messages (soak.py's ErrorCatcher).

"base" is the sample at --base-minutes (2 by default), "end" after the last action, each with the
window left idle for 7.5 s first (its idle clean-up and heap trim run then, as during a person's
pause).  Both hold whatever the session had open then (a Compare tab of Llama 3, Qwen2.5 and cl100k
is some 300 MB more than one of small tokenizers), so after each the window is also brought "home" (no
Compare pane, the shipped tokenizer, docks closed, idle clean-up done) and the RSS there is reported:
what a session leaves behind; the RSS after each step of the way says what the panes, the explorer's
tokenizer and text, and the docks held.  The verdict (exit status 1 when it fails): no error, no stall over
1 s, top-level widgets at the end within +5 of the base and RSS within 1.5x of it.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
import weakref
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
for path in (REPO, BENCH):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import shiboken6  # noqa: E402
import soak  # noqa: E402  (its event-loop waits, measurements and error catcher)
import tokviz.gui  # noqa: E402,F401
from PySide6.QtCore import QObject, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QMenu, QMessageBox  # noqa: E402

SHARED = REPO.parent / "shared"
SHARED_TOKENIZERS = ("qwen2.5/tokenizer.json", "llama3/tokenizer.json", "cl100k_base.tiktoken",
                     "bert-minilm/tokenizer.json", "sentencepiece/unigram_8k.model", "sentencepiece/bpe_8k.model",
                     "gpt2")
SIZES = ((1280, 800), (1600, 1000), (1024, 700), (1440, 900))
TYPED = ("the quick brown fox ", "中文分词的例子，", "x = f(a, b)\n", "🙂👍🏽 ", "unaffable ", "e\u0301\u0302 ", "\n")
STALL_S = 1.0
WIDGETS_SLACK = 5
RSS_FACTOR = 1.5


# ---- what the user opens -------------------------------------------------------------------------


def tokenizer_paths() -> list[Path]:
    """The shipped tokenizer, the shared ones present, and the real files kept with the tests."""
    paths = [REPO / "resources" / "tokviz-demo.model"]
    paths += [SHARED / "tokenizers" / name for name in SHARED_TOKENIZERS if (SHARED / "tokenizers" / name).exists()]
    real = REPO / "tests" / "data" / "real"
    if real.is_dir():
        paths += sorted(p for p in real.iterdir()
                        if p.suffix in (".json", ".model", ".tiktoken") and p.stat().st_size < 5_000_000)[:6]
    return [p for p in paths if p.exists()]


def texts(rng: random.Random) -> dict[str, str]:
    """Named texts of the sizes and shapes people open."""
    corpus = {}
    for name in ("en", "zh", "code"):
        path = SHARED / "corpus" / f"{name}.txt"
        if path.is_file():
            corpus[name] = path.read_text(encoding="utf-8", errors="replace")[:400_000]
    if not corpus:
        corpus["sample"] = (REPO / "resources" / "sample.txt").read_text(encoding="utf-8") * 50
    out = {f"{k} 5K": v[:5_000] for k, v in corpus.items()}
    big = "".join(corpus.values())
    out["200K mixed"] = (big * (1 + 200_000 // max(1, len(big))))[:200_000]
    out["100K-char line"] = ",".join(str(rng.randint(0, 99_999)) for _ in range(25_000))[:100_000]
    marks = ["😀", "👍🏽", "e\u0301", "a\u0308\u0323", "🇫🇷", "👨‍👩‍👧", "ก\u0e48"]
    out["42K emoji and marks"] = "".join(rng.choice(marks) for _ in range(16_000))[:42_000]
    return out


# ---- measurements --------------------------------------------------------------------------------


@dataclass
class Point:
    t: float
    actions: int
    rss_mb: float
    top_level_widgets: int
    qobjects: int
    tokenizers_alive: int
    native_cache_mb: float  # the live tokenizers' C encoder caches
    py_threads: int
    fds: int


class Heartbeat(QObject):
    """A timer on the UI thread; gaps between its ticks are stalls of the event loop.  With
    `sample_stacks`, a sampler thread takes the UI thread's stack when a gap passes
    `stack_after_s` (it needs the GIL, which Qt's calls release: the innermost Python frame is the
    one that called the slow Qt function or holds the GIL itself).  With `native`, py-spy takes it,
    C++ frames included; py-spy stops the process while it reads, and that time is left out of the
    gap.  A stall's entry in `details` carries the stack taken during it."""

    def __init__(self, stall_s: float, sample_stacks: bool = False, stack_after_s: float = STALL_S,
                 native: bool = False):
        super().__init__()
        self.native = native and shutil.which("py-spy") is not None
        self.stall_s = stall_s
        self.stack_after_s = stack_after_s
        self.stalls: list[tuple[float, str]] = []
        self.stacks: Counter = Counter()  # "innermost frames" -> stalls seen there
        self.action = "start"
        self.context = ""
        self.details: list[tuple[float, str, str]] = []  # (seconds, action, context) of each stall
        self._last = time.perf_counter()
        self._paused = 0.0  # seconds of the current gap py-spy had the process stopped
        self._stack_note = ""  # the stack taken in the current gap, for its entry in `details`
        self._timer = QTimer(self, interval=20)
        self._timer.timeout.connect(self._tick)
        self._ui_thread = threading.get_ident()
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, name="stall sampler", daemon=True) if sample_stacks else None

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()
        if self._sampler is not None:
            self._sampler.start()

    def stop(self) -> None:
        self._timer.stop()
        self._stop.set()

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = now - self._last - self._paused  # (py-spy stops the process while it reads a stack)
        self._last = now
        self._paused = 0.0
        if gap > self.stall_s:
            self.stalls.append((gap, self.action))
            self.details.append((gap, self.action, self.context + self._stack_note))
        self._stack_note = ""

    def _sample(self) -> None:
        sampled_for = None
        while not self._stop.wait(0.05):
            last = self._last
            if time.perf_counter() - last < self.stack_after_s or sampled_for == last:
                continue
            sampled_for = last
            if self.native:
                t0 = time.perf_counter()
                stack = self._native_stack()
                self._paused += time.perf_counter() - t0
            else:
                frame = sys._current_frames().get(self._ui_thread)
                if frame is None:
                    continue
                inner = [f for f in traceback.extract_stack(frame)[::-1] if "/benchmarks/" not in f.filename][:6]
                stack = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in inner) or self.action
            self.stacks[stack] += 1
            self._stack_note = f" | stack: {stack}"

    def _native_stack(self) -> str:
        """The UI thread's stack with Qt's and Python's C frames (py-spy), and what the other
        threads that are running Python do: where a stall outside tokviz's Python code is."""
        try:
            dump = subprocess.run(["py-spy", "dump", "--native", "--pid", str(os.getpid())],
                                  capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            return f"py-spy failed: {exc}"
        threads = dump.split("\nThread ")[1:]
        ui = next((t for t in threads if '"MainThread"' in t.splitlines()[0]), "")
        frames = [line.strip() for line in ui.splitlines()[1:] if line.strip() and "/benchmarks/" not in line
                  and not line.strip().startswith("0x")]
        busy = [self._thread_summary(t) for t in threads if "(active" in t.splitlines()[0] and len(t.splitlines()) > 1
                and '"MainThread"' not in t.splitlines()[0]]
        return " <- ".join(frames[:14]) + (f"  || other active threads: {'; '.join(busy[:4])}" if busy else "")

    @staticmethod
    def _thread_summary(dump: str) -> str:
        """A thread of a py-spy dump in one line: whether it holds the GIL, its innermost native
        frames and its innermost Python frames (what is running, and for whom)."""
        head, *lines = dump.splitlines()
        frames = [line.strip() for line in lines if line.strip() and not line.strip().startswith("0x")]
        python = [f for f in frames if ".py:" in f]
        native = [f for f in frames if ".py:" not in f]
        gil = "GIL " if "gil" in head else ""
        return gil + " <- ".join(native[:3] + python[:4])

    def during(self, action: str, context: str = "") -> None:
        """Name the action now running (stalls are reported with it, and in the JSON with `context`)."""
        self.action = action
        self.context = context


class DialogAnswerer(QObject):
    """Answers any dialog or menu the app opens, as a user would after reading it: Cancel/Escape."""

    def __init__(self):
        super().__init__()
        self.answered: Counter = Counter()
        self._timer = QTimer(self, interval=150)
        self._timer.timeout.connect(self._answer)
        self._timer.start()

    def _answer(self) -> None:
        widget = QApplication.activeModalWidget() or QApplication.activePopupWidget()
        if widget is None:
            return
        self.answered[type(widget).__name__ + ": " + (widget.windowTitle() or "")[:40]] += 1
        if isinstance(widget, QMessageBox):
            button = (widget.button(QMessageBox.StandardButton.Discard) or widget.button(QMessageBox.StandardButton.Cancel)
                      or widget.button(QMessageBox.StandardButton.Ok) or widget.defaultButton())
            if button is not None:
                button.click()
                return
        if isinstance(widget, (QDialog, QMessageBox)):
            widget.reject()
        elif isinstance(widget, QMenu):
            widget.close()
        else:
            widget.close()


# ---- the actions ---------------------------------------------------------------------------------


class RandomUser:
    """Actions on `window`, each a method; `act()` runs one chosen at random by weight."""

    def __init__(self, window, rng: random.Random, workdir: Path, heartbeat: Heartbeat):
        self.window = window
        self.rng = rng
        self.workdir = workdir
        self.heartbeat = heartbeat
        self.tokenizers = tokenizer_paths()
        self.texts = texts(rng)
        self.corpus_file = workdir / "corpus.txt"
        self.corpus_file.write_text("".join(t for k, t in self.texts.items() if k.endswith("5K")) * 40, encoding="utf-8")
        self.counts: Counter = Counter()
        self.seen: weakref.WeakSet = weakref.WeakSet()
        window.controller.tokenizerLoaded.connect(lambda result: self._saw(result.tokenizer))
        window.train_panel.trained.connect(self._saw)
        self.actions = [
            (self.open_tokenizer, 6), (self.open_text, 4), (self.type_text, 14), (self.paste, 4), (self.undo, 3),
            (self.compare, 4), (self.analyses, 2), (self.chat, 3), (self.merges, 5), (self.vocabulary, 4),
            (self.statistics, 2), (self.training, 2), (self.export, 3), (self.about, 1), (self.unsaved_menu, 1),
            (self.theme, 2), (self.zoom, 3), (self.resize, 2), (self.explorer, 4),
        ]

    def _saw(self, tok) -> None:
        if tok is not None:
            self.seen.add(tok)

    def act(self) -> str:
        fn = self.rng.choices([a for a, _ in self.actions], weights=[w for _, w in self.actions])[0]
        name = fn.__name__
        self.heartbeat.during(name, self.context())
        fn()
        self.counts[name] += 1
        self.heartbeat.during("after " + name, self.context())
        return name

    def context(self) -> str:
        """What a stall's cost may depend on: the tab, the text, the font size, the wrapping, the tokenizer."""
        w = self.window
        tok = w.tokenizer()
        return (f"tab {w.tabs.currentIndex()}, text {w.editor.document().characterCount():,} chars"
                f"{' (big file)' if w.is_big_file() else ''}, font {w.editor.font().pointSizeF():g} pt"
                f"{', wraps anywhere' if w.editor.wraps_anywhere() else ''}, {tok.source.name if tok else 'no tokenizer'}")

    # -- the actions ----------------------------------------------------------------------------------
    def open_tokenizer(self) -> None:
        self.window.open_tokenizer(self.rng.choice(self.tokenizers))

    def open_text(self) -> None:
        name = self.rng.choice(sorted(self.texts))
        self.window.set_text(self.texts[name])

    def type_text(self) -> None:
        from PySide6.QtGui import QTextCursor
        from PySide6.QtTest import QTest

        editor = self.window.editor
        if editor.isReadOnly():
            return
        self.window.tabs.setCurrentWidget(self.window.splitter)
        cursor = editor.textCursor()
        cursor.setPosition(self.rng.randint(0, max(0, editor.document().characterCount() - 1)))
        editor.setTextCursor(cursor)
        editor.setFocus()
        for ch in self.rng.choice(TYPED):
            if ch == "\n":
                QTest.keyClick(editor, Qt.Key.Key_Return)
            elif ch.isascii():
                QTest.keyClicks(editor, ch)
            else:
                editor.textCursor().insertText(ch)  # (QTest cannot type what has no key)
            soak.pump(self.rng.randint(5, 60))
        if self.rng.random() < 0.2:
            QTest.keyClick(editor, Qt.Key.Key_Backspace)
        editor.moveCursor(QTextCursor.MoveOperation.NoMove)

    def paste(self) -> None:
        editor = self.window.editor
        if editor.isReadOnly():
            return
        name = self.rng.choice(sorted(self.texts))
        QApplication.clipboard().setText(self.texts[name][: self.rng.choice((200, 5_000, 50_000, 100_000))])
        editor.paste()

    def undo(self) -> None:
        self.window.editor.undo()

    def compare(self) -> None:
        view = self.window.compare_view
        self.window.show_compare()
        if view.paths() and self.rng.random() < 0.4:
            view.remove_pane(self.rng.randrange(len(view.paths())))
        else:
            view.add_path(self.rng.choice(self.tokenizers))

    def analyses(self) -> None:
        self.window.tabs.setCurrentWidget(self.window.analyses_view)

    def chat(self) -> None:
        view = self.window.chat_view
        self.window.tabs.setCurrentWidget(view)
        count = len(view.conversation().messages)
        if count > 6 or (count and self.rng.random() < 0.3):
            view.remove_message(self.rng.randrange(count))
        else:
            view.add_message(self.rng.choice(("user", "assistant", "system")), self.rng.choice(TYPED) * 3)

    def merges(self) -> None:
        w = self.window
        w.tabs.setCurrentWidget(w.splitter)
        w.merges_dock.show()
        w.merges_dock.raise_()
        enc = w.token_view.encoding()
        if enc is not None and len(enc):
            index = self.rng.randrange(len(enc))
            w.token_view.tokenHovered.emit(index)
            soak.pump(30)
            w.token_view.tokenClicked.emit(index)
            w.token_view.tokenHovered.emit(-1)
        if self.rng.random() < 0.3:
            w.merges_dock.close()

    def vocabulary(self) -> None:
        w = self.window
        w.vocab_dock.show()
        w.vocab_dock.raise_()
        w.vocab_view.filter_input.setText(self.rng.choice(("", "the", "/^Ġ/", "/^▁/", "中", "/\\d+/")))
        if self.rng.random() < 0.3:
            w.vocab_dock.close()

    def statistics(self) -> None:
        w, view = self.window, self.window.stats_view
        w.stats_dock.show()
        w.stats_dock.raise_()
        if view.is_running():
            view.cancel_button.click()
            return
        view.set_corpus([self.corpus_file])
        view.run_button.click()

    def training(self) -> None:
        w, panel = self.window, self.window.train_panel
        w.train_dock.show()
        w.train_dock.raise_()
        if panel.is_training():
            panel.cancel_button.click()
            return
        panel.set_files([self.corpus_file])
        panel.set_model(self.rng.choice(soak.TRAIN_MODELS))
        panel.vocab_size.setValue(self.rng.choice((600, 2_000)))
        panel.train_button.click()

    def export(self) -> None:
        dialog = self.window.export_tokenizer()
        if dialog is None:
            return
        soak.pump(self.rng.randint(20, 600))
        if shiboken6.isValid(dialog) and dialog.isVisible():  # (the answerer may have closed it)
            dialog.reject()

    def about(self) -> None:
        box = self.window.show_about()
        soak.pump(100)
        if shiboken6.isValid(box) and box.isVisible():  # (the answerer may have closed and deleted it)
            box.close()

    def unsaved_menu(self) -> None:
        self.window.fill_unsaved_menu()

    def theme(self) -> None:
        self.window.set_theme(self.rng.choice(("light", "dark", "system")))

    def zoom(self) -> None:
        self.window.zoom(self.rng.choice((1, 1, -1, -1, 0)))

    def resize(self) -> None:
        self.window.resize(*self.rng.choice(SIZES))

    def explorer(self) -> None:
        self.window.tabs.setCurrentWidget(self.window.splitter)


# ---- the run -------------------------------------------------------------------------------------


def sample(window, user: RandomUser, t0: float, actions: int) -> Point:
    return Point(t=round(time.monotonic() - t0, 1), actions=actions, rss_mb=round(soak.rss_mb(), 1),
                 top_level_widgets=len(QApplication.topLevelWidgets()),
                 qobjects=len(window.findChildren(QObject)), tokenizers_alive=len(list(user.seen)),
                 native_cache_mb=round(sum(t.native_cache_info()["bytes"] for t in list(user.seen)) / 2**20, 1),
                 py_threads=len(soak.python_threads()), fds=soak.open_fds())


def census(window, user: RandomUser) -> dict:
    """What is alive: top-level widgets and QObjects under the window by class, live tokenizers."""
    return {"top_level": dict(Counter(type(w).__name__ for w in QApplication.topLevelWidgets()).most_common()),
            "qobjects": dict(soak.qobject_census(window).most_common(40)),
            "tokenizers": sorted(soak.alive_names(user.seen))}


def settle(window, timeout_s: float = 120, *, rest: bool = False) -> None:
    """Stop what is running (a training, statistics), wait for the window to be idle, collect.
    `rest`: then leave the window idle for as long as a person pausing would (the idle clean-up and
    a heap trim run meanwhile, as they do for such a person), for the base and end samples."""
    if window.train_panel.is_training():
        window.train_panel.cancel_button.click()
    if window.stats_view.is_running():
        window.stats_view.cancel_button.click()
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        soak.pump(100)
        if (window.is_up_to_date() and not window.compare_view.is_busy() and not window.train_panel.is_training()
                and not window.stats_view.is_running()):
            break
    soak.pump(500)
    gc.collect()
    soak.pump(100)
    if rest:
        from tokviz.gui.window.idle import QUIET_MS, TRIM_EVERY_MS

        soak.wait_until(lambda: not window.idle.pending(), 60, "the idle clean-up")
        soak.pump(QUIET_MS + TRIM_EVERY_MS + 500)


def home_rss(window) -> dict[str, float]:
    """RSS in the same state whenever asked: every Compare pane removed, the shipped tokenizer and a
    short text in the explorer, the docks closed, the window idle and its idle clean-up done.  Base
    and end compare what the session had open; these compare what it left behind.  The RSS after
    each step of the way home is given too ("panes", "explorer", "docks"; "home" at the end): what
    each part of the session held."""
    w = window
    steps = {}

    def rested(name: str) -> None:
        settle(window)
        w.idle.needed()
        soak.wait_until(lambda: not w.idle.pending(), 60, "the idle clean-up")
        soak.pump(300)
        steps[name] = round(soak.rss_mb(), 1)

    while w.compare_view.panes:
        w.compare_view.remove_pane(0)
    rested("panes")
    w.open_tokenizer(REPO / "resources" / "tokviz-demo.model")
    w.set_text("A short text.")
    soak.wait_until(lambda: w.tokenizer() is not None and w.tokenizer().source.name == "tokviz-demo", 60,
                    "the shipped tokenizer in the explorer")
    rested("explorer")
    for dock in (w.merges_dock, w.vocab_dock, w.stats_dock, w.train_dock, w.edit_dock):
        dock.close()
    w.tabs.setCurrentWidget(w.splitter)
    rested("home")
    return steps


def verdict(base: Point, end: Point, stalls: list[tuple[float, str]], errors: list[str]) -> list[str]:
    problems = []
    if errors:
        problems.append(f"{len(errors)} errors")
    long = [s for s in stalls if s[0] > STALL_S]
    if long:
        problems.append(f"{len(long)} UI-thread stalls over {STALL_S:.0f} s")
    if end.top_level_widgets > base.top_level_widgets + WIDGETS_SLACK:
        problems.append(f"top-level widgets {base.top_level_widgets} -> {end.top_level_widgets}")
    if end.rss_mb > RSS_FACTOR * base.rss_mb:
        problems.append(f"RSS {base.rss_mb:.0f} -> {end.rss_mb:.0f} MB (over {RSS_FACTOR}x)")
    return problems


def run(minutes: float, seed: int, *, base_minutes: float = 2.0, stall_ms: float = 200, stacks: bool = False,
        stack_after_s: float = STALL_S, native_stacks: bool = False, home: bool = True, ui_gate: bool = True,
        log=print) -> dict:
    from tokviz.gui.app import ensure_application
    from tokviz.gui.window.main_window import MainWindow
    from tokviz.gui.settings import Settings

    rng = random.Random(seed)
    ensure_application(gated=ui_gate)  # (as the app itself starts: its allocator and thread settings)
    workdir = Path(tempfile.mkdtemp(prefix="tokviz-random-soak-"))
    catcher = soak.ErrorCatcher()
    warned: Counter = Counter()

    def note_warning(message, category, filename, lineno, file=None, line=None) -> None:
        ours = [f for f in traceback.extract_stack()[:-1] if "/tokviz/" in f.filename]
        where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else f"{Path(filename).name}:{lineno}"
        warned[f"{category.__name__}: {message} (from {where})"] += 1

    shown_before = warnings.showwarning
    warnings.showwarning = note_warning
    settings = Settings(workdir / "settings.ini")  # (its own: never the user's session, recent files or kept tokenizers)
    window = MainWindow(REPO / "resources" / "tokviz-demo.model", None, error_handler=catcher.dialog, settings=settings)
    window.resize(*SIZES[0])
    window.show()
    catcher.install()
    heartbeat = Heartbeat(stall_ms / 1000, stacks, stack_after_s, native_stacks)
    answerer = DialogAnswerer()
    user = RandomUser(window, rng, workdir, heartbeat)
    settle(window)
    heartbeat.start()
    t0 = time.monotonic()
    points: list[Point] = [sample(window, user, t0, 0)]
    base: Point | None = None
    actions = 0
    last_sample = t0
    failures: list[str] = []
    paused = 0.0  # (the base sample's rest and trip home are not part of the session's minutes)
    try:
        while time.monotonic() - t0 - paused < minutes * 60:
            try:
                user.act()
            except Exception as exc:  # noqa: BLE001  (an action that raises is a finding, not the end)
                failures.append(f"{heartbeat.action}: {type(exc).__name__}: {exc}")
            actions += 1
            soak.pump(rng.randint(20, 400))
            if time.monotonic() - last_sample >= soak.SAMPLE_SECONDS:
                last_sample = time.monotonic()
                points.append(sample(window, user, t0, actions))
                log(f"  {points[-1].t:7.1f} s  {actions:5d} actions  RSS {points[-1].rss_mb:7.1f} MB  "
                    f"top-level {points[-1].top_level_widgets:4d}  QObjects {points[-1].qobjects:6d}  "
                    f"tokenizers {points[-1].tokenizers_alive:3d} (caches {points[-1].native_cache_mb:.0f} MB)  stalls>1s {sum(s[0] > STALL_S for s in heartbeat.stalls)}")
            if base is None and time.monotonic() - t0 >= base_minutes * 60:
                sampling = time.monotonic()
                heartbeat.during("base sample")
                settle(window, rest=True)
                base = sample(window, user, t0, actions)
                base_census = census(window, user)
                base_home = home_rss(window) if home else None
                log(f"  base at {base.t:.0f} s: RSS {base.rss_mb:.1f} MB (on the way home {base_home} MB), "
                    f"top-level widgets {base.top_level_widgets}")
                paused += time.monotonic() - sampling
        heartbeat.during("settling at the end")
        settle(window, rest=True)
        end = sample(window, user, t0, actions)
        end_census = census(window, user)
        heartbeat.during("going home at the end")
        end_home = home_rss(window) if home else None
    finally:
        heartbeat.stop()
        catcher.uninstall()
        warnings.showwarning = shown_before
    if base is None:
        base, base_census, base_home = points[0], {}, None
    errors = catcher.errors + [f"action raised: {f}" for f in failures]
    result = {
        "seed": seed, "minutes": minutes, "actions": actions, "counts": dict(user.counts),
        "dialogs_answered": dict(answerer.answered), "base": asdict(base), "end": asdict(end),
        "points": [asdict(p) for p in points], "census": {"base": base_census, "end": end_census},
        "home_rss_mb": {"base": base_home, "end": end_home},
        "stalls": [{"seconds": round(s, 3), "action": a, "context": c} for s, a, c in sorted(heartbeat.details, reverse=True)],
        "stall_stacks": dict(heartbeat.stacks.most_common()), "errors": errors,
        "qt_warnings": dict(catcher.qt_warnings.most_common(20)), "python_warnings": dict(warned.most_common(20)),
    }
    result["problems"] = verdict(base, end, heartbeat.stalls, errors)
    window.close()
    window.deleteLater()
    soak.pump(200)
    shutil.rmtree(workdir, ignore_errors=True)
    return result


def report(result: dict) -> str:
    base, end = result["base"], result["end"]
    stalls = result["stalls"]
    by_action: Counter = Counter()
    worst: dict[str, float] = {}
    for s in stalls:
        by_action[s["action"]] += 1
        worst[s["action"]] = max(worst.get(s["action"], 0.0), s["seconds"])
    lines = [f"random soak, seed {result['seed']}: {result['actions']} actions in {result['minutes']:g} min",
             "actions: " + ", ".join(f"{k} {v}" for k, v in sorted(result["counts"].items())),
             f"{'':12s} {'RSS MB':>8s} {'top-level':>10s} {'QObjects':>9s} {'tokenizers':>11s} {'threads':>8s} {'fds':>5s}"]
    for label, p in (("start", result["points"][0]), ("base", base), ("end", end)):
        lines.append(f"{label + ' (' + format(p['t'], '.0f') + ' s)':12s} {p['rss_mb']:8.1f} {p['top_level_widgets']:10d} "
                     f"{p['qobjects']:9d} {p['tokenizers_alive']:11d} {p['py_threads']:8d} {p['fds']:5d}")
    home = result.get("home_rss_mb") or {}
    if home.get("base") is not None and home.get("end") is not None:
        lines.append("RSS (MB) on the way home: every Compare pane removed / the shipped tokenizer and a short text "
                     "in the explorer / docks closed (home)")
        for label in ("base", "end"):
            lines.append(f"  after the {label}: " + " / ".join(f"{home[label][k]:.1f}" for k in ("panes", "explorer", "home")))
    over = [s for s in stalls if s["seconds"] > STALL_S]
    lines.append(f"UI-thread stalls over the report threshold: {len(stalls)} ({len(over)} over {STALL_S:.0f} s)")
    for action, n in by_action.most_common(12):
        lines.append(f"  {action:28s} {n:4d}  worst {worst[action]:.2f} s")
    for s in over:
        lines.append(f"  over {STALL_S:.0f} s: {s['seconds']:.2f} s in {s['action']} ({s.get('context', '')})")
    before, after = result["census"].get("base", {}), result["census"].get("end", {})
    for kind in ("top_level", "qobjects"):
        grown = {k: after.get(kind, {}).get(k, 0) - before.get(kind, {}).get(k, 0) for k in after.get(kind, {})}
        grown = {k: v for k, v in grown.items() if v > 0}
        if grown:
            lines.append(f"grew ({kind}): " + ", ".join(f"{k} +{v}" for k, v in sorted(grown.items(), key=lambda kv: -kv[1])[:12]))
    if after:
        lines.append("tokenizers alive at the end: " + ", ".join(after["tokenizers"]))
    for warning, n in result["python_warnings"].items():
        lines.append(f"warning {n}x: {warning[:200]}")
    lines.append(f"errors: {len(result['errors'])}")
    lines += ["  " + e.splitlines()[0][:200] if e else "" for e in result["errors"][:10]]
    lines.append("verdict: " + ("; ".join(result["problems"]) if result["problems"] else "flat and responsive"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base-minutes", type=float, default=2.0, help="when the base sample is taken")
    parser.add_argument("--stall-ms", type=float, default=200.0, help="report UI-thread gaps longer than this")
    parser.add_argument("--stacks", action="store_true", help="sample the UI thread's stack in stalls over --stack-after")
    parser.add_argument("--native-stacks", action="store_true",
                        help="with --stacks: take them with py-spy (if installed), Qt's C++ frames included")
    parser.add_argument("--stack-after", type=float, default=STALL_S, help="seconds (default 1)")
    parser.add_argument("--json", type=Path, help="write the whole result (samples, stalls, errors) here")
    parser.add_argument("--default-allocator", action="store_true",
                        help="keep Python's own allocator (the app runs with glibc's: tokviz/launch.py)")
    parser.add_argument("--no-ui-gate", action="store_true",
                        help="workers do not pause while the UI thread is busy (the app's gui/ui_gate.py)")
    args = parser.parse_args(argv)
    if not args.default_allocator:
        from tokviz.launch import run_again_in_app_environment

        run_again_in_app_environment()  # (as `tokviz` starts the app)
    result = run(args.minutes, args.seed, base_minutes=args.base_minutes, stall_ms=args.stall_ms, stacks=args.stacks,
                 stack_after_s=args.stack_after, native_stacks=args.native_stacks, ui_gate=not args.no_ui_gate)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(report(result))
    if args.stacks:
        print(f"the UI thread during stalls over {args.stack_after:g} s (innermost first):")
        for stack, n in list(result["stall_stacks"].items())[:15]:
            print(f"  {n:3d}x {stack}")
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
