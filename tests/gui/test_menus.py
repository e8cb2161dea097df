"""Menus and keyboard: distinct accelerators, an Edit menu that edits, the inline find bar, the
whitespace-marker toggle and the colour legend."""
from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QDialog, QMenu

from tokviz.gui.views.coloring import MODES, legend_entries
from tokviz.gui.widgets.style import LIGHT

from .helpers import speaking

TEXT = "one two three two one\nfour two"


def _accelerator(text: str) -> str | None:
    found = re.search(r"&([^&])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def _menus(menu: QMenu):
    yield menu
    for action in menu.actions():
        if action.menu() is not None:
            yield from _menus(action.menu())


def test_every_menu_has_distinct_accelerators(qtbot, make_window):
    window = make_window(text=TEXT)
    _check_accelerators(window)
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    by_letter = {_accelerator(a.text()): a.text() for a in view.actions() if a.text()}
    assert by_letter["h"] == "T&heme" and by_letter["t"] == "&Training"


def test_every_menu_has_distinct_accelerators_in_chinese(qtbot, make_window):
    """Chinese items keep a letter, in brackets after the words (文件(&F)), distinct in each menu."""
    with speaking("zh_CN"):
        window = make_window(text=TEXT)
        _check_accelerators(window)
        assert [a.text() for a in window.menuBar().actions()][0] == "文件(&F)"


def _check_accelerators(window) -> None:
    bar_letters = [_accelerator(a.text()) for a in window.menuBar().actions()]
    assert len(bar_letters) == len(set(bar_letters)) and None not in bar_letters
    checked = 0
    for top in window.menuBar().actions():
        for menu in _menus(top.menu()):
            menu.aboutToShow.emit()  # (filled on demand: Open recent, Unsaved tokenizers)
            letters = [_accelerator(a.text()) for a in menu.actions() if not a.isSeparator() and a.text()]
            letters = [x for x in letters if x is not None]
            assert len(letters) == len(set(letters)), f"{menu.title()}: {[a.text() for a in menu.actions()]}"
            checked += 1
    assert checked >= 8


def test_edit_menu_cuts_pastes_undoes_and_selects_all(qtbot, make_window):
    window = make_window(text=TEXT)
    window.editor.setFocus()
    qtbot.waitUntil(window.editor.hasFocus)
    acts = window.text_actions
    assert set(acts) == {"undo", "redo", "cut", "copy", "paste", "selectAll"}
    acts["selectAll"].trigger()
    assert window.editor.textCursor().selectedText().replace("\u2029", "\n") == TEXT
    assert acts["cut"].isEnabled() and acts["copy"].isEnabled()
    acts["cut"].trigger()
    assert window.editor_text() == "" and QGuiApplication.clipboard().text() == TEXT
    assert acts["undo"].isEnabled()
    acts["undo"].trigger()
    assert window.editor_text() == TEXT
    acts["redo"].trigger()
    assert window.editor_text() == ""
    acts["paste"].trigger()
    acts["paste"].trigger()
    assert window.editor_text() == TEXT + TEXT
    # the edits reach the tokens
    qtbot.waitUntil(lambda: window.token_view.encoding() is not None
                    and window.token_view.encoding().text == TEXT + TEXT, timeout=10_000)


def test_edit_actions_follow_the_focused_field(qtbot, make_window):
    window = make_window(text=TEXT)
    field = window.ids_panel.decode_input
    field.setText("9906 1917")
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    window.text_actions["selectAll"].trigger()
    window.text_actions["copy"].trigger()
    assert QGuiApplication.clipboard().text() == "9906 1917"
    assert window.editor_text() == TEXT  # (the editor was not touched)


def test_find_is_an_inline_bar_that_finds_as_you_type(qtbot, make_window):
    window = make_window(text=TEXT)
    dialogs = []
    window.action_find.trigger()
    dialogs.extend(w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible())
    bar = window.find_bar
    assert bar.isVisible() and not dialogs
    qtbot.waitUntil(bar.field.hasFocus)
    qtbot.keyClicks(bar.field, "tw")
    cursor = window.editor.textCursor()
    assert TEXT[cursor.selectionStart():cursor.selectionEnd()] == "tw"
    qtbot.keyClicks(bar.field, "o")
    starts = [m.start() for m in re.finditer("two", TEXT)]
    assert window.editor.textCursor().selectionStart() == starts[0]
    assert bar.count_label.text() == f"1 of {len(starts)}"
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert window.editor.textCursor().selectionStart() == starts[1]
    assert bar.count_label.text() == f"2 of {len(starts)}"
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert window.editor.textCursor().selectionStart() == starts[0]
    window.find_previous()  # wraps to the last
    assert window.editor.textCursor().selectionStart() == starts[-1]
    # nothing found: the field says so, the selection stays
    qtbot.keyClicks(bar.field, "zzz")
    assert bar.count_label.text() == "no match" and bar.field.property("error")
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    qtbot.waitUntil(window.editor.hasFocus)


def test_find_matches_case_only_when_asked(qtbot, make_window):
    window = make_window(text="Two two TWO")
    bar = window.find_bar
    bar.open_bar()
    qtbot.keyClicks(bar.field, "two")
    assert bar.count_label.text().endswith("of 3")
    bar.case_box.setChecked(True)
    assert bar.count_label.text() == "1 of 1"
    assert window.editor.textCursor().selectionStart() == 4


def test_whitespace_markers_toggle_and_are_remembered(qtbot, make_window, tmp_path):
    from tokviz.gui.settings import Settings

    settings = Settings(tmp_path / "ws.ini")
    window = make_window(text="a  b\tc\n", settings=settings)
    assert window.action_whitespace.isChecked() and window.token_view.show_whitespace()
    on = window.token_view.grab().toImage()
    window.action_whitespace.trigger()
    assert not window.token_view.show_whitespace()
    qtbot.wait(50)
    off = window.token_view.grab().toImage()
    assert on != off  # (the markers were drawn, now they are not)
    window.close()
    again = make_window(text="a  b", settings=Settings(tmp_path / "ws.ini"))
    assert not again.action_whitespace.isChecked() and not again.token_view.show_whitespace()


def test_the_legend_explains_the_active_colour_mode(qtbot, make_window):
    window = make_window(text=TEXT)
    assert not window.legend.isVisible()
    window.action_legend.trigger()
    assert window.legend.isVisible()
    for mode in MODES:
        window.set_color_mode(mode)
        text = window.legend.text()
        assert MODES[mode] in text
        for fill, label in legend_entries(mode, window.token_view.theme):
            assert fill in text and label in text
    # the length scale's ends are the colours the token view gives 1-byte and 12+-byte tokens
    ends = legend_entries("length", LIGHT)
    assert ends[0][0] != ends[2][0]
