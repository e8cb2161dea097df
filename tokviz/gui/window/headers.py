"""The window's title and the headers over the text and the tokens (name, size, the tokenizer's
format and vocabulary), updated as the text, its file or the tokenizer change.

`Headers` is a part of `MainWindow` (a mixin: its methods are the window's)."""
from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP

from .status import plural

# what the tokenizer header's tooltip lists, by Tokenizer.describe()'s keys
DESCRIBED = {
    "path": QT_TRANSLATE_NOOP("Headers", "path"),
    "format": QT_TRANSLATE_NOOP("Headers", "format"),
    "model": QT_TRANSLATE_NOOP("Headers", "model"),
    "vocab_size": QT_TRANSLATE_NOOP("Headers", "vocabulary size"),
    "normalizer": QT_TRANSLATE_NOOP("Headers", "normalizer"),
    "pre_tokenizer": QT_TRANSLATE_NOOP("Headers", "pre-tokenizer"),
    "post_processor": QT_TRANSLATE_NOOP("Headers", "post-processor"),
    "decoder": QT_TRANSLATE_NOOP("Headers", "decoder"),
}


def _escape(s: str) -> str:
    return html.escape(s, quote=False)


def pane_header(title: str, details: str, *, gap: str = "&nbsp;&nbsp;", colour: str = "#5b6675") -> str:
    """A pane header's rich text: `title` (plain text) in bold, then `details` (rich text) in grey."""
    return f"<b>{_escape(title)}</b>{gap}<span style='color:{colour}'>{details}</span>"


class Headers:
    """The window title and the two pane headers."""

    def update_text_info(self) -> None:
        """The text's header (name, size) and the window title, after the text changed."""
        self._update_text_header()
        self._update_title()

    def _update_title(self) -> None:
        tok = self.controller.tokenizer
        # (Qt adds " — tokviz", the application's display name, to the title the window manager shows)
        parts = [self._tok_name(tok) if tok else None, self.document.display_name() + "[*]"]
        self.setWindowTitle(" — ".join(p for p in parts if p))
        self.setWindowModified(self.document.is_modified())
        self.action_save_text.setEnabled(self.document.can_save())

    def _update_header(self) -> None:
        tok = self.controller.tokenizer
        if tok is None:
            self.tokenizer_header.setText(pane_header(self.tr("Tokens"), "· " + _escape(self.tr("no tokenizer")),
                                                      gap=" ", colour="#6f7b8a"))
            self.status.set_tokenizer_name(self.tr("no tokenizer"))
            return
        info = tok.describe()
        bits = [info.get("format"), info.get("model")]
        if info.get("byte_level"):
            bits.append(self.tr("byte-level"))
        bits.append(self.tr("vocabulary {size}").format(size=f"{int(info.get('vocab_size') or tok.vocab_size):,}"))
        if info.get("normalizer"):
            norm = str(info["normalizer"])
            bits.append(self.tr("normalizer {normalizer}").format(
                normalizer=norm if len(norm) <= 40 else norm[:39] + "…"))
        if self.unsaved.find(tok.source.path) is not None or id(tok) in self._unkept:
            bits.append(self.tr("not exported"))
        detail = " · ".join(str(b) for b in bits if b)
        self.tokenizer_header.setText(pane_header(self._tok_name(tok), _escape(detail)))
        self.tokenizer_header.setToolTip("<br>".join(
            f"<b>{_escape(self.tr(label))}</b>: {_escape(str(info[k]))}"
            for k, label in DESCRIBED.items() if info.get(k) is not None))
        self.status.set_tokenizer_name(self._tok_name(tok))

    def _update_text_header(self) -> None:
        text = self.current_text()
        name = _escape(self.document.display_name())
        if self.big.is_active():
            header, tip = self.big.header(name, text)
            self.text_header.setText(header)
            self.text_header.setToolTip(tip)
            return
        self.text_header.setToolTip("")
        nbytes = len(text.encode("utf-8", "surrogatepass"))
        if self.document.is_modified():
            name = self.tr("{name} (edited)").format(name=name)
        details = " · ".join((name, plural(len(text), "char"), plural(nbytes, "byte")))
        self.text_header.setText(pane_header(self.tr("Text"), details))
