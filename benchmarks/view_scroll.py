"""First paint and scroll repaint of the token view on a 5 MB document.

    python3 benchmarks/view_scroll.py [--mb 5] [--tokenizer PATH] [--width 1100] [--height 800] [--json]

For each ../shared/corpus/*.txt, the first --mb MB (repeated if the file is shorter) is encoded
(timed: "encode"), then a TokenView of --width x --height pixels is given the encoding and asked to
paint ("first paint": set_encoding + the first paint of the viewport, what the user waits for
after tokenization).  Then it scrolls, each step followed by one repaint of the viewport, timed:

  line    200 steps of one row (a mouse-wheel notch scrolls three)
  page    200 steps of one screen
  jump    50 jumps to random places in the document (blocks never laid out before)

Reported per kind: median, 95th percentile and maximum repaint time in ms.  Goals (issue 5): first
paint under 1 s after tokenization, each scroll repaint under 16 ms.  As in the explorer window,
the long-lived objects (tokenizer, encoding) are left out of garbage collection
(`core.gcpause.freeze_long_lived`) once encoded.  Runs offscreen
(QT_QPA_PLATFORM=offscreen unless a platform is set).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))


def document(path: Path, mb: float) -> str:
    text = path.read_text(encoding="utf-8")
    want = int(mb * 2**20)
    while len(text.encode("utf-8")) < want:
        text += "\n" + text
    data = text.encode("utf-8")[:want]
    return data.decode("utf-8", "ignore")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(view, app, encoding, rng) -> dict:
    from PySide6.QtGui import QPixmap

    target = QPixmap(view.viewport().size())

    def paint() -> float:
        t0 = time.perf_counter()
        view.viewport().render(target)
        return time.perf_counter() - t0

    t0 = time.perf_counter()
    view.set_encoding(encoding)
    paint()
    first = time.perf_counter() - t0
    bar = view.verticalScrollBar()
    timings: dict[str, list[float]] = {"line": [], "page": [], "jump": []}
    for _ in range(200):
        bar.setValue(bar.value() + bar.singleStep())
        timings["line"].append(paint())
    for _ in range(200):
        bar.setValue(bar.value() + bar.pageStep())
        timings["page"].append(paint())
    for _ in range(50):
        bar.setValue(rng.randrange(0, max(1, bar.maximum())))
        timings["jump"].append(paint())
    app.processEvents()
    row = {"first_paint_s": first, "blocks": view.block_count(), "laid_out": view.laid_out_blocks()}
    for kind, values in timings.items():
        ms = [v * 1000 for v in values]
        row[kind] = {"median_ms": statistics.median(ms), "p95_ms": percentile(ms, 0.95), "max_ms": max(ms)}
    return row


def main(argv=None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=5)
    ap.add_argument("--tokenizer", default=str(SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json"))
    ap.add_argument("--width", type=int, default=1100)
    ap.add_argument("--height", type=int, default=800)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from PySide6.QtWidgets import QApplication

    import tokviz
    from tokviz.core.gcpause import freeze_long_lived
    from tokviz.gui.views.token_view import TokenView

    app = QApplication.instance() or QApplication([])
    tok = tokviz.load(args.tokenizer)
    rng = random.Random(5)
    rows = []
    for path in sorted((SHARED / "corpus").glob("*.txt")):
        text = document(path, args.mb)
        t0 = time.perf_counter()
        encoding = tok.encode(text)
        encode_s = time.perf_counter() - t0
        freeze_long_lived()  # as the explorer window does with a big encoding
        view = TokenView()
        view.resize(args.width, args.height)
        view.show()
        app.processEvents()
        row = {"file": path.name, "mb": len(text.encode("utf-8")) / 2**20, "tokens": len(encoding),
               "encode_s": encode_s, **run(view, app, encoding, rng)}
        rows.append(row)
        view.close()
        view.deleteLater()
        app.processEvents()
        if not args.json:
            print(f"{row['file']:<10} {row['mb']:.1f} MB {row['tokens']:>9,} tokens  encode {encode_s:.2f} s  "
                  f"first paint {row['first_paint_s'] * 1000:.0f} ms  ({row['blocks']:,} blocks, "
                  f"{row['laid_out']} laid out)")
            for kind in ("line", "page", "jump"):
                r = row[kind]
                print(f"    scroll {kind:<5} repaint median {r['median_ms']:.1f} ms  p95 {r['p95_ms']:.1f} ms  "
                      f"max {r['max_ms']:.1f} ms")
    if args.json:
        print(json.dumps({"tokenizer": args.tokenizer, "width": args.width, "height": args.height, "rows": rows},
                         indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
