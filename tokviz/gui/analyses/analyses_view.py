"""The Analyses tab: research analyses over a set of tokenizers, one page each.

Fairness across languages, robustness to perturbations and vocabulary overlap / provenance all
look at several tokenizers at once; they share one set, the Compare tab's (add or remove tokenizers
there, or with "Add tokenizer…" here, which adds to that set).  With the Compare set empty the
explorer's tokenizer is analysed alone.  The window pushes the set and the explorer's text in
(`set_tokenizers`, `set_text`); each page runs its analysis on its own worker when asked (Run).
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..widgets.style import DEFAULT_THEME, TokenTheme, set_theme_when_shown


class AnalysesView(QWidget):
    """Pages sharing one set of tokenizers; `addRequested` asks the window to add one to the Compare
    set.  Each page is a widget, or (title, widget); a page with a `page_title()` method names its
    tab itself (translated).  Find a page by its key (`page.KEY`: "fairness", "robustness",
    "overlap"; its objectName is e.g. "FairnessPage") with `index_of`, never by the tab's text."""

    addRequested = Signal()

    def __init__(self, pages: list, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._tokenizers: dict = {}
        self._from_compare = False
        pages = [p if isinstance(p, tuple) else (None, p) for p in pages]
        self.pages = [page for _, page in pages]

        self.header = QLabel()
        self.header.setObjectName("PaneHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.add_button = QPushButton(self.tr("Add tokenizer…"))
        self.add_button.setToolTip(self.tr("Add a tokenizer to the set the analyses (and the Compare tab) use"))
        self.add_button.clicked.connect(self.addRequested)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("AnalysesTabs")
        for title, page in pages:
            # below its comfortable size a page scrolls: it never makes the window larger than the screen
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(page)
            scroll.setObjectName(f"{page.objectName() or type(page).__name__}Scroll")
            self.tabs.addTab(scroll, page.page_title() if hasattr(page, "page_title") else title)

        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        self._update_header()

    def set_tokenizers(self, tokenizers: dict, *, from_compare: bool = True) -> None:
        """The set every page analyses (name -> Tokenizer, in display order).  `from_compare`: the
        set is the Compare tab's (else the explorer's tokenizer alone)."""
        same = list(tokenizers.items()) == list(self._tokenizers.items())
        self._tokenizers = dict(tokenizers)
        self._from_compare = from_compare
        self._update_header()
        if not same:
            for page in self.pages:
                page.set_tokenizers(dict(tokenizers))

    def index_of(self, key: str) -> int:
        """The index of the page whose KEY (or objectName) is `key`; -1 if none."""
        for k, page in enumerate(self.pages):
            if key in (getattr(page, "KEY", None), page.objectName()):
                return k
        return -1

    def tokenizers(self) -> dict:
        return dict(self._tokenizers)

    def set_text(self, text: str) -> None:
        for page in self.pages:
            page.set_text(text)

    def _update_header(self) -> None:
        names = list(self._tokenizers)
        if not names:
            self.header.setText(self.tr("No tokenizer yet: open one, or add tokenizers to compare."))
            return
        listed = self.tr(", ").join(f"<b>{html.escape(n)}</b>" for n in names)
        where = (self.tr("(the Compare tab's set)") if self._from_compare
                 else self.tr("(the explorer's tokenizer; add more to analyse several)"))
        self.header.setText(self.tr("Analysing {tokenizers} {where}").format(
            tokenizers=listed, where=f"<span style='color: gray'>{html.escape(where, quote=False)}</span>"))
        self.header.setToolTip(", ".join(names))

    def is_busy(self) -> bool:
        return any(page.is_busy() for page in self.pages)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for page in self.pages:  # (the pages not shown are redrawn when they are)
            set_theme_when_shown(page, theme, defer=self.isVisible())

    def shutdown(self, timeout_ms: int = 5000) -> None:
        for page in self.pages:
            page.shutdown(timeout_ms)
