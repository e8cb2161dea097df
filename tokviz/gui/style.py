"""Fonts and colours shared by the views (one place to change them; themes will grow from here)."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontInfo

# Families tried in order for the monospace views; fontconfig fills in CJK and emoji glyphs
# (WenQuanYi Micro Hei, Noto Color Emoji) from whatever is installed.
MONO_FAMILIES = ("DejaVu Sans Mono", "JetBrains Mono", "Cascadia Mono", "Menlo", "Consolas", "Liberation Mono")


def mono_font(point_size: float = 10.5) -> QFont:
    """A monospace font for text and tokens: the first installed of MONO_FAMILIES, else the system's."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    families = set(QFontDatabase.families())
    for family in MONO_FAMILIES:
        if family in families:
            font = QFont(family)
            break
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(point_size)
    return font


def is_monospace(font: QFont) -> bool:
    return QFontInfo(font).fixedPitch()


@dataclass(frozen=True)
class TokenTheme:
    """Colours of the token view.  Backgrounds are light pastels with dark text; the palette is
    cycled by token index, so two neighbouring tokens never share a colour (len(palette) >= 2), and
    each box also gets a thin darker border of its own hue."""

    palette: tuple[str, ...] = (
        "#ffd1d1",  # rose
        "#c9e2ff",  # sky
        "#cdf0c4",  # mint
        "#ffe4a8",  # amber
        "#e2d4ff",  # lavender
        "#bfeeea",  # teal
        "#ffd3ea",  # pink
        "#e4eeb6",  # lime
    )
    special: tuple[str, ...] = ("#2e3a55", "#6a2c5c")  # dark fills, alternated: specials stand out
    special_text: str = "#ffffff"
    special_outline: str = "#0b1020"
    text: str = "#1b1f24"
    marker: str = "#6f7b8a"  # whitespace markers · → ↵ inside a token
    gap_text: str = "#a3acb7"  # source text no token covers (e.g. spaces a WordPiece model drops)
    chip_fill: str = "#ffffff"
    chip_text: str = "#4a3a8c"
    chip_outline: str = "#7d6bc2"
    background: str = "#fcfcfd"
    hover_outline: str = "#11161d"
    current_outline: str = "#d9480f"
    truncation: str = "#e03131"  # the bar where a max length cuts the tokens
    message_text: str = "#8a94a0"
    border_darker: int = 135  # QColor.darker factor for each box's border

    def fill(self, index: int, special: bool) -> QColor:
        if special:
            return QColor(self.special[index % len(self.special)])
        return QColor(self.palette[index % len(self.palette)])


DEFAULT_THEME = TokenTheme()

# Qt style sheet for the chrome around the views (headers, status bar).
CHROME_QSS = """
QLabel#PaneHeader {
    background: #f1f3f6;
    border-bottom: 1px solid #dde1e6;
    padding: 5px 10px;
    color: #2b3340;
}
QStatusBar { border-top: 1px solid #dde1e6; }
QStatusBar QLabel { padding: 0 6px; color: #2b3340; }
QFrame#StatusSeparator { color: #cfd5dc; margin: 4px 0; }
QSplitter::handle { background: #dde1e6; }
"""
