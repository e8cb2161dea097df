"""Rough edges of the main window found in real use: the first size on a small screen, the Merges
dock opened after a click, dialogs wide enough for their title, the sample text replaced by the
user's, a chat message edited and the session."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import tokviz
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog
from tokviz import defaults
from tokviz.gui.settings import Settings
from tokviz.gui.window import dialogs

ROOT = Path(__file__).resolve().parents[2]

_SIZES = textwrap.dedent("""
    import json, sys
    from PySide6.QtCore import QByteArray
    from tokviz.gui.app import ensure_application
    from tokviz.gui.settings import Settings
    from tokviz.gui.window.main_window import MainWindow
    app = ensure_application(language="en")
    settings = Settings(sys.argv[1])
    window = MainWindow(None, "", settings=settings)
    first = [window.width(), window.height()]
    window.resize(2400, 1600)  # (as if saved on a bigger screen)
    window.move(300, 200)
    settings.save_window_state(window.saveGeometry(), window.saveState())
    window.close()
    again = MainWindow(None, "", settings=settings)
    area = app.primaryScreen().availableGeometry()
    print(json.dumps({"first": first, "restored": [again.width(), again.height()],
                      "at": [again.frameGeometry().x(), again.frameGeometry().y()],
                      "area": [area.width(), area.height()]}))
    again.close()
""")


def test_the_first_size_and_a_restored_one_leave_room_for_the_frame_on_a_1280x800_screen(tmp_path):
    screens = tmp_path / "screens.json"
    screens.write_text(json.dumps({"screens": [{"name": "small", "x": 0, "y": 0, "width": 1280, "height": 800,
                                                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={screens}", PYTHONPATH=str(ROOT),
               TOKVIZ_SETTINGS=str(tmp_path / "unused.ini"))
    out = subprocess.run([sys.executable, "-c", _SIZES, str(tmp_path / "s.ini")], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    sizes = json.loads(out.stdout.strip().splitlines()[-1])
    assert sizes["area"] == [1280, 800]
    # a window manager's title bar (~30 px) and borders must fit below and beside the window
    for width, height in (sizes["first"], sizes["restored"]):
        assert width <= 1280 - 16 and height <= 800 - 40, sizes
    assert sizes["first"][1] >= 700  # (not needlessly small)
    x, y = sizes["at"]
    assert 0 <= x and x + sizes["restored"][0] <= 1280 and 0 <= y and y + sizes["restored"][1] <= 800


def test_the_merges_dock_shows_the_token_clicked_while_it_was_hidden(qtbot, make_window, default_tokenizer_path):
    window = make_window(tokviz.load(default_tokenizer_path), "hello world, tokens everywhere")
    assert not window.merges_dock.isVisible()
    enc = window.token_view.encoding()
    index = next(k for k in range(len(enc)) if len(enc.pieces[k].strip()) > 2 and not enc.special[k])
    window.token_view.tokenClicked.emit(index)
    window.merges_dock.show()
    qtbot.waitUntil(lambda: window.merges_panel.current_token() == enc.pieces[index], timeout=10_000)
    # shown once: raised again later, the dock keeps what the user looked at since
    window.merges_panel.show_token(enc.pieces[0])
    window.merges_dock.hide()
    window.merges_dock.show()
    assert window.merges_panel.current_token() == enc.pieces[0]


def test_the_go_to_token_dialog_is_wide_enough_for_its_title(qtbot, make_window, default_tokenizer_path,
                                                             monkeypatch):
    window = make_window(tokviz.load(default_tokenizer_path), "hello world")
    seen = []

    def look(dialog):
        dialog.show()
        QApplication.processEvents()
        seen.append((dialog.windowTitle(), dialog.width()))
        dialog.hide()
        return 0

    monkeypatch.setattr(QInputDialog, "exec", look)
    window.ask_goto_token()
    (title, width), = seen
    assert title == "Go to token"
    assert width >= dialogs.title_width(window, title) > window.fontMetrics().horizontalAdvance(
        "Go to token — tokviz")


def test_replacing_all_of_the_sample_text_makes_it_the_users(qtbot, make_window, default_tokenizer_path):
    window = make_window(tokviz.load(default_tokenizer_path))
    assert window.document.display_name() == "sample text"
    window.editor.setFocus()
    window.editor.selectAll()
    qtbot.keyClicks(window.editor, "my own words")
    assert window.current_text() == "my own words"
    assert "sample text" not in window.text_header.text() and "untitled" in window.text_header.text()
    assert "sample text" not in window.windowTitle() and window.isWindowModified()
    window.editor.undo()  # the sample text again, and its name
    assert window.document.display_name() == "sample text"
    window.editor.redo()
    assert window.document.display_name() == "untitled"
    # an edit inside the sample text keeps its name
    window.set_text(defaults.sample_text(), origin=window.document.origin.__class__(name="sample text"))
    window.editor.moveCursor(window.editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(window.editor, " more")
    assert window.document.display_name() == "sample text"


def test_a_chat_message_edited_comes_back_with_the_session(qtbot, make_window, default_tokenizer_path, tmp_path):
    settings = Settings(tmp_path / "s.ini")
    window = make_window(tokviz.load(default_tokenizer_path), "text", settings=settings)
    chat = window.chat_view
    window.tabs.setCurrentWidget(chat)
    chat.add_message("user", "first words")
    window.session.save()
    chat.messages.setCurrentRow(len(chat.conversation().messages) - 1)
    chat.content_edit.setFocus()
    chat.content_edit.selectAll()
    qtbot.keyClicks(chat.content_edit, "edited words")
    assert chat.conversation().messages[-1]["content"] == "edited words"
    qtbot.waitUntil(lambda: "edited words" in (tmp_path / "session.json").read_text(encoding="utf-8"),
                    timeout=10_000)
    window.close()
    again = make_window(None, None, settings=settings)
    assert again.chat_view.conversation().messages[-1]["content"] == "edited words"
    assert again.chat_view.is_modified()
