"""Colour modes of the token view (View > Colour tokens by)."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from tokviz.gui.views.coloring import MODES, id_fill
from tokviz.gui.widgets.style import LIGHT

NEUTRAL, PARTIAL, UNKNOWN = LIGHT.neutral, LIGHT.partial_fill, LIGHT.unknown_fill

from .helpers import shared_tokenizer

TEXT = "Hello hello, 中文分词 tokens tokens 🙂 ☃"


def test_every_mode_colours_the_tokens_as_it_says(qtbot, make_window):
    window = make_window(shared_tokenizer("cl100k_base.tiktoken"), TEXT)
    view = window.token_view
    enc = view.encoding()
    assert len(window.color_actions.actions()) == len(MODES)

    window.set_color_mode("token")
    colors = [s.color for s in view.spans()]
    assert all(a != b for a, b in zip(colors, colors[1:]))  # neighbours always differ

    window.set_color_mode("id")
    by_id = {}
    for s in view.spans():
        by_id.setdefault(enc.ids[s.index], set()).add(s.color)
    assert all(len(c) == 1 for c in by_id.values())  # one colour per id
    assert view.color_of(0) == QColor(id_fill(enc.ids[0], LIGHT)).name()

    window.set_color_mode("partial")
    for s in view.spans():
        assert s.color == (PARTIAL if s.partial else NEUTRAL)
    assert any(s.partial for s in view.spans())

    window.set_color_mode("length")
    short = [QColor(s.color).lightness() for s in view.spans() if len(enc.token_bytes[s.index]) == 1]
    long = [QColor(s.color).lightness() for s in view.spans() if len(enc.token_bytes[s.index]) >= 6]
    assert short and long and min(short) > max(long)  # longer tokens are darker

    window.set_color_mode("rank")
    by_rank = sorted(range(len(enc)), key=lambda i: enc.ids[i])
    first, last = by_rank[0], by_rank[-1]
    assert QColor(view.color_of(first)).lightness() > QColor(view.color_of(last)).lightness()
    assert [a.isChecked() for a in window.color_actions.actions()].count(True) == 1
    assert window.settings.value("view/color_mode") == "rank"


def test_special_mode_marks_unknown_tokens(qtbot, make_window):
    window = make_window(shared_tokenizer("bert-minilm/vocab.txt"), "snow ☃ and [SEP] here")
    window.set_color_mode("special")
    view = window.token_view
    enc = view.encoding()
    unk = enc.ids.index(window.tokenizer().model.vocab["[UNK]"])
    assert view.color_of(unk) == UNKNOWN
    sep = enc.pieces.index("[SEP]")
    assert enc.special[sep] and view.color_of(sep) not in (UNKNOWN, NEUTRAL)
    assert view.color_of(0) == NEUTRAL


def test_dark_theme_keeps_the_modes_readable(qtbot, make_window):
    window = make_window(shared_tokenizer("cl100k_base.tiktoken"), TEXT)
    window.set_theme("dark")
    assert window.is_dark() and window.settings.value("view/theme") == "dark"
    text = QColor(window.token_view.theme.text)
    for mode in MODES:
        window.set_color_mode(mode)
        for s in window.token_view.spans():
            if not s.special:
                # light text on every fill: the fill is clearly darker than the text
                assert QColor(s.color).lightness() < text.lightness() - 60, (mode, s.color)
    window.set_theme("light")
    assert not window.is_dark()


# -- text readable on every fill (WCAG contrast) ------------------------------------------------------------

class _Tokens:
    """What `token_fills` reads of an Encoding: ids, bytes, special and partial flags."""

    def __init__(self, ids, lengths, special, partial):
        self.ids, self.special, self.partial = ids, special, partial
        self.token_bytes = [b"x" * n for n in lengths]

    def __len__(self):
        return len(self.ids)


def _every_fill(mode, theme):
    """(fill, special) of every kind of token `mode` colours: ids 0..4999, lengths 1..40 bytes, ranks 0..1,
    special, partial and unknown tokens."""
    from tokviz.gui.views.coloring import token_fills

    n = 5000
    ids = list(range(n))
    lengths = [1 + i % 40 for i in range(n)]
    special = [i % 97 == 0 for i in range(n)]
    partial = [i % 5 == 0 for i in range(n)]
    fills = token_fills(_Tokens(ids, lengths, special, partial), mode, theme, rank_of=lambda i: i / (n - 1), unk_id=3)
    return set(zip(fills, special))


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("mode", list(MODES))
def test_text_is_readable_on_every_fill(mode, theme):
    from tokviz.gui.views.coloring import MIN_CONTRAST, contrast, theme_text_color
    from tokviz.gui.widgets.style import THEMES

    theme = THEMES[theme]
    fills = _every_fill(mode, theme)
    assert len(fills) >= (3 if mode in ("partial", "special") else 8)
    for fill, special in fills:
        text = theme_text_color(fill, theme, special)
        assert contrast(fill, text) >= MIN_CONTRAST, (mode, fill, text)
        if contrast(fill, theme.special_text if special else theme.text) >= MIN_CONTRAST:
            assert text == (theme.special_text if special else theme.text)  # (the theme's own, where it is readable)


def test_the_last_rank_gets_light_text_on_a_light_theme():
    from tokviz.gui.views.coloring import _scale, contrast, theme_text_color

    last = _scale(1.0, LIGHT)
    assert contrast(last, LIGHT.text) < 4.5  # (the dark blue end of the scale: black text was hard to read)
    assert theme_text_color(last, LIGHT) == LIGHT.special_text == "#ffffff"
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_token_view_draws_readable_text_in_every_mode(qtbot, make_window, theme):
    from tokviz.gui.views.coloring import MIN_CONTRAST, contrast

    window = make_window(shared_tokenizer("cl100k_base.tiktoken"), TEXT + " differently every tokenizer")
    window.set_theme(theme)
    try:
        _check_drawn_text(window)
    finally:
        window.set_theme("light")  # (the app's palette is global: later windows start on the light one)


def _check_drawn_text(window) -> None:
    from tokviz.gui.views.coloring import MIN_CONTRAST, contrast

    view = window.token_view
    flipped = False
    for mode in MODES:
        window.set_color_mode(mode)
        for s in view.spans():
            text = view.text_color_of(s.index)
            assert contrast(s.color, text) >= MIN_CONTRAST, (mode, s.display, s.color, text)
            flipped |= text != (view.theme.special_text if s.special else view.theme.text)
    assert flipped  # (some fill took the other text colour)
    # and it is what is painted: the pixels of a token's text include its text colour
    window.set_color_mode("rank")
    last = max(range(len(view.encoding())), key=lambda i: view.encoding().ids[i])
    image = view.viewport().grab().toImage()
    rect = view.token_rects(last)[0].toAlignedRect()
    ratio = image.devicePixelRatio()
    wanted = QColor(view.text_color_of(last))
    assert abs(QColor(view.color_of(last)).lightness() - wanted.lightness()) > 60
    colors = {image.pixelColor(int(x * ratio), int(y * ratio)).name()
              for x in range(rect.left(), rect.right()) for y in range(rect.top(), rect.bottom())}
    assert any(abs(QColor(c).lightness() - wanted.lightness()) < 40 for c in colors)
