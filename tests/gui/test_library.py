"""The Library panel: finds tokenizers on a worker, shows their details, opens one on double-click."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tokviz.formats.discover import FOLDER, HF_CACHE
from tokviz.gui.widgets.click_guard import click_guard
from tokviz.gui.panels.library_panel import FOUND_ROLE, LibraryPanel

from .helpers import shared_tokenizer


def _fake_hf_home(tmp_path):
    snap = tmp_path / "hf" / "hub" / "models--org--tiny-bert" / "snapshots" / "0123456789abcdef"
    snap.mkdir(parents=True)
    shutil.copy(shared_tokenizer("bert-minilm/tokenizer.json"), snap / "tokenizer.json")
    return {"HF_HOME": str(tmp_path / "hf"), "TIKTOKEN_CACHE_DIR": ""}


@pytest.mark.shared
def test_panel_lists_tokenizers_with_their_details(qtbot, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(shared_tokenizer("sentencepiece/bpe_8k.model"), folder / "bpe_8k.model")
    (folder / "broken.model").write_bytes(b"\x0a\x05not a model")
    panel = LibraryPanel([str(folder)], env=_fake_hf_home(tmp_path))
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh()
    names = {(f.origin, f.name) for f in panel.entries()}
    assert {(HF_CACHE, "org/tiny-bert"), (FOLDER, "bpe_8k"), (FOLDER, "broken")} <= names
    rows = {}
    for f in panel.entries():
        item = panel.item_for(f)
        rows[f.name] = (item.text(1), item.text(2), item.text(3))
    assert rows["org/tiny-bert"] == ("hf-json", "WordPiece", "30,522")
    assert rows["bpe_8k"] == ("sentencepiece", "BPE", "8,000")
    assert rows["broken"][1] == "unreadable"
    assert "broken.model" in panel.item_for(next(f for f in panel.entries() if f.name == "broken")).toolTip(0)


def test_double_click_opens_the_tokenizer_in_the_window(qtbot, tmp_path, make_window):
    panel = LibraryPanel(env=_fake_hf_home(tmp_path))
    window = make_window(text="Hello library", library=panel)
    qtbot.waitUntil(lambda: len(panel.entries()) >= 2, timeout=30_000)
    entry = next(f for f in panel.entries() if f.origin == HF_CACHE)
    item = panel.item_for(entry)
    assert item.data(0, FOUND_ROLE) == entry
    with qtbot.waitSignal(window.controller.tokenizerLoaded, timeout=30_000):
        panel.tree.itemActivated.emit(item, 0)
    qtbot.waitUntil(window.controller.is_up_to_date, timeout=30_000)
    assert window.tokenizer().model.kind == "WordPiece"
    assert window.tokenizer().vocab_size == 30522
    assert window.library_dock.isVisible()
    window.action_show_library.trigger()
    assert not window.library_dock.isVisible()


def test_settings_remember_recent_files_folders_and_layout(qtbot, tmp_path, make_window):
    from tokviz.gui.settings import Settings

    settings = Settings(tmp_path / "settings.ini")
    text_file = tmp_path / "notes.txt"
    text_file.write_text("remember me", encoding="utf-8")
    window = make_window(settings=settings)
    assert window.open_text_file(text_file)
    with qtbot.waitSignal(window.controller.tokenizerLoaded, timeout=30_000):
        window.open_tokenizer(shared_tokenizer("bert-minilm/vocab.txt"))
    window.library.add_folder(str(tmp_path))
    window.library_dock.hide()
    window.close()

    again = Settings(tmp_path / "settings.ini")  # a new run reads the same file
    assert [f.path.name for f in again.recent_tokenizers()][:2] == ["vocab.txt", "tokviz-demo.model"]
    assert again.recent_texts() == [str(text_file)]
    assert again.library_folders() == [str(tmp_path)]
    second = make_window(settings=again)
    assert not second.library_dock.isVisible()  # the layout came back
    qtbot.waitUntil(lambda: any(f.origin == "recent" for f in second.library.entries()), timeout=30_000)
    recent = {(f.name, f.path.name) for f in second.library.entries() if f.origin == "recent"}
    assert ("bert-minilm", "vocab.txt") in recent
    second.fill_recent_menu()
    labels = [a.text() for a in second.recent_menu.actions() if not a.isSeparator()]
    assert any(label.startswith("bert-minilm") for label in labels) and "notes.txt" in labels


def _counting(calls):
    from tokviz.gui.panels.library_panel import tokenizer_details

    def details(found):
        calls.append(found.path.name)
        return tokenizer_details(found)

    return details


def test_refresh_recent_shows_a_new_recent_tokenizer_without_looking_in_folders(qtbot, tmp_path, monkeypatch):
    import tokviz
    import tokviz.gui.panels.library_panel as library_panel
    from tokviz.defaults import default_tokenizer_path
    from tokviz.formats.discover import RECENT, Found

    recent: list[Found] = []
    calls: list[str] = []
    panel = LibraryPanel(env={"HF_HOME": str(tmp_path / "none"), "TIKTOKEN_CACHE_DIR": ""},
                         recent=lambda: list(recent), details=_counting(calls))
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh()
    assert not any(f.origin == RECENT for f in panel.entries())
    scans = []
    real_discover = library_panel.discover
    monkeypatch.setattr(library_panel, "discover", lambda *a, **k: scans.append(1) or real_discover(*a, **k))

    # the shipped tokenizer was just opened: its details are known already, nothing is read again
    shipped = default_tokenizer_path()
    recent.insert(0, Found("tokviz-demo", shipped, "minbpe", RECENT))
    read_before = len(calls)
    panel.refresh_recent()
    assert [f.path for f in panel.entries() if f.origin == RECENT] == [shipped]
    item = panel.item_for(recent[0])
    assert (item.text(2), item.text(3)) == ("BPE", "768")
    assert panel.tree.topLevelItem(0).text(0) == "Recent (1)"
    assert panel.status.text() == f"{len(panel.entries())} tokenizers"

    # a file never listed before: read once, on the worker
    bert = shared_tokenizer("bert-minilm/vocab.txt")
    recent.insert(0, Found("bert-minilm", bert, "wordpiece-vocab", RECENT))
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh_recent()
        assert panel.item_for(recent[0]).text(2) == "…"
    assert panel.item_for(recent[0]).text(2) == "WordPiece"
    assert calls[read_before:] == ["vocab.txt"]

    # the window passes the tokenizer it opened: shown at once, no file read
    qwen_path = shared_tokenizer("qwen2.5/tokenizer.json")
    qwen = tokviz.load(qwen_path)
    recent.insert(0, Found("qwen2.5", qwen_path, "hf-json", RECENT))
    panel.refresh_recent(qwen)
    assert panel.item_for(recent[0]).text(3) == f"{qwen.vocab_size:,}"
    assert calls[read_before:] == ["vocab.txt"]
    assert [f.name for f in panel.entries() if f.origin == RECENT] == ["qwen2.5", "bert-minilm", "tokviz-demo"]
    assert scans == [] and not panel.is_busy()
    panel.shutdown()


@pytest.mark.shared
def test_each_file_is_read_once_and_refresh_reads_again(qtbot, tmp_path):
    from tokviz.formats.discover import RECENT, Found

    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(shared_tokenizer("sentencepiece/bpe_8k.model"), folder / "bpe_8k.model")
    calls: list[str] = []
    panel = LibraryPanel([str(folder)], env={"HF_HOME": str(tmp_path / "none"), "TIKTOKEN_CACHE_DIR": ""},
                         recent=lambda: [Found("bpe", folder / "bpe_8k.model", "sentencepiece", RECENT)],
                         details=_counting(calls))
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh()
    rows = [panel.item_for(f) for f in panel.entries() if f.path.name == "bpe_8k.model"]
    assert len(rows) == 2 and all(r.text(3) == "8,000" for r in rows)  # in Recent and in Folders
    assert calls.count("bpe_8k.model") == 1
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh()
    assert calls.count("bpe_8k.model") == 1
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh_button.click()  # Refresh: read again (a file may have changed)
        panel.refresh_recent()  # (while it looks: the file is still read once)
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=30_000)
    rows = [panel.item_for(f) for f in panel.entries() if f.path.name == "bpe_8k.model"]
    assert len(rows) == 2 and all(r.text(3) == "8,000" for r in rows)
    assert calls.count("bpe_8k.model") == 2
    panel.shutdown()


def test_columns_get_sensible_widths_whatever_the_saved_header_state(qtbot, tmp_path):
    from PySide6.QtWidgets import QHeaderView

    from .helpers import docked

    env = _fake_hf_home(tmp_path)
    first = LibraryPanel(env=env)
    qtbot.addWidget(first)
    header = first.tree.header()
    for col in range(4):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
    header.resizeSection(0, 25)
    header.resizeSection(1, 300)
    saved = header.saveState()
    first.shutdown()

    panel = LibraryPanel(env=env)
    assert panel.tree.header().restoreState(saved)
    assert panel.tree.header().sectionSize(0) < 50  # (Qt keeps its minimum section size)
    window, dock = docked(qtbot, panel, dock_width=280, area="left")
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh()
    qtbot.waitUntil(lambda: abs(dock.width() - 280) <= 2, timeout=5_000)
    tree = panel.tree
    header = tree.header()
    name = header.sectionSize(0)
    assert name >= 0.4 * tree.viewport().width()
    assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
    shown = [c for c in range(1, 4) if not header.isSectionHidden(c)]
    assert 3 in shown
    for col in shown:
        assert header.sectionSize(col) >= tree.sizeHintForColumn(col)
    assert name + sum(header.sectionSize(c) for c in shown) <= tree.viewport().width()
    # wider: every column fits, and the name still has the most room
    window.resizeDocks([dock], [700], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: not any(header.isSectionHidden(c) for c in range(4)), timeout=5_000)
    assert header.sectionSize(0) > max(header.sectionSize(c) for c in (1, 2, 3))
    panel.shutdown()


def test_opening_a_tokenizer_shows_it_in_recent_at_once(qtbot, make_window):
    window = make_window(text="recent")
    panel = window.library
    qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() > 0 and not panel.is_busy(), timeout=30_000)
    path = shared_tokenizer("bert-minilm/vocab.txt")
    with qtbot.waitSignal(window.controller.tokenizerLoaded, timeout=30_000):
        window.open_tokenizer(path)
    recent = [f for f in panel.entries() if f.origin == "recent"]
    assert recent and recent[0].path == path


# ---- the name box: filter, open by Hub name, the download offer -----------------------------------

def _hub_env(tmp_path, monkeypatch):
    import lzma

    from _shared import write_hf_cache

    real = Path(__file__).resolve().parents[1] / "data" / "real"
    files = {"tokenizer.json": lzma.decompress((real / "qwen2.5" / "tokenizer.json.xz").read_bytes()),
             "tokenizer_config.json": (real / "qwen2.5" / "tokenizer_config.json").read_bytes()}
    write_hf_cache(tmp_path / "hub", "Qwen/Qwen2.5-0.5B-Instruct", files, "d" * 40, refs=("main", "v1"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # (the download offer must fail here, not reach the network)
    return {"HF_HUB_CACHE": str(tmp_path / "hub"), "TIKTOKEN_CACHE_DIR": ""}


def test_name_box_filters_and_opens_the_one_left(qtbot, tmp_path, monkeypatch):
    panel = LibraryPanel([], env=_hub_env(tmp_path, monkeypatch))
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.refreshed, timeout=30_000):
        panel.refresh()
    assert {f.name for f in panel.visible_entries()} >= {"Qwen/Qwen2.5-0.5B-Instruct", "tokviz-demo"}
    qtbot.keyClicks(panel.name_box, "qwen2.5")
    assert [f.name for f in panel.visible_entries()] == ["Qwen/Qwen2.5-0.5B-Instruct"]
    with qtbot.waitSignal(panel.openRequested, timeout=5_000) as blocker:
        qtbot.keyClick(panel.name_box, Qt.Key.Key_Return)
    assert blocker.args[0].origin == HF_CACHE
    panel.name_box.clear()
    assert len(panel.visible_entries()) >= 2


@pytest.mark.slow
def test_a_hub_name_opens_from_the_cache(qtbot, tmp_path, monkeypatch, make_window):
    env = _hub_env(tmp_path, monkeypatch)
    panel = LibraryPanel([], env=env)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.openRequested, timeout=5_000) as blocker:
        panel.open_name("Qwen/Qwen2.5-0.5B-Instruct@v1")
    found = blocker.args[0]
    assert (found.name, found.format, found.origin) == ("Qwen/Qwen2.5-0.5B-Instruct", "hf-json", HF_CACHE)
    window = make_window(found.load(), "hello")
    assert window.tokenizer().source.name == "Qwen/Qwen2.5-0.5B-Instruct"
    assert "Qwen/Qwen2.5-0.5B-Instruct" in window.windowTitle()


def test_a_name_the_cache_lacks_offers_a_download(qtbot, tmp_path, monkeypatch):
    panel = LibraryPanel([], env=_hub_env(tmp_path, monkeypatch))
    qtbot.addWidget(panel)
    panel.show()
    with qtbot.waitSignal(panel.nameProblem, timeout=5_000) as blocker:
        panel.open_name("org/absent")
    assert "org/absent is not in the Hugging Face cache" in blocker.args[0]
    assert panel.download_button.isVisible() and not panel.download_progress.isVisible()
    guard = click_guard(panel.download_button)  # (it ignores clicks just after it appears: a moment later)
    guard.clock = lambda: time.monotonic() + 1.0
    with qtbot.waitSignal(panel.nameProblem, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.download_button, Qt.MouseButton.LeftButton)
    assert "could not download the tokenizer files" in blocker.args[0]  # offline: nothing was fetched
    assert not panel.download_progress.isVisible()
    with qtbot.waitSignal(panel.nameProblem, timeout=5_000) as blocker:
        panel.open_name("not a name at all")
    assert "not a Hub name" in blocker.args[0] and not panel.download_button.isVisible()


# ---- a long recent list ---------------------------------------------------------------------------

def _long_recent_list(tmp_path, count: int = 40):
    """`count` recent entries, each its own path (a link): Qwen2.5, Llama 3 and cl100k_base among
    them, the rest small files; and a folder holding one of the recent files."""
    from tokviz.formats.discover import RECENT, Found

    sources = [(shared_tokenizer("qwen2.5/tokenizer.json"), "hf-json", None),
               (shared_tokenizer("llama3/tokenizer.json"), "hf-json", None),
               (shared_tokenizer("cl100k_base.tiktoken"), "tiktoken", "cl100k_base")]
    small = [(shared_tokenizer("sentencepiece/bpe_8k.model"), "sentencepiece", None),
             (shared_tokenizer("sentencepiece/unigram_8k.model"), "sentencepiece", None),
             (shared_tokenizer("bert-minilm/vocab.txt"), "wordpiece-vocab", None)]
    sources += [small[i % len(small)] for i in range(count - len(sources))]
    recent = []
    for i, (source, fmt, encoding) in enumerate(sources):
        link = tmp_path / "recent" / f"{i:02d}" / source.name
        link.parent.mkdir(parents=True)
        link.symlink_to(source)
        recent.append(Found(f"{source.stem}-{i}", link, fmt, RECENT, encoding=encoding))
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copy(small[0][0], folder / "in_folder.model")
    recent[-1] = Found("in_folder", folder / "in_folder.model", "sentencepiece", RECENT)
    return recent, folder


@pytest.mark.slow
def test_a_long_recent_list_is_read_on_the_worker_and_its_rows_kept(qtbot, tmp_path):
    import threading

    from tokviz.formats.discover import FOLDER, RECENT, Found
    from tokviz.gui.panels.library_panel import tokenizer_details

    recent, folder = _long_recent_list(tmp_path)
    threads: list[threading.Thread] = []
    reads: list[Path] = []

    def details(found):
        threads.append(threading.current_thread())
        reads.append(found.path)
        return tokenizer_details(found)

    panel = LibraryPanel([str(folder)], env={"HF_HOME": str(tmp_path / "none"), "TIKTOKEN_CACHE_DIR": ""},
                         recent=lambda: list(recent), details=details)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.detailsFinished, timeout=120_000):
        panel.refresh()
    assert [f for f in panel.entries() if f.origin == RECENT] == recent
    # each row shows what loading its file gives, every file was read once, on the worker
    expected: dict[Path, tuple[str, str]] = {}
    for f in recent:
        if f.path.resolve() not in expected:
            tok = f.load()
            expected[f.path.resolve()] = (tok.model.kind, f"{tok.vocab_size:,}")
        item = panel.item_for(f)
        assert (item.text(2), item.text(3)) == expected[f.path.resolve()], f.name
    listed = [f.path for f in panel.entries() if f.origin != RECENT and f.path.name != "in_folder.model"]
    assert sorted(map(str, reads)) == sorted(map(str, [f.path for f in recent] + listed))  # (once each)
    assert threads and all(t is not threading.main_thread() for t in threads)

    # the same list again: the same rows, nothing read
    rows = [panel.item_for(f) for f in recent]
    read_before = len(reads)
    panel.refresh_recent()
    assert all(panel.item_for(f) is row for f, row in zip(recent, rows))
    assert len(reads) == read_before

    # a file opened (at the top) and the oldest one dropped: Recent lists exactly the new list at once
    opened = Found("opened", tmp_path / "opened.model", "sentencepiece", RECENT)
    shutil.copy(shared_tokenizer("sentencepiece/unigram_8k.model"), opened.path)
    recent.insert(0, opened)
    recent.pop(-2)
    with qtbot.waitSignal(panel.detailsFinished, timeout=30_000):
        panel.refresh_recent()
        assert [f for f in panel.entries() if f.origin == RECENT] == recent
        assert panel.item_for(opened).text(2) == "…"
        assert panel.tree.topLevelItem(0).text(0) == f"Recent ({len(recent)})"
    assert reads[read_before:] == [opened.path]
    assert all(t is not threading.main_thread() for t in threads)
    assert (panel.item_for(opened).text(2), panel.item_for(opened).text(3)) == ("Unigram", "8,000")

    # Refresh with nothing changed keeps the rows; the Refresh button reads every file again and
    # fills both rows of the file listed in Recent and in the folder
    in_folder = [f for f in panel.entries() if f.origin == FOLDER]
    folder_rows = [panel.item_for(f) for f in in_folder]
    with qtbot.waitSignal(panel.refreshed, timeout=30_000):
        panel.refresh()
    assert all(panel.item_for(f) is row for f, row in zip(in_folder, folder_rows))
    with qtbot.waitSignal(panel.detailsFinished, timeout=120_000):
        panel.refresh(fresh=True)
    assert [f for f in panel.entries() if f.origin == RECENT] == recent
    twice = [panel.item_for(recent[-1]), panel.item_for(next(f for f in in_folder if f.name == "in_folder"))]
    assert twice[0] is not twice[1]
    assert all((item.text(2), item.text(3)) == ("BPE", "8,000") for item in twice)
    assert all(t is not threading.main_thread() for t in threads)
    panel.shutdown()
