"""Where a long run goes: this machine, a Dask cluster at an address, or N local worker processes.

`RunOnBox` is the choice the Training panel and the Statistics view share.  It never connects:
`open_cluster(choice)` does, on the worker thread (reaching a scheduler can take seconds).  Corpora
on a cluster may be URLs (`ask_url`; `url_refusal` says they need one).  The
cluster choices are disabled, with the reason as their tooltip, when `distributed` is not
installed (tokviz.cluster.INSTALL_HINT) or when the view refuses them (`set_refused`).  While a
cluster run goes, `show_dashboard(link)` shows the Dask dashboard as a link that opens in the
browser.
"""
from __future__ import annotations

import html
import importlib.util

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QStandardItemModel
from PySide6.QtWidgets import QBoxLayout, QComboBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget

HERE, SCHEDULER, WORKERS = "here", "scheduler", "workers"
LABELS = {HERE: QT_TRANSLATE_NOOP("RunOnBox", "this machine"), SCHEDULER: QT_TRANSLATE_NOOP("RunOnBox", "a Dask cluster at"),
          WORKERS: QT_TRANSLATE_NOOP("RunOnBox", "local worker processes")}  # (shown translated)
DEFAULT_ADDRESS = "tcp://127.0.0.1:8786"
NARROW = 340  # below this width the address goes under the choice


def have_distributed() -> bool:
    """Whether Dask distributed can be imported (looked up, not imported: importing takes a second)."""
    try:
        return importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):
        return False


def ask_url(parent) -> str | None:
    """A corpus URL or URL glob the user types (s3://bucket/corpus/*.txt), or None; read on a
    Dask cluster only (`url_refusal`)."""
    from PySide6.QtWidgets import QInputDialog

    text, ok = QInputDialog.getText(
        parent, QCoreApplication.translate("RunOnBox", "Add a corpus URL"),
        QCoreApplication.translate("RunOnBox", "A file, folder or glob in object storage, read by the cluster's "
                                               "workers with fsspec\n(e.g. s3://bucket/corpus/*.txt; credentials "
                                               "from each machine's environment):"),
        text="s3://")
    text = text.strip()
    return text if ok and "://" in text and not text.endswith("://") else None


def is_url(item: str) -> bool:
    from ...cluster.sources import is_url as url

    return url(item)


def url_refusal(items, choice: tuple[str, object]) -> str | None:
    """Why `items` cannot be read where `choice` runs (a URL is read on a cluster only), or None."""
    if choice[0] != HERE:
        return None
    url = next((i for i in items if is_url(i)), None)
    if url is None:
        return None
    return QCoreApplication.translate("RunOnBox", "{url} is read by a Dask cluster's workers: choose Run on a Dask "
                                                  "cluster, or local worker processes").format(url=url)


def open_cluster(choice: tuple[str, object], cancel=None):
    """A tokviz.cluster.Cluster for `choice` (from RunOnBox.choice()), or None for this machine.
    Blocks up to the connection timeout, or until cancel (an Event) is set (then Cancelled):
    call it on a worker thread."""
    where, value = choice
    if where == HERE:
        return None
    from ...cluster import connect

    return connect(scheduler=value, cancel=cancel) if where == SCHEDULER else connect(workers=value, cancel=cancel)


class RunOnBox(QWidget):
    """See the module docstring.  `choice()` -> (HERE, None) | (SCHEDULER, address) | (WORKERS, n);
    `state()` / `set_state(text)` for the settings; `changed(state)` when the user changes it; `dashboardShown(link)`."""

    changed = Signal(str)
    dashboardShown = Signal(str)

    def __init__(self, parent=None, *, label: bool = True, dashboard_inside: bool = True):
        """label: the box shows "Run on" itself (else a form row names it); dashboard_inside: the
        dashboard link goes under the choice (else the owner places `self.dashboard`)."""
        super().__init__(parent)
        self.where = QComboBox()
        for key, text in LABELS.items():
            self.where.addItem(QCoreApplication.translate("RunOnBox", text), key)
        self.where.setToolTip(self.tr("Where the counting runs: here, or on a Dask cluster"))
        self.address = QLineEdit(DEFAULT_ADDRESS)
        self.address.setPlaceholderText(self.tr("tcp://host:8786"))
        self.address.setToolTip(self.tr("The address of the Dask scheduler"))
        self.address.setMinimumWidth(60)
        self.workers = QSpinBox()
        self.workers.setRange(1, 256)
        self.workers.setValue(2)
        self.workers.setToolTip(self.tr("Worker processes started on this machine for the run (a Dask LocalCluster)"))
        self.dashboard = QLabel()
        self.dashboard.setTextFormat(Qt.TextFormat.RichText)
        self.dashboard.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.dashboard.linkActivated.connect(lambda url: QDesktopServices.openUrl(QUrl(url)))
        self.dashboard.setWordWrap(True)
        self.dashboard.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        if label:
            row.addWidget(QLabel(self.tr("Run on")), 0, Qt.AlignmentFlag.AlignTop)
        # the address beside the choice, or under it when narrow (NARROW)
        self._fields = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self._fields.setContentsMargins(0, 0, 0, 0)
        self._fields.addWidget(self.where)
        self._fields.addWidget(self.address, 1)
        self._fields.addWidget(self.workers)
        self._fields.addStretch(0)
        row.addLayout(self._fields, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        if dashboard_inside:
            layout.addWidget(self.dashboard)
        self._refused: str | None = None
        self._wanted = HERE  # the user's choice, kept while the cluster is refused
        self._missing = not have_distributed()
        self.where.activated.connect(self._chosen)
        self.address.editingFinished.connect(lambda: self.changed.emit(self.state()))
        self.workers.valueChanged.connect(lambda _n: self.changed.emit(self.state()))
        self._update()

    def resizeEvent(self, event) -> None:
        direction = (QBoxLayout.Direction.TopToBottom if event.size().width() < NARROW
                     else QBoxLayout.Direction.LeftToRight)
        if self._fields.direction() != direction:
            self._fields.setDirection(direction)
        super().resizeEvent(event)

    # ---- the choice ---------------------------------------------------------------------------------
    def choice(self) -> tuple[str, object]:
        where = self.where.currentData()
        if where == SCHEDULER:
            return where, self.address.text().strip()
        if where == WORKERS:
            return where, self.workers.value()
        return HERE, None

    def on_cluster(self) -> bool:
        return self.choice()[0] != HERE

    def set_choice(self, where: str, value=None) -> None:
        """Choose (what the user does); a cluster choice while it is disabled is kept for later."""
        if where == SCHEDULER and value is not None:
            self.address.setText(str(value))
            self.address.setCursorPosition(0)  # (a long address shows its start, tcp://…)
        elif where == WORKERS and value is not None:
            self.workers.setValue(int(value))
        self._wanted = where if where in LABELS else HERE
        self._update()
        self.changed.emit(self.state())

    def state(self) -> str:
        """The choice as one line for the settings: 'here', 'scheduler ADDRESS' or 'workers N'
        (the address and the count are kept whichever is chosen)."""
        return f"{self._wanted} {self.address.text().strip()} {self.workers.value()}"

    def set_state(self, text: str) -> None:
        parts = (text or "").split()
        if len(parts) == 3 and parts[0] in LABELS:
            self.address.setText(parts[1])
            if parts[2].isdecimal():
                self.workers.setValue(int(parts[2]))
            self.set_choice(parts[0])

    # ---- what is possible ---------------------------------------------------------------------------
    def disabled_reason(self) -> str | None:
        """Why the cluster choices are disabled, or None."""
        if self._missing:
            from ...cluster import INSTALL_HINT

            command = 'pip install "tokviz[cluster]"'
            english = f"Dask distributed is not installed: {command}"
            return self.tr("Dask distributed is not installed: {command}").format(command=command) \
                if INSTALL_HINT == english else INSTALL_HINT
        return self._refused

    def set_refused(self, reason: str | None) -> None:
        """Disable the cluster choices for `reason` (e.g. the model cannot be trained there); None: allow."""
        self._refused = reason
        self._update()

    def _chosen(self, index: int) -> None:
        self._wanted = self.where.itemData(index)
        self._update()
        self.changed.emit(self.state())

    def _update(self) -> None:
        reason = self.disabled_reason()
        model = self.where.model()
        if isinstance(model, QStandardItemModel):
            for row in range(1, self.where.count()):
                item = model.item(row)
                item.setEnabled(reason is None)
                item.setToolTip(reason or "")
        where = self._wanted if reason is None else HERE
        self.where.setCurrentIndex(self.where.findData(where))
        self.where.setToolTip(reason or self.tr("Where the counting runs: here, or on a Dask cluster"))
        self.address.setVisible(where == SCHEDULER)
        self.workers.setVisible(where == WORKERS)

    def set_running(self, running: bool) -> None:
        """The choice cannot change during a run; the dashboard link goes when it ends."""
        for w in (self.where, self.address, self.workers):
            w.setEnabled(not running)
        if not running:
            self.show_dashboard(None)

    def show_dashboard(self, link: str | None) -> None:
        if link:
            self.dashboard.setText(self.tr('Dask dashboard: {link}').format(
                link=f'<a href="{html.escape(link)}">{html.escape(link)}</a>'))
            self.dashboard.setToolTip(link)
        self.dashboard.setVisible(bool(link))
        if link:
            self.dashboardShown.emit(link)

    def dashboard_link(self) -> str | None:
        return self.dashboard.toolTip() if self.dashboard.isVisibleTo(self) else None
