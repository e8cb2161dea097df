"""The Ids panel: the current encoding's ids to read and copy (space- or comma-separated, or as a
JSON / Python list), and a "decode ids" box that renders pasted ids back into tokens and text."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core import Encoding, Tokenizer
from ...core.ids import STYLES, encoding_from_ids, format_ids, parse_ids
from ...errors import TokvizError
from ..widgets.messages import show
from ..widgets.style import mono_font
from ..views.token_view import TokenView

MAX_SHOWN_IDS = 10_000  # beyond this the pane shows the first ones (the Copy button copies them all);
# filling the pane is ~1.3 ms per 1,000 ids on the UI thread
STYLE_LABELS = {  # core.ids.STYLES's names, translated where shown
    "space": QT_TRANSLATE_NOOP("IdsPanel", "Space-separated"),
    "comma": QT_TRANSLATE_NOOP("IdsPanel", "Comma-separated"),
    "list": QT_TRANSLATE_NOOP("IdsPanel", "JSON / Python list"),
}


def _button(text: str, tip: str, slot) -> QToolButton:
    """A compact text button (a QPushButton asks for 80 px whatever its text)."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    button.clicked.connect(slot)
    return button


class IdsPanel(QWidget):
    """`decoded(Encoding)` after the user decoded ids (the tokens they stand for)."""

    decoded = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("IdsPanel")
        self._ids: list[int] = []
        self._ids_stale = False  # the ids changed while the panel was hidden
        self._tokenizer: Tokenizer | None = None
        font = mono_font()

        self.style_box = QComboBox()
        self.style_box.setObjectName("IdsStyle")
        for key, label in STYLES.items():
            self.style_box.addItem(QCoreApplication.translate("IdsPanel", STYLE_LABELS.get(key, label)), key)
        # As wide as its longest style when there is room, down to a few characters (elided) when
        # the dock is narrow: the panel's minimum width stays small.
        self.style_box.setMaximumWidth(self.style_box.sizeHint().width())
        self.style_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.style_box.setMinimumContentsLength(8)
        self.style_box.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.style_box.currentIndexChanged.connect(self._show_ids)
        self.copy_button = _button(self.tr("Copy"), self.tr("Copy all the ids in the chosen style"), self.copy_ids)
        self.count_label = QLabel("")
        self.count_label.setObjectName("IdsCount")
        self.count_label.setWordWrap(True)
        self.ids_view = QPlainTextEdit()
        self.ids_view.setObjectName("IdsView")
        self.ids_view.setReadOnly(True)
        self.ids_view.setFont(font)

        self.decode_input = QLineEdit()
        self.decode_input.setObjectName("DecodeInput")
        self.decode_input.setFont(font)
        self.decode_input.setPlaceholderText(self.tr("Paste ids to decode: 9906 1917  or  [9906, 1917]"))
        self.decode_input.returnPressed.connect(self.decode_input_ids)
        self.decode_button = _button(self.tr("Decode"), self.tr("Decode the ids in the box"), self.decode_input_ids)
        self.decoded_text = QLabel("")
        self.decoded_text.setObjectName("DecodedText")
        self.decoded_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.decoded_text.setWordWrap(True)
        self.decoded_tokens = TokenView()
        self.decoded_tokens.setObjectName("DecodedTokens")
        self.decoded_tokens.setFont(font)
        self.decoded_tokens.set_message(self.tr("Decoded ids appear here as tokens."))

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.style_box, 1)
        top.addWidget(self.copy_button)
        top.addStretch(0)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(3)
        left_layout.addLayout(top)
        left_layout.addWidget(self.count_label)
        left_layout.addWidget(self.ids_view, 1)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.decode_input, 1)
        row.addWidget(self.decode_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(3)
        right_layout.addLayout(row)
        right_layout.addWidget(self.decoded_text)
        right_layout.addWidget(self.decoded_tokens, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setSizes([500, 500])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

    # ---- public ---------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer: Tokenizer | None) -> None:
        self._tokenizer = tokenizer

    def set_encoding(self, encoding: Encoding | None) -> None:
        self._ids = encoding.ids if encoding is not None else []  # (a big document's stay an array)
        if self.isVisible():
            self._show_ids()
        else:  # (laying out 10,000 ids on every keystroke for a closed dock: shown when it opens)
            self._ids_stale = True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._ids_stale:
            self._show_ids()

    def style(self) -> str:
        return self.style_box.currentData()

    def ids_text(self) -> str:
        """All the ids in the chosen style (what Copy puts on the clipboard)."""
        return format_ids(self._ids, self.style())

    def copy_ids(self) -> None:
        QGuiApplication.clipboard().setText(self.ids_text())

    def decode_input_ids(self) -> Encoding | None:
        """Decode what the input box holds; shows the text and tokens, or says what is wrong."""
        if self._tokenizer is None:
            self._say(self.tr("No tokenizer loaded."))
            return None
        try:
            ids = parse_ids(self.decode_input.text())
            encoding = encoding_from_ids(self._tokenizer, ids)
            text = self._tokenizer.decode(ids)
        except TokvizError as exc:
            self._say(show(exc.reason))
            self.decoded_tokens.set_encoding(None)
            self.decoded_tokens.set_message("")
            return None
        self.decoded_text.setProperty("error", False)
        self.decoded_text.setText(self.tr("{count} ids → {text}").format(count=len(ids), text=repr(text)))
        self.decoded_text.setToolTip(text)
        self.decoded_tokens.set_encoding(encoding)
        self.decoded.emit(encoding)
        return encoding

    # ---- internals ------------------------------------------------------------------------------
    def _show_ids(self) -> None:
        self._ids_stale = False
        ids = self._ids
        shown = [int(i) for i in ids[:MAX_SHOWN_IDS]]
        self.ids_view.setPlainText(format_ids(shown, self.style()))
        if len(ids) > MAX_SHOWN_IDS:
            self.count_label.setText(self.tr("{count} ids (the first {shown} shown)").format(
                count=f"{len(ids):,}", shown=f"{MAX_SHOWN_IDS:,}"))
        else:
            self.count_label.setText(self.tr("{count} ids").format(count=f"{len(ids):,}"))

    def _say(self, message: str) -> None:
        self.decoded_text.setText(message)
        self.decoded_text.setToolTip("")
