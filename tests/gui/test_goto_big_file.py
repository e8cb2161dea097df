"""Go to token (Ctrl+G) in a big file: the dialog offers every token of the whole file, and going to
one past the preview puts the part of the file around it in the editor, with the cursor on it,
while the token view outlines it; the links between the editor and the tokens keep working there."""
from __future__ import annotations

import bisect

import pytest

import tokviz
from tokviz.gui.window import dialogs
from tokviz.gui.window import main_window as mw


@pytest.fixture
def big_text_file(tmp_path):
    """About 3 MB of numbered lines (each line says where it is), over the big-file threshold."""
    lines = [f"line {n:06d}: the quick brown fox jumps over the lazy dog, café {n % 97}\n" for n in range(45_000)]
    path = tmp_path / "numbered.txt"
    path.write_text("".join(lines), encoding="utf-8")
    assert path.stat().st_size > mw.BIG_FILE_BYTES
    return path


def _opened(qtbot, make_window, default_tokenizer_path, path):
    window = make_window(tokviz.load(default_tokenizer_path), "")
    with qtbot.waitSignal(window.file_job.finished, timeout=120_000):
        assert window.open_text_file(path)
    qtbot.waitUntil(window.is_up_to_date, timeout=30_000)
    assert window.big.shows_whole_file() and not window.errors
    return window


@pytest.mark.slow
def test_go_to_a_token_past_the_preview_shows_it_in_the_editor(qtbot, make_window, default_tokenizer_path,
                                                               big_text_file, monkeypatch):
    window = _opened(qtbot, make_window, default_tokenizer_path, big_text_file)
    enc = window.token_view.encoding()
    text = big_text_file.read_text(encoding="utf-8")
    assert enc.text == text
    preview = window.current_text()
    assert len(preview) < 100_000 < len(text)
    # the token that starts line 40000 (far past the preview)
    line_start = text.index("line 040000:")
    starts = [s for s, _ in enc.offsets]
    k = bisect.bisect_left(starts, line_start)
    assert enc.offsets[k][0] == line_start

    asked = []

    def answer(parent, title, label, value, low, high):
        asked.append((title, label, low, high))
        return k + 1, True

    monkeypatch.setattr(dialogs, "ask_int", answer)
    window.ask_goto_token()
    (title, label, low, high), = asked  # the whole file's range
    assert title == "Go to token" and (low, high) == (1, len(enc)) and str(len(enc)) in label.replace(",", "")

    assert window.token_view.current_token() == k
    start, held = window.big.editor_region()
    assert window.editor_text() == held and text.startswith(held, start)
    assert start <= line_start < start + len(held) and held.startswith("line ")
    cursor = window.editor.textCursor()
    span = window.link.editor_span(enc)
    assert span == (start, start + len(held))
    assert window.link.char_index(enc, span, cursor.position()) == line_start
    assert window.editor.viewport().rect().contains(window.editor.cursorRect())  # scrolled to it
    qtbot.wait(50)
    rect = window.token_view.token_rects(k)[0]
    assert 0 <= rect.top() and rect.bottom() <= window.token_view.viewport().height()
    assert "characters" in window.text_header.text()
    # nothing was edited or replaced: the preview is still the file's text, read-only, unmodified
    assert window.editor.isReadOnly() and not window.editor.document().isModified()
    assert window.current_text() == preview and window.is_up_to_date()

    # the tokens there select their text in the editor, and the editor's selection their tokens
    window.select_tokens(k, k + 3)
    assert window.editor.textCursor().selectedText() == text[line_start:enc.offsets[k + 3][1]]
    cursor = window.editor.textCursor()
    cursor.setPosition(window.link.editor_position(enc, span, enc.offsets[k + 1][0]))
    cursor.setPosition(window.link.editor_position(enc, span, enc.offsets[k + 2][1]), cursor.MoveMode.KeepAnchor)
    window.editor.setTextCursor(cursor)
    assert window.token_view.selection() == (k + 1, k + 2)

    # back to the first token: the preview as opened
    assert window.goto_token(0)
    assert window.big.editor_region() == (0, preview) and window.editor_text() == preview
    assert window.editor.textCursor().position() == 0 and "first" in window.text_header.text()


@pytest.mark.slow
def test_the_last_token_of_a_big_file_can_be_gone_to(qtbot, make_window, default_tokenizer_path, big_text_file):
    window = _opened(qtbot, make_window, default_tokenizer_path, big_text_file)
    enc = window.token_view.encoding()
    last = len(enc) - 1
    assert window.goto_token(last)
    start, held = window.big.editor_region()
    assert start + len(held) == len(enc.text) and held.endswith("café 88\n")
    assert window.token_view.current_token() == last
    assert not window.goto_token(len(enc))
