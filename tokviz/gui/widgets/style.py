"""Fonts and colours shared by the views (one place to change them; themes will grow from here)."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import QApplication, QDockWidget, QFrame, QLabel, QSplitter, QStatusBar, QWidget

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


# (header background, border, text, status separator) of the chrome in each theme
CHROME_COLOURS = {"light": ("#f1f3f6", "#dde1e6", "#2b3340", "#cfd5dc"),
                  "dark": ("#252a33", "#363c47", "#dfe3ea", "#4a515e")}
CHROME_THEME_PROPERTY = "chromeTheme"


def chrome_qss(root: str = "#TokvizMainWindow") -> str:
    """Qt style sheet for the chrome around the views (pane headers, status bar, splitters) in both
    themes: set once on the widget `root` selects, whose CHROME_THEME_PROPERTY ('light' or 'dark')
    picks the colours (`set_chrome_theme`), so that a theme switch re-styles only the chrome."""
    rules = []
    for name, (header_bg, border, text, sep) in CHROME_COLOURS.items():
        scope = f'{root}[{CHROME_THEME_PROPERTY}="{name}"]'
        rules.append(f"""
{scope} QLabel#PaneHeader {{
    background: {header_bg};
    border-bottom: 1px solid {border};
    padding: 5px 10px;
    color: {text};
}}
{scope} QStatusBar {{ border-top: 1px solid {border}; }}
{scope} QStatusBar QLabel {{ padding: 0 6px; color: {text}; }}
{scope} QFrame#StatusSeparator {{ color: {sep}; margin: 4px 0; }}
{scope} QSplitter::handle {{ background: {border}; }}
""")
    return "".join(rules)


def chrome_widgets(root: QWidget) -> list[QWidget]:
    """The widgets under `root` that chrome_qss styles (and the splitters' handles)."""
    out: list[QWidget] = list(root.findChildren(QLabel, "PaneHeader"))
    for bar in root.findChildren(QStatusBar):
        out += [bar, *bar.findChildren(QFrame)]  # (its labels and separators)
    for splitter in root.findChildren(QSplitter):
        out += [splitter, *(splitter.handle(i) for i in range(splitter.count()))]
    return out


def set_chrome_theme(root: QWidget, name: str) -> None:
    """Give `root` (styled with chrome_qss) the chrome colours of theme `name` ('light' or 'dark').
    Only the widgets the sheet styles are polished again: setting a style sheet on the window
    would re-polish every widget in it."""
    if root.property(CHROME_THEME_PROPERTY) == name:
        return
    root.setProperty(CHROME_THEME_PROPERTY, name)
    if not root.styleSheet():
        # Without this attribute a style sheet gives every widget under `root` a palette of its own,
        # which an application palette set later (the next theme's) would not reach.
        QApplication.setAttribute(Qt.ApplicationAttribute.AA_UseStyleSheetPropagationInWidgetStyles, True)
        root.setStyleSheet(chrome_qss(f"#{root.objectName()}" if root.objectName() else root.metaObject().className()))
        return
    for widget in chrome_widgets(root):
        style = widget.style()
        style.unpolish(widget)
        style.polish(widget)
        widget.update()


class _PendingTheme(QObject):
    """The theme a view out of sight takes when it comes into sight: when it is shown, or when its
    dock's tab is picked (Qt moves a tabbed dock that is not current out of sight without hiding
    it).  An event filter only while a theme waits."""

    def __init__(self, view: QWidget):
        super().__init__(view)
        self.setObjectName(_PENDING_THEME)
        self.theme: TokenTheme | None = None
        dock = dock_of(view)
        if dock is not None:
            dock.visibilityChanged.connect(self._dock_visibility_changed)

    def wait(self, theme: TokenTheme) -> None:
        if self.theme is None:
            self.parent().installEventFilter(self)
        self.theme = theme

    def take(self) -> TokenTheme | None:
        theme, self.theme = self.theme, None
        if theme is not None:
            self.parent().removeEventFilter(self)
        return theme

    def apply(self) -> None:
        theme = self.take()
        if theme is not None:
            self.parent().set_theme(theme)

    @Slot(bool)
    def _dock_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.apply()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Show and watched is self.parent():
            self.apply()
        return False


_PENDING_THEME = "tokvizPendingTheme"


def dock_of(widget: QWidget) -> QDockWidget | None:
    """The dock widget `widget` is in, if any."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def in_sight(widget: QWidget) -> bool:
    """Whether `widget` can be seen: shown, and not in a tabbed dock whose tab is not the current
    one (Qt moves such a dock off the window rather than hiding it)."""
    if not widget.isVisible():
        return False
    dock = dock_of(widget)
    return dock is None or not dock.visibleRegion().isEmpty()


def set_theme_when_shown(view: QWidget, theme: TokenTheme, *, defer: bool = True) -> None:
    """view.set_theme(theme) now if the view is in sight (or not `defer`), else just before it comes
    into sight: a hidden view's plots and tables are redrawn once, in the theme it is seen in."""
    pending = view.findChild(QObject, _PENDING_THEME, Qt.FindChildOption.FindDirectChildrenOnly)
    if not defer or in_sight(view):
        if pending is not None:
            pending.take()
        view.set_theme(theme)
        return
    if pending is None:
        pending = _PendingTheme(view)
    pending.wait(theme)


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
