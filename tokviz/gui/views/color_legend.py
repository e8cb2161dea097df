"""A one-line legend under the token view: what the active colour mode's colours mean, and the
markers drawn inside tokens."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from .coloring import MODES, legend_entries
from ..widgets.style import DEFAULT_THEME, TokenTheme

MARKERS = "· space  → tab  ↵ newline  e5 a byte of a character cut between tokens"


class ColorLegend(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("ColorLegend")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setContentsMargins(8, 2, 8, 2)
        self._mode = "token"
        self._theme = DEFAULT_THEME
        self._markers = True
        self._update()

    def set_mode(self, mode: str) -> None:
        self._mode = mode
        self._update()

    def set_theme(self, theme: TokenTheme) -> None:
        self._theme = theme
        self._update()

    def set_show_markers(self, on: bool) -> None:
        """Explain the whitespace markers (when the token view draws them)."""
        self._markers = on
        self._update()

    def entries(self) -> list[tuple[str, str]]:
        return legend_entries(self._mode, self._theme)

    def _update(self) -> None:
        theme = self._theme
        swatches = "&nbsp;&nbsp; ".join(
            f"<span style='background:{fill}; color:{theme.special_text if fill in theme.special else theme.text};'>"
            f"&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;{label}" for fill, label in self.entries())
        markers = f"&nbsp;&nbsp;|&nbsp;&nbsp;{MARKERS.replace('  ', '&nbsp;&nbsp; ')}" if self._markers else ""
        self.setText(f"<span style='color:{theme.message_text}'>{MODES[self._mode]}:</span>&nbsp; "
                     f"{swatches}{markers}")
