"""No lost work: the edited text and the open tokenizer come back after a run that did not close."""
from __future__ import annotations

import json

from tokviz.gui.settings import Settings

from .helpers import wait_encoded


def test_unsaved_work_is_restored_after_a_crash(qtbot, make_window, tmp_path, default_tokenizer_path):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(default_tokenizer_path, "first text", settings=settings)
    first.editor.setPlainText("text typed and never saved 乌鲁木齐")
    qtbot.waitUntil(lambda: settings.session_path().exists(), timeout=10_000)  # saved after a moment
    state = json.loads(settings.session_path().read_text(encoding="utf-8"))
    assert state["text"] == "text typed and never saved 乌鲁木齐" and not state["clean"]
    # a crash: the first window never closes; the next start finds the session
    second = make_window(None, None, settings=settings)
    wait_encoded(qtbot, second, "text typed and never saved 乌鲁木齐")
    assert second.editor_text() == "text typed and never saved 乌鲁木齐"
    assert second.tokenizer().source.path and str(second.tokenizer().source.path) == str(state["tokenizer_path"])
    assert second._restored_from is not None
    # a clean close leaves nothing to restore: the next start opens the sample text as usual
    second.close()
    first.close()
    assert not settings.session_path().exists()
    third = make_window(None, None, settings=settings)
    assert third._restored_from is None and "Welcome" in third.editor_text()


def test_a_damaged_session_file_is_ignored(qtbot, make_window, tmp_path):
    settings = Settings(tmp_path / "s.ini")
    settings.session_path().write_text("{not json", encoding="utf-8")
    window = make_window(None, None, settings=settings)
    assert window._restored_from is None and not window.errors
