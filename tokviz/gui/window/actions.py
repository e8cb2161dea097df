"""The menus, their actions and the toolbar of the main window.

Every menu's items have different accelerator letters (checked by tests/gui/test_menus.py), and the
Edit menu's text actions (undo, cut, copy, ...) act on whichever text field has the focus."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QLineEdit, QMenu, QPlainTextEdit, QTextEdit

from ..views.coloring import MODES as COLOR_MODES
from ..views.coloring import mode_name
from .language import add_language_menu


def _tr(text: str) -> str:
    """The translation of a text declared with QT_TRANSLATE_NOOP("Actions", …) or written out below."""
    return QCoreApplication.translate("Actions", text)


def _action(window, text: str, slot=None, shortcut=None, *, checkable: bool = False, tip: str = "") -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut) if isinstance(shortcut, str) else shortcut)
    action.setCheckable(checkable)
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)
    if slot is not None:
        (action.toggled if checkable else action.triggered).connect(slot)
    return action


def _focused_text_widget(window):
    """The text field with the keyboard focus, else the window's editor."""
    focus = QApplication.focusWidget()
    if isinstance(focus, (QLineEdit, QPlainTextEdit, QTextEdit)) and window.isAncestorOf(focus):
        return focus
    return window.editor


def build_menus(window) -> None:
    """Create the menus and the toolbar of `window` (a MainWindow); actions become its attributes."""
    _file_menu(window)
    _edit_menu(window)
    _view_menu(window)
    _encode_menu(window)
    help_menu = window.menuBar().addMenu(QCoreApplication.translate("Actions", "&Help"))
    window.action_about = _action(window, QCoreApplication.translate("Actions", "&About tokviz"), window.show_about)
    window.action_about.setMenuRole(QAction.MenuRole.AboutRole)
    help_menu.addAction(window.action_about)

    toolbar = window.addToolBar(QCoreApplication.translate("Actions", "Main"))
    toolbar.setObjectName("MainToolBar")
    toolbar.setMovable(False)
    # (the toolbar's texts are set, not derived from the menus': Qt would keep a translation's "(&T)")
    window.action_open_tokenizer.setIconText(QCoreApplication.translate("Actions", "Open tokenizer"))
    window.action_open_text.setIconText(QCoreApplication.translate("Actions", "Open text"))
    window.action_max_length.setIconText(QCoreApplication.translate("Actions", "Max length"))
    toolbar.addAction(window.action_open_tokenizer)
    toolbar.addAction(window.action_open_text)
    toolbar.addSeparator()
    window.action_add_special.setIconText(QCoreApplication.translate("Actions", "Add specials"))
    toolbar.addAction(window.action_add_special)
    toolbar.addAction(window.action_max_length)


def _file_menu(window) -> None:
    menu = window.menuBar().addMenu(QCoreApplication.translate("Actions", "&File"))
    window.action_open_tokenizer = _action(
        window, QCoreApplication.translate("Actions", "Open &tokenizer…"), window.ask_open_tokenizer, "Ctrl+O")
    window.action_open_folder = _action(
        window, QCoreApplication.translate("Actions", "Open tokenizer &folder…"), window.ask_open_tokenizer_folder)
    window.action_open_text = _action(
        window, QCoreApplication.translate("Actions", "Open te&xt…"), window.ask_open_text, "Ctrl+Shift+O")
    keys = QKeySequence.StandardKey
    window.action_save_text = _action(
        window, QCoreApplication.translate("Actions", "&Save text"), lambda: window.save_text(), keys.Save,
        tip=QCoreApplication.translate("Actions", "Write the text to its file (a text with no file: ask where)"))
    window.action_save_text_as = _action(
        window, QCoreApplication.translate("Actions", "Save text &as…"), lambda: window.save_text_as(),
        QKeySequence("Ctrl+Shift+S"),
        tip=QCoreApplication.translate("Actions", "Write the text to a new file (a big file: copy the whole file)"))
    for action in (window.action_open_tokenizer, window.action_open_folder, window.action_open_text):
        menu.addAction(action)
    window.recent_menu = menu.addMenu(QCoreApplication.translate("Actions", "Open &recent"))
    window.recent_menu.aboutToShow.connect(window.fill_recent_menu)
    window.unsaved_menu = menu.addMenu(QCoreApplication.translate("Actions", "&Unsaved tokenizers"))
    window.unsaved_menu.aboutToShow.connect(window.fill_unsaved_menu)
    window.unsaved_discard_menu = QMenu(QCoreApplication.translate("Actions", "&Discard"), window.unsaved_menu)
    menu.addSeparator()
    menu.addAction(window.action_save_text)
    menu.addAction(window.action_save_text_as)
    menu.addSeparator()
    window.action_export = _action(
        window, QCoreApplication.translate("Actions", "&Export tokenizer…"), window.export_tokenizer, "Ctrl+E")
    menu.addAction(window.action_export)
    menu.addSeparator()
    window.action_quit = _action(window, QCoreApplication.translate("Actions", "&Quit"), window.request_quit,
                                 QKeySequence.StandardKey.Quit)
    window.action_quit.setMenuRole(QAction.MenuRole.QuitRole)
    menu.addAction(window.action_quit)


def _edit_menu(window) -> None:
    menu = window.menuBar().addMenu(QCoreApplication.translate("Actions", "&Edit"))
    keys = QKeySequence.StandardKey
    text_actions = ((QT_TRANSLATE_NOOP("Actions", "&Undo"), "undo", keys.Undo),
                    (QT_TRANSLATE_NOOP("Actions", "&Redo"), "redo", keys.Redo),
                    (QT_TRANSLATE_NOOP("Actions", "Cu&t"), "cut", keys.Cut),
                    (QT_TRANSLATE_NOOP("Actions", "&Copy"), "copy", keys.Copy),
                    (QT_TRANSLATE_NOOP("Actions", "&Paste"), "paste", keys.Paste),
                    (QT_TRANSLATE_NOOP("Actions", "Select &all"), "selectAll", keys.SelectAll))
    window.text_actions = {}
    for k, (label, method, key) in enumerate(text_actions):
        action = QAction(_tr(label), window)
        action.setShortcut(key)
        # shown in the menu, but the keys stay with the focused widget (a field, a table's copy)
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(lambda _=False, m=method: getattr(_focused_text_widget(window), m)())
        window.text_actions[method] = action
        menu.addAction(action)
        if k == 1:
            menu.addSeparator()
    _track_editor_state(window)
    menu.addSeparator()
    window.action_find = _action(window, QCoreApplication.translate("Actions", "&Find in text…"),
                                 window.find_bar.open_bar, keys.Find)
    window.action_find_next = _action(window, QCoreApplication.translate("Actions", "Find &next"),
                                      window.find_next, keys.FindNext)
    window.action_find_previous = _action(window, QCoreApplication.translate("Actions", "Find pre&vious"),
                                          window.find_previous, keys.FindPrevious)
    window.action_goto_token = _action(window, QCoreApplication.translate("Actions", "&Go to token…"),
                                       window.ask_goto_token, "Ctrl+G")
    for action in (window.action_find, window.action_find_next, window.action_find_previous,
                   window.action_goto_token):
        menu.addAction(action)


def _track_editor_state(window) -> None:
    """Undo, redo, cut and copy are enabled as the editor allows (other fields: always)."""
    editor, acts = window.editor, window.text_actions
    for name in ("undo", "redo", "cut", "copy"):
        acts[name].setEnabled(False)
    editor.undoAvailable.connect(acts["undo"].setEnabled)
    editor.redoAvailable.connect(acts["redo"].setEnabled)
    editor.copyAvailable.connect(acts["copy"].setEnabled)
    editor.copyAvailable.connect(lambda on: acts["cut"].setEnabled(on and not editor.isReadOnly()))

    def focus_moved(_old, new) -> None:
        if isinstance(new, (QLineEdit, QPlainTextEdit, QTextEdit)) and new is not editor:
            for name in ("undo", "redo", "cut", "copy"):
                acts[name].setEnabled(True)
        elif new is editor:
            document = editor.document()
            acts["undo"].setEnabled(document.isUndoAvailable())
            acts["redo"].setEnabled(document.isRedoAvailable())
            selected = editor.textCursor().hasSelection()
            acts["copy"].setEnabled(selected)
            acts["cut"].setEnabled(selected and not editor.isReadOnly())

    QApplication.instance().focusChanged.connect(focus_moved)
    window.destroyed.connect(lambda *_: _disconnect_focus(focus_moved))


def _disconnect_focus(slot) -> None:
    app = QApplication.instance()
    if app is not None:
        try:
            app.focusChanged.disconnect(slot)
        except (RuntimeError, TypeError):
            pass


def _view_menu(window) -> None:
    menu = window.menuBar().addMenu(QCoreApplication.translate("Actions", "&View"))
    docks = window.docks
    dock_items = ((docks.library, QT_TRANSLATE_NOOP("Actions", "&Library"), "Ctrl+L"),
                  (docks.ids, QT_TRANSLATE_NOOP("Actions", "&Ids and decoding"), "Ctrl+I"),
                  (docks.merges, QT_TRANSLATE_NOOP("Actions", "&Merges, traces and health"), "Ctrl+M"),
                  (docks.vocab, QT_TRANSLATE_NOOP("Actions", "&Vocabulary"), "Ctrl+Shift+V"),
                  (docks.stats, QT_TRANSLATE_NOOP("Actions", "&Statistics and comparison"), "Ctrl+Shift+T"),
                  (docks.train, QT_TRANSLATE_NOOP("Actions", "&Training"), "Ctrl+Shift+R"),
                  (docks.edit, QT_TRANSLATE_NOOP("Actions", "&Edit vocabulary"), "Ctrl+Shift+E"),
                  (docks.roundtrip, QT_TRANSLATE_NOOP("Actions", "Round tri&p (normalizer, decode)"), "Ctrl+Shift+D"))
    window.dock_actions = []
    for dock, label, key in dock_items:
        action = dock.toggleViewAction()
        action.setText(_tr(label))
        action.setShortcut(QKeySequence(key))
        menu.addAction(action)
        window.dock_actions.append(action)
    window.action_show_library = window.dock_actions[0]
    window.action_compare = _action(
        window, QCoreApplication.translate("Actions", "&Compare tokenizers"), window.show_compare, "Ctrl+Shift+C")
    menu.addAction(window.action_compare)
    menu.addSeparator()

    color_menu = menu.addMenu(QCoreApplication.translate("Actions", "Colour tokens &by"))
    window.color_actions = QActionGroup(window)
    window.color_actions.setExclusive(True)
    for k, (mode, label) in enumerate(COLOR_MODES.items()):
        action = _action(window, mode_name(mode), None, f"Alt+{k + 1}", checkable=True)
        action.setData(mode)
        action.setChecked(mode == "token")
        action.triggered.connect(lambda _=False, m=mode: window.set_color_mode(m))
        window.color_actions.addAction(action)
        color_menu.addAction(action)
    window.action_whitespace = _action(
        window, QCoreApplication.translate("Actions", "&Whitespace markers"), window.set_show_whitespace,
        "Ctrl+Shift+W", checkable=True,
        tip=QCoreApplication.translate("Actions", "Draw spaces, tabs and newlines in tokens as · → ↵"))
    window.action_legend = _action(
        window, QCoreApplication.translate("Actions", "Colour le&gend"), window.set_show_legend, checkable=True,
        tip=QCoreApplication.translate("Actions", "What the colours and markers of the token view mean"))
    menu.addAction(window.action_whitespace)
    menu.addAction(window.action_legend)
    theme_menu = menu.addMenu(QCoreApplication.translate("Actions", "T&heme"))
    window.theme_actions = QActionGroup(window)
    for name, label in (("system", QT_TRANSLATE_NOOP("Actions", "Follow the &system")),
                        ("light", QT_TRANSLATE_NOOP("Actions", "&Light")),
                        ("dark", QT_TRANSLATE_NOOP("Actions", "&Dark"))):
        action = _action(window, _tr(label), None, checkable=True)
        action.setData(name)
        action.triggered.connect(lambda _=False, n=name: window.set_theme(n))
        window.theme_actions.addAction(action)
        theme_menu.addAction(action)
    add_language_menu(window, menu)
    menu.addSeparator()
    keys = QKeySequence.StandardKey
    window.zoom_actions = []
    for label, key, step in ((QT_TRANSLATE_NOOP("Actions", "Zoom i&n"), keys.ZoomIn, 1),
                             (QT_TRANSLATE_NOOP("Actions", "Zoom &out"), keys.ZoomOut, -1),
                             (QT_TRANSLATE_NOOP("Actions", "&Reset zoom"), "Ctrl+0", 0)):
        action = _action(window, _tr(label), lambda _=False, d=step: window.zoom(d), key)
        menu.addAction(action)
        window.zoom_actions.append(action)


def _encode_menu(window) -> None:
    menu = window.menuBar().addMenu(QCoreApplication.translate("Actions", "E&ncode"))
    controller = window.controller
    window.action_add_special = _action(
        window, QCoreApplication.translate("Actions", "Add &special tokens (post-processor)"),
        controller.set_add_special_tokens, checkable=True,
        tip=QCoreApplication.translate("Actions", "Encode with add_special_tokens=True, e.g. BERT's [CLS] … [SEP]"))
    window.action_allow_special = _action(
        window, QCoreApplication.translate("Actions", "Special-token s&trings in the text are special tokens"), None,
        checkable=True,
        tip=QCoreApplication.translate(
            "Actions", "On: '<|endoftext|>' typed in the text becomes the special token; off: it is cut as plain "
                       "text.\nEach format has its default (on for HF tokenizers, off for tiktoken and "
                       "sentencepiece)."))
    window.action_allow_special.triggered.connect(controller.set_allow_special)
    window.action_max_length = _action(
        window, QCoreApplication.translate("Actions", "&Max length…"), window.ask_max_length,
        tip=QCoreApplication.translate("Actions", "Show where a model's max length cuts the tokens"))
    for action in (window.action_add_special, window.action_allow_special, window.action_max_length):
        menu.addAction(action)
