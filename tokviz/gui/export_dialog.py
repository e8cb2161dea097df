"""File ▸ Export tokenizer…: write the open tokenizer in any format that can hold it.

Every format of `tokviz.formats.WRITE_FORMATS` is listed; one that cannot hold this tokenizer
exactly is disabled, its reason in the tooltip and below the list (the reasons are worked out on a
worker: checking tiktoken's ranking takes about a second for a big vocabulary).  "Scrub" removes
training metadata such as corpus paths (sentencepiece .model).  The save dialog asks before
replacing a file; the write is atomic.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
)

from ..errors import TokvizError
from ..formats.writers import WRITE_FORMATS, can_write, save_files
from .workers import TaskRunner


class ExportDialog(QDialog):
    def __init__(self, tokenizer, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export tokenizer")
        self.tokenizer = tokenizer
        self.written: list[Path] = []
        self.reasons: dict[str, str | None] = {}
        self.formats = QListWidget()
        for name, fmt in WRITE_FORMATS.items():
            item = QListWidgetItem(f"{fmt.label}   (checking…)")
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.formats.addItem(item)
        self.formats.currentItemChanged.connect(self._show_reason)
        self.reason = QLabel("")
        self.reason.setWordWrap(True)
        self.scrub = QCheckBox("Scrub training metadata (corpus paths and the like)")
        self.scrub.setChecked(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._ask_path)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Write <b>{tokenizer.source.name or 'the tokenizer'}</b> as:"))
        layout.addWidget(self.formats)
        layout.addWidget(self.reason)
        layout.addWidget(self.scrub)
        layout.addWidget(self.buttons)
        self.resize(520, 420)
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
        for k in range(self.formats.count()):
            item = self.formats.item(k)
            name = item.data(Qt.ItemDataRole.UserRole)
            reason = reasons.get(name)
            item.setText(WRITE_FORMATS[name].label)
            if reason is None:
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                first = first if first is not None else item
            else:
                item.setToolTip(reason)
        if first is not None:
            self.formats.setCurrentItem(first)

    def _show_reason(self, item) -> None:
        name = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(name is not None
                                                                              and self.reasons.get(name) is None)
        self.reason.setText("" if name is None else (self.reasons.get(name) or ""))

    def selected_format(self) -> str | None:
        item = self.formats.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def export(self, path, format: str | None = None) -> list[Path]:
        """Write to `path` in `format` (default: the selected one); a file there is replaced (the
        save dialog asked)."""
        fmt = format or self.selected_format()
        self.written = save_files(self.tokenizer, path, format=fmt, scrub=self.scrub.isChecked(), overwrite=True)
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
