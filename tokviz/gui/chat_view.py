"""The Chat tab: a conversation rendered through the tokenizer's chat template, as the model sees it.

Left, the messages (add, edit, reorder, delete; open and save them as JSON in the OpenAI / HF
format), the template to use and the generation-prompt switch.  Right, the rendered text in a
token view (the template's special tokens keep their dark fills), with the count of the whole and
of what each message adds.  Rendering and counting run on a worker (`core.chat.count`, bounded in
time and size); a new edit supersedes the render in flight, and a long one shows its progress and
a Cancel button.  A template that raises shows its message in place of the tokens.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
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
    QSizePolicy,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core import chat
from ..errors import Cancelled, TokvizError
from .click_guard import guard_clicks
from .style import DEFAULT_THEME, TokenTheme, mono_font
from .token_view import TokenView
from .workers import TaskRunner

CONVERSATION_FILTER = "Conversations (*.json);;All files (*)"
RENDER_DELAY_MS = 150  # after the last edit
PROGRESS_AFTER_MS = 300  # a render that takes longer shows its progress and Cancel
STARTER = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "How many tokens is this conversation?"},
    {"role": "assistant", "content": "Count them on the right: each message, and the whole."},
    {"role": "user", "content": "And in Chinese? 这段对话有多少个词元？"},
]


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
    `rendered(ChatCount)` and `failed(reason)` report each render."""

    rendered = Signal(object)  # core.chat.ChatCount
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self._tokenizer = None
        self._messages: list[dict] = [dict(m) for m in STARTER]
        self._tools: list[dict] | None = None
        self._documents: list[dict] | None = None
        self._path: str | None = None
        self._generation = 0
        self._cancel: threading.Event | None = None
        self._progress = [0, 0]
        self._counts: list[int | None] = []
        self._result: chat.ChatCount | None = None
        self._filling = False
        self._runner = TaskRunner(1, self)
        self._closed = False

        self.template_box = QComboBox()
        self.template_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.template_box.setMinimumContentsLength(8)
        self.template_box.setToolTip("The tokenizer's chat templates (transformers picks 'default', or 'tool_use' "
                                     "when the conversation has tools)")
        self.template_box.currentIndexChanged.connect(self._schedule)
        self.prompt_box = QCheckBox("Generation prompt")
        self.prompt_box.setToolTip("End with the header of the assistant's next turn (add_generation_prompt)")
        self.prompt_box.setChecked(True)
        self.prompt_box.toggled.connect(self._schedule)
        self.messages = QListWidget()
        self.messages.setObjectName("ChatMessages")
        self.messages.setAlternatingRowColors(True)
        self.messages.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.messages.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.messages.currentRowChanged.connect(self._show_message)
        add = QToolButton()
        add.setText("Add ▾")
        add.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(add)
        for role in chat.ROLES:
            menu.addAction(role, lambda r=role: self.add_message(r, ""))
        add.setMenu(menu)
        self.add_button = add
        self.delete_button = QToolButton()
        self.delete_button.setText("Delete")
        self.delete_button.clicked.connect(lambda: self.remove_message(self.messages.currentRow()))
        self.up_button = QToolButton()
        self.up_button.setText("↑")
        self.up_button.setToolTip("Move the message up")
        self.up_button.clicked.connect(lambda: self.move_message(self.messages.currentRow(), -1))
        self.down_button = QToolButton()
        self.down_button.setText("↓")
        self.down_button.setToolTip("Move the message down")
        self.down_button.clicked.connect(lambda: self.move_message(self.messages.currentRow(), 1))
        open_button = QToolButton()
        open_button.setText("Open…")
        open_button.setToolTip("Open a conversation (JSON: a list of messages, or {\"messages\": [...], \"tools\": [...]})")
        open_button.clicked.connect(self._ask_open)
        save_button = QToolButton()
        save_button.setText("Save…")
        save_button.setToolTip("Save the conversation as JSON")
        save_button.clicked.connect(self._ask_save)
        self.role_box = QComboBox()
        self.role_box.addItems(chat.ROLES)  # (a conversation opened with other roles adds them)
        self.role_box.currentTextChanged.connect(self._role_edited)
        self.content_edit = QPlainTextEdit()
        self.content_edit.setObjectName("ChatContent")
        self.content_edit.setFont(mono_font())
        self.content_edit.setPlaceholderText("The message's content")
        self.content_edit.textChanged.connect(self._content_edited)
        self.content_note = QLabel("")
        self.content_note.setWordWrap(True)

        self.header = QLabel()
        self.header.setObjectName("PaneHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.view = TokenView(theme=theme)
        self.view.setObjectName("ChatTokenView")
        self.view.set_message("No tokenizer loaded.")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.cancel_button = QPushButton("Cancel")
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
        top.addWidget(QLabel("Template"))
        top.addWidget(self.template_box, 1)
        top.addWidget(self.prompt_box)
        buttons = QHBoxLayout()
        for w in (self.add_button, self.delete_button, self.up_button, self.down_button):
            buttons.addWidget(w)
        buttons.addStretch(1)
        buttons.addWidget(open_button)
        buttons.addWidget(save_button)
        role_row = QHBoxLayout()
        role_row.addWidget(QLabel("Role"))
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

    def set_conversation(self, conversation: chat.Conversation, path: str | None = None) -> None:
        self._messages = [dict(m) for m in conversation.messages]
        self._tools, self._documents = conversation.tools, conversation.documents
        self._path = path
        self._fill_list(0 if self._messages else -1)
        self._schedule()

    def add_message(self, role: str, content: str) -> None:
        """Append a message and select it (its content ready to type)."""
        self._messages.append({"role": role, "content": content})
        self._fill_list(len(self._messages) - 1)
        self.content_edit.setFocus()
        self._schedule()

    def remove_message(self, index: int) -> None:
        if 0 <= index < len(self._messages):
            del self._messages[index]
            self._fill_list(min(index, len(self._messages) - 1))
            self._schedule()

    def move_message(self, index: int, delta: int) -> None:
        target = index + delta
        if 0 <= index < len(self._messages) and 0 <= target < len(self._messages):
            self._messages[index], self._messages[target] = self._messages[target], self._messages[index]
            self._fill_list(target)
            self._schedule()

    def set_role(self, index: int, role: str) -> None:
        if 0 <= index < len(self._messages) and role:
            self._messages[index]["role"] = role
            self._refresh_item(index)
            self._schedule()

    def set_content(self, index: int, content) -> None:
        if 0 <= index < len(self._messages):
            self._messages[index]["content"] = content
            self._refresh_item(index)
            self._schedule()

    def set_add_generation_prompt(self, on: bool) -> None:
        self.prompt_box.setChecked(on)

    def result(self) -> chat.ChatCount | None:
        """The last render's text, ids and counts (None before one, or after one failed)."""
        return self._result

    def open_conversation(self, path: str | os.PathLike) -> None:
        """Load a JSON conversation (TokvizError naming the file when it is not one)."""
        self.set_conversation(chat.read_conversation(path), os.fspath(path))

    def save_conversation(self, path: str | os.PathLike) -> None:
        data = json.dumps(self.conversation().to_json(), ensure_ascii=False, indent=2) + "\n"
        try:
            Path(path).write_text(data, encoding="utf-8")
        except OSError as exc:
            raise TokvizError(f"cannot write: {exc.strerror or exc}", path) from None
        self._path = os.fspath(path)

    def is_busy(self) -> bool:
        return self._runner.pending() > 0 or self._render_timer.isActive()

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
            self._show_failure("No tokenizer loaded.")
            return
        templates = tok.chat_templates
        try:
            template = templates.pick(self.template_box.currentData(), self._tools)
        except chat.ChatTemplateError as exc:
            self._show_failure(f"{exc}\n\nThe Chat tab needs a tokenizer that ships a chat template "
                               "(tokenizer_config.json, chat_template.jinja).")
            return
        if not self._messages:
            self._show_failure("Add a message (Add ▾).")
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
                self.header.setText(self.header.text() + " · <i>cancelled</i>")
                return
            self._show_failure(str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}")

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
        result = self._result
        if result is None or template is None:
            self.header.setText("Chat" if self._tokenizer is None else "Chat · <i>not rendered</i>")
            return
        n = len(self._messages)
        parts = [f"<b>{len(result.ids):,}</b> tokens", f"{n} message{'s' if n != 1 else ''}",
                 f"template <b>{template.name}</b>"]
        if self.prompt_box.isChecked():
            parts.append(f"prompt {result.prompt:,}")
        self.header.setText(" · ".join(parts))
        self.header.setToolTip(f"{template.origin}\n{len(result.text):,} characters rendered")

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
        tokens = "" if count is None else f"  ·  {count:,} tokens"
        extra = [key for key in ("tool_calls", "reasoning_content", "thinking", "name") if message.get(key)]
        more = f"  (+{', '.join(extra)})" if extra else ""
        item.setText(f"{message.get('role', '?')}{tokens}{more}\n{_preview(message.get('content'))}")

    def _show_message(self, index: int) -> None:
        self._filling = True
        has = 0 <= index < len(self._messages)
        for w in (self.role_box, self.content_edit, self.delete_button, self.up_button, self.down_button):
            w.setEnabled(has)
        if has:
            message = self._messages[index]
            role = message.get("role", "")
            if self.role_box.findText(role) < 0:
                self.role_box.addItem(role)
            self.role_box.setCurrentText(role)
            content = message.get("content")
            if isinstance(content, list):
                self.content_edit.setPlainText(json.dumps(content, ensure_ascii=False, indent=2))
                self.content_note.setText("Content parts, as JSON (a list of {\"type\": ..., ...}).")
            else:
                self.content_edit.setPlainText(content or "")
                self.content_note.setText("")
        else:
            self.content_edit.setPlainText("")
            self.content_note.setText("")
        self._filling = False

    def _role_edited(self, role: str) -> None:
        if not self._filling:
            self.set_role(self.messages.currentRow(), role.strip())

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
                self.content_note.setText(f"Not JSON yet: {exc.msg} (line {exc.lineno}); the last valid parts are used.")
                return
            if not isinstance(parts, list):
                self.content_note.setText("Content parts must be a JSON list; the last valid parts are used.")
                return
            self.content_note.setText("Content parts, as JSON (a list of {\"type\": ..., ...}).")
            self.set_content(index, parts)
        else:
            self.set_content(index, text)

    # ---- files ------------------------------------------------------------------------------------
    def _ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open conversation", self._path or "", CONVERSATION_FILTER)
        if path:
            try:
                self.open_conversation(path)
            except TokvizError as exc:
                QMessageBox.warning(self, "Could not open the conversation", str(exc))

    def _ask_save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save conversation", self._path or "conversation.json",
                                              CONVERSATION_FILTER)
        if path:
            try:
                self.save_conversation(path)
            except TokvizError as exc:
                QMessageBox.warning(self, "Could not save the conversation", str(exc))
