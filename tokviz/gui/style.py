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
    selection: str = "#1c7ed6"  # overlay on selected tokens
    neutral: str = "#eef0f3"   # colour modes: tokens that are not the ones picked out
    partial_fill: str = "#ffb86b"
    unknown_fill: str = "#ff8a8a"
    lightness: float = 0.84    # of the generated fills (colour by id, length, rank)
    scale_dark_end: float = 0.30  # how much darker the far end of a length / rank scale is
    message_text: str = "#8a94a0"
    border_darker: int = 135  # QColor.darker factor for each box's border

    def fill(self, index: int, special: bool) -> QColor:
        if special:
            return QColor(self.special[index % len(self.special)])
        return QColor(self.palette[index % len(self.palette)])


DEFAULT_THEME = TokenTheme()
LIGHT = DEFAULT_THEME
# Dark: deeper, less saturated fills with light text; the same neighbours-differ cycling.
DARK = TokenTheme(
    palette=("#7a3b44", "#2f5680", "#356b3a", "#7a6326", "#54447f", "#2b6b66", "#7d3a62", "#5c6a2a"),
    special=("#d7dcef", "#efc6e4"),
    special_text="#12151c",
    special_outline="#ffffff",
    text="#eceff4",
    marker="#a9b3c1",
    gap_text="#6b7482",
    chip_fill="#1d2230",
    chip_text="#c9bcff",
    chip_outline="#8f7fe0",
    background="#181b21",
    hover_outline="#ffffff",
    current_outline="#ff922b",
    message_text="#8a94a0",
    truncation="#ff6b6b",
    selection="#74c0fc",
    neutral="#2c313a",
    partial_fill="#a8642a",
    unknown_fill="#a33a3a",
    lightness=0.34,
    scale_dark_end=-0.14,  # (on dark, the far end of a scale is brighter)
    border_darker=70,  # (darker() below 100 makes the border lighter than the fill)
)
THEMES = {"light": LIGHT, "dark": DARK}


def chrome_qss(dark: bool) -> str:
    """Qt style sheet for the chrome around the views (pane headers, status bar, splitters)."""
    header_bg, border, text, sep = ("#252a33", "#363c47", "#dfe3ea", "#4a515e") if dark else \
        ("#f1f3f6", "#dde1e6", "#2b3340", "#cfd5dc")
    return f"""
QLabel#PaneHeader {{
    background: {header_bg};
    border-bottom: 1px solid {border};
    padding: 5px 10px;
    color: {text};
}}
QStatusBar {{ border-top: 1px solid {border}; }}
QStatusBar QLabel {{ padding: 0 6px; color: {text}; }}
QFrame#StatusSeparator {{ color: {sep}; margin: 4px 0; }}
QSplitter::handle {{ background: {border}; }}
"""


CHROME_QSS = chrome_qss(False)


def system_prefers_dark() -> bool:
    """The desktop's colour scheme (Qt 6.5+), else whether the window background is dark."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QPalette

    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        value = scheme()
        if value == Qt.ColorScheme.Dark:
            return True
        if value == Qt.ColorScheme.Light:
            return False
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette():
    """A dark QPalette for the Fusion style (used when the user picks Dark on a light desktop)."""
    from PySide6.QtGui import QPalette

    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#20242b", QPalette.ColorRole.WindowText: "#e6e9ef",
        QPalette.ColorRole.Base: "#181b21", QPalette.ColorRole.AlternateBase: "#232832",
        QPalette.ColorRole.Text: "#e6e9ef", QPalette.ColorRole.Button: "#2a2f38",
        QPalette.ColorRole.ButtonText: "#e6e9ef", QPalette.ColorRole.Highlight: "#3d6fb6",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#2a2f38",
        QPalette.ColorRole.ToolTipText: "#e6e9ef", QPalette.ColorRole.PlaceholderText: "#7d8591",
        QPalette.ColorRole.Link: "#74a7ff",
    }
    for role, color in roles.items():
        p.setColor(role, QColor(color))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#6b7280"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#6b7280"))
    return p
