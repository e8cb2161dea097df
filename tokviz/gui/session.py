"""No lost work: the text being edited, its file and the open tokenizer are saved a moment after
each change, in `session.json` beside the settings file, and restored when the app starts after a
run that did not end by closing its window (a crash, a kill, a power cut).

The file is written atomically (a temporary file, then a rename), so a crash while saving leaves
the previous one.  A window that closes normally marks the session clean, and the next start
opens as usual.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..formats.hf_json_writer import write_text_atomic

MAX_SAVED_CHARS = 20_000_000  # an edited text longer than this is not copied (its file, if any, is)


class Session:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def save(self, *, text: str | None, text_path: str | None, tokenizer_path: str | None) -> None:
        """Remember the work in progress (`text`: the edited text, None when it is the file's)."""
        state = {
            "clean": False,
            "text": text if text is not None and len(text) <= MAX_SAVED_CHARS else None,
            "text_path": text_path,
            "tokenizer_path": tokenizer_path,
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(self.path, json.dumps(state, ensure_ascii=False))
        except OSError:
            pass  # (a read-only settings folder: no autosave, but the app goes on)

    def mark_clean(self) -> None:
        """The window closed normally: nothing to restore next time."""
        try:
            self.path.unlink()
        except OSError:
            pass

    def pending(self) -> dict | None:
        """What the last run left unsaved, or None (it ended cleanly, or there is nothing)."""
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(state, dict) or state.get("clean", True):
            return None
        return state
