"""The dialogs behind the menus: the file dialogs of File ▸ Open, Edit ▸ Go to token, Encode ▸ Max
length, Help ▸ About, and File ▸ Open recent filled when shown.

`MenuDialogs` is a part of `MainWindow` (a mixin: its methods are the window's)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QLabel, QMessageBox, QStyle, QWidget

from .about import about_html

TITLE_BUTTONS = 150  # room a window manager's title bar takes besides the title (icon, buttons), about


def title_width(widget: QWidget, title: str) -> int:
    """How wide a dialog titled `title` must be for a window manager to show its whole title (with
    " — tokviz" after it, as Qt adds the application's name), at most the screen's width."""
    shown = f"{title} — {QApplication.applicationDisplayName() or 'tokviz'}"
    # (title bars often use a bold or bigger font than the dialog's: a fifth more, to be safe)
    width = int(widget.fontMetrics().horizontalAdvance(shown) * 1.2) + TITLE_BUTTONS
    screen = widget.screen() or QApplication.primaryScreen()
    return min(width, screen.availableGeometry().width() - 40) if screen is not None else width


def fit_title(dialog: QWidget) -> None:
    """Make `dialog` wide enough for its title (see `title_width`).  A QInputDialog sizes itself to
    its layout (Qt's SetMinAndMaxSize), so its label is made that wide instead."""
    width = title_width(dialog, dialog.windowTitle())
    label = dialog.findChild(QLabel) if isinstance(dialog, QInputDialog) else None
    if label is not None:
        margin = dialog.style().pixelMetric(QStyle.PixelMetric.PM_LayoutLeftMargin)
        label.setMinimumWidth(max(label.minimumWidth(), width - 2 * margin))
    dialog.setMinimumWidth(max(dialog.minimumWidth(), width))


def ask_int(parent, title: str, label: str, value: int, low: int, high: int) -> tuple[int, bool]:
    """QInputDialog.getInt, with the dialog wide enough for its title: (the number, accepted)."""
    dialog = QInputDialog(parent)
    dialog.setInputMode(QInputDialog.InputMode.IntInput)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setIntRange(low, high)
    dialog.setIntValue(value)
    fit_title(dialog)
    try:
        accepted = bool(dialog.exec())
        return dialog.intValue(), accepted
    finally:
        dialog.deleteLater()


def _filters(*pairs: tuple[str, str]) -> str:
    """A file dialog's filter string: each (translated description, patterns), then All files."""
    return ";;".join([f"{what} ({patterns})" for what, patterns in pairs]
                     + [QCoreApplication.translate("MenuDialogs", "All files") + " (*)"])


class MenuDialogs:
    """The questions the menus ask."""

    def _start_dir(self) -> str:
        for p in (self.controller.tokenizer_path, self.document.path):
            if p:
                return str(Path(p).parent)
        return str(Path.home())

    def ask_open_tokenizer(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open tokenizer"), self._start_dir(),
            _filters((self.tr("Tokenizers"), "*.json *.tiktoken *.model *.txt *.gguf")))
        if path:
            self.open_tokenizer(path)

    def ask_open_tokenizer_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Open tokenizer folder"), self._start_dir())
        if path:
            self.open_tokenizer(path)

    def ask_open_text(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open text"), self._start_dir(),
            _filters((self.tr("Text files"), "*.txt *.md *.rst *.py *.json *.csv *.tsv *.html *.xml")))
        if path:
            self.open_text_file(path)

    def ask_goto_token(self) -> None:
        enc = self.token_view.encoding()
        if enc is None or not len(enc):
            self.statusBar().showMessage(self.tr("No tokens to go to"), 6000)
            return
        if self.big.is_active() and not self.big.shows_whole_file():
            label = self.tr("Token number in the preview (1–{count}; the whole file's once it is encoded):")
        else:
            label = self.tr("Token number (1–{count}):")
        index, ok = ask_int(self, self.tr("Go to token"), label.format(count=f"{len(enc):,}"),
                            max(1, self.token_view.current_token() + 1), 1, len(enc))
        if ok and not self.goto_token(index - 1):  # (the tokens changed while the dialog was open)
            self.statusBar().showMessage(self.tr("There is no token {number} now").format(number=f"{index:,}"), 6000)

    def ask_max_length(self) -> None:
        value, ok = ask_int(self, self.tr("Max length"), self.tr("Max length in tokens (0: none):"),
                            self._max_length or 0, 0, 10_000_000)
        if ok:
            self.set_max_length(value)

    def show_about(self) -> QMessageBox:
        box = QMessageBox(self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # (one per use: none left behind)
        box.setWindowTitle(self.tr("About tokviz"))
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(about_html())
        box.setIcon(QMessageBox.Icon.Information)
        box.open()
        return box

    def fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        tokenizers, texts = self.settings.recent_tokenizers(), self.settings.recent_texts()
        for found in tokenizers:
            action = menu.addAction(f"{found.name}   ({found.format})")
            action.setToolTip(str(found.path))
            action.triggered.connect(lambda _=False, f=found: self.open_found(f))
        if tokenizers and texts:
            menu.addSeparator()
        for path in texts:
            action = menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_text_file(p))
        if not tokenizers and not texts:
            menu.addAction(self.tr("Nothing opened yet")).setEnabled(False)
