"""The Library panel: the tokenizers at hand (shipped, Hugging Face cache, tiktoken cache, folders
the user adds), each with its format, model type and vocabulary size; double-click opens one.

Finding them and reading each one's details run on a worker thread, one file at a time; the list
fills in as results arrive, and details already read are kept (Refresh reads them again).  The box
above the list filters it; Enter opens the one entry left, or a Hub name (`owner/model[@revision]`)
from the Hugging Face cache.  Nothing is downloaded unless the user asks: a name the cache does not
have offers Download, which fetches only the tokenizer's files.  `refresh_recent()` redraws only
the Recent group (the window calls it after opening a tokenizer).

The UI thread only builds rows, and only those that changed: a group whose entries are the same
keeps its rows (a Refresh, a recent list that did not change), each file's rows are found by its
key rather than by a walk over the tree, and the columns are fitted at most every FIT_DELAY_MS
while details come in.  Columns: Name stretches and keeps at least NAME_MIN_SHARE of the width;
Vocab, Model and Format (in that order) fit their contents while they fit beside it, else are hidden
(each row's tooltip says them all).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...formats import hub
from ...formats.discover import (FOLDER, HF_CACHE, OLLAMA, PACKAGES, RECENT, SHIPPED, TIKTOKEN_CACHE, Found,
                                discover, hf_cache_dir, tokenizer_in)
from ..widgets.click_guard import guard_clicks
from ..window.open_tokenizers import open_found
from ..work.workers import TaskRunner, describe_error

# (titles and column names in English, shown through QCoreApplication.translate("LibraryPanel", …))
GROUPS = ((RECENT, QT_TRANSLATE_NOOP("LibraryPanel", "Recent")),
          (SHIPPED, QT_TRANSLATE_NOOP("LibraryPanel", "Shipped with tokviz")),
          (HF_CACHE, QT_TRANSLATE_NOOP("LibraryPanel", "Hugging Face cache")), (OLLAMA, "Ollama"),
          (TIKTOKEN_CACHE, QT_TRANSLATE_NOOP("LibraryPanel", "tiktoken cache")),
          (PACKAGES, QT_TRANSLATE_NOOP("LibraryPanel", "Installed packages")),
          (FOLDER, QT_TRANSLATE_NOOP("LibraryPanel", "Folders")))
FOUND_ROLE = Qt.ItemDataRole.UserRole + 1
GROUP_ROLE = Qt.ItemDataRole.UserRole + 2  # a group row's origin
COLUMNS = (QT_TRANSLATE_NOOP("LibraryPanel", "Name"), QT_TRANSLATE_NOOP("LibraryPanel", "Format"),
           QT_TRANSLATE_NOOP("LibraryPanel", "Model"), QT_TRANSLATE_NOOP("LibraryPanel", "Vocab"))
OPTIONAL_COLUMNS = (3, 2, 1)  # shown in this order while they fit beside the name
NAME_MIN_SHARE = 0.4
NAME_MIN_PX = 110
COLUMN_GAP = 12  # beside each fitted column, so neighbouring values do not touch
ROW_FLAGS = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsDragEnabled
VOCAB_ALIGNMENT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
FIT_DELAY_MS = 100  # columns fitted at most this often while details arrive (each fit measures every row)


def _tr(text: str) -> str:
    return QCoreApplication.translate("LibraryPanel", text)


def _key(found: Found) -> str:
    """One file's key for its details, whichever group lists it."""
    return os.path.normcase(os.path.abspath(found.path))


def tokenizer_details(found: Found) -> tuple[str, int]:
    """(model type, vocabulary size) of a found tokenizer, by loading it (worker thread)."""
    tok = open_found(found)
    return tok.model.kind, tok.vocab_size


class _LibraryTree(QTreeWidget):
    """The tree, whose tokenizer entries can be dragged (onto the Compare view)."""

    def mimeData(self, items):
        from ..views.compare_view import tokenizer_mime

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
    nameProblem = Signal(str)   # a name typed in the box could not be opened (the reason, also shown)
    refreshed = Signal()        # the list is complete (details may still be coming)
    detailsFinished = Signal()  # every entry has its details (or its error)

    def __init__(self, folders: list[str] | None = None, *, env: Mapping[str, str] | None = None,
                 recent: Callable[[], list[Found]] | None = None,
                 details: Callable[[Found], tuple[str, int]] = tokenizer_details, parent: QWidget | None = None):
        """`recent()`: the recently opened tokenizers, shown first (asked on every refresh and by
        `refresh_recent`)."""
        super().__init__(parent)
        self.setObjectName("LibraryPanel")
        self.folders: list[str] = list(folders or [])
        self._env = env
        self._details = details
        self._recent = recent
        self._runner = TaskRunner(max_threads=1, parent=self)
        self._generation = 0
        self._in_flight: dict[str, int] = {}  # file key -> the generation reading its details
        self._known: dict[str, tuple[str, int] | str] = {}  # file key -> (model, size) or an error
        self._rows: dict[str, list[QTreeWidgetItem]] = {}  # file key -> its rows (Recent and another group)
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(FIT_DELAY_MS)
        self._fit_timer.timeout.connect(self._fit_columns)
        self.tree = _LibraryTree()
        self.tree.setObjectName("LibraryTree")
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels([_tr(c) for c in COLUMNS])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.viewport().installEventFilter(self)
        self.tree.itemActivated.connect(self._on_activated)

        self.name_box = QLineEdit()
        self.name_box.setObjectName("LibraryNameBox")
        self.name_box.setPlaceholderText(self.tr("Filter, or a Hub name: owner/model"))
        self.name_box.setToolTip(self.tr("Type to filter the list.  Enter opens the one tokenizer left, or a Hugging "
                                         "Face Hub name (owner/model, optionally @revision) from the local cache"))
        self.name_box.setClearButtonEnabled(True)
        self.name_box.textChanged.connect(self._filter)
        self.name_box.returnPressed.connect(lambda: self.open_name(self.name_box.text()))
        self.name_note = QLabel("")
        self.name_note.setObjectName("LibraryNameNote")
        self.name_note.setWordWrap(True)
        self.name_note.hide()
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.setToolTip(self.tr("Fetch the tokenizer's files (no weights) from the Hugging Face Hub "
                                                "into the cache"))
        self.download_button.clicked.connect(self._download)
        self.download_progress = QProgressBar()
        self.download_progress.setRange(0, 0)  # (huggingface_hub does not say how far it is)
        self.download_cancel = QPushButton(self.tr("Cancel"))
        self.download_cancel.clicked.connect(self._cancel_download)
        guard_clicks(self.download_button, self.download_cancel)  # (each appears where the other was)
        download_row = QHBoxLayout()
        download_row.setContentsMargins(0, 0, 0, 0)
        download_row.addWidget(self.download_button)
        download_row.addWidget(self.download_progress, 1)
        download_row.addWidget(self.download_cancel)
        self.download_row = QWidget()
        self.download_row.setLayout(download_row)
        self.download_row.hide()
        self._wanted: tuple[str, str | None] | None = None  # the name the Download button fetches
        self._download_runner = TaskRunner(max_threads=1, parent=self)
        self._downloading = 0  # the ticket of the download whose result is still wanted (0: none)
        self._tickets = 0
        self.status = QLabel("")
        self.status.setObjectName("LibraryStatus")
        self.add_button = QPushButton(self.tr("Add folder…"))
        self.add_button.setToolTip(self.tr("Look for tokenizers in a folder (and its subfolders)"))
        self.add_button.clicked.connect(self._ask_add_folder)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.clicked.connect(lambda: self.refresh(fresh=True))

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.refresh_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.name_box)
        layout.addWidget(self.name_note)
        layout.addWidget(self.download_row)
        layout.addWidget(self.tree, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

    # ---- public ---------------------------------------------------------------------------------
    def refresh(self, fresh: bool = False) -> None:
        """Look for tokenizers again (on a worker); the list is rebuilt when that is done.
        `fresh`: also read the installed packages' file lists again (the Refresh button)."""
        self._generation += 1
        gen = self._generation
        if fresh:
            self._known.clear()
        folders, env = list(self.folders), self._env
        self.status.setText(self.tr("Looking for tokenizers…"))
        failed = self.tr("Could not look for tokenizers: {reason}")
        self._runner.submit(lambda: discover(folders, env=env, fresh=fresh), lambda found: self._show(gen, found),
                            lambda exc: self.status.setText(failed.format(reason=describe_error(exc))),
                            is_current=lambda: gen == self._generation)

    def refresh_recent(self, opened=None) -> None:
        """Show the Recent group again from `recent()`, without looking in any folder: cheap enough
        to call after every open.  `opened`: the Tokenizer just opened, whose model and size are then
        shown without reading its file again."""
        if self._recent is None:
            return
        path = getattr(getattr(opened, "source", None), "path", None)
        if path:
            key = os.path.normcase(os.path.abspath(path))
            self._known[key] = (opened.model.kind, opened.vocab_size)
            for item in self._rows.get(key, ()):
                self._fill(item, self._known[key])
        recent = self._recent()
        old = self._group(RECENT)
        if old is None or not self._same_entries(old, recent):  # (else the rows shown are right already)
            if old is not None:
                self._forget_rows(old)
                self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(old))
            if recent:
                self._add_group(RECENT, recent, 0)
            self._filter(self.name_box.text())
            self._update_status()
            self._fit_columns()
        self._fetch_details(self._generation, recent)

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
        self._downloading = 0
        self._runner.shutdown()
        self._download_runner.shutdown(0)  # (a download in flight is left to finish on its own)

    def visible_entries(self) -> list[Found]:
        """The entries the filter leaves."""
        out = []
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            out += [group.child(k).data(0, FOUND_ROLE) for k in range(group.childCount()) if not group.child(k).isHidden()]
        return out

    def open_name(self, text: str) -> None:
        """Enter in the box: open the one entry the filter leaves, else `text` as a Hub name from the
        cache; a name the cache does not have offers Download (nothing is fetched without it)."""
        text = text.strip()
        if not text:
            return
        left = self.visible_entries()
        if len(left) == 1:
            self.openRequested.emit(left[0])
            return
        named = hub.parse_name(text)
        if named is None:
            self._say(self.tr("No tokenizer here is called {name}, and it is not a Hub name (owner/model).").format(
                name=repr(text)))
            return
        self._wanted = None
        self._look_up(named, offer=True)

    def _look_up(self, named: tuple[str, str | None], offer: bool) -> None:
        """Find `named` in the Hugging Face cache on the worker (the scan reads the whole cache),
        then open it; a name the cache lacks offers Download when `offer`, else its reason is said."""
        folder = hf_cache_dir(self._env if self._env is not None else os.environ)

        def find():
            cached = hub.find_cached(*named, folder=folder)
            return cached, tokenizer_in(cached.folder)

        def failed(exc: BaseException) -> None:
            if offer and isinstance(exc, hub.NotCached):
                self._wanted = named
                if named[1]:
                    note = self.tr("{name} at {revision} is not in the Hugging Face cache ({folder}). Download its "
                                   "tokenizer files (no weights) from the Hub?")
                else:
                    note = self.tr("{name} is not in the Hugging Face cache ({folder}). Download its tokenizer files "
                                   "(no weights) from the Hub?")
                self._say(note.format(name=named[0], revision=named[1], folder=folder), offer=True)
            else:
                self._say(describe_error(exc))

        self._runner.submit(find, self._open_cached, failed)

    def _open_cached(self, found) -> None:
        cached, hit = found
        if hit is None:
            self._wanted = (cached.repo_id, cached.commit)
            self._say(self.tr("{name} is in the Hugging Face cache but holds no tokenizer files.").format(
                name=cached.repo_id), offer=True)
            return
        self._say("")
        self.openRequested.emit(Found(cached.repo_id, hit[1], hit[0], HF_CACHE, detail=f"revision {cached.commit[:12]}"))

    def _say(self, note: str, offer: bool = False) -> None:
        self.name_note.setText(note)
        self.name_note.setVisible(bool(note))
        self.download_row.setVisible(offer or self._downloading != 0)
        self.download_button.setVisible(offer and self._downloading == 0)
        for w in (self.download_progress, self.download_cancel):
            w.setVisible(self._downloading != 0)
        if note and not self._downloading:
            self.nameProblem.emit(note)

    def _download(self) -> None:
        if self._wanted is None:
            return
        repo_id, revision = self._wanted
        folder = hf_cache_dir(self._env if self._env is not None else os.environ)
        self._tickets += 1
        ticket = self._downloading = self._tickets

        def done(snapshot) -> None:
            if ticket != self._downloading:
                return
            self._downloading = 0
            self.refresh()
            self._look_up((repo_id, revision), offer=False)

        def failed(exc: BaseException) -> None:
            if ticket != self._downloading:
                return
            self._downloading = 0
            self._say(describe_error(exc))

        self._say(self.tr("Downloading the tokenizer files of {name}…").format(name=repo_id))
        self._download_runner.submit(lambda: hub.download(repo_id, revision, folder=folder), done, failed)

    def _cancel_download(self) -> None:
        """Stop waiting for the download (huggingface_hub cannot be interrupted: it finishes on its own)."""
        self._downloading = 0
        self._say(self.tr("Download cancelled."))

    def _filter(self, text: str) -> None:
        for g in range(self.tree.topLevelItemCount()):
            self._filter_group(self.tree.topLevelItem(g), text)
        if not text.strip():
            self._wanted = None
            if not self._downloading:
                self._say("")

    @staticmethod
    def _filter_group(group: QTreeWidgetItem, text: str) -> None:
        needle = text.strip().lower()
        for k in range(group.childCount()):
            item = group.child(k)
            found = item.data(0, FOUND_ROLE)
            item.setHidden(bool(needle) and needle not in found.name.lower() and needle not in str(found.path).lower())

    # ---- internals ------------------------------------------------------------------------------
    def _show(self, gen: int, found: list[Found]) -> None:
        """Show what a look found: a group whose entries are the same keeps its rows, the others
        are built again."""
        if self._recent is not None:
            found = self._recent() + found
        by_origin: dict[str, list[Found]] = {}
        for f in found:
            by_origin.setdefault(f.origin, []).append(f)
        wanted = {origin: by_origin.get(origin, []) for origin, _title in GROUPS
                  if by_origin.get(origin) or origin == FOLDER}
        kept: set[str] = set()
        for g in reversed(range(self.tree.topLevelItemCount())):
            group = self.tree.topLevelItem(g)
            origin = group.data(0, GROUP_ROLE)
            if origin in wanted and self._same_entries(group, wanted[origin]):
                kept.add(origin)
            else:
                self._forget_rows(group)
                self.tree.takeTopLevelItem(g)
        for index, (origin, items) in enumerate(wanted.items()):
            if origin not in kept:
                self._add_group(origin, items, index)
        self._update_status()
        self._filter(self.name_box.text())
        self.refreshed.emit()
        # (an older generation's reads are skipped: their files are read again)
        self._in_flight = {k: g for k, g in self._in_flight.items() if g == gen}
        if not found:
            self.detailsFinished.emit()
        self._fetch_details(gen, found)
        self._fit_columns()

    def _group(self, origin: str) -> QTreeWidgetItem | None:
        for g in range(self.tree.topLevelItemCount()):
            if self.tree.topLevelItem(g).data(0, GROUP_ROLE) == origin:
                return self.tree.topLevelItem(g)
        return None

    def _add_group(self, origin: str, items: list[Found], index: int) -> QTreeWidgetItem:
        title = _tr(dict(GROUPS)[origin])
        group = QTreeWidgetItem([self.tr("{group} ({count})").format(group=title, count=len(items))])
        group.setData(0, GROUP_ROLE, origin)
        group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        rows = []
        for f in items:
            item = QTreeWidgetItem([f.name, f.format, "…", ""])
            item.setData(0, FOUND_ROLE, f)
            item.setFlags(ROW_FLAGS)
            item.setTextAlignment(3, VOCAB_ALIGNMENT)
            key = _key(f)
            self._rows.setdefault(key, []).append(item)
            known = self._known.get(key)
            if known is not None:
                self._fill(item, known)
            else:
                self._set_tip(item)
            rows.append(item)
        group.addChildren(rows)  # (before the group is in the tree: the view hears of it once)
        self.tree.insertTopLevelItem(index, group)
        group.setFirstColumnSpanned(True)  # the group title may use the whole row
        group.setExpanded(True)
        return group

    @staticmethod
    def _same_entries(group: QTreeWidgetItem, items: list[Found]) -> bool:
        """Whether `group` lists exactly `items`, in order (with the same detail line)."""
        if group.childCount() != len(items):
            return False
        for k, f in enumerate(items):
            shown = group.child(k).data(0, FOUND_ROLE)
            if shown != f or shown.detail != f.detail:
                return False
        return True

    def _forget_rows(self, group: QTreeWidgetItem) -> None:
        """Drop `group`'s rows from the index of rows by file (before the group is taken away)."""
        for k in range(group.childCount()):
            item = group.child(k)
            key = _key(item.data(0, FOUND_ROLE))
            rows = [r for r in self._rows.get(key, ()) if r is not item]
            if rows:
                self._rows[key] = rows
            else:
                self._rows.pop(key, None)

    def _update_status(self) -> None:
        n = sum(self.tree.topLevelItem(g).childCount() for g in range(self.tree.topLevelItemCount()))
        self.status.setText(self.tr("{count} tokenizers").format(count=n) if n
                            else self.tr("No tokenizers found: add a folder"))

    def _fetch_details(self, gen: int, found: list[Found]) -> None:
        """Read the details not known yet, one file at a time on the worker (each file once)."""
        wanted: dict[str, Found] = {}
        for f in found:
            if _key(f) not in self._known and _key(f) not in self._in_flight:
                wanted.setdefault(_key(f), f)
        self._in_flight.update(dict.fromkeys(wanted, gen))
        if not wanted and found and not self._in_flight:
            self.detailsFinished.emit()
        for f in wanted.values():
            self._runner.submit(lambda f=f: self._details(f), lambda d, f=f: self._set_details(gen, f, d),
                                lambda exc, f=f: self._set_error(gen, f, exc),
                                is_current=lambda: gen == self._generation)

    def _items_of(self, found: Found) -> list[QTreeWidgetItem]:
        """Every row of the file `found` (it may be in Recent and in a folder's group)."""
        return list(self._rows.get(_key(found), ()))

    def _fill(self, item: QTreeWidgetItem, known: tuple[str, int] | str) -> None:
        if isinstance(known, str):
            item.setText(2, self.tr("unreadable"))
            self._set_tip(item, known)
        else:
            model, size = known
            item.setText(2, model)
            item.setText(3, f"{size:,}")
            self._set_tip(item)

    def _set_tip(self, item: QTreeWidgetItem, error: str = "") -> None:
        f: Found = item.data(0, FOUND_ROLE)
        facts = " · ".join(t for t in (item.text(1), item.text(2), item.text(3)) if t and t != "…")
        tip = "\n".join(t for t in (str(f.path), error or f.detail, facts) if t)
        for col in range(len(COLUMNS)):
            item.setToolTip(col, tip)

    def _set_details(self, gen: int, found: Found, details: tuple[str, int]) -> None:
        self._known[_key(found)] = details
        for item in self._items_of(found):
            self._fill(item, details)
        self._detail_done(gen, found)

    def _set_error(self, gen: int, found: Found, exc: BaseException) -> None:
        self._known[_key(found)] = describe_error(exc)
        for item in self._items_of(found):
            self._fill(item, self._known[_key(found)])
        self._detail_done(gen, found)

    def _detail_done(self, gen: int, found: Found) -> None:
        self._in_flight.pop(_key(found), None)
        if gen != self._generation:
            return
        if self._in_flight:
            if not self._fit_timer.isActive():
                self._fit_timer.start()
            return
        self._fit_timer.stop()
        self._fit_columns()
        self.detailsFinished.emit()

    # ---- columns --------------------------------------------------------------------------------
    def column_widths(self) -> list[int]:
        """Each column's width (0: hidden), for tests."""
        header = self.tree.header()
        return [0 if header.isSectionHidden(c) else header.sectionSize(c) for c in range(len(COLUMNS))]

    def _fit_columns(self) -> None:
        """Name stretches; the other columns fit their contents while the name keeps its share
        (whatever a restored header state said)."""
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        width = self.tree.viewport().width()
        budget = width - max(NAME_MIN_PX, int(width * NAME_MIN_SHARE))
        for col in OPTIONAL_COLUMNS:
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            want = max(self.tree.sizeHintForColumn(col) + COLUMN_GAP, header.sectionSizeHint(col))
            fits = want <= budget
            header.setSectionHidden(col, not fits)
            if fits:
                header.resizeSection(col, want)
                budget -= want
            else:
                budget = -1  # (a column left out leaves out the less important ones after it)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.tree.viewport() and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _on_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        found = item.data(0, FOUND_ROLE)
        if found is not None:
            self.openRequested.emit(found)

    def _ask_add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of tokenizers"))
        if folder:
            self.add_folder(folder)
