"""The Chat tab's conversation is work: edits make it modified (settings do not), Open… asks Save /
Discard / Cancel before a modified conversation is replaced, Save writes before the replace, the
header names it, and the session keeps it (modified or not) across a crash and a quit, asking on
quit only when it cannot."""
from __future__ import annotations

import json

import pytest

from tokviz.core import chat
from tokviz.gui.views import chat_view as chat_view_module
from tokviz.gui.views.chat_view import STARTER, ChatView
from tokviz.gui.settings import Settings
from tokviz.gui.window import session as session_module

A = chat.Conversation([{"role": "user", "content": "conversation A 甲"}])
B = chat.Conversation([{"role": "system", "content": "be brief"}, {"role": "user", "content": "conversation B 乙"}],
                      tools=[{"type": "function", "function": {"name": "lookup"}}])


class Answers:
    """Stands in for the Save / Discard / Cancel box and the file dialogs: answers given in order,
    every question recorded (an unexpected question fails the test)."""

    def __init__(self, monkeypatch, *answers: str, open_path=None, save_path=None):
        self.answers = list(answers)
        self.asked: list[tuple[str, bool]] = []
        self.opened = 0
        self.open_path, self.save_path = open_path, save_path
        self.warnings: list[str] = []
        monkeypatch.setattr(chat_view_module, "ask_save_changes", self._ask)
        dialog = chat_view_module.QFileDialog
        monkeypatch.setattr(dialog, "getOpenFileName", self._open)
        monkeypatch.setattr(dialog, "getSaveFileName", self._save)
        monkeypatch.setattr(chat_view_module.QMessageBox, "warning",
                            lambda parent, title, text: self.warnings.append(text))

    def _ask(self, parent, name, *, quitting=False, conversation=False):
        assert conversation, "the question is about a conversation"
        self.asked.append((name, quitting))
        assert self.answers, f"an unexpected question about {name!r}"
        return self.answers.pop(0)

    def _open(self, *args):
        self.opened += 1
        return (str(self.open_path) if self.open_path else "", "")

    def _save(self, *args):
        assert self.save_path is not None, "an unexpected Save as dialog"
        return (str(self.save_path), "")


@pytest.fixture
def view(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    yield view
    view.shutdown()


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(A.to_json(), ensure_ascii=False), encoding="utf-8")
    b.write_text(json.dumps(B.to_json(), ensure_ascii=False), encoding="utf-8")
    return a, b


def _messages(view):
    return view.conversation().messages


def test_edits_make_it_modified_and_settings_do_not(qtbot, view):
    assert not view.is_modified() and _messages(view) == STARTER
    view.set_add_generation_prompt(False)  # a setting
    assert not view.is_modified()
    with qtbot.waitSignal(view.stateChanged):
        view.set_role(1, "assistant")
    assert view.is_modified() and "(edited)" in view.header.text()
    view.set_role(1, "user")  # back as it started: not modified
    assert not view.is_modified() and "(edited)" not in view.header.text()
    view.move_message(1, 1)
    assert view.is_modified()
    view.move_message(2, -1)
    assert not view.is_modified()
    view.add_message("user", "")
    assert view.is_modified()
    view.remove_message(len(STARTER))
    assert not view.is_modified()
    view.messages.setCurrentRow(0)
    qtbot.keyClicks(view.content_edit, " Typed.")
    assert view.is_modified() and _messages(view)[0]["content"] == " Typed." + STARTER[0]["content"]


def test_an_unmodified_conversation_is_replaced_without_asking(qtbot, view, monkeypatch, files):
    answers = Answers(monkeypatch, open_path=files[0])
    view.open_button.click()
    assert answers.asked == [] and answers.opened == 1
    assert _messages(view) == A.messages and view.path() == str(files[0]) and not view.is_modified()
    assert "a.json" in view.header.text()


def test_cancel_keeps_the_modified_conversation(qtbot, view, monkeypatch, files):
    view.open_conversation(files[0])
    view.set_content(0, "edited A")
    answers = Answers(monkeypatch, "cancel", open_path=files[1])
    view.open_button.click()
    assert answers.asked == [("a.json", False)] and answers.opened == 0  # (no file was asked for)
    assert _messages(view) == [{"role": "user", "content": "edited A"}]
    assert view.is_modified() and view.path() == str(files[0])
    assert json.loads(files[0].read_text(encoding="utf-8")) == A.to_json()


def test_discard_replaces(qtbot, view, monkeypatch, files):
    view.set_content(0, "edited starter")
    answers = Answers(monkeypatch, "discard", open_path=files[1])
    view.open_button.click()
    assert answers.asked == [("untitled conversation", False)] and answers.opened == 1
    assert view.conversation().to_json() == B.to_json() and not view.is_modified()
    assert "b.json" in view.header.text() and "(edited)" not in view.header.text()


def test_save_writes_then_replaces(qtbot, view, monkeypatch, files):
    view.open_conversation(files[0])
    view.add_message("assistant", "an answer 答")
    edited = view.conversation().to_json()
    answers = Answers(monkeypatch, "save", open_path=files[1])
    view.open_button.click()
    assert answers.asked == [("a.json", False)]
    qtbot.waitUntil(lambda: answers.opened == 1, timeout=10_000)  # (after the save, on the worker)
    assert json.loads(files[0].read_text(encoding="utf-8")) == edited
    assert chat.read_conversation(files[0]).messages == edited["messages"]
    assert view.conversation().to_json() == B.to_json() and not view.is_modified()


def test_save_of_an_untitled_conversation_asks_where(qtbot, view, monkeypatch, files, tmp_path):
    view.set_content(3, "untitled, edited")
    target = tmp_path / "new.json"
    answers = Answers(monkeypatch, "save", open_path=files[0], save_path=target)
    view.open_button.click()
    qtbot.waitUntil(lambda: answers.opened == 1, timeout=10_000)
    assert chat.read_conversation(target).messages[3]["content"] == "untitled, edited"
    assert view.path() == str(files[0]) and not view.is_modified()


def test_a_failed_save_replaces_nothing(qtbot, view, monkeypatch, files, tmp_path):
    view.set_content(0, "kept")
    answers = Answers(monkeypatch, "save", open_path=files[0], save_path=tmp_path / "missing" / "c.json")
    view.open_button.click()
    qtbot.waitUntil(lambda: bool(answers.warnings), timeout=10_000)
    assert "cannot write" in answers.warnings[0] and "c.json" in answers.warnings[0]
    assert answers.opened == 0 and view.is_modified() and _messages(view)[0]["content"] == "kept"
    assert view.path() is None


def _session(settings):
    path = settings.session_path()
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@pytest.mark.slow
def test_the_session_keeps_a_modified_conversation(qtbot, make_window, tmp_path, files):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(text="some text", settings=settings)
    first.chat_view.open_conversation(files[1])
    first.chat_view.set_content(1, "edited in the chat tab 编辑")
    edited = first.chat_view.conversation().to_json()
    qtbot.waitUntil(lambda: (_session(settings).get("chat") or {}).get("conversation") == edited, timeout=10_000)
    # a crash: the first window never closes
    second = make_window(text="another text", settings=settings)
    assert second.chat_view.conversation().to_json() == edited
    assert second.chat_view.is_modified() and second.chat_view.path() == str(files[1])
    assert "b.json" in second.chat_view.header.text() and "(edited)" in second.chat_view.header.text()
    assert json.loads(files[1].read_text(encoding="utf-8")) == B.to_json()  # (the file is untouched)
    # a normal quit keeps it too, still modified
    second.close()
    third = make_window(settings=settings)
    assert third.chat_view.conversation().to_json() == edited and third.chat_view.is_modified()


def test_the_session_reopens_an_unmodified_conversation_from_its_file(qtbot, make_window, tmp_path, files):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(text="some text", settings=settings)
    first.chat_view.open_conversation(files[0])
    first.close()
    assert _session(settings)["chat"] == {"conversation": None, "path": str(files[0]), "modified": False}
    second = make_window(settings=settings)
    assert second.chat_view.conversation().messages == A.messages
    assert not second.chat_view.is_modified() and second.chat_view.path() == str(files[0])


def test_quit_asks_only_about_a_conversation_the_session_cannot_keep(qtbot, make_window, tmp_path, monkeypatch):
    window = make_window(text="some text")
    window.chat_view.set_content(0, "x" * 5000)
    answers = Answers(monkeypatch, "cancel", "discard")
    assert window._confirm_quit() and answers.asked == []  # kept by the session: nothing asked
    monkeypatch.setattr(session_module, "MAX_SAVED_CHAT_CHARS", 1000)
    assert not window._confirm_quit()  # Cancel
    assert answers.asked == [("untitled conversation", True)] and window.chat_view.is_modified()
    assert window._confirm_quit()  # Discard
    assert len(answers.asked) == 2
    state = _session(window.settings)["chat"]
    assert state["conversation"] is None and state["modified"]
