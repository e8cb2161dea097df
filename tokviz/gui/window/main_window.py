"""The explorer window: a text editor, the live token view, a header and a status bar, with the
Compare tab and the docks around them.

`MainWindow` assembles the parts of `gui.window` (editor and its link to the token view, find bar,
docks, menus, status bar, big-file mode, session, idle clean-up, the round trip's marks), opens
tokenizers and texts, shows encodings, and looks after the tokenizers trained or edited here.  The
encode pipeline lives in `workers.EncodeController`, the drawing in `token_view.TokenView`.
"""
from __future__ import annotations

import html
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ... import defaults
from ...core import Tokenizer
from ...core.gcpause import freeze_long_lived
from ...errors import TokvizError
from ...paths import check_trailing_separator
from . import files
from ..widgets import fonts
from .about import about_html
from ..analyses.analyses_view import AnalysesView
from ..views.color_legend import ColorLegend
from ..views.coloring import MODES as COLOR_MODES
from ..views.coloring import rank_function, unknown_id
from ..views.chat_view import ChatView
from ..views.compare_view import CompareView
from .export_dialog import ExportDialog
from ..analyses.fairness_view import FairnessView
from ..panels.library_panel import LibraryPanel
from ..panels.merge_tables import token_details
from .open_tokenizers import open_found
from ..analyses.overlap_view import OverlapView
from ..platform import tune_allocator, tune_thread_switching
from ..analyses.robustness_view import RobustnessView
from ..settings import Settings
from ..widgets.style import (DARK, LIGHT, dark_palette, mono_font, set_chrome_theme, set_theme_when_shown,
                    system_prefers_dark)
from ..views.token_view import TokenView
from .actions import build_menus
from .big_file import BIG_FILE_BYTES, PREVIEW_BYTES, BigFileMode
from .docks import build_docks
from .editor import TextEditor
from .find_bar import FindBar
from .idle import IdleCleanup
from .link import EditorTokenLink
from .roundtrip_marks import RoundTripMarks
from .session import KeptTokenizer, SessionKeeper, SessionStore, UnsavedTokenizers, ask_keep_unsaved
from .status import StatusFields, plural
from .text_document import Origin, TextDocument, line_end_of
from ..work.workers import EncodeController, EncodeResult, FileEncodeResult, LoadResult, TaskRunner

__all__ = ["MainWindow", "BIG_FILE_BYTES", "PREVIEW_BYTES"]

FALLBACK_TEXT = "Hello, world! 你好，世界 🙂\n\tTabs, spaces  and newlines are tokens too.\n"
TOKENIZER_FILTER = "Tokenizers (*.json *.tiktoken *.model *.txt *.gguf);;All files (*)"
TEXT_FILTER = "Text files (*.txt *.md *.rst *.py *.json *.csv *.tsv *.html *.xml);;All files (*)"
FONT_CHECK_MS = 400  # after an encode, the text's characters are checked for fonts this much later
NOT_TOKENIZER_FORMATS = ("vocab-tsv", "vocab-csv")  # exports that are listings, not a tokenizer to reopen


def _pane(title_label: QLabel, body: QWidget, below: QWidget | None = None) -> QWidget:
    w = QWidget()
    lay = QVBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(0)
    lay.addWidget(title_label)
    lay.addWidget(body, 1)
    if below is not None:
        lay.addWidget(below)
    return w


def _escape(s: str) -> str:
    return html.escape(s, quote=False)


class MainWindow(QMainWindow):
    """The explorer.

    `tokenizer`: a path (file or folder) loaded on a worker, an already loaded Tokenizer, or None.
    `text`: the text to start with; `text_file`: a file to read it from.  With none of the three the
    last session is reopened (else the shipped tokenizer and sample text).  `library`: the Library
    panel to dock (default: one that looks in the usual places once the event loop runs).
    `settings`: where the layout, recent files, session and unsaved tokenizers are kept (default:
    the user's).  `error_handler(title, message)` replaces the QMessageBox used to report errors
    (the screenshot command collects them instead)."""

    errorReported = Signal(str, str, str)  # title, path ('' if none), reason

    def __init__(
        self,
        tokenizer: str | os.PathLike | Tokenizer | None = None,
        text: str | None = None,
        *,
        text_file: str | os.PathLike | None = None,
        error_handler: Callable[[str, str], None] | None = None,
        library: LibraryPanel | None = None,
        settings: Settings | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        # The process set-up a long session needs, whoever opens the window (the app, a script, tests).
        tune_allocator()
        tune_thread_switching()
        self.setObjectName("TokvizMainWindow")
        self.setAcceptDrops(True)
        self._error_handler = error_handler
        self._setting_text = False
        self._restored_from: dict | None = None  # the session this window reopened, if any
        self._max_length: int | None = None
        self._theme = "system"
        self._system_palette = QApplication.palette()
        self._opening: dict[str, object] = {}  # path -> the Library entry being loaded from it
        self._tokenizer_encoding: str | None = None  # a tiktoken cache file's encoding name
        self._unkept: dict[int, tuple[str, str]] = {}  # id(tokenizer) -> (name, why it could not be kept)
        self._keeping: set[int] = set()  # id() of the tokenizers a worker is keeping now
        self._exported_while_kept: dict[int, str] = {}  # id(tokenizer) -> where it was written meanwhile
        self._quit_confirmed = False
        self._restore_note = ""

        self.settings = settings if settings is not None else Settings()
        self.controller = EncodeController(self)
        self.library = library if library is not None else LibraryPanel(
            self.settings.library_folders(), recent=self.settings.recent_tokenizers)
        self.library.foldersChanged.connect(self.settings.set_library_folders)
        self._build_central()
        self.link = EditorTokenLink(self)
        self.status = StatusFields(self.statusBar())
        self.big = BigFileMode(self)
        self.document = TextDocument(self)  # the editor's text: its file, modified or not, saving it
        self.docks = build_docks(self, self.library)
        self.library_dock, self.ids_dock, self.merges_dock = self.docks.library, self.docks.ids, self.docks.merges
        self.vocab_dock, self.stats_dock, self.train_dock = self.docks.vocab, self.docks.stats, self.docks.train
        self.edit_dock = self.docks.edit
        self.roundtrip_dock = self.docks.roundtrip
        self.library.openRequested.connect(self.open_found)
        QTimer.singleShot(0, self.library.refresh)
        build_menus(self)
        self._workers = TaskRunner(1, self)  # keeping unsaved tokenizers
        self.unsaved = UnsavedTokenizers(self.settings.data_dir() / "unsaved")
        self.session = SessionKeeper(self, SessionStore(self.settings.session_path()), self.unsaved)
        self.session.restore_chat()  # (the conversation is work of its own, whatever text is given)
        self.idle = IdleCleanup(lambda: (self.is_busy() or self.compare_view.is_busy() or self.chat_view.is_busy()
                                         or self.analyses_view.is_busy()), self, resting=self._resting_tokenizers,
                                unseen=self._unseen_tokenizers)
        self._font_timer = QTimer(self)
        self._font_timer.setSingleShot(True)
        self._font_timer.setInterval(FONT_CHECK_MS)
        self._font_timer.timeout.connect(self._check_fonts)
        self._connect()
        self._restore_view_settings()

        # The last session comes back unless a text is given.  A tokenizer given replaces the
        # session's; a text file given replaces the session's text, except a modified one: that
        # comes back, and the file opens once the window runs, asking Save / Discard / Cancel first.
        restored = self.session.to_restore() if text is None else None
        if restored is not None and text_file is not None and not (restored["text"] is not None
                                                                   and restored["modified"]):
            restored = None
        origin = later_file = None
        if restored is not None:
            later_file = text_file
            restored_tokenizer, text, text_file = self._restore_session(restored)
            if tokenizer is None:
                tokenizer = restored_tokenizer
            else:
                self._tokenizer_encoding = None
            origin = Origin(restored["text_path"], restored["text_name"] or "untitled", restored["line_end"])
        self._open_start_text(text, text_file, origin)
        if later_file is not None:
            QTimer.singleShot(0, lambda: self.open_text_file(later_file))
        if restored is not None and restored["text"] is not None:
            self.document.exact_text = None  # (typed text, as it was: it stays the editor's)
            if restored["modified"]:
                self.document.mark_modified()
            self.update_text_info()
        self.document.stateChanged.connect(self.update_text_info)
        self._open_start_tokenizer(tokenizer)

    # ---- construction -------------------------------------------------------------------------------
    def _build_central(self) -> None:
        font = mono_font()
        self.editor = TextEditor(font)
        self.find_bar = FindBar(self.editor)
        self.token_view = TokenView()
        self.token_view.setObjectName("TokenView")
        self.token_view.setFont(font)
        self.legend = ColorLegend()
        self.legend.hide()
        self.text_header = QLabel()
        self.tokenizer_header = QLabel()
        self.tokenizer_header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for header in (self.text_header, self.tokenizer_header):
            header.setObjectName("PaneHeader")
            header.setTextFormat(Qt.TextFormat.RichText)
            # a long description must not push the splitter: clip it (the tooltip has it all)
            header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setHandleWidth(1)
        self.splitter.addWidget(_pane(self.text_header, self.editor, self.find_bar))
        self.splitter.addWidget(_pane(self.tokenizer_header, self.token_view, self.legend))
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([480, 720])
        self.compare_view = CompareView()
        self._compare_restored = False  # the saved panes are loaded when the Compare tab is first shown
        self.compare_view.panesChanged.connect(self._save_compare_set)
        for signal in (self.compare_view.panesChanged, self.compare_view.paneEncoded):
            signal.connect(lambda *_: self._push_analysis_set())
        self.tabs = QTabWidget()
        self.tabs.setObjectName("MainTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.splitter, "Explorer")
        self.tabs.addTab(self.compare_view, "Compare")
        self.chat_view = ChatView()
        self.tabs.addTab(self.chat_view, "Chat")
        self.analyses_view = AnalysesView([("Fairness", FairnessView()), ("Robustness", RobustnessView()),
                                           ("Overlap", OverlapView())])
        self.analyses_view.addRequested.connect(self._add_to_analysis_set)
        self.tabs.addTab(self.analyses_view, "Analyses")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.setCentralWidget(self.tabs)

    def _connect(self) -> None:
        c = self.controller
        c.loadStarted.connect(self._on_load_started)
        c.tokenizerLoaded.connect(self._on_loaded)
        c.loadFailed.connect(self._on_load_failed)
        c.encoded.connect(self._on_encoded)
        c.encodeFailed.connect(self._on_encode_failed)
        c.encoded.connect(lambda _result: self.session.changed())
        self.editor.textChanged.connect(self._on_text_edited)
        self.train_panel.trained.connect(self.use_trained_tokenizer)
        self.edit_panel.applied.connect(self._use_edited_tokenizer)
        self._vocab_stale = True  # the Vocabulary view is filled when shown (a big vocabulary takes seconds)
        self.vocab_dock.visibilityChanged.connect(self._fill_vocab_view)
        # the Round trip panel computes only while shown; its result is marked in the token view
        self.roundtrip_dock.visibilityChanged.connect(self.roundtrip_panel.set_active)
        self.round_trip_marks = RoundTripMarks(self)
        self.roundtrip_panel.spanActivated.connect(self.link.select_span)
        for signal in (c.tokenizerLoaded, self.compare_view.panesChanged, self.train_panel.trained,
                       self.edit_panel.applied):
            signal.connect(self.idle.needed)
        for signal in (c.encoded, self.big.job.finished, self.big.job.cancelled, self.big.job.failed):
            signal.connect(self.idle.activity)

    def _restore_view_settings(self) -> None:
        self.resize(QSize(1200, 800))
        font_size = self.settings.number("view/font_size")
        if font_size is not None:
            self._set_font_size(font_size)
        self.set_theme(self.settings.value("view/theme", "system"))
        saved_mode = self.settings.value("view/color_mode", "token")
        self.set_color_mode(saved_mode if saved_mode in COLOR_MODES else "token")
        self.set_show_whitespace(self.settings.value("view/whitespace", "on") != "off")
        self.set_show_legend(self.settings.value("view/legend", "off") == "on")
        for box, key in ((self.train_panel.run_on, "train/run_on"), (self.stats_view.run_on, "stats/run_on")):
            box.set_state(self.settings.value(key))
            box.changed.connect(lambda state, key=key: self.settings.set_value(key, state))
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
            self.docks.right_sized = True  # (the saved widths stand)
        self.fit_to_screen()
        self._update_title()
        self._update_header()

    def _restore_session(self, state: dict):
        """(tokenizer, text, text_file) to start with from the last session."""
        self._restored_from = state
        self._tokenizer_encoding = state.get("encoding")
        if state["crashed"]:
            self._restore_note = self.tr("Restored the work (text and conversation) of a session that did not close normally")
            QTimer.singleShot(0, lambda: self.statusBar().showMessage(self._restore_note, 10_000))
        return state["tokenizer"], state["text"], state["text_file"]

    def _open_start_text(self, text: str | None, text_file, origin: Origin | None) -> None:
        """The first text: `text` (of `origin`, if given), else `text_file`'s, else the sample text."""
        if text is None and text_file is not None:
            if not self._open_text_now(text_file):
                text = ""
        if text is None and text_file is None:
            try:
                text = defaults.sample_text()
                origin = Origin(name=self.tr("sample text"))
            except OSError:
                text = FALLBACK_TEXT
        if text is not None:
            self.set_text(text, origin=origin)

    def _open_start_tokenizer(self, tokenizer) -> None:
        if isinstance(tokenizer, Tokenizer):
            self.controller.set_tokenizer(tokenizer)
            self._on_tokenizer_ready(tokenizer)
            return
        path = tokenizer if tokenizer is not None else defaults.default_tokenizer_path()
        if tokenizer is None and not os.path.exists(path):
            self.token_view.set_message(
                "No tokenizer loaded.\nOpen one with File ▸ Open tokenizer… (Ctrl+O) or drop it here.")
        elif self._tokenizer_encoding:
            from ...formats.discover import Found

            self.open_found(Found(Path(path).name, Path(path), "tiktoken", "session", self._tokenizer_encoding))
        else:
            self.open_tokenizer(path)

    # ---- the window on the screen ------------------------------------------------------------------
    def fit_to_screen(self) -> None:
        """Keep the window within the available screen (a saved layout may come from a bigger one)."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        area = screen.availableGeometry()
        frame = self.frameGeometry()
        extra_w, extra_h = max(0, frame.width() - self.width()), max(0, frame.height() - self.height())
        width = min(self.width(), area.width() - extra_w)
        height = min(self.height(), area.height() - extra_h)
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        geometry = self.frameGeometry()
        x = min(max(geometry.x(), area.x()), area.right() - geometry.width() + 1)
        y = min(max(geometry.y(), area.y()), area.bottom() - geometry.height() + 1)
        if (x, y) != (geometry.x(), geometry.y()):
            self.move(x, y)

    # ---- public API -------------------------------------------------------------------------------
    def tokenizer(self) -> Tokenizer | None:
        return self.controller.tokenizer

    def tokenizer_encoding(self) -> str | None:
        """The encoding name the open tiktoken cache file was read with (None otherwise)."""
        return self._tokenizer_encoding

    def open_tokenizer(self, path: str | os.PathLike) -> None:
        """Load a tokenizer file or folder on a worker (errors are reported, the window stays as it was)."""
        self._opening.pop(os.fspath(path), None)
        try:
            check_trailing_separator(path)  # (here: the loader's Path would drop the '/')
        except TokvizError as exc:
            self._on_load_failed(os.fspath(path), exc.reason)
            return
        self.controller.load_tokenizer(path)

    def open_found(self, found) -> None:
        """Open a tokenizer the Library found (loaded on a worker, as open_tokenizer)."""
        self._opening[os.fspath(found.path)] = found
        self.controller.load_tokenizer(found.path, loader=lambda: open_found(found))

    def open_text_file(self, path: str | os.PathLike) -> bool:
        """Replace the text with a UTF-8 file's, asking first (Save / Discard / Cancel) when the text
        is modified.  True when the file is open now; False when it cannot be read (reported), the
        user cancelled, or it opens once the text is saved."""
        return self._open_text_asking(path) == "opened"

    def _open_text_asking(self, path) -> str:
        """open_text_file's outcome: "opened", "failed", "cancelled" or "after save"."""
        contents = self._read_text_file(path)
        if contents is None:
            return "failed"
        opened = []
        outcome = self.document.ask_before(lambda: opened.append(self._show_text_file(path, *contents)))
        return ("opened" if opened[0] else "failed") if outcome == "now" else outcome

    def _open_text_now(self, path) -> bool:
        """Replace the text with a UTF-8 file's without asking; False (reported) if it cannot be read."""
        contents = self._read_text_file(path)
        return contents is not None and self._show_text_file(path, *contents)

    def _read_text_file(self, path) -> tuple[str, int] | None:
        """(text, size) of a text file (a big file's: its start), or None with the error reported.
        A file over BIG_FILE_BYTES opens in big-file mode (gui/window/big_file.py)."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        try:
            text = files.read_text_head(path, PREVIEW_BYTES) if size > BIG_FILE_BYTES else files.read_text_file(path)
        except TokvizError as exc:
            where = exc.path or os.fspath(path)
            self.report_error(self.tr("Could not open text"), f"{where}\n\n{exc.reason}", path=where,
                              reason=exc.reason)
            return None
        return text, size

    def _show_text_file(self, path, text: str, size: int) -> bool:
        if size > BIG_FILE_BYTES:
            opened = self.big.open(path, size, head=text)
        else:
            self.set_text(text, origin=Origin(os.fspath(path), line_end=line_end_of(text)))
            opened = True
        if opened:
            self.settings.add_recent_text(path)
        return opened

    def set_text(self, text: str, *, path: str | os.PathLike | None = None, origin: Origin | None = None,
                 undoable: bool = True) -> None:
        """Put `text` in the editor, unmodified, without asking (File ▸ Open and drops ask first:
        `open_text_file`); it is encoded at once.  `origin` (or `path`) says whose text it is
        (default: untitled).  One undo step unless `undoable` is False.  Leaves big-file mode."""
        if origin is None:
            origin = Origin(os.fspath(path), line_end=line_end_of(text)) if path is not None else Origin()
        undoable = undoable and not self.big.is_active()  # (see gui/window/text_document.py)
        self.big.leave()
        self._setting_text = True
        try:
            self.document.replace(text, origin, undoable=undoable)
        finally:
            self._setting_text = False
        self.link.cursor_moved_by_user = False
        self.controller.set_text(text)
        self.update_text_info()

    def current_text(self) -> str:
        """The text being tokenized: the opened file's exact text until it is edited, else the editor's."""
        if self.document.exact_text is not None:
            return self.document.exact_text
        return self.editor_text()

    def editor_text(self) -> str:
        return self.editor.text()

    def text_path(self) -> str | None:
        return self.document.path

    def unsaved_text(self) -> str | None:
        """The text to keep with the session: None when its file holds it (opened or saved, not
        modified since), else the editor's."""
        if self.big.is_active() or (self.document.path is not None and not self.document.is_modified()):
            return None
        return self.editor_text()

    def save_text(self) -> bool:
        """File ▸ Save text: to the text's file (else as Save text as…); False when nothing started."""
        return self.document.save()

    def save_text_as(self) -> bool:
        """File ▸ Save text as…: ask for a file and write the text there (a big file: copy it)."""
        return self.document.save_as()

    def handle_dropped_paths(self, paths: list[str | os.PathLike]) -> None:
        """Tokenizer files/folders are loaded (the last one wins); the first text file is opened,
        asking first when the text is modified (Cancel drops nothing at all)."""
        tokenizer_paths, text_paths = [], []
        for p in paths:
            (tokenizer_paths if files.classify_path(p) == files.TOKENIZER else text_paths).append(p)
        if text_paths and self._open_text_asking(text_paths[0]) == "cancelled":
            return
        if tokenizer_paths:
            self.open_tokenizer(tokenizer_paths[-1])

    def is_busy(self) -> bool:
        return self.controller.is_busy() or self.big.job.is_running()

    def is_up_to_date(self) -> bool:
        """Idle and showing the current text's tokens (for a big file: its whole-file encoding ended)."""
        return self.controller.is_up_to_date() and not self.big.job.is_running()

    def report_error(self, title: str, message: str, *, path: str | None = None, reason: str | None = None) -> None:
        """Tell the user something failed (a modal message box unless an error handler was given).
        `errorReported(title, path, reason)` is emitted first, for callers that collect errors."""
        self.errorReported.emit(title, path or "", reason or message)
        if self._error_handler is not None:
            self._error_handler(title, message)
        else:
            QMessageBox.critical(self, title, message)

    def status_text(self) -> str:
        """Everything the status bar shows, for tests and screenshots."""
        return self.status.text()

    # ---- big files (gui/window/big_file.py) ----------------------------------------------------------
    @property
    def file_job(self):
        return self.big.job

    @property
    def file_progress(self):
        return self.status.progress

    @property
    def file_cancel_button(self):
        return self.status.cancel_button

    @property
    def status_tokens(self):
        return self.status.tokens

    def is_big_file(self) -> bool:
        """True in big-file mode (the editor holds only the start of the opened file)."""
        return self.big.is_active()

    def big_file_result(self) -> FileEncodeResult | None:
        """The whole-file encoding of the big file, once finished (ids as an array('I'))."""
        return self.big.result()

    def cancel_file_encoding(self) -> None:
        self.big.cancel()

    # ---- tokens shown -----------------------------------------------------------------------------
    def show_encoding(self, encoding, *, message: str = "") -> None:
        """Show `encoding`'s tokens in the token view and the ids panel (None: `message` instead)."""
        self.token_view.set_encoding(encoding)
        if encoding is None and message:
            self.token_view.set_message(message)
        self.ids_panel.set_encoding(encoding)
        self.link.encoding_shown()

    def set_color_mode(self, mode: str) -> None:
        """Colour the tokens by `mode` (gui/coloring.MODES); remembered between runs."""
        tok = self.controller.tokenizer
        rank_of = rank_function(tok) if tok is not None and mode == "rank" else None
        unk = unknown_id(tok) if tok is not None else None
        self.token_view.set_color_mode(mode, rank_of=rank_of, unk_id=unk)
        self.legend.set_mode(mode)
        for action in self.color_actions.actions():
            action.setChecked(action.data() == mode)
        self.settings.set_value("view/color_mode", mode)

    def set_show_whitespace(self, on: bool) -> None:
        """Draw spaces, tabs and newlines inside tokens as · → ↵ (on) or as blank space."""
        self.token_view.set_show_whitespace(on)
        self.compare_view.set_show_whitespace(on)
        self.chat_view.set_show_whitespace(on)
        self.legend.set_show_markers(on)
        self.action_whitespace.setChecked(on)
        self.settings.set_value("view/whitespace", "on" if on else "off")

    def set_show_legend(self, on: bool) -> None:
        self.legend.setVisible(on)
        self.action_legend.setChecked(on)
        self.settings.set_value("view/legend", "on" if on else "off")

    def set_max_length(self, max_length: int | None) -> None:
        """Mark where `max_length` tokens end (None or 0: no max length)."""
        self._max_length = max_length or None
        self.token_view.set_truncation(self._max_length)
        self._update_token_count()

    def zoom(self, step: int) -> None:
        """Make the text and tokens bigger (step 1), smaller (-1) or the default size (0)."""
        default = mono_font().pointSizeF()
        size = default if step == 0 else min(max(self.editor.font().pointSizeF() + step, 6.0), 48.0)
        self._set_font_size(size)
        self.settings.set_value("view/font_size", f"{size:g}")

    def _set_font_size(self, size: float) -> None:
        font = mono_font(size)
        self.editor.set_text_font(font)
        self.token_view.setFont(font)
        self.ids_panel.decoded_tokens.setFont(font)
        self.chat_view.set_token_font(font)

    def set_theme(self, name: str) -> None:
        """'system' (the desktop's light or dark), 'light' or 'dark'; remembered between runs."""
        if name not in ("system", "light", "dark"):
            name = "system"
        self._theme = name
        dark = system_prefers_dark() if name == "system" else name == "dark"
        app = QApplication.instance()
        if name == "system":
            app.setPalette(self._system_palette)
        elif dark:
            if app.style().name().lower() != "fusion":  # (a new style re-polishes every widget)
                app.setStyle("Fusion")  # (native styles may ignore a custom palette)
            app.setPalette(dark_palette())
        else:
            app.setPalette(app.style().standardPalette())
        token_theme = DARK if dark else LIGHT
        set_chrome_theme(self, "dark" if dark else "light")
        # token views only drop their cached fills; the panels with plots and tables redraw, so one
        # out of sight (a hidden tab, a dock tabbed behind another) does that when it comes into sight
        for view in (self.token_view, self.compare_view, self.chat_view, self.ids_panel.decoded_tokens, self.legend):
            view.set_theme(token_theme)
        for view in (self.merges_panel, self.vocab_view, self.stats_view, self.train_panel, self.roundtrip_panel,
                     self.analyses_view):
            set_theme_when_shown(view, token_theme, defer=self.isVisible())
        for action in self.theme_actions.actions():
            action.setChecked(action.data() == name)
        self.settings.set_value("view/theme", name)

    def theme(self) -> str:
        return self._theme

    def is_dark(self) -> bool:
        return self.token_view.theme is DARK

    # ---- find and go to ------------------------------------------------------------------------------
    def find_text(self, needle: str) -> bool:
        """Select the next occurrence of `needle` in the editor (wrapping around); False if none."""
        self.find_bar.field.setText(needle)
        found = self.find_bar.find_next()
        if needle and not found:
            self.statusBar().showMessage(f"{needle!r} is not in the text", 4000)
        return found

    def find_next(self) -> bool:
        if not self.find_bar.needle():
            self.find_bar.open_bar()
            return False
        return self.find_bar.find_next()

    def find_previous(self) -> bool:
        if not self.find_bar.needle():
            self.find_bar.open_bar()
            return False
        return self.find_bar.find_previous()

    def goto_token(self, index: int) -> bool:
        """Outline token `index` (0-based), scroll it into view and put the editor's cursor on it (a
        big file's token past the preview: the part of the file around it goes in the editor)."""
        return self.link.goto_token(index)

    def select_tokens(self, first: int, last: int) -> None:
        """Select the text of tokens first..last in the editor (and highlight them)."""
        self.link.select_tokens(first, last)

    def tokens_in_range(self, start: int, end: int) -> tuple[int, int] | None:
        """(first, last) index of the tokens overlapping characters [start, end), or None."""
        return self.link.tokens_in_range(start, end)

    def is_setting_text(self) -> bool:
        """True while the window itself puts a text in the editor (not the user typing)."""
        return self._setting_text

    # ---- dialogs behind the menus --------------------------------------------------------------------
    def _start_dir(self) -> str:
        for p in (self.controller.tokenizer_path, self.document.path):
            if p:
                return str(Path(p).parent)
        return str(Path.home())

    def ask_open_tokenizer(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open tokenizer", self._start_dir(), TOKENIZER_FILTER)
        if path:
            self.open_tokenizer(path)

    def ask_open_tokenizer_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open tokenizer folder", self._start_dir())
        if path:
            self.open_tokenizer(path)

    def ask_open_text(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open text", self._start_dir(), TEXT_FILTER)
        if path:
            self.open_text_file(path)

    def ask_goto_token(self) -> None:
        enc = self.token_view.encoding()
        if enc is None or not len(enc):
            self.statusBar().showMessage(self.tr("No tokens to go to"), 6000)
            return
        if self.big.is_active() and not self.big.shows_whole_file():
            label = self.tr("Token number in the preview (1–{count}; the whole file's once it is encoded):")
        else:
            label = self.tr("Token number (1–{count}):")
        index, ok = QInputDialog.getInt(self, self.tr("Go to token"), label.format(count=f"{len(enc):,}"),
                                        max(1, self.token_view.current_token() + 1), 1, len(enc))
        if ok and not self.goto_token(index - 1):  # (the tokens changed while the dialog was open)
            self.statusBar().showMessage(self.tr("There is no token {number} now").format(number=f"{index:,}"), 6000)

    def ask_max_length(self) -> None:
        value, ok = QInputDialog.getInt(self, "Max length", "Max length in tokens (0: none):",
                                        self._max_length or 0, 0, 10_000_000)
        if ok:
            self.set_max_length(value)

    def show_about(self) -> QMessageBox:
        box = QMessageBox(self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # (one per use: none left behind)
        box.setWindowTitle(self.tr("About tokviz"))
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(about_html())
        box.setIcon(QMessageBox.Icon.Information)
        box.open()
        return box

    def fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        tokenizers, texts = self.settings.recent_tokenizers(), self.settings.recent_texts()
        for found in tokenizers:
            action = menu.addAction(f"{found.name}   ({found.format})")
            action.setToolTip(str(found.path))
            action.triggered.connect(lambda _=False, f=found: self.open_found(f))
        if tokenizers and texts:
            menu.addSeparator()
        for path in texts:
            action = menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_text_file(p))
        if not tokenizers and not texts:
            menu.addAction("Nothing opened yet").setEnabled(False)

    def fill_unsaved_menu(self) -> None:
        """File ▸ Unsaved tokenizers, filled when shown: each kept tokenizer (choose one to open it),
        then Discard ▸ each of them.  Its one submenu is made once: a menu is a window of its own,
        and one per entry would be as many windows as tokenizers trained in the session."""
        menu, discard = self.unsaved_menu, self.unsaved_discard_menu
        menu.clear()
        discard.clear()
        kept = self.unsaved.entries()
        for entry in kept:
            action = menu.addAction(entry.describe(), lambda e=entry: self.open_kept(e))
            action.setStatusTip(self.tr("Open it in the explorer"))
            discard.addAction(self.tr("{0}…").format(entry.describe()), lambda e=entry: self.discard_kept(e, ask=True))
        if kept:
            menu.addSeparator()
            menu.addMenu(discard)
        else:
            menu.addAction(self.tr("Every tokenizer trained or edited here has been exported")).setEnabled(False)

    def _resting_tokenizers(self) -> list[Tokenizer]:
        """The tokenizers open here other than the explorer's (its caches serve the typing)."""
        current = self.controller.tokenizer
        others = {id(t): t for t in (*self.compare_view.tokenizers().values(), self.train_panel.result)}
        return [t for t in others.values() if t is not None and t is not current]

    def _unseen_tokenizers(self) -> list[Tokenizer]:
        """The resting tokenizers no view shows: all of them but the Compare panes while the Compare
        tab is shown."""
        resting = self._resting_tokenizers()
        if self.tabs.currentWidget() is not self.compare_view:
            return resting
        shown = {id(t) for t in self.compare_view.tokenizers().values()}
        return [t for t in resting if id(t) not in shown]

    def show_compare(self) -> None:
        """Switch to the Compare tab (on the text being edited)."""
        self.tabs.setCurrentWidget(self.compare_view)

    def export_tokenizer(self) -> ExportDialog | None:
        """Open the export dialog for the current tokenizer (File ▸ Export tokenizer…)."""
        tok = self.controller.tokenizer
        if tok is None:
            self.statusBar().showMessage(self.tr("No tokenizer to export"), 4000)
            return None
        dialog = ExportDialog(tok, self)  # (deleted when it closes)
        dialog.exported.connect(self._exported)
        dialog.open()
        return dialog

    # ---- trained, edited and unsaved tokenizers ------------------------------------------------------
    def use_trained_tokenizer(self, tok: Tokenizer) -> None:
        """Open a tokenizer trained in the Training panel in the explorer, and in the Compare tab
        beside the tokenizers there; it is kept in the data folder until exported or discarded."""
        self.controller.set_tokenizer(tok)
        self._on_tokenizer_ready(tok)
        if self._compare_restored:
            self.compare_view.add_tokenizer(tok)
        self._keep(tok, "trained")
        self.statusBar().showMessage(f"Trained {self._tok_name(tok)}: it is open in the explorer", 6000)

    def _use_edited_tokenizer(self, tok: Tokenizer) -> None:
        before = self.controller.tokenizer
        self.controller.set_tokenizer(tok)
        self._on_tokenizer_ready(tok)
        if tok is self.edit_panel.original():
            return  # (every edit undone: it has its file, or its entry, and other views may share it)
        self._keep(tok, "edited", replaces=before)
        self.statusBar().showMessage(f"Vocabulary edited: {tok.vocab_size:,} tokens", 6000)

    def _keep(self, tok: Tokenizer, origin: str, replaces: Tokenizer | None = None) -> None:
        """Keep `tok` in the data folder (on a worker); an edit of an unsaved tokenizer replaces it."""
        old = self.unsaved.find(replaces.source.path) if replaces is not None else None
        self._keeping.add(id(tok))

        def done(kept: KeptTokenizer) -> None:
            self._keeping.discard(id(tok))
            exported = self._exported_while_kept.pop(id(tok), None)
            if exported is not None:  # (exported before this keep finished: nothing to keep)
                self.unsaved.discard(kept.key)
                self.session.changed()
                return
            tok.source.path = os.fspath(kept.path)
            self.compare_view.set_tokenizer_path(tok, os.fspath(kept.path))
            if old is not None and not self.compare_view.uses_path(os.fspath(old.path)):
                self.unsaved.discard(old.key)
            self.session.changed()

        def failed(exc: BaseException) -> None:
            self._keeping.discard(id(tok))
            if self._exported_while_kept.pop(id(tok), None) is not None:
                return  # (exported meanwhile: nothing to keep)
            reason = exc.reason if isinstance(exc, TokvizError) else str(exc)
            self._unkept[id(tok)] = (self._tok_name(tok), reason)
            self.statusBar().showMessage(f"{self._tok_name(tok)} cannot be kept until exported: {reason}", 10_000)

        self._workers.submit(lambda: self.unsaved.keep(tok, origin), done, failed)

    def _exported(self, tok: Tokenizer, written: list[Path], fmt: str) -> None:
        """`tok` was written to `written` as `fmt` (ExportDialog.exported)."""
        self.statusBar().showMessage(self.tr("Written: {paths}").format(paths=", ".join(str(p) for p in written)), 8000)
        if not written or fmt in NOT_TOKENIZER_FORMATS:
            return
        kept = self.unsaved.find(tok.source.path)
        self._unkept.pop(id(tok), None)
        new_path = os.fspath(written[0].parent if fmt == "vocab-merges" else written[0])
        if kept is None:
            if id(tok) in self._keeping:  # (still being kept: _keep's done() discards it)
                self._exported_while_kept[id(tok)] = new_path
                tok.source.path = new_path
                self.compare_view.set_tokenizer_path(tok, new_path)
                self.session.changed()
            return
        tok.source.path = new_path
        self.compare_view.set_tokenizer_path(tok, new_path)
        self.unsaved.discard(kept.key)
        self.session.changed()

    def open_kept(self, kept: KeptTokenizer) -> None:
        self.open_tokenizer(kept.path)

    def discard_kept(self, kept: KeptTokenizer, *, ask: bool = False) -> bool:
        """Delete a tokenizer kept in the data folder (and its Compare pane); True if done."""
        if ask and QMessageBox.question(
                self, "Discard tokenizer", f"Discard {kept.describe()}? It was never exported.",
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel) != QMessageBox.StandardButton.Discard:
            return False
        self.compare_view.remove_path(os.fspath(kept.path))
        self.unsaved.discard(kept.key)
        return True

    def unsaved_work(self) -> list[KeptTokenizer]:
        """Tokenizers trained or edited here and not exported (kept in the data folder)."""
        return self.unsaved.entries()

    def request_quit(self) -> None:
        """File ▸ Quit: ask about a modified text the session cannot keep and about tokenizers not
        exported, then close."""
        if self._confirm_quit():
            self._quit_confirmed = True
            self.close()

    def _confirm_quit(self) -> bool:
        # a modified text is kept by the session and reopens at the next start; only one it cannot
        # keep (too long, or the settings folder not writable) is asked about
        if self.document.is_modified() and not self.session.save():
            answer = self.document.ask(quitting=True)
            if answer == "cancel":
                return False
            if answer == "save":
                self.document.save(then=self.request_quit)  # (quits once saved)
                return False
        # the same for the Chat tab's conversation
        if self.chat_view.is_modified() and not self.session.keeps_chat():
            answer = self.chat_view.ask(quitting=True)
            if answer == "cancel":
                return False
            if answer == "save":
                self.chat_view.save(then=self.request_quit)
                return False
        kept = self.unsaved_work()
        if not kept:
            return True
        answer = ask_keep_unsaved(self, kept)
        if answer == "discard":
            for entry in kept:
                self.discard_kept(entry)
        return answer != "cancel"

    # ---- controller signals ----------------------------------------------------------------------------
    @Slot(str)
    def _on_load_started(self, path: str) -> None:
        name = Path(path).name or path
        self.statusBar().showMessage(f"Loading {name}…")
        if self.controller.tokenizer is None:
            self.token_view.set_message(f"Loading {name}…")

    @Slot(object)
    def _on_loaded(self, result: LoadResult) -> None:
        tok = result.tokenizer
        found = self._opening.pop(result.path, None)
        self._tokenizer_encoding = getattr(found, "encoding", None) or (
            self._tokenizer_encoding if self._restored_from and result.path == self._restored_from["tokenizer"]
            else None)
        kept = self.unsaved.find(result.path)
        if kept is not None:
            tok.source.name = kept.name
        else:
            self.settings.add_recent_tokenizer(result.path, self._tok_name(tok), tok.source.format,
                                               self._tokenizer_encoding)
            self.library.refresh_recent(tok)
        message = f"Loaded {self._tok_name(tok)} in {result.seconds:.2f} s"
        if self._restore_note:  # (said once, with the first load)
            message, self._restore_note = f"{self._restore_note} · {message}", ""
        self.statusBar().showMessage(message, 10_000)
        self._on_tokenizer_ready(tok)

    def _on_tokenizer_ready(self, tok: Tokenizer) -> None:
        self.ids_panel.set_tokenizer(tok)
        self.merges_panel.set_tokenizer(tok)
        self.edit_panel.set_tokenizer(tok)
        self.stats_view.set_tokenizer(tok)
        self.chat_view.set_tokenizer(tok)
        self.roundtrip_panel.set_tokenizer(tok)
        self._push_analysis_set()
        self._vocab_stale = True
        self._fill_vocab_view(self.vocab_dock.isVisible())
        self.token_view.set_details_provider(token_details(tok, self.merges_panel.tables))
        self.controller.set_allow_special(None)  # each format's own default again
        self.action_allow_special.setChecked(tok.special_in_text)
        self.set_color_mode(self.token_view.color_mode())  # ranks and the unknown id are per tokenizer
        self._update_title()
        self._update_header()
        self.session.changed()
        self.big.start()  # (big-file mode: the whole file again, with the new tokenizer)

    @Slot(str, str)
    def _on_load_failed(self, path: str, reason: str) -> None:
        self._opening.pop(path, None)
        self.statusBar().showMessage(self.tr("Could not load the tokenizer"), 6000)
        if self.controller.tokenizer is None:
            self.token_view.set_message(
                self.tr("No tokenizer loaded.\nOpen one with File ▸ Open tokenizer… (Ctrl+O) or drop it here."))
        self.report_error(self.tr("Could not open tokenizer"), f"{path}\n\n{reason}", path=path, reason=reason)

    @Slot(object)
    def _on_encoded(self, result: EncodeResult) -> None:
        self.edit_panel.set_text(result.text)
        self.roundtrip_panel.set_text(result.text, result.encoding)
        if self.tabs.currentWidget() is self.compare_view:
            self.compare_view.set_text(self.current_text())
        elif self.tabs.currentWidget() is self.analyses_view:
            self.analyses_view.set_text(self.current_text())
        self._font_timer.start()
        if self.big.is_active():
            self.big.preview_encoded(result)  # (the whole file's tokens, once there, stay)
            return
        self.show_encoding(result.encoding)
        if len(result.encoding) > 100_000:
            freeze_long_lived()
        n = len(result.encoding)
        nbytes = len(result.text.encode("utf-8", "surrogatepass"))
        ratio = f"{len(result.text) / n:.2f} chars/token · {nbytes / n:.2f} bytes/token" if n else "– chars/token"
        self.status.set_label_texts(None, ratio, f"encoded in {result.seconds * 1000:.0f} ms")
        self._update_token_count()

    @Slot(str)
    def _on_encode_failed(self, reason: str) -> None:
        self.show_encoding(None, message=f"Cannot encode this text:\n{reason}")
        self.status.set_label_texts("encode failed", "", "")
        self.statusBar().showMessage(reason, 8000)

    def _update_token_count(self) -> None:
        enc = self.token_view.encoding()
        if enc is None or self.big.is_active():
            return
        n = len(enc)
        text = plural(n, "token")
        if self._max_length is not None and n > self._max_length:
            text += f" ({n - self._max_length:,} past the max length of {self._max_length:,})"
        elif self._max_length is not None:
            text += f" (max length {self._max_length:,})"
        self.status.set_label_texts(text)

    def _check_fonts(self) -> None:
        """Say in the status bar which scripts of the text no installed font shows."""
        text = self.current_text()
        if not fonts.check(text, self.token_view.font()):
            self._font_timer.start()  # (a text of many new characters: the rest a moment later)
        scripts = fonts.missing_scripts(text, self.token_view.font())
        self.status.set_font_warning(
            f"No installed font shows {', '.join(scripts)}: drawn as boxes (install fonts-noto-core)"
            if scripts else "")

    # ---- the text -------------------------------------------------------------------------------------
    @Slot()
    def _on_text_edited(self) -> None:
        if self._setting_text:
            return
        self.document.exact_text = None  # edited: the editor is the truth now
        self.controller.set_text(self.editor_text())
        self.update_text_info()

    # ---- compare tab and docks ------------------------------------------------------------------------
    @Slot(int)
    def _on_tab_changed(self, index: int) -> None:
        shown = self.tabs.widget(index)
        if shown is self.compare_view:
            self._restore_compare_set()
            self.compare_view.set_text(self.current_text())
        elif shown is self.analyses_view:
            self._restore_compare_set()
            self._push_analysis_set()
            self.analyses_view.set_text(self.current_text())
        if shown is not self.compare_view and self.compare_view.panes:
            self.idle.needed()  # (the panes are out of sight now: their tokenizers can rest)

    def _restore_compare_set(self) -> None:
        """The Compare set of the last run, loaded the first time the Compare or Analyses tab shows
        (else the explorer's tokenizer)."""
        if self._compare_restored:
            return
        self._compare_restored = True
        saved = [e for e in self.settings.compare_tokenizers() if e["path"] and os.path.exists(e["path"])]
        for entry in saved:
            self.compare_view.add_path(entry["path"], entry["name"], entry["encoding"])
        if not saved and self.controller.tokenizer is not None:
            self.compare_view.add_tokenizer(self.controller.tokenizer)

    def _push_analysis_set(self) -> None:
        """The Analyses tab analyses the Compare set's loaded tokenizers, or the explorer's alone."""
        tokenizers = self.compare_view.tokenizers()
        if tokenizers:
            self.analyses_view.set_tokenizers(tokenizers, from_compare=True)
        elif self.controller.tokenizer is not None:
            tok = self.controller.tokenizer
            self.analyses_view.set_tokenizers({self._tok_name(tok): tok}, from_compare=False)

    def _add_to_analysis_set(self) -> None:
        self._restore_compare_set()
        self.compare_view.ask_add()

    def _save_compare_set(self) -> None:
        if self._compare_restored:
            # (a tokenizer with no file yet — trained, being kept — is saved once it has one)
            self.settings.set_compare_tokenizers([e for e in self.compare_view.paths() if e["path"]])

    @Slot(bool)
    def _fill_vocab_view(self, visible: bool) -> None:
        if visible and self._vocab_stale and self.controller.tokenizer is not None:
            self._vocab_stale = False
            self.vocab_view.set_tokenizer(self.controller.tokenizer)
        elif not visible and self._vocab_stale and self.vocab_view.tokenizer() is not None:
            self.vocab_view.set_tokenizer(None)  # (a closed dock keeps neither the old tokenizer nor its table)

    # ---- header, title ----------------------------------------------------------------------------
    @staticmethod
    def _tok_name(tok: Tokenizer | None) -> str:
        if tok is None:
            return "no tokenizer"
        src = tok.source
        return src.name or (Path(src.path).name if src.path else "tokenizer")

    def update_text_info(self) -> None:
        """The text's header (name, size) and the window title, after the text changed."""
        self._update_text_header()
        self._update_title()

    def _update_title(self) -> None:
        tok = self.controller.tokenizer
        parts = ["tokviz", self._tok_name(tok) if tok else None, self.document.display_name() + "[*]"]
        self.setWindowTitle(" — ".join(p for p in parts if p))
        self.setWindowModified(self.document.is_modified())
        self.action_save_text.setEnabled(self.document.can_save())

    def _update_header(self) -> None:
        tok = self.controller.tokenizer
        if tok is None:
            self.tokenizer_header.setText("<b>Tokens</b> <span style='color:#6f7b8a'>· no tokenizer</span>")
            self.status.set_tokenizer_name("no tokenizer")
            return
        info = tok.describe()
        bits = [info.get("format"), info.get("model")]
        if info.get("byte_level"):
            bits.append("byte-level")
        bits.append(f"vocab {int(info.get('vocab_size') or tok.vocab_size):,}")
        if info.get("normalizer"):
            norm = str(info["normalizer"])
            bits.append(f"normalizer {norm if len(norm) <= 40 else norm[:39] + '…'}")
        if self.unsaved.find(tok.source.path) is not None or id(tok) in self._unkept:
            bits.append("not exported")
        detail = " · ".join(str(b) for b in bits if b)
        self.tokenizer_header.setText(
            f"<b>{_escape(self._tok_name(tok))}</b>&nbsp;&nbsp;<span style='color:#5b6675'>{_escape(detail)}</span>")
        self.tokenizer_header.setToolTip("<br>".join(
            f"<b>{_escape(k)}</b>: {_escape(str(info[k]))}"
            for k in ("path", "format", "model", "vocab_size", "normalizer", "pre_tokenizer", "post_processor", "decoder")
            if info.get(k) is not None))
        self.status.set_tokenizer_name(self._tok_name(tok))

    def _update_text_header(self) -> None:
        text = self.current_text()
        name = _escape(self.document.display_name())
        if self.big.is_active():
            header, tip = self.big.header(name, text)
            self.text_header.setText(header)
            self.text_header.setToolTip(tip)
            return
        self.text_header.setToolTip("")
        nbytes = len(text.encode("utf-8", "surrogatepass"))
        edited = self.tr(" (edited)") if self.document.is_modified() else ""
        self.text_header.setText(
            f"<b>Text</b>&nbsp;&nbsp;<span style='color:#5b6675'>{name}{edited} · "
            f"{plural(len(text), 'char')} · {plural(nbytes, 'byte')}</span>")

    # ---- drag and drop ------------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.handle_dropped_paths(paths)

    # ---- lifetime -------------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        # a close from the window manager asks like File ▸ Quit; a programmatic close keeps the
        # unsaved tokenizers without asking (they are in the data folder: nothing is lost)
        if event.spontaneous() and not self._quit_confirmed and not self._confirm_quit():
            event.ignore()
            return
        self.session.save(clean=True)
        self.idle.stop()
        self._font_timer.stop()
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        for part in (self.library, self.merges_panel, self.train_panel, self.edit_panel, self.compare_view,
                     self.chat_view, self.analyses_view, self.roundtrip_panel, self.vocab_view, self.stats_view,
                     self.big.job, self._workers, self.document, self.controller):
            part.shutdown()
        super().closeEvent(event)
