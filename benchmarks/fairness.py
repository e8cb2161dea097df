"""Time of the fairness analysis (`tokviz.analysis.fairness`) with Qwen2.5 (151,643 tokens),
cl100k_base and Llama 3 from ../shared/tokenizers.

    python3 benchmarks/fairness.py [--json] [--pages N] [--keep DIR]

Two sets of parallel text:

* the shipped set, resources/parallel (whatis(1) in 18 languages, ~100 KB);
* a larger one made here from the installed man pages: every man-db page of section 1 that exists
  in English and in each of the languages (man, apropos, whatis, lexgrog...), rendered as the shipped
  set is (`MANWIDTH=80 man --nh --nj -l FILE | col -bx`, whole pages), one file per language.
  Rendering is not timed.  Skipped when the pages are not installed.

For each set: loading and preparing the tokenizers (as the app does), the first run (fresh
tokenizers, text they have not seen) and the best of three further runs, in seconds and MB/s of text (all languages, all tokenizers); and the
premium range per tokenizer as a sanity check.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

TOKENIZERS = {"qwen2.5": "qwen2.5/tokenizer.json", "cl100k_base": "cl100k_base.tiktoken",
              "llama3": "llama3/tokenizer.json"}
MAN = Path("/usr/share/man")
LANGUAGES = ("da", "de", "es", "fr", "id", "ja", "ko", "nl", "pl", "pt", "pt_BR", "ro", "ru", "sr", "sv", "tr", "zh_CN")


def render(page: Path) -> str:
    env = dict(os.environ, MANWIDTH="80", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    man = subprocess.run(["man", "--nh", "--nj", "-l", str(page)], env=env, capture_output=True, check=True)
    col = subprocess.run(["col", "-bx"], input=man.stdout, capture_output=True, check=True)
    return col.stdout.decode("utf-8")


def man_set(folder: Path, limit: int | None) -> list[Path] | None:
    """Write one file per language (the pages every language has, concatenated) into `folder`."""
    english = MAN / "man1"
    if not english.is_dir():
        return None
    pages = sorted(p.name for p in english.glob("*.1.gz")
                   if all((MAN / lang / "man1" / p.name).exists() for lang in LANGUAGES))
    if limit:
        pages = pages[:limit]
    if not pages:
        return None
    out = []
    for lang in ("en", *LANGUAGES):
        base = english if lang == "en" else MAN / lang / "man1"
        text = "\n".join(render(base / name) for name in pages)
        f = folder / f"man.{lang}.txt"
        f.write_text(text, encoding="utf-8")
        out.append(f)
    print(f"man pages in all {len(LANGUAGES) + 1} languages: {', '.join(p.removesuffix('.1.gz') for p in pages)}",
          file=sys.stderr)
    return out


def measure(paths: list[Path], runs: int = 3) -> dict:
    import tokviz
    from tokviz.analysis.fairness import fairness, parallel_files, read_parallel

    texts = read_parallel(parallel_files(paths))
    size = sum(len(t.encode("utf-8")) for t in texts.values())
    t0 = time.perf_counter()
    # (prepared as the app's loader does: the id tables offsets need are built here, not in the first run)
    tokenizers = {name: tokviz.load(SHARED / "tokenizers" / rel).prepare() for name, rel in TOKENIZERS.items()}
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = fairness(tokenizers, texts, "en")
    first = time.perf_counter() - t0
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fairness(tokenizers, texts, "en")
        best = min(best, time.perf_counter() - t0)
    encode = {name: sum(f.seconds for f in per.values()) for name, per in result.figures.items()}
    premiums = {name: [min(result.premiums(name)), max(result.premiums(name))] for name in result.tokenizers}
    vocab = {name: tok.vocab_size for name, tok in tokenizers.items()}
    return {"languages": len(texts), "bytes": size, "load_seconds": load, "first_seconds": first,
            "best_seconds": best, "mb_per_second": size * len(tokenizers) / 1e6 / best,
            "first_run_encode_seconds": encode, "premium_range": premiums, "vocab_size": vocab,
            "warnings": result.warnings}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--pages", type=int, help="use only the first N man pages common to all languages")
    ap.add_argument("--keep", help="write the rendered man-page set into this folder (kept)")
    args = ap.parse_args(argv)
    missing = [rel for rel in TOKENIZERS.values() if not (SHARED / "tokenizers" / rel).exists()]
    if missing:
        print(f"shared tokenizers missing: {', '.join(missing)} (../shared is absent)", file=sys.stderr)
        return 1
    report = {"shipped": measure([ROOT / "resources" / "parallel"])}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = man_set(folder, args.pages)
        if files:
            report["man_pages"] = measure(files)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for name, r in report.items():
        print(f"{name}: {r['languages']} languages, {r['bytes'] / 1e6:.2f} MB; load + prepare {r['load_seconds']:.2f} s; "
              f"first run {r['first_seconds']:.2f} s, best of 3 {r['best_seconds']:.2f} s "
              f"({r['mb_per_second']:.1f} MB/s over {len(TOKENIZERS)} tokenizers)")
        for tok, (lo, hi) in r["premium_range"].items():
            print(f"  {tok:<12} {r['vocab_size'][tok]:>8,} tokens  premium {lo:.2f}-{hi:.2f}  "
                  f"(first-run encode {r['first_run_encode_seconds'][tok]:.2f} s)")
        for w in r["warnings"]:
            print(f"  warning: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
