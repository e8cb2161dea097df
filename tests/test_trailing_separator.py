"""A file named with a separator at its end ("tok.json/", "text.txt/") is refused as the system
refuses it ("Not a directory"), not read as the file pathlib makes of it; a folder so named is
still a folder."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz
from tokviz.analysis.corpus_stats import corpus_files
from tokviz.defaults import default_tokenizer_path
from tokviz.errors import TokvizError
from tokviz.paths import check_output_path, check_regular_file, open_regular, regular_file_or_none, stat_path

REAL = Path(__file__).resolve().parent / "data" / "real"
TOKENIZER = REAL / "tortoise-tokenizer.json"
MESSAGE = "is a file, not a folder (the path ends in '/')"


@pytest.fixture
def files(tmp_path):
    shutil.copy(TOKENIZER, tmp_path / "tok.json")
    (tmp_path / "text.txt").write_text("hello there\n", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    shutil.copy(TOKENIZER, tmp_path / "folder" / "tokenizer.json")
    return tmp_path


def test_the_system_refuses_these_paths_too(files):
    with pytest.raises(NotADirectoryError):
        open(f"{files / 'text.txt'}/", "rb")


def test_api_refuses_a_file_named_as_a_folder(files):
    for check in (stat_path, check_regular_file, open_regular, regular_file_or_none, check_output_path,
                  tokviz.load, lambda p: corpus_files([p])):
        for name in ("tok.json", "text.txt"):
            given = f"{files / name}/"
            with pytest.raises(TokvizError) as caught:
                check(given)
            assert caught.value.reason == MESSAGE, (check, caught.value)
            assert caught.value.path == given


def test_a_folder_with_a_separator_at_the_end_still_loads(files):
    tokviz.load(f"{files / 'folder'}/")
    assert corpus_files([f"{files / 'folder'}/"]) == [files / "folder" / "tokenizer.json"]


def test_other_kinds_are_named(files):
    os.mkfifo(files / "pipe")
    with pytest.raises(TokvizError, match=r"is a named pipe \(FIFO\), not a folder \(the path ends in '/'\)"):
        check_regular_file(f"{files / 'pipe'}/")


@pytest.mark.slow
def test_commands_refuse_it(files):
    def run(*argv):
        return subprocess.run([sys.executable, "-m", "tokviz", *argv], capture_output=True, text=True, timeout=60)

    tok, text = os.fspath(files / "tok.json"), os.fspath(files / "text.txt")
    for argv, named in ((["info", "-t", f"{tok}/"], f"{tok}/"),
                        (["encode", "-t", tok, f"{text}/"], f"{text}/"),
                        (["stats", "-t", tok, "--corpus", f"{text}/"], f"{text}/"),
                        (["export", "-t", tok, "-o", f"{text}/", "--force"], f"{text}/"),
                        (["train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-o", f"{tok}/", "--force", text], f"{tok}/")):
        done = run(*argv)
        assert done.returncode == 2 and done.stderr == f"tokviz: error: {named}: {MESSAGE}\n", done
    new = f"{files / 'new.json'}/"
    done = run("train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-o", new, text)
    assert done.returncode == 2 and "names a folder (the path ends in '/')" in done.stderr and new in done.stderr, done
    assert not (files / "new.json").exists()
    assert run("encode", "-t", tok, text).returncode == 0


def test_an_export_path_ending_in_a_separator_is_a_folder(files):
    """`-o out/` writes into the folder out, never a file named out; vocab-merges makes the folder."""
    tok = tokviz.load(files / "tok.json")
    with pytest.raises(TokvizError, match="no such folder") as err:
        tokviz.save(tok, f"{files / 'new.json'}/", format="hf-json")
    assert err.value.path == f"{files / 'new.json'}/"
    assert not (files / "new.json").exists()
    written = tokviz.formats.writers.save_files(tok, f"{files / 'folder'}/", format="hf-json", overwrite=True)
    assert written == [files / "folder" / "tokenizer.json"]
    byte_level = tokviz.load(default_tokenizer_path())
    written = tokviz.formats.writers.save_files(byte_level, f"{files / 'vm.d'}/", format="vocab-merges")
    assert sorted(p.name for p in written) == ["merges.txt", "tokenizer_config.json", "vocab.json"]
    assert all(p.parent == files / "vm.d" for p in written)
    done = subprocess.run([sys.executable, "-m", "tokviz", "export", "-t", os.fspath(files / "tok.json"),
                           "--format", "hf-json", "-o", f"{files / 'other.json'}/"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no such folder" in done.stderr and not (files / "other.json").exists()
