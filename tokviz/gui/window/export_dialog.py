"""File ▸ Export tokenizer…: write the open tokenizer in any format that can hold it.

Every format of `tokviz.formats.WRITE_FORMATS` is a choice; one that cannot hold this tokenizer
exactly is disabled, and the reason (`formats.writers.can_write`) is written right under it.  The
reasons are worked out on a worker: checking tiktoken's ranking takes seconds for a big
vocabulary.  "Scrub" removes training metadata such as corpus paths (sentencepiece .model).  The
save dialog asks before replacing a file; the file is written on a worker, atomically.

The dialog is deleted when it closes, whichever way (Save, Cancel, Escape, the title bar), and
never waits for its workers: they run on `background_runner()`, which outlives every dialog.  A
check still running when it closes stops at the next format and its result is dropped; a write
still running is cancelled (`atomic_write.stop_on`: the old file stays, no temporary file is
left), and the dialog is deleted once the write has stopped, or reported a write that had already
been completed.
"""
from __future__ import annotations

import html
import os
import threading
import weakref
from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QLabel,
    QProgressBar,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ...errors import TokvizError
from ...formats.atomic_write import stop_on
from ...formats.writers import WRITE_FORMATS, can_write, save_files
from ..widgets.messages import show
from ..work.workers import TaskRunner, describe_error, error_text

REASON_INDENT = 24  # a reason starts under its choice's text, past the radio button

_runner: TaskRunner | None = None


def background_runner() -> TaskRunner:
    """The pool the export dialogs' checks and writes run on, for the application's lifetime: a
    dialog that owned its pool would wait for the pool's threads when deleted."""
    global _runner
    if _runner is None or not shiboken6.isValid(_runner):
        _runner = TaskRunner(2, QCoreApplication.instance())
    return _runner


def writable_formats(tokenizer, stop: threading.Event) -> dict[str, str | None] | None:
    """Format name -> None if it can hold `tokenizer`, else the reason; None once `stop` is set."""
    out = {}
    for name in WRITE_FORMATS:
        if stop.is_set():
            return None
        try:
            out[name] = can_write(tokenizer, name)
        except TokvizError as exc:
            out[name] = exc.reason
    return out


def _on_dialog(dialog: ExportDialog, method: str, *first):
    """A callback for a worker's outcome: `dialog.method(*first, outcome)` while Qt has not
    deleted the dialog, else nothing.  It holds the dialog weakly."""
    ref = weakref.ref(dialog)

    def call(outcome) -> None:
        target = ref()
        if target is not None and shiboken6.isValid(target):
            getattr(target, method)(*first, outcome)

    return call


class ExportDialog(QDialog):
    """See the module docstring.  `reasons` (format -> None or why not), `choices` and
    `reason_labels` (format -> widget), `selected_format()`, `start_export(path, format)` (on a
    worker; `is_writing()`), `export(path, format)` (waits); `written`, `written_format`.

    `exported(tokenizer, paths, format)` is emitted for every completed write."""

    exported = Signal(object, list, str)

    def __init__(self, tokenizer, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export tokenizer"))
        self.tokenizer = tokenizer
        self.written: list[Path] = []
        self.written_format: str | None = None
        self.reasons: dict[str, str | None] = {}
        self.choices: dict[str, QRadioButton] = {}
        self.reason_labels: dict[str, QLabel] = {}
        self._closed = threading.Event()  # set as it closes: the check stops, its result is dropped
        self._write_stop: threading.Event | None = None  # the write in flight's
        self._last_path: dict[str, str] = {}  # format -> the path last chosen for it
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        self._group.buttonToggled.connect(self._selection_changed)

        self._listing = QWidget()
        column = QVBoxLayout(self._listing)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(2)
        for name, fmt in WRITE_FORMATS.items():
            choice = QRadioButton(self.tr("{format}   (checking…)").format(format=fmt.label))
            choice.setEnabled(False)
            self._group.addButton(choice)
            self.choices[name] = choice
            why = QLabel()
            why.setWordWrap(True)
            why.setContentsMargins(REASON_INDENT, 0, 0, 4)
            why.hide()
            self.reason_labels[name] = why
            column.addWidget(choice)
            column.addWidget(why)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(self._listing)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.StyledPanel)

        self.reason = QLabel("")  # (what went wrong writing, if it did)
        self.reason.setWordWrap(True)
        self.writing = QLabel("")  # (the file being written)
        self.writing.setWordWrap(True)
        self.writing.hide()
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # (busy: a write reports no steps)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.scrub = QCheckBox(self.tr("Scrub training metadata (corpus paths and the like)"))
        self.scrub.setChecked(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._ask_path)
        self.buttons.rejected.connect(self.reject)
        self._save_button().setEnabled(False)
        layout = QVBoxLayout(self)
        name = html.escape(tokenizer.source.name) if tokenizer.source.name else self.tr("the tokenizer")
        title = QLabel(self.tr("Write <b>{name}</b> as:").format(name=name))
        layout.addWidget(title)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.reason)
        layout.addWidget(self.writing)
        layout.addWidget(self.progress)
        layout.addWidget(self.scrub)
        layout.addWidget(self.buttons)
        self.resize(560, 560)
        closed = self._closed
        background_runner().submit(lambda: writable_formats(tokenizer, closed), _on_dialog(self, "_checked"),
                                   _on_dialog(self, "_check_failed"), is_current=lambda: not closed.is_set())

    def _save_button(self):
        return self.buttons.button(QDialogButtonBox.StandardButton.Save)

    def _checked(self, reasons: dict[str, str | None] | None) -> None:
        if reasons is None or self._closed.is_set():
            return
        self.reasons = reasons
        first = None
        for name, choice in self.choices.items():
            reason = reasons.get(name)
            choice.setText(WRITE_FORMATS[name].label)
            choice.setEnabled(reason is None)
            why = self.reason_labels[name]
            if reason is None:
                first = first or choice
                why.hide()
            else:
                choice.setToolTip(show(reason))
                why.setText(self.tr("Cannot hold this tokenizer: {reason}").format(reason=show(reason)))
                why.show()
        if first is not None:
            first.setChecked(True)
        self._selection_changed()

    def _check_failed(self, exc: BaseException) -> None:
        if not self._closed.is_set():
            self.reason.setText(self.tr("Could not check which formats can hold it: {reason}").format(
                reason=describe_error(exc)))

    def _selection_changed(self, *_) -> None:
        name = self.selected_format()
        self._save_button().setEnabled(
            not self.is_writing() and name is not None and name in self.reasons and self.reasons[name] is None)
        self.reason.setText("")

    def selected_format(self) -> str | None:
        for name, choice in self.choices.items():
            if choice.isChecked():
                return name
        return None

    def export(self, path, format: str | None = None) -> list[Path]:
        """Write to `path` in `format` (default: the selected one) and wait for it; a file there is
        replaced.  For scripts and tests: Save writes on a worker (`start_export`)."""
        fmt = format or self.selected_format()
        written = save_files(self.tokenizer, path, format=fmt, scrub=self.scrub.isChecked(), overwrite=True)
        self._record(fmt, written)
        return written

    def start_export(self, path, format: str | None = None) -> None:
        """Write to `path` in `format` (default: the selected one) on a worker, replacing a file
        there.  The dialog shows the write; `exported` and closing follow, or the reason why not
        shows under the choices, which stay as they were."""
        if self.is_writing() or self._closed.is_set():
            return
        fmt = format or self.selected_format()
        path = os.fspath(path)
        self._last_path[fmt] = path
        tokenizer, scrub = self.tokenizer, self.scrub.isChecked()
        stop = self._write_stop = threading.Event()

        def write() -> list[Path]:  # on a worker
            with stop_on(stop):
                return save_files(tokenizer, path, format=fmt, scrub=scrub, overwrite=True)

        self._show_writing(path)
        background_runner().submit(write, _on_dialog(self, "_write_done", fmt), _on_dialog(self, "_write_failed"))

    def is_writing(self) -> bool:
        """A write is under way (from `start_export` until it has reported)."""
        return self._write_stop is not None

    def _show_writing(self, path: str | None) -> None:
        busy = path is not None
        self._listing.setEnabled(not busy)
        self.scrub.setEnabled(not busy)
        self.writing.setText(self.tr("Writing {path}…").format(path=path) if busy else "")
        self.writing.setVisible(busy)
        self.progress.setVisible(busy)
        if busy:
            self.reason.setText("")
            self._save_button().setEnabled(False)
        else:
            self._selection_changed()

    def _write_done(self, fmt: str, written: list[Path]) -> None:
        self._write_stop = None
        self._record(fmt, written)
        if self._closed.is_set():  # (cancelled too late: the file is written all the same)
            self._finish()
        else:
            self.accept()

    def _write_failed(self, exc: BaseException) -> None:
        self._write_stop = None
        if self._closed.is_set():
            self._finish()
            return
        self._show_writing(None)
        self.reason.setText(error_text(exc))

    def _record(self, fmt: str, written: list[Path]) -> None:
        self.written, self.written_format = written, fmt
        self.exported.emit(self.tokenizer, written, fmt)

    def _ask_path(self) -> None:
        fmt = self.selected_format()
        if fmt is None or self.is_writing():
            return
        info = WRITE_FORMATS[fmt]
        last = self._last_path.get(fmt)
        if not info.suffixes:  # a folder of files (vocab.json + merges.txt)
            # (short titles: a window manager cuts a long one, and the format is said in the dialog)
            path = QFileDialog.getExistingDirectory(self, self.tr("Export to a folder"), last or "")
        else:
            path, _ = QFileDialog.getSaveFileName(
                self, self.tr("Save tokenizer as"), last or info.default_name or "",
                f"{info.label} (*{' *'.join(info.suffixes)})")
        if path:
            self.start_export(path, fmt)

    def done(self, result: int) -> None:
        """Close (hidden at once) and be deleted; a write in flight is cancelled first."""
        self._closed.set()
        if self._write_stop is not None:
            self._write_stop.set()
        super().done(result)
        if self._write_stop is None:
            self._finish()

    def _finish(self) -> None:
        self.tokenizer = None  # (the wrapper may outlive the dialog: it must not keep the tokenizer)
        self.deleteLater()
