"""Tokenizers shared by file between the app's views (tokviz/gui/window/open_tokenizers.py)."""
from __future__ import annotations

import gc
import os
import shutil
import threading
import time
import weakref

import pytest

import tokviz
from tokviz import TokvizError
from tokviz.gui.window.open_tokenizers import file_identity, open_tokenizer

from .helpers import shared_tokenizer


@pytest.fixture
def demo_copy(tmp_path, default_tokenizer_path):
    path = tmp_path / "demo.model"
    shutil.copyfile(default_tokenizer_path, path)
    return path


def counting_loader(path, loads: list):
    def load():
        loads.append(path)
        return tokviz.load(path)
    return load


def test_a_file_open_in_one_view_is_not_loaded_again(demo_copy):
    loads: list = []
    first = open_tokenizer(demo_copy, counting_loader(demo_copy, loads))
    again = open_tokenizer(demo_copy, counting_loader(demo_copy, loads))
    by_default = open_tokenizer(str(demo_copy))  # (the default loader, the path as a string)
    assert again is first and by_default is first and len(loads) == 1
    assert open_tokenizer(demo_copy, counting_loader(demo_copy, loads), variant="other") is not first


def test_a_tokenizer_no_view_holds_is_freed_and_loaded_again(demo_copy):
    loads: list = []
    tok = open_tokenizer(demo_copy, counting_loader(demo_copy, loads))
    ref = weakref.ref(tok)
    del tok
    gc.collect()
    assert ref() is None  # (the registry does not keep it alive)
    open_tokenizer(demo_copy, counting_loader(demo_copy, loads))
    assert len(loads) == 2


def test_a_file_changed_on_disk_is_loaded_again(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("[UNK]\nhello\nworld\n", encoding="utf-8")
    before = open_tokenizer(path)
    assert before.token_to_id("again") is None
    path.write_text("[UNK]\nhello\nworld\nagain\n", encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    after = open_tokenizer(path)
    assert after is not before and after.token_to_id("again") == 3


def test_a_folder_is_one_tokenizer_until_a_file_in_it_changes(tmp_path):
    folder = tmp_path / "qwen"
    folder.mkdir()
    shutil.copyfile(shared_tokenizer("qwen2.5/tokenizer.json"), folder / "tokenizer.json")
    first = open_tokenizer(folder)
    assert open_tokenizer(folder) is first and open_tokenizer(folder / ".." / "qwen") is first
    identity = file_identity(folder)
    (folder / "notes.txt").write_text("a file added beside it", encoding="utf-8")
    assert file_identity(folder) != identity
    assert open_tokenizer(folder) is not first


def test_a_missing_file_gives_the_loaders_error(tmp_path):
    with pytest.raises(TokvizError) as info:
        open_tokenizer(tmp_path / "nowhere.json")
    assert str(tmp_path / "nowhere.json") in str(info.value)


def test_threads_opening_one_file_at_once_end_with_one_tokenizer(demo_copy):
    got, go = [], threading.Barrier(4)

    def slow_load():
        tok = tokviz.load(demo_copy)
        time.sleep(0.05)  # (all four are loading at the same time)
        return tok

    def run():
        go.wait()
        got.append(open_tokenizer(demo_copy, slow_load))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(t is got[0] for t in got)
    assert open_tokenizer(demo_copy) is got[0]


def test_explorer_and_compare_pane_share_the_tokenizer(qtbot, make_window, demo_copy):
    window = make_window(str(demo_copy), "shared between views")
    explorer = window.controller.tokenizer
    window.compare_view.add_path(demo_copy)
    pane = window.compare_view.panes[-1]
    qtbot.waitUntil(lambda: pane.tokenizer is not None, timeout=30_000)
    assert pane.tokenizer is explorer
