"""tokviz on a real X server (Xvfb, driven with xdotool as a user would): every dock open, eight
Compare panes, typing, a resize to 900x600 and Quit — the window stays within the screen, can be
900x600 without cutting anything below its minimum size, and nothing is written to stderr."""
from __future__ import annotations

import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tokviz import defaults
from tokviz.gui.settings import Settings

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
SCREEN = (1600, 1000)

pytestmark = pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdotool") and shutil.which("xprop")),
                                reason="needs Xvfb, xdotool and xprop (installed by .ci/run)")


def _unxz(src: Path, dst: Path) -> str:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(lzma.decompress(src.read_bytes()))
    return str(dst)


def _eight_tokenizers(folder: Path) -> list[str]:
    paths = [str(defaults.default_tokenizer_path())]
    for name in ("qwen2.5", "deepseek-v4"):
        paths.append(_unxz(REAL / name / "tokenizer.json.xz", folder / name / "tokenizer.json"))
        shutil.copy(REAL / name / "tokenizer_config.json", folder / name)
    paths.append(_unxz(REAL / "bert-minilm" / "tokenizer.json.xz", folder / "bert" / "tokenizer.json"))
    paths.append(_unxz(REAL / "bert-minilm" / "vocab.txt.xz", folder / "bert-vocab" / "vocab.txt"))
    for model in ("botchan_en_bpe_1000", "botchan_en_unigram_1000", "kyoto_ja_unigram_8000"):
        paths.append(_unxz(REAL / "sentencepiece-suite" / f"{model}.model.xz", folder / f"{model}.model"))
    return paths


class XServer:
    def __init__(self):
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as fh:
            self.display = ":" + fh.readline().strip()

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(args, env={**os.environ, "DISPLAY": self.display}, capture_output=True, text=True,
                              timeout=60)
        if check and done.returncode:
            raise AssertionError(f"{' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def geometry(self, wid: str) -> tuple[int, int, int, int]:
        info = self.run("xwininfo", "-id", wid)
        get = {k: int(re.search(rf"{k}:\s+(-?\d+)", info).group(1))
               for k in ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")}
        return (get["Absolute upper-left X"], get["Absolute upper-left Y"], get["Width"], get["Height"])

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _within_screen(geometry) -> bool:
    x, y, w, h = geometry
    return x >= 0 and y >= 0 and x + w <= SCREEN[0] and y + h <= SCREEN[1]


@pytest.mark.slow
def test_a_session_on_a_real_display(tmp_path):
    settings_path = tmp_path / "settings.ini"
    Settings(settings_path).set_compare_tokenizers(
        [{"path": p, "name": Path(p).stem if Path(p).name != "tokenizer.json" else Path(p).parent.name,
          "encoding": None} for p in _eight_tokenizers(tmp_path / "tokenizers")])
    x = XServer()
    env = {**os.environ, "DISPLAY": x.display, "QT_QPA_PLATFORM": "xcb", "TOKVIZ_SETTINGS": str(settings_path)}
    app = subprocess.Popen([sys.executable, "-m", "tokviz"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        wid = _wait(lambda: x.run("xdotool", "search", "--onlyvisible", "--name", "^tokviz", check=False).split(),
                    60, "the window")[0]
        session = settings_path.with_name("session.json")
        _wait(lambda: session.exists(), 60, "the first encode")  # (saved a moment after it)
        assert _within_screen(x.geometry(wid))
        x.run("xdotool", "windowfocus", "--sync", wid)
        for key in ("ctrl+m", "ctrl+shift+v", "ctrl+shift+t", "ctrl+shift+r", "ctrl+shift+e"):
            x.run("xdotool", "key", "--clearmodifiers", key)
        time.sleep(1)
        assert _within_screen(x.geometry(wid)), x.geometry(wid)

        # type in the editor (left of the middle, below the tabs)
        left, top, width, height = x.geometry(wid)
        x.run("xdotool", "mousemove", "--sync", str(left + 330), str(top + 200), "click", "1")
        x.run("xdotool", "key", "ctrl+a")
        x.run("xdotool", "type", "--delay", "30", "typed on a real display 123")
        _wait(lambda: "typed on a real display 123" in (json.loads(session.read_text(encoding="utf-8")).get("text")
                                                          or ""), 30, "the typed text in the session")

        # the Compare tab with its eight saved tokenizers
        x.run("xdotool", "key", "--clearmodifiers", "ctrl+shift+c")
        time.sleep(3)
        assert _within_screen(x.geometry(wid)), x.geometry(wid)

        hints = x.run("xprop", "-id", wid, "WM_NORMAL_HINTS")
        minimum = re.search(r"program specified minimum size: (\d+) by (\d+)", hints)
        assert minimum and int(minimum.group(1)) <= 900 and int(minimum.group(2)) <= 600, hints
        x.run("xdotool", "windowsize", "--sync", wid, "900", "600")
        time.sleep(1)
        assert x.geometry(wid)[2:] == (900, 600)
        hints = x.run("xprop", "-id", wid, "WM_NORMAL_HINTS")
        minimum = re.search(r"program specified minimum size: (\d+) by (\d+)", hints)
        assert int(minimum.group(1)) <= 900 and int(minimum.group(2)) <= 600, hints

        x.run("xdotool", "windowfocus", "--sync", wid)
        x.run("xdotool", "key", "--clearmodifiers", "ctrl+q")
        out, err = app.communicate(timeout=60)
    finally:
        if app.poll() is None:
            app.kill()
            app.communicate()
        x.stop()
    assert app.returncode == 0
    assert err.strip() == "", err
    assert json.loads(session.read_text(encoding="utf-8"))["clean"]
