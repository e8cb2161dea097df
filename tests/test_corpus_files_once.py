"""A corpus file reached under several names (listed alone, inside a listed folder, through a
symbolic or hard link) is read once: statistics over all those names equal the file's own, and
its token count equals HF tokenizers' on the text."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tokviz import load
from tokviz.analysis.corpus_stats import corpus_files, corpus_stats
from tokviz.defaults import resource_path
from tokviz.paths import distinct_files

from _shared import without_permissions

TOKENIZER = Path(__file__).resolve().parent / "data" / "real" / "tortoise-tokenizer.json"


@pytest.fixture
def corpus(tmp_path):
    """dir/a.txt (sample text), dir/b.txt (another file), link.txt -> dir/a.txt, hard.txt = dir/a.txt."""
    text = resource_path("training.txt").read_text(encoding="utf-8")[:20000]
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "a.txt").write_text(text, encoding="utf-8")
    (folder / "b.txt").write_text(text[:5000], encoding="utf-8")  # (a file of its own, kept)
    (tmp_path / "link.txt").symlink_to(folder / "a.txt")
    os.link(folder / "a.txt", tmp_path / "hard.txt")
    return tmp_path


def test_corpus_files_lists_each_file_once(corpus):
    a, b = corpus / "dir" / "a.txt", corpus / "dir" / "b.txt"
    names = [a, corpus / "dir", corpus / "link.txt", corpus / "hard.txt", corpus / "dir" / ".." / "dir" / "a.txt"]
    assert corpus_files(names) == [a, b]
    assert corpus_files([corpus / "link.txt", corpus / "dir"]) == [corpus / "link.txt", b]


def test_stats_over_a_file_its_folder_and_links_equal_the_files_own(corpus):
    tokenizers = pytest.importorskip("tokenizers")
    tok = load(TOKENIZER)
    a, b = corpus / "dir" / "a.txt", corpus / "dir" / "b.txt"
    alone = corpus_stats(tok, [a, b])
    many = corpus_stats(tok, [a, corpus / "dir", corpus / "link.txt", corpus / "hard.txt"])
    assert (many.bytes, many.chars, many.tokens) == (alone.bytes, alone.chars, alone.tokens)
    assert list(many.counts) == list(alone.counts)
    assert many.bytes == a.stat().st_size + b.stat().st_size
    reference = tokenizers.Tokenizer.from_file(os.fspath(TOKENIZER))
    expected = sum(len(reference.encode(p.read_text(encoding="utf-8"), add_special_tokens=False).ids) for p in (a, b))
    assert many.tokens == expected


def test_cli_stats_counts_a_file_once_in_one_corpus(corpus):
    a = corpus / "dir" / "a.txt"

    def measured(*paths):
        argv = [sys.executable, "-m", "tokviz", "stats", "-t", os.fspath(TOKENIZER), "--json"]
        for p in paths:
            argv += ["--corpus", f"all={p}"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        stats = json.loads(done.stdout)["corpus"]["all"]
        return stats["bytes"], stats["tokens"], stats["files"]

    folder = measured(corpus / "dir")
    assert folder[0] == a.stat().st_size + (corpus / "dir" / "b.txt").stat().st_size
    assert measured(a, f"{corpus / 'dir'}/", corpus / "link.txt") == folder
    assert measured(a, corpus / "link.txt", corpus / "hard.txt") == measured(a)


def test_distinct_files_is_the_one_in_paths():
    import tokviz.train

    assert tokviz.train.distinct_files is distinct_files


def test_a_folder_that_cannot_be_listed_is_named(tmp_path):
    """(pathlib's rglob skips a folder it may not list: the statistics were of no file at all.)"""
    prefix = without_permissions()
    if prefix is None:
        pytest.skip("running as root without setpriv: permissions do not apply")
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("some text\n", encoding="utf-8")
    if os.geteuid() == 0:
        os.chown(folder, 65534, 65534)  # (root without its capabilities is then an outsider)
    folder.chmod(0o300)  # (can be looked at and passed through, not listed)
    try:
        done = subprocess.run(prefix + [sys.executable, "-m", "tokviz", "stats", "-t", os.fspath(TOKENIZER), "--corpus",
                                        os.fspath(folder)], capture_output=True, text=True, timeout=120)
    finally:
        folder.chmod(0o700)
        if os.geteuid() == 0:
            os.chown(folder, 0, 0)
    assert done.returncode == 2 and done.stderr == f"tokviz: error: {folder}: permission denied\n", done
