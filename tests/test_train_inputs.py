"""Training inputs count each file once: a file named twice, through a link or as `dir/../dir/a.txt`,
weighs as one file in what the trainer learns and reports."""
from __future__ import annotations

import os

from tokviz.defaults import resource_path
from tokviz.train import TrainOptions, train
from tokviz.paths import distinct_files


def _first_merge_count(files) -> str:
    messages = []
    train("bytelevel-bpe", files, TrainOptions(vocab_size=300), progress=lambda f, m: messages.append(m))
    return next(m for m in messages if m.startswith("merge "))


def test_a_file_named_several_ways_is_trained_on_once(tmp_path):
    text = resource_path("training.txt").read_bytes()
    (tmp_path / "dir").mkdir()
    a = tmp_path / "dir" / "a.txt"
    a.write_bytes(text)
    (tmp_path / "link.txt").symlink_to(a)
    os.link(a, tmp_path / "hard.txt")
    names = [a, tmp_path / "link.txt", tmp_path / "dir" / ".." / "dir" / "a.txt", tmp_path / "hard.txt"]
    assert distinct_files(names) == [a]
    once = _first_merge_count([a])
    assert _first_merge_count(names) == once  # the same pair count as the file alone


def test_distinct_files_keeps_the_order_and_other_files(tmp_path):
    b, c = tmp_path / "b.txt", tmp_path / "c.txt"
    b.write_text("bee", encoding="utf-8")
    c.write_text("bee", encoding="utf-8")  # (equal contents, another file: kept)
    missing = tmp_path / "missing.txt"
    assert distinct_files([c, b, c, missing]) == [c, b, missing]
