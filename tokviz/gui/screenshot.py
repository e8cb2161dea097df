"""`tokviz screenshot VIEW`: render a view offscreen to a PNG (for docs, bug reports and checks)."""
from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ..defaults import default_tokenizer_path, parallel_sample_path
from ..errors import TokvizError
from ..paths import check_regular_file, stat_path

ANALYSIS_PAGES = ("fairness", "robustness", "overlap")  # the Analyses tab's pages, in order
VIEWS = ("explorer", "window", "merges", "vocab", "stats", "compare", "train", "chat", "robustness", "fairness", "overlap",
         "learn", "learn-wordpiece", "learn-unigram")
LEARN_VIEWS = {"learn": "bpe", "learn-wordpiece": "wordpiece", "learn-unigram": "unigram"}  # view -> the model learned
DOCKS = ("merges", "vocab", "stats", "train", "edit", "roundtrip")  # the right-hand docks, tabbed: one is raised
PLANNED_VIEWS: tuple[str, ...] = ()  # views of issues still to come


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Run the Qt event loop until `condition()` holds or `timeout` seconds pass; True if it held."""
    from PySide6.QtCore import QCoreApplication, QEventLoop

    deadline = time.monotonic() + timeout
    app = QCoreApplication.instance()
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents | QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
    return True


_QUIET = ("does not support propagateSizeHints",)
_quieted = False


def _quiet_offscreen_warnings() -> None:
    """The offscreen platform warns about window-manager hints it cannot honour; drop just those."""
    global _quieted
    if _quieted:
        return
    _quieted = True
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(mode, context, message):
        if any(q in message for q in _QUIET):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            import sys

            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)


def screenshot(
    view: str,
    tokenizers: list[str],
    text_file: str | None,
    out: str | os.PathLike,
    width: int = 1200,
    height: int = 800,
    *,
    timeout: float = 120.0,
    dock: str = "merges",
    tab: str = "explorer",
    language: str = "en",
) -> Path:
    """Render `view` at width x height to the PNG `out` and return its path.

    "explorer": the main window on tokenizers[0] (or the shipped default) and `text_file` (or the
    sample text), grabbed once the tokenizer is loaded and the text encoded.  "merges": the Merges
    panel on the same, showing the merge tree and the trace of the word of the text that takes the
    most merges.  "vocab": the Vocabulary view (figures, charts, table).  "stats": the Statistics
    view measuring `text_file` (or the sample text) as the corpus.  "compare": the Compare view with
    a pane per tokenizer (at least two; the shipped default is added to a single one) on the text.
    "train": the Training panel after training a byte-level BPE of 2,000 tokens on `text_file` (or the
    shipped training text).  "chat": the Chat tab on tokenizers[0] (which needs a chat template), with
    the conversation of `text_file` (a JSON file of messages) or the tab's starter conversation. "robustness": the Robustness page
    on every tokenizer given, the text side by side under homoglyphs and the corpus run on the text.  "fairness": the Fairness page on every
    tokenizer given, run on the parallel files of `text_file` (a folder) or the shipped sample (resources/parallel).  "overlap": the Overlap page on every tokenizer given (at least two), run.  "window": the whole main window exactly width x height, as a user sees it,
    with every dock open (the right-hand ones tabbed, `dock` raised), the Compare tab holding every
    tokenizer given and `tab` ("explorer", "compare", "chat", "learn" or an Analyses page) showing.  `language`: the language
    the view speaks (gui/i18n; the app's own language is back as it was afterwards).  Raises ValueError for an unknown
    view and TokvizError when a tokenizer or the text cannot be opened, or the window cannot be
    that small."""
    if view not in VIEWS:
        planned = f" ({', '.join(PLANNED_VIEWS)} are planned)" if view in PLANNED_VIEWS else ""
        raise ValueError(f"unknown view {view!r}{planned}; available views: {', '.join(VIEWS)}")
    if width < 200 or height < 150:
        raise ValueError(f"window size {width}x{height} is too small (at least 200x150)")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from . import i18n
    from .app import ensure_application

    language = i18n.check_language(language)
    previous = i18n.current_language()
    ensure_application(language=language)
    try:
        return _render(view, tokenizers, text_file, out, width, height, timeout, dock, tab)
    finally:
        if i18n.current_language() != previous:
            i18n.install(previous)


def _render(view, tokenizers, text_file, out, width, height, timeout, dock, tab) -> Path:
    from .window import files
    from .app import ensure_application

    if view == "chat":
        return _chat(ensure_application(), tokenizers, text_file, Path(out), width, height, timeout)
    if view == "fairness":  # (its --text is a folder or file of parallel texts, read by the page)
        return _fairness(ensure_application(), tokenizers, text_file, Path(out), width, height, timeout)
    if text_file is not None:  # a TokvizError naming the file, before any window exists
        from .window.main_window import BIG_FILE_BYTES, PREVIEW_BYTES

        if check_regular_file(text_file, "a text file").st_size > BIG_FILE_BYTES:
            files.read_text_head(text_file, PREVIEW_BYTES)  # opened in big-file mode: only its start is read
        else:
            files.read_text_file(text_file)
    app = ensure_application()
    _quiet_offscreen_warnings()
    if view == "merges":
        return _merges(app, tokenizers, text_file, Path(out), width, height)
    if view == "train":
        return _train(app, text_file, Path(out), width, height, timeout)
    if view in LEARN_VIEWS:
        return _learn(app, LEARN_VIEWS[view], Path(out), width, height, timeout)
    if view == "overlap":
        return _overlap(app, tokenizers, Path(out), width, height, timeout)
    if view == "robustness":
        return _robustness(app, tokenizers, text_file, Path(out), width, height, timeout)
    if view == "compare":
        return _compare(app, tokenizers, text_file, Path(out), width, height, timeout)
    if view in ("vocab", "stats"):
        return _statistics(view, app, tokenizers, text_file, Path(out), width, height, timeout)
    if view == "window":
        if dock not in DOCKS:
            raise ValueError(f"unknown dock {dock!r}; the right-hand docks: {', '.join(DOCKS)}")
        if tab not in ("explorer", "compare", "chat", "learn", *ANALYSIS_PAGES):
            raise ValueError(f"unknown tab {tab!r} (explorer, compare, chat, learn, or the Analyses tab's pages: "
                             f"{', '.join(ANALYSIS_PAGES)})")
        return _whole_window(app, tokenizers, text_file, Path(out), width, height, timeout, dock, tab)
    from .window.main_window import MainWindow
    from .settings import Settings

    errors: list[TokvizError] = []
    scratch = tempfile.TemporaryDirectory()  # a fresh layout, and nothing added to the user's recent files
    window = MainWindow(
        tokenizers[0] if tokenizers else default_tokenizer_path(),
        text_file=text_file,
        error_handler=lambda title, message: None,  # no dialogs: errorReported raises below
        settings=Settings(os.path.join(scratch.name, "settings.ini")),
    )
    window.errorReported.connect(lambda title, path, reason: errors.append(TokvizError(reason, path or None)))
    try:
        window.resize(width, height)
        window.show()
        # (the Library fills in on a worker too: a screenshot shows it complete)
        done = wait_until(lambda: bool(errors) or (window.is_up_to_date() and not window.library.is_busy()), timeout)
        if errors:
            raise errors[0]
        if not done:
            raise TokvizError(f"the {view} view did not finish loading within {timeout:.0f} s")
        return _save_png(app, window, Path(out))
    finally:
        window.close()
        window.deleteLater()
        scratch.cleanup()


def _whole_window(app, tokenizers, text_file, out: Path, width: int, height: int, timeout: float,
                  dock: str, tab: str) -> Path:
    from .. import load
    from .window.main_window import MainWindow
    from .settings import Settings

    paths = list(tokenizers) or [str(default_tokenizer_path())]
    # (errors name the file before any window opens; prepared as the app's loading worker does)
    loaded = [load(p).prepare() for p in paths]
    errors: list[TokvizError] = []
    scratch = tempfile.TemporaryDirectory()
    window = MainWindow(loaded[0], text_file=text_file, error_handler=lambda title, message: None,
                        settings=Settings(os.path.join(scratch.name, "settings.ini")))
    window.errorReported.connect(lambda title, path, reason: errors.append(TokvizError(reason, path or None)))
    try:
        window.show()
        window.resize(width, height)  # (before the docks open: they take their first widths from it)
        for each in window.docks.all():
            each.show()
        getattr(window.docks, dock).raise_()
        window.tabs.setCurrentWidget(window.compare_view)  # (the Compare set is made when first shown)
        for tok in loaded[1:]:
            window.compare_view.add_tokenizer(tok)
        if tab == "explorer":
            window.tabs.setCurrentIndex(0)
        elif tab == "chat":
            window.tabs.setCurrentWidget(window.chat_view)
        elif tab == "learn":
            window.tabs.setCurrentWidget(window.learn_view)
            _show_learn_step(window.learn_view, 1, timeout)
        elif tab in ANALYSIS_PAGES:
            _run_analysis_page(window, tab, errors, timeout)
        window.resize(width, height)
        done = wait_until(lambda: bool(errors) or (window.is_up_to_date() and not window.library.is_busy()
                                                   and not window.compare_view.is_busy()
                                                   and not window.chat_view.is_busy()
                                                   and not window.vocab_view.is_busy()
                                                   and not window.roundtrip_panel.is_busy()
                                                   and not window.learn_view.is_busy()), timeout)
        if errors:
            raise errors[0]
        if not done:
            raise TokvizError(f"the window did not finish loading within {timeout:.0f} s")
        for _ in range(3):
            app.sendPostedEvents()
            app.processEvents()
        if (window.width(), window.height()) != (width, height):
            hint = window.minimumSizeHint()
            raise TokvizError(f"the window cannot be {width}x{height}: it is {window.width()}x{window.height()} "
                              f"(its minimum size is {hint.width()}x{hint.height()})")
        return _save_png(app, window, out)
    finally:
        window.close()
        window.deleteLater()
        scratch.cleanup()


def _run_analysis_page(window, name: str, errors: list, timeout: float) -> None:
    """Show the Analyses tab on the page called `name` (once the Compare set has loaded) and run it."""
    if not wait_until(lambda: not window.compare_view.is_busy() and window.is_up_to_date(), timeout):
        raise TokvizError(f"the tokenizers did not load within {timeout:.0f} s")
    window.tabs.setCurrentWidget(window.analyses_view)
    tabs = window.analyses_view.tabs
    # (by the page's objectName, set by the window: its tab's title is translated)
    index = [page.objectName() for page in window.analyses_view.pages].index(f"{name.capitalize()}Page")
    tabs.setCurrentIndex(index)
    page = window.analyses_view.pages[index]
    results: list = []
    page.finished.connect(results.append)
    page.failed.connect(lambda reason: errors.append(TokvizError(reason)))
    page.run()
    if not wait_until(lambda: bool(errors) or (bool(results) and not page.is_busy()), timeout):
        raise TokvizError(f"the {name} analysis did not finish within {timeout:.0f} s")


def _merges(app, tokenizers: list[str], text_file: str | None, out: Path, width: int, height: int) -> Path:
    from .. import load
    from ..analysis.merges import trace_bpe
    from ..analysis.segments import words_of
    from ..core.models.bpe import BPE
    from ..defaults import sample_text
    from .window import files
    from .panels.merges_panel import MergesPanel

    tok = load(tokenizers[0] if tokenizers else default_tokenizer_path())
    text = files.read_text_head(text_file, 64 * 1024) if text_file else sample_text()
    panel = MergesPanel()
    try:
        panel.set_tokenizer(tok)
        panel.resize(width, height)
        panel.show()
        # a real word (letters, not a run of '=') that takes many merges tells the most
        words = [w for w in words_of(tok, text[:4000])[:300] if any(c.isalpha() for c in w[1]) and len(w[1]) <= 24]
        if words:
            if isinstance(tok.model, BPE):
                word, source = max(words, key=lambda w: len(trace_bpe(tok.model, w[0]).steps))
                longest = max((s for s, _ in tok.model._word(word)), key=len)
                panel.show_token(longest)
            else:
                word, source = max(words, key=lambda w: len(w[0]))
            panel.trace_text(source)
            wait_until(lambda: not panel.is_indexing())  # (the tree, used-by and trace fill in)
            panel.set_step(max(1, panel.step_count() // 2))
        return _save_png(app, panel, out)
    finally:
        _dispose(panel)


def _statistics(view: str, app, tokenizers, text_file, out: Path, width: int, height: int, timeout: float) -> Path:
    from .. import load
    from ..defaults import sample_text_path
    from .views.stats_view import StatsView
    from .views.vocab_view import VocabView

    tok = load(tokenizers[0] if tokenizers else default_tokenizer_path())
    widget = VocabView() if view == "vocab" else StatsView()
    done: list = []
    try:
        widget.resize(width, height)
        widget.show()
        widget.set_tokenizer(tok)
        if view == "vocab":
            widget.ready.connect(done.append)
        else:
            widget.finished.connect(done.append)
            widget.cancelled.connect(lambda: done.append(None))
            widget.set_corpus([text_file or sample_text_path()])
            widget.run()
        if not wait_until(lambda: bool(done), timeout):
            raise TokvizError(f"the {view} view did not finish within {timeout:.0f} s")
        if view == "stats" and done[0] is None:
            raise TokvizError(widget.status.text())
        return _save_png(app, widget, out)
    finally:
        _dispose(widget)


def _compare(app, tokenizers, text_file, out: Path, width: int, height: int, timeout: float) -> Path:
    from .. import load
    from ..defaults import sample_text
    from .window import files
    from .views.compare_view import CompareView

    paths = list(tokenizers) or [str(default_tokenizer_path())]
    if len(paths) < 2:
        paths.append(str(default_tokenizer_path()))
    loaded = [load(p) for p in paths]  # (errors name the file before any window opens)
    text = files.read_text_head(text_file, 64 * 1024) if text_file else sample_text()
    view = CompareView()
    done: list = []
    try:
        view.resize(width, height)
        view.show()
        view.compared.connect(done.append)
        view.set_text(text)
        for tok in loaded:
            view.add_tokenizer(tok)
        if not wait_until(lambda: bool(done), timeout):
            raise TokvizError(f"the compare view did not finish within {timeout:.0f} s")
        return _save_png(app, view, out)
    finally:
        _dispose(view)


def _robustness(app, tokenizers, text_file, out: Path, width: int, height: int, timeout: float) -> Path:
    """The Robustness page on every tokenizer given (or the shipped default) and the text: the
    homoglyph perturbation side by side on the first tokenizer, and the corpus run on the text."""
    from ..defaults import sample_text
    from .window import files
    from .analyses.robustness_view import RobustnessView

    loaded = _named_tokenizers(list(tokenizers) or [str(default_tokenizer_path())])
    text = files.read_text_head(text_file, 64 * 1024) if text_file else sample_text()
    view = RobustnessView()
    previewed: list = []
    view.previewed.connect(previewed.append)
    return _analysis_png(app, view, "robustness", loaded, out, width, height, timeout,
                         before_run=lambda: view.set_text(text), ready=lambda: bool(previewed))


def _fairness(app, tokenizers, text_file, out: Path, width: int, height: int, timeout: float) -> Path:
    """The Fairness page on every tokenizer given (or the shipped default), run on `text_file` (a
    folder of parallel files, or one file) or the shipped parallel sample (resources/parallel)."""
    from ..analysis.fairness import parallel_files
    from .analyses.fairness_view import FairnessView

    loaded = _named_tokenizers(list(tokenizers) or [str(default_tokenizer_path())])
    source = Path(text_file) if text_file else parallel_sample_path()
    try:
        os.stat(source)
    except FileNotFoundError:
        raise TokvizError("no parallel files: give --text a folder of them (one file per language)", source) from None
    except (OSError, ValueError):
        stat_path(source)  # (raises, naming it and why it cannot be looked at)
    parallel_files([source])  # (a pipe, an unlistable folder: named here, before any window; nothing is read)
    view = FairnessView()
    return _analysis_png(app, view, "fairness", loaded, out, width, height, timeout,
                         before_run=lambda: view.set_files([source]))


def _overlap(app, tokenizers, out: Path, width: int, height: int, timeout: float) -> Path:
    """The Overlap page on every tokenizer given (at least two; the shipped default is added to a
    single one), run, the first pair selected."""
    from .analyses.overlap_view import OverlapView

    paths = list(tokenizers) or [str(default_tokenizer_path())]
    if len(paths) < 2:
        paths.append(str(default_tokenizer_path()))
    loaded = _named_tokenizers(paths)
    return _analysis_png(app, OverlapView(), "overlap", loaded, out, width, height, timeout)


def _chat(app, tokenizers, text_file, out: Path, width: int, height: int, timeout: float) -> Path:
    from .. import load
    from ..core.chat import read_conversation
    from .views.chat_view import ChatView

    tok = load(tokenizers[0] if tokenizers else default_tokenizer_path())
    conversation = read_conversation(text_file) if text_file else None  # (errors name the file first)
    view = ChatView()
    done: list = []
    try:
        view.resize(width, height)
        view.show()
        view.rendered.connect(done.append)
        view.failed.connect(lambda reason: done.append(TokvizError(reason)))
        if conversation is not None:
            view.set_conversation(conversation, text_file)
        view.set_tokenizer(tok)
        if not wait_until(lambda: bool(done) and not view.is_busy(), timeout):
            raise TokvizError(f"the chat view did not finish within {timeout:.0f} s")
        if isinstance(done[-1], TokvizError):
            raise done[-1]
        return _save_png(app, view, out)
    finally:
        _dispose(view)


def _train(app, text_file, out: Path, width: int, height: int, timeout: float) -> Path:
    from ..defaults import resource_path
    from .panels.train_panel import TrainPanel

    panel = TrainPanel()
    done: list = []
    try:
        panel.resize(width, height)
        panel.show()
        panel.set_files([text_file or resource_path("training.txt")])
        panel.vocab_size.setValue(2000)
        for signal in (panel.trained, panel.failed, panel.cancelled):
            signal.connect(lambda *args: done.append(args))
        if not panel.start():
            raise TokvizError(panel.status.text())
        if not wait_until(lambda: bool(done), timeout):
            raise TokvizError(f"training did not finish within {timeout:.0f} s")
        if panel.result is None:
            raise TokvizError(panel.status.text())
        return _save_png(app, panel, out)
    finally:
        _dispose(panel)


def _learn(app, model: str, out: Path, width: int, height: int, timeout: float) -> Path:
    """The Learn tab on the textbook's words: BPE or WordPiece at step 1, Unigram at its first
    pruning round."""
    from .views.learn_view import LearnView

    view = LearnView()
    try:
        view.input.set_model(model)
        view.resize(width, height)
        view.show()
        run = _show_learn_step(view, 1, timeout)
        if model == "unigram":
            view.set_position(next((s.number for s in run.steps if s.kind == "prune"), len(run.steps)))
            if not wait_until(lambda: not view.is_busy(), timeout):
                raise TokvizError(f"the Learn view did not cut its sample within {timeout:.0f} s")
        return _save_png(app, view, out)
    finally:
        _dispose(view)


def _show_learn_step(view, position: int, timeout: float):
    """Learn (the view's form as it stands) and show step `position`, its sample cut; the run."""
    outcome: list = []
    view.learned.connect(outcome.append)
    view.failed.connect(lambda reason: outcome.append(TokvizError(reason)))
    view.learn()
    if not wait_until(lambda: bool(outcome) and not view.is_busy(), timeout):
        raise TokvizError(f"the Learn view did not finish within {timeout:.0f} s")
    if isinstance(outcome[-1], TokvizError):
        raise outcome[-1]
    view.set_position(position)
    if not wait_until(lambda: not view.is_busy(), timeout):
        raise TokvizError(f"the Learn view did not cut its sample within {timeout:.0f} s")
    return outcome[-1]


def _analysis_png(app, view, name: str, tokenizers: dict, out: Path, width: int, height: int, timeout: float, *,
                  before_run=None, ready=lambda: True) -> Path:
    """An analysis page (Fairness, Robustness, Overlap) run on `tokenizers` and saved once it
    has finished and ready() holds; its failure or cancel is raised as a TokvizError."""
    _quiet_offscreen_warnings()
    outcome: list = []
    try:
        view.resize(width, height)
        view.show()
        view.finished.connect(outcome.append)
        view.failed.connect(lambda reason: outcome.append(TokvizError(reason)))
        view.cancelled.connect(lambda: outcome.append(TokvizError(f"the {name} view was cancelled")))
        view.set_tokenizers(tokenizers)
        if before_run is not None:
            before_run()
        view.run()
        if not wait_until(lambda: bool(outcome) and ready() and not view.is_busy(), timeout):
            raise TokvizError(f"the {name} view did not finish within {timeout:.0f} s")
        if isinstance(outcome[0], TokvizError):
            raise outcome[0]
        return _save_png(app, view, out)
    finally:
        _dispose(view)


def _named_tokenizers(paths: list[str]) -> dict:
    """name -> Tokenizer loaded from each path, names made unique (as the analysis pages show them)."""
    from .. import load
    from ..analysis.corpus_stats import unique_name

    loaded: dict = {}
    for p in paths:
        tok = load(p)
        loaded[unique_name(tok.source.name or Path(p).name, loaded)] = tok
    return loaded


def _save_png(app, widget, out: Path) -> Path:
    """Grab `widget` into the PNG `out`, once the pending layout and resize events are delivered."""
    for _ in range(3):
        app.sendPostedEvents()
        app.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not widget.grab().save(str(out), "PNG"):
        raise TokvizError("could not write the PNG", out)
    return out


def _dispose(widget) -> None:
    """Stop a view's workers and close it."""
    widget.shutdown()
    widget.close()
    widget.deleteLater()
