"""View ▸ Language: the languages tokviz speaks, each named in itself, and a restart into the one chosen.

Qt's widgets take their texts when they are made, so a new language shows from the next start.  The
restart closes the window as a programmatic close does (the session keeps the text, the conversation
and the tokenizers) and starts tokviz again in the chosen language, which reopens them."""
from __future__ import annotations

import subprocess
import sys

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMessageBox

from .. import i18n


def add_language_menu(window, menu) -> None:
    """A Language submenu of `menu`: one checkable item per language, the current one checked."""
    submenu = menu.addMenu(QCoreApplication.translate("Language", "L&anguage"))
    window.language_actions = QActionGroup(window)
    for code, name in i18n.LANGUAGES.items():
        action = QAction(name, window)
        action.setCheckable(True)
        action.setChecked(code == i18n.current_language())
        action.setData(code)
        action.triggered.connect(lambda _=False, c=code: choose_language(window, c))
        window.language_actions.addAction(action)
        submenu.addAction(action)


def choose_language(window, language: str, *, ask: bool = True) -> bool:
    """Remember `language` for the next starts and offer to restart in it now.  Returns True when the
    app restarts."""
    window.settings.set_value(i18n.SETTINGS_KEY, language)
    window.settings.qsettings.sync()
    if language == i18n.current_language() or not ask:
        return False
    question = QCoreApplication.translate(
        "Language", "tokviz will speak {language} from its next start. Restart now? Your text, conversation "
                    "and tokenizers come back as they are.").format(language=i18n.LANGUAGES[language])
    box = QMessageBox(QMessageBox.Icon.Question, QCoreApplication.translate("Language", "Language"), question,
                      QMessageBox.StandardButton.NoButton, window)
    restart = box.addButton(QCoreApplication.translate("Language", "Restart now"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QCoreApplication.translate("Language", "Later"), QMessageBox.ButtonRole.RejectRole)
    box.exec()
    restarting = box.clickedButton() is restart
    box.deleteLater()
    if restarting:
        restart_in(window, language)
    return restarting


def restart_in(window, language: str) -> None:
    """Close `window` (its session saved) and start a new tokviz speaking `language`."""
    if not window.close():
        return
    subprocess.Popen([sys.executable, "-m", "tokviz", "--lang", language], start_new_session=True)
    QCoreApplication.quit()
