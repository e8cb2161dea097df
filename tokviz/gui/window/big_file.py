"""Big-file mode: a text file over BIG_FILE_BYTES (tens of MB, say) is not put in the editor whole.

* the editor shows, read-only, only the first PREVIEW_BYTES, ended at a word boundary where
  tokenization is cut-independent, so the preview's tokens are exactly the whole file's first
  tokens; the token view shows them at once;
* the whole file is encoded in the background (`workers.FileEncodeJob`, pieces of a few KB) with a
  progress bar and a Cancel button in the status bar; the window stays responsive;
* when done, the token view (virtualised: only what is on screen is laid out) shows every token of
  the whole file and the status bar its figures (tokens, chars/token, bytes/token, time and MB/s).
  Cancelling shows the tokens encoded up to that point and says where it stopped;
* going to a token past the preview (`show_region`) puts the part of the file around it in the
  editor instead (REGION_CHARS characters, from a line start), still read-only; the window's links
  between the editor and the token view count its positions from that part's start.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Slot

from ...core.gcpause import freeze_long_lived
from ...core.streaming import last_cut
from ...errors import TokvizError
from . import files
from ..widgets.click_guard import guard_clicks
from ..work.workers import EncodeResult, FileEncodeJob, FileEncodeResult, describe_error
from .headers import pane_header
from .status import plural

BIG_FILE_BYTES = 2 * 2**20  # above this a text file opens in big-file mode
PREVIEW_BYTES = 64 * 1024  # how much of a big file the editor holds
REGION_CHARS = 64 * 1024  # how much of a big file the editor holds around a token gone to
_LINE_SEARCH = 2000  # how far a region's ends may move to fall on a line start


def region_around(text: str, char: int, size: int = REGION_CHARS) -> tuple[int, int]:
    """[start, end) of about `size` characters of `text` around character `char`, its ends moved to
    line starts where one is near (so that a \\r\\n pair is never cut)."""
    start = max(0, min(char - size // 2, len(text) - size))
    end = min(len(text), start + size)
    if start > 0:
        line = text.rfind("\n", max(0, start - _LINE_SEARCH), start)
        start = line + 1 if line >= 0 else start
    if end < len(text):
        line = text.find("\n", end, end + _LINE_SEARCH)
        end = line + 1 if line >= 0 else end
    return start, end


@dataclass
class _BigFile:
    path: str
    size: int
    result: FileEncodeResult | None = None  # the whole file's encoding, once finished
    shown: FileEncodeResult | None = None  # what the token view shows (whole, or up to a cancel)
    state: str = ""  # "running", "done", "cancelled" (at `cancelled_at` percent) or "failed"
    cancelled_at: float = 0.0
    region_start: int = 0  # where the editor's text starts in the file's (a region gone to)
    region_text: str | None = None  # the editor's text when it is such a region, not the preview


class BigFileMode(QObject):
    """Big-file mode of `window` (a MainWindow): see the module docstring."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.job = FileEncodeJob(window)
        self.current: _BigFile | None = None
        self.job.progressed.connect(self._on_progress)
        self.job.finished.connect(self._on_finished)
        self.job.cancelled.connect(self._on_cancelled)
        self.job.failed.connect(self._on_failed)
        window.status.cancel_button.clicked.connect(self.cancel)
        guard_clicks(window.status.cancel_button)  # (it appears in the status bar, under the pointer maybe)

    # ---- public ---------------------------------------------------------------------------------
    def is_active(self) -> bool:
        return self.current is not None

    def result(self) -> FileEncodeResult | None:
        return self.current.result if self.current else None

    def shows_whole_file(self) -> bool:
        """True when the token view holds the whole file's tokens (or those up to a cancel)."""
        return self.current is not None and self.current.shown is not None

    def open(self, path: str | os.PathLike, size: int, head: str | None = None) -> bool:
        """Show the file's start in the editor and encode all of it in the background (`head`: the
        file's first PREVIEW_BYTES as text, when the caller has read them already).  The text it
        replaces is not an undo step (see gui/window/text_document.py)."""
        window = self.window
        if head is None:
            try:
                head = files.read_text_head(path, PREVIEW_BYTES)
            except TokvizError as exc:
                where = exc.path or os.fspath(path)
                reason = describe_error(exc)
                window.report_error(self.tr("Could not open text"), f"{where}\n\n{reason}", path=where,
                                    reason=reason)
                return False
        tok = window.controller.tokenizer
        cut = last_cut(head, tok) if tok is not None else last_cut(head)
        preview = head[:cut] if cut else head  # no cut: the last tokens may differ from the file's
        window.set_text(preview, path=path, undoable=False)
        self.current = _BigFile(os.fspath(path), size)
        window.editor.setReadOnly(True)
        window.update_text_info()
        self.start()
        return True

    def start(self) -> None:
        """Encode the whole file with the current tokenizer (again, after a new one arrives)."""
        window, big = self.window, self.current
        tok = window.controller.tokenizer
        if big is None or tok is None:
            return  # started when the tokenizer arrives
        big.result = big.shown = None
        big.state = "running"
        self._show_preview()  # (the preview's tokens show until the whole file's are there)
        self.job.start(tok, big.path)
        window.status.progress.setValue(0)
        window.status.show_progress(True)
        last = window.controller.last_result  # the preview's tokens, until the whole file's arrive
        if last is not None and last.generation == window.controller.generation and last.tokenizer is tok:
            self.show_preview_encoded(last)
        else:
            window.show_encoding(None, message=self.tr("Encoding {name} ({size} MB)…").format(
                name=Path(big.path).name, size=f"{big.size / 1e6:.1f}"))
        window.status.set_label_texts(self.tr("encoding the whole file…"), "", "")

    def leave(self) -> None:
        if self.current is None:
            return
        self.current = None
        self.job.abandon()
        self.window.status.show_progress(False)
        self.window.editor.setReadOnly(False)

    def cancel(self) -> None:
        """Stop encoding the whole file (the Cancel button); `job.cancelled` follows."""
        if self.job.is_running():
            self.job.cancel()
            self.window.status.cancel_button.setEnabled(False)

    def editor_region(self) -> tuple[int, str]:
        """(start, text): the part of the file's text the editor holds, and where it starts (the
        preview, at 0, unless a region was gone to)."""
        big = self.current
        if big is None or big.region_text is None:
            return 0, self.window.current_text()
        return big.region_start, big.region_text

    def show_region(self, text: str, char: int) -> bool:
        """Put the part of the file's `text` (the whole file's, or the part encoded before a cancel)
        around character `char` in the editor, unless it holds that character; True if it changed."""
        if self.current is None or not 0 <= char <= len(text):
            return False
        start, held = self.editor_region()
        if start <= char < start + len(held) and text.startswith(held, start):
            return False
        preview = self.window.current_text()
        if char < len(preview) and text.startswith(preview):
            self._show_preview()
            return True
        start, end = region_around(text, char)
        self._put_in_editor(text[start:end], start)
        return True

    def _show_preview(self) -> None:
        if self.current is not None and self.current.region_text is not None:
            self._put_in_editor(None, 0)

    def _put_in_editor(self, region: str | None, start: int) -> None:
        """The editor holds `region` of the file from character `start` (None: the preview)."""
        window, big = self.window, self.current
        big.region_start, big.region_text = start, region
        # The window's own change of the read-only text: not an edit, nothing to encode, no undo
        # step.
        window._setting_text = True
        try:
            window.editor.load_text(window.current_text() if region is None else region)
            window.editor.document().setModified(False)
        finally:
            window._setting_text = False
        window.update_text_info()

    def show_preview_encoded(self, result: EncodeResult) -> None:
        """Before (or without) the whole file's tokens: the preview's."""
        window, big = self.window, self.current
        window.show_encoding(result.encoding)
        ratio = time = None
        if big.state != "running":
            ratio, time = self.tr("whole file: {state}").format(state=self._state_text()), ""
        window.status.set_label_texts(self.tr("{tokens} in the preview").format(
            tokens=plural(len(result.encoding), "token")), ratio, time)

    def preview_encoded(self, result: EncodeResult) -> None:
        """The editor's preview was encoded: shown unless the whole file's tokens are."""
        if self.current is not None and self.current.shown is None:
            self.show_preview_encoded(result)

    def header(self, name: str, preview: str) -> tuple[str, str]:
        """The text pane's header (rich text) and its tooltip."""
        big = self.current
        whole = big.shown is not None and big.shown.complete
        if big.region_text is None:
            nbytes = len(preview.encode("utf-8", "surrogatepass"))
            held = self.tr("first {size} KB").format(size=f"{nbytes / 1024:.0f}")
        else:
            held = self.tr("characters {first}–{last}").format(
                first=f"{big.region_start + 1:,}", last=f"{big.region_start + len(big.region_text):,}")
        size = self.tr("{size} MB, all tokens shown") if whole else self.tr("{size} MB")
        details = " · ".join((name, size.format(size=f"{big.size / 1e6:.1f}"),
                              self.tr("editor: {held}, read-only").format(held=held)))
        text = pane_header(self.tr("Text"), details)
        tip = self.tr("A big file: the editor holds its start; the token view shows every token of the whole file "
                      "once it is encoded (or those encoded before a cancel).")
        return text, tip

    def _state_text(self) -> str:
        """The whole file's encoding, in words: done, cancelled at N%, failed, not encoded."""
        state = self.current.state
        if state == "cancelled":
            return self.tr("cancelled at {percent}%").format(percent=f"{self.current.cancelled_at:.0f}")
        if state == "done":
            return self.tr("done")
        if state == "failed":
            return self.tr("failed")
        if state == "running":
            return self.tr("encoding")
        return self.tr("not encoded")

    # ---- the job's signals ----------------------------------------------------------------------
    def _ended(self, shown: FileEncodeResult | None) -> None:
        """Show the whole file's tokens (or those encoded before a cancel), else the preview's."""
        window = self.window
        window.status.show_progress(False)
        self.current.shown = shown
        if shown is not None and len(shown.tokens):
            self._show_file_tokens(shown)
            return
        last = window.controller.last_result
        if last is not None and last.generation == window.controller.generation:
            self.show_preview_encoded(last)

    def _show_file_tokens(self, result: FileEncodeResult) -> None:
        window, big = self.window, self.current
        freeze_long_lived()
        window.show_encoding(result.tokens)
        n = len(result.tokens)
        if result.complete:
            tokens = self.tr("{tokens} in the whole file").format(tokens=plural(n, "token"))
        else:
            tokens = self.tr("{tokens} in the first {size} MB ({state})").format(
                tokens=plural(n, "token"), size=f"{result.bytes / 1e6:.1f}", state=self._state_text())
        ratio = self.tr("{chars} chars/token · {bytes} bytes/token").format(
            chars=f"{result.chars / n:.2f}", bytes=f"{result.bytes / n:.2f}") if n else ""
        mbs = result.bytes / 1e6 / result.seconds if result.seconds > 0 else 0
        window.status.set_label_texts(tokens, ratio, self.tr("encoded in {seconds} s ({speed} MB/s)").format(
            seconds=f"{result.seconds:.1f}", speed=f"{mbs:.2f}"))
        window.update_text_info()

    @Slot(int, int)
    def _on_progress(self, done: int, total: int) -> None:
        self.window.status.progress.setValue(1000 if total <= 0 else min(1000, done * 1000 // total))
        if self.current is not None:
            name = Path(self.current.path).name
            self.window.token_view.set_message(self.tr("Encoding {name}: {done} of {total} MB…").format(
                name=name, done=f"{done / 1e6:.1f}", total=f"{total / 1e6:.1f}"))

    @Slot(object)
    def _on_finished(self, result: FileEncodeResult) -> None:
        if self.current is None:
            return
        self.window.status.progress.setValue(1000)
        self.current.result = result
        self.current.state = "done"
        self._ended(result)

    @Slot(int, int)
    def _on_cancelled(self, done: int, total: int) -> None:
        if self.current is None:
            return
        self.current.state = "cancelled"
        self.current.cancelled_at = 100 * done / max(1, total)
        self._ended(self.job.partial)

    @Slot(str)
    def _on_failed(self, reason: str) -> None:
        if self.current is None:
            return
        self.current.state = "failed"
        self._ended(None)
        path = self.current.path
        self.window.report_error(self.tr("Could not encode the whole file"), f"{path}\n\n{reason}", path=path,
                                 reason=reason)
