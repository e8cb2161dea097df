"""The status bar: the tokenizer, the token count, characters and bytes per token, the encode time,
a warning when the text holds a script no installed font shows, and, while a big file is encoded,
its progress and a Cancel button."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QFrame, QLabel, QProgressBar, QStatusBar, QToolButton

# word -> (one, several): the counts the window shows, translated where shown
_COUNTS = {
    "token": (QT_TRANSLATE_NOOP("Status", "{n} token"), QT_TRANSLATE_NOOP("Status", "{n} tokens")),
    "char": (QT_TRANSLATE_NOOP("Status", "{n} char"), QT_TRANSLATE_NOOP("Status", "{n} chars")),
    "byte": (QT_TRANSLATE_NOOP("Status", "{n} byte"), QT_TRANSLATE_NOOP("Status", "{n} bytes")),
}


def plural(n: int, word: str) -> str:
    """`n` `word`s ("token", "char" or "byte"), in the app's language: "1 token", "1,234 tokens"."""
    one, several = _COUNTS[word]
    return QCoreApplication.translate("Status", one if n == 1 else several).format(n=f"{n:,}")


class StatusFields:
    """The labels and controls added to `bar` (a QMainWindow's status bar)."""

    def __init__(self, bar: QStatusBar):
        self.bar = bar
        bar.setSizeGripEnabled(False)
        self.font_warning = QLabel()
        self.font_warning.setObjectName("StatusFontWarning")
        self.font_warning.setMinimumWidth(80)
        self.font_warning.setMaximumWidth(420)
        self.font_warning.hide()
        self.tokenizer = QLabel()
        self.tokenizer.setObjectName("StatusTokenizer")
        self.tokens = QLabel()
        self.ratio = QLabel()
        self.time = QLabel()
        bar.addPermanentWidget(self.font_warning)
        for k, label in enumerate((self.tokenizer, self.tokens, self.ratio, self.time)):
            if k:
                sep = QFrame()
                sep.setFrameShape(QFrame.Shape.VLine)
                sep.setObjectName("StatusSeparator")
                bar.addPermanentWidget(sep)
            # the full text when there is room; an explicit minimum (not the text's width) lets a
            # narrow window cut it instead of growing
            label.setMinimumWidth(40)
            bar.addPermanentWidget(label)
        self.progress = QProgressBar()
        self.progress.setObjectName("FileProgress")
        self.progress.setRange(0, 1000)
        self.progress.setFormat("%p%")
        self.progress.setFixedWidth(140)
        self.progress.setMaximumHeight(16)
        self.cancel_button = QToolButton()
        self.cancel_button.setObjectName("FileCancel")
        self.cancel_button.setText(QCoreApplication.translate("Status", "Cancel"))
        self.cancel_button.setToolTip(QCoreApplication.translate("Status", "Stop encoding the whole file (the preview stays)"))
        bar.insertPermanentWidget(0, self.cancel_button)
        bar.insertPermanentWidget(0, self.progress)
        self.show_progress(False)

    def show_progress(self, on: bool) -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)
        if on:
            self.cancel_button.setEnabled(True)

    def set_label_texts(self, tokens: str | None = None, ratio: str | None = None, time: str | None = None) -> None:
        for label, text in ((self.tokens, tokens), (self.ratio, ratio), (self.time, time)):
            if text is not None:
                label.setText(text)
                label.setToolTip(text)

    def set_tokenizer_name(self, name: str) -> None:
        self.tokenizer.setText(name)
        self.tokenizer.setToolTip(name)

    def set_font_warning(self, message: str) -> None:
        """Say which scripts of the text no installed font can show ('' hides the warning)."""
        self.font_warning.setText(f"⚠ {message}" if message else "")
        self.font_warning.setToolTip(message)
        self.font_warning.setVisible(bool(message))

    def text(self) -> str:
        """Everything the fields show, for tests and screenshots."""
        parts = [self.font_warning.text(), self.tokenizer.text(), self.tokens.text(), self.ratio.text(),
                 self.time.text()]
        return " | ".join(p for p in parts if p)
