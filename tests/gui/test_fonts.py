"""Characters no installed font draws are found the way Qt draws them, and the status bar names their
scripts instead of drawing boxes silently."""
from __future__ import annotations

import unicodedata

import pytest
from PySide6.QtGui import QFont, QFontDatabase, QRawFont

from tokviz.gui.widgets import fonts
from tokviz.gui.widgets.style import mono_font

# letters of many scripts (some have no font on a bare machine), CJK, emoji, accents, punctuation
MIXED = ("नमस्ते दुनिया สวัสดีชาวโลก ሰላም ᎣᏏᏲ 𑼄𑼅 你好 こんにちは 안녕하세요 Привет مرحبا שלום "
         "Größe café — “quotes” 🙂👍🏽")


def _families_with(c: str) -> list[str]:
    return [f for f in QFontDatabase.families() if QRawFont.fromFont(QFont(f)).supportsCharacter(ord(c))]


@pytest.mark.slow
def test_missing_characters_are_those_qt_cannot_draw(qapp):
    font = mono_font()
    assert fonts.check(MIXED, font, budget=len(MIXED))
    missing = set(fonts.missing_characters(MIXED, font))
    needed = {c for c in set(MIXED) if fonts._needs_glyph(c)}
    primary = QRawFont.fromFont(font)
    # a character no installed font has is missing; one the token view's own font has is not
    assert {c for c in needed if not _families_with(c)} <= missing
    assert not {c for c in needed if primary.supportsCharacter(ord(c))} & missing
    # Qt falls back by writing system: a CJK font covers Chinese, an emoji font the emoji
    assert not {"你", "こ", "🙂"} & missing
    # (a font may hold a character of a script it does not declare; Qt then draws a box, and so
    # it counts as missing: no oracle but drawing tells those apart)


def test_scripts_are_named_from_the_characters(qapp):
    assert fonts.script_name("न") == "Devanagari" and fonts.script_name("ส") == "Thai"
    assert fonts.script_name("你") == "Chinese/Japanese characters" and fonts.script_name("🙂") == "symbols and emoji"
    assert fonts.script_name("“") == "punctuation" and fonts.script_name("한") == "Korean (Hangul)"
    font = mono_font()
    fonts.check(MIXED, font, budget=len(MIXED))
    expected = {fonts.script_name(c) for c in fonts.missing_characters(MIXED, font)}
    assert set(fonts.missing_scripts(MIXED, font)) == expected


def test_check_works_through_a_text_a_budget_at_a_time(qapp):
    font = QFont("DejaVu Sans")
    text = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 700) if unicodedata.category(chr(c)) == "Lo")
    assert not fonts.check(text, font, budget=300)
    assert not fonts.check(text, font, budget=300)
    assert fonts.check(text, font, budget=300)


def test_the_status_bar_names_scripts_without_a_font(qtbot, make_window):
    window = make_window(text="plain text")
    assert "No installed font" not in window.status_text()
    window.editor.setPlainText(MIXED)
    font = window.token_view.font()
    fonts.check(MIXED, font, budget=len(MIXED))
    scripts = fonts.missing_scripts(MIXED, font)
    if scripts:
        qtbot.waitUntil(lambda: "No installed font shows" in window.status_text(), timeout=10_000)
        assert all(s in window.status_text() for s in scripts[:2])
    window.editor.setPlainText("plain again")
    qtbot.waitUntil(lambda: "No installed font" not in window.status_text(), timeout=10_000)
    assert not window.status.font_warning.isVisible()
