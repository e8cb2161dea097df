"""How the token view colours tokens: by position (neighbours always differ), by id, by length, by
vocabulary rank, or to pick out partial-UTF-8 tokens or special and unknown ones.

`token_fills(encoding, mode, ...)` gives one '#rrggbb' fill per token; special tokens keep the
theme's dark fills in every mode but "special", where unknown tokens are also marked.
`text_color(fill, preferred)` is the colour of the text drawn on a fill: the theme's when it is
readable there (WCAG contrast of at least 4.5), else the one that is (the darkest end of a scale
takes light text on a light theme).

`MODES` maps each mode to its English name, marked for translation in the "ColorMode" context:
show `mode_name(mode)` (or `QCoreApplication.translate("ColorMode", MODES[mode])`).
"""
from __future__ import annotations

import colorsys
from collections.abc import Callable
from functools import lru_cache

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

from ...core import Encoding
from ..widgets.style import TokenTheme

MODES = {
    "token": QT_TRANSLATE_NOOP("ColorMode", "Token (alternating)"),
    "id": QT_TRANSLATE_NOOP("ColorMode", "Id"),
    "length": QT_TRANSLATE_NOOP("ColorMode", "Length in bytes"),
    "rank": QT_TRANSLATE_NOOP("ColorMode", "Vocabulary rank"),
    "partial": QT_TRANSLATE_NOOP("ColorMode", "Partial UTF-8"),
    "special": QT_TRANSLATE_NOOP("ColorMode", "Special and unknown"),
}
MAX_LENGTH = 12  # bytes: the length scale tops out here
MIN_CONTRAST = 4.5  # WCAG AA for normal text: text on every fill is at least this readable


def mode_name(mode: str) -> str:
    """The name of a colour mode, in the app's language (what View > Colour tokens by shows)."""
    return QCoreApplication.translate("ColorMode", MODES[mode])


@lru_cache(maxsize=4096)
def luminance(color: str) -> float:
    """WCAG relative luminance of a '#rrggbb' colour (0: black .. 1: white)."""
    def channel(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(color[k:k + 2], 16) for k in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two '#rrggbb' colours (1 .. 21)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


@lru_cache(maxsize=4096)
def text_color(fill: str, preferred: str, other: str = "#ffffff") -> str:
    """The colour of text on `fill`: `preferred` (the theme's text) when its contrast with the fill
    is at least MIN_CONTRAST, else `other` (the theme's text of the opposite lightness) if that is,
    else whichever of black and white is more readable (at least 4.58 on any fill)."""
    fill, preferred, other = fill.lower(), preferred.lower(), other.lower()
    if contrast(fill, preferred) >= MIN_CONTRAST:
        return preferred
    if contrast(fill, other) >= MIN_CONTRAST:
        return other
    return max(("#000000", "#ffffff"), key=lambda c: contrast(fill, c))


def theme_text_color(fill: str, theme: TokenTheme, special: bool = False) -> str:
    """The text colour of a token box of `fill` in `theme` (a special token's: the theme's
    special_text when readable)."""
    preferred, other = (theme.special_text, theme.text) if special else (theme.text, theme.special_text)
    return text_color(fill, preferred, other)


def _pastel(hue: float, lightness: float = 0.84, saturation: float = 0.75) -> str:
    r, g, b = colorsys.hls_to_rgb(hue % 1.0, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _scale(t: float, theme: TokenTheme) -> str:
    """A sequential scale from yellow (0) to blue (1), its far end darker on a light theme (brighter
    on a dark one); the text stays readable on both ends."""
    t = min(max(t, 0.0), 1.0)
    return _pastel(0.15 + 0.5 * t, theme.lightness + 0.04 - theme.scale_dark_end * t, 0.70)


def id_fill(token_id: int, theme: TokenTheme | None = None) -> str:
    """A stable colour for an id: hues spread by the golden ratio, so close ids look different."""
    return _pastel(token_id * 0.6180339887, theme.lightness if theme is not None else 0.84)


def token_fills(
    encoding: Encoding,
    mode: str,
    theme: TokenTheme,
    *,
    rank_of: Callable[[int], float] | None = None,
    unk_id: int | None = None,
    indices: range | None = None,
) -> list[str]:
    """One fill per token (of the tokens in `indices`, default all).  `rank_of(id)` -> 0 (first /
    most frequent) .. 1 (last) for "rank"."""
    if mode not in MODES:
        raise ValueError(f"unknown colour mode {mode!r} (choose from {', '.join(MODES)})")
    fills = []
    for i in range(len(encoding)) if indices is None else indices:
        special = bool(encoding.special[i])
        if special and mode != "special":
            fills.append(theme.special[i % len(theme.special)])
        elif mode == "token":
            fills.append(theme.palette[i % len(theme.palette)])
        elif mode == "id":
            fills.append(id_fill(encoding.ids[i], theme))
        elif mode == "length":
            fills.append(_scale((len(encoding.token_bytes[i]) - 1) / (MAX_LENGTH - 1), theme))
        elif mode == "rank":
            fills.append(_scale(rank_of(encoding.ids[i]), theme) if rank_of is not None else theme.neutral)
        elif mode == "partial":
            fills.append(theme.partial_fill if encoding.partial[i] else theme.neutral)
        elif mode == "special":
            if special:
                fills.append(theme.special[i % len(theme.special)])
            else:
                fills.append(theme.unknown_fill if unk_id is not None and encoding.ids[i] == unk_id else theme.neutral)
    return fills


def rank_function(tokenizer) -> Callable[[int], float]:
    """id -> its place in the vocabulary from 0 to 1: the order of a BPE's merges (ids follow it),
    a Unigram's score order (most probable first), else the id order."""
    size = max(1, tokenizer.vocab_size - 1)
    scores = getattr(tokenizer.model, "scores", None)
    if tokenizer.model.kind == "Unigram" and scores is not None and len(scores):
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        place = [0] * len(scores)
        for r, i in enumerate(order):
            place[i] = r
        last = max(1, len(scores) - 1)
        return lambda i: place[i] / last if 0 <= i < len(place) else 1.0
    return lambda i: min(i / size, 1.0)


def unknown_id(tokenizer) -> int | None:
    model = tokenizer.model
    unk = getattr(model, "unk_id", None)
    if unk is None and getattr(model, "unk_token", None) is not None:
        unk = model.vocab.get(model.unk_token)
    return unk


def legend_entries(mode: str, theme: TokenTheme) -> list[tuple[str, str]]:
    """What the colours of `mode` mean: [(fill, label)], a scale as its two ends and middle."""
    if mode not in MODES:
        raise ValueError(f"unknown colour mode {mode!r} (choose from {', '.join(MODES)})")
    special = (theme.special[0], QCoreApplication.translate("ColorMode", "special token"))
    if mode == "token":
        return [(theme.palette[0], QCoreApplication.translate("ColorMode", "a token")),
                (theme.palette[1], QCoreApplication.translate("ColorMode", "the next token")), special]
    if mode == "id":
        return [(id_fill(1000, theme), QCoreApplication.translate("ColorMode", "each id its own colour")),
                (id_fill(1001, theme), QCoreApplication.translate("ColorMode", "id + 1")), special]
    if mode == "length":
        return [(_scale(0.0, theme), QCoreApplication.translate("ColorMode", "1 byte")),
                (_scale(0.5, theme),
                 QCoreApplication.translate("ColorMode", "{n} bytes").format(n=(MAX_LENGTH + 1) // 2)),
                (_scale(1.0, theme), QCoreApplication.translate("ColorMode", "{n}+ bytes").format(n=MAX_LENGTH)),
                special]
    if mode == "rank":
        return [(_scale(0.0, theme), QCoreApplication.translate("ColorMode", "first in the vocabulary")),
                (_scale(0.5, theme), QCoreApplication.translate("ColorMode", "middle")),
                (_scale(1.0, theme), QCoreApplication.translate("ColorMode", "last")), special]
    if mode == "partial":
        return [(theme.partial_fill, QCoreApplication.translate("ColorMode", "part of a character (partial UTF-8)")),
                (theme.neutral, QCoreApplication.translate("ColorMode", "whole characters")), special]
    return [special, (theme.unknown_fill, QCoreApplication.translate("ColorMode", "unknown token")),
            (theme.neutral, QCoreApplication.translate("ColorMode", "other tokens"))]
