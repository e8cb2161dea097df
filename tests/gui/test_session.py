"""No lost work: the last session comes back (after a crash or a normal quit), tokenizers trained or
edited and not exported are kept in the data folder until exported or discarded, and quitting with
them asks what to do."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

import tokviz
from tokviz import defaults
from tokviz.gui.settings import Settings
from tokviz.train import TrainOptions, train

from .helpers import wait_encoded

SAMPLE = "text typed and never saved 乌鲁木齐"


@pytest.fixture(scope="module")
def trained():
    """A small byte-level BPE and a Unigram, trained on the shipped training text."""
    corpus = [defaults.resource_path("training.txt")]
    bpe = train("bytelevel-bpe", corpus, TrainOptions(vocab_size=400), pattern="gpt2")
    unigram = train("unigram", corpus, TrainOptions(vocab_size=600))
    return bpe, unigram


@pytest.mark.slow
def test_unsaved_work_is_restored_after_a_crash(qtbot, make_window, tmp_path, default_tokenizer_path):
    settings = Settings(tmp_path / "s.ini")
    first = make_window(default_tokenizer_path, "first text", settings=settings)
    first.editor.setPlainText(SAMPLE)
    qtbot.waitUntil(lambda: settings.session_path().exists()
                    and json.loads(settings.session_path().read_text(encoding="utf-8"))["text"] == SAMPLE,
                    timeout=10_000)  # saved after a moment
    state = json.loads(settings.session_path().read_text(encoding="utf-8"))
    assert not state["clean"]
    # a crash: the first window never closes; the next start finds the session
    second = make_window(None, None, settings=settings)
    wait_encoded(qtbot, second, SAMPLE)
    assert second.editor_text() == SAMPLE
    assert str(second.tokenizer().source.path) == str(state["tokenizer_path"])
    assert second._restored_from["crashed"]
    qtbot.waitUntil(lambda: "did not close normally" in second.statusBar().currentMessage(), timeout=5_000)


def test_the_autosave_is_written_on_a_worker_and_a_save_after_it_lands_last(qtbot, make_window, tmp_path,
                                                                            default_tokenizer_path, monkeypatch):
    import threading

    from tokviz.gui.window.session import SessionStore

    settings = Settings(tmp_path / "s.ini")
    window = make_window(default_tokenizer_path, "first text", settings=settings)
    writers = []
    real_save = SessionStore.save

    def slow_save(store, **state):  # (a slow disk: the write takes a while)
        writers.append(threading.current_thread() is threading.main_thread())
        threading.Event().wait(0.3)
        return real_save(store, **state)

    monkeypatch.setattr(SessionStore, "save", slow_save)
    window.editor.setPlainText("typed " * 100_000)
    wait_encoded(qtbot, window, "typed " * 100_000)
    window.session.timer.timeout.emit()  # (the autosave's moment, now)
    assert writers == [] or writers == [False]  # (the UI thread went on: the write is the worker's)
    window.editor.setPlainText("typed later")
    assert window.session.save()  # (an explicit save waits for the one being written, then writes)
    assert writers == [False, True]
    assert json.loads(settings.session_path().read_text(encoding="utf-8"))["text"] == "typed later"


@pytest.mark.slow
def test_the_last_session_comes_back_after_a_normal_quit(qtbot, make_window, tmp_path, qwen_path):
    settings = Settings(tmp_path / "s.ini")
    text_file = tmp_path / "notes.txt"
    text_file.write_text("a file of notes\n", encoding="utf-8")
    first = make_window(qwen_path, None, text_file=text_file, settings=settings)
    first.editor.setPlainText("edited notes")
    wait_encoded(qtbot, first, "edited notes")
    first.close()
    assert json.loads(settings.session_path().read_text(encoding="utf-8"))["clean"]
    second = make_window(None, None, settings=settings)
    wait_encoded(qtbot, second, "edited notes")
    assert str(second.tokenizer().source.path) == str(qwen_path)
    assert second.text_path() == str(text_file) and "(edited)" in second.text_header.text()
    assert not second._restored_from["crashed"]
    # the restored edit is still an edit: closing saves it again, it is not replaced by the file
    second.close()
    third = make_window(None, None, settings=settings)
    wait_encoded(qtbot, third, "edited notes")


def test_a_damaged_session_file_is_ignored(qtbot, make_window, tmp_path):
    settings = Settings(tmp_path / "s.ini")
    settings.session_path().write_text("{not json", encoding="utf-8")
    window = make_window(None, None, settings=settings)
    assert window._restored_from is None and not window.errors and "Welcome" in window.editor_text()


def _kept(qtbot, window, n):
    qtbot.waitUntil(lambda: len(window.unsaved_work()) == n, timeout=30_000)
    return window.unsaved_work()


def test_a_trained_tokenizer_is_kept_and_comes_back_in_the_explorer_and_compare(qtbot, make_window, tmp_path,
                                                                              trained):
    bpe, unigram = trained
    settings = Settings(tmp_path / "s.ini")
    window = make_window(None, "some words to cut, 一些词", settings=settings)
    window.show_compare()
    for tok in (bpe, unigram):
        window.use_trained_tokenizer(tok)
    kept = _kept(qtbot, window, 2)
    assert {k.origin for k in kept} == {"trained"}
    assert all(k.path.exists() and settings.data_dir() in k.path.parents for k in kept)
    # each kept file reads back as the same tokenizer
    for tok in (bpe, unigram):
        entry = next(k for k in kept if k.name == tok.source.name)
        again = tokviz.load(entry.path)
        for text in ("some words to cut, 一些词", "Numbers 3.14159 and tabs\t!"):
            assert again.encode(text).ids == tok.encode(text).ids
    qtbot.waitUntil(lambda: all(e["path"] for e in window.compare_view.paths()), timeout=10_000)
    window.close()  # (a programmatic close keeps them without asking)

    again = make_window(None, None, settings=settings)
    wait_encoded(qtbot, again, "some words to cut, 一些词")
    assert again.tokenizer().encode("some words to cut").ids == unigram.encode("some words to cut").ids
    assert "not exported" in again.tokenizer_header.text()
    again.show_compare()
    view = again.compare_view
    qtbot.waitUntil(lambda: len(view.panes) >= 2 and all(p.encoding is not None for p in view.panes),
                    timeout=30_000)
    names = [p.name() for p in view.panes]
    assert bpe.source.name in names and unigram.source.name in names
    assert "failed" not in " ".join(p.figures.text() for p in view.panes)


def test_exporting_a_kept_tokenizer_takes_it_out_of_the_unsaved_ones(qtbot, make_window, tmp_path, trained):
    bpe, _ = trained
    window = make_window(None, "hello there", settings=Settings(tmp_path / "s.ini"))
    window.use_trained_tokenizer(bpe)
    (entry,) = _kept(qtbot, window, 1)
    dialog = window.export_tokenizer()
    target = tmp_path / "mine.json"
    dialog.export(target, "hf-json")
    dialog.accept()
    # (the keeping worker may still be finishing: once it has, nothing is left kept)
    qtbot.waitUntil(lambda: window.unsaved_work() == [] and window._workers.pending() == 0, timeout=30_000)
    assert not entry.path.exists()
    assert window.tokenizer().source.path == str(target)
    window.session.save()
    state = json.loads(window.settings.session_path().read_text(encoding="utf-8"))
    assert state["tokenizer_path"] == str(target)


def test_exported_before_it_was_kept(qtbot, make_window, tmp_path, trained):
    """Export at once after training, while the worker is still keeping the tokenizer: it ends up
    exported and not kept."""
    bpe, _ = trained
    window = make_window(None, "hello there", settings=Settings(tmp_path / "s.ini"))
    window.use_trained_tokenizer(bpe)
    assert window._workers.pending() == 1  # (the keep has not reported back yet)
    dialog = window.export_tokenizer()
    target = tmp_path / "early.json"
    dialog.export(target, "hf-json")
    dialog.accept()
    qtbot.waitUntil(lambda: window._workers.pending() == 0, timeout=30_000)
    assert window.unsaved_work() == []
    assert window.tokenizer().source.path == str(target)


def _answer_quit_question(button_text: str, seen: list):
    def answer():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append(box.text())
        for button in box.buttons():
            if button.text() == button_text:
                button.click()
                return
        box.reject()

    QTimer.singleShot(0, answer)


def test_quit_asks_about_tokenizers_not_exported(qtbot, make_window, tmp_path, trained):
    bpe, unigram = trained
    window = make_window(None, "hello there", settings=Settings(tmp_path / "s.ini"))
    window.show_compare()
    window.use_trained_tokenizer(bpe)
    window.use_trained_tokenizer(unigram)
    kept = _kept(qtbot, window, 2)

    seen: list[str] = []
    _answer_quit_question("Cancel", seen)
    window.request_quit()
    assert seen and "2 tokenizers were trained or edited and not exported" in seen[0]
    assert window.isVisible() and len(window.unsaved_work()) == 2

    _answer_quit_question("Discard and quit", seen)
    window.request_quit()
    assert not window.isVisible()
    assert window.unsaved_work() == [] and not any(k.path.exists() for k in kept)
    assert not any(p.tokenizer is bpe or p.tokenizer is unigram for p in window.compare_view.panes)


def test_keep_and_quit_leaves_them_for_next_time(qtbot, make_window, tmp_path, trained):
    bpe, _ = trained
    settings = Settings(tmp_path / "s.ini")
    window = make_window(None, "hello there", settings=settings)
    window.use_trained_tokenizer(bpe)
    _kept(qtbot, window, 1)
    seen: list[str] = []
    _answer_quit_question("Keep and quit", seen)
    window.request_quit()
    assert seen and not window.isVisible()
    again = make_window(None, None, settings=settings)
    assert len(again.unsaved_work()) == 1
    qtbot.waitUntil(lambda: again.tokenizer() is not None and again.tokenizer().source.name == bpe.source.name,
                    timeout=30_000)


def test_no_question_without_unsaved_tokenizers(qtbot, make_window, tmp_path):
    window = make_window(None, "hello", settings=Settings(tmp_path / "s.ini"))
    window.request_quit()  # (a question here would block the test)
    assert not window.isVisible()


def test_the_unsaved_menu_lists_each_kept_tokenizer_with_one_submenu_however_often_filled(qtbot, make_window,
                                                                                         tmp_path, trained):
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtWidgets import QApplication, QMenu

    window = make_window(None, "words", settings=Settings(tmp_path / "s.ini"))
    for tok in trained:
        window.use_trained_tokenizer(tok)
    _kept(qtbot, window, 2)
    menu = window.unsaved_menu
    kept = window.unsaved_work()

    def submenus():
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        return menu.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly)

    top_level = len(QApplication.topLevelWidgets())
    for _ in range(10):
        window.fill_unsaved_menu()
    assert submenus() == [window.unsaved_discard_menu]
    assert len(QApplication.topLevelWidgets()) == top_level
    entries = [a for a in menu.actions() if not a.isSeparator() and a.menu() is None]
    assert [a.text() for a in entries] == [k.describe() for k in kept]
    discard = window.unsaved_discard_menu.actions()
    assert [a.text() for a in discard] == [k.describe() + "…" for k in kept]

    # Choosing an entry opens it.
    current = window.tokenizer()
    other = next(a for a in entries if current.source.name not in a.text())
    other.trigger()
    qtbot.waitUntil(lambda: window.tokenizer() is not current and window.tokenizer().source.name in other.text(),
                    timeout=30_000)


def test_find_names_a_kept_tokenizer_by_its_path_only(tmp_path, trained):
    from tokviz.gui.window.session import UnsavedTokenizers

    unsaved = UnsavedTokenizers(tmp_path / "kept")
    kept = [unsaved.keep(tok, "trained") for tok in trained]
    assert unsaved.entries() == kept
    for k in kept:
        assert unsaved.find(k.path) == k
        assert unsaved.find(tmp_path / "kept" / ".." / "kept" / k.key / k.path.name) == k
        assert unsaved.find(k.path.parent / "meta.json") is None
        assert unsaved.find(k.path.parent) is None or k.path == k.path.parent
    assert unsaved.find(tmp_path / "kept") is None
    assert unsaved.find(tmp_path / "elsewhere.json") is None
    assert unsaved.find(None) is None
