"""Paths that are not regular files (a named pipe, /dev/zero, a socket) or that cannot be looked at
(a file in an unreadable folder) given to the app: Open text, Open tokenizer, a drop, the recent
lists and the last session at start-up, the Fairness page's file list.  Each ends in the app's
error report naming the path (`errorReported`) or is left out, at once (a blocked open would stop
the test under its alarm), and the window stays usable: it still encodes a text."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz
from _shared import HANG_LIMIT_S, no_hang, without_permissions  # noqa: F401 (no_hang: used by pytestmark)

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
TOKENIZER = REAL / "tortoise-tokenizer.json"  # a 4 KB HF BPE tokenizer.json

pytestmark = [pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system"),
              pytest.mark.usefixtures("no_hang")]  # (a blocked call fails the test instead of hanging it)


@pytest.fixture
def hostile(tmp_path):
    """name -> path: named pipes (a .txt and a .json), a socket, /dev/zero."""
    os.mkfifo(tmp_path / "pipe.txt")
    os.mkfifo(tmp_path / "pipe.json")
    paths = {"pipe.txt": tmp_path / "pipe.txt", "pipe.json": tmp_path / "pipe.json"}
    if os.path.exists("/dev/zero"):
        paths["/dev/zero"] = Path("/dev/zero")
    sock = socket.socket(socket.AF_UNIX)
    if len(os.fsencode(tmp_path / "sock.txt")) <= 100:
        sock.bind(os.fspath(tmp_path / "sock.txt"))
        paths["sock.txt"] = tmp_path / "sock.txt"
    yield paths
    sock.close()


def _reports(window) -> list[tuple[str, str, str]]:
    reports: list[tuple[str, str, str]] = []
    window.errorReported.connect(lambda title, path, reason: reports.append((title, path, reason)))
    return reports


def _still_usable(qtbot, window, text="still usable after all that") -> None:
    window.set_text(text)
    qtbot.waitUntil(lambda: window.controller.is_up_to_date() and window.token_view.encoding() is not None
                    and window.token_view.encoding().text == text, timeout=20_000)
    assert list(window.token_view.encoding().ids) == tokviz.load(TOKENIZER).encode(text).ids


def test_open_text_file_reports_each(make_window, qtbot, hostile):
    window = make_window(str(TOKENIZER), "hello")
    reports = _reports(window)
    for name, path in hostile.items():
        assert window.open_text_file(path) is False, name
        assert reports and reports[-1][1] == os.fspath(path), (name, reports)
        assert "not a regular file" in reports[-1][2], reports[-1]
    assert window.editor_text() == "hello"
    _still_usable(qtbot, window)


def test_open_tokenizer_and_drops_report_each(make_window, qtbot, hostile):
    window = make_window(str(TOKENIZER), "hello")
    reports = _reports(window)
    for name, path in hostile.items():
        for act in (window.open_tokenizer, lambda p: window.handle_dropped_paths([p])):
            before = len(reports)
            act(path)
            qtbot.waitUntil(lambda: len(reports) > before, timeout=10_000)
            assert reports[-1][1] == os.fspath(path) and "not a regular file" in reports[-1][2], (name, reports)
    assert window.controller.tokenizer.source.path is not None
    assert Path(window.controller.tokenizer.source.path).name == TOKENIZER.name
    _still_usable(qtbot, window)


def test_a_file_named_with_a_slash_at_its_end_is_reported(make_window, qtbot, tmp_path):
    text = tmp_path / "text.txt"
    text.write_text("some text\n", encoding="utf-8")
    window = make_window(str(TOKENIZER), "hello")
    reports = _reports(window)
    assert window.open_text_file(f"{text}/") is False
    assert reports[-1][1:] == (f"{text}/", "is a file, not a folder (the path ends in '/')")
    window.open_tokenizer(f"{TOKENIZER}/")
    qtbot.waitUntil(lambda: len(reports) == 2, timeout=10_000)
    assert reports[-1][1:] == (f"{TOKENIZER}/", "is a file, not a folder (the path ends in '/')")


def test_recent_entries_and_session_at_start_up(make_window, qtbot, tmp_path, hostile):
    from tokviz.gui.settings import Settings

    settings = Settings(tmp_path / "settings.ini")
    for path in hostile.values():
        settings.add_recent_text(path)
        settings.add_recent_tokenizer(path, path.name, "hf-json")
    window = make_window(str(TOKENIZER), "hello", settings=settings)
    assert not window.errors
    assert all(os.path.exists(p) for p in settings.recent_texts())  # (listed; opening one reports it)
    _still_usable(qtbot, window)


def test_fairness_file_list(qtbot, hostile):
    from tokviz.gui.analyses.fairness_view import FairnessView

    view = FairnessView()
    qtbot.addWidget(view)
    view.set_tokenizers({"tortoise": tokviz.load(TOKENIZER)})
    for name, path in hostile.items():
        view.set_files([path])
        assert len(view.languages()) == 1
        with qtbot.waitSignal(view.failed, timeout=10_000) as failed:
            view.run()
        assert os.fspath(path) in failed.args[0] and "not a regular file" in failed.args[0], (name, failed.args)


def test_copying_a_big_file_refuses_what_is_no_longer_a_file(tmp_path, hostile):
    from tokviz.errors import TokvizError
    from tokviz.gui.window.text_document import copy_file

    target = tmp_path / "copy.txt"
    for name, path in hostile.items():
        with pytest.raises(TokvizError, match="not a regular file") as caught:
            copy_file(os.fspath(path), os.fspath(target))
        assert os.fspath(caught.value.path) == os.fspath(path), name
        assert not target.exists()
    source = tmp_path / "big.txt"
    source.write_bytes(b"some text\n" * 1000)
    assert copy_file(os.fspath(source), os.fspath(target)) == 10_000 and target.read_bytes() == source.read_bytes()


def _screenshot(prefix, view, text, out):
    return subprocess.run(prefix + [sys.executable, "-m", "tokviz", "screenshot", view, "-t", os.fspath(TOKENIZER),
                                    "--text", os.fspath(text), "-o", os.fspath(out)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


@pytest.mark.slow
def test_screenshot_text_that_is_a_pipe(tmp_path, hostile):
    for view in ("explorer", "fairness"):
        done = _screenshot([], view, hostile["pipe.txt"], tmp_path / "out.png")
        assert done.returncode == 2, done
        assert done.stderr == f"tokviz: error: {hostile['pipe.txt']}: is a named pipe (FIFO), not a regular file\n", done


# ---- a file in an unreadable folder: run without the capabilities that bypass permissions ------

SCENARIO = r'''
import json, os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
import tokviz.gui
from tokviz.gui.app import ensure_application
from tokviz.gui.window.main_window import MainWindow
from tokviz.gui.settings import Settings
from tokviz.gui.analyses.fairness_view import FairnessView

tokenizer, locked, root = sys.argv[1:4]
app = ensure_application()
settings = Settings(os.path.join(root, "settings.ini"))
for name in ("text.txt", "tokenizer.json"):  # (recent entries, left in the folder that became unreadable)
    settings.add_recent_text(os.path.join(locked, name))
    settings.add_recent_tokenizer(os.path.join(locked, name), name, "hf-json")
errors, reports = [], []
window = MainWindow(tokenizer, "hello", settings=settings, error_handler=lambda t, m: errors.append(t))
window.errorReported.connect(lambda title, path, reason: reports.append([title, path, reason]))
window.show()

def wait(ready, limit=20.0):
    end = time.monotonic() + limit
    while not ready() and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    return ready()

wait(window.controller.is_up_to_date)
out = {"start_errors": list(errors), "recent_texts": settings.recent_texts(),
       "recent_tokenizers": [os.fspath(f.path) for f in settings.recent_tokenizers()]}
text, tok = os.path.join(locked, "text.txt"), os.path.join(locked, "tokenizer.json")
out["open_text"] = window.open_text_file(text)
for act, path in ((window.open_tokenizer, tok), (window.open_tokenizer, locked),
                  (lambda p: window.handle_dropped_paths([p]), text), (lambda p: window.handle_dropped_paths([p]), tok)):
    n = len(reports)
    act(path)
    wait(lambda: len(reports) > n, 10.0)
view = FairnessView()
view.set_tokenizers({"t": tokviz.load(tokenizer)})
failed = []
view.failed.connect(failed.append)
for files in ([text], [locked]):
    view.set_files(files)
    out.setdefault("languages", []).append(view.languages())
    view.run()
    wait(lambda: len(failed) == len(out["languages"]), 10.0)
out["fairness"] = failed
out["reports"] = reports
window.set_text("still usable")
out["usable"] = wait(lambda: window.controller.is_up_to_date() and window.token_view.encoding() is not None
                     and window.token_view.encoding().text == "still usable")
print(json.dumps(out))
'''


@pytest.mark.slow
def test_files_in_an_unreadable_folder(tmp_path):
    prefix = without_permissions()
    if prefix is None:
        pytest.skip("running as root without setpriv: permissions do not apply")
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(TOKENIZER, locked / "tokenizer.json")
    (locked / "text.txt").write_text("some text\n", encoding="utf-8")
    if os.geteuid() == 0:
        os.chown(locked, 65534, 65534)  # (root without its capabilities is then an outsider)
    locked.chmod(0o700 if os.geteuid() == 0 else 0o000)
    try:
        done = subprocess.run(prefix + [sys.executable, "-c", SCENARIO, os.fspath(TOKENIZER), os.fspath(locked),
                                        os.fspath(tmp_path)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        shots = [_screenshot(prefix, view, locked / "text.txt", tmp_path / "out.png") for view in ("explorer", "fairness")]
    finally:
        locked.chmod(0o700)
        if os.geteuid() == 0:
            os.chown(locked, 0, 0)
    for shot in shots:
        assert shot.returncode == 2 and shot.stderr == f"tokviz: error: {locked / 'text.txt'}: permission denied\n", shot
    assert done.returncode == 0 and "Traceback" not in done.stderr, done
    out = json.loads(done.stdout.strip().splitlines()[-1])
    text, tok = os.fspath(locked / "text.txt"), os.fspath(locked / "tokenizer.json")
    assert out["start_errors"] == [] and out["recent_texts"] == [], out
    assert out["recent_tokenizers"] == [os.fspath(TOKENIZER)]  # (the one the window opened)
    assert out["open_text"] is False
    reported = [(path, reason) for _title, path, reason in out["reports"]]
    # (the folder itself can be looked at, not listed: its tokenizer.json is the file named)
    assert reported == [(text, "permission denied"), (tok, "permission denied"), (tok, "permission denied"),
                        (text, "permission denied"), (tok, "permission denied")]
    assert out["languages"] == [["text"], ["locked"]]
    assert out["fairness"] == [f"Failed: {text}: permission denied", f"Failed: {locked}: permission denied"]
    assert out["usable"] is True
