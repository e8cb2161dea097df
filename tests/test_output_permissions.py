"""An output path that cannot be looked at (its folder cannot be searched) or written (its folder
is read-only) is refused by `tokviz train` and `tokviz export` with one line naming it, exit 2,
before any training: never a PermissionError traceback.  Root runs the commands without the
capabilities that bypass permissions (setpriv), as tests/test_hostile_paths.py does."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _shared import sweep, without_permissions

TOKENIZER = Path(__file__).resolve().parent / "data" / "real" / "tortoise-tokenizer.json"


@pytest.fixture
def folders(tmp_path):
    prefix = without_permissions()
    if prefix is None:
        pytest.skip("running as root without setpriv: permissions do not apply")
    locked, read_only = tmp_path / "locked", tmp_path / "read-only"
    locked.mkdir()
    read_only.mkdir()
    (locked / "old.json").write_text("{}")
    (tmp_path / "corpus.txt").write_text("some training text, some more training text\n" * 50)
    if os.geteuid() == 0:  # (root without its capabilities is then an outsider)
        os.chown(locked, 65534, 65534)
        os.chown(read_only, 65534, 65534)
    locked.chmod(0o700 if os.geteuid() == 0 else 0o000)
    read_only.chmod(0o555)
    yield prefix, tmp_path
    locked.chmod(0o700)
    read_only.chmod(0o755)
    if os.geteuid() == 0:
        os.chown(locked, 0, 0)
        os.chown(read_only, 0, 0)


def _tokviz(prefix, *argv):
    return subprocess.run(prefix + [sys.executable, "-m", "tokviz", *argv], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("where", sweep(["locked/new.json", "locked/old.json", "locked/sub/new.json", "read-only/new.json"], ["locked/new.json", "read-only/new.json"]))
def test_unusable_output_is_refused(folders, where):
    prefix, root = folders
    out = os.fspath(root / where)
    for argv in (["train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-o", out, os.fspath(root / "corpus.txt")],
                 ["train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-o", out, "--force",
                  os.fspath(root / "corpus.txt")],
                 ["export", "-t", os.fspath(TOKENIZER), "-o", out],
                 ["export", "-t", os.fspath(TOKENIZER), "-o", out, "--force"]):
        done = _tokviz(prefix, *argv)
        assert done.returncode == 2, done
        assert done.stderr.startswith(f"tokviz: error: {out}: permission denied") and done.stderr.count("\n") == 1, done
        assert "training" not in done.stderr and not done.stdout, done


def test_writable_output_is_written(folders):
    prefix, root = folders
    out = root / "fine.json"
    assert _tokviz(prefix, "export", "-t", os.fspath(TOKENIZER), "-o", os.fspath(out)).returncode == 0
    done = _tokviz(prefix, "train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-q", "-o", os.fspath(out),
                   os.fspath(root / "corpus.txt"))
    assert done.returncode == 2 and "the file exists: use --force" in done.stderr, done
