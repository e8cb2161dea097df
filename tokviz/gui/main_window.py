"""The explorer window: a text editor, the live token view, a header and a status bar.

Later views (docks, library panel, compare, vocab...) attach to this QMainWindow; the encode
pipeline lives in `workers.EncodeController`, the drawing in `token_view.TokenView`.

Big files (more than BIG_FILE_BYTES, e.g. tens of MB of text) open in *big-file mode*:

* the editor shows, read-only, only the first PREVIEW_BYTES of the file (a text editor holding
  50 MB is slow to fill and heavy), ended at a word boundary where tokenization is cut-independent,
  so the tokens of the preview are exactly the first tokens of the whole file; the token view
  shows them at once;
* the whole file is encoded in the background (`workers.FileEncodeJob`, pieces of a few KB), with
  a progress bar and a Cancel button in the status bar; the window stays responsive;
* when it is done the token view (virtualised: only what is on screen is laid out) shows every
  token of the whole file and the status bar its figures (token count, chars/token, bytes/token,
  time and MB/s); hovering, clicking and selecting follow the editor where it holds the text.
  Cancelling shows the tokens encoded up to that point and says where it stopped.
"""
from __future__ import annotations

import bisect
import gc
import os
import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QProgressBar,
    QToolButton,
    QFrame,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from .. import defaults
from ..core import Tokenizer
from ..core.gcpause import freeze_long_lived
from ..errors import TokvizError
from . import files
from ..analysis.token_info import token_facts
from .about import about_html
from .coloring import MODES as COLOR_MODES
from .coloring import rank_function, unknown_id
from .ids_panel import IdsPanel
from .platform import trim_memory
from .library_panel import LibraryPanel
from .compare_view import CompareView
from .edit_panel import EditPanel
from .export_dialog import ExportDialog
from .merges_panel import MergesPanel
from .open_tokenizers import open_found
from .stats_view import StatsView
from .train_panel import TrainPanel
from .vocab_view import VocabView
from .session import Session
from .settings import Settings
from .style import DARK, LIGHT, chrome_qss, dark_palette, mono_font, system_prefers_dark
from .token_view import TokenView
from .workers import EncodeController, EncodeResult, FileEncodeJob, FileEncodeResult, LoadResult

SESSION_SAVE_MS = 1500  # the work in progress is saved this long after the last change (gui/session.py)
FROZEN_GARBAGE_MS = 3000  # a tokenizer dropped this long ago, the app idle: collect what gc.freeze() kept
BIG_FILE_BYTES = 2 * 2**20  # above this a text file opens in big-file mode (see the module docstring)
PREVIEW_BYTES = 64 * 1024  # how much of a big file the editor holds

FALLBACK_TEXT = "Hello, world! 你好，世界 🙂\n\tTabs, spaces  and newlines are tokens too.\n"

TOKENIZER_FILTER = "Tokenizers (*.json *.tiktoken *.model *.txt);;All files (*)"
TEXT_FILTER = "Text files (*.txt *.md *.rst *.py *.json *.csv *.tsv *.html *.xml);;All files (*)"

_NON_BMP = re.compile("[\U00010000-\U0010ffff]")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class TextEditor(QPlainTextEdit):
    """The source text.  File drops are left to the window (which decides tokenizer or text)."""

    focusChanged = Signal(bool)

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.focusChanged.emit(True)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.focusChanged.emit(False)

    def canInsertFromMimeData(self, source) -> bool:
        if source.hasUrls():
            return False
        return super().canInsertFromMimeData(source)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.ignore()
            return
        super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.ignore()
            return
        super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if event.mimeData().hasUrls():
            event.ignore()
            return
        super().dropEvent(event)


def _pane(title_label: QLabel, body: QWidget) -> QWidget:
    w = QWidget()
    lay = QVBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(0)
    lay.addWidget(title_label)
    lay.addWidget(body, 1)
    return w


class MainWindow(QMainWindow):
    """The explorer.

    `tokenizer`: a path (file or folder) loaded on a worker, an already loaded Tokenizer, or None for
    the shipped default.  `text`: the text to start with; `text_file`: a file to read it from; with
    neither, the shipped sample text.  `library`: the Library panel to dock (default: one that looks
    in the usual places as soon as the event loop runs).  `settings`: where the window layout,
    recent files and Library folders are remembered (default: the user's tokviz settings).  `error_handler(title, message)` replaces the QMessageBox used
    to report errors (the screenshot command collects them instead)."""

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
        self.setObjectName("TokvizMainWindow")
        self._error_handler = error_handler
        self._text_path: str | None = None
        self._text_name = "untitled"  # shown in the text header when there is no file
        self._loaded_text: str | None = None  # exact text of the opened file (keeps \r\n) until edited
        self._setting_text = False
        self._cursor_moved_by_user = False  # outline the token at the cursor only once the user moves it
        self._starts: list[int] = []
        self._big: dict | None = None  # big-file mode: path, size, result (FileEncodeResult), state
        self._restored_from: dict | None = None  # the unclean session this window restored, if any
        self._last_find = ""
        self._max_length: int | None = None
        self.setAcceptDrops(True)
        self._theme = "system"
        self._system_palette = QApplication.palette()

        self.controller = EncodeController(self)
        self.file_job = FileEncodeJob(self)
        self.settings = settings if settings is not None else Settings()
        self._opening: dict[str, object] = {}  # path -> the Library entry being loaded from it
        self.library = library if library is not None else LibraryPanel(
            self.settings.library_folders(), recent=self.settings.recent_tokenizers)
        self.library.foldersChanged.connect(self.settings.set_library_folders)
        self._build_ui()
        self._build_menus()
        self._connect()

        self.resize(QSize(1200, 800))
        font_size = self.settings.number("view/font_size")
        if font_size is not None:
            self._set_font_size(font_size)
        self.set_theme(self.settings.value("view/theme", "system"))
        saved_mode = self.settings.value("view/color_mode", "token")
        if saved_mode in COLOR_MODES:
            self.set_color_mode(saved_mode)
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        self._update_title()
        self._update_header()

        # a run that did not close its window left work behind: restore it (when nothing else was asked)
        self.session = Session(self.settings.session_path())
        restored = self.session.pending() if (tokenizer is None and text is None and text_file is None) else None
        self._session_timer = QTimer(self)
        self._session_timer.setSingleShot(True)
        self._session_timer.setInterval(SESSION_SAVE_MS)
        self._session_timer.timeout.connect(self.save_session)
        # Tokenizers are frozen out of the collector's way when they arrive (core.gcpause), and a
        # frozen object in a reference cycle is never collected (tokenizers hold none:
        # tests/test_lifetime.py; other objects frozen with them may): when tokenizers may have been
        # dropped, once idle, collect everything once, freeze again and trim the heaps.
        self._gc_timer = QTimer(self)
        self._gc_timer.setSingleShot(True)
        self._gc_timer.setInterval(FROZEN_GARBAGE_MS)
        self._gc_timer.timeout.connect(self._collect_frozen_garbage)
        for signal in (self.controller.tokenizerLoaded, self.compare_view.panesChanged, self.train_panel.trained,
                       self.edit_panel.applied):
            signal.connect(lambda *_: self._gc_timer.start())
        # (the collection takes 100+ ms with a big heap: it waits for FROZEN_GARBAGE_MS of quiet)
        for signal in (self.controller.encoded, self.file_job.finished, self.file_job.cancelled,
                       self.file_job.failed):
            signal.connect(self._defer_idle_cleanup)
        self.controller.encoded.connect(lambda _result: self._session_timer.start())
        if restored is not None:
            tokenizer, text, text_file = self._restore_session(restored)

        # the starting text
        if text is None and text_file is not None:
            if not self.open_text_file(text_file):
                text = ""
        if text is None and text_file is None:
            try:
                text = defaults.sample_text()
                self._text_name = "sample text"
            except OSError:
                text = FALLBACK_TEXT
        if text is not None:
            self.set_text(text)

        # the starting tokenizer
        if isinstance(tokenizer, Tokenizer):
            self.controller.set_tokenizer(tokenizer)
            self._on_tokenizer_ready(tokenizer)
        else:
            path = tokenizer if tokenizer is not None else defaults.default_tokenizer_path()
            if tokenizer is None and not Path(path).exists():
                self.token_view.set_message(
                    "No tokenizer loaded.\nOpen one with File ▸ Open tokenizer… (Ctrl+O) or drop it here."
                )
            else:
                self.open_tokenizer(path)

    def idle_cleanup_pending(self) -> bool:
        """True while the collection of dropped tokenizers' garbage waits for the app to be idle."""
        return self._gc_timer.isActive()

    def _defer_idle_cleanup(self, *_args) -> None:
        if self._gc_timer.isActive():
            self._gc_timer.start()

    def _collect_frozen_garbage(self) -> None:
        """Collect the garbage gc.freeze() has kept (tens of ms, see __init__) and give freed memory
        back to the system; later if busy."""
        if self.is_busy() or self.compare_view.is_busy():
            self._gc_timer.start()
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        trim_memory()

    # ---- autosave -----------------------------------------------------------------------------------
    def save_session(self) -> None:
        """Save the work in progress now (it is also saved a moment after each change)."""
        tok = self.controller.tokenizer
        edited = self._loaded_text is None and self._big is None
        self.session.save(text=self.editor_text() if edited else None, text_path=self._text_path,
                          tokenizer_path=os.fspath(tok.source.path) if tok is not None and tok.source.path else None)

    def _restore_session(self, state: dict):
        """(tokenizer, text, text_file) to start with from an unclean session's state."""
        tokenizer = state.get("tokenizer_path")
        if tokenizer and not Path(tokenizer).exists():
            tokenizer = None
        text, text_file = state.get("text"), state.get("text_path")
        if text is None and text_file and not Path(text_file).is_file():
            text_file = None
        self._restored_from = state
        QTimer.singleShot(0, lambda: self.statusBar().showMessage(
            "Restored the work of a session that did not close normally", 10_000))
        return tokenizer, text, (text_file if text is None else None)

    # ---- construction ---------------------------------------------------------------------------
    def _build_ui(self) -> None:
        font = mono_font()
        self.editor = TextEditor()
        self.editor.setObjectName("TextEditor")
        self.editor.setFont(font)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.editor.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # long runs of spaces overhang
        self.editor.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.editor.setTabStopDistance(4 * self.editor.fontMetrics().horizontalAdvance(" "))
        self.editor.document().setDocumentMargin(10)
        self.editor.setPlaceholderText("Type or paste text here, or drop a text file…")

        self.token_view = TokenView()
        self.token_view.setObjectName("TokenView")
        self.token_view.setFont(font)

        self.text_header = QLabel()
        self.text_header.setObjectName("PaneHeader")
        self.text_header.setTextFormat(Qt.TextFormat.RichText)
        self.tokenizer_header = QLabel()
        self.tokenizer_header.setObjectName("PaneHeader")
        self.tokenizer_header.setTextFormat(Qt.TextFormat.RichText)
        self.tokenizer_header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for header in (self.text_header, self.tokenizer_header):
            # a long description must not push the splitter: clip it (the tooltip has it all)
            header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setHandleWidth(1)
        self.splitter.addWidget(_pane(self.text_header, self.editor))
        self.splitter.addWidget(_pane(self.tokenizer_header, self.token_view))
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([480, 720])
        self.compare_view = CompareView()
        self.compare_view.panesChanged.connect(
            lambda: self.settings.set_compare_tokenizers(self.compare_view.paths()) if self._compare_restored else None)
        self._compare_restored = False  # the saved panes are loaded when the Compare tab is first shown
        self.tabs = QTabWidget()
        self.tabs.setObjectName("MainTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.splitter, "Explorer")
        self.tabs.addTab(self.compare_view, "Compare")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.setCentralWidget(self.tabs)

        self.library_dock = QDockWidget("Library", self)
        self.library_dock.setObjectName("LibraryDock")
        self.library_dock.setWidget(self.library)
        self.library_dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library_dock)
        self.resizeDocks([self.library_dock], [300], Qt.Orientation.Horizontal)
        self.library.openRequested.connect(self.open_found)
        QTimer.singleShot(0, self.library.refresh)

        self.ids_panel = IdsPanel()
        self.ids_dock = QDockWidget("Ids", self)
        self.ids_dock.setObjectName("IdsDock")
        self.ids_dock.setWidget(self.ids_panel)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.ids_dock)
        self.resizeDocks([self.ids_dock], [170], Qt.Orientation.Vertical)

        self.merges_panel = MergesPanel()
        self.merges_dock = QDockWidget("Merges", self)
        self.merges_dock.setObjectName("MergesDock")
        self.merges_dock.setWidget(self.merges_panel)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.merges_dock)
        self.merges_dock.hide()  # (View › Merges; its place is remembered)

        self.vocab_view = VocabView()
        self.vocab_dock = QDockWidget("Vocabulary", self)
        self.vocab_dock.setObjectName("VocabDock")
        self.vocab_dock.setWidget(self.vocab_view)
        self.stats_view = StatsView()
        self.stats_dock = QDockWidget("Statistics", self)
        self.stats_dock.setObjectName("StatsDock")
        self.stats_dock.setWidget(self.stats_view)
        for dock in (self.vocab_dock, self.stats_dock):
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            self.tabifyDockWidget(self.merges_dock, dock)
            dock.hide()
        self.train_panel = TrainPanel()
        self.train_dock = QDockWidget("Training", self)
        self.train_dock.setObjectName("TrainDock")
        self.train_dock.setWidget(self.train_panel)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.train_dock)
        self.tabifyDockWidget(self.merges_dock, self.train_dock)
        self.train_dock.hide()
        self.train_panel.trained.connect(self.use_trained_tokenizer)
        self.edit_panel = EditPanel()
        self.edit_dock = QDockWidget("Edit vocabulary", self)
        self.edit_dock.setObjectName("EditDock")
        self.edit_dock.setWidget(self.edit_panel)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.edit_dock)
        self.tabifyDockWidget(self.merges_dock, self.edit_dock)
        self.edit_dock.hide()
        self.edit_panel.applied.connect(self._use_edited_tokenizer)
        self._vocab_stale = True  # the Vocabulary view is filled when shown (a big vocabulary takes seconds)
        self.vocab_dock.visibilityChanged.connect(self._fill_vocab_view)

        bar = self.statusBar()
        bar.setSizeGripEnabled(False)
        self.status_tokenizer = QLabel()
        self.status_tokens = QLabel()
        self.status_ratio = QLabel()
        self.status_time = QLabel()
        for k, label in enumerate((self.status_tokenizer, self.status_tokens, self.status_ratio, self.status_time)):
            if k:
                sep = QFrame()
                sep.setFrameShape(QFrame.Shape.VLine)
                sep.setObjectName("StatusSeparator")
                bar.addPermanentWidget(sep)
            bar.addPermanentWidget(label)
        self.status_tokenizer.setObjectName("StatusTokenizer")
        # whole-file encoding of a big file: progress and cancel, shown only while it runs
        self.file_progress = QProgressBar()
        self.file_progress.setObjectName("FileProgress")
        self.file_progress.setRange(0, 1000)
        self.file_progress.setFormat("%p%")
        self.file_progress.setFixedWidth(140)
        self.file_progress.setMaximumHeight(16)
        self.file_cancel_button = QToolButton()
        self.file_cancel_button.setObjectName("FileCancel")
        self.file_cancel_button.setText("Cancel")
        self.file_cancel_button.setToolTip("Stop encoding the whole file (the preview stays)")
        self.file_cancel_button.clicked.connect(self.cancel_file_encoding)
        bar.insertPermanentWidget(0, self.file_cancel_button)
        bar.insertPermanentWidget(0, self.file_progress)
        self.file_progress.hide()
        self.file_cancel_button.hide()

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.action_open_tokenizer = QAction("Open &tokenizer…", self)
        self.action_open_tokenizer.setShortcut(QKeySequence("Ctrl+O"))
        self.action_open_tokenizer.triggered.connect(self._ask_open_tokenizer)
        self.action_open_folder = QAction("Open tokenizer &folder…", self)
        self.action_open_folder.triggered.connect(self._ask_open_tokenizer_folder)
        self.action_open_text = QAction("Open te&xt…", self)
        self.action_open_text.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.action_open_text.triggered.connect(self._ask_open_text)
        self.action_quit = QAction("&Quit", self)
        self.action_quit.setShortcut(QKeySequence.StandardKey.Quit)
        self.action_quit.setMenuRole(QAction.MenuRole.QuitRole)
        self.action_quit.triggered.connect(self.close)
        file_menu.addAction(self.action_open_tokenizer)
        file_menu.addAction(self.action_open_folder)
        file_menu.addAction(self.action_open_text)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addSeparator()
        self.action_export = QAction("&Export tokenizer…", self)
        self.action_export.setShortcut(QKeySequence("Ctrl+E"))
        self.action_export.triggered.connect(self.export_tokenizer)
        file_menu.addAction(self.action_export)
        file_menu.addSeparator()
        file_menu.addAction(self.action_quit)

        edit_menu = self.menuBar().addMenu("&Edit")
        self.action_find = QAction("&Find in text…", self)
        self.action_find.setShortcut(QKeySequence.StandardKey.Find)
        self.action_find.triggered.connect(self._ask_find)
        self.action_find_next = QAction("Find &next", self)
        self.action_find_next.setShortcut(QKeySequence.StandardKey.FindNext)
        self.action_find_next.triggered.connect(lambda: self.find_text(self._last_find))
        self.action_goto_token = QAction("&Go to token…", self)
        self.action_goto_token.setShortcut(QKeySequence("Ctrl+G"))
        self.action_goto_token.triggered.connect(self._ask_goto_token)
        for action in (self.action_find, self.action_find_next, self.action_goto_token):
            edit_menu.addAction(action)

        view_menu = self.menuBar().addMenu("&View")
        self.action_show_library = self.library_dock.toggleViewAction()
        self.action_show_library.setText("&Library")
        self.action_show_library.setShortcut(QKeySequence("Ctrl+L"))
        view_menu.addAction(self.action_show_library)
        self.action_show_ids = self.ids_dock.toggleViewAction()
        self.action_show_ids.setText("&Ids and decoding")
        self.action_show_ids.setShortcut(QKeySequence("Ctrl+I"))
        view_menu.addAction(self.action_show_ids)
        self.action_show_merges = self.merges_dock.toggleViewAction()
        self.action_show_merges.setText("&Merges, traces and health")
        self.action_show_merges.setShortcut(QKeySequence("Ctrl+M"))
        view_menu.addAction(self.action_show_merges)
        self.action_show_vocab = self.vocab_dock.toggleViewAction()
        self.action_show_vocab.setText("&Vocabulary")
        self.action_show_vocab.setShortcut(QKeySequence("Ctrl+Shift+V"))
        view_menu.addAction(self.action_show_vocab)
        self.action_show_stats = self.stats_dock.toggleViewAction()
        self.action_show_stats.setText("&Statistics and comparison")
        self.action_show_stats.setShortcut(QKeySequence("Ctrl+Shift+T"))
        view_menu.addAction(self.action_show_stats)
        self.action_show_train = self.train_dock.toggleViewAction()
        self.action_show_train.setText("&Training")
        self.action_show_train.setShortcut(QKeySequence("Ctrl+Shift+R"))
        view_menu.addAction(self.action_show_train)
        self.action_show_edit = self.edit_dock.toggleViewAction()
        self.action_show_edit.setText("&Edit vocabulary")
        self.action_show_edit.setShortcut(QKeySequence("Ctrl+Shift+E"))
        view_menu.addAction(self.action_show_edit)
        self.action_compare = QAction("&Compare tokenizers", self)
        self.action_compare.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self.action_compare.triggered.connect(self.show_compare)
        view_menu.addAction(self.action_compare)
        view_menu.addSeparator()
        color_menu = view_menu.addMenu("&Colour tokens by")
        self.color_actions = QActionGroup(self)
        self.color_actions.setExclusive(True)
        for k, (mode, label) in enumerate(COLOR_MODES.items()):
            action = QAction(label, self, checkable=True)
            action.setData(mode)
            action.setShortcut(QKeySequence(f"Alt+{k + 1}"))
            action.setChecked(mode == "token")
            action.triggered.connect(lambda _=False, m=mode: self.set_color_mode(m))
            self.color_actions.addAction(action)
            color_menu.addAction(action)
        theme_menu = view_menu.addMenu("&Theme")
        self.theme_actions = QActionGroup(self)
        for name, label in (("system", "Follow the &system"), ("light", "&Light"), ("dark", "&Dark")):
            action = QAction(label, self, checkable=True)
            action.setData(name)
            action.triggered.connect(lambda _=False, n=name: self.set_theme(n))
            self.theme_actions.addAction(action)
            theme_menu.addAction(action)
        view_menu.addSeparator()
        zoom = (("Zoom &in", QKeySequence.StandardKey.ZoomIn, 1), ("Zoom &out", QKeySequence.StandardKey.ZoomOut, -1),
                ("&Reset zoom", QKeySequence("Ctrl+0"), 0))
        self.zoom_actions = []
        for label, key, step in zoom:
            action = QAction(label, self)
            action.setShortcut(key)
            action.triggered.connect(lambda _=False, d=step: self.zoom(d))
            view_menu.addAction(action)
            self.zoom_actions.append(action)

        encode_menu = self.menuBar().addMenu("E&ncode")
        self.action_add_special = QAction("Add &special tokens (post-processor)", self)
        self.action_add_special.setCheckable(True)
        self.action_add_special.setToolTip("Encode with add_special_tokens=True, e.g. BERT's [CLS] … [SEP]")
        self.action_add_special.toggled.connect(self.controller.set_add_special_tokens)
        encode_menu.addAction(self.action_add_special)
        self.action_allow_special = QAction("Special-token &strings in the text are special tokens", self)
        self.action_allow_special.setCheckable(True)
        self.action_allow_special.setToolTip(
            "On: '<|endoftext|>' typed in the text becomes the special token; off: it is cut as plain text.\n"
            "Each format has its default (on for HF tokenizers, off for tiktoken and sentencepiece).")
        self.action_allow_special.triggered.connect(self.controller.set_allow_special)
        encode_menu.addAction(self.action_allow_special)
        self.action_max_length = QAction("&Max length…", self)
        self.action_max_length.setToolTip("Show where a model's max length cuts the tokens")
        self.action_max_length.triggered.connect(self._ask_max_length)
        encode_menu.addAction(self.action_max_length)

        help_menu = self.menuBar().addMenu("&Help")
        self.action_about = QAction("&About tokviz", self)
        self.action_about.setMenuRole(QAction.MenuRole.AboutRole)
        self.action_about.triggered.connect(self.show_about)
        help_menu.addAction(self.action_about)

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("MainToolBar")
        toolbar.setMovable(False)
        toolbar.addAction(self.action_open_tokenizer)
        toolbar.addAction(self.action_open_text)
        toolbar.addSeparator()
        self.action_add_special.setIconText("Add specials")
        toolbar.addAction(self.action_add_special)
        toolbar.addAction(self.action_max_length)

    def _connect(self) -> None:
        c = self.controller
        c.loadStarted.connect(self._on_load_started)
        c.tokenizerLoaded.connect(self._on_loaded)
        c.loadFailed.connect(self._on_load_failed)
        c.encoded.connect(self._on_encoded)
        c.encodeFailed.connect(self._on_encode_failed)
        self.file_job.progressed.connect(self._on_file_progress)
        self.file_job.finished.connect(self._on_file_finished)
        self.file_job.cancelled.connect(self._on_file_cancelled)
        self.file_job.failed.connect(self._on_file_failed)
        self.editor.textChanged.connect(self._on_text_edited)
        self.editor.cursorPositionChanged.connect(self._on_cursor_position_changed)
        self.editor.focusChanged.connect(lambda _focused: self._on_cursor_moved())
        self.token_view.tokenHovered.connect(self._on_token_hovered)
        self.token_view.tokenClicked.connect(self._on_token_clicked)
        self.token_view.tokensSelected.connect(self.select_tokens)
        self.editor.selectionChanged.connect(self._on_editor_selection)

    # ---- public API -------------------------------------------------------------------------------
    def open_tokenizer(self, path: str | os.PathLike) -> None:
        """Load a tokenizer file or folder on a worker (errors are reported, the window stays as it was)."""
        self.controller.load_tokenizer(path)

    def set_color_mode(self, mode: str) -> None:
        """Colour the tokens by `mode` (gui/coloring.MODES); remembered between runs."""
        tok = self.controller.tokenizer
        rank_of = rank_function(tok) if tok is not None and mode == "rank" else None
        unk = unknown_id(tok) if tok is not None else None
        self.token_view.set_color_mode(mode, rank_of=rank_of, unk_id=unk)
        for action in self.color_actions.actions():
            action.setChecked(action.data() == mode)
        self.settings.set_value("view/color_mode", mode)

    def find_text(self, needle: str) -> bool:
        """Select the next occurrence of `needle` in the editor (wrapping around); False if none."""
        self._last_find = needle
        if not needle:
            return False
        if self.editor.find(needle):
            return True
        cursor = self.editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.Start)
        self.editor.setTextCursor(cursor)
        found = self.editor.find(needle)
        if not found:
            self.statusBar().showMessage(f"{needle!r} is not in the text", 4000)
        return found

    def goto_token(self, index: int) -> bool:
        """Outline token `index` (0-based), scroll it into view and put the editor's cursor on it."""
        enc = self.token_view.encoding()
        if enc is None or not 0 <= index < len(enc):
            return False
        self._on_token_clicked(index)  # (moving the cursor outlines the token before a boundary)
        self.token_view.set_current_token(index)
        return True

    def select_tokens(self, first: int, last: int) -> None:
        """Select the text of tokens first..last in the editor (and highlight them)."""
        enc = self.token_view.encoding()
        held = self._editor_chars(enc)
        if held < 0 or not 0 <= first <= last < len(enc):
            return
        start, end = enc.offsets[first][0], max(e for _, e in enc.offsets[first:last + 1])
        self.token_view.set_selection(first, last)
        if start >= held and held < len(enc.text):
            return  # (a big file's tokens past what the editor holds)
        end = min(end, held)
        cursor = self.editor.textCursor()
        cursor.setPosition(self._qt_pos(enc.text, start))
        cursor.setPosition(self._qt_pos(enc.text, end), QTextCursor.MoveMode.KeepAnchor)
        self._selecting_from_tokens = True
        try:
            self.editor.setTextCursor(cursor)
        finally:
            self._selecting_from_tokens = False
        self.token_view.set_selection(first, last)

    def tokens_in_range(self, start: int, end: int) -> tuple[int, int] | None:
        """(first, last) index of the tokens overlapping characters [start, end), or None."""
        enc = self.token_view.encoding()
        if enc is None or end <= start:
            return None
        hits = []  # tokens are ordered by start: scan from the first that may overlap to the last
        k = max(0, bisect.bisect_right(self._starts, start) - 1)
        while k > 0 and enc.offsets[k - 1][1] > start:
            k -= 1
        while k < len(enc) and enc.offsets[k][0] < end:
            a, b = enc.offsets[k]
            if b > start and b > a:
                hits.append(k)
            k += 1
        return (hits[0], hits[-1]) if hits else None

    def _on_editor_selection(self) -> None:
        if getattr(self, "_selecting_from_tokens", False):
            return
        enc = self.token_view.encoding()
        cursor = self.editor.textCursor()
        if not cursor.hasSelection() or self._editor_chars(enc) < 0:
            self.token_view.set_selection(-1, -1)
            return
        start = self._py_index(enc.text, cursor.selectionStart())
        end = self._py_index(enc.text, cursor.selectionEnd())
        span = self.tokens_in_range(start, end)
        self.token_view.set_selection(*(span or (-1, -1)))

    def zoom(self, step: int) -> None:
        """Make the text and tokens bigger (step 1), smaller (-1) or the default size (0)."""
        default = mono_font().pointSizeF()
        size = default if step == 0 else min(max(self.editor.font().pointSizeF() + step, 6.0), 48.0)
        self._set_font_size(size)
        self.settings.set_value("view/font_size", f"{size:g}")

    def _set_font_size(self, size: float) -> None:
        font = mono_font(size)
        self.editor.setFont(font)
        self.editor.setTabStopDistance(4 * self.editor.fontMetrics().horizontalAdvance(" "))
        self.token_view.setFont(font)
        self.ids_panel.decoded_tokens.setFont(font)

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
            app.setStyle("Fusion")  # (native styles may ignore a custom palette)
            app.setPalette(dark_palette())
        else:
            app.setPalette(app.style().standardPalette())
        token_theme = DARK if dark else LIGHT
        self.setStyleSheet(chrome_qss(dark))
        self.token_view.set_theme(token_theme)
        self.merges_panel.set_theme(token_theme)
        self.vocab_view.set_theme(token_theme)
        self.stats_view.set_theme(token_theme)
        self.train_panel.set_theme(token_theme)
        self.compare_view.set_theme(token_theme)
        self.ids_panel.decoded_tokens.set_theme(token_theme)
        for action in self.theme_actions.actions():
            action.setChecked(action.data() == name)
        self.settings.set_value("view/theme", name)

    def theme(self) -> str:
        return self._theme

    def is_dark(self) -> bool:
        return self.token_view.theme is DARK

    def set_max_length(self, max_length: int | None) -> None:
        """Mark where `max_length` tokens end (None or 0: no max length)."""
        self._max_length = max_length or None
        self.token_view.set_truncation(self._max_length)
        self._update_truncation_status()

    def show_about(self) -> QMessageBox:
        box = QMessageBox(self)
        box.setWindowTitle("About tokviz")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(about_html())
        box.setIcon(QMessageBox.Icon.Information)
        box.open()
        return box

    def open_found(self, found) -> None:
        """Open a tokenizer the Library found (loaded on a worker, as open_tokenizer)."""
        self._opening[os.fspath(found.path)] = found
        self.controller.load_tokenizer(found.path, loader=lambda: open_found(found))

    def open_text_file(self, path: str | os.PathLike) -> bool:
        """Replace the text with a UTF-8 file's; False (and an error report) if it cannot be read.
        A file over BIG_FILE_BYTES opens in big-file mode (see the module docstring)."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        if size > BIG_FILE_BYTES:
            opened = self._open_big_file(path, size)
            if opened:
                self.settings.add_recent_text(path)
            return opened
        try:
            text = files.read_text_file(path)
        except TokvizError as exc:
            where = exc.path or os.fspath(path)
            self.report_error("Could not open text", f"{where}\n\n{exc.reason}", path=where, reason=exc.reason)
            return False
        self._text_path = os.fspath(path)
        self.set_text(text)
        self._update_title()
        self.settings.add_recent_text(path)
        return True

    def set_text(self, text: str) -> None:
        """Put `text` in the editor (it is encoded after the debounce).  Leaves big-file mode."""
        self._leave_big_mode()
        self._setting_text = True
        try:
            self.editor.setPlainText(text)
        finally:
            self._setting_text = False
        self._cursor_moved_by_user = False
        self._loaded_text = text
        self.controller.set_text(text)
        self._update_text_header()

    def current_text(self) -> str:
        """The text being tokenized: the opened file's exact text until it is edited, else the editor's."""
        if self._loaded_text is not None:
            return self._loaded_text
        return self.editor_text()

    def editor_text(self) -> str:
        # toRawText keeps non-breaking spaces (toPlainText turns them into spaces)
        return self.editor.document().toRawText().replace("\u2029", "\n")

    def handle_dropped_paths(self, paths: list[str | os.PathLike]) -> None:
        """Tokenizer files/folders are loaded (the last one wins); the first text file is opened."""
        tokenizer_paths, text_paths = [], []
        for p in paths:
            (tokenizer_paths if files.classify_path(p) == files.TOKENIZER else text_paths).append(p)
        if text_paths:
            self.open_text_file(text_paths[0])
        if tokenizer_paths:
            self.open_tokenizer(tokenizer_paths[-1])

    def is_busy(self) -> bool:
        return self.controller.is_busy() or self.file_job.is_running()

    def is_up_to_date(self) -> bool:
        """Idle and showing the current text's tokens (for a big file: its whole-file encoding ended)."""
        return self.controller.is_up_to_date() and not self.file_job.is_running()

    # ---- big files ---------------------------------------------------------------------------------
    def is_big_file(self) -> bool:
        """True in big-file mode (the editor holds only the start of the opened file)."""
        return self._big is not None

    def big_file_result(self) -> FileEncodeResult | None:
        """The whole-file encoding of the big file, once finished (ids as an array('I'))."""
        return self._big["result"] if self._big else None

    def cancel_file_encoding(self) -> None:
        """Stop encoding the whole big file (the Cancel button); `file_job.cancelled` follows."""
        if self.file_job.is_running():
            self.file_job.cancel()
            self.file_cancel_button.setEnabled(False)

    def _open_big_file(self, path: str | os.PathLike, size: int) -> bool:
        from ..core.streaming import last_cut

        try:
            head = files.read_text_head(path, PREVIEW_BYTES)
        except TokvizError as exc:
            where = exc.path or os.fspath(path)
            self.report_error("Could not open text", f"{where}\n\n{exc.reason}", path=where, reason=exc.reason)
            return False
        tok = self.controller.tokenizer
        cut = last_cut(head, tok) if tok is not None else last_cut(head)
        preview = head[:cut] if cut else head  # no cut: the last tokens may differ from the file's
        self._text_path = os.fspath(path)
        self.set_text(preview)
        self._big = {"path": os.fspath(path), "size": size, "result": None, "state": "", "shown": None}
        self.editor.setReadOnly(True)
        self._update_text_header()
        self._update_title()
        self._start_file_job()
        return True

    def _start_file_job(self) -> None:
        tok = self.controller.tokenizer
        if self._big is None or tok is None:
            return  # started when the tokenizer arrives
        self._big["result"] = self._big["shown"] = None
        self._big["state"] = "running"
        self.file_job.start(tok, self._big["path"])
        self.file_progress.setValue(0)
        self.file_progress.show()
        self.file_cancel_button.setEnabled(True)
        self.file_cancel_button.show()
        last = self.controller.last_result  # the preview's tokens, until the whole file's arrive
        if last is not None and last.generation == self.controller.generation and last.tokenizer is tok:
            self._show_big_encoded(last)
        else:
            self.token_view.set_encoding(None)
            self.ids_panel.set_encoding(None)
            name = Path(self._big["path"]).name
            self.token_view.set_message(f"Encoding {name} ({self._big['size'] / 1e6:.1f} MB)…")
        self.status_tokens.setText("encoding the whole file…")
        self.status_ratio.setText("")
        self.status_time.setText("")

    def _leave_big_mode(self) -> None:
        if self._big is None:
            return
        self._big = None
        self.file_job.abandon()
        self.file_progress.hide()
        self.file_cancel_button.hide()
        self.editor.setReadOnly(False)

    def _file_job_ended(self, shown: FileEncodeResult | None) -> None:
        """Show the whole file's tokens (or those encoded before a cancel), else the preview's."""
        self.file_progress.hide()
        self.file_cancel_button.hide()
        self._big["shown"] = shown
        if shown is not None and len(shown.tokens):
            self._show_file_tokens(shown)
            return
        last = self.controller.last_result
        if last is not None and last.generation == self.controller.generation:
            self._show_big_encoded(last)

    def _show_file_tokens(self, result: FileEncodeResult) -> None:
        freeze_long_lived()
        tokens = result.tokens
        self.token_view.set_encoding(tokens)
        self._starts = self.token_view.token_starts()
        self.ids_panel.set_encoding(tokens)
        n = len(tokens)
        if result.complete:
            self.status_tokens.setText(_plural(n, "token") + " in the whole file")
        else:
            self.status_tokens.setText(f"{_plural(n, 'token')} in the first {result.bytes / 1e6:.1f} MB "
                                       f"({self._big['state']})")
        if n:
            self.status_ratio.setText(f"{result.chars / n:.2f} chars/token · {result.bytes / n:.2f} bytes/token")
        mbs = result.bytes / 1e6 / result.seconds if result.seconds > 0 else 0
        self.status_time.setText(f"encoded in {result.seconds:.1f} s ({mbs:.2f} MB/s)")
        self._update_text_header()
        self._on_cursor_moved()

    @Slot(int, int)
    def _on_file_progress(self, done: int, total: int) -> None:
        self.file_progress.setValue(1000 if total <= 0 else min(1000, done * 1000 // total))
        if self._big is not None:
            self.token_view.set_message(
                f"Encoding {Path(self._big['path']).name}: {done / 1e6:.1f} of {total / 1e6:.1f} MB…"
            )

    @Slot(object)
    def _on_file_finished(self, result: FileEncodeResult) -> None:
        if self._big is None:
            return
        self.file_progress.setValue(1000)
        self._big["result"] = result
        self._big["state"] = "done"
        self._file_job_ended(result)

    @Slot(int, int)
    def _on_file_cancelled(self, done: int, total: int) -> None:
        if self._big is None:
            return
        self._big["state"] = f"cancelled at {100 * done / max(1, total):.0f}%"
        self._file_job_ended(self.file_job.partial)

    @Slot(str)
    def _on_file_failed(self, reason: str) -> None:
        if self._big is None:
            return
        self._big["state"] = "failed"
        self._file_job_ended(None)
        path = self._big["path"]
        self.report_error("Could not encode the whole file", f"{path}\n\n{reason}", path=path, reason=reason)

    def tokenizer(self) -> Tokenizer | None:
        return self.controller.tokenizer

    def report_error(self, title: str, message: str, *, path: str | None = None, reason: str | None = None) -> None:
        """Tell the user something failed (a modal message box unless an error handler was given).
        `errorReported(title, path, reason)` is emitted first, for callers that collect errors."""
        self.errorReported.emit(title, path or "", reason or message)
        if self._error_handler is not None:
            self._error_handler(title, message)
        else:
            QMessageBox.critical(self, title, message)

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

    # ---- menu actions ------------------------------------------------------------------------------
    def _start_dir(self) -> str:
        for p in (self.controller.tokenizer_path, self._text_path):
            if p:
                return str(Path(p).parent)
        return str(Path.home())

    @Slot()
    def _ask_open_tokenizer(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open tokenizer", self._start_dir(), TOKENIZER_FILTER)
        if path:
            self.open_tokenizer(path)

    @Slot()
    def _ask_open_tokenizer_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open tokenizer folder", self._start_dir())
        if path:
            self.open_tokenizer(path)

    @Slot()
    def _ask_open_text(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open text", self._start_dir(), TEXT_FILTER)
        if path:
            self.open_text_file(path)

    @Slot()
    def _ask_find(self) -> None:
        needle, ok = QInputDialog.getText(self, "Find in text", "Find:", text=self._last_find)
        if ok:
            self.find_text(needle)

    @Slot()
    def _ask_goto_token(self) -> None:
        enc = self.token_view.encoding()
        if enc is None or not len(enc):
            return
        index, ok = QInputDialog.getInt(self, "Go to token", f"Token number (1–{len(enc)}):",
                                        max(1, self.token_view.current_token() + 1), 1, len(enc))
        if ok:
            self.goto_token(index - 1)

    @Slot()
    def _ask_max_length(self) -> None:
        value, ok = QInputDialog.getInt(self, "Max length", "Max length in tokens (0: none):",
                                        self._max_length or 0, 0, 10_000_000)
        if ok:
            self.set_max_length(value)

    def _update_truncation_status(self) -> None:
        enc = self.token_view.encoding()
        n = len(enc) if enc is not None else 0
        text = _plural(n, "token")
        if self._max_length is not None and n > self._max_length:
            text += f" ({n - self._max_length:,} past the max length of {self._max_length:,})"
        elif self._max_length is not None:
            text += f" (max length {self._max_length:,})"
        if enc is not None and self._big is None:
            self.status_tokens.setText(text)

    @Slot()
    def _fill_recent_menu(self) -> None:
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

    # ---- controller signals ----------------------------------------------------------------------------
    @Slot(str)
    def _on_load_started(self, path: str) -> None:
        name = Path(path).name or path
        self.statusBar().showMessage(f"Loading {name}…")
        if self.controller.tokenizer is None:
            self.token_view.set_message(f"Loading {name}…")

    @Slot(object)
    def _on_loaded(self, result: LoadResult) -> None:
        self.statusBar().showMessage(f"Loaded {self._tok_name(result.tokenizer)} in {result.seconds:.2f} s", 4000)
        found = self._opening.pop(result.path, None)
        tok = result.tokenizer
        self.settings.add_recent_tokenizer(result.path, self._tok_name(tok), tok.source.format,
                                           getattr(found, "encoding", None))
        self._on_tokenizer_ready(result.tokenizer)

    def _on_tokenizer_ready(self, tok: Tokenizer) -> None:
        self.ids_panel.set_tokenizer(tok)
        self.merges_panel.set_tokenizer(tok)
        self.edit_panel.set_tokenizer(tok)
        self.stats_view.set_tokenizer(tok)
        self._vocab_stale = True
        self._fill_vocab_view(self.vocab_dock.isVisible())
        self.token_view.set_details_provider(lambda token_id: token_facts(tok, token_id))
        self.controller.set_allow_special(None)  # each format's own default again
        self.action_allow_special.setChecked(tok.special_in_text)
        self.set_color_mode(self.token_view.color_mode())  # ranks and the unknown id are per tokenizer
        self._update_title()
        self._update_header()
        if self._big is not None:
            self._start_file_job()  # the whole file again, with the new tokenizer

    @Slot(str, str)
    def _on_load_failed(self, path: str, reason: str) -> None:
        self.statusBar().showMessage("Could not load the tokenizer", 6000)
        if self.controller.tokenizer is None:
            self.token_view.set_message(
                "No tokenizer loaded.\nOpen one with File ▸ Open tokenizer… (Ctrl+O) or drop it here."
            )
        self.report_error("Could not open tokenizer", f"{path}\n\n{reason}", path=path, reason=reason)

    @Slot(object)
    def _on_encoded(self, result: EncodeResult) -> None:
        self.edit_panel.set_text(result.text)
        if self.tabs.currentWidget() is self.compare_view:
            self.compare_view.set_text(self.current_text())
        if self._big is not None:
            if self._big["shown"] is None:  # (the whole file's tokens, once there, stay)
                self._show_big_encoded(result)
            return
        self.token_view.set_encoding(result.encoding)
        self._starts = self.token_view.token_starts()
        self.ids_panel.set_encoding(result.encoding)
        if len(result.encoding) > 100_000:
            freeze_long_lived()
        n = len(result.encoding)
        chars = len(result.text)
        nbytes = len(result.text.encode("utf-8", "surrogatepass"))
        self._update_truncation_status()
        if n:
            self.status_ratio.setText(f"{chars / n:.2f} chars/token · {nbytes / n:.2f} bytes/token")
        else:
            self.status_ratio.setText("– chars/token")
        self.status_time.setText(f"encoded in {result.seconds * 1000:.0f} ms")
        self._on_cursor_moved()

    def _show_big_encoded(self, result: EncodeResult) -> None:
        """Big-file mode, before (or without) the whole file's tokens: the preview's."""
        self.token_view.set_encoding(result.encoding)
        self._starts = self.token_view.token_starts()
        self.ids_panel.set_encoding(result.encoding)
        big = self._big
        self.status_tokens.setText(_plural(len(result.encoding), "token") + " in the preview")
        if big["state"] != "running":
            self.status_ratio.setText(f"whole file: {big['state'] or 'not encoded'}")
            self.status_time.setText("")
        self._on_cursor_moved()

    @Slot(str)
    def _on_encode_failed(self, reason: str) -> None:
        self.token_view.set_encoding(None)
        self.ids_panel.set_encoding(None)
        self.token_view.set_message(f"Cannot encode this text:\n{reason}")
        self.status_tokens.setText("encode failed")
        self.status_ratio.setText("")
        self.statusBar().showMessage(reason, 8000)

    # ---- editor <-> token view ----------------------------------------------------------------------
    @Slot()
    def _on_text_edited(self) -> None:
        if self._setting_text:
            return
        self._loaded_text = None  # edited: the editor is the truth now
        self.controller.set_text(self.editor_text())
        self._update_text_header()

    def _editor_chars(self, enc) -> int:
        """How many characters of `enc`'s text the editor holds (all of them, or in big-file mode
        the start), or -1 when the editor shows another text."""
        if enc is None:
            return -1
        text = self.current_text()
        if enc.text == text:
            return len(text)
        if self._big is not None and enc.text.startswith(text):
            return len(text)
        return -1

    def _qt_pos(self, text: str, index: int) -> int:
        """Python character index in `text` -> position in the editor's document (UTF-16 units;
        a \\r\\n pair is one paragraph break there)."""
        prefix = text[:index]
        return index + len(_NON_BMP.findall(prefix)) - prefix.count("\r\n")

    def _py_index(self, text: str, qt_pos: int) -> int:
        """Editor position -> Python character index (inverse of _qt_pos, by scanning)."""
        if not _NON_BMP.search(text) and "\r\n" not in text:
            return qt_pos
        pos = i = 0
        n = len(text)
        while i < n and pos < qt_pos:
            ch = text[i]
            if ch == "\r" and i + 1 < n and text[i + 1] == "\n":
                i += 2
                pos += 1
                continue
            pos += 2 if ord(ch) > 0xFFFF else 1
            i += 1
        return i

    @Slot(int)
    def _on_token_hovered(self, index: int) -> None:
        enc = self.token_view.encoding()
        selections = []
        held = self._editor_chars(enc)
        if held >= 0 and 0 <= index < len(enc):
            s, e = enc.offsets[index]
            if held >= e > s:
                sel = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setBackground(QColor(self.token_view.color_of(index)))
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
                sel.format = fmt
                cur = QTextCursor(self.editor.document())
                cur.setPosition(self._qt_pos(enc.text, s))
                cur.setPosition(self._qt_pos(enc.text, e), QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cur
                selections.append(sel)
        self.editor.setExtraSelections(selections)

    @Slot(int)
    def _on_tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is not self.compare_view:
            return
        if not self._compare_restored:
            self._compare_restored = True
            saved = self.settings.compare_tokenizers()
            for entry in saved:
                self.compare_view.add_path(entry["path"], entry["name"], entry["encoding"])
            if not saved and self.controller.tokenizer is not None:
                self.compare_view.add_tokenizer(self.controller.tokenizer)
        self.compare_view.set_text(self.current_text())

    def export_tokenizer(self) -> ExportDialog | None:
        """Open the export dialog for the current tokenizer (File ▸ Export tokenizer…)."""
        tok = self.controller.tokenizer
        if tok is None:
            self.statusBar().showMessage("No tokenizer to export", 4000)
            return None
        dialog = ExportDialog(tok, self)
        dialog.accepted.connect(lambda: self.statusBar().showMessage(
            "Written: " + ", ".join(str(p) for p in dialog.written), 8000))
        dialog.open()
        return dialog

    def use_trained_tokenizer(self, tok: Tokenizer) -> None:
        """Open a tokenizer trained in the Training panel in the explorer, and in the Compare tab
        beside the tokenizers there."""
        self.controller.set_tokenizer(tok)
        self._on_tokenizer_ready(tok)
        if self._compare_restored:
            self.compare_view.add_tokenizer(tok)
        self.statusBar().showMessage(f"Trained {self._tok_name(tok)}: it is open in the explorer", 6000)

    def _use_edited_tokenizer(self, tok: Tokenizer) -> None:
        self.controller.set_tokenizer(tok)
        self._on_tokenizer_ready(tok)
        self.statusBar().showMessage(f"Vocabulary edited: {tok.vocab_size:,} tokens", 6000)

    def show_compare(self) -> None:
        """Switch to the Compare tab (on the text being edited)."""
        self.tabs.setCurrentWidget(self.compare_view)

    @Slot(bool)
    def _fill_vocab_view(self, visible: bool) -> None:
        if visible and self._vocab_stale and self.controller.tokenizer is not None:
            self._vocab_stale = False
            self.vocab_view.set_tokenizer(self.controller.tokenizer)

    @Slot(int)
    def _on_token_clicked(self, index: int) -> None:
        enc = self.token_view.encoding()
        if self.merges_dock.isVisible() and enc is not None and not enc.special[index]:
            self.merges_panel.show_in_context(enc.text, enc.offsets[index][0], enc.pieces[index])
        held = self._editor_chars(enc)
        if held < 0 or enc.offsets[index][0] > held:
            return
        s, _ = enc.offsets[index]
        cur = self.editor.textCursor()
        cur.setPosition(self._qt_pos(enc.text, s))
        self.editor.setTextCursor(cur)
        self.editor.ensureCursorVisible()

    @Slot()
    def _on_cursor_position_changed(self) -> None:
        if not self._setting_text:
            self._cursor_moved_by_user = True
        self._on_cursor_moved()

    @Slot()
    def _on_cursor_moved(self) -> None:
        enc = self.token_view.encoding()
        if (
            enc is None
            or not len(enc)
            or not self._cursor_moved_by_user
            or not self.editor.hasFocus()
            or self._editor_chars(enc) < 0
        ):
            self.token_view.set_current_token(-1)
            return
        idx = self._py_index(enc.text, self.editor.textCursor().position())
        best = token_at_char(enc.offsets, self._starts, max(0, idx - 1))
        self.token_view.set_current_token(best)

    # ---- header, title, status ----------------------------------------------------------------------
    @staticmethod
    def _tok_name(tok: Tokenizer | None) -> str:
        if tok is None:
            return "no tokenizer"
        src = tok.source
        return src.name or (Path(src.path).name if src.path else "tokenizer")

    def _update_title(self) -> None:
        tok = self.controller.tokenizer
        parts = ["tokviz", self._tok_name(tok) if tok else None]
        if self._text_path:
            parts.append(Path(self._text_path).name)
        self.setWindowTitle(" — ".join(p for p in parts if p))

    def _update_header(self) -> None:
        tok = self.controller.tokenizer
        if tok is None:
            self.tokenizer_header.setText("<b>Tokens</b> <span style='color:#6f7b8a'>· no tokenizer</span>")
            self.status_tokenizer.setText("no tokenizer")
            return
        info = tok.describe()
        bits = [info.get("format"), info.get("model")]
        if info.get("byte_level"):
            bits.append("byte-level")
        bits.append(f"vocab {int(info.get('vocab_size') or tok.vocab_size):,}")
        if info.get("normalizer"):
            norm = str(info["normalizer"])
            bits.append(f"normalizer {norm if len(norm) <= 40 else norm[:39] + '…'}")
        detail = " · ".join(str(b) for b in bits if b)
        self.tokenizer_header.setText(
            f"<b>{_escape(self._tok_name(tok))}</b>&nbsp;&nbsp;<span style='color:#5b6675'>{_escape(detail)}</span>"
        )
        self.tokenizer_header.setToolTip(
            "<br>".join(
                f"<b>{_escape(k)}</b>: {_escape(str(info[k]))}"
                for k in ("path", "format", "model", "vocab_size", "normalizer", "pre_tokenizer", "post_processor", "decoder")
                if info.get(k) is not None
            )
        )
        self.status_tokenizer.setText(self._tok_name(tok))

    def _update_text_header(self) -> None:
        text = self.current_text()
        name = Path(self._text_path).name if self._text_path else self._text_name
        if self._big is not None:
            nbytes = len(text.encode("utf-8", "surrogatepass"))
            whole = self._big["shown"] is not None and self._big["shown"].complete
            self.text_header.setText(
                f"<b>Text</b>&nbsp;&nbsp;<span style='color:#5b6675'>{_escape(name)} · "
                f"{self._big['size'] / 1e6:.1f} MB{', all tokens shown' if whole else ''} · "
                f"editor: first {nbytes / 1024:.0f} KB, read-only</span>"
            )
            self.text_header.setToolTip(
                "A big file: the editor holds its start; the token view shows every token of the whole file "
                "once it is encoded (or those encoded before a cancel)."
            )
            return
        self.text_header.setToolTip("")
        nbytes = len(text.encode("utf-8", "surrogatepass"))
        edited = " (edited)" if self._text_path and self._loaded_text is None else ""
        self.text_header.setText(
            f"<b>Text</b>&nbsp;&nbsp;<span style='color:#5b6675'>{_escape(name)}{edited} · "
            f"{_plural(len(text), 'char')} · {_plural(nbytes, 'byte')}</span>"
        )

    def status_text(self) -> str:
        """Everything the status bar shows, for tests and screenshots."""
        parts = [self.status_tokenizer.text(), self.status_tokens.text(), self.status_ratio.text(), self.status_time.text()]
        return " | ".join(p for p in parts if p)

    # ---- lifetime -------------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        self._session_timer.stop()
        self._gc_timer.stop()
        self.session.mark_clean()
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.library.shutdown()
        self.merges_panel.shutdown()
        self.train_panel.shutdown()
        self.edit_panel.shutdown()
        self.compare_view.shutdown()
        self.vocab_view.shutdown()
        self.stats_view.shutdown()
        self.file_job.shutdown()
        self.controller.shutdown()
        super().closeEvent(event)


def token_at_char(offsets: list[tuple[int, int]], starts: list[int], char: int) -> int:
    """Index of the first token whose span holds character `char` (-1 if none); `starts` are the
    spans' starts, sorted (as an Encoding's are)."""
    k = bisect.bisect_right(starts, char) - 1
    if k < 0:
        return -1
    while k > 0 and starts[k - 1] <= char < offsets[k - 1][1]:
        k -= 1
    s, e = offsets[k]
    return k if s <= char < e else -1


def _escape(s: str) -> str:
    import html

    return html.escape(s, quote=False)
