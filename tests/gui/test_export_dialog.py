"""File ▸ Export tokenizer…: formats that cannot hold the tokenizer are disabled with their reason
written under them, the others write a file that loads back with the same ids.  The dialog is
deleted when it closes and lets go of the tokenizer; its check and its write run on workers it never
waits for."""
from __future__ import annotations

import gc
import os
import shutil
import threading
import weakref

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

import tokviz
from tokviz import defaults
from tokviz.formats.writers import WRITE_FORMATS
from tokviz.gui.window import export_dialog
from tokviz.gui.window.export_dialog import ExportDialog, background_runner
from tokviz.gui.settings import Settings
from tokviz.train import TrainOptions, train

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


@pytest.mark.slow
@pytest.mark.first_cases(1)
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


# ---- the dialog's lifetime and its workers ----

def _settle(qtbot, window=None):
    """Wait until every export worker has reported and Qt has deleted what was closed."""
    runner = background_runner()
    qtbot.waitUntil(lambda: runner.pending() == 0, timeout=60_000)
    qtbot.waitUntil(lambda: window is None or not window.findChildren(ExportDialog), timeout=10_000)


@pytest.mark.slow
def test_every_way_of_closing_deletes_the_dialog_and_lets_go_of_the_tokenizer(qtbot, make_window, qwen_path,
                                                                                default_tokenizer_path, tmp_path):
    # (a copy: no other test's window, closed but not yet collected, shares this tokenizer object)
    (tmp_path / "qwen").mkdir()
    own_copy = shutil.copyfile(qwen_path, tmp_path / "qwen" / "tokenizer.json")
    window = make_window(own_copy, "export me, 乌鲁木齐")
    tok = window.tokenizer()
    assert tok.vocab_size > 150_000
    ref = weakref.ref(tok)
    del tok
    dialogs = []
    for k in range(20):
        dialog = window.export_tokenizer()
        if k % 4 == 0:
            dialog.reject()
        elif k % 4 == 1:
            qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        elif k % 4 == 2:
            dialog.close()  # (the title bar's close button)
        else:
            _wait_checked(qtbot, dialog)
            dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
        assert not dialog.isVisible()
        dialogs.append(dialog)
        del dialog
    _settle(qtbot, window)
    assert window.findChildren(ExportDialog) == []
    assert not any(shiboken6.isValid(d) for d in dialogs)
    assert all(d.tokenizer is None for d in dialogs)  # (a wrapper someone still holds keeps no tokenizer)
    window.open_tokenizer(default_tokenizer_path)
    qtbot.waitUntil(lambda: window.tokenizer() is not None and window.tokenizer().vocab_size < 100_000
                    and window.controller.is_up_to_date(), timeout=30_000)
    gc.collect()
    assert ref() is None


def test_closing_while_the_check_runs_returns_and_drops_its_result(qtbot, make_window, qwen_path, monkeypatch):
    window = make_window(qwen_path, "export me")
    entered, release = threading.Event(), threading.Event()
    real_can_write = export_dialog.can_write

    def held_can_write(tokenizer, name):  # (the real check, once the test lets it go on)
        entered.set()
        release.wait(30)
        return real_can_write(tokenizer, name)

    monkeypatch.setattr(export_dialog, "can_write", held_can_write)
    _settle(qtbot)  # (no other test's check left running)
    dialog = window.export_tokenizer()
    assert entered.wait(30)
    dialog.reject()  # returns while the check is held on its worker
    assert background_runner().pending() == 1 and not release.is_set()
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog), timeout=10_000)  # deleted, its worker still held
    release.set()
    _settle(qtbot, window)
    qtbot.wait(50)
    assert dialog.reasons == {} and window.errors == []


def test_save_writes_on_a_worker_and_the_window_records_the_export(qtbot, make_window, tmp_path, monkeypatch):
    hf = pytest.importorskip("tokenizers")
    corpus = [defaults.resource_path("training.txt")]
    trained = train("bytelevel-bpe", corpus, TrainOptions(vocab_size=400), pattern="gpt2")
    window = make_window(None, "hello there", settings=Settings(tmp_path / "s.ini"))
    window.use_trained_tokenizer(trained)
    qtbot.waitUntil(lambda: len(window.unsaved_work()) == 1, timeout=30_000)
    target = tmp_path / "mine.json"
    asked = []

    def choose(parent, caption, start, filters):  # (the user picks a file in the save dialog)
        asked.append(start)
        return str(target), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(choose))
    dialog = window.export_tokenizer()
    _wait_checked(qtbot, dialog)
    assert dialog.selected_format() == "hf-json"
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert asked == ["tokenizer.json"]
    # (the write's outcome arrives through the event loop: the file may be done or not, never half)
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog), timeout=60_000)
    _settle(qtbot, window)
    assert str(target) in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.unsaved_work() == [] and window._workers.pending() == 0, timeout=30_000)
    assert window.tokenizer().source.path == str(target)
    text = "hello there, the exported tokenizer 乌鲁木齐 🙂"
    reference = hf.Tokenizer.from_file(str(target)).encode(text, add_special_tokens=False).ids
    assert tokviz.load(target).encode(text).ids == reference == trained.encode(text).ids
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_failed_write_names_the_file_and_keeps_every_choice(qtbot, default_tokenizer_path, tmp_path, monkeypatch):
    dialog = ExportDialog(tokviz.load(default_tokenizer_path))
    qtbot.addWidget(dialog)
    dialog.show()
    _wait_checked(qtbot, dialog)
    dialog.choices["vocab-tsv"].setChecked(True)
    dialog.scrub.setChecked(False)
    target = tmp_path / "no such folder" / "vocab.tsv"
    asked = []

    def choose(parent, caption, start, filters):
        asked.append(start)
        return str(target), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(choose))
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert dialog.is_writing() and not dialog.choices["hf-json"].isEnabledTo(dialog)
    qtbot.waitUntil(lambda: not dialog.is_writing(), timeout=30_000)
    assert dialog.isVisible() and str(target) in dialog.reason.text() and "does not exist" in dialog.reason.text()
    assert dialog.selected_format() == "vocab-tsv" and not dialog.scrub.isChecked()
    assert dialog.choices["hf-json"].isEnabledTo(dialog)
    assert dialog.buttons.button(QDialogButtonBox.StandardButton.Save).isEnabled()
    assert not target.parent.exists()
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()  # (the save dialog opens where it was)
    assert asked == ["vocab.tsv", str(target)]
    qtbot.waitUntil(lambda: not dialog.is_writing(), timeout=30_000)
    dialog.reject()


def test_cancelling_a_write_keeps_the_old_file(qtbot, make_window, qwen_path, tmp_path, monkeypatch):
    window = make_window(qwen_path, "export me")
    target = tmp_path / "tokenizer.json"
    target.write_text("the old file\n", encoding="utf-8")
    started, release = threading.Event(), threading.Event()
    real_save_files = export_dialog.save_files

    def held_save_files(*args, **kwargs):  # (the real write, once the test lets it go on)
        started.set()
        release.wait(30)
        return real_save_files(*args, **kwargs)

    monkeypatch.setattr(export_dialog, "save_files", held_save_files)
    dialog = window.export_tokenizer()
    _wait_checked(qtbot, dialog)
    dialog.start_export(target, "hf-json")
    assert started.wait(30) and dialog.is_writing() and dialog.progress.isVisibleTo(dialog)
    dialog.reject()
    assert not dialog.isVisible() and shiboken6.isValid(dialog)  # (hidden at once; deleted once the write stops)
    release.set()
    qtbot.waitUntil(lambda: not shiboken6.isValid(dialog), timeout=60_000)
    _settle(qtbot, window)
    assert target.read_text(encoding="utf-8") == "the old file\n"
    assert sorted(p.name for p in tmp_path.iterdir() if "tokenizer" in p.name) == ["tokenizer.json"]
    assert "Written" not in window.statusBar().currentMessage() and window.errors == []
