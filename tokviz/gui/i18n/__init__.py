"""The app's languages: which one it speaks, and Qt's translators that make it speak it.

Every user-visible string goes through Qt's translation functions: `self.tr("…")` in a class,
`QCoreApplication.translate("Context", "…")` elsewhere, `QT_TRANSLATE_NOOP("Context", "…")` for a
constant translated where it is shown; placeholders are filled after translating (`.format`), never
inside an f-string. The sources of the translations are the .ts files beside this module
(`tokviz_zh_CN.ts`); the app loads their compiled .qm files. `python -m tokviz.gui.i18n.update` brings
the .ts up to date with the code (pyside6-lupdate) and compiles it (pyside6-lrelease); `lint` lists
shown strings that skip translation, `audit` the English left in a translated window.  Text made by
the layers without Qt (errors, verdicts, progress) is a `tokviz.messages.Message`, shown translated
by `gui.widgets.messages.show`.

Which language: `--lang` on the command line, else the one chosen in View ▸ Language, else the
system's locale (Chinese locales get zh_CN), else English. TOKVIZ_LANG overrides the last two.
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from .languages import ENGLISH, LANGUAGES, UnknownLanguage, check_language

__all__ = ["ENGLISH", "LANGUAGES", "UnknownLanguage", "check_language", "chosen_language", "current_language",
           "install", "system_language"]

HERE = Path(__file__).resolve().parent
SETTINGS_KEY = "app/language"

_installed: list[QTranslator] = []
_current = ENGLISH


def system_language() -> str:
    """The language the system's locale asks for, if tokviz speaks it (else English)."""
    for name in QLocale.system().uiLanguages() or [QLocale.system().name()]:
        try:
            return check_language(name)
        except UnknownLanguage:
            continue
    return ENGLISH


def chosen_language(requested: str | None = None, settings=None) -> str:
    """The language to start in: `requested` (--lang), TOKVIZ_LANG, the saved choice, the system's."""
    if requested:
        return check_language(requested)
    if os.environ.get("TOKVIZ_LANG"):
        return check_language(os.environ["TOKVIZ_LANG"])
    if settings is not None:
        saved = settings.value(SETTINGS_KEY)
        try:
            return check_language(saved) if saved else system_language()
        except UnknownLanguage:
            pass
    return system_language()


def translation_file(language: str) -> Path:
    """The compiled translation of tokviz's own strings into `language`."""
    return HERE / f"tokviz_{language}.qm"


def install(language: str) -> str:
    """Make the running application speak `language` from the next string on: tokviz's translator and
    Qt's own (standard dialogs and buttons).  Returns the language installed."""
    global _current
    language = check_language(language)
    app = QCoreApplication.instance()
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    if language != ENGLISH:
        ours = QTranslator(app)
        if not ours.load(str(translation_file(language))):
            raise FileNotFoundError(f"{translation_file(language)}: the translation into {language} is missing "
                                    f"(run python -m tokviz.gui.i18n.update)")
        qt = QTranslator(app)
        if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            app.installTranslator(qt)
            _installed.append(qt)
        app.installTranslator(ours)
        _installed.append(ours)
    _current = language
    return language


def current_language() -> str:
    return _current
