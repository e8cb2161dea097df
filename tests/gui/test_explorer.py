"""The explorer window: default start-up, live typing, colour-coded spans, markers, specials,
partial-UTF-8 chips, tooltips, error dialogs and drag and drop."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDropEvent, QHelpEvent, QTextCursor
from PySide6.QtWidgets import QToolTip

import tokviz
from tokviz import defaults
from tokviz.core.token_array import offsets_arrays
from tokviz.gui.window import main_window as main_window_module
from tokviz.gui.widgets.style import DEFAULT_THEME

from _shared import reference as oracle  # (loaded once per session)

from .helpers import SHARED, shared_tokenizer, wait_encoded


def assert_spans_match(view, expected):
    """The view's coloured spans are exactly the encoding's tokens: same count, offsets, order."""
    spans = view.spans()
    assert [(s.start, s.end) for s in spans] == [tuple(o) for o in expected.offsets]
    assert [s.index for s in spans] == list(range(len(expected)))
    enc = view.encoding()
    assert enc.ids == expected.ids
    # every token is drawn somewhere, and adjacent tokens never share a colour
    for s in spans:
        assert view.token_rects(s.index), f"token {s.index} is not laid out"
    for a, b in zip(spans, spans[1:]):
        assert a.color != b.color, f"tokens {a.index} and {b.index} share colour {a.color}"
    return spans


def dominant_color(image, rect) -> str:
    """Most frequent pixel colour inside `rect` (the box background, not the glyphs)."""
    counts = Counter()
    r = rect.toAlignedRect().adjusted(2, 2, -2, -2)
    for x in range(max(0, r.left()), min(image.width(), r.right() + 1)):
        for y in range(max(0, r.top()), min(image.height(), r.bottom() + 1)):
            counts[QColor(image.pixel(x, y)).name()] += 1
    return counts.most_common(1)[0][0]


# ---- start-up --------------------------------------------------------------------------------


def test_opens_on_default_tokenizer_and_sample_text(make_window, default_tokenizer_path):
    window = make_window()
    tok = window.tokenizer()
    assert tok is not None and Path(tok.source.path) == default_tokenizer_path
    assert window.current_text() == defaults.sample_text()
    expected = tokviz.load(default_tokenizer_path).encode(defaults.sample_text())
    assert_spans_match(window.token_view, expected)
    name = tok.source.name
    assert name in window.windowTitle()
    status = window.status_text()
    assert f"{len(expected):,} tokens" in status and "chars/token" in status and "bytes/token" in status
    header = window.tokenizer_header.text()
    assert "vocab" in header and f"{tok.vocab_size:,}" in header and "minbpe" in header
    assert window.errors == []


# ---- typing ------------------------------------------------------------------------------------


def test_typing_is_encoded_live_and_spans_match_offsets(qtbot, make_window, qwen_path):
    window = make_window(qwen_path, "")
    received = []
    window.controller.encoded.connect(lambda r: received.append(r.text))
    window.editor.setFocus()
    typed = "Hello world, this is tokviz! 12345 (ASCII: QTest.keyClicks cannot type other keys)"
    qtbot.keyClicks(window.editor, typed)
    enc = wait_encoded(qtbot, window, typed)
    assert window.editor_text() == typed
    expected = oracle(qwen_path).encode(typed)
    assert_spans_match(window.token_view, expected)
    assert received[-1] == typed
    assert f"{len(expected):,} tokens" in window.status_text()
    assert enc.ids == expected.ids

    # more typing: the view follows
    qtbot.keyClicks(window.editor, " more")
    wait_encoded(qtbot, window, typed + " more")
    assert_spans_match(window.token_view, oracle(qwen_path).encode(typed + " more"))


def test_boxes_are_painted_in_the_span_colours(qtbot, make_window, qwen_path):
    text = "The quick brown fox jumps over the lazy dog. 中文分词 and more words here"
    window = make_window(qwen_path, text)
    view = window.token_view
    spans = assert_spans_match(view, oracle(qwen_path).encode(text))
    image = view.viewport().grab().toImage()
    for span in spans[:12]:
        rect = view.token_rects(span.index)[0]
        assert rect.width() > 4
        assert dominant_color(image, rect) == span.color, f"token {span.index} {span.display!r}"


def test_token_at_point_finds_each_token(make_window, qwen_path):
    text = "alpha beta gamma\ndelta, epsilon; zeta!"
    window = make_window(qwen_path, text)
    view = window.token_view
    for span in view.spans():
        for rect in view.token_rects(span.index):
            assert view.token_at_point(rect.center().toPoint()) == span.index
    assert view.token_at_point(QPoint(3, 3)) is None  # the margin


# ---- what the boxes show --------------------------------------------------------------------


def test_whitespace_is_shown_with_markers_and_newlines_break_lines(make_window, qwen_path):
    text = "a b\tc\nnext line"
    window = make_window(qwen_path, text)
    view = window.token_view
    spans = view.spans()
    shown = "".join(s.display for s in spans)
    assert "·" in shown and "→" in shown and "↵" in shown
    assert " " not in shown and "\t" not in shown and "\n" not in shown
    nl = next(s for s in spans if "↵" in s.display)
    after = spans[nl.index + 1]
    # the token after the newline starts a new row, at the left margin
    nl_rect = view.token_rects(nl.index)[-1]
    after_rect = view.token_rects(after.index)[0]
    assert after_rect.top() > nl_rect.top()
    assert after_rect.left() < nl_rect.left()


def test_special_tokens_are_marked(make_window, qwen_path):
    text = "before <|endoftext|> after"
    tok = oracle(qwen_path)
    window = make_window(qwen_path, text)
    view = window.token_view
    spans = assert_spans_match(view, tok.encode(text))
    special = [s for s in spans if s.special]
    assert len(special) == 1
    s = special[0]
    assert view.encoding().ids[s.index] == tok.token_to_id("<|endoftext|>")
    assert s.display == "<|endoftext|>"
    assert s.color in DEFAULT_THEME.special and s.color not in DEFAULT_THEME.palette
    assert all(o.color in DEFAULT_THEME.palette for o in spans if not o.special)
    image = view.viewport().grab().toImage()
    assert dominant_color(image, view.token_rects(s.index)[0]) == s.color
    assert "special token" in view.tooltip_text(s.index)


def test_adjacent_special_tokens_still_differ(make_window, qwen_path):
    text = "<|im_start|><|im_end|><|endoftext|>"
    window = make_window(qwen_path, text)
    spans = window.token_view.spans()
    assert [s.special for s in spans] == [True, True, True]
    assert spans[0].color != spans[1].color != spans[2].color


def test_post_processor_specials_when_enabled(qtbot, make_window):
    bert = shared_tokenizer("bert-minilm/tokenizer.json")
    text = "Hello   world"
    window = make_window(bert, text)
    assert not any(s.special for s in window.token_view.spans())
    window.action_add_special.setChecked(True)
    qtbot.waitUntil(lambda: window.token_view.encoding() is not None and any(window.token_view.encoding().special))
    spans = window.token_view.spans()
    expected = tokviz.load(bert).encode(text, add_special_tokens=True)
    # (HF gives [SEP] the offsets (0, 0); the view shows it where it stands, after the text)
    starts, ends = offsets_arrays(expected)
    assert [(s.start, s.end) for s in spans] == list(zip(starts.tolist(), ends.tolist()))
    assert spans[-1].start == len(text) and tuple(expected.offsets[-1]) == (0, 0)
    assert spans[0].special and spans[0].display == "[CLS]" and spans[-1].display == "[SEP]"
    # WordPiece drops the spaces: they still show, faintly, between the boxes
    assert len(window.token_view.spans()) == len(expected)


def test_partial_utf8_tokens_show_byte_chips(make_window, qwen_path):
    text = "龘靐齉 are rare"
    tok = oracle(qwen_path)
    expected = tok.encode(text)
    assert any(expected.partial)
    window = make_window(qwen_path, text)
    spans = assert_spans_match(window.token_view, expected)
    for s in spans:
        data = expected.token_bytes[s.index]
        if s.partial:
            stray = [f"⟨{b:02x}⟩" for b in data if b >= 0x80]
            assert stray and all(chip in s.display for chip in stray)
            assert s.display == expected.tokens[s.index].replace(" ", "·")
        else:
            assert "⟨" not in s.display
    # several tokens share one character: their spans point at it
    first = [s for s in spans if (s.start, s.end) == (0, 1)]
    assert len(first) >= 2 and all(s.partial for s in first)


def test_default_byte_level_tokenizer_chips_on_chinese(make_window, default_tokenizer_path):
    text = "中文分词：一个汉字往往不是一个词"
    expected = tokviz.load(default_tokenizer_path).encode(text)
    window = make_window(default_tokenizer_path, text)
    spans = assert_spans_match(window.token_view, expected)
    partial = [s for s in spans if s.partial]
    assert partial, "the small demo tokenizer splits rare Chinese characters into bytes"
    assert all("⟨" in s.display for s in partial)


# ---- hover ---------------------------------------------------------------------------------------


def test_hover_tooltip_shows_id_piece_bytes_and_span(qtbot, make_window, qwen_path):
    text = "Hello 世界 again"
    tok = oracle(qwen_path)
    expected = tok.encode(text)
    window = make_window(qwen_path, text)
    view = window.token_view
    i = next(k for k, t in enumerate(expected.tokens) if t == "世界")
    tip = view.tooltip_text(i)
    assert str(expected.ids[i]) in tip
    assert "e4 b8 96 e7 95 8c" in tip  # the bytes of 世界 in hex
    s, e = expected.offsets[i]
    assert f"{s}–{e}" in tip
    assert expected.pieces[i] in tip

    # a real tooltip event over the token's box shows that text
    center = view.token_rects(i)[0].center().toPoint()
    event = QHelpEvent(QEvent.Type.ToolTip, center, view.viewport().mapToGlobal(center))
    view.viewportEvent(event)
    qtbot.waitUntil(lambda: QToolTip.isVisible())
    assert str(expected.ids[i]) in QToolTip.text() and "e4 b8 96" in QToolTip.text()
    QToolTip.hideText()


def test_hover_highlights_the_source_in_the_editor(qtbot, make_window, qwen_path):
    text = "first 🙂 second third"
    window = make_window(qwen_path, text)
    view = window.token_view
    enc = view.encoding()
    i = next(k for k, t in enumerate(enc.tokens) if t == " second")
    center = view.token_rects(i)[0].center()
    qtbot.mouseMove(view.viewport(), center.toPoint())
    qtbot.waitUntil(lambda: view.hovered_token() == i)
    sels = window.editor.extraSelections()
    assert len(sels) == 1
    # the emoji is two UTF-16 units in the editor: the selection must still cover " second"
    assert sels[0].cursor.selectedText() == " second"


# ---- errors ----------------------------------------------------------------------------------------


def test_bad_tokenizer_file_shows_error_and_window_keeps_working(qtbot, make_window, qwen_path, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        main_window_module.QMessageBox, "critical", staticmethod(lambda parent, title, text, *a: shown.append((title, text)))
    )
    window = make_window(qwen_path, "hello", error_handler=None)
    before = window.tokenizer()
    bad = tmp_path / "broken.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": ', encoding="utf-8")
    window.open_tokenizer(bad)
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=30_000)
    title, message = shown[0]
    assert "tokenizer" in title.lower()
    assert "broken.json" in message
    try:
        tokviz.load(bad)
    except tokviz.TokvizError as exc:
        assert exc.reason in message
    # still usable, with the tokenizer it had
    assert window.tokenizer() is before
    window.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(window.editor, " world")
    wait_encoded(qtbot, window, "hello world")
    assert_spans_match(window.token_view, oracle(qwen_path).encode("hello world"))
    assert len(shown) == 1


def test_missing_tokenizer_file_is_reported(qtbot, make_window, qwen_path, tmp_path):
    window = make_window(qwen_path, "x")
    window.open_tokenizer(tmp_path / "nope.tiktoken")
    qtbot.waitUntil(lambda: bool(window.errors))
    assert "nope.tiktoken" in window.errors[0][1]


# ---- files and drag and drop -------------------------------------------------------------------------


def drop(window, *paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    return event


def test_dropping_a_tokenizer_loads_it(qtbot, make_window, default_tokenizer_path, qwen_path):
    window = make_window(default_tokenizer_path, "drop a tokenizer here")
    drop(window, qwen_path)
    qtbot.waitUntil(lambda: window.tokenizer().source.name == "qwen2.5", timeout=30_000)
    wait_encoded(qtbot, window, "drop a tokenizer here")
    qtbot.waitUntil(window.controller.is_up_to_date)
    assert "qwen2.5" in window.windowTitle()
    assert_spans_match(window.token_view, oracle(qwen_path).encode("drop a tokenizer here"))


def test_dropping_a_text_file_opens_it_keeping_crlf(qtbot, make_window, default_tokenizer_path, tmp_path):
    window = make_window(default_tokenizer_path, "old")
    f = tmp_path / "notes.txt"
    content = "First line, with words.\r\nSecond line 中文\r\n"
    f.write_bytes(content.encode("utf-8"))
    drop(window, f)
    enc = wait_encoded(qtbot, window, content)
    assert "\r\n" in enc.text
    assert "notes.txt" in window.windowTitle()
    assert_spans_match(window.token_view, tokviz.load(default_tokenizer_path).encode(content))
    assert any("␍↵" in s.display or "␍" in s.display for s in window.token_view.spans())


def test_dropping_non_utf8_text_is_a_clear_error(qtbot, make_window, default_tokenizer_path, tmp_path):
    window = make_window(default_tokenizer_path, "keep me")
    f = tmp_path / "latin1.txt"
    f.write_bytes("Größe und Straße".encode("latin-1"))
    drop(window, f)
    assert len(window.errors) == 1
    assert "latin1.txt" in window.errors[0][1] and "not UTF-8" in window.errors[0][1]
    assert window.current_text() == "keep me"


def test_dropping_a_vocab_txt_is_a_tokenizer_not_text(tmp_path):
    from tokviz.gui.window.files import TEXT, TOKENIZER, classify_path

    prose = tmp_path / "story.txt"
    prose.write_text("Once upon a time there was a tokenizer.\nIt cut text into pieces.\n" * 5, encoding="utf-8")
    assert classify_path(prose) == TEXT
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n##s\n", encoding="utf-8")
    assert classify_path(vocab) == TOKENIZER
    assert classify_path(tmp_path) == TOKENIZER  # a folder is always offered to the loader (which explains)
    assert classify_path(tmp_path / "data.bin") == TEXT  # missing: detection fails -> treated as text (and reported)


@pytest.mark.shared
def test_long_text_is_laid_out_and_scrolls(qtbot, make_window, qwen_path):
    corpus = SHARED / "corpus" / "en.txt"
    if not corpus.exists():
        pytest.skip(f"shared corpus not found: {corpus}")
    text = corpus.read_text(encoding="utf-8")[:100_000]
    window = make_window(qwen_path, text)
    enc = wait_encoded(qtbot, window, text)
    view = window.token_view
    assert len(view.spans()) == len(enc) > 10_000
    last = len(enc) - 1
    view.ensure_visible(last)
    rect = view.token_rects(last)[-1]
    assert 0 <= rect.top() and rect.bottom() <= view.viewport().height()
    assert view.token_at_point(rect.center().toPoint()) == last


def test_long_text_is_held_in_arrays_with_the_same_tokens(qtbot, make_window):
    """Past COMPACT_CHARS the explorer keeps a TokenArray (no Python object per token), encoded
    piece by piece: the same ids, offsets and special flags as encoding the text at once, with
    the special-token options of the window."""
    from tokviz.core.token_array import TokenArray
    from tokviz.gui.work.workers import COMPACT_CHARS

    bert = shared_tokenizer("bert-minilm/tokenizer.json")
    reference = tokviz.load(bert)
    text = ("Tokenizers cut [SEP] long documents, like this one; numbers 12345 too.\n" * 2000)
    assert len(text) > COMPACT_CHARS
    window = make_window(bert, text)
    enc = wait_encoded(qtbot, window, text)
    assert isinstance(enc, TokenArray)
    expected = reference.encode(text)
    assert list(enc.ids) == expected.ids and list(enc.offsets) == list(map(tuple, expected.offsets))
    assert list(enc.special) == expected.special and any(expected.special)  # ([SEP] typed in the text)
    window.action_add_special.setChecked(True)
    qtbot.waitUntil(lambda: window.controller.is_up_to_date() and window.token_view.encoding() is not enc)
    enc = window.token_view.encoding()
    expected = reference.encode(text, add_special_tokens=True)
    assert isinstance(enc, TokenArray) and list(enc.ids) == expected.ids
    assert list(enc.special) == expected.special and enc.special[0] and enc.special[len(enc) - 1]
    spans = window.token_view.spans()
    assert spans[0].display == "[CLS]" and len(spans) == len(expected)
