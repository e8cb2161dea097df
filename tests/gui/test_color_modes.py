"""Colour modes of the token view (View > Colour tokens by)."""
from __future__ import annotations

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
