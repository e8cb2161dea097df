"""The Library panel: finds tokenizers on a worker, shows their details, opens one on double-click."""
from __future__ import annotations

import shutil

from tokviz.formats.discover import FOLDER, HF_CACHE
from tokviz.gui.library_panel import FOUND_ROLE, LibraryPanel

from .helpers import shared_tokenizer


def _fake_hf_home(tmp_path):
    snap = tmp_path / "hf" / "hub" / "models--org--tiny-bert" / "snapshots" / "0123456789abcdef"
    snap.mkdir(parents=True)
    shutil.copy(shared_tokenizer("bert-minilm/tokenizer.json"), snap / "tokenizer.json")
    return {"HF_HOME": str(tmp_path / "hf"), "TIKTOKEN_CACHE_DIR": ""}


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
    second._fill_recent_menu()
    labels = [a.text() for a in second.recent_menu.actions() if not a.isSeparator()]
    assert any(label.startswith("bert-minilm") for label in labels) and "notes.txt" in labels
