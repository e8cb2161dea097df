"""Keystroke to painted tokens in the explorer window, and the first encode after a load.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/ui_latency.py [--tokenizer PATH ...] [--sizes 1,5,10,50]
                                                               [--keys 25] [--json [FILE]]

Long lines (--long-lines): the same, at the end of texts that are one 100,000-character line
(comma-separated numbers, prose, base64; 42,000 characters of emoji and combining marks), a key every
150 ms.

Typing: a real `MainWindow(tokenizer_path, text)` is given the first 1, 5, 10 and 50 KB of each
../shared/corpus file (en, zh, code), the cursor is put at the end and characters are inserted
into `window.editor` at a steady rate: --keys keystrokes every 80 ms ("steady"), then as many every
30 ms ("burst").  A keystroke's latency runs from the moment it was due (so a busy UI thread that
makes it late counts) to the end of the first paint of the token view whose encoding holds that
keystroke's text or a later one (a keystroke superseded while an encode ran is shown by the next
paint).  Reported per size: median, 95th percentile and maximum over the three corpora, the
encodes painted per second while typing, and how many keystrokes' own texts were painted.

First encode after a load: for each shared tokenizer, (core) in a fresh process: load, the
`Tokenizer.prepare()` step when there is one, the first encode of 1 KB of English and the median of
later ones (a character appended each time, as typing does); (window) the worker's time of the
first encode after the load and of the later ones, and load-finished -> first painted tokens.

Runs offscreen (QT_QPA_PLATFORM=offscreen unless a platform is set) or under xvfb-run.  Settings
and session go to a temporary directory (TOKVIZ_SETTINGS), never the user's.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

TYPED = {"en": "the quick brown fox, ", "code": "x = f(a, b)\n", "zh": "中文分词的例子，"}
SHARED_TOKENIZERS = [
    "qwen2.5/tokenizer.json", "qwen2.5", "llama3/tokenizer.json", "cl100k_base.tiktoken",
    "bert-minilm/tokenizer.json", "bert-minilm/vocab.txt", "sentencepiece/unigram_8k.model",
    "sentencepiece/bpe_8k.model",
]

CORE_PROBE = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from tokviz.gui.window.open_tokenizers import open_tokenizer
text = open(sys.argv[3], encoding="utf-8").read()[:1000]
t0 = time.perf_counter(); tok = open_tokenizer(sys.argv[2]); load = time.perf_counter() - t0
prepare = None
if hasattr(tok, "prepare"):
    t0 = time.perf_counter(); tok.prepare(); prepare = time.perf_counter() - t0
t0 = time.perf_counter(); tok.encode(text); first = time.perf_counter() - t0
later = []
for i in range(10):
    text += "abcdefghij"[i]
    t0 = time.perf_counter(); tok.encode(text); later.append(time.perf_counter() - t0)
print(json.dumps({"load_s": load, "prepare_s": prepare, "first_ms": first * 1000,
                  "later_ms": statistics.median(later) * 1000}))
"""


def document(path: Path, kb: float) -> str:
    text = path.read_text(encoding="utf-8")
    want = int(kb * 1024)
    while len(text.encode("utf-8")) < want:
        text += "\n" + text
    return text.encode("utf-8")[:want].decode("utf-8", "ignore")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(ms: list[float]) -> dict:
    if not ms:
        return {"n": 0, "median_ms": None, "p95_ms": None, "max_ms": None}
    return {"n": len(ms), "median_ms": statistics.median(ms), "p95_ms": percentile(ms, 0.95), "max_ms": max(ms)}


class Probe:
    """Watches a window: every paint of the token view, every encode result and set_encoding."""

    def __init__(self, window):
        self.window = window
        self.view = window.token_view
        self.paints: list[tuple[float, object]] = []  # (end of paint, encoding painted)
        self.on_paint = None
        self.encodes: list[float] = []  # worker seconds of each delivered encode
        self.set_encoding_ms: list[float] = []
        self.paint_ms: list[float] = []
        paint, set_encoding = self.view.paintEvent, self.view.set_encoding

        def paint_event(event):
            t0 = time.perf_counter()
            paint(event)
            t1 = time.perf_counter()
            self.paint_ms.append((t1 - t0) * 1000)
            enc = self.view.encoding()
            if enc is not None and (not self.paints or self.paints[-1][1] is not enc):
                self.paints.append((t1, enc))
                if self.on_paint is not None:
                    self.on_paint(t1, enc)

        def timed_set_encoding(encoding):
            t0 = time.perf_counter()
            set_encoding(encoding)
            self.set_encoding_ms.append((time.perf_counter() - t0) * 1000)

        self.view.paintEvent = paint_event  # (an instance attribute: Qt calls it for this view only)
        self.view.set_encoding = timed_set_encoding
        window.controller.encoded.connect(lambda r: self.encodes.append(r.seconds))

    def shows(self, text: str) -> bool:
        enc = self.view.encoding()
        return enc is not None and enc.text == text and bool(self.paints) and self.paints[-1][1] is enc


def run_loop(app, done, timeout_s: float) -> bool:
    """Run the event loop until done() (checked every 2 ms) or the timeout; True if done."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    if done():
        return True
    loop = QEventLoop()
    poll = QTimer()
    poll.setTimerType(Qt.TimerType.PreciseTimer)
    poll.setInterval(2)
    poll.timeout.connect(lambda: done() and loop.quit())
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    poll.start()
    loop.exec()
    poll.stop()
    return done()


def type_keys(app, window, probe: Probe, chars: str, count: int, interval_ms: float) -> dict:
    """Insert `count` characters at the end of the editor, one every `interval_ms`; latencies."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtGui import QTextCursor

    editor = window.editor
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    base = window.editor_text()
    texts = []
    due: list[float] = []
    latency: list[float | None] = [None] * count
    exact = set()
    state = {"typed": 0, "first_unresolved": 0, "updates": 0}
    loop = QEventLoop()

    def resolve(t_paint: float, enc) -> None:
        k = len(enc.text) - len(base) - 1
        if not 0 <= k < state["typed"] or enc.text != texts[k]:
            return
        state["updates"] += 1
        exact.add(k)
        for j in range(state["first_unresolved"], k + 1):
            latency[j] = (t_paint - due[j]) * 1000
        state["first_unresolved"] = max(state["first_unresolved"], k + 1)
        if state["first_unresolved"] == count:
            loop.quit()

    def key() -> None:
        i = state["typed"]
        ch = chars[i % len(chars)]
        editor.insertPlainText(ch)
        texts.append((texts[-1] if texts else base) + ch)
        state["typed"] += 1
        if state["typed"] < count:
            delay = t0 + (i + 1) * interval_ms / 1000 - time.perf_counter()
            timer.start(max(0, int(delay * 1000)))

    timer = QTimer()
    timer.setSingleShot(True)
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.timeout.connect(key)
    probe.on_paint = resolve
    t0 = time.perf_counter() + 0.02
    due.extend(t0 + i * interval_ms / 1000 for i in range(count))
    timer.start(20)
    QTimer.singleShot(int(count * interval_ms + 5000), loop.quit)
    loop.exec()
    probe.on_paint = None
    span = due[-1] - due[0] + interval_ms / 1000
    assert window.editor_text() == texts[-1], "the editor does not hold the typed text"
    shown = [v for v in latency if v is not None]
    return {"latencies_ms": shown, "never_shown": count - len(shown), "own_text_painted": len(exact),
            "updates_per_s": state["updates"] / span, "keys": count}


def make_window(app, tokenizer: str, text: str, size=(1200, 800)):
    from tokviz.gui.window.main_window import MainWindow

    window = MainWindow(tokenizer, text)
    window.resize(*size)
    window.show()
    probe = Probe(window)
    return window, probe


def close_window(app, window) -> None:
    window.controller.shutdown()
    window.close()
    window.deleteLater()
    app.processEvents()


def typing_rows(app, tokenizer: str, sizes: list[float], keys: int) -> list[dict]:
    window, probe = make_window(app, tokenizer, "")
    if not run_loop(app, lambda: window.controller.tokenizer is not None and window.controller.is_up_to_date(), 60):
        raise SystemExit(f"{tokenizer}: did not load")
    rows = []
    for kb in sizes:
        for corpus in ("en", "zh", "code"):
            text = document(SHARED / "corpus" / f"{corpus}.txt", kb)
            window.editor.setPlainText(text)
            if not run_loop(app, lambda: probe.shows(window.editor_text()), 30):
                raise SystemExit(f"{tokenizer}: {corpus} {kb} KB was never shown")
            for phase, interval in (("steady", 80.0), ("burst", 30.0)):
                encodes_before = len(probe.encodes)
                r = type_keys(app, window, probe, TYPED[corpus], keys, interval)
                r.update(size_kb=kb, corpus=corpus, phase=phase, interval_ms=interval,
                         encode_ms=statistics.median(probe.encodes[encodes_before:] or [0.0]) * 1000)
                rows.append(r)
    close_window(app, window)
    return rows


def long_lines() -> dict[str, str]:
    """Texts that are one very long line, of the kinds people open: numbers, prose, base64, emoji."""
    import base64
    import random

    rng = random.Random(1)
    prose = " ".join((SHARED / "corpus" / "en.txt").read_text(encoding="utf-8").split())
    marks = ["😀", "👍🏽", "e\u0301", "a\u0308\u0323", "🇫🇷", "👨‍👩‍👧", "ก\u0e48"]
    return {
        "numbers": ",".join(str(rng.randint(0, 99_999)) for _ in range(25_000))[:100_000],
        "prose": (prose * (1 + 100_000 // len(prose)))[:100_000],
        "base64": base64.b64encode(rng.randbytes(75_000)).decode()[:100_000],
        "emoji and marks": "".join(rng.choice(marks) for _ in range(16_000))[:42_000],
    }


def long_line_rows(app, tokenizer: str, keys: int) -> list[dict]:
    """Keystroke -> painted tokens at the end of a text that is one 100,000-character line."""
    window, probe = make_window(app, tokenizer, "")
    if not run_loop(app, lambda: window.controller.tokenizer is not None and window.controller.is_up_to_date(), 60):
        raise SystemExit(f"{tokenizer}: did not load")
    rows = []
    for kind, text in long_lines().items():
        window.editor.setPlainText(text)
        if not run_loop(app, lambda: probe.shows(window.editor_text()), 60):
            raise SystemExit(f"{tokenizer}: the {kind} line was never shown")
        r = type_keys(app, window, probe, "x1", keys, 150.0)
        r.update(kind=kind, chars=len(text), wraps_anywhere=window.editor.wraps_anywhere())
        rows.append(r)
    close_window(app, window)
    return rows


def first_encode_rows(app, tokenizers: list[str]) -> list[dict]:
    text = document(SHARED / "corpus" / "en.txt", 1)
    rows = []
    for tokenizer in tokenizers:
        core = subprocess.run([sys.executable, "-c", CORE_PROBE, str(ROOT), tokenizer,
                               str(SHARED / "corpus" / "en.txt")], capture_output=True, text=True)
        row = {"tokenizer": tokenizer, "core": json.loads(core.stdout) if core.returncode == 0 else core.stderr[-300:]}
        window, probe = make_window(app, tokenizer, text)
        loaded, encodes = [], []
        window.controller.tokenizerLoaded.connect(lambda r: loaded.append(time.perf_counter()))
        window.controller.encoded.connect(lambda r: loaded and encodes.append(r.seconds))
        if not run_loop(app, lambda: bool(loaded) and probe.shows(window.editor_text()), 60):
            row["window"] = "not shown"
        else:
            first_paint = next(t for t, enc in probe.paints if t > loaded[0] and enc.text == window.editor_text())
            first_encode = encodes[0]
            r = type_keys(app, window, probe, "abcdefghij", 10, 80.0)
            row["window"] = {"first_encode_ms": first_encode * 1000,
                             "later_encode_ms": statistics.median(encodes[1:]) * 1000,
                             "loaded_to_painted_ms": (first_paint - loaded[0]) * 1000,
                             "later_key_to_paint_ms": statistics.median(r["latencies_ms"])}
        close_window(app, window)
        rows.append(row)
    return rows


def print_tables(typing: dict, first: list[dict]) -> None:
    for tokenizer, rows in typing.items():
        print(f"\nkeystroke -> painted tokens, {tokenizer} (en + zh + code pooled)")
        print(f"{'size':>6} {'phase':<7} {'median':>8} {'p95':>8} {'max':>8} {'updates/s':>10} "
              f"{'own text shown':>15} {'encode':>8}")
        for (kb, phase), group in sorted(_groups(rows).items(), key=lambda item: (item[0][0], item[0][1] != "steady")):
            s = summary([v for r in group for v in r["latencies_ms"]])
            keys = sum(r["keys"] for r in group)
            never = sum(r["never_shown"] for r in group)
            print(f"{kb:>4g}KB {phase:<7} {s['median_ms']:>6.1f}ms {s['p95_ms']:>6.1f}ms {s['max_ms']:>6.1f}ms "
                  f"{statistics.mean(r['updates_per_s'] for r in group):>10.1f} "
                  f"{sum(r['own_text_painted'] for r in group):>7}/{keys:<7}"
                  f"{statistics.median(r['encode_ms'] for r in group):>6.2f}ms"
                  + (f"  ({never} never shown)" if never else ""))
    if first:
        print("\nfirst encode after a load (1 KB of English)")
        print(f"{'tokenizer':<32} {'load':>7} {'prepare':>8} {'1st enc':>8} {'later':>7} | "
              f"{'win 1st':>8} {'later':>7} {'loaded->paint':>14} {'key->paint':>11}")
        for row in first:
            c, w = row["core"], row["window"]
            if isinstance(c, dict):
                prepare = "-" if c["prepare_s"] is None else f"{c['prepare_s'] * 1000:.0f}ms"
                core = f"{c['load_s'] * 1000:>5.0f}ms {prepare:>8} {c['first_ms']:>6.1f}ms {c['later_ms']:>5.2f}ms"
            else:
                core = f"{'failed':>33}"
            win = (f"{w['first_encode_ms']:>6.1f}ms {w['later_encode_ms']:>5.2f}ms {w['loaded_to_painted_ms']:>12.0f}ms "
                   f"{w['later_key_to_paint_ms']:>9.1f}ms" if isinstance(w, dict) else w)
            print(f"{row['tokenizer']:<32} {core} | {win}")


def print_long_lines(long: dict) -> None:
    for tokenizer, rows in long.items():
        print(f"\nkeystroke -> painted tokens at the end of one long line, {tokenizer}")
        print(f"{'line':<16} {'chars':>8} {'wraps':>9} {'median':>8} {'p95':>8} {'max':>8}")
        for r in rows:
            s = summary(r["latencies_ms"])
            print(f"{r['kind']:<16} {r['chars']:>8,} {'anywhere' if r['wraps_anywhere'] else 'at words':>9} "
                  f"{s['median_ms']:>6.1f}ms {s['p95_ms']:>6.1f}ms {s['max_ms']:>6.1f}ms"
                  + (f"  ({r['never_shown']} never shown)" if r["never_shown"] else ""))


def _groups(rows):
    out: dict = {}
    for r in rows:
        out.setdefault((r["size_kb"], r["phase"]), []).append(r)
    return out


def main(argv=None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", action="append", help="typing test tokenizers (default: qwen2.5 and the demo)")
    ap.add_argument("--sizes", default="1,5,10,50", help="text sizes in KB")
    ap.add_argument("--keys", type=int, default=25, help="keystrokes per phase")
    ap.add_argument("--skip-typing", action="store_true")
    ap.add_argument("--long-lines", action="store_true", help="also type at the end of 100,000-character lines")
    ap.add_argument("--skip-first", action="store_true")
    ap.add_argument("--json", nargs="?", const="-", help="write the figures as JSON (to FILE, or stdout)")
    args = ap.parse_args(argv)

    settings_dir = tempfile.mkdtemp(prefix="tokviz-bench-")
    os.environ["TOKVIZ_SETTINGS"] = os.path.join(settings_dir, "settings.ini")

    from PySide6.QtWidgets import QApplication

    import tokviz.gui  # noqa: F401  (the binding work-arounds)
    from tokviz import defaults

    app = QApplication.instance() or QApplication([])
    demo = str(defaults.default_tokenizer_path())
    tokenizers = args.tokenizer or [str(SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json"), demo]
    sizes = [float(s) for s in args.sizes.split(",")]
    typing = {} if args.skip_typing else {t: typing_rows(app, t, sizes, args.keys) for t in tokenizers}
    long = {t: long_line_rows(app, t, args.keys) for t in tokenizers} if args.long_lines else {}
    first = [] if args.skip_first else first_encode_rows(
        app, [str(SHARED / "tokenizers" / p) for p in SHARED_TOKENIZERS] + [demo])
    for row in first:
        row["tokenizer"] = os.path.relpath(row["tokenizer"], SHARED / "tokenizers") if "shared" in row["tokenizer"] else "tokviz-demo.model"
    if args.json != "-":
        print_tables({Path(t).parent.name if t.endswith(".json") else Path(t).name: rows
                      for t, rows in typing.items()}, first)
        print_long_lines({Path(t).parent.name if t.endswith(".json") else Path(t).name: rows for t, rows in long.items()})
    if args.json:
        report = {"typing": {t: [{k: v for k, v in r.items()} for r in rows] for t, rows in typing.items()},
                  "long_lines": {t: [dict(r) for r in rows] for t, rows in long.items()}, "first_encode": first}
        for rows in [*report["typing"].values(), *report["long_lines"].values()]:
            for r in rows:
                r.update(summary(r.pop("latencies_ms")))
        data = json.dumps(report, indent=2)
        if args.json == "-":
            print(data)
        else:
            Path(args.json).write_text(data + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
