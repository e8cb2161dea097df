"""A one-line legend under the token view: what the active colour mode's colours mean, and the
markers drawn inside tokens."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from .coloring import legend_entries, mode_name, theme_text_color
from ..widgets.style import DEFAULT_THEME, TokenTheme


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

    def markers_text(self) -> str:
        """What the whitespace markers and byte chips drawn inside tokens mean (two spaces between
        the entries)."""
        return self.tr("· space  → tab  ↵ newline  e5 a byte of a character cut between tokens")

    def _update(self) -> None:
        theme = self._theme
        swatches = "&nbsp;&nbsp; ".join(
            f"<span style='background:{fill}; color:{theme_text_color(fill, theme, fill in theme.special)};'>"
            f"&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;{label}" for fill, label in self.entries())
        markers = self.markers_text().replace("  ", "&nbsp;&nbsp; ")
        markers = f"&nbsp;&nbsp;|&nbsp;&nbsp;{markers}" if self._markers else ""
        title = self.tr("{mode}:").format(mode=mode_name(self._mode))
        legend = f"<span style='color:{theme.message_text}'>{title}</span>&nbsp; {swatches}{markers}"
        self.setText(legend)  # (markup around translated texts)
