"""The Library panel: the tokenizers at hand (shipped, Hugging Face cache, tiktoken cache, folders
the user adds), each with its format, model type and vocabulary size; double-click opens one.

Finding them and reading each one's details run on a worker thread, one file at a time; the list
fills in as results arrive.  Nothing is downloaded.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..formats.discover import FOLDER, HF_CACHE, PACKAGES, RECENT, SHIPPED, TIKTOKEN_CACHE, Found, discover
from .open_tokenizers import open_found
from .workers import TaskRunner, describe_error

GROUPS = ((RECENT, "Recent"), (SHIPPED, "Shipped with tokviz"), (HF_CACHE, "Hugging Face cache"), (TIKTOKEN_CACHE, "tiktoken cache"), (PACKAGES, "Installed packages"),
          (FOLDER, "Folders"))
FOUND_ROLE = Qt.ItemDataRole.UserRole + 1


def tokenizer_details(found: Found) -> tuple[str, int]:
    """(model type, vocabulary size) of a found tokenizer, by loading it (worker thread)."""
    tok = open_found(found)
    return tok.model.kind, tok.vocab_size


class _LibraryTree(QTreeWidget):
    """The tree, whose tokenizer entries can be dragged (onto the Compare view)."""

    def mimeData(self, items):
        from .compare_view import tokenizer_mime

        entries = []
        for item in items:
            f = item.data(0, FOUND_ROLE)
            if f is not None:
                entries.append({"path": str(f.path), "name": f.name, "format": f.format, "encoding": f.encoding})
        return tokenizer_mime(entries)


class LibraryPanel(QWidget):
    """`openRequested(Found)` when the user opens an entry (double-click or Enter)."""

    openRequested = Signal(object)
    foldersChanged = Signal(list)  # the folders to look in, after the user added one
    refreshed = Signal()        # the list is complete (details may still be coming)
    detailsFinished = Signal()  # every entry has its details (or its error)

    def __init__(self, folders: list[str] | None = None, *, env: Mapping[str, str] | None = None,
                 recent: Callable[[], list[Found]] | None = None,
                 details: Callable[[Found], tuple[str, int]] = tokenizer_details, parent: QWidget | None = None):
        """`recent()`: the recently opened tokenizers, shown first (asked on every refresh)."""
        super().__init__(parent)
        self.setObjectName("LibraryPanel")
        self.folders: list[str] = list(folders or [])
        self._env = env
        self._details = details
        self._recent = recent
        self._runner = TaskRunner(max_threads=1, parent=self)
        self._generation = 0
        self._pending_details = 0

        self.tree = _LibraryTree()
        self.tree.setObjectName("LibraryTree")
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Name", "Format", "Model", "Vocab"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemActivated.connect(self._on_activated)

        self.status = QLabel("")
        self.status.setObjectName("LibraryStatus")
        self.add_button = QPushButton("Add folder…")
        self.add_button.setToolTip("Look for tokenizers in a folder (and its subfolders)")
        self.add_button.clicked.connect(self._ask_add_folder)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(lambda: self.refresh(fresh=True))

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.refresh_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tree, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

    # ---- public ---------------------------------------------------------------------------------
    def refresh(self, fresh: bool = False) -> None:
        """Look for tokenizers again (on a worker); the list is rebuilt when that is done.
        `fresh`: also read the installed packages' file lists again (the Refresh button)."""
        self._generation += 1
        gen = self._generation
        folders, env = list(self.folders), self._env
        self.status.setText("Looking for tokenizers…")
        self._runner.submit(lambda: discover(folders, env=env, fresh=fresh), lambda found: self._show(gen, found),
                            lambda exc: self.status.setText(f"Could not look for tokenizers: {describe_error(exc)}"),
                            is_current=lambda: gen == self._generation)

    def add_folder(self, folder: str | os.PathLike) -> None:
        folder = os.fspath(folder)
        if folder not in self.folders:
            self.folders.append(folder)
            self.foldersChanged.emit(list(self.folders))
        self.refresh()

    def entries(self) -> list[Found]:
        """What the list shows, in order."""
        out = []
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            out += [group.child(k).data(0, FOUND_ROLE) for k in range(group.childCount())]
        return out

    def item_for(self, found: Found) -> QTreeWidgetItem | None:
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            for k in range(group.childCount()):
                if group.child(k).data(0, FOUND_ROLE) == found:
                    return group.child(k)
        return None

    def is_busy(self) -> bool:
        return self._runner.pending() > 0

    def shutdown(self) -> None:
        self._runner.shutdown()

    # ---- internals ------------------------------------------------------------------------------
    def _show(self, gen: int, found: list[Found]) -> None:
        self.tree.clear()
        if self._recent is not None:
            found = self._recent() + found
        by_origin: dict[str, list[Found]] = {}
        for f in found:
            by_origin.setdefault(f.origin, []).append(f)
        for origin, title in GROUPS:
            items = by_origin.get(origin, [])
            if not items and origin not in (FOLDER,):
                continue
            group = QTreeWidgetItem([f"{title} ({len(items)})"])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(group)
            for f in items:
                item = QTreeWidgetItem([f.name, f.format, "…", ""])
                item.setData(0, FOUND_ROLE, f)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsDragEnabled)
                tip = str(f.path) + (f"\n{f.detail}" if f.detail else "")
                for col in range(4):
                    item.setToolTip(col, tip)
                item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                group.addChild(item)
            group.setFirstColumnSpanned(True)  # the group title may use the whole row
            group.setExpanded(True)
        self.status.setText(f"{len(found)} tokenizers" if found else "No tokenizers found: add a folder")
        self.refreshed.emit()
        self._pending_details = len(found)
        if not found:
            self.detailsFinished.emit()
        for f in found:
            self._runner.submit(lambda f=f: self._details(f), lambda d, f=f: self._set_details(gen, f, d),
                                lambda exc, f=f: self._set_error(gen, f, exc), is_current=lambda: gen == self._generation)

    def _set_details(self, gen: int, found: Found, details: tuple[str, int]) -> None:
        item = self.item_for(found) if gen == self._generation else None
        if item is not None:
            model, size = details
            item.setText(2, model)
            item.setText(3, f"{size:,}")
        self._detail_done(gen)

    def _set_error(self, gen: int, found: Found, exc: BaseException) -> None:
        item = self.item_for(found) if gen == self._generation else None
        if item is not None:
            item.setText(2, "unreadable")
            for col in range(4):
                item.setToolTip(col, f"{found.path}\n{describe_error(exc)}")
        self._detail_done(gen)

    def _detail_done(self, gen: int) -> None:
        if gen != self._generation:
            return
        self._pending_details -= 1
        if self._pending_details == 0:
            self.detailsFinished.emit()

    def _on_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        found = item.data(0, FOUND_ROLE)
        if found is not None:
            self.openRequested.emit(found)

    def _ask_add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of tokenizers")
        if folder:
            self.add_folder(folder)
