"""Which characters of a text no installed font can draw (Qt would show boxes for them).

Checked the way Qt draws: the characters are laid out with the token view's font and its fallbacks;
a character drawn with glyph 0 (a font's "missing" glyph), by Qt's box engine (its stand-in when no
font has the script) or not at all has no font.  Results are cached per character and font family:
a text is checked once, for the characters not seen before, a budget at a time (`check`)."""
from __future__ import annotations

import unicodedata

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QTextLayout

_known: dict[tuple[str, str], bool] = {}  # (family, char) -> drawable
CHECK_BUDGET = 300  # new characters checked per call (~70 µs each, the first time)


def _needs_glyph(c: str) -> bool:
    if c.isascii():
        return False
    category = unicodedata.category(c)
    return category[0] not in "CZ" and category not in ("Mn", "Me")  # (marks are drawn with their base)


def _drawable(font: QFont, c: str) -> bool:
    layout = QTextLayout(c, font)  # (one character at a time: glyph clusters never mix characters)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    flags = QTextLayout.GlyphRunRetrievalFlag.RetrieveGlyphIndexes
    runs = layout.glyphRuns(0, -1, flags)
    # Qt draws a script no font has with a "box" engine: no size of its own, boxes for glyphs
    return bool(runs) and all(run.rawFont().pixelSize() > 0 and 0 not in run.glyphIndexes() for run in runs)


def script_name(c: str) -> str:
    """A readable name for the script (or kind) of character `c`, from its Unicode name."""
    category = unicodedata.category(c)
    if category.startswith("S"):
        return QCoreApplication.translate("fonts", "symbols and emoji")
    if category.startswith("P"):
        return QCoreApplication.translate("fonts", "punctuation")
    name = unicodedata.name(c, "")
    if not name:
        return f"U+{ord(c):04X}"
    if name.startswith(("CJK", "KANGXI", "IDEOGRAPHIC")):
        return QCoreApplication.translate("fonts", "Chinese/Japanese characters")
    first = name.split()[0]
    return {"HANGUL": QCoreApplication.translate("fonts", "Korean (Hangul)"),
            "HIRAGANA": QCoreApplication.translate("fonts", "Japanese kana"),
            "KATAKANA": QCoreApplication.translate("fonts", "Japanese kana"),
            "OLD": " ".join(name.split()[:2]).title()}.get(first, first.title())


def check(text: str, font: QFont, budget: int = CHECK_BUDGET) -> bool:
    """Check up to `budget` characters of `text` not checked before; True when all of them are."""
    family = font.family()
    new = [c for c in set(text) if (family, c) not in _known and _needs_glyph(c)]
    for c in new[:budget]:
        _known[(family, c)] = _drawable(font, c)
    return len(new) <= budget


def missing_characters(text: str, font: QFont) -> list[str]:
    """The distinct characters of `text` (in order of first appearance) that no installed font draws,
    among those checked (`check`)."""
    family = font.family()
    missing = {c for c in set(text) if not _known.get((family, c), True)}
    return sorted(missing, key=text.index) if missing else []


def missing_scripts(text: str, font: QFont) -> list[str]:
    """The scripts of `text` with characters no installed font draws, among those checked (`check`),
    most characters first."""
    counts: dict[str, int] = {}
    for c in missing_characters(text, font):
        name = script_name(c)
        counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda n: -counts[n])
