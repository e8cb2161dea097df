"""Does the UI thread go first for the GIL?  A paint beside workers encoding with the Python pipeline,
with the workers joined to the UI gate (gui/ui_gate.py) and without.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/ui_gate.py [--workers 2] [--paints 12]

The workers encode 60,000 characters of English again and again with tests/data/real's
tortoise-tokenizer.json (Whitespace + BPE: no native path, all Python).  The UI thread paints 3,000
words with a box behind each on a QImage (two Qt calls per word, as the token view does) in a timer
event of the app's QApplication, and rests 200 ms between paints.  Reported: the
paint's median and longest time, and the encodes the workers finished, with no worker, with the
workers outside the gate and with them in it.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEventLoop, QPointF, QRect, QTimer  # noqa: E402
from PySide6.QtGui import QColor, QFont, QImage, QPainter  # noqa: E402

import tokviz  # noqa: E402
from tokviz.gui.app import ensure_application  # noqa: E402

TOKENIZER = ROOT / "tests" / "data" / "real" / "tortoise-tokenizer.json"
TEXT = ROOT / "resources" / "sample.txt"
SHARED_TEXT = ROOT.parent / "shared" / "corpus" / "en.txt"


def paint(image: QImage, words: list[str]) -> None:
    painter = QPainter(image)
    painter.setFont(QFont("DejaVu Sans", 10))
    x = y = 0
    for i, word in enumerate(words):
        painter.fillRect(QRect(x, y, 40, 14), QColor(i % 255, 100, 100))
        painter.drawText(QPointF(x, y + 12), word)
        x = (x + 45) % 1150
        y = (y + 16 * (x == 0)) % 780
    painter.end()


def run(workers: int, gated: bool, paints: int, tok, text: str) -> tuple[float, float, int]:
    from tokviz import _uigate

    stop = threading.Event()
    encodes = [0]

    def work() -> None:
        if gated:
            _uigate.join_this_thread()
        try:
            while not stop.is_set():
                tok.encode(text)
                encodes[0] += 1
        finally:
            _uigate.leave_this_thread()

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    image = QImage(1200, 800, QImage.Format.Format_ARGB32)
    words = text.split()[:3000]
    times = []
    encodes[0] = 0
    for _ in range(paints):
        loop = QEventLoop()

        def handler() -> None:
            t0 = time.perf_counter()
            paint(image, words)
            times.append(time.perf_counter() - t0)
            loop.quit()

        QTimer.singleShot(0, handler)  # (handled as an event: the app's QApplication sees it)
        loop.exec()
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join()
    times.sort()
    return times[len(times) // 2], times[-1], encodes[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--paints", type=int, default=12)
    args = parser.parse_args()
    ensure_application(gated=True)  # (as the app runs: its thread-switch interval and gate)
    try:
        from tokviz import _uigate  # noqa: F401
    except ImportError:
        print("tokviz._uigate is not built", file=sys.stderr)
        return 1
    tok = tokviz.load(TOKENIZER)
    source = SHARED_TEXT if SHARED_TEXT.exists() else TEXT
    text = (source.read_text(encoding="utf-8") * 20)[:60000]
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, switch interval {sys.getswitchinterval() * 1e3:g} ms")
    print("| workers | gate | paint median ms | paint max ms | encodes |")
    print("| --- | --- | --- | --- | --- |")
    for workers, gated in ((0, False), (args.workers, False), (args.workers, True)):
        median, longest, encodes = run(workers, gated, args.paints, tok, text)
        print(f"| {workers} | {'on' if gated else 'off'} | {median * 1e3:.1f} | {longest * 1e3:.1f} | {encodes} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
