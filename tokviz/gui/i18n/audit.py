"""English left in a translated window: `python -m tokviz.gui.i18n.audit [--lang zh_CN] [-t TOK ...]`.

The lint (gui/i18n/lint.py) reads the code; this reads what the user sees.  It opens the main window
in the language, with every dock and tab made, and lists each text of the window's chrome that still
holds English words: menus and their items, tab and dock titles, buttons, labels, group boxes,
placeholders, tooltips, table headers, plot titles and axis labels.  Names (BPE, JSON, tokviz …; see
lint.NAMES), file names and the names of the tokenizers open are not English.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from dataclasses import dataclass

from .languages import LANGUAGES
from .lint import NAMES, needs_translation

CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
PHRASE = re.compile(r"\b[a-z]{2,}(?:[ ]+[a-z]{2,})+\b")  # two or more lowercase words in a row
IDENTIFIER = re.compile(r"\w*_\w*|\w+=\w+|\[[A-Z]+\]|<[/a-z]+>")  # add_special_tokens=True, [CLS], </w>
TAG = re.compile(r"<[^>]+>")
ENTITY = re.compile(r"&[a-z]+;|&#\d+;")
FILE_NAME = re.compile(r"[\w.-]*[\w-]\.(model|json|tiktoken|txt|gguf|vocab|ini|npy|png|md|jsonl|csv|bin)\b|[\w~.-]*/[\w./~-]+")


@dataclass(frozen=True)
class Left:
    where: str
    text: str

    def __str__(self) -> str:
        return f"{self.where}: {self.text!r}"


def _plain(text: str, ignore: tuple[str, ...]) -> str:
    text = ENTITY.sub(" ", TAG.sub(" ", text or ""))
    for name in (*ignore, *LANGUAGES.values()):
        if name:
            text = text.replace(name, " ")
    return IDENTIFIER.sub(" ", FILE_NAME.sub(" ", text)).replace("&", "")


def untranslated(text: str) -> bool:
    """Whether `text` (plain) still needs translating.  A translated text (it holds Chinese or
    Japanese) may quote a name or an example word (Markdown, abc, lower); it still needs it when an
    English phrase of two or more words is left in it."""
    if CJK.search(text):
        return any(any(w not in NAMES for w in phrase.split()) for phrase in PHRASE.findall(text))
    return needs_translation(text)


def _where(widget) -> str:
    parts = []
    while widget is not None and len(parts) < 4:
        parts.append(widget.objectName() or type(widget).__name__)
        widget = widget.parentWidget() if hasattr(widget, "parentWidget") else None
    return "/".join(reversed(parts))


def chrome_texts(root):
    """(where, text) of every text of `root`'s chrome, hidden ones included."""
    from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QComboBox, QDockWidget, QGroupBox,
                                   QLabel, QLineEdit, QMainWindow, QMenu, QPlainTextEdit, QTabBar, QWidget)
    from PySide6.QtCore import Qt

    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        where = _where(w)
        if w.toolTip():
            yield where + "[tooltip]", w.toolTip()
        if isinstance(w, QLabel):
            yield where, w.text()
        elif isinstance(w, QAbstractButton):
            yield where, w.text()
        elif isinstance(w, QGroupBox):
            yield where, w.title()
        elif isinstance(w, QDockWidget):
            yield where, w.windowTitle()
        elif isinstance(w, QLineEdit | QPlainTextEdit):
            yield where + "[placeholder]", w.placeholderText()
        elif isinstance(w, QComboBox) and w.isEditable():
            yield where + "[placeholder]", w.lineEdit().placeholderText() if w.lineEdit() else ""
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                yield f"{where}[tab {i}]", w.tabText(i)
                yield f"{where}[tab {i} tooltip]", w.tabToolTip(i)
        elif isinstance(w, QMainWindow):
            yield where + "[title]", w.windowTitle()
        if isinstance(w, QMenu):
            yield where + "[menu]", w.title()
        for action in w.actions():
            yield f"{where}[action]", action.text()
            yield f"{where}[action tip]", action.toolTip() if action.toolTip() != action.text().replace("&", "") else ""
            if action.menu() is not None:
                yield f"{where}[submenu]", action.menu().title()
        header = getattr(w, "horizontalHeader", getattr(w, "header", None))
        if isinstance(w, QAbstractItemView) and header is not None and w.model() is not None:
            model = w.model()
            for section in range(min(header().count(), 40)):
                yield f"{where}[column {section}]", str(model.headerData(section, Qt.Orientation.Horizontal) or "")
    yield from _plot_texts(root)


def _plot_texts(root):
    try:
        import pyqtgraph as pg
    except ImportError:
        return
    for view in root.findChildren(pg.PlotWidget):
        item = view.getPlotItem()
        where = _where(view)
        yield where + "[plot title]", item.titleLabel.text or ""
        for side in ("bottom", "left", "top", "right"):
            axis = item.getAxis(side)
            yield f"{where}[{side} axis]", axis.labelText or ""
        if item.legend is not None:
            for _sample, label in item.legend.items:
                yield where + "[legend]", label.text


def english_left(root, ignore: tuple[str, ...] = ()) -> list[Left]:
    """The texts of `root`'s chrome that hold English words (`ignore`: names of data shown, not UI)."""
    seen, out = set(), []
    for where, text in chrome_texts(root):
        if text and untranslated(_plain(text, ignore)) and (where, text) not in seen:
            seen.add((where, text))
            out.append(Left(where, text))
    return out


def open_window(language: str, tokenizers: list[str]):
    """The main window in `language` on `tokenizers` (default: the shipped one), every dock and tab
    made; returns (window, names of the tokenizers open)."""
    from .. import i18n
    from ..app import ensure_application
    from ..screenshot import wait_until
    from ..settings import Settings
    from ..window.main_window import MainWindow
    from ...defaults import default_tokenizer_path
    from ... import load

    app = ensure_application(language=language)
    i18n.install(language)
    paths = list(tokenizers) or [str(default_tokenizer_path())]
    loaded = [load(p).prepare() for p in paths]
    scratch = tempfile.mkdtemp()
    window = MainWindow(loaded[0], error_handler=lambda title, message: None,
                        settings=Settings(os.path.join(scratch, "settings.ini")))
    window.show()
    window.resize(1280, 800)
    for dock in window.docks.all():
        dock.show()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        app.processEvents()
    for tok in loaded[1:]:
        window.compare_view.add_tokenizer(tok)
    window.tabs.setCurrentIndex(0)
    wait_until(lambda: window.is_up_to_date() and not window.library.is_busy(), 60)
    app.processEvents()
    names = tuple(window._tok_name(t) for t in loaded) + tuple(os.path.basename(p) for p in paths)
    return window, names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokviz.gui.i18n.audit", description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="zh_CN")
    parser.add_argument("-t", "--tokenizer", action="append", default=[])
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    window, names = open_window(args.lang, args.tokenizer)
    left = english_left(window, names)
    for item in left:
        print(item)
    print(f"{len(left)} text(s) with English left", file=sys.stderr)
    window.close()
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
