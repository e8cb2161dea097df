"""The Ids panel: the ids in three styles, copy, and decoding pasted ids back to tokens and text."""
from __future__ import annotations

import pytest

from tokviz.core.ids import encoding_from_ids, format_ids, parse_ids
from tokviz.errors import TokvizError

from .helpers import shared_tokenizer

TEXT = "Tokens: 中文的分词 and émoji 🙂, spaces  and\ttabs.\n"


def test_ids_round_trip_through_the_panel(qtbot, make_window):
    window = make_window(shared_tokenizer("cl100k_base.tiktoken"), TEXT)
    panel = window.ids_panel
    encoding = window.token_view.encoding()
    for style in range(panel.style_box.count()):
        panel.style_box.setCurrentIndex(style)
        assert parse_ids(panel.ids_view.toPlainText()) == encoding.ids
        panel.copy_ids()
        from PySide6.QtGui import QGuiApplication

        pasted = QGuiApplication.clipboard().text()
        panel.decode_input.setText(pasted)
        decoded = panel.decode_input_ids()
        assert decoded is not None and decoded.ids == encoding.ids
        assert window.tokenizer().decode(decoded.ids) == TEXT
        assert repr(TEXT) in panel.decoded_text.text()
    # byte-level tokens holding part of a Chinese character are shown as byte chips
    partial = [t for t, p in zip(decoded.tokens, decoded.partial) if p]
    assert partial and all(t.startswith("⟨") and t.endswith("⟩") for t in partial)
    assert panel.decoded_tokens.encoding() is decoded
    assert panel.count_label.text() == f"{len(encoding.ids)} ids"


def test_bad_ids_are_explained_not_raised(qtbot, make_window):
    window = make_window(text="abc")
    panel = window.ids_panel
    for text, message in (("1 2 x", "numbers"), ("99999999", "not in the vocabulary"), ("-3", "negative")):
        panel.decode_input.setText(text)
        assert panel.decode_input_ids() is None
        assert message in panel.decoded_text.text()


def test_ids_helpers():
    assert format_ids([1, 2, 3], "space") == "1 2 3"
    assert format_ids([1, 2, 3], "comma") == "1, 2, 3"
    assert format_ids([1, 2, 3], "list") == "[1, 2, 3]"
    assert parse_ids("[1, 2,3]\n(4) 5") == [1, 2, 3, 4, 5]
    with pytest.raises(TokvizError):
        format_ids([1], "xml")
    import tokviz
    from tokviz.defaults import default_tokenizer_path

    tok = tokviz.load(default_tokenizer_path())
    ids = tok.encode("hello <|endoftext|>", allow_special=True).ids
    enc = encoding_from_ids(tok, ids)
    assert enc.special[-1] and enc.tokens[-1] == "<|endoftext|>"
    assert [enc.text[a:b] for a, b in enc.offsets] == enc.tokens


def test_ids_panel_keeps_a_small_minimum_and_fits_a_side_dock(qtbot):
    """Its minimum width was 374 px (a 80 px Copy and Decode each, the count line beside the style
    box); moved to a side dock it still shows everything."""
    import tokviz
    from tokviz.defaults import default_tokenizer_path
    from tokviz.gui.panels.ids_panel import MAX_SHOWN_IDS, IdsPanel

    from .helpers import DOCK_PANEL_MAX_MIN_HEIGHT, DOCK_PANEL_MAX_MIN_WIDTH, clipped_widgets, docked

    tok = tokviz.load(default_tokenizer_path())
    panel = IdsPanel()
    panel.set_tokenizer(tok)
    encoding = tok.encode(TEXT * 2000)
    assert len(encoding.ids) > MAX_SHOWN_IDS
    panel.set_encoding(encoding)
    hint = panel.minimumSizeHint()
    assert hint.width() <= DOCK_PANEL_MAX_MIN_WIDTH and hint.height() <= DOCK_PANEL_MAX_MIN_HEIGHT
    window, dock = docked(qtbot, panel, dock_width=320, area="right")
    qtbot.waitUntil(lambda: abs(dock.width() - 320) <= 2, timeout=5_000)
    panel.decode_input.setText(format_ids(tok.encode(TEXT).ids, "list"))
    panel.decode_button.click()
    assert repr(TEXT) in panel.decoded_text.text()
    assert "shown" in panel.count_label.text()
    assert clipped_widgets(panel) == []


def test_ids_changed_while_the_dock_is_closed_are_shown_when_it_opens(qtbot, make_window):
    from .helpers import wait_encoded

    window = make_window(None, "first text")
    wait_encoded(qtbot, window, "first text")
    panel = window.ids_panel
    window.ids_dock.close()
    window.editor.setPlainText(TEXT)
    encoding = wait_encoded(qtbot, window, TEXT)
    assert parse_ids(panel.ids_view.toPlainText()) != encoding.ids  # (not laid out while closed)
    window.ids_dock.show()
    qtbot.waitUntil(panel.isVisible)
    assert parse_ids(panel.ids_view.toPlainText()) == encoding.ids
    assert panel.count_label.text() == f"{len(encoding.ids)} ids"
