"""The editor's text as a document: where it came from, whether it changed since, saving it, and
asking before it is replaced.

* `Origin`: the file the text belongs to (or a name such as "sample text" or "untitled") and the
  line ends it is written with.  "Modified" is the editor document's own flag (Qt's), so undoing
  back to the opened or saved text is unmodified again.
* `TextDocument.replace` puts a new text in the editor as one undo step: Ctrl+Z gives the previous
  text back, and with it its origin, so a save after the undo goes to the file that text belongs to.
  A big file's read-only preview is the exception: replacing it, or replacing a text by it, clears
  the undo history (an undo into the preview, or out of it into an editable text named after the
  big file, would let Save write a preview over the whole file).  The question asked before such
  a replace is then the way back.  So is a replace once the texts replaced so far hold more than
  UNDO_KEEP_CHARS (each stays in the undo history: opening file after file must not grow memory
  without end).
* `TextDocument.ask_before(then)`: with a modified text, asks Save / Discard / Cancel, then runs
  `then` (after the save has succeeded, for Save).
* `save`, `save_as`: the text as UTF-8 (no byte-order mark), written atomically on a worker.  A
  file's text saved unedited is written byte for byte as it was read (its byte-order mark
  excepted); an edited text gets the file's line ends back ("\\r\\n" when every line of the
  file ended so, else "\\n": the editor itself keeps no "\\r").  In big-file mode Save as copies
  the whole file.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace as replaced
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ...errors import TokvizError
from ...formats.atomic_write import write_bytes_atomic
from ...paths import open_regular, os_error_reason
from ..work.workers import TaskRunner, describe_error

SAVE_PATTERNS = "*.txt *.md"  # the Save as dialog's filter
# the names of texts that are no file's, kept (in English) with the session and translated where shown
UNTITLED = QT_TRANSLATE_NOOP("TextDocument", "untitled")
SAMPLE_TEXT = QT_TRANSLATE_NOOP("TextDocument", "sample text")
UNDO_KEEP_CHARS = 32_000_000  # replaced texts kept for undo, at most (Qt holds them as UTF-16)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _tr(text: str) -> str:
    return QCoreApplication.translate("TextDocument", text)


@dataclass(frozen=True)
class Origin:
    """Where a text came from: `path` (None for a text that is no file's) or `name`, and the line
    ends an edit of it is saved with."""

    path: str | None = None
    name: str = UNTITLED
    line_end: str = "\n"

    def display_name(self) -> str:
        """The file's name, else the text's name in the app's language ("untitled", "sample text")."""
        return Path(self.path).name if self.path else _tr(self.name)


def line_end_of(text: str) -> str:
    """"\\r\\n" when every line of `text` ends so (and one does), else "\\n"."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"


def encode_for_saving(text: str, path: str | os.PathLike) -> bytes:
    """`text` as UTF-8, or a TokvizError naming the first character UTF-8 cannot hold."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        at = _SURROGATE.search(text)
        where = at.start() if at else 0
        raise TokvizError(QCoreApplication.translate(
            "TextDocument", "character {index} of the text is a lone surrogate ({code}), which UTF-8 cannot hold; "
                            "remove it to save").format(index=f"{where:,}", code=f"U+{ord(text[where]):04X}"),
            path) from None


def write_text(path: str, text: str, line_end: str) -> int:
    """Write `text` to `path` atomically (UTF-8, "\\n" turned into `line_end`); the bytes written."""
    if line_end != "\n":
        text = text.replace("\n", line_end)
    data = encode_for_saving(text, path)
    write_bytes_atomic(path, data)
    return len(data)


def copy_file(source: str, target: str) -> int:
    """Copy `source` to `target` atomically (read whole: big-file mode has checked that several
    times its size fits in memory); the bytes written."""
    try:
        same = os.path.samefile(source, target)
    except (OSError, ValueError):
        same = False  # (no target yet; a source that cannot be read is named below)
    if same:
        return os.path.getsize(target)
    with open_regular(source, "a text file") as fh:  # (a pipe or a device in its place: refused, not read)
        try:
            data = fh.read()
        except OSError as exc:
            raise TokvizError(os_error_reason(exc), source) from None
    write_bytes_atomic(target, data)
    return len(data)


def ask_save_changes(parent, name: str, *, quitting: bool = False, conversation: bool = False) -> str:
    """Ask what to do with the modified text (or chat conversation) `name`: "save", "discard" or
    "cancel"."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    if conversation:
        box.setWindowTitle(QCoreApplication.translate("TextDocument", "Unsaved conversation"))
        box.setText(QCoreApplication.translate(
            "TextDocument", "The conversation “{name}” has changes that are not saved.").format(name=name))
        box.setInformativeText(
            QCoreApplication.translate("TextDocument", "Save them before quitting?") if quitting
            else QCoreApplication.translate("TextDocument", "Save them before the conversation is replaced?"))
    else:
        box.setWindowTitle(QCoreApplication.translate("TextDocument", "Unsaved text"))
        box.setText(QCoreApplication.translate(
            "TextDocument", "The text “{name}” has changes that are not saved.").format(name=name))
        box.setInformativeText(
            QCoreApplication.translate("TextDocument", "Save them before quitting?") if quitting
            else QCoreApplication.translate("TextDocument", "Save them before the text is replaced?"))
    Button = QMessageBox.StandardButton
    box.setStandardButtons(Button.Save | Button.Discard | Button.Cancel)
    box.setDefaultButton(Button.Save)
    box.setEscapeButton(Button.Cancel)
    answer = box.exec()
    return {Button.Save: "save", Button.Discard: "discard"}.get(Button(answer), "cancel")


def ask_before_replacing(work, then: Callable[[], object]) -> str:
    """Run `then`, which replaces `work` (a text document or a chat conversation: is_modified(),
    ask() and save(then=)), unless that would lose changes: asks Save / Discard / Cancel first.
    Returns "now" (`then` ran), "after save" (it runs once the save succeeded) or "cancelled"."""
    if not work.is_modified():
        then()
        return "now"
    answer = work.ask()
    if answer == "discard":
        then()
        return "now"
    if answer == "save" and work.save(then=then):
        return "after save"
    return "cancelled"


def ask_save_path(parent, start: str) -> str:
    """Ask where to save the text; "" when cancelled."""
    filters = "{text} ({patterns});;{every} (*)".format(
        text=QCoreApplication.translate("TextDocument", "Text files"), patterns=SAVE_PATTERNS,
        every=QCoreApplication.translate("TextDocument", "All files"))
    path, _ = QFileDialog.getSaveFileName(parent, QCoreApplication.translate("TextDocument", "Save text as"), start,
                                          filters)
    return path


class TextDocument(QObject):
    """The text of `window`'s editor (a MainWindow: `editor`, `big`, `report_error`, `settings`,
    `statusBar`, `is_setting_text`); see the module docstring."""

    stateChanged = Signal()  # the origin or the modified flag changed (title and header)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.editor = window.editor
        # the opened file's exact text (it keeps "\r\n", which the editor does not) until edited
        self.exact_text: str | None = None
        # (undo steps, origin): from that many undo steps on, the text is that origin's
        self._history: list[list] = [[0, Origin()]]
        self._replacing = False
        self._undo_chars = 0  # characters of the replaced texts in the undo history
        self._edits = 0  # contents changes not made by the window (for a save that ends after an edit)
        self._last_state: tuple | None = None
        self._writer = TaskRunner(1, self)
        doc = self.editor.document()
        self._fresh_command = False  # an undo command was added, its change not seen yet
        doc.contentsChange.connect(self._on_contents_change)
        doc.undoCommandAdded.connect(self._on_command_added)
        doc.contentsChanged.connect(self._on_contents_changed)
        doc.modificationChanged.connect(lambda _on: self._emit_if_changed())

    # ---- state ----------------------------------------------------------------------------------
    @property
    def origin(self) -> Origin:
        return self._current()[1]

    @property
    def path(self) -> str | None:
        return self.origin.path

    def display_name(self) -> str:
        return self.origin.display_name()

    def is_modified(self) -> bool:
        return self.editor.document().isModified()

    def mark_modified(self) -> None:
        """The text is work not saved anywhere (a text restored from the last session)."""
        self.editor.document().setModified(True)

    def text_to_save(self) -> str:
        """The text as it is to be written ("\\n" line ends unless it is a file's exact text)."""
        return self.exact_text if self.exact_text is not None else self.editor.text()

    def _current(self) -> list:
        doc = self.editor.document()
        steps = doc.availableUndoSteps()
        if not doc.isRedoAvailable():  # (marks beyond the last step were undone and then written over)
            self._history[1:] = [h for h in self._history[1:] if h[0] <= steps]
        for entry in reversed(self._history):
            if entry[0] <= steps:
                return entry
        return self._history[0]

    def _emit_if_changed(self) -> None:
        state = (self.origin, self.is_modified())
        if state != self._last_state:
            self._last_state = state
            self.stateChanged.emit()

    def _on_command_added(self) -> None:
        if self._replacing:
            return
        # a new edit: what was undone is gone, and the marks there with it
        steps = self.editor.document().availableUndoSteps()
        self._history[1:] = [h for h in self._history[1:] if h[0] < steps]
        self._fresh_command = True

    def _on_contents_change(self, position: int, removed: int, added: int) -> None:
        """An edit of the user's that replaced or deleted all of a named text that is no file's (the
        sample text: select all, then type, paste or delete) makes it an untitled text (its undo
        command, added just before, gives the named one back)."""
        fresh, self._fresh_command = self._fresh_command, False
        if not fresh or self._replacing or self.window.is_setting_text():
            return
        before = self.editor.document().characterCount() - added + removed  # (with the last paragraph's end)
        origin = self.origin
        if position == 0 and before > 1 and removed >= before - 1 and origin.path is None and origin.name != UNTITLED:
            steps = self.editor.document().availableUndoSteps()
            self._history = [h for h in self._history if h[0] < steps] + [[steps, Origin(line_end=origin.line_end)]]
            self._emit_if_changed()

    def _on_contents_changed(self) -> None:
        if not self.window.is_setting_text():
            self._edits += 1
        self._emit_if_changed()

    # ---- replacing ------------------------------------------------------------------------------
    def replace(self, text: str, origin: Origin, *, undoable: bool = True) -> None:
        """Put `text` in the editor as the text of `origin`, unmodified (kept as `exact_text` for
        saving and tokenizing until edited).  As one undo step unless `undoable` is False, the
        editor is empty, or the undo history holds UNDO_KEEP_CHARS of replaced texts."""
        editor, doc = self.editor, self.editor.document()
        old_chars = doc.characterCount()
        self._replacing = True
        try:
            if not undoable or doc.isEmpty() or self._undo_chars + old_chars > UNDO_KEEP_CHARS:
                editor.load_text(text)
                self._history = [[0, origin]]
                self._undo_chars = 0
            else:
                cursor = QTextCursor(doc)
                cursor.beginEditBlock()
                cursor.select(QTextCursor.SelectionType.Document)
                cursor.insertText(text, QTextCharFormat())
                cursor.endEditBlock()
                self._undo_chars += old_chars
                steps = doc.availableUndoSteps()
                self._history = [h for h in self._history if h[0] < steps] + [[steps, origin]]
                cursor.movePosition(QTextCursor.MoveOperation.Start)
                editor.setTextCursor(cursor)
                editor.ensureCursorVisible()
            doc.setModified(False)
        finally:
            self._replacing = False
        self.exact_text = text
        self._emit_if_changed()

    def ask(self, *, quitting: bool = False) -> str:
        """Ask what to do with the modified text: "save", "discard" or "cancel"."""
        return ask_save_changes(self.window, self.display_name(), quitting=quitting)

    def ask_before(self, then: Callable[[], object]) -> str:
        """Run `then` (which replaces the text) unless that would lose modified text: asks Save /
        Discard / Cancel first.  Returns "now" (`then` ran), "after save" (it runs once the save
        succeeded and if the text was not edited meanwhile) or "cancelled"."""
        return ask_before_replacing(self, then)

    # ---- saving ---------------------------------------------------------------------------------
    def can_save(self) -> bool:
        """Save writes something: not in big-file mode (its preview is the file's, unchanged)."""
        return not self.window.big.is_active()

    def save(self, *, then: Callable[[], object] | None = None) -> bool:
        """Save to the text's file (Save as for a text that is no file's).  False when nothing was
        started (cancelled, or nothing to save); `then` runs after a successful save."""
        if not self.can_save():
            return False
        if self.path is None:
            return self.save_as(then=then)
        self._write(self.path, then)
        return True

    def save_as(self, *, then: Callable[[], object] | None = None) -> bool:
        """Ask for a file and save to it (a big file: copy it there).  False when cancelled."""
        start = self.path or os.path.join(self._start_folder(), self._suggested_name())
        path = ask_save_path(self.window, start)
        if not path:
            return False
        if self.window.big.is_active():
            source = self.path
            self._start(path, lambda: copy_file(source, path), False, then)
        else:
            self._write(path, then)
        return True

    def _start_folder(self) -> str:
        recent = self.window.settings.recent_texts()
        return str(Path(recent[0]).parent) if recent else str(Path.home())

    def _suggested_name(self) -> str:
        name = self.origin.name if self.origin.path is None else Path(self.origin.path).name
        return name + ".txt" if not name.endswith(".txt") else name

    def _write(self, path: str, then) -> None:
        text = self.text_to_save()
        line_end = "\n" if self.exact_text is not None else self.origin.line_end
        self._start(path, lambda: write_text(path, text, line_end), True, then)

    def _start(self, path: str, work: Callable[[], int], is_text: bool, then) -> None:
        """Run `work` (writing `path`) on the worker; `is_text`: it writes the editor's text (not a
        copy of a big file), which then belongs to `path`."""
        edits, entry = self._edits, self._current()
        self.window.statusBar().showMessage(self.tr("Saving {name}…").format(name=Path(path).name))

        def run() -> int:
            try:
                return work()
            except OSError as exc:  # (a full disk, a missing folder: expected, said in words)
                raise TokvizError(QCoreApplication.translate("TextDocument", "cannot write the file: {reason}")
                                  .format(reason=exc.strerror or exc), path) from None

        def failed(exc: BaseException) -> None:
            reason = describe_error(exc)
            where = os.fspath(exc.path) if isinstance(exc, TokvizError) and exc.path is not None else path
            self.window.statusBar().showMessage(self.tr("The text was not saved"), 6000)
            self.window.report_error(self.tr("Could not save text"), f"{where}\n\n{reason}", path=where, reason=reason)

        self._writer.submit(run, lambda nbytes: self._saved(path, nbytes, entry if is_text else None, edits, then), failed)

    def _saved(self, path: str, nbytes: int, entry: list | None, edits: int, then) -> None:
        """`entry`: the history entry of the text written (None for a big file's copy): that text
        now belongs to `path`, whatever the editor shows meanwhile (an undo, a redo)."""
        unchanged = edits == self._edits
        if entry is not None and any(h is entry for h in self._history):
            entry[1] = replaced(entry[1], path=os.fspath(path))
            if unchanged:
                self.editor.document().setModified(False)
        self.window.settings.add_recent_text(path)
        self.window.statusBar().showMessage(
            self.tr("Saved {name} ({size} bytes)").format(name=Path(path).name, size=f"{nbytes:,}"), 6000)
        self._emit_if_changed()
        if then is not None:
            if unchanged:
                then()
            else:
                self.window.statusBar().showMessage(
                    self.tr("Saved {name}; the text changed meanwhile, so it was not replaced").format(
                        name=Path(path).name), 8000)

    def shutdown(self) -> None:
        """Wait for a save in flight (it is atomic: the file is whole either way)."""
        self._writer.shutdown(30_000)
