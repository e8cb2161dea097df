"""The explorer's text: the first one (the session's, a file's or the sample text), opening a text file
(a big one in big-file mode), putting a text in the editor, saving it, and files dropped on the window.

`TextLoading` is a part of `MainWindow` (a mixin: its methods are the window's)."""
from __future__ import annotations

import os

from PySide6.QtCore import Slot

from ... import defaults
from ...errors import TokvizError
from . import big_file, files
from ..work.workers import describe_error
from .text_document import SAMPLE_TEXT, Origin, line_end_of

FALLBACK_TEXT = "Hello, world! 你好，世界 🙂\n\tTabs, spaces  and newlines are tokens too.\n"


class TextLoading:
    """Opening, setting and saving the editor's text."""

    def _open_start_text(self, text: str | None, text_file, origin: Origin | None) -> None:
        """The first text: `text` (of `origin`, if given), else `text_file`'s, else the sample text."""
        if text is None and text_file is not None:
            if not self._open_text_now(text_file):
                text = ""
        if text is None and text_file is None:
            try:
                text = defaults.sample_text()
                origin = Origin(name=SAMPLE_TEXT)
            except OSError:
                text = FALLBACK_TEXT
        if text is not None:
            self.set_text(text, origin=origin)

    def open_text_file(self, path: str | os.PathLike) -> bool:
        """Replace the text with a UTF-8 file's, asking first (Save / Discard / Cancel) when the text
        is modified.  True when the file is open now; False when it cannot be read (reported), the
        user cancelled, or it opens once the text is saved."""
        return self._open_text_asking(path) == "opened"

    def _open_text_asking(self, path) -> str:
        """open_text_file's outcome: "opened", "failed", "cancelled" or "after save"."""
        contents = self._read_text_file(path)
        if contents is None:
            return "failed"
        opened = []
        outcome = self.document.ask_before(lambda: opened.append(self._show_text_file(path, *contents)))
        return ("opened" if opened[0] else "failed") if outcome == "now" else outcome

    def _open_text_now(self, path) -> bool:
        """Replace the text with a UTF-8 file's without asking; False (reported) if it cannot be read."""
        contents = self._read_text_file(path)
        return contents is not None and self._show_text_file(path, *contents)

    def _read_text_file(self, path) -> tuple[str, int] | None:
        """(text, size) of a text file (a big file's: its start), or None with the error reported.
        A file over BIG_FILE_BYTES opens in big-file mode (gui/window/big_file.py)."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        try:
            text = files.read_text_head(path, big_file.PREVIEW_BYTES) if size > big_file.BIG_FILE_BYTES else files.read_text_file(path)
        except TokvizError as exc:
            where = exc.path or os.fspath(path)
            reason = describe_error(exc)
            self.report_error(self.tr("Could not open text"), f"{where}\n\n{reason}", path=where, reason=reason)
            return None
        return text, size

    def _show_text_file(self, path, text: str, size: int) -> bool:
        if size > big_file.BIG_FILE_BYTES:
            opened = self.big.open(path, size, head=text)
        else:
            self.set_text(text, origin=Origin(os.fspath(path), line_end=line_end_of(text)))
            opened = True
        if opened:
            self.settings.add_recent_text(path)
        return opened

    def set_text(self, text: str, *, path: str | os.PathLike | None = None, origin: Origin | None = None,
                 undoable: bool = True) -> None:
        """Put `text` in the editor, unmodified, without asking (File ▸ Open and drops ask first:
        `open_text_file`); it is encoded at once.  `origin` (or `path`) says whose text it is
        (default: untitled).  One undo step unless `undoable` is False.  Leaves big-file mode."""
        if origin is None:
            origin = Origin(os.fspath(path), line_end=line_end_of(text)) if path is not None else Origin()
        undoable = undoable and not self.big.is_active()  # (see gui/window/text_document.py)
        self.big.leave()
        self._setting_text = True
        try:
            self.document.replace(text, origin, undoable=undoable)
        finally:
            self._setting_text = False
        self.link.cursor_moved_by_user = False
        self.controller.set_text(text)
        self.update_text_info()

    def current_text(self) -> str:
        """The text being tokenized: the opened file's exact text until it is edited, else the editor's."""
        if self.document.exact_text is not None:
            return self.document.exact_text
        return self.editor_text()

    def editor_text(self) -> str:
        return self.editor.text()

    def text_path(self) -> str | None:
        return self.document.path

    def unsaved_text(self) -> str | None:
        """The text to keep with the session: None when its file holds it (opened or saved, not
        modified since), else the editor's."""
        if self.big.is_active() or (self.document.path is not None and not self.document.is_modified()):
            return None
        return self.editor_text()

    def save_text(self) -> bool:
        """File ▸ Save text: to the text's file (else as Save text as…); False when nothing started."""
        return self.document.save()

    def save_text_as(self) -> bool:
        """File ▸ Save text as…: ask for a file and write the text there (a big file: copy it)."""
        return self.document.save_as()

    def handle_dropped_paths(self, paths: list[str | os.PathLike]) -> None:
        """Tokenizer files/folders are loaded (the last one wins); the first text file is opened,
        asking first when the text is modified (Cancel drops nothing at all)."""
        tokenizer_paths, text_paths = [], []
        for p in paths:
            (tokenizer_paths if files.classify_path(p) == files.TOKENIZER else text_paths).append(p)
        if text_paths and self._open_text_asking(text_paths[0]) == "cancelled":
            return
        if tokenizer_paths:
            self.open_tokenizer(tokenizer_paths[-1])

    @Slot()
    def _on_text_edited(self) -> None:
        if self._setting_text:
            return
        self.document.exact_text = None  # edited: the editor is the truth now
        self.controller.set_text(self.editor_text())
        self.update_text_info()
