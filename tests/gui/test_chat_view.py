"""The Chat tab: the conversation rendered by the tokenizer's template on a worker, its tokens and
each message's count as transformers makes them, edits re-rendered, a template that raises shown,
conversations opened and saved, a long render cancelled, and the tab in the main window."""
from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path

import pytest

import tokviz
from tokviz.core import chat
from tokviz.gui.views.chat_view import STARTER, ChatView

transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(scope="module")
def qwen_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("qwen2.5")
    (folder / "tokenizer.json").write_bytes(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    shutil.copy(REAL / "qwen2.5" / "tokenizer_config.json", folder / "tokenizer_config.json")
    return folder


@pytest.fixture(scope="module")
def qwen(qwen_folder):
    return tokviz.load(qwen_folder)


@pytest.fixture(scope="module")
def reference(qwen_folder):
    return transformers.AutoTokenizer.from_pretrained(qwen_folder)


@pytest.fixture
def view(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    yield view
    view.shutdown()


def rendered(qtbot, view, action):
    with qtbot.waitSignal(view.rendered, timeout=30_000) as blocker:
        action()
    return blocker.args[0]


def test_starter_conversation_as_transformers(qtbot, view, qwen, reference):
    result = rendered(qtbot, view, lambda: view.set_tokenizer(qwen))
    expected = reference.apply_chat_template(STARTER, tokenize=True, return_dict=False, add_generation_prompt=True)
    assert result.ids == list(expected)
    assert view.view.encoding().ids == result.ids
    assert sum(result.per_message) + result.prompt == len(result.ids)
    for k, count in enumerate(result.per_message):
        assert view.messages.item(k).text().startswith(f"{STARTER[k]['role']}  ·  {count} tokens")
    assert f"<b>{len(result.ids)}</b> tokens" in view.header.text()
    specials = [i for i, s in enumerate(view.view.encoding().special) if s]
    assert [result.text[a:b] for a, b in (view.view.encoding().offsets[i] for i in specials)][:2] == \
        ["<|im_start|>", "<|im_end|>"]


def test_edits_are_rendered(qtbot, view, qwen, reference):
    rendered(qtbot, view, lambda: view.set_tokenizer(qwen))
    rendered(qtbot, view, lambda: view.set_add_generation_prompt(False))
    result = rendered(qtbot, view, lambda: view.set_content(1, "Changed, 改了"))
    assert "Changed, 改了" in result.text
    result = rendered(qtbot, view, lambda: view.add_message("assistant", "Fine."))
    result = rendered(qtbot, view, lambda: view.move_message(4, -1))
    result = rendered(qtbot, view, lambda: view.remove_message(0))
    result = rendered(qtbot, view, lambda: view.set_role(0, "system"))
    messages = view.conversation().messages
    assert [m["role"] for m in messages] == ["system", "assistant", "assistant", "user"]
    expected = reference.apply_chat_template(messages, tokenize=True, return_dict=False)
    assert result.ids == list(expected) and result.prompt == 0


def test_typing_in_the_editor(qtbot, view, qwen):
    rendered(qtbot, view, lambda: view.set_tokenizer(qwen))
    view.messages.setCurrentRow(1)
    view.content_edit.clear()
    result = rendered(qtbot, view, lambda: qtbot.keyClicks(view.content_edit, "typed here"))
    assert view.conversation().messages[1]["content"] == "typed here"
    assert "<|im_start|>user\ntyped here<|im_end|>" in result.text


def test_content_parts_are_edited_as_json(qtbot, view, qwen):
    parts = [{"type": "text", "text": "in parts"}]
    view.set_conversation(chat.Conversation([{"role": "user", "content": parts}]))
    view.set_tokenizer(qwen)
    assert json.loads(view.content_edit.toPlainText()) == parts
    view.content_edit.setPlainText('[{"type": "text", "text": ')
    assert "Not JSON yet" in view.content_note.text()
    assert view.conversation().messages[0]["content"] == parts


def test_a_template_that_raises_is_shown(qtbot, view, qwen_folder, tmp_path):
    folder = tmp_path / "tok"
    shutil.copytree(qwen_folder, folder)
    (folder / "chat_template.jinja").write_text("{{ raise_exception('only one user message, please') }}",
                                                encoding="utf-8")
    with qtbot.waitSignal(view.failed, timeout=30_000) as blocker:
        view.set_tokenizer(tokviz.load(folder))
    assert "only one user message, please" in blocker.args[0]
    assert view.view.encoding() is None and "only one user message" in view.view.message()
    assert view.result() is None and "tokens" not in view.messages.item(0).text()


def test_a_tokenizer_without_a_template(qtbot, view):
    with qtbot.waitSignal(view.failed, timeout=30_000) as blocker:
        view.set_tokenizer(tokviz.load(tokviz.defaults.default_tokenizer_path()))
    assert "has no chat template" in blocker.args[0]


def test_save_and_open(qtbot, view, qwen, tmp_path):
    rendered(qtbot, view, lambda: view.set_tokenizer(qwen))
    conversation = chat.Conversation([{"role": "user", "content": "saved 保存"}], tools=[{"type": "function"}])
    view.set_conversation(conversation)
    path = tmp_path / "conv.json"
    view.save_conversation(path)
    view.set_conversation(chat.Conversation([]))
    result = rendered(qtbot, view, lambda: view.open_conversation(path))
    assert view.conversation().messages == conversation.messages and view.conversation().tools == conversation.tools
    assert "saved 保存" in result.text
    with pytest.raises(tokviz.TokvizError, match="not JSON"):
        (tmp_path / "bad.json").write_text("{", encoding="utf-8")
        view.open_conversation(tmp_path / "bad.json")


def test_a_long_render_shows_progress_and_cancels(qtbot, view, qwen_folder, tmp_path):
    folder = tmp_path / "slow"
    shutil.copytree(qwen_folder, folder)
    (folder / "chat_template.jinja").write_text(
        "{% for m in messages %}{% for i in range(5000) %}{% endfor %}{{ m.content }}{% endfor %}", encoding="utf-8")
    view.set_conversation(chat.Conversation([{"role": "user", "content": f"m{k}"} for k in range(200)]))
    view.set_tokenizer(tokviz.load(folder))
    qtbot.waitUntil(view.busy_row.isVisible, timeout=30_000)
    view.cancel()
    qtbot.waitUntil(lambda: not view.is_busy(), timeout=30_000)
    assert "cancelled" in view.header.text() and not view.busy_row.isVisible()


def test_the_chat_tab_follows_the_window_tokenizer(qtbot, make_window, qwen):
    window = make_window(qwen, "hello")
    chat_view = window.chat_view
    assert window.tabs.tabText(window.tabs.indexOf(chat_view)) == "Chat"
    qtbot.waitUntil(lambda: chat_view.result() is not None, timeout=30_000)
    assert chat_view.template_box.currentText() == "default"


def test_a_role_the_list_does_not_have(qtbot, view, qwen):
    view.set_conversation(chat.Conversation([{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}]))
    rendered(qtbot, view, lambda: view.set_tokenizer(qwen))
    view.messages.setCurrentRow(0)
    assert view.role_box.currentText() == "developer"
    result = rendered(qtbot, view, lambda: view.role_box.setCurrentText("system"))
    assert view.conversation().messages[0]["role"] == "system" and result.text.startswith("<|im_start|>system\nx")
