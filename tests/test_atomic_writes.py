"""Exports written as one transaction: whatever fails, and wherever, the folder afterwards holds the
old files byte for byte or the whole new set, and no temporary file.

Faults are injected at every file-system call of an export in turn (a full disk, a KeyboardInterrupt);
real processes are killed (SIGKILL) or interrupted (SIGINT) while they export; a tiny tmpfs fills up.
"""
from __future__ import annotations

import errno
import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from functools import lru_cache
from pathlib import Path

import pytest

import tokviz
from tokviz.defaults import default_tokenizer_path, resource_path
from tokviz.errors import Cancelled, TokvizError
from tokviz.formats.atomic_write import (
    FileTransaction,
    committed_files,
    remove_stale_temporaries,
    stop_on,
    write_files_atomic,
)
from tokviz.formats.writers import save_files
from tokviz.train import train
from tokviz.train.options import TrainOptions

ROOT = Path(__file__).resolve().parents[1]
# the file-system calls a transaction makes (unlink only removes temporary files: not injected)
CALLS = ("open", "write", "fsync", "close", "link", "replace", "rename")
TEMPORARY = re.compile(r"\..*\.(tokviz-\d+-[0-9a-f]{12}\.(tmp|bak|journal)|[0-9a-f]{12}\.tmp)", re.DOTALL)


# ---- tokenizers: an old and a new version for each format ----

def _training_files():
    return [str(resource_path("training.txt"))]


@lru_cache(maxsize=None)
def _bytelevel(vocab_size: int):
    return train("bytelevel-bpe", _training_files(), TrainOptions(vocab_size=vocab_size))


@lru_cache(maxsize=None)
def _wordpiece(vocab_size: int, all_specials: bool):
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] if all_specials else ["[PAD]", "[UNK]"]
    return train("wordpiece", _training_files(), TrainOptions(vocab_size=vocab_size, special_tokens=specials))


@lru_cache(maxsize=None)
def _minbpe(drop_merges: int):
    """The minbpe model tokviz ships, less its last `drop_merges` merges."""
    demo = tokviz.load(default_tokenizer_path())
    if not drop_merges:
        return demo
    lines = Path(default_tokenizer_path()).read_text(encoding="utf-8").splitlines(keepends=True)
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"tokviz-atomic-test-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    path = folder / f"short{drop_merges}.model"
    path.write_text("".join(lines[:-drop_merges]), encoding="utf-8")
    return tokviz.load(path)


# (format, target name, old tokenizer, new tokenizer)
CASES = {
    "vocab-merges": ("vocab-merges", "gpt2", lambda: _bytelevel(300), lambda: _bytelevel(330)),
    "wordpiece+config": ("wordpiece-vocab", "vocab.txt", lambda: _wordpiece(400, False), lambda: _wordpiece(450, False)),
    "wordpiece-config": ("wordpiece-vocab", "vocab.txt", lambda: _wordpiece(400, False), lambda: _wordpiece(450, True)),
    "minbpe": ("minbpe", "tok.model", lambda: _minbpe(0), lambda: _minbpe(20)),
    "hf-json": ("hf-json", "tokenizer.json", lambda: _bytelevel(300), lambda: _bytelevel(330)),
    "vocab-tsv": ("vocab-tsv", "vocab.tsv", lambda: _bytelevel(300), lambda: _bytelevel(330)),
}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every entry under `folder` (recursively) with its bytes."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if TEMPORARY.fullmatch(p.name)] if folder.exists() else []


def written_set(fmt: str, name: str, tok, tmp: Path) -> dict[str, bytes]:
    """The files an export writes, relative to the export's folder."""
    folder = tmp / "reference"
    folder.mkdir()
    save_files(tok, folder / name, format=fmt, overwrite=True)
    return snapshot(folder)


class Fault:
    """Raise `error()` at the `at`-th call (from 0) of the CALLS on `os`, once; count the calls."""

    def __init__(self, at: int, error):
        self.at, self.error, self.calls, self.fired = at, error, 0, False

    def install(self, monkeypatch) -> None:
        for name in CALLS:
            monkeypatch.setattr(os, name, self._wrap(getattr(os, name)))

    def _wrap(self, real):
        def call(*args, **kwargs):
            if not self.fired and self.calls == self.at:
                self.fired = True
                if real.__name__ == "close":  # (a failing close still frees the descriptor)
                    real(*args, **kwargs)
                raise self.error()
            self.calls += 1
            return real(*args, **kwargs)

        return call


def _disk_full():
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _count_calls(fmt, name, tok, folder, monkeypatch) -> int:
    fault = Fault(-1, None)
    with monkeypatch.context() as m:
        fault.install(m)
        save_files(tok, folder / name, format=fmt, overwrite=True)
    return fault.calls


@pytest.mark.parametrize("start", ["old files", "empty"])
@pytest.mark.parametrize("error", [_disk_full, KeyboardInterrupt], ids=["ENOSPC", "KeyboardInterrupt"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_fault_at_any_call_leaves_the_old_files_or_the_new_set(case, error, start, tmp_path, monkeypatch):
    fmt, name, old_tok, new_tok = CASES[case]
    old_tok, new_tok = old_tok(), new_tok()
    new_files = written_set(fmt, name, new_tok, tmp_path)
    trial = tmp_path / "count"
    trial.mkdir()
    if start == "old files":
        save_files(old_tok, trial / name, format=fmt, overwrite=True)
    calls = _count_calls(fmt, name, new_tok, trial, monkeypatch)
    assert calls >= 4
    outcomes = {"old": 0, "new": 0}
    for at in range(calls):
        folder = tmp_path / f"at{at}"
        folder.mkdir()
        if start == "old files":
            save_files(old_tok, folder / name, format=fmt, overwrite=True)
        old = snapshot(folder)
        new = {**old, **new_files}
        fault = Fault(at, error)
        raised = None
        with monkeypatch.context() as m:
            fault.install(m)
            try:
                save_files(new_tok, folder / name, format=fmt, overwrite=True)
            except (TokvizError, KeyboardInterrupt) as exc:
                raised = exc
        assert fault.fired
        after = snapshot(folder)
        assert temporaries(folder) == [], f"fault at call {at}"
        if raised is None or committed_files(raised):
            assert after == new, f"fault at call {at}: the export went through, but the files are not the new set"
            outcomes["new"] += 1
        else:
            assert after == old, f"fault at call {at} ({raised!r}) changed the old files"
            outcomes["old"] += 1
        if start == "empty" and raised is not None and not committed_files(raised):
            assert not (folder / name).exists() or fmt != "vocab-merges", "the folder made for the export is left"
    assert outcomes["old"] >= calls // 2  # (most calls come before the renames)


def test_a_rename_failing_half_way_puts_the_old_files_back(tmp_path, monkeypatch):
    names = ["a.txt", "b.txt", "c.txt"]
    for n in names:
        (tmp_path / n).write_text(f"old {n}", encoding="utf-8")
    os.chmod(tmp_path / "b.txt", 0o600)
    real_replace = os.replace
    renamed = []

    def replace(src, dst):
        if Path(dst).name == "c.txt" and TEMPORARY.fullmatch(Path(src).name) and src.endswith(".tmp"):
            raise OSError(errno.EIO, "injected")
        renamed.append(Path(dst).name)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="injected"):
        write_files_atomic([(tmp_path / n, f"new {n}") for n in names])
    assert renamed[:2] == ["a.txt", "b.txt"]  # (two were in place before the third failed)
    assert snapshot(tmp_path) == {n: f"old {n}".encode() for n in names}
    assert os.stat(tmp_path / "b.txt").st_mode & 0o777 == 0o600
    assert temporaries(tmp_path) == []


def test_overwrite_false_refuses_a_file_that_appears_before_the_renames(tmp_path, monkeypatch):
    real_link = os.link

    def link(src, dst, **kwargs):
        if Path(dst).name == "b.txt" and not (tmp_path / "b.txt").exists():
            (tmp_path / "b.txt").write_text("theirs", encoding="utf-8")
        return real_link(src, dst, **kwargs)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(TokvizError, match="already exists"):
        write_files_atomic([(tmp_path / "a.txt", "ours"), (tmp_path / "b.txt", "ours")], overwrite=False)
    assert snapshot(tmp_path) == {"b.txt": b"theirs"}


def test_a_signal_during_the_renames_is_delivered_after_them(tmp_path, monkeypatch):
    """SIGINT raised while the files are renamed: every file is renamed, then KeyboardInterrupt comes,
    naming the files written."""
    real_replace = os.replace
    sent = []

    def replace(src, dst):
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
            # The kernel hands the signal to a thread that does not block it, when that thread next
            # runs: on a busy machine, maybe after the renames. Wait for it here, inside them.
            deadline = time.monotonic() + 10
            while signal.SIGINT in signal.sigpending() and time.monotonic() < deadline:
                time.sleep(0.001)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    paths = [tmp_path / "a.txt", tmp_path / "b.txt"]
    handler = signal.getsignal(signal.SIGINT)
    assert handler is signal.default_int_handler, "an earlier test left its own SIGINT handler"
    with pytest.raises(KeyboardInterrupt) as info:
        write_files_atomic([(p, "new") for p in paths])
    assert committed_files(info.value) == paths
    assert snapshot(tmp_path) == {"a.txt": b"new", "b.txt": b"new"}
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, ())


def test_a_transaction_writes_one_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    with pytest.raises(ValueError, match="one folder"):
        write_files_atomic([(tmp_path / "a.txt", "x"), (tmp_path / "sub" / "b.txt", "y")])
    assert snapshot(tmp_path) == {} and temporaries(tmp_path) == []


def test_an_aborted_transaction_leaves_nothing(tmp_path):
    (tmp_path / "a.txt").write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError, match="stop"):
        with FileTransaction() as tx:
            tx.add(tmp_path / "a.txt", "new")
            tx.add(tmp_path / "b.txt", "new")
            assert len(temporaries(tmp_path)) == 2
            raise RuntimeError("stop")
    assert snapshot(tmp_path) == {"a.txt": b"old"} and temporaries(tmp_path) == []


# ---- stale temporary files ----

def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temporaries_of_tokviz_alone_are_removed(tmp_path):
    dead, alive = _dead_pid(), os.getppid()
    hour_ago = time.time() - 2 * 3600
    files = {
        f".vocab.json.tokviz-{dead}-0123456789ab.tmp": True,  # process gone
        f".vocab.json.tokviz-{dead}-0123456789ab.bak": True,
        f".merges.txt.tokviz-{alive}-0123456789ab.tmp": False,  # process alive, recent: being written
        f".merges.txt.tokviz-{alive}-abcdef012345.tmp": True,  # process alive, two hours old
        ".vocab.json.0123456789ab.tmp": True,  # earlier tokviz naming, old, a name written here
        ".vocab.json.abcdef012345.tmp": False,  # earlier naming, recent
        ".other.json.0123456789ab.tmp": False,  # earlier naming, not a name written here
        f".x.tokviz-{dead}-0123456789ab.tmp.keep": False,  # not the pattern
        f"x.tokviz-{dead}-0123456789ab.tmp": False,  # not hidden
        "notes.txt": False,
    }
    for n in files:
        (tmp_path / n).write_bytes(b"x")
    for n in (f".merges.txt.tokviz-{alive}-abcdef012345.tmp", ".vocab.json.0123456789ab.tmp",
              ".other.json.0123456789ab.tmp"):
        os.utime(tmp_path / n, (hour_ago, hour_ago))
    (tmp_path / f".d.tokviz-{dead}-0123456789ab.tmp").mkdir()  # a folder is never removed
    write_files_atomic([(tmp_path / "vocab.json", "{}")])
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {n for n, stale in files.items() if not stale} | {"vocab.json", f".d.tokviz-{dead}-0123456789ab.tmp"}


KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from tokviz.formats import atomic_write

    folder, kill_at = Path(sys.argv[1]), int(sys.argv[2])
    real_replace, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)

    os.replace = replace
    atomic_write.write_files_atomic([(folder / n, "new " + n) for n in ("a.txt", "b.txt", "c.txt")])
""")


@pytest.mark.parametrize("kill_at", [1, 2, 3])
def test_a_process_killed_during_the_renames_is_completed_by_the_next_write(tmp_path, kill_at):
    names = ("a.txt", "b.txt", "c.txt")
    for n in names:
        (tmp_path / n).write_text("old " + n, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(tmp_path), str(kill_at)], cwd=ROOT,
                          capture_output=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert any(n.endswith(".journal") for n in temporaries(tmp_path))
    remove_stale_temporaries(tmp_path)
    assert temporaries(tmp_path) == []
    assert snapshot(tmp_path) == {n: f"new {n}".encode() for n in names}


# ---- real processes: SIGKILL and SIGINT while exporting ----

EXPORT_LOOP = textwrap.dedent("""
    import json, sys
    import tokviz
    from tokviz.formats.atomic_write import committed_files
    from tokviz.formats.writers import save_files

    folder, old, new = sys.argv[1], tokviz.load(sys.argv[2]), tokviz.load(sys.argv[3])
    writing = None
    try:
        print("ready", flush=True)
        while True:
            for writing, tok in (("new", new), ("old", old)):
                save_files(tok, folder, format="vocab-merges", overwrite=True)
    except KeyboardInterrupt as exc:
        print(json.dumps({"writing": writing, "committed": [str(p) for p in committed_files(exc)]}), flush=True)
        sys.exit(130)
""")


@pytest.fixture(scope="module")
def gpt2_sets(tmp_path_factory):
    """Two vocab.json + merges.txt sets saved as tokenizer.json (quick to load), and their files."""
    base = tmp_path_factory.mktemp("sets")
    out = {}
    for label, size in (("old", 300), ("new", 330)):
        tok = _bytelevel(size)
        source = base / f"{label}.json"
        save_files(tok, source, format="hf-json")
        folder = base / label
        folder.mkdir()
        save_files(tok, folder, format="vocab-merges")
        out[label] = (source, snapshot(folder))
    return out


def _start_export_loop(folder: Path, gpt2_sets) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", EXPORT_LOOP, str(folder), str(gpt2_sets["old"][0]),
                             str(gpt2_sets["new"][0])], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_a_consistent_set(tmp_path, gpt2_sets):
    rng = random.Random(37)
    sets = {label: files for label, (_, files) in gpt2_sets.items()}
    seen = {"old": 0, "new": 0, "temporaries": 0}
    for trial in range(30):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        save_files(tokviz.load(gpt2_sets["old"][0]), folder, format="vocab-merges")
        proc = _start_export_loop(folder, gpt2_sets)
        time.sleep(rng.uniform(0, 0.3))
        proc.kill()
        proc.communicate(timeout=60)
        if temporaries(folder):
            seen["temporaries"] += 1
        # the next write into the folder (another file) cleans up after the killed process
        write_files_atomic([(folder / "notes.txt", "x")])
        assert temporaries(folder) == []
        files = snapshot(folder)
        files.pop("notes.txt")
        label = next((name for name, expected in sets.items() if files == expected), None)
        assert label is not None, f"trial {trial}: the folder holds neither set whole: {sorted(files)}"
        seen[label] += 1
    assert seen["old"] and seen["new"], seen


@pytest.mark.slow
def test_sigint_during_an_export_leaves_the_old_set(tmp_path, gpt2_sets):
    rng = random.Random(38)
    sets = {label: files for label, (_, files) in gpt2_sets.items()}
    committed = 0
    for trial in range(20):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        save_files(tokviz.load(gpt2_sets["old"][0]), folder, format="vocab-merges")
        proc = _start_export_loop(folder, gpt2_sets)
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        report = json.loads(out.strip().splitlines()[-1])
        assert temporaries(folder) == []
        files = snapshot(folder)
        if report["committed"]:  # interrupted during the renames: the set it wrote, whole
            committed += 1
            assert files == sets[report["writing"]]
        else:  # the set before the interrupted export
            assert files == sets["old" if report["writing"] == "new" else "new"]


# ---- a real full disk ----

@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 64 KiB tmpfs (needs the right to mount: root, here)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tokviz-test", str(mount)],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount a tmpfs: {exc}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True, timeout=30)


def test_a_full_disk_leaves_the_old_set(tiny_tmpfs, tmp_path):
    old, new = _bytelevel(300), _bytelevel(1000)
    folder = tiny_tmpfs / "gpt2"
    save_files(old, folder, format="vocab-merges")
    before = snapshot(folder)
    new_size = sum(len(v) for v in written_set("vocab-merges", "gpt2", new, tmp_path).values())
    fs = os.statvfs(tiny_tmpfs)
    room = new_size // 2  # (the disk is filled up to this: the new set cannot fit beside the old)
    (tiny_tmpfs / "filler").write_bytes(b"\0" * (fs.f_bavail * fs.f_frsize - room))
    assert os.statvfs(tiny_tmpfs).f_bavail * fs.f_frsize < new_size
    with pytest.raises(TokvizError, match="No space left"):
        save_files(new, folder, format="vocab-merges", overwrite=True)
    assert snapshot(folder) == before
    assert temporaries(tiny_tmpfs) == []
    with pytest.raises(TokvizError, match="No space left"):
        save_files(new, tiny_tmpfs / "fresh", format="vocab-merges")
    assert not (tiny_tmpfs / "fresh").exists() and temporaries(tiny_tmpfs) == []


@pytest.mark.parametrize("kind", ["fifo", "link-to-device"])
def test_only_a_regular_file_is_replaced(kind, tmp_path):
    """A pipe or device in the target's place is refused by name, not renamed over (as root, a
    rename would put a file where /dev/null was)."""
    target = tmp_path / "out.json"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(os.devnull)
    with pytest.raises(TokvizError, match="not a regular file") as err:
        write_files_atomic([(target, "{}")])
    assert err.value.path is not None and str(target) in str(err.value)
    assert (target.is_fifo() if kind == "fifo" else target.is_symlink())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    completed = subprocess.run([sys.executable, "-m", "tokviz", "export", "-t", str(default_tokenizer_path()),
                                "--format", "hf-json", "-o", str(target), "--force"],
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2 and "not a regular file" in completed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_stopped_write_keeps_the_old_files_and_leaves_no_temporary(tmp_path):
    """stop_on: a write whose event is set stops with Cancelled, before its first file or between
    the temporary files and the renames; outside the block the event has no effect."""
    old, new = _bytelevel(300), _bytelevel(330)
    folder = tmp_path / "set"
    folder.mkdir()
    save_files(old, folder, format="vocab-merges")
    before = snapshot(folder)
    stop = threading.Event()
    stop.set()
    with stop_on(stop), pytest.raises(Cancelled):
        save_files(new, folder, format="vocab-merges", overwrite=True)
    assert snapshot(folder) == before and temporaries(folder) == []

    running = threading.Event()
    with stop_on(running):
        tx = FileTransaction()
        tx.add(folder / "vocab.json", "{}")
        tx.add(folder / "merges.txt", "#version: 0.2\n")
        assert len(temporaries(folder)) == 2
        running.set()  # (after the temporary files are written, before the renames)
        with pytest.raises(Cancelled):
            tx.commit()
    assert snapshot(folder) == before and temporaries(folder) == []

    save_files(new, folder, format="vocab-merges", overwrite=True)  # (the set event no longer applies)
    expected = tmp_path / "expected"
    expected.mkdir()
    save_files(new, expected, format="vocab-merges")
    assert snapshot(folder) == snapshot(expected) != before
