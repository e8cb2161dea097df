"""The Training panel's inputs: each file once, however it is listed (alone and inside a listed
folder, through a link, by another spelling), so the sizes shown add up to the real total."""
from __future__ import annotations

from tokviz.defaults import resource_path
from tokviz.gui.panels.train_panel import TrainPanel


def test_the_training_files_count_each_file_once(tmp_path):
    text = resource_path("training.txt").read_bytes()
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_bytes(text)
    (folder / "b.txt").write_bytes(text[: len(text) // 2])
    (tmp_path / "link.txt").symlink_to(folder / "a.txt")
    panel = TrainPanel()
    # a file alone, its folder, a link to it, and the same file by another spelling
    panel.set_files([folder / "a.txt", folder, tmp_path / "link.txt", folder / ".." / "corpus" / "a.txt"])
    files = panel.training_files()
    assert files == [folder / "a.txt", folder / "b.txt"]
    assert sum(f.stat().st_size for f in files) == len(text) + len(text) // 2
    panel.shutdown()
