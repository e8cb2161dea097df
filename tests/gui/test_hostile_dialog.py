"""Hostile files opened through the window's own paths (File ▸ Open, drops, the Library): each
gives an error dialog naming the file and the reason, the loaded tokenizer and the text stay, and
the window goes on encoding."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import tokviz
from tokviz.formats.discover import FOLDER, Found

from .helpers import wait_encoded

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
MANIFEST = {e["file"]: e for e in json.loads((HOSTILE / "MANIFEST.json").read_text(encoding="utf-8"))}
TEXT = "Hello hostile world, the text stays."

AS_TOKENIZER = [
    "tokenizer_json_truncated.json",
    "tokenizer_json_giant_id.json",
    "tokenizer_json_deeply_nested.json",
    "tokenizer_json_merge_self_referencing.json",
    "tokenizer_json_lone_surrogate.json",
    "gzip_bomb_tokenizer.json",
    "pickle_tokenizer.pkl",
    "sp_model_bad_varint_overlong.model",
    "sp_model_huge_declared_length.model",
    "minbpe_merge_cycle.model",
    "elf_named_vocab.txt",
]
AS_TEXT = ["text_gzip_bomb.txt.gz", "text_png_image.png", "text_utf16_bom.txt", "text_latin1.txt", "text_pickle.pkl"]


@pytest.fixture
def window(make_window, default_tokenizer_path):
    return make_window(tokviz.load(default_tokenizer_path), TEXT)


def _assert_reported(window, title: str, path: Path, words) -> None:
    assert window.errors, f"no error reported for {path}"
    got_title, message = window.errors[-1]
    assert got_title == title
    assert str(path) in message, message
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"


def _assert_unchanged(window, tokenizer, ids) -> None:
    assert window.tokenizer() is tokenizer
    assert window.current_text() == TEXT
    assert window.token_view.encoding().ids == ids


def _encodes_new_text(qtbot, window) -> None:
    new = "After the errors, new text is still encoded."
    window.set_text(new)
    enc = wait_encoded(qtbot, window, new)
    assert enc.ids == window.tokenizer().encode(new).ids and enc.ids


def test_hostile_tokenizers_give_a_dialog_and_change_nothing(qtbot, window):
    enc = wait_encoded(qtbot, window, TEXT)
    tokenizer, ids = window.tokenizer(), list(enc.ids)
    for name in AS_TOKENIZER:
        entry = MANIFEST[name]
        before = len(window.errors)
        with qtbot.waitSignal(window.controller.loadFailed, timeout=30_000):
            window.open_tokenizer(HOSTILE / name)
        assert len(window.errors) == before + 1
        _assert_reported(window, "Could not open tokenizer", HOSTILE / name, entry["words"])
        qtbot.waitUntil(window.is_up_to_date, timeout=30_000)
        _assert_unchanged(window, tokenizer, ids)
    _encodes_new_text(qtbot, window)


def test_hostile_gpt2_pair_names_the_broken_file(qtbot, window):
    wait_encoded(qtbot, window, TEXT)
    tokenizer = window.tokenizer()
    folder = HOSTILE / "gpt2_merges_self_referencing"
    with qtbot.waitSignal(window.controller.loadFailed, timeout=30_000):
        window.open_tokenizer(folder)
    _assert_reported(window, "Could not open tokenizer", folder / "merges.txt", ["merge 2", "empty"])
    assert window.tokenizer() is tokenizer
    _encodes_new_text(qtbot, window)


def test_hostile_files_dropped_and_from_the_library(qtbot, window):
    enc = wait_encoded(qtbot, window, TEXT)
    tokenizer, ids = window.tokenizer(), list(enc.ids)
    dropped = HOSTILE / "zip_tokenizer.json"
    with qtbot.waitSignal(window.controller.loadFailed, timeout=30_000):
        window.handle_dropped_paths([dropped])
    _assert_reported(window, "Could not open tokenizer", dropped, ["zip archive"])
    found = Found("sp_model_length_past_end", HOSTILE / "sp_model_length_past_end.model", "sentencepiece", FOLDER)
    with qtbot.waitSignal(window.controller.loadFailed, timeout=30_000):
        window.open_found(found)
    _assert_reported(window, "Could not open tokenizer", found.path, ["declares 80 bytes"])
    qtbot.waitUntil(window.is_up_to_date, timeout=30_000)
    _assert_unchanged(window, tokenizer, ids)
    window.handle_dropped_paths([HOSTILE / "text_zstd.txt.zst"])
    _assert_reported(window, "Could not open text", HOSTILE / "text_zstd.txt.zst", ["zstd-compressed"])
    _assert_unchanged(window, tokenizer, ids)
    _encodes_new_text(qtbot, window)


def test_hostile_text_files_give_a_dialog_and_keep_the_text(qtbot, window):
    enc = wait_encoded(qtbot, window, TEXT)
    tokenizer, ids = window.tokenizer(), list(enc.ids)
    for name in AS_TEXT:
        before = len(window.errors)
        assert window.open_text_file(HOSTILE / name) is False
        assert len(window.errors) == before + 1
        _assert_reported(window, "Could not open text", HOSTILE / name, MANIFEST[name]["words"])
        _assert_unchanged(window, tokenizer, ids)
        assert not window.is_big_file()
    _encodes_new_text(qtbot, window)


def test_files_of_many_gb_give_a_dialog(qtbot, window, tmp_path):
    """5 GB sparse files (no disk used): as a tokenizer, refused before reading; as text, big-file
    mode reads only the start, and says why it will not go on."""
    enc = wait_encoded(qtbot, window, TEXT)
    tokenizer, ids = window.tokenizer(), list(enc.ids)
    huge_tok = tmp_path / "tokenizer.json"
    with open(huge_tok, "wb") as fh:
        fh.truncate(5 * 2**30)
    with qtbot.waitSignal(window.controller.loadFailed, timeout=30_000):
        window.open_tokenizer(huge_tok)
    _assert_reported(window, "Could not open tokenizer", huge_tok, ["5.0 GB", "too large"])
    huge_text = tmp_path / "zeros.txt"
    with open(huge_text, "wb") as fh:
        fh.truncate(5 * 2**30)
    assert window.open_text_file(huge_text) is False
    _assert_reported(window, "Could not open text", huge_text, [])
    assert not window.is_big_file() and not window.file_job.is_running()
    _assert_unchanged(window, tokenizer, ids)
    _encodes_new_text(qtbot, window)
