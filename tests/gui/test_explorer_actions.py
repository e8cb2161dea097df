"""Explorer actions: find, go to token, zoom, max length, special tokens in text, About."""
from __future__ import annotations

import pytest

from .helpers import shared_tokenizer

TEXT = "one two three two one <|endoftext|> four"


def test_find_selects_the_next_occurrence_and_wraps(qtbot, make_window):
    window = make_window(text=TEXT)
    assert window.find_text("two")
    first = window.editor.textCursor().selectionStart()
    assert window.find_text("two")
    second = window.editor.textCursor().selectionStart()
    assert TEXT[first:first + 3] == TEXT[second:second + 3] == "two" and second > first
    assert window.find_text("two") and window.editor.textCursor().selectionStart() == first  # wrapped
    assert not window.find_text("seven")


def test_goto_token_outlines_it_and_moves_the_cursor(qtbot, make_window):
    window = make_window(text=TEXT)
    enc = window.token_view.encoding()
    k = len(enc) // 2
    assert window.goto_token(k)
    assert window.token_view.current_token() == k
    assert window.editor.textCursor().position() == enc.offsets[k][0]
    assert not window.goto_token(len(enc))


def test_zoom_changes_both_fonts_and_is_remembered(qtbot, make_window, tmp_path):
    from tokviz.gui.settings import Settings

    settings = Settings(tmp_path / "zoom.ini")
    window = make_window(text=TEXT, settings=settings)
    base = window.editor.font().pointSizeF()
    window.zoom(1)
    window.zoom(1)
    assert window.editor.font().pointSizeF() == window.token_view.font().pointSizeF() == base + 2
    window.close()
    again = make_window(text=TEXT, settings=Settings(tmp_path / "zoom.ini"))
    assert again.token_view.font().pointSizeF() == base + 2
    again.zoom(0)
    assert again.editor.font().pointSizeF() == base


def test_max_length_dims_the_tokens_past_it(qtbot, make_window):
    window = make_window(text=TEXT)
    n = len(window.token_view.encoding())
    window.set_max_length(3)
    assert window.token_view.truncation() == 3
    assert [window.token_view.is_truncated(i) for i in range(n)] == [i >= 3 for i in range(n)]
    assert f"{n - 3} past the max length of 3" in window.status_tokens.text()
    window.set_max_length(0)
    assert window.token_view.truncation() is None and "past" not in window.status_tokens.text()


def test_special_token_strings_in_text_follow_the_toggle(qtbot, make_window):
    window = make_window(shared_tokenizer("cl100k_base.tiktoken"), TEXT)
    assert not window.action_allow_special.isChecked()  # tiktoken's encode_ordinary: plain text
    assert not any(window.token_view.encoding().special)
    with qtbot.waitSignal(window.controller.encoded, timeout=30_000):
        window.action_allow_special.trigger()
    enc = window.token_view.encoding()
    assert enc.pieces.count("<|endoftext|>") == 1 and any(enc.special)


def test_about_box_names_the_versions(qtbot, make_window):
    window = make_window(text="x")
    box = window.show_about()
    text = box.text()
    assert "tokviz" in text and "PySide6" in text and "native encoder" in text
    box.close()
    qtbot.waitUntil(lambda: not window.findChildren(type(box)), timeout=5_000)  # (deleted once closed)


@pytest.mark.shared
def test_token_details_show_the_merge_rank_or_log_probability(qtbot, make_window):
    from tokviz.analysis.token_info import token_facts

    window = make_window(shared_tokenizer("cl100k_base.tiktoken"), "Hello world")
    tip = window.token_view.tooltip_text(1)
    assert "merge rank" in tip and "1917" in tip  # ' world' is token 1917 of cl100k
    window2 = make_window(shared_tokenizer("sentencepiece/unigram_8k.model"), "Hello world")
    enc = window2.token_view.encoding()
    facts = token_facts(window2.tokenizer(), enc.ids[1])
    assert facts["log-probability"] < 0
    assert "log-probability" in window2.token_view.tooltip_text(1)


def test_selecting_text_selects_tokens_and_dragging_tokens_selects_text(qtbot, make_window):
    from PySide6.QtGui import QTextCursor

    window = make_window(text=TEXT)
    enc = window.token_view.encoding()
    start = TEXT.index("three")
    cursor = window.editor.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(start + len("three two"), QTextCursor.MoveMode.KeepAnchor)
    window.editor.setTextCursor(cursor)
    first, last = window.token_view.selection()
    covered = "".join(enc.text[a:b] for a, b in enc.offsets[first:last + 1])
    assert "three two" in covered and len(covered) <= len(" three two") + 1
    # a drag over tokens 1..3 selects exactly their text
    window.token_view.tokensSelected.emit(1, 3)
    sel = window.editor.textCursor()
    assert sel.selectedText() == TEXT[enc.offsets[1][0]:enc.offsets[3][1]]
    assert window.token_view.selection() == (1, 3)


def test_mouse_drag_over_tokens(qtbot, make_window):
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    window = make_window(text=TEXT)
    view = window.token_view
    vp = view.viewport()

    def send(kind, index, buttons):
        center = view.token_rects(index)[0].center()
        button = Qt.MouseButton.LeftButton if kind != QEvent.Type.MouseMove else Qt.MouseButton.NoButton
        event = QMouseEvent(kind, QPointF(center), vp.mapToGlobal(center.toPoint()), button, buttons,
                            Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(vp, event)

    with qtbot.waitSignal(view.tokensSelected, timeout=5000) as blocker:
        send(QEvent.Type.MouseButtonPress, 2, Qt.MouseButton.LeftButton)
        send(QEvent.Type.MouseMove, 4, Qt.MouseButton.LeftButton)
    assert blocker.args == [2, 4]
    send(QEvent.Type.MouseButtonRelease, 4, Qt.MouseButton.NoButton)
    enc = view.encoding()
    assert window.editor.textCursor().selectedText() == TEXT[enc.offsets[2][0]:enc.offsets[4][1]]
