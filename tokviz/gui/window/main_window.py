"""The explorer window: a text editor, the live token view, a header and a status bar, with the
Compare tab and the docks around them.

`MainWindow` assembles the parts of `gui.window` (editor and its link to the token view, find bar,
docks, menus, status bar, big-file mode, session, idle clean-up, the round trip's marks), opens
tokenizers and texts, shows encodings, and looks after the tokenizers trained or edited here.  The
encode pipeline lives in `workers.EncodeController`, the drawing in `token_view.TokenView`.
"""
from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...core import Tokenizer
from ...core.gcpause import freeze_long_lived
from ..widgets import fonts
from ..widgets.layout import HeaderLabel
from ..analyses.analyses_view import AnalysesView
from ..views.color_legend import ColorLegend
from ..views.coloring import MODES as COLOR_MODES
from ..views.coloring import rank_function, unknown_id
from ..views.chat_view import ChatView
from ..views.compare_view import CompareView
from ..views.learn_view import LearnView
from ..analyses.fairness_view import FairnessView
from ..panels.library_panel import LibraryPanel
from ..analyses.overlap_view import OverlapView
from ..platform import tune_allocator, tune_thread_switching
from ..analyses.robustness_view import RobustnessView
from ..settings import Settings
from ..widgets.style import (DARK, LIGHT, dark_palette, mono_font, set_chrome_theme, set_theme_when_shown,
                    system_prefers_dark)
from ..views.token_view import TokenView
from .actions import build_menus
from .dialogs import MenuDialogs
from .big_file import BIG_FILE_BYTES, PREVIEW_BYTES, BigFileMode
from .docks import build_docks
from .editor import TextEditor
from .find_bar import FindBar
from .headers import Headers
from .idle import IdleCleanup
from .link import EditorTokenLink
from .roundtrip_marks import RoundTripMarks
from .session import SessionKeeper, SessionStore, UnsavedTokenizers
from .status import StatusFields, plural
from .text_document import Origin, TextDocument
from .text_loading import TextLoading
from .tokenizers import TokenizerLoading
from .unsaved_work import UnsavedWork
from ..work.workers import EncodeController, EncodeResult, FileEncodeResult, TaskRunner

__all__ = ["MainWindow", "BIG_FILE_BYTES", "PREVIEW_BYTES"]

ANALYSIS_PAGES = ("FairnessPage", "RobustnessPage", "OverlapPage")  # the Analyses pages' objectNames, in order
FIRST_SIZE = QSize(1200, 800)  # the window's size at the first start, on a screen big enough
FRAME_GUESS = QSize(16, 48)  # room left for a window manager's frame (title bar, borders) before it is known
FONT_CHECK_MS = 400  # after an encode, the text's characters are checked for fonts this much later


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


class MainWindow(TokenizerLoading, TextLoading, UnsavedWork, MenuDialogs, Headers, QMainWindow):
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
        self._shown_once = False
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
        # (a long description must not push the splitter: the headers leave out their last parts)
        self.text_header = HeaderLabel()
        self.tokenizer_header = HeaderLabel()
        self.tokenizer_header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

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
        self.tabs.addTab(self.splitter, self.tr("Explorer"))
        self.tabs.addTab(self.compare_view, self.tr("Compare"))
        self.chat_view = ChatView()
        self.tabs.addTab(self.chat_view, self.tr("Chat"))
        pages = [(self.tr("Fairness"), FairnessView()), (self.tr("Robustness"), RobustnessView()),
                 (self.tr("Overlap"), OverlapView())]
        for key, (_title, page) in zip(ANALYSIS_PAGES, pages):
            page.setObjectName(key)  # (found by this name, never by its translated title)
        self.analyses_view = AnalysesView(pages)
        self.analyses_view.addRequested.connect(self._add_to_analysis_set)
        self.tabs.addTab(self.analyses_view, self.tr("Analyses"))
        self.learn_view = LearnView()
        self.tabs.addTab(self.learn_view, self.tr("Learn"))
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
        self.learn_view.openRequested.connect(self._open_learned_tokenizer)
        self.edit_panel.applied.connect(self._use_edited_tokenizer)
        self.merges_dock.visibilityChanged.connect(self.link.merges_dock_shown)  # (a token clicked meanwhile)
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
        self.resize(FIRST_SIZE)  # (fit_to_screen makes it smaller on a smaller screen)
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
        self._fitted_size = self.size()
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

    # ---- the window on the screen ------------------------------------------------------------------
    def fit_to_screen(self) -> None:
        """Keep the window, with its frame, within the available screen (a saved layout may come from a
        bigger one).  Before the window is shown its frame is not known: FRAME_GUESS is left for it."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        area = screen.availableGeometry()
        frame = self.frameGeometry()
        extra_w, extra_h = max(0, frame.width() - self.width()), max(0, frame.height() - self.height())
        if not (extra_w or extra_h or self.isVisible()):
            extra_w, extra_h = FRAME_GUESS.width(), FRAME_GUESS.height()
        width = min(self.width(), area.width() - extra_w)
        height = min(self.height(), area.height() - extra_h)
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        geometry = self.frameGeometry()
        framed = geometry.width() != self.width() or geometry.height() != self.height()
        outer_w = geometry.width() + (0 if framed else extra_w)  # (with the frame, known or guessed)
        outer_h = geometry.height() + (0 if framed else extra_h)
        x = max(area.x(), min(geometry.x(), area.right() - outer_w + 1))
        y = max(area.y(), min(geometry.y(), area.bottom() - outer_h + 1))
        if (x, y) != (geometry.x(), geometry.y()):
            self.move(x, y)

    def _fit_once_framed(self) -> None:
        """Once a window manager has framed the shown window (its frame's size is known), fit it again,
        unless someone has sized it since it was fitted (a script, the screenshot command)."""
        frame = self.frameGeometry()
        if self.size() == self._fitted_size and (frame.width() != self.width() or frame.height() != self.height()):
            self.fit_to_screen()
            self._fitted_size = self.size()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            for ms in (0, 300):  # (the frame's size comes from the window manager, a moment after mapping)
                QTimer.singleShot(ms, self._fit_once_framed)

    # ---- public API -------------------------------------------------------------------------------
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
        self.learn_view.set_show_whitespace(on)
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
        for view in (self.token_view, self.compare_view, self.chat_view, self.ids_panel.decoded_tokens, self.legend,
                     self.learn_view):
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
            self.statusBar().showMessage(self.tr("“{text}” is not in the text").format(text=needle), 4000)
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
    def show_compare(self) -> None:
        """Switch to the Compare tab (on the text being edited)."""
        self.tabs.setCurrentWidget(self.compare_view)

    # ---- controller signals ----------------------------------------------------------------------------
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
        ratio = self.tr("{chars} chars/token · {bytes} bytes/token").format(
            chars=f"{len(result.text) / n:.2f}", bytes=f"{nbytes / n:.2f}") if n else self.tr("– chars/token")
        self.status.set_label_texts(None, ratio, self.tr("encoded in {ms} ms").format(ms=f"{result.seconds * 1000:.0f}"))
        self._update_token_count()

    @Slot(str)
    def _on_encode_failed(self, reason: str) -> None:
        self.show_encoding(None, message=self.tr("Cannot encode this text:\n{reason}").format(reason=reason))
        self.status.set_label_texts(self.tr("encode failed"), "", "")
        self.statusBar().showMessage(reason, 8000)

    def _update_token_count(self) -> None:
        enc = self.token_view.encoding()
        if enc is None or self.big.is_active():
            return
        n = len(enc)
        text = plural(n, "token")
        if self._max_length is not None and n > self._max_length:
            text = self.tr("{tokens} ({past} past the max length of {max})").format(
                tokens=text, past=f"{n - self._max_length:,}", max=f"{self._max_length:,}")
        elif self._max_length is not None:
            text = self.tr("{tokens} (max length {max})").format(tokens=text, max=f"{self._max_length:,}")
        self.status.set_label_texts(text)

    def _check_fonts(self) -> None:
        """Say in the status bar which scripts of the text no installed font shows."""
        text = self.current_text()
        if not fonts.check(text, self.token_view.font()):
            self._font_timer.start()  # (a text of many new characters: the rest a moment later)
        scripts = fonts.missing_scripts(text, self.token_view.font())
        self.status.set_font_warning(
            self.tr("No installed font shows {scripts}: drawn as boxes (install fonts-noto-core)").format(
                scripts=", ".join(scripts)) if scripts else "")

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

    def _open_learned_tokenizer(self, tok: Tokenizer) -> None:
        """The Learn tab's tokenizer, opened in the explorer as a trained one is."""
        self.use_trained_tokenizer(tok)
        self.tabs.setCurrentWidget(self.splitter)

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
                     self.chat_view, self.analyses_view, self.learn_view, self.roundtrip_panel, self.vocab_view,
                     self.stats_view, self.big.job, self._workers, self.document, self.controller):
            part.shutdown()
        super().closeEvent(event)
