"""Filtering and sorting the Vocabulary view's table of a big vocabulary.

    python3 benchmarks/vocab_table.py [TOKENIZER]   (default: ../shared/tokenizers/qwen2.5, 151,665 tokens)

Builds the table (`analysis.vocab_stats.token_table`, done on a worker in the app) and counts the
memory blocks it holds, puts it in the table model and proxy shown by a QTableView, then times
filter changes (substring, CJK, regex, category, length range, no match) and sorts, each followed
by processing the view's events, as typing in the filter box does.  Goal (issue 7): no visible
stall (well under 100 ms).
"""
from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QTableView

    import tokviz
    from tokviz.analysis.vocab_stats import token_table
    from tokviz.gui.views.vocab_table import VocabModel, VocabProxy

    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else str(ROOT.parent / "shared" / "tokenizers" / "qwen2.5" / "tokenizer.json")
    app = QApplication.instance() or QApplication([])
    tok = tokviz.load(path)
    t0 = time.perf_counter()
    token_table(tok)  # (first time: the tokenizer fills its caches of token bytes and merge ranks)
    print(f"table built in {time.perf_counter() - t0:.2f} s the first time")
    gc.collect()
    blocks = sys.getallocatedblocks()
    t0 = time.perf_counter()
    table = token_table(tok)
    print(f"{len(table):,} rows built in {time.perf_counter() - t0:.2f} s (on a worker in the app)")
    model, proxy = VocabModel(), VocabProxy()
    proxy.setSourceModel(model)
    t0 = time.perf_counter()
    model.set_table(table)
    print(f"model + proxy filled in {(time.perf_counter() - t0) * 1000:.0f} ms")
    view = QTableView()
    view.setModel(proxy)
    view.resize(1000, 700)
    view.show()
    app.processEvents()
    del table
    gc.collect()
    held = sum(a.nbytes for a in vars(model.table()).values() if hasattr(a, "nbytes"))
    print(f"table + model + proxy + view hold {sys.getallocatedblocks() - blocks:,} memory blocks "
          f"(sys.getallocatedblocks), the table's arrays {held / 1e6:.1f} MB")
    cases = [("t", "", 0, 0), ("tok", "", 0, 0), ("token", "", 0, 0), ("中", "", 0, 0), ("/^Ġ[a-z]+ing$/", "", 0, 0),
             ("", "CJK", 0, 0), ("", "", 8, 12), ("zzqqxx", "", 0, 0), ("", "", 0, 0)]
    times = []
    for text, category, lo, hi in cases:
        t0 = time.perf_counter()
        proxy.set_filter(text, category, lo, hi)
        app.processEvents()
        ms = (time.perf_counter() - t0) * 1000
        times.append(ms)
        print(f"filter {text or category or f'{lo}-{hi} bytes' or 'none'!r:<22} {proxy.rowCount():>8,} rows  {ms:6.1f} ms")
    for attempt in ("first", "again"):  # (a text column's order is computed on its first sort)
        for column in (0, 3, 1, 6):
            t0 = time.perf_counter()
            proxy.sort(column, Qt.SortOrder.DescendingOrder if attempt == "first" else Qt.SortOrder.AscendingOrder)
            app.processEvents()
            print(f"sort by column {column} ({attempt}): {(time.perf_counter() - t0) * 1000:.1f} ms")
    print(f"filters: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
