"""The Chat tab: a conversation rendered through the tokenizer's chat template, as the model sees it.

Left, the messages (add, edit, reorder, delete; open and save them as JSON in the OpenAI / HF
format), the template to use and the generation-prompt switch.  Right, the rendered text in a
token view (the template's special tokens keep their dark fills), with the count of the whole and
of what each message adds.  Rendering and counting run on a worker (`core.chat.count`, bounded in
time and size); a new edit supersedes the render in flight, and a long one shows its progress and
a Cancel button.  A template that raises shows its message in place of the tokens.

The conversation is work: it is modified when it differs from what was opened, saved or started
with (messages, roles, contents; the template and the generation-prompt switch are settings, not
work).  The header shows its name and "(edited)"; Open… asks Save / Discard / Cancel before a
modified conversation is replaced (`ask_before`), and Save writes on a worker, atomically.
`set_conversation` and `open_conversation` replace without asking (they are for code).
"""
from __future__ import annotations

import html
import json
import os
import threading
from pathlib import Path

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core import chat
from ...errors import Cancelled, TokvizError
from ...formats.atomic_write import write_bytes_atomic
from ..widgets.click_guard import guard_clicks
from ..widgets.layout import HeaderLabel
from ..widgets.style import DEFAULT_THEME, TokenTheme, mono_font
from .token_view import TokenView
from ..window.text_document import ask_before_replacing, ask_save_changes
from ..work.workers import TaskRunner, error_text

CONVERSATION_FILTER = QT_TRANSLATE_NOOP("ChatView", "Conversations (*.json);;All files (*)")
# The roles' names as shown (a message keeps its role's value: "user", ...); other roles show as they are
ROLE_NAMES = {
    "system": QT_TRANSLATE_NOOP("ChatView", "system"),
    "user": QT_TRANSLATE_NOOP("ChatView", "user"),
    "assistant": QT_TRANSLATE_NOOP("ChatView", "assistant"),
    "tool": QT_TRANSLATE_NOOP("ChatView", "tool"),
    "developer": QT_TRANSLATE_NOOP("ChatView", "developer"),
}
RENDER_DELAY_MS = 150  # after the last edit
PROGRESS_AFTER_MS = 300  # a render that takes longer shows its progress and Cancel
STARTER = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "How many tokens is this conversation?"},
    {"role": "assistant", "content": "Count them on the right: each message, and the whole."},
    {"role": "user", "content": "And in Chinese? 这段对话有多少个词元？"},
]


def conversation_bytes(conversation: chat.Conversation) -> bytes:
    """The conversation as the JSON file Save writes (UTF-8, indented)."""
    return (json.dumps(conversation.to_json(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def write_conversation(path: str | os.PathLike, conversation: chat.Conversation) -> int:
    """Write `conversation` to `path` atomically; the bytes written (TokvizError naming the file)."""
    try:
        data = conversation_bytes(conversation)
    except UnicodeEncodeError:
        raise TokvizError(QCoreApplication.translate(
            "ChatView", "the conversation holds a lone surrogate, which UTF-8 cannot hold; remove it to save"),
            path) from None
    try:
        write_bytes_atomic(path, data)
    except OSError as exc:
        raise TokvizError(QCoreApplication.translate("ChatView", "cannot write: {reason}").format(
            reason=exc.strerror or exc), path) from None
    return len(data)


def role_name(role: str) -> str:
    """A message's role as shown: a known role's name in the app's language, another as it is."""
    return QCoreApplication.translate("ChatView", ROLE_NAMES[role]) if role in ROLE_NAMES else role


def _preview(content) -> str:
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = " ".join(p.get("text", f"[{p.get('type', 'part')}]") if isinstance(p, dict) else str(p) for p in content)
    else:
        text = ""
    text = " ".join(text.split())
    return text if len(text) <= 70 else text[:69] + "…"


class ChatView(QWidget):
    """See the module docstring.  Drive it from code with `set_tokenizer`, `set_conversation`,
    `add_message`, `remove_message`, `move_message`, `set_content`, `set_role`, `render_now`;
    `rendered(ChatCount)` and `failed(reason)` report each render.  `conversationChanged` follows
    every change of the conversation (an edit, another one opened, a save), `stateChanged` its
    name or modified flag."""

    rendered = Signal(object)  # core.chat.ChatCount
    failed = Signal(str)
    conversationChanged = Signal()
    stateChanged = Signal()

    def __init__(self, parent: QWidget | None = None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self._tokenizer = None
        self._messages: list[dict] = [dict(m) for m in STARTER]
        self._tools: list[dict] | None = None
        self._documents: list[dict] | None = None
        self._path: str | None = None
        # what the conversation is compared with for "modified": the last opened, saved or started
        # one (shallow copies: an edit replaces a message's values); None: saved nowhere
        self._saved: tuple | None = self._snapshot()
        self._was_modified = False
        self._writer = TaskRunner(1, self)
        self._generation = 0
        self._cancel: threading.Event | None = None
        self._progress = [0, 0]
        self._counts: list[int | None] = []
        self._result: chat.ChatCount | None = None
        self._shown_template: chat.ChatTemplate | None = None  # the template of the result shown
        self._filling = False
        self._runner = TaskRunner(1, self)
        self._closed = False

        self.template_box = QComboBox()
        self.template_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.template_box.setMinimumContentsLength(8)
        self.template_box.setToolTip(self.tr("The tokenizer's chat templates (transformers picks 'default', or "
                                             "'tool_use' when the conversation has tools)"))
        self.template_box.currentIndexChanged.connect(self._schedule)
        self.prompt_box = QCheckBox(self.tr("Generation prompt"))
        self.prompt_box.setToolTip(self.tr("End with the header of the assistant's next turn (add_generation_prompt)"))
        self.prompt_box.setChecked(True)
        self.prompt_box.toggled.connect(self._schedule)
        self.messages = QListWidget()
        self.messages.setObjectName("ChatMessages")
        self.messages.setAlternatingRowColors(True)
        self.messages.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.messages.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.messages.currentRowChanged.connect(self._show_message)
        add = QToolButton()
        add.setText(self.tr("Add ▾"))
        add.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(add)
        for role in chat.ROLES:
            menu.addAction(role_name(role), lambda r=role: self.add_message(r, ""))
        add.setMenu(menu)
        self.add_button = add
        self.delete_button = QToolButton()
        self.delete_button.setText(self.tr("Delete"))
        self.delete_button.clicked.connect(lambda: self.remove_message(self.messages.currentRow()))
        self.up_button = QToolButton()
        self.up_button.setText("↑")
        self.up_button.setToolTip(self.tr("Move the message up"))
        self.up_button.clicked.connect(lambda: self.move_message(self.messages.currentRow(), -1))
        self.down_button = QToolButton()
        self.down_button.setText("↓")
        self.down_button.setToolTip(self.tr("Move the message down"))
        self.down_button.clicked.connect(lambda: self.move_message(self.messages.currentRow(), 1))
        open_button = QToolButton()
        open_button.setText(self.tr("Open…"))
        open_button.setToolTip(self.tr("Open a conversation (JSON: a list of messages, or "
                                       "{\"messages\": [...], \"tools\": [...]})"))
        open_button.clicked.connect(self._ask_open)
        self.open_button = open_button
        save_button = QToolButton()
        save_button.setText(self.tr("Save…"))
        save_button.setToolTip(self.tr("Save the conversation as JSON"))
        save_button.clicked.connect(self._ask_save)
        self.save_button = save_button
        self.role_box = QComboBox()
        for role in chat.ROLES:  # (the role as data; a conversation opened with other roles adds them)
            self.role_box.addItem(role_name(role), role)
        self.role_box.currentIndexChanged.connect(self._role_edited)
        self.content_edit = QPlainTextEdit()
        self.content_edit.setObjectName("ChatContent")
        self.content_edit.setFont(mono_font())
        self.content_edit.setPlaceholderText(self.tr("The message's content"))
        self.content_edit.textChanged.connect(self._content_edited)
        self.content_note = QLabel("")
        self.content_note.setWordWrap(True)

        self.header = HeaderLabel()
        self.view = TokenView(theme=theme)
        self.view.setObjectName("ChatTokenView")
        self.view.set_message(self.tr("No tokenizer loaded."))
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        guard_clicks(self.cancel_button)  # (it appears with the busy row, under a click meant for the row's place)
        self._progress_timer = QTimer(self)
        self._progress_timer.setInterval(100)
        self._progress_timer.timeout.connect(self._show_progress)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_DELAY_MS)
        self._render_timer.timeout.connect(self.render_now)

        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Template")))
        top.addWidget(self.template_box, 1)
        top.addWidget(self.prompt_box)
        buttons = QHBoxLayout()
        for w in (self.add_button, self.delete_button, self.up_button, self.down_button):
            buttons.addWidget(w)
        buttons.addStretch(1)
        buttons.addWidget(open_button)
        buttons.addWidget(save_button)
        role_row = QHBoxLayout()
        role_row.addWidget(QLabel(self.tr("Role")))
        role_row.addWidget(self.role_box, 1)
        left = QWidget()
        left_lay = QVBoxLayout(left)
        left_lay.setContentsMargins(6, 6, 6, 6)
        left_lay.addLayout(top)
        left_lay.addWidget(self.messages, 2)
        left_lay.addLayout(buttons)
        left_lay.addLayout(role_row)
        left_lay.addWidget(self.content_edit, 3)
        left_lay.addWidget(self.content_note)
        busy = QHBoxLayout()
        busy.addWidget(self.progress, 1)
        busy.addWidget(self.cancel_button)
        self.busy_row = QWidget()
        self.busy_row.setLayout(busy)
        self.busy_row.hide()
        right = QWidget()
        right_lay = QVBoxLayout(right)
        right_lay.setContentsMargins(0, 0, 0, 0)
        right_lay.setSpacing(0)
        right_lay.addWidget(self.header)
        right_lay.addWidget(self.view, 1)
        right_lay.addWidget(self.busy_row)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([400, 800])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.splitter)
        self._fill_list(0)
        self._update_header()

    # ---- public API -----------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        """Render with this tokenizer's templates (None: nothing to render)."""
        self._tokenizer = tokenizer
        self._filling = True
        self.template_box.clear()
        templates = tokenizer.chat_templates if tokenizer is not None else chat.ChatTemplates()
        for name in templates.names():
            origin = templates.templates[name].origin
            self.template_box.addItem(name, name)
            self.template_box.setItemData(self.template_box.count() - 1, origin, Qt.ItemDataRole.ToolTipRole)
        self.template_box.setEnabled(self.template_box.count() > 1)
        self._filling = False
        self.render_now()

    def conversation(self) -> chat.Conversation:
        return chat.Conversation([dict(m) for m in self._messages], self._tools, self._documents)

    def set_conversation(self, conversation: chat.Conversation, path: str | os.PathLike | None = None, *,
                         modified: bool = False) -> None:
        """Show `conversation` (of the file `path`, if any) without asking; `modified`: it is work
        saved nowhere (a conversation restored from the last session)."""
        self._messages = [dict(m) for m in conversation.messages]
        self._tools, self._documents = conversation.tools, conversation.documents
        self._path = os.fspath(path) if path is not None else None
        self._saved = None if modified else self._snapshot()
        self._fill_list(0 if self._messages else -1)
        self._edited()

    def add_message(self, role: str, content: str) -> None:
        """Append a message and select it (its content ready to type)."""
        self._messages.append({"role": role, "content": content})
        self._fill_list(len(self._messages) - 1)
        self.content_edit.setFocus()
        self._edited()

    def remove_message(self, index: int) -> None:
        if 0 <= index < len(self._messages):
            del self._messages[index]
            self._fill_list(min(index, len(self._messages) - 1))
            self._edited()

    def move_message(self, index: int, delta: int) -> None:
        target = index + delta
        if 0 <= index < len(self._messages) and 0 <= target < len(self._messages):
            self._messages[index], self._messages[target] = self._messages[target], self._messages[index]
            self._fill_list(target)
            self._edited()

    def set_role(self, index: int, role: str) -> None:
        if 0 <= index < len(self._messages) and role:
            self._messages[index] = {**self._messages[index], "role": role}
            self._refresh_item(index)
            self._edited()

    def set_content(self, index: int, content) -> None:
        if 0 <= index < len(self._messages):
            self._messages[index] = {**self._messages[index], "content": content}
            self._refresh_item(index)
            self._edited()

    def path(self) -> str | None:
        """The file the conversation was opened from or saved to (None: no file's)."""
        return self._path

    def display_name(self) -> str:
        return Path(self._path).name if self._path else self.tr("untitled conversation")

    def is_modified(self) -> bool:
        """The conversation differs from the one opened, saved or started with (or, restored from
        the last session as modified, was not saved since)."""
        return self._saved is None or self._saved != self._snapshot()

    def set_add_generation_prompt(self, on: bool) -> None:
        self.prompt_box.setChecked(on)

    def result(self) -> chat.ChatCount | None:
        """The last render's text, ids and counts (None before one, or after one failed)."""
        return self._result

    def open_conversation(self, path: str | os.PathLike) -> None:
        """Load a JSON conversation without asking (TokvizError naming the file when it is not one)."""
        self.set_conversation(chat.read_conversation(path), os.fspath(path))

    def save_conversation(self, path: str | os.PathLike) -> None:
        """Write the conversation to `path` now (atomically); it then belongs to `path`, unmodified."""
        snapshot = self._snapshot()
        write_conversation(path, self.conversation())
        self._saved_as(os.fspath(path), snapshot)

    def is_busy(self) -> bool:
        return self._runner.pending() > 0 or self._render_timer.isActive() or self._writer.pending() > 0

    def set_theme(self, theme: TokenTheme) -> None:
        self.view.set_theme(theme)

    def set_show_whitespace(self, on: bool) -> None:
        self.view.set_show_whitespace(on)

    def set_token_font(self, font) -> None:
        self.view.setFont(font)
        self.content_edit.setFont(font)

    def cancel(self) -> None:
        """Stop the render in flight (the last result stays shown)."""
        if self._cancel is not None:
            self._cancel.set()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._closed = True
        self._render_timer.stop()
        self.cancel()
        self._runner.shutdown(timeout_ms)
        self._writer.shutdown(30_000)  # (a save in flight is atomic: the file is whole either way)

    # ---- modified, asking, saving -----------------------------------------------------------------
    def _snapshot(self) -> tuple:
        return [dict(m) for m in self._messages], self._tools, self._documents

    def _edited(self) -> None:
        """The conversation changed: render it again, tell the session, update the header."""
        self._schedule()
        self._update_name()
        self.conversationChanged.emit()

    def _update_name(self) -> None:
        modified = self.is_modified()
        if modified != self._was_modified:
            self._was_modified = modified
            self.stateChanged.emit()
        self._update_header(self._shown_template)

    def ask(self, *, quitting: bool = False) -> str:
        """Ask what to do with the modified conversation: "save", "discard" or "cancel"."""
        return ask_save_changes(self, self.display_name(), quitting=quitting, conversation=True)

    def ask_before(self, then: Callable[[], object]) -> str:
        """Run `then` (which replaces the conversation) unless that would lose a modified one: asks
        Save / Discard / Cancel first.  Returns "now" (`then` ran), "after save" (it runs once the
        save succeeded and if the conversation was not edited meanwhile) or "cancelled"."""
        return ask_before_replacing(self, then)

    def save(self, *, then: Callable[[], object] | None = None) -> bool:
        """Save to the conversation's file (asking for one when it has none), on the worker; `then`
        runs after a successful save.  False when nothing was started (cancelled)."""
        if self._path is None:
            return self.save_as(then=then)
        self._write(self._path, then)
        return True

    def save_as(self, *, then: Callable[[], object] | None = None) -> bool:
        """Ask for a file and save the conversation there; False when cancelled."""
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save conversation"), self._path or "conversation.json",
                                              QCoreApplication.translate("ChatView", CONVERSATION_FILTER))
        if not path:
            return False
        self._write(path, then)
        return True

    def _write(self, path: str, then) -> None:
        snapshot = self._snapshot()
        conversation = chat.Conversation(*snapshot)

        def done(_nbytes: int) -> None:
            unchanged = snapshot == self._snapshot()
            self._saved_as(path, snapshot)
            if then is not None and unchanged:
                then()

        def failed(exc: BaseException) -> None:
            QMessageBox.warning(self, self.tr("Could not save the conversation"), error_text(exc))

        self._writer.submit(lambda: write_conversation(path, conversation), done, failed)

    def _saved_as(self, path: str, snapshot: tuple) -> None:
        """`snapshot` (the conversation as it was) is now the file `path`'s."""
        self._path = path
        self._saved = snapshot
        self._update_name()
        self.stateChanged.emit()  # (the name may be new)
        self.conversationChanged.emit()

    # ---- rendering --------------------------------------------------------------------------------
    def _schedule(self, *_args) -> None:
        if not self._filling and not self._closed:
            self._render_timer.start()

    def render_now(self) -> None:
        """Render and count on the worker now (a render in flight is cancelled)."""
        self._render_timer.stop()
        self.cancel()
        self._generation += 1
        generation = self._generation
        tok = self._tokenizer
        if tok is None:
            self._show_failure(self.tr("No tokenizer loaded."))
            return
        templates = tok.chat_templates
        try:
            template = templates.pick(self.template_box.currentData(), self._tools)
        except chat.ChatTemplateError as exc:
            self._show_failure(error_text(exc) + "\n\n" + self.tr("The Chat tab needs a tokenizer that ships a chat "
                                                                   "template (tokenizer_config.json, "
                                                                   "chat_template.jinja)."))
            return
        if not self._messages:
            self._show_failure(self.tr("Add a message (Add ▾)."))
            return
        conversation = self.conversation()
        add_prompt = self.prompt_box.isChecked()
        cancel = self._cancel = threading.Event()
        progress = self._progress = [0, len(conversation.messages)]

        def report(done: int, total: int) -> None:
            progress[0], progress[1] = done, total

        def work():
            result = chat.count(tok, template, conversation, add_generation_prompt=add_prompt,
                                variables=templates.variables, cancelled=cancel.is_set, progress=report)
            return result, tok.encode(result.text)

        def done(outcome) -> None:
            if generation != self._generation or self._closed:
                return
            self._finish_busy()
            result, encoding = outcome
            self._result = result
            self._counts = result.per_message
            self.view.set_encoding(encoding)
            self._update_header(template)
            for k in range(len(self._messages)):
                self._refresh_item(k)
            self.rendered.emit(result)

        def failed(exc: BaseException) -> None:
            if generation != self._generation or self._closed:
                return
            self._finish_busy()
            if isinstance(exc, Cancelled):
                self.header.setText(self.header.text() + " · <i>" + self.tr("cancelled") + "</i>")
                return
            self._show_failure(error_text(exc))

        QTimer.singleShot(PROGRESS_AFTER_MS, self, lambda: self._start_busy(generation))
        self._runner.submit(work, done, failed, is_current=lambda: generation == self._generation)

    def _start_busy(self, generation: int) -> None:
        if generation == self._generation and self._runner.pending() and not self._closed:
            self.progress.setValue(0)
            self.busy_row.show()
            self._progress_timer.start()

    def _show_progress(self) -> None:
        done, total = self._progress
        self.progress.setValue(1000 if total <= 0 else done * 1000 // total)

    def _finish_busy(self) -> None:
        self._progress_timer.stop()
        self.busy_row.hide()
        self._cancel = None

    def _show_failure(self, reason: str) -> None:
        self._result = None
        self._counts = []
        self.view.set_encoding(None)
        self.view.set_message(reason)
        self._update_header()
        for k in range(len(self._messages)):
            self._refresh_item(k)
        self.failed.emit(reason)

    def _update_header(self, template: chat.ChatTemplate | None = None) -> None:
        """The header: the conversation's name (and "(edited)"), then the last render's counts."""
        self._shown_template = template
        name = html.escape(self.display_name())
        edited = self.tr(" (edited)") if self.is_modified() else ""
        title = f"<b>{name}</b>{edited}"
        result = self._result
        if result is None or template is None:
            not_rendered = self.tr("not rendered")
            self.header.setText(title if self._tokenizer is None else f"{title} · <i>{not_rendered}</i>")
            self.header.setToolTip(self._path or "")
            return
        n = len(self._messages)
        parts = [title, self.tr("<b>{n:,}</b> tokens").format(n=len(result.ids)),
                 self.tr("1 message") if n == 1 else self.tr("{n:,} messages").format(n=n),
                 self.tr("template <b>{name}</b>").format(name=html.escape(template.name))]
        if self.prompt_box.isChecked():
            parts.append(self.tr("prompt {n:,}").format(n=result.prompt))
        self.header.setText(" · ".join(parts))
        tip = self.tr("{n:,} characters rendered").format(n=len(result.text))
        self.header.setToolTip("\n".join(t for t in (self._path, template.origin, tip) if t))

    # ---- the message list --------------------------------------------------------------------------
    def _fill_list(self, select: int) -> None:
        self._filling = True
        self.messages.clear()
        for k in range(len(self._messages)):
            self.messages.addItem(QListWidgetItem())
            self._refresh_item(k)
        self._filling = False
        self.messages.setCurrentRow(select)
        self._show_message(select)

    def _refresh_item(self, k: int) -> None:
        item = self.messages.item(k)
        if item is None:
            return
        message = self._messages[k]
        count = self._counts[k] if k < len(self._counts) else None
        tokens = "" if count is None else "  ·  " + self.tr("{n:,} tokens").format(n=count)
        extra = [key for key in ("tool_calls", "reasoning_content", "thinking", "name") if message.get(key)]
        more = f"  (+{', '.join(extra)})" if extra else ""
        item.setText(f"{role_name(message.get('role', '?'))}{tokens}{more}\n{_preview(message.get('content'))}")

    def _show_message(self, index: int) -> None:
        self._filling = True
        has = 0 <= index < len(self._messages)
        for w in (self.role_box, self.content_edit, self.delete_button, self.up_button, self.down_button):
            w.setEnabled(has)
        if has:
            message = self._messages[index]
            role = message.get("role", "")
            if self.role_box.findData(role) < 0:
                self.role_box.addItem(role_name(role), role)
            self.role_box.setCurrentIndex(self.role_box.findData(role))
            content = message.get("content")
            if isinstance(content, list):
                self.content_edit.setPlainText(json.dumps(content, ensure_ascii=False, indent=2))
                self.content_note.setText(self._parts_note())
            else:
                self.content_edit.setPlainText(content or "")
                self.content_note.setText("")
        else:
            self.content_edit.setPlainText("")
            self.content_note.setText("")
        self._filling = False

    def _role_edited(self, _index: int) -> None:
        if not self._filling:
            self.set_role(self.messages.currentRow(), str(self.role_box.currentData() or "").strip())

    def _content_edited(self) -> None:
        if self._filling:
            return
        index = self.messages.currentRow()
        if not 0 <= index < len(self._messages):
            return
        text = self.content_edit.toPlainText()
        if isinstance(self._messages[index].get("content"), list):
            try:
                parts = json.loads(text)
            except json.JSONDecodeError as exc:
                note = self.tr("Not JSON yet: {reason} (line {line}); the last valid parts are used.")
                self.content_note.setText(note.format(reason=exc.msg, line=exc.lineno))
                return
            if not isinstance(parts, list):
                self.content_note.setText(self.tr("Content parts must be a JSON list; the last valid parts are used."))
                return
            self.content_note.setText(self._parts_note())
            self.set_content(index, parts)
        else:
            self.set_content(index, text)

    def _parts_note(self) -> str:
        return self.tr("Content parts, as JSON (a list of {\"type\": ..., ...}).")

    # ---- files ------------------------------------------------------------------------------------
    def _ask_open(self) -> None:
        """Open…: a modified conversation asks Save / Discard / Cancel first, then a file is chosen."""
        self.ask_before(self._choose_and_open)

    def _choose_and_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open conversation"), self._path or "",
                                              QCoreApplication.translate("ChatView", CONVERSATION_FILTER))
        if path:
            self.open_path(path)

    def open_path(self, path: str | os.PathLike) -> bool:
        """Open the conversation file `path`, saying so in a message box when it is not one; False then
        (the conversation shown stays)."""
        try:
            self.open_conversation(path)
        except TokvizError as exc:
            QMessageBox.warning(self, self.tr("Could not open the conversation"), error_text(exc))
            return False
        return True

    def _ask_save(self) -> None:
        self.save_as()
