"""File ▸ Export tokenizer…: write the open tokenizer in any format that can hold it.

Every format of `tokviz.formats.WRITE_FORMATS` is a choice; one that cannot hold this tokenizer
exactly is disabled, and the reason (`formats.writers.can_write`) is written right under it.  The
reasons are worked out on a worker: checking tiktoken's ranking takes about a second for a big
vocabulary.  "Scrub" removes training metadata such as corpus paths (sentencepiece .model).  The
save dialog asks before replacing a file; the write is atomic.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QLabel,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ..errors import TokvizError
from ..formats.writers import WRITE_FORMATS, can_write, save_files
from .workers import TaskRunner

REASON_INDENT = 24  # a reason starts under its choice's text, past the radio button


class ExportDialog(QDialog):
    """See the module docstring.  `reasons` (format -> None or why not), `choices` and
    `reason_labels` (format -> widget), `selected_format()`, `export(path, format)`; `written`."""

    def __init__(self, tokenizer, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export tokenizer")
        self.tokenizer = tokenizer
        self.written: list[Path] = []
        self.written_format: str | None = None
        self.reasons: dict[str, str | None] = {}
        self.choices: dict[str, QRadioButton] = {}
        self.reason_labels: dict[str, QLabel] = {}
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        self._group.buttonToggled.connect(lambda *_: self._selection_changed())

        listing = QWidget()
        column = QVBoxLayout(listing)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(2)
        for name, fmt in WRITE_FORMATS.items():
            choice = QRadioButton(f"{fmt.label}   (checking…)")
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
        scroll.setWidget(listing)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.StyledPanel)

        self.reason = QLabel("")  # (what went wrong writing, if it did)
        self.reason.setWordWrap(True)
        self.scrub = QCheckBox("Scrub training metadata (corpus paths and the like)")
        self.scrub.setChecked(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._ask_path)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Write <b>{tokenizer.source.name or 'the tokenizer'}</b> as:"))
        layout.addWidget(scroll, 1)
        layout.addWidget(self.reason)
        layout.addWidget(self.scrub)
        layout.addWidget(self.buttons)
        self.resize(560, 560)
        self._runner = TaskRunner(1, self)
        self._runner.submit(self._check_all, self._checked)

    def _check_all(self) -> dict[str, str | None]:  # on a worker
        out = {}
        for name in WRITE_FORMATS:
            try:
                out[name] = can_write(self.tokenizer, name)
            except TokvizError as exc:
                out[name] = exc.reason
        return out

    def _checked(self, reasons: dict[str, str | None]) -> None:
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
                choice.setToolTip(reason)
                why.setText(f"Cannot hold this tokenizer: {reason}")
                why.show()
        if first is not None:
            first.setChecked(True)
        self._selection_changed()

    def _selection_changed(self) -> None:
        name = self.selected_format()
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(
            name is not None and name in self.reasons and self.reasons[name] is None)
        self.reason.setText("")

    def selected_format(self) -> str | None:
        for name, choice in self.choices.items():
            if choice.isChecked():
                return name
        return None

    def export(self, path, format: str | None = None) -> list[Path]:
        """Write to `path` in `format` (default: the selected one); a file there is replaced (the
        save dialog asked)."""
        fmt = format or self.selected_format()
        self.written = save_files(self.tokenizer, path, format=fmt, scrub=self.scrub.isChecked(), overwrite=True)
        self.written_format = fmt
        return self.written

    def _ask_path(self) -> None:
        fmt = self.selected_format()
        if fmt is None:
            return
        info = WRITE_FORMATS[fmt]
        if not info.suffixes:  # a folder of files (vocab.json + merges.txt)
            path = QFileDialog.getExistingDirectory(self, f"Folder for {info.label}")
        else:
            path, _ = QFileDialog.getSaveFileName(self, f"Save as {info.label}", info.default_name or "",
                                                  f"{info.label} (*{' *'.join(info.suffixes)})")
        if not path:
            return
        try:
            self.export(path, fmt)
        except TokvizError as exc:
            self.reason.setText(str(exc))
            return
        self.accept()

    def done(self, result: int) -> None:
        self._runner.shutdown(2000)
        super().done(result)
