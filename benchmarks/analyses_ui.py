"""The Analyses tab's pages on 150k-token vocabularies: how long each analysis takes, and whether the
window stays responsive meanwhile.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/analyses_ui.py [--tokenizer PATH ...] [--json]

A real `MainWindow` (settings in a temporary folder) opens on Qwen2.5 (151,643 tokens), with Llama 3
(128,256) and cl100k_base (100,256) in its Compare set, on 200 KB of ../shared/corpus/multi.txt; the
Analyses tab is shown and each page's Run is pressed in turn (Fairness on the shipped parallel
sample, Robustness on the explorer's text, Overlap on the set), then the Vocabulary view's health
filter (its first category) and the Round trip dock on the explorer's text.  A 5 ms timer on the UI
thread records every gap between its ticks while the work runs: the longest gap is the longest time
the window could not react to input (a frozen window shows up as a gap of seconds).  Reported per
analysis: seconds until its result, the longest and the 99th-percentile gap, and the ticks counted.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ui_latency import run_loop  # noqa: E402

DEFAULT_TOKENIZERS = [
    SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json",
    SHARED / "tokenizers" / "llama3" / "tokenizer.json",
    SHARED / "tokenizers" / "cl100k_base.tiktoken",
]
PARALLEL = ROOT / "resources" / "parallel"


class GapProbe:
    """A PreciseTimer ticking every `interval_ms` on the UI thread; `gaps_ms` are the times between
    ticks (a tick that comes late means the event loop was busy)."""

    def __init__(self, interval_ms: int = 5):
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.gaps_ms: list[float] = []
        self._last = 0.0

    def start(self) -> None:
        self.gaps_ms.clear()
        self._last = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps_ms.append((now - self._last) * 1000)
        self._last = now

    def summary(self) -> dict:
        gaps = sorted(self.gaps_ms) or [0.0]
        return {"max_gap_ms": round(gaps[-1], 1), "p99_gap_ms": round(gaps[int(0.99 * (len(gaps) - 1))], 1),
                "ticks": len(self.gaps_ms)}


def measure(name: str, start, done, timeout_s: float = 600) -> dict:
    probe = GapProbe()
    probe.start()
    t0 = time.perf_counter()
    start()
    ok = run_loop(None, done, timeout_s)
    seconds = time.perf_counter() - t0
    probe.stop()
    row = {"analysis": name, "seconds": round(seconds, 2), "finished": ok, **probe.summary()}
    print(f"  {name:<28} {seconds:7.2f} s   longest UI gap {row['max_gap_ms']:7.1f} ms   "
          f"p99 {row['p99_gap_ms']:6.1f} ms   ({row['ticks']} ticks){'' if ok else '  TIMED OUT'}", flush=True)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", action="append", help="tokenizer files (first: the explorer's)")
    ap.add_argument("--text-kb", type=float, default=200, help="KB of multi.txt in the explorer (default 200)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    paths = [Path(p) for p in (args.tokenizer or DEFAULT_TOKENIZERS)]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"missing tokenizer files: {', '.join(missing)}", file=sys.stderr)
        return 2

    import tokviz
    from tokviz.gui.app import ensure_application
    from tokviz.gui.window.main_window import MainWindow
    from tokviz.gui.settings import Settings

    app = ensure_application()  # (as the app makes it: allocator and thread switching tuned)
    loaded = [tokviz.load(p).prepare() for p in paths]
    text = (SHARED / "corpus" / "multi.txt").read_text(encoding="utf-8")[: int(args.text_kb * 1024)]
    scratch = tempfile.TemporaryDirectory()
    window = MainWindow(loaded[0], text, settings=Settings(os.path.join(scratch.name, "settings.ini")),
                        error_handler=lambda title, message: print(f"error: {title}: {message}", file=sys.stderr))
    window.resize(1280, 800)
    window.show()
    window.tabs.setCurrentWidget(window.compare_view)
    for tok in loaded[1:]:
        window.compare_view.add_tokenizer(tok)
    run_loop(app, lambda: window.is_up_to_date() and not window.compare_view.is_busy(), 300)
    window.tabs.setCurrentWidget(window.analyses_view)
    run_loop(app, lambda: len(window.analyses_view.tokenizers()) == len(loaded), 60)
    sizes = ", ".join(f"{name} {tok.vocab_size:,}" for name, tok in window.analyses_view.tokenizers().items())
    print(f"tokenizers: {sizes}; explorer text {len(text):,} characters")

    rows = []
    view = window.analyses_view
    for index, page in enumerate(view.pages):
        view.tabs.setCurrentIndex(index)
        if hasattr(page, "set_files"):
            page.set_files(sorted(PARALLEL.glob("*.txt")))
        results = []
        page.finished.connect(results.append)
        rows.append(measure(view.tabs.tabText(index), page.run, lambda: bool(results) and not page.is_busy()))
    rows.extend(_health_filter(window))
    rows.extend(_roundtrip_dock(window))
    window.close()
    window.deleteLater()
    app.processEvents()
    scratch.cleanup()
    if args.json:
        json.dump({"tokenizers": sizes, "rows": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0 if all(r["finished"] for r in rows) else 1


def _health_filter(window) -> list[dict]:
    """The Vocabulary view of the explorer's tokenizer, then its health data (first health filter)."""
    vocab = window.vocab_view
    window.vocab_dock.show()
    window.vocab_dock.raise_()
    rows = [measure("Vocabulary view", lambda: None, lambda: vocab.stats is not None and not vocab.is_busy())]
    rows.append(measure("Vocabulary health filter", lambda: vocab.health_box.setCurrentIndex(1),
                        lambda: vocab.token_health is not None and not vocab.is_busy()))
    return rows


def _roundtrip_dock(window) -> list[dict]:
    dock, panel = window.docks.roundtrip, window.roundtrip_panel
    return [measure("Round trip dock", lambda: (dock.show(), dock.raise_()),
                    lambda: panel.report is not None and not panel.is_busy())]


if __name__ == "__main__":
    sys.exit(main())
