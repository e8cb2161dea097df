"""File ▸ Export tokenizer…: formats that cannot hold the tokenizer are disabled with their reason
written under them, the others write a file that loads back with the same ids."""
from __future__ import annotations

import os

import pytest

import tokviz
from tokviz.formats.writers import WRITE_FORMATS
from tokviz.gui.export_dialog import ExportDialog

from .helpers import clipped_widgets


def test_export_dialog_lists_what_can_hold_the_tokenizer(qtbot, make_window, qwen_path, tmp_path):
    window = make_window(qwen_path, "export me, 乌鲁木齐")
    dialog = window.export_tokenizer()
    _wait_checked(qtbot, dialog)
    enabled = {name: choice.isEnabled() for name, choice in dialog.choices.items()}
    assert enabled["hf-json"] and enabled["vocab-merges"]
    assert not enabled["tiktoken"] and "NFC" in dialog.reasons["tiktoken"]  # qwen normalizes with NFC
    assert not enabled["wordpiece-vocab"]
    written = dialog.export(tmp_path / "out.json", "hf-json")
    again = tokviz.load(written[0])
    assert again.encode("export me, 乌鲁木齐").ids == window.tokenizer().encode("export me, 乌鲁木齐").ids
    dialog.reject()


def _wait_checked(qtbot, dialog):
    qtbot.waitUntil(lambda: len(dialog.reasons) == len(WRITE_FORMATS), timeout=60_000)


@pytest.mark.parametrize("width", [560, 380])
def test_each_refusal_is_written_under_its_disabled_choice(qtbot, qwen_path, tmp_path, width):
    tok = tokviz.load(qwen_path)
    dialog = ExportDialog(tok)
    qtbot.addWidget(dialog)
    dialog.resize(width, 600)
    dialog.show()
    qtbot.waitExposed(dialog)
    _wait_checked(qtbot, dialog)
    expected = {name: tokviz.can_write(tok, name) for name in WRITE_FORMATS}
    assert dialog.reasons == expected and any(expected.values()) and not all(expected.values())
    names = list(WRITE_FORMATS)
    for k, name in enumerate(names):
        choice, why = dialog.choices[name], dialog.reason_labels[name]
        if expected[name] is None:
            assert choice.isEnabled() and not why.isVisibleTo(dialog)
            continue
        assert not choice.isEnabled() and why.isVisibleTo(dialog) and expected[name] in why.text()
        # right under its own choice (before the next one), wrapped to the dialog's width, not cut
        assert why.geometry().top() >= choice.geometry().bottom()
        if k + 1 < len(names):
            assert why.geometry().bottom() <= dialog.choices[names[k + 1]].geometry().top()
        assert why.mapTo(dialog, why.rect().topRight()).x() < dialog.width()
        assert why.height() >= why.heightForWidth(why.width())
    assert clipped_widgets(dialog) == []
    assert dialog.selected_format() == "hf-json"
    written = dialog.export(tmp_path / "out.json")
    assert tokviz.load(written[0]).encode("export me, 乌鲁木齐").ids == tok.encode("export me, 乌鲁木齐").ids
    dialog.reject()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_exported_files_get_the_users_usual_permissions(qtbot, tmp_path, default_tokenizer_path, umask):
    dialog = ExportDialog(tokviz.load(default_tokenizer_path))
    qtbot.addWidget(dialog)
    old = os.umask(umask)
    try:
        written = dialog.export(tmp_path / "demo.json", "hf-json") + dialog.export(tmp_path, "vocab-merges")
    finally:
        os.umask(old)
    assert len(written) >= 3
    assert {p.name: os.stat(p).st_mode & 0o777 for p in written} == {p.name: 0o666 & ~umask for p in written}
    dialog.reject()
