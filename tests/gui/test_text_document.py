"""The app never loses typed text: replacing a modified text asks Save / Discard / Cancel, a replace
is one undo step (with the file the text belongs to), File ▸ Save text and Save text as… write
UTF-8 atomically, and quitting keeps the text in the session (asking only when it cannot)."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QKeySequence, QTextCursor

from tokviz.gui.window import big_file as big_file_module
from tokviz.gui.settings import Settings
from tokviz.gui.window import session as session_module
from tokviz.gui.window import text_document

from .helpers import wait_encoded

CJK_CRLF = "第一行 中文 🙂 emoji\r\nsecond line, café\r\n"


class Answers:
    """Stands in for the Save / Discard / Cancel box and the file dialog: answers given in order,
    every question recorded."""

    def __init__(self, monkeypatch, *answers: str, save_path=None):
        self.answers = list(answers)
        self.asked: list[tuple[str, bool]] = []
        self.save_path = save_path
        self.paths_asked = 0
        monkeypatch.setattr(text_document, "ask_save_changes", self._ask)
        monkeypatch.setattr(text_document, "ask_save_path", self._ask_path)

    def _ask(self, parent, name, *, quitting=False):
        self.asked.append((name, quitting))
        assert self.answers, f"an unexpected question about {name!r}"
        return self.answers.pop(0)

    def _ask_path(self, parent, start):
        self.paths_asked += 1
        return str(self.save_path) if self.save_path else ""


def _type(qtbot, window, text: str) -> None:
    """Type `text` at the end (QTest types ASCII only: other text is pasted, as a user would)."""
    window.editor.moveCursor(QTextCursor.MoveOperation.End)
    if text.isascii():
        qtbot.keyClicks(window.editor, text)
    else:
        window.editor.insertPlainText(text)


def _undo(qtbot, window) -> None:
    qtbot.keyClick(window.editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def _drop(window, *paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    window.dropEvent(QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier))


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("text of a\n", encoding="utf-8")
    b.write_text("text of b\n", encoding="utf-8")
    return a, b


def test_an_unmodified_text_is_replaced_without_a_question(qtbot, make_window, monkeypatch, files):
    answers = Answers(monkeypatch)  # (any question fails the test)
    window = make_window(text="given text")
    assert not window.document.is_modified()
    assert window.open_text_file(files[0])
    wait_encoded(qtbot, window, "text of a\n")
    assert window.open_text_file(files[1])  # an opened file, not edited
    wait_encoded(qtbot, window, "text of b\n")
    assert answers.asked == [] and window.text_path() == str(files[1])
    _undo(qtbot, window)  # the replace is one undo step, even unasked
    assert window.editor_text() == "text of a\n" and window.text_path() == str(files[0])


def test_cancel_keeps_the_edited_text_as_it_was(qtbot, make_window, monkeypatch, files):
    window = make_window(text="given text")
    assert window.open_text_file(files[0])
    _type(qtbot, window, " and more")
    wait_encoded(qtbot, window, "text of a\n and more")
    assert window.document.is_modified() and window.isWindowModified()
    answers = Answers(monkeypatch, "cancel")
    assert not window.open_text_file(files[1])
    assert answers.asked == [("a.txt", False)]
    assert window.editor_text() == "text of a\n and more"
    assert window.text_path() == str(files[0]) and window.document.is_modified()
    assert [f.read_text(encoding="utf-8") for f in files] == ["text of a\n", "text of b\n"]


def test_discard_replaces_and_undo_brings_the_text_back_with_its_file(qtbot, make_window, monkeypatch, files):
    a, b = files
    window = make_window(text="given text")
    assert window.open_text_file(a)
    _type(qtbot, window, " edited")
    Answers(monkeypatch, "discard")
    assert window.open_text_file(b)
    wait_encoded(qtbot, window, "text of b\n")
    assert not window.document.is_modified() and "b.txt" in window.windowTitle()

    _undo(qtbot, window)
    wait_encoded(qtbot, window, "text of a\n edited")
    assert window.text_path() == str(a) and "a.txt" in window.windowTitle()
    assert window.document.is_modified() and window.isWindowModified()
    # a save now goes to the file the text came from, not to the one opened after it
    assert window.save_text()
    qtbot.waitUntil(lambda: not window.document.is_modified(), timeout=10_000)
    assert a.read_text(encoding="utf-8") == "text of a\n edited" and b.read_text(encoding="utf-8") == "text of b\n"

    qtbot.keyClick(window.editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    wait_encoded(qtbot, window, "text of b\n")  # redo: the opened file again
    assert window.text_path() == str(b)


def test_a_save_that_ends_after_a_redo_names_the_text_it_wrote(qtbot, make_window, monkeypatch, files):
    a, b = files
    window = make_window(text="given text")
    assert window.open_text_file(a)
    _type(qtbot, window, " edited")
    Answers(monkeypatch, "discard")
    assert window.open_text_file(b)
    _undo(qtbot, window)
    assert window.save_text()  # (reported on the UI thread once written: after the redo below)
    qtbot.keyClick(window.editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.text_path() == str(b)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Saved a.txt"), timeout=10_000)
    assert window.text_path() == str(b) and not window.document.is_modified()
    _undo(qtbot, window)
    assert window.text_path() == str(a) and window.editor_text() == a.read_text(encoding="utf-8")


def test_undo_past_a_replace_then_typing_forgets_the_replace(qtbot, make_window, monkeypatch, files):
    a, b = files
    window = make_window(text="given text")
    assert window.open_text_file(a)
    assert window.open_text_file(b)
    _undo(qtbot, window)
    assert window.text_path() == str(a)
    _type(qtbot, window, "X")  # the redo of the replace is gone: the text is a's, edited
    for _ in range(3):
        assert window.text_path() == str(a)
        qtbot.keyClicks(window.editor, "Y")
    assert window.editor_text().endswith("XYYY") and window.text_path() == str(a)


def test_save_writes_the_file_then_replaces(qtbot, make_window, monkeypatch, files, tmp_path):
    window = make_window(text="")
    _type(qtbot, window, "typed for an hour")
    assert window.document.is_modified() and window.text_path() is None
    target = tmp_path / "kept.txt"
    answers = Answers(monkeypatch, "save", save_path=target)
    assert not window.open_text_file(files[0])  # (it opens once the text is saved)
    qtbot.waitUntil(lambda: window.text_path() == str(files[0]), timeout=10_000)
    wait_encoded(qtbot, window, "text of a\n")
    assert answers.asked == [("untitled", False)] and answers.paths_asked == 1
    assert target.read_bytes() == b"typed for an hour"
    assert str(target) in window.settings.recent_texts()
    _undo(qtbot, window)  # back to the saved text, now kept.txt's and unmodified
    assert window.editor_text() == "typed for an hour" and window.text_path() == str(target)


def test_a_failed_save_replaces_nothing_and_says_why(qtbot, make_window, monkeypatch, files, tmp_path):
    window = make_window(text="")
    _type(qtbot, window, "precious")
    Answers(monkeypatch, "save", save_path=tmp_path / "no such folder" / "x.txt")
    window.open_text_file(files[0])
    qtbot.waitUntil(lambda: bool(window.errors), timeout=10_000)
    title, message = window.errors[-1]
    assert title == "Could not save text" and "no such folder" in message and "cannot write the file" in message
    assert window.editor_text() == "precious" and window.document.is_modified() and window.text_path() is None
    assert not (tmp_path / "no such folder").exists()


def test_cancelling_the_file_dialog_cancels_the_replace(qtbot, make_window, monkeypatch, files):
    window = make_window(text="")
    _type(qtbot, window, "precious")
    answers = Answers(monkeypatch, "save", save_path=None)
    assert not window.open_text_file(files[0])
    assert answers.paths_asked == 1 and window.editor_text() == "precious" and window.document.is_modified()


def test_save_as_writes_utf8_byte_for_byte(qtbot, make_window, monkeypatch, tmp_path):
    source = tmp_path / "crlf.txt"
    source.write_bytes(CJK_CRLF.encode("utf-8"))
    window = make_window(text="x")
    assert window.open_text_file(source)
    wait_encoded(qtbot, window, CJK_CRLF)
    copy = tmp_path / "copy.txt"
    Answers(monkeypatch, save_path=copy)
    assert window.save_text_as()
    qtbot.waitUntil(copy.exists, timeout=10_000)
    assert copy.read_bytes() == CJK_CRLF.encode("utf-8")  # unedited: exactly the file's bytes
    qtbot.waitUntil(lambda: window.text_path() == str(copy), timeout=10_000)
    assert "copy.txt" in window.windowTitle() and not window.isWindowModified()

    # edited, the text keeps the file's line ends ("\r\n" throughout)
    _type(qtbot, window, "third 三\U0001F600")
    assert window.save_text()
    expected = (CJK_CRLF + "third 三\U0001F600").encode("utf-8")
    qtbot.waitUntil(lambda: copy.read_bytes() == expected, timeout=10_000)
    qtbot.waitUntil(lambda: not window.document.is_modified(), timeout=10_000)
    assert source.read_bytes() == CJK_CRLF.encode("utf-8")


def test_a_byte_order_mark_is_not_written_back(qtbot, make_window, monkeypatch, tmp_path):
    source = tmp_path / "bom.txt"
    source.write_bytes(b"\xef\xbb\xbfwith a BOM\n")
    window = make_window(text="x")
    assert window.open_text_file(source)
    Answers(monkeypatch, save_path=tmp_path / "out.txt")
    assert window.save_text_as()
    qtbot.waitUntil(lambda: (tmp_path / "out.txt").exists(), timeout=10_000)
    assert (tmp_path / "out.txt").read_bytes() == b"with a BOM\n"


def test_a_lone_surrogate_is_refused_by_name():
    with pytest.raises(text_document.TokvizError) as info:
        text_document.encode_for_saving("ok \ud800 not", "/tmp/x.txt")
    assert "character 3" in info.value.reason and "U+D800" in info.value.reason


def test_dropping_a_text_file_asks_too_and_cancel_drops_nothing(qtbot, make_window, monkeypatch, files,
                                                               default_tokenizer_path, qwen_path):
    window = make_window(default_tokenizer_path, "")
    _type(qtbot, window, "typed")
    wait_encoded(qtbot, window, "typed")
    answers = Answers(monkeypatch, "cancel")
    with qtbot.assertNotEmitted(window.controller.loadStarted):
        _drop(window, files[0], qwen_path)
    assert answers.asked == [("untitled", False)]
    assert window.editor_text() == "typed"
    assert str(window.tokenizer().source.path) == str(default_tokenizer_path)

    Answers(monkeypatch, "discard")
    _drop(window, files[0])
    wait_encoded(qtbot, window, "text of a\n")
    _undo(qtbot, window)
    assert window.editor_text() == "typed" and window.text_path() is None


def test_open_recent_asks(qtbot, make_window, monkeypatch, files):
    window = make_window(text="")
    window.settings.add_recent_text(str(files[1]))
    _type(qtbot, window, "typed")
    answers = Answers(monkeypatch, "cancel")
    window.fill_recent_menu()
    entry = next(a for a in window.recent_menu.actions() if a.text() == "b.txt")
    entry.trigger()
    assert answers.asked and window.editor_text() == "typed"


def test_file_menu_title_and_header(qtbot, make_window, files):
    window = make_window(text="")
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    by_text = {a.text(): a for a in file_menu.actions()}
    assert by_text["&Save text"].shortcut() == QKeySequence(QKeySequence.StandardKey.Save)
    assert by_text["Save text &as…"].shortcut() == QKeySequence("Ctrl+Shift+S")
    assert window.open_text_file(files[0])
    assert window.windowTitle().endswith("a.txt[*]") and not window.isWindowModified()
    _type(qtbot, window, "!")
    assert window.isWindowModified() and "(edited)" in window.text_header.text()
    _undo(qtbot, window)  # back to the file's text: unmodified again
    assert not window.isWindowModified() and "(edited)" not in window.text_header.text()


def test_big_file_mode_save_as_copies_the_whole_file(qtbot, make_window, monkeypatch, tmp_path):
    monkeypatch.setattr(big_file_module, "BIG_FILE_BYTES", 1000)
    big = tmp_path / "big.txt"
    content = ("line 行 🙂\r\n" * 400).encode("utf-8")
    big.write_bytes(content)
    window = make_window(text="")
    _type(qtbot, window, "typed")
    Answers(monkeypatch, "discard", save_path=tmp_path / "copy.txt")
    assert window.open_text_file(big)
    assert window.is_big_file() and window.editor.isReadOnly()
    assert not window.action_save_text.isEnabled() and not window.save_text()
    assert not window.editor.document().isUndoAvailable()  # (no undo into or out of the preview)
    assert window.save_text_as()
    qtbot.waitUntil(lambda: (tmp_path / "copy.txt").exists(), timeout=10_000)
    assert (tmp_path / "copy.txt").read_bytes() == content
    assert window.text_path() == str(big) and big.read_bytes() == content


def test_quitting_keeps_the_text_in_the_session_without_asking(qtbot, make_window, monkeypatch, tmp_path, files):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(text="", settings=settings)
    assert first.open_text_file(files[0])
    _type(qtbot, first, " edited")
    Answers(monkeypatch)  # (no question)
    first.request_quit()
    assert not first.isVisible()
    state = json.loads(settings.session_path().read_text(encoding="utf-8"))
    assert state["clean"] and state["text"] == "text of a\n edited" and state["text_modified"]

    second = make_window(None, None, settings=settings)
    wait_encoded(qtbot, second, "text of a\n edited")
    assert second.text_path() == str(files[0]) and second.document.is_modified() and second.isWindowModified()
    assert second.save_text()
    qtbot.waitUntil(lambda: files[0].read_text(encoding="utf-8") == "text of a\n edited", timeout=10_000)


def test_an_unmodified_restored_text_stays_unmodified(qtbot, make_window, tmp_path):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(None, None, settings=settings)  # the sample text
    first.close()
    second = make_window(None, None, settings=settings)
    assert not second.document.is_modified() and second.document.display_name() == "sample text"


def test_quitting_asks_when_the_session_cannot_keep_the_text(qtbot, make_window, monkeypatch, tmp_path):
    monkeypatch.setattr(session_module, "MAX_SAVED_CHARS", 5)
    window = make_window(text="", settings=Settings(tmp_path / "s.ini"))
    _type(qtbot, window, "longer than five")
    answers = Answers(monkeypatch, "cancel", "save", save_path=tmp_path / "kept.txt")
    window.request_quit()
    assert answers.asked == [("untitled", True)] and window.isVisible()
    window.request_quit()  # Save: written, then the window closes
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)
    assert (tmp_path / "kept.txt").read_text(encoding="utf-8") == "longer than five"


def test_a_start_with_a_tokenizer_given_keeps_the_sessions_text(qtbot, make_window, tmp_path, qwen_path):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(text="", settings=settings)
    _type(qtbot, first, "typed before quitting")
    first.request_quit()
    second = make_window(qwen_path, None, settings=settings)
    wait_encoded(qtbot, second, "typed before quitting")
    assert second.document.is_modified() and str(second.tokenizer().source.path) == str(qwen_path)


def test_a_start_with_a_text_file_given_asks_about_the_sessions_modified_text(qtbot, make_window, monkeypatch,
                                                                             tmp_path, files):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(text="", settings=settings)
    _type(qtbot, first, "typed before quitting")
    first.request_quit()
    answers = Answers(monkeypatch, "discard")
    second = make_window(None, None, text_file=files[1], settings=settings)
    qtbot.waitUntil(lambda: second.text_path() == str(files[1]), timeout=10_000)
    wait_encoded(qtbot, second, "text of b\n")
    assert answers.asked == [("untitled", False)]
    _undo(qtbot, second)  # and the discarded text is one undo away
    assert second.editor_text() == "typed before quitting"


@pytest.mark.parametrize("conversation", [False, True])
@pytest.mark.parametrize("button, answer", [("Save", "save"), ("Discard", "discard"), ("Cancel", "cancel")])
def test_the_question_has_save_discard_and_cancel(qtbot, button, answer, conversation):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    shown = []

    def click() -> None:
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(20, click)
            return
        shown.append((box.text(), box.informativeText(), box.defaultButton().text()))
        box.button(getattr(QMessageBox.StandardButton, button)).click()

    QTimer.singleShot(0, click)
    assert text_document.ask_save_changes(None, "notes.txt", conversation=conversation) == answer
    assert "notes.txt" in shown[0][0] and "replaced" in shown[0][1] and shown[0][2] == "Save"
    assert ("conversation" in shown[0][0]) == conversation and ("conversation" in shown[0][1]) == conversation


def test_replaced_texts_kept_for_undo_are_bounded(qtbot, make_window, monkeypatch, files):
    monkeypatch.setattr(text_document, "UNDO_KEEP_CHARS", 20)
    window = make_window(text="given text")
    assert window.open_text_file(files[0])  # "given text" kept for undo (11 characters, as Qt counts)
    assert window.editor.document().isUndoAvailable()
    assert window.open_text_file(files[1])  # "text of a\n" would make 22: the history starts again
    assert not window.editor.document().isUndoAvailable() and window.text_path() == str(files[1])


def test_each_save_changes_question_is_deleted_once_answered(qtbot, make_window):
    from PySide6.QtCore import QEvent, QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    window = make_window(None, "some text")

    def answer(button):
        def click():
            box = QApplication.activeModalWidget()
            if isinstance(box, QMessageBox):
                box.button(button).click()
            else:
                QTimer.singleShot(20, click)
        QTimer.singleShot(20, click)

    def boxes():
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]

    before = len(boxes())
    for k in range(10):
        button = (QMessageBox.StandardButton.Discard, QMessageBox.StandardButton.Cancel)[k % 2]
        answer(button)
        assert text_document.ask_save_changes(window, "notes.txt") == ("discard", "cancel")[k % 2]
    assert len(boxes()) == before
