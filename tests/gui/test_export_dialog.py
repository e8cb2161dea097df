"""File ▸ Export tokenizer…: formats that cannot hold the tokenizer are disabled with their reason,
the others write a file that loads back with the same ids."""
from __future__ import annotations

from PySide6.QtCore import Qt

import tokviz
from tokviz.formats.writers import WRITE_FORMATS


def test_export_dialog_lists_what_can_hold_the_tokenizer(qtbot, make_window, qwen_path, tmp_path):
    window = make_window(qwen_path, "export me, 乌鲁木齐")
    dialog = window.export_tokenizer()
    qtbot.waitUntil(lambda: len(dialog.reasons) == len(WRITE_FORMATS), timeout=60_000)
    enabled = {}
    for k in range(dialog.formats.count()):
        item = dialog.formats.item(k)
        enabled[item.data(Qt.ItemDataRole.UserRole)] = bool(item.flags() & Qt.ItemFlag.ItemIsEnabled)
    assert enabled["hf-json"] and enabled["vocab-merges"]
    assert not enabled["tiktoken"] and "NFC" in dialog.reasons["tiktoken"]  # qwen normalizes with NFC
    assert not enabled["wordpiece-vocab"]
    written = dialog.export(tmp_path / "out.json", "hf-json")
    again = tokviz.load(written[0])
    assert again.encode("export me, 乌鲁木齐").ids == window.tokenizer().encode("export me, 乌鲁木齐").ids
    dialog.reject()
