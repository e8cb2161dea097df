"""The app in Chinese: every user-visible string translatable and translated (gui/i18n)."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from tokviz.gui import i18n
from tokviz.gui.i18n import audit, lint, update
from tokviz.gui.i18n.languages import UnknownLanguage, check_language


def test_every_string_lupdate_finds_has_a_chinese_translation_and_the_qm_is_compiled_from_it():
    """pyside6-lupdate over tokviz/ against the shipped zh_CN .ts leaves nothing unfinished."""
    problems = update.check("zh_CN")
    assert problems == [], "\n".join(problems[:40]) + f"\n… {len(problems)} in all"


def test_no_user_visible_string_escapes_translation():
    findings = lint.lint([lint.GUI])
    assert findings == [], "\n".join(map(str, findings[:40])) + f"\n… {len(findings)} in all"


def test_the_lint_finds_what_lupdate_cannot_see(tmp_path):
    source = '''
class W:
    def f(self, window, n):
        self.label.setText("Tokens per word")
        self.button = QPushButton(f"Encode {n} files")
        window.tr("Open")
        self.tr(f"{n} tokens")
        self.plot.setLabel("bottom", "bytes")
        self.label.setText(self.tr("Tokens"))
        self.plot.setLabel("left", self.tr("count"))
        self.label.setText("BPE · JSON")
        self.label.setText(name)
'''
    found = [f.what for f in lint.lint_source(source, tmp_path / "w.py")]
    assert len(found) == 5, found
    assert "'Tokens per word'" in found[0] or any("Tokens per word" in f for f in found)
    assert any("other than self" in f for f in found)
    assert any("f-string inside tr" in f for f in found)
    assert any("'bytes'" in f for f in found)


def test_the_shipped_translation_uses_the_fields_terms():
    """Spot checks of the vocabulary a Chinese reader of the field expects (the .ts, not the code)."""
    translations = {}
    for _context, source, translation in update.messages(update.ts_file("zh_CN")):
        translations.setdefault(source.replace("&", ""), (translation.text or "").replace("&", ""))
    assert "分词器" in translations["Open tokenizer…"]
    assert "词表" in translations.get("Vocabulary", "")


def test_languages_are_named_in_their_own_spelling_and_unknown_ones_refused():
    assert check_language("zh-CN") == "zh_CN" == check_language("zh_CN.UTF-8") == check_language("zh-Hans")
    assert check_language("en_GB") == "en"
    with pytest.raises(UnknownLanguage, match="'fr'.*en, zh_CN"):
        check_language("fr")


def test_lang_option_refuses_an_unknown_language_before_qt_starts():
    run = subprocess.run([sys.executable, "-m", "tokviz", "--lang", "xx"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "no translation for 'xx'" in run.stderr


def test_the_window_in_chinese_shows_no_english(qapp, tmp_path, monkeypatch):
    """Every menu, dock, tab, button, label, tooltip, header and plot label of the whole window."""
    monkeypatch.setenv("TOKVIZ_SETTINGS", str(tmp_path / "settings.ini"))
    before = i18n.current_language()
    window, names = audit.open_window("zh_CN", [])
    try:
        left = audit.english_left(window, names)
        menus = [a.text() for a in window.menuBar().actions()]
    finally:
        window.close()
        window.deleteLater()
        i18n.install(before)
    assert left == [], "\n".join(map(str, left[:60])) + f"\n… {len(left)} in all"
    assert all("(&" in m for m in menus), menus  # Chinese menus keep their keyboard letters: 文件(&F)


def test_a_screenshot_in_chinese_leaves_the_app_in_its_own_language(qapp, tmp_path):
    from tokviz.gui.screenshot import screenshot

    before = i18n.current_language()
    out = screenshot("stats", [], None, tmp_path / "stats.png", 900, 600, language="zh_CN")
    assert out.stat().st_size > 0
    assert i18n.current_language() == before


def test_the_ts_file_is_valid_xml_for_lrelease():
    root = ET.parse(update.ts_file("zh_CN")).getroot()
    assert root.get("language") == "zh_CN" and root.get("sourcelanguage") == "en"


def test_the_lint_finds_translations_lupdate_never_sees(tmp_path):
    source = '''
def f(self, n):
    _tr("Save")
    tr = QCoreApplication.translate
    tr("Ctx", "Open")
    label.setText(f"{self.tr('tokens')}: {n}")
    label.setText(f"{self.tr(NAME)}: {n}")
'''
    found = [f.what for f in lint.lint_source(source, tmp_path / "w.py")]
    assert len(found) == 3, found
    assert any("wrapper" in f for f in found) and any("alias" in f for f in found)
    assert any("f-string's braces" in f for f in found)
