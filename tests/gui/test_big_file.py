"""A big text file in the explorer: encoded in the background with progress and cancel, the window
stays responsive, and the virtualised token view shows every token of the whole file."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

import tokviz
from tokviz import defaults
from tokviz.core.streaming import last_cut
from tokviz.gui.window import main_window as mw

BIG_MB = 50
HEARTBEAT_MS = 15
# A UI thread blocked by the encoding stalls for seconds on 50 MB; stalls of 100-150 ms come from
# a loaded 2-core machine (seen on CI), not from tokviz. Latency figures: benchmarks/, not here.
MAX_GAP_MS = 300


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    """~50 MB of real text (the shipped sample and training texts, repeated)."""
    seed = (defaults.resource_path("training.txt").read_text(encoding="utf-8") + "\n"
            + defaults.sample_text() + "\n")
    block = seed.encode("utf-8")
    path = tmp_path_factory.mktemp("big") / "big.txt"
    with open(path, "wb") as fh:
        for _ in range(BIG_MB * 2**20 // len(block) + 1):
            fh.write(block)
    return path


@pytest.fixture(scope="module")
def demo():
    path = defaults.default_tokenizer_path()
    if not path.exists():
        pytest.skip(f"the shipped demo tokenizer is missing: {path}")
    return tokviz.load(path)


class Heartbeat:
    """A QTimer every HEARTBEAT_MS on the UI thread; records the largest gap between its ticks."""

    def __init__(self):
        self.timer = QTimer()
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)
        self.last = None
        self.gaps: list[float] = []

    def _tick(self):
        now = time.perf_counter()
        if self.last is not None:
            self.gaps.append((now - self.last) * 1000)

        self.last = now

    def start(self):
        self.last = time.perf_counter()
        self.timer.start()

    def top(self, n=4):
        return sorted(self.gaps)[-n:]

    def stop(self):
        self.timer.stop()

    @property
    def max_gap(self) -> float:
        return max(self.gaps)


def _window(qtbot, tokenizer):
    errors = []
    window = mw.MainWindow(tokenizer, "", error_handler=lambda t, m: errors.append((t, m)))
    window.errors = errors
    qtbot.addWidget(window)
    window.resize(1100, 700)
    window.show()
    qtbot.waitUntil(window.is_up_to_date, timeout=30_000)
    return window


@pytest.mark.slow
def test_big_file_encodes_in_background_with_progress(qtbot, demo, big_file):
    stalls = []
    for _attempt in range(2):  # (a shared machine can pause a process once: a stall must happen twice)
        window = _window(qtbot, demo)
        values = []
        window.file_progress.valueChanged.connect(values.append)
        heartbeat = Heartbeat()
        heartbeat.start()
        t0 = time.perf_counter()
        with qtbot.waitSignal(window.file_job.finished, timeout=300_000) as blocker:
            assert window.open_text_file(big_file)
            assert window.is_big_file() and window.file_job.is_running()
            assert window.file_progress.isVisible() and window.file_cancel_button.isVisible()
        qtbot.wait(250)  # the heartbeat also covers showing the result
        heartbeat.stop()
        seconds = time.perf_counter() - t0
        result = blocker.args[0]
        # responsive: the UI thread never stalled while the worker encoded
        assert len(heartbeat.gaps) > seconds * 1000 / HEARTBEAT_MS / 3
        if heartbeat.max_gap < MAX_GAP_MS:
            break
        stalls.append(heartbeat.top())
    else:
        pytest.fail(f"the UI thread stalled over {MAX_GAP_MS} ms in both runs (largest gaps {stalls})")

    # progress went up to 100 %, never backwards
    assert values and values == sorted(values) and values[-1] == window.file_progress.maximum()
    assert len(set(values)) > 5

    # the whole file's ids, equal to encoding the text at once (checked on the start here; the
    # streaming tests check whole texts)
    text = big_file.read_text(encoding="utf-8")
    assert result.bytes == big_file.stat().st_size and result.chars == len(text)
    head = text[: 200_000]
    head = head[: last_cut(head)]
    head_ids = demo.encode(head).ids
    assert list(result.ids[: len(head_ids)]) == head_ids

    # when done: the view shows every token of the whole file; the editor holds its start
    view = window.token_view
    enc = view.encoding()
    assert enc is result.tokens and enc.text == text and len(enc) == len(result.ids)
    preview = window.current_text()
    assert preview == window.editor_text() and 0 < len(preview.encode("utf-8")) <= mw.PREVIEW_BYTES
    assert text.startswith(preview) and window.editor.isReadOnly()
    assert f"{len(result.ids):,} tokens in the whole file" in window.status_text()
    assert "all tokens shown" in window.text_header.text()
    assert not window.file_progress.isVisible() and not window.file_cancel_button.isVisible()
    assert window.big_file_result() is result and not window.errors

    # virtualised: only the blocks on screen are laid out, and the last token can be reached
    assert view.block_count() > 10_000 and view.laid_out_blocks() < 200
    last = len(enc) - 1
    view.ensure_visible(last)
    qtbot.wait(50)
    rect = view.token_rects(last)[-1]
    assert 0 <= rect.top() and rect.bottom() <= view.viewport().height()
    assert view.token_at_point(rect.center().toPoint()) == last
    assert view.laid_out_blocks() < 400


def test_cancel_stops_within_half_a_second(qtbot, demo, big_file):
    window = _window(qtbot, demo)
    window.open_text_file(big_file)
    qtbot.waitUntil(lambda: window.file_progress.value() >= 10, timeout=60_000)  # really under way
    with qtbot.waitSignal(window.file_job.cancelled, timeout=5_000) as blocker:
        clicked = time.perf_counter()
        window.file_cancel_button.click()
    latency = time.perf_counter() - clicked
    assert latency < 0.5, f"cancel took {latency:.2f} s"
    done, total = blocker.args
    assert 0 < done < total == big_file.stat().st_size
    assert not window.file_job.is_running()
    # the tokens encoded before the cancel are shown, and the status bar says where it stopped
    enc = window.token_view.encoding()
    partial = window.file_job.partial
    assert enc is partial.tokens and len(enc) > 0 and not partial.complete
    assert len(enc.text.encode("utf-8")) == partial.bytes <= done
    assert "cancelled at" in window.status_text() and "in the first" in window.status_text()
    assert window.big_file_result() is None


def test_small_file_after_big_leaves_big_mode(qtbot, demo, big_file, tmp_path):
    window = _window(qtbot, demo)
    window.open_text_file(big_file)
    assert window.file_job.is_running()
    small = tmp_path / "small.txt"
    small.write_text("just a little text", encoding="utf-8")
    window.open_text_file(small)
    assert not window.is_big_file() and not window.editor.isReadOnly()
    assert not window.file_progress.isVisible()
    qtbot.waitUntil(lambda: window.token_view.encoding() is not None
                    and window.token_view.encoding().text == "just a little text", timeout=30_000)
    assert "in the whole file" not in window.status_text()


def test_big_file_that_is_not_utf8_later_on_reports_the_offset(qtbot, demo, tmp_path):
    path = tmp_path / "bad.txt"
    good = b"plain words and more words\n" * (3 * 2**20 // 27)
    path.write_bytes(good + b"caf\xe9 au lait\n")
    window = _window(qtbot, demo)
    with qtbot.waitSignal(window.file_job.failed, timeout=120_000) as blocker:
        window.open_text_file(path)
    assert f"offset {len(good) + 3}" in blocker.args[0]
    assert window.errors and "Could not encode the whole file" in window.errors[0][0]


def test_python_encoder_keeps_the_ui_responsive_and_cancels(qtbot, big_file):
    """The pure-Python encoder holds the GIL while it works: the UI thread must still get it often."""
    slow = tokviz.load(defaults.default_tokenizer_path())
    if hasattr(slow, "use_native"):
        slow.use_native(False)
    stalls = []
    for _attempt in range(2):  # (a shared machine can pause a process once: a stall must happen twice)
        window = _window(qtbot, slow)
        heartbeat = Heartbeat()
        heartbeat.start()
        window.open_text_file(big_file)
        qtbot.wait(800)
        assert window.file_job.is_running()
        with qtbot.waitSignal(window.file_job.cancelled, timeout=5_000):
            clicked = time.perf_counter()
            window.cancel_file_encoding()
        latency = time.perf_counter() - clicked
        heartbeat.stop()
        assert latency < 0.5, f"cancel took {latency:.2f} s"
        if heartbeat.max_gap < MAX_GAP_MS:
            break
        stalls.append(heartbeat.top())
    else:
        pytest.fail(f"the UI thread stalled over {MAX_GAP_MS} ms in both runs (largest gaps {stalls})")
