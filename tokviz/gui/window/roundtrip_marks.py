"""The Round trip dock's findings marked in the token view: the tokens the normalizer changed are
underlined orange, those that do not come back from decode red, while the dock is shown and the
token view shows the text it analysed."""
from __future__ import annotations

from PySide6.QtCore import QObject

from ...analysis.roundtrip import tokens_touched
from ...core.token_array import offsets_arrays
from ..panels.roundtrip_panel import DECODE_COLOR, NORMALIZER_COLOR


class RoundTripMarks(QObject):
    """Underlines in `window.token_view` what `window.roundtrip_panel` found (window: a MainWindow)."""

    def __init__(self, window):
        super().__init__(window)
        self.dock = window.roundtrip_dock
        self.panel = window.roundtrip_panel
        self.view = window.token_view
        self.dock.visibilityChanged.connect(self.dock_shown)
        self.panel.finished.connect(self.mark)

    def dock_shown(self, visible: bool) -> None:
        report = self.panel.report
        if visible and report is not None and not self.panel.is_busy():
            self.mark(report)
        elif not visible:
            self.view.set_underlines([])

    def mark(self, report) -> None:
        """Underline the tokens `report` (a RoundTripReport) found changed, when the view shows the
        analysed text and the dock is shown; else clear the underlines."""
        enc = self.view.encoding()
        if enc is None or len(enc.text) != report.text_length or not self.dock.isVisible():
            self.view.set_underlines([])
            return
        starts, ends = offsets_arrays(enc)
        self.view.set_underlines([
            (NORMALIZER_COLOR, tokens_touched(report.normalizer_changes, starts, ends)),
            (DECODE_COLOR, tokens_touched(report.decode_differences, starts, ends))])
