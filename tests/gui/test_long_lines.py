"""A text with a very long unbreakable line (numbers and commas, base64, minified code) wraps at any
character in the editor: Qt's word wrapping rescans such a run for every wrapped line.  Texts with
words keep word wrapping, and the editor follows edits both ways."""
from __future__ import annotations

import random

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QFont, QTextCursor, QTextOption

from tokviz.gui.window.editor import LONG_RUN, TextEditor, has_long_run


def numbers_line(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    return ",".join(str(rng.randint(0, 99_999)) for _ in range(n // 4))[:n]


def test_long_run_detection():
    assert has_long_run("x" * LONG_RUN)
    assert not has_long_run("x" * (LONG_RUN - 1))
    assert not has_long_run(("word " * 10_000))
    assert not has_long_run("中文分词" * 2_000)  # (ideographs break anywhere already)
    assert has_long_run("the start " + numbers_line(5_000) + " the end")
    assert has_long_run("中" + "x" * LONG_RUN)
    assert not has_long_run("x" * (LONG_RUN // 2) + "中" + "x" * (LONG_RUN // 2 + 10))


def test_runs_just_short_of_the_limit_do_not_count():
    text = " ".join("x" * (LONG_RUN - 1) for _ in range(20))
    assert not has_long_run(text)
    assert has_long_run(text + "x")


def test_editor_wraps_long_runs_anywhere(qtbot):
    editor = TextEditor(QFont())
    qtbot.addWidget(editor)
    editor.load_text("plain words " * 1_000)
    assert not editor.wraps_anywhere()
    assert editor.wordWrapMode() == QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere
    editor.load_text(numbers_line(100_000))
    assert editor.wraps_anywhere()
    editor.setPlainText("short text")
    assert not editor.wraps_anywhere()
    assert editor.text() == "short text"


def test_editor_follows_pastes_and_typing(qtbot):
    editor = TextEditor(QFont())
    qtbot.addWidget(editor)
    editor.load_text("before ")
    editor.moveCursor(QTextCursor.MoveOperation.End)
    mime = QMimeData()
    mime.setText(numbers_line(20_000))
    editor.insertFromMimeData(mime)
    assert editor.wraps_anywhere()
    assert editor.text() == "before " + numbers_line(20_000)

    # Breaking the run with spaces every few hundred characters brings word wrapping back (after
    # the editor's short recheck delay).
    cursor = editor.textCursor()
    for position in range(len(editor.text()) - 500, 0, -500):
        cursor.setPosition(position)
        cursor.insertText(" ")
    qtbot.waitUntil(lambda: not editor.wraps_anywhere(), timeout=5_000)

    # Deleting the spaces again (one keystroke each, as typing does) joins a long run.
    editor.load_text(("9" * 600 + " ") * 2)
    assert not editor.wraps_anywhere()
    cursor = editor.textCursor()
    cursor.setPosition(600)
    editor.setTextCursor(cursor)
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    assert editor.text() == "9" * 1_200 + " "
    assert editor.wraps_anywhere()


def test_window_wraps_a_long_line_and_encodes_it(make_window, default_tokenizer_path, qtbot):
    text = "first line\n" + numbers_line(50_000) + "\nlast line"
    window = make_window(default_tokenizer_path, text)
    assert window.editor.wraps_anywhere()
    assert window.current_text() == text
