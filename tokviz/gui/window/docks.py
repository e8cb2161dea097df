"""Every dock of the main window and its panel: the Library on the left, the ids at the bottom, and
on the right, tabbed together, merges, vocabulary, statistics, training, vocabulary editing and the
round trip (normalizer changes, decode differences).

Each panel keeps its minimum size small (at most DOCK_MIN_WIDTH x DOCK_MIN_HEIGHT), so that the
window with every dock open still fits a small screen; panels reflow or scroll below their
comfortable size instead of pushing the window wider."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from ..panels.edit_panel import EditPanel
from ..panels.ids_panel import IdsPanel
from ..panels.library_panel import LibraryPanel
from ..panels.merges_panel import MergesPanel
from ..panels.roundtrip_panel import RoundTripPanel
from ..views.stats_view import StatsView
from ..panels.train_panel import TrainPanel
from ..views.vocab_view import VocabView

DOCK_MIN_WIDTH = 300
DOCK_MIN_HEIGHT = 260
SIDE_DOCK_WIDTH = 380  # the first width of the right-hand docks (the Library's is smaller)


@dataclass
class Docks:
    library: QDockWidget
    ids: QDockWidget
    merges: QDockWidget
    vocab: QDockWidget
    stats: QDockWidget
    train: QDockWidget
    edit: QDockWidget
    roundtrip: QDockWidget
    right_sized: bool = False  # the right-hand docks were given their first width

    def all(self) -> list[QDockWidget]:
        return [self.library, self.ids, self.merges, self.vocab, self.stats, self.train, self.edit, self.roundtrip]

    def right(self) -> list[QDockWidget]:
        """The right-hand docks, tabbed together."""
        return [self.merges, self.vocab, self.stats, self.train, self.edit, self.roundtrip]


def _dock(window: QMainWindow, title: str, name: str, panel: QWidget) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(panel)
    return dock


def build_docks(window: QMainWindow, library: LibraryPanel) -> Docks:
    """Create the panels (as window.ids_panel, window.merges_panel...) and dock them."""
    window.ids_panel = IdsPanel()
    window.merges_panel = MergesPanel()
    window.vocab_view = VocabView()
    window.stats_view = StatsView()
    window.train_panel = TrainPanel()
    window.edit_panel = EditPanel()
    window.roundtrip_panel = RoundTripPanel()
    docks = Docks(
        library=_dock(window, QCoreApplication.translate("Docks", "Library"), "LibraryDock", library),
        ids=_dock(window, QCoreApplication.translate("Docks", "Ids"), "IdsDock", window.ids_panel),
        merges=_dock(window, QCoreApplication.translate("Docks", "Merges"), "MergesDock", window.merges_panel),
        vocab=_dock(window, QCoreApplication.translate("Docks", "Vocabulary"), "VocabDock", window.vocab_view),
        stats=_dock(window, QCoreApplication.translate("Docks", "Statistics"), "StatsDock", window.stats_view),
        train=_dock(window, QCoreApplication.translate("Docks", "Training"), "TrainDock", window.train_panel),
        edit=_dock(window, QCoreApplication.translate("Docks", "Edit vocabulary"), "EditDock", window.edit_panel),
        roundtrip=_dock(window, QCoreApplication.translate("Docks", "Round trip"), "RoundTripDock",
                        window.roundtrip_panel),
    )
    docks.library.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, docks.library)
    window.resizeDocks([docks.library], [280], Qt.Orientation.Horizontal)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, docks.ids)
    window.resizeDocks([docks.ids], [170], Qt.Orientation.Vertical)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, docks.merges)
    for dock in docks.right()[1:]:
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        window.tabifyDockWidget(docks.merges, dock)
    for dock in docks.right():
        dock.hide()  # (View menu; where they were is remembered)
        dock.visibilityChanged.connect(lambda visible, d=dock: _first_shown(window, docks, d, visible))
    return docks


def _first_shown(window: QMainWindow, docks: Docks, dock: QDockWidget, visible: bool) -> None:
    """The right-hand docks open SIDE_DOCK_WIDTH wide the first time (their own size hint is small, so
    that they can shrink), unless the user has made them another width since."""
    if not visible or docks.right_sized or dock.isFloating():
        return
    docks.right_sized = True
    if dock.width() < SIDE_DOCK_WIDTH:
        window.resizeDocks([dock], [SIDE_DOCK_WIDTH], Qt.Orientation.Horizontal)
