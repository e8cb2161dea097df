"""No lost work, as editors do it.

* The session — the text being edited (or its file), the open tokenizer — is saved to
  `session.json` beside the settings a moment after each change and when the window closes, and
  the next start reopens it (after a crash, with a message saying so).  A modified text comes back
  modified, still belonging to its file (if it has one); so quitting with one asks nothing unless
  the session could not keep it (longer than MAX_SAVED_CHARS, or session.json not writable).
* The Chat tab's conversation comes back the same way: a modified one as it was (up to
  MAX_SAVED_CHAT_CHARS of JSON), still belonging to its file; an unmodified one as its file.
  Quitting with a modified conversation the session cannot keep asks Save / Discard / Cancel.
* Tokenizers trained or edited in the app and not exported are kept in the app's data folder
  (`UnsavedTokenizers`), each as a file its format's library reads, until exported or discarded;
  the session and the Compare set refer to those files, so they reopen too.
* Quitting with such tokenizers asks whether to keep them (the default) or discard them.

Files are written atomically (a temporary file, then a rename): a crash while saving leaves the
previous one.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from ...core import Tokenizer
from ...core.chat import conversation_from_json
from ...formats.atomic_write import write_text_atomic
from ...formats.writers import WRITE_FORMATS, save_files
from ...errors import TokvizError
from ..work.ui_gate import ui_thread_waits
from ..work.workers import TaskRunner

MAX_SAVED_CHARS = 20_000_000  # an edited text longer than this is not copied (its file, if any, is)
MAX_SAVED_CHAT_CHARS = 1_000_000  # a modified conversation with more JSON text is not copied (~20 ms to save)
SESSION_SAVE_MS = 1500  # the session is saved this long after the last change
KEEP_FORMATS = ("hf-json", "sentencepiece", "tiktoken", "tekken", "minbpe", "vocab-merges", "wordpiece-vocab")


class SessionStore:
    """session.json: {"clean", "text", "text_path", "text_name", "text_modified", "line_end",
    "tokenizer_path", "tokenizer_encoding", "chat"} ("chat": see `chat_state`)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.written = False  # the last save wrote session.json

    def save(self, *, text: str | None, text_path: str | None, tokenizer_path: str | None,
             tokenizer_encoding: str | None = None, clean: bool = False, text_name: str | None = None,
             text_modified: bool = True, line_end: str = "\n", chat: dict | None = None) -> bool:
        """Remember the work (`text`: the editor's text, None when its file holds it; `text_name`:
        its name when it has no file; `text_modified`: not saved anywhere; `line_end`: what an edit
        of its file is saved with; `chat`: the Chat tab's conversation, see `chat_state`); `clean`
        when the window closed normally.  False when the text was not kept whole: `text` too long,
        or the file could not be written (`written` then says which)."""
        kept_text = text if text is not None and len(text) <= MAX_SAVED_CHARS else None
        state = {
            "clean": clean,
            "text": kept_text,
            "text_path": text_path,
            "text_name": text_name,
            "text_modified": text_modified,
            "line_end": line_end,
            "tokenizer_path": tokenizer_path,
            "tokenizer_encoding": tokenizer_encoding,
            "chat": chat,
        }
        self.written = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(self.path, json.dumps(state, ensure_ascii=False))
        except OSError:
            return False  # (a read-only settings folder: no autosave, but the app goes on)
        self.written = True
        return kept_text is not None or text is None

    def last(self) -> dict | None:
        """The last session's state, or None (none, or a damaged file)."""
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return state if isinstance(state, dict) else None


def json_chars(value, limit: int) -> int:
    """About how many characters `value` takes as JSON; counting stops once past `limit`."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2 + 2 * len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 2 + len(item)
            stack.extend(item)
        else:
            total += 8
    return total


def chat_state(chat_view) -> tuple[dict | None, bool]:
    """(what the session keeps of the Chat tab's conversation, whether that holds all its work).
    {"conversation": JSON or None (its file holds it, or it is too big), "path", "modified"};
    None for an unmodified conversation that is no file's (the one the tab starts with)."""
    path, modified = chat_view.path(), chat_view.is_modified()
    if not modified:
        return ({"conversation": None, "path": path, "modified": False} if path else None), True
    data = chat_view.conversation().to_json()
    fits = json_chars(data, MAX_SAVED_CHAT_CHARS) <= MAX_SAVED_CHAT_CHARS
    return {"conversation": data if fits else None, "path": path, "modified": True}, fits


@dataclass(frozen=True)
class KeptTokenizer:
    key: str
    path: Path  # the file (or folder, for vocab-merges) that reloads it
    name: str
    origin: str  # "trained" or "edited"
    created: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.created))
        if self.origin == "trained":
            return QCoreApplication.translate("Session", "{name} (trained {when})").format(name=self.name, when=when)
        return QCoreApplication.translate("Session", "{name} (edited {when})").format(name=self.name, when=when)


class UnsavedTokenizers:
    """Tokenizers not yet exported, kept under `folder`/KEY/ with a meta.json."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)

    def keep(self, tok: Tokenizer, origin: str) -> KeptTokenizer:
        """Write `tok` in the first format that holds it exactly (raises TokvizError naming the reasons
        when none does).  Slow for big vocabularies: call it on a worker."""
        reasons = {}
        for name in KEEP_FORMATS:
            problem = WRITE_FORMATS[name].problem(tok)
            if problem is None:
                break
            reasons[name] = problem
        else:
            raise TokvizError(QCoreApplication.translate(
                "Session", "no format tokviz writes holds this tokenizer exactly: {reasons}").format(
                reasons="; ".join(f"{WRITE_FORMATS[n].label}: {r}" for n, r in reasons.items())))
        key = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:8]  # (sortable, unique)
        home = self.folder / key
        home.mkdir(parents=True)
        try:
            spec = WRITE_FORMATS[name]
            target = home if name == "vocab-merges" else home / spec.default_name
            written = save_files(tok, target, format=name)
            path = home if name == "vocab-merges" else written[0]
            kept = KeptTokenizer(key, path, tok.source.name or origin, origin, time.time())
            meta = {"path": path.relative_to(home).as_posix() if path != home else ".", "name": kept.name,
                    "origin": origin, "created": kept.created, "format": name}
            write_text_atomic(home / "meta.json", json.dumps(meta, ensure_ascii=False))
        except BaseException:
            shutil.rmtree(home, ignore_errors=True)
            raise
        return kept

    def entries(self) -> list[KeptTokenizer]:
        """Every kept tokenizer, oldest first (folders without a readable meta.json are skipped)."""
        try:
            homes = sorted(p for p in self.folder.iterdir() if p.is_dir())
        except OSError:
            return []
        return sorted((k for k in map(self._read, homes) if k is not None), key=lambda k: k.created)

    @staticmethod
    def _read(home: Path) -> KeptTokenizer | None:
        try:
            meta = json.loads((home / "meta.json").read_text(encoding="utf-8"))
            path = (home / meta["path"]).resolve()
            return KeptTokenizer(home.name, path, str(meta["name"]), str(meta["origin"]), float(meta["created"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def find(self, path: str | os.PathLike | None) -> KeptTokenizer | None:
        """The kept tokenizer stored at `path`, if it is one (only its own folder is read: the
        window asks for every tokenizer it shows)."""
        if not path:
            return None
        resolved, folder = Path(path).resolve(), self.folder.resolve()
        if resolved == folder or not resolved.is_relative_to(folder):
            return None
        kept = self._read(folder / resolved.relative_to(folder).parts[0])
        return kept if kept is not None and kept.path == resolved else None

    def discard(self, key: str) -> None:
        if key and "/" not in key and key not in (".", ".."):
            shutil.rmtree(self.folder / key, ignore_errors=True)


def ask_keep_unsaved(parent, kept: list[KeptTokenizer]) -> str:
    """Ask on quit what to do with tokenizers not exported: "keep", "discard" or "cancel"."""
    box = QMessageBox(parent)
    box.setWindowTitle(QCoreApplication.translate("Session", "Quit tokviz"))
    box.setIcon(QMessageBox.Icon.Question)
    n = len(kept)
    box.setText(QCoreApplication.translate("Session", "1 tokenizer was trained or edited and not exported.")
                if n == 1 else
                QCoreApplication.translate("Session", "{count} tokenizers were trained or edited and not exported.")
                .format(count=n))
    box.setInformativeText(QCoreApplication.translate(
        "Session", "Kept, they reopen with this session and stay in tokviz's data folder until you export or "
                   "discard them."))
    box.setDetailedText("\n".join(k.describe() for k in kept))
    keep = box.addButton(QCoreApplication.translate("Session", "Keep and quit"), QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton(QCoreApplication.translate("Session", "Discard and quit"),
                            QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)
    box.exec()
    clicked = box.clickedButton()
    return "keep" if clicked is keep else "discard" if clicked is discard else "cancel"


class SessionKeeper(QObject):
    """Saves `window`'s session after changes (on a worker: a big text's file takes tens of ms to
    write) and on close; keeps its unsaved tokenizers."""

    def __init__(self, window, store: SessionStore, unsaved: UnsavedTokenizers):
        super().__init__(window)
        self.window = window
        self.store = store
        self.unsaved = unsaved
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SESSION_SAVE_MS)
        self.timer.timeout.connect(self._save_in_background)
        self._writer = TaskRunner(1, self)  # (one thread: saves are written in the order made)
        self.chat_kept = True  # the last save kept the Chat tab's work whole
        window.chat_view.conversationChanged.connect(self.changed)

    def changed(self) -> None:
        """Something worth saving changed: save a moment later."""
        self.timer.start()

    def _state(self, clean: bool) -> tuple[dict, bool]:
        """What `SessionStore.save` is given now, and whether it holds the Chat tab's work whole."""
        w = self.window
        tok = w.controller.tokenizer
        path = os.fspath(tok.source.path) if tok is not None and tok.source.path else None
        origin = w.document.origin
        chat, chat_whole = chat_state(w.chat_view)
        return dict(text=w.unsaved_text(), text_path=w.text_path(), tokenizer_path=path,
                    tokenizer_encoding=w.tokenizer_encoding(), clean=clean, text_name=origin.name,
                    text_modified=w.document.is_modified(), line_end=origin.line_end, chat=chat), chat_whole

    def _save_in_background(self) -> None:
        state, chat_whole = self._state(clean=False)
        store = self.store

        def saved(_text_kept: bool) -> None:
            self.chat_kept = chat_whole and store.written

        self._writer.submit(lambda: store.save(**state), saved)

    def is_saving(self) -> bool:
        return self._writer.pending() > 0

    def save(self, *, clean: bool = False) -> bool:
        """Save the session now (`clean`: the window is closing normally); False when the text
        could not be kept (see SessionStore.save)."""
        self.timer.stop()
        with ui_thread_waits():
            self._writer.pool.waitForDone()  # (a save still being written must not land after this one)
        state, chat_whole = self._state(clean)
        text_kept = self.store.save(**state)
        self.chat_kept = chat_whole and self.store.written
        return text_kept

    def keeps_chat(self) -> bool:
        """Save the session now; whether it holds the Chat tab's work whole (a modified conversation
        too big to keep, or a session file that cannot be written, does not)."""
        self.save()
        return self.chat_kept

    def restore_chat(self) -> bool:
        """Put the last session's conversation in the Chat tab (a modified one modified); False when
        there is none (or nothing left of it: its file gone, a damaged entry)."""
        state = self.store.last()
        kept = state.get("chat") if state is not None else None
        if not isinstance(kept, dict):
            return False
        path = kept.get("path") if isinstance(kept.get("path"), str) else None
        chat_view = self.window.chat_view
        try:
            if kept.get("conversation") is not None:
                conversation = conversation_from_json(kept["conversation"], self.store.path)
                chat_view.set_conversation(conversation, path, modified=kept.get("modified") is not False)
            elif path is not None and os.path.isfile(path):  # (False for a pipe, or one that cannot be looked at)
                chat_view.open_conversation(path)
            else:
                return False
        except TokvizError:
            return False
        return True

    def to_restore(self) -> dict | None:
        """The last session with its files still there, or None (no session, or nothing left of it)."""
        state = self.store.last()
        if state is None:
            return None
        tokenizer = state.get("tokenizer_path")
        if tokenizer and not os.path.exists(tokenizer):  # (these never raise: False when it cannot be looked at)
            tokenizer = None
        text, text_file = state.get("text"), state.get("text_path")
        if text is None and text_file and not os.path.isfile(text_file):
            text_file = None
        if tokenizer is None and text is None and text_file is None:
            return None
        line_end = state.get("line_end")
        name = state.get("text_name")
        return {"tokenizer": tokenizer, "encoding": state.get("tokenizer_encoding"), "text": text,
                "text_file": text_file if text is None else None, "text_path": text_file,
                "text_name": name if isinstance(name, str) else None,
                "modified": state.get("text_modified") is not False,
                "line_end": line_end if line_end in ("\n", "\r\n") else "\n",
                "crashed": not state.get("clean", True)}
