"""What the app remembers between runs, kept with QSettings: window layout, recent tokenizers and
texts, the Library's folders; and where the session and the app's data are kept.

The file is QSettings' usual place for organisation "tokviz" (on Linux ~/.config/tokviz/tokviz.conf);
TOKVIZ_SETTINGS=path/to/file.ini uses that file instead (the tests do, so that they never touch a
person's own settings).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from ..formats.discover import RECENT, Found

MAX_RECENT = 12


class Settings:
    def __init__(self, path: str | os.PathLike | None = None):
        path = path if path is not None else os.environ.get("TOKVIZ_SETTINGS")
        self._path = os.fspath(path) if path else None
        if path:
            self.qsettings = QSettings(os.fspath(path), QSettings.Format.IniFormat)
        else:
            self.qsettings = QSettings("tokviz", "tokviz")

    # ---- window layout ------------------------------------------------------------------------------
    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        """(geometry, dock/toolbar state) saved by the last window that closed, or None each."""
        geometry = self.qsettings.value("window/geometry")
        state = self.qsettings.value("window/state")
        return (geometry if isinstance(geometry, QByteArray) else None,
                state if isinstance(state, QByteArray) else None)

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.qsettings.setValue("window/geometry", geometry)
        self.qsettings.setValue("window/state", state)
        self.qsettings.sync()

    # ---- recent tokenizers and texts ----------------------------------------------------------------
    def recent_tokenizers(self) -> list[Found]:
        """Most recent first; entries whose file is gone are left out."""
        out = []
        for entry in self._list("recent/tokenizers"):
            path, name, fmt, encoding = (entry + ["", "", "", ""])[:4]
            if path and os.path.exists(path):  # (False, not an error, for one in an unreadable folder)
                out.append(Found(name or Path(path).name, Path(path), fmt, RECENT, encoding=encoding or None))
        return out

    def add_recent_tokenizer(self, path: str | os.PathLike, name: str, fmt: str, encoding: str | None = None) -> None:
        path = os.fspath(path)
        entries = [e for e in self._list("recent/tokenizers") if e and e[0] != path]
        entries.insert(0, [path, name, fmt, encoding or ""])
        self._set_list("recent/tokenizers", entries[:MAX_RECENT])

    def recent_texts(self) -> list[str]:
        return [e[0] for e in self._list("recent/texts") if e and os.path.exists(e[0])]

    def add_recent_text(self, path: str | os.PathLike) -> None:
        path = os.fspath(path)
        entries = [e for e in self._list("recent/texts") if e and e[0] != path]
        self._set_list("recent/texts", ([[path]] + entries)[:MAX_RECENT])

    # ---- single values --------------------------------------------------------------------------------
    def value(self, key: str, default: str = "") -> str:
        raw = self.qsettings.value(key, default)
        return raw if isinstance(raw, str) else default

    def number(self, key: str) -> float | None:
        """A number saved under `key`, or None (none saved, or not a number)."""
        try:
            return float(self.value(key))
        except ValueError:
            return None

    def set_value(self, key: str, value: str) -> None:
        self.qsettings.setValue(key, value)

    # ---- library ------------------------------------------------------------------------------------
    def library_folders(self) -> list[str]:
        return [e[0] for e in self._list("library/folders") if e]

    def set_library_folders(self, folders: list[str]) -> None:
        self._set_list("library/folders", [[f] for f in folders])

    def session_path(self) -> Path:
        """Where the session is saved: beside the settings file (gui/window/session.py)."""
        return Path(self.qsettings.fileName()).with_name("session.json")

    def data_dir(self) -> Path:
        """Where the app keeps its data (tokenizers not yet exported): the system's place for
        application data, or beside a settings file given by path (NAME-data/)."""
        if self._path is not None:
            return Path(self._path).with_name(Path(self._path).stem + "-data")
        from PySide6.QtCore import QStandardPaths

        return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))

    # ---- compare view -------------------------------------------------------------------------------
    def compare_tokenizers(self) -> list[dict]:
        """The Compare view's panes: [{"path", "name", "encoding"}], in order."""
        return [{"path": e[0], "name": e[1], "encoding": e[2] or None} for e in self._list("compare/tokenizers")
                if len(e) == 3]

    def set_compare_tokenizers(self, entries: list[dict]) -> None:
        self._set_list("compare/tokenizers", [[e["path"], e["name"], e.get("encoding") or ""] for e in entries])

    # ---- storage: lists of string lists, as JSON (QSettings' own list types differ by format) ---------
    def _list(self, key: str) -> list[list[str]]:
        raw = self.qsettings.value(key, "[]")
        try:
            value = json.loads(raw) if isinstance(raw, str) else []
        except ValueError:
            return []  # a hand-edited or damaged entry: start that list afresh
        return [[str(x) for x in e] for e in value if isinstance(e, list)] if isinstance(value, list) else []

    def _set_list(self, key: str, value: list[list[str]]) -> None:
        self.qsettings.setValue(key, json.dumps(value, ensure_ascii=False))
        self.qsettings.sync()
