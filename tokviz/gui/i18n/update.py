"""Bring the translations up to date with the code: `python -m tokviz.gui.i18n.update`.

1. pyside6-lupdate reads every module of tokviz/ and updates tokviz_<lang>.ts: new strings come in
   unfinished, strings gone from the code go (-no-obsolete), translations of unchanged strings stay.
2. `--fill A.ts B.ts …` copies finished translations from other .ts files (say, one a translator
   worked on) into the messages of the same context and source: theirs replace what was there.
3. pyside6-lrelease compiles each .ts into the .qm the app loads.

`--check` changes nothing: it lists the messages lupdate would leave unfinished and the translations
of a .ts its .qm does not give, and exits 1 if there are any.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from .languages import ENGLISH, LANGUAGES

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parents[1]  # tokviz/


def ts_file(language: str) -> Path:
    return HERE / f"tokviz_{language}.ts"


def sources() -> list[Path]:
    """Every module lupdate reads: all of tokviz/ (core/ has no strings for it, but it costs nothing)."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def tool(name: str) -> str:
    """The path of one of PySide6's Qt tools (pyside6-lupdate, pyside6-lrelease)."""
    found = shutil.which(f"pyside6-{name}")
    if found:
        return found
    import PySide6

    bundled = Path(PySide6.__file__).parent / name
    if bundled.exists():
        return str(bundled)
    raise FileNotFoundError(f"pyside6-{name} not found: it comes with PySide6 (pip install PySide6-Essentials)")


def run_lupdate(ts: Path, language: str) -> None:
    """Update `ts` from the code (created when missing)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lst", delete=False) as listing:
        listing.write("\n".join(str(p) for p in sources()))
    try:
        subprocess.run([tool("lupdate"), f"@{listing.name}", "-no-obsolete", "-locations", "none",
                        "-source-language", "en", "-target-language", language, "-ts", str(ts)],
                       check=True, capture_output=True, text=True)
    finally:
        Path(listing.name).unlink()


def run_lrelease(ts: Path, qm: Path) -> None:
    subprocess.run([tool("lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True, capture_output=True,
                   text=True)


def messages(ts: Path):
    """(context, source, translation element) of every message of `ts`."""
    tree = ET.parse(ts)
    for context in tree.getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            yield name, message.findtext("source"), message.find("translation")


def unfinished(ts: Path) -> list[tuple[str, str]]:
    """(context, source) of the messages of `ts` without a finished translation."""
    return [(c, s) for c, s, t in messages(ts)
            if t is None or t.get("type") in ("unfinished", "vanished", "obsolete") or not (t.text or "").strip()]


def fill(ts: Path, donors: list[Path]) -> int:
    """Copy finished translations from `donors` into the same messages of `ts` (replacing what was
    there); returns how many changed."""
    known = {}
    for donor in donors:
        for c, s, t in messages(donor):
            if t is not None and t.get("type") is None and (t.text or "").strip():
                known[(c, s)] = t.text
    tree = ET.parse(ts)
    filled = 0
    for context in tree.getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            t = message.find("translation")
            key = (name, message.findtext("source"))
            if t is not None and key in known and (t.get("type") == "unfinished" or t.text != known[key]):
                t.text = known[key]
                t.attrib.pop("type", None)
                filled += 1
    ET.indent(tree)
    with open(ts, "wb") as out:
        out.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
        tree.write(out, encoding="utf-8", xml_declaration=False)
        out.write(b"\n")
    return filled


def check(language: str) -> list[str]:
    """What is out of date for `language`, as lines (nothing: all is well).  Changes no shipped file."""
    problems = []
    shipped = ts_file(language)
    if not shipped.exists():
        return [f"{shipped}: missing"]
    with tempfile.TemporaryDirectory() as tmp:
        ts = Path(tmp) / shipped.name
        shutil.copy(shipped, ts)
        run_lupdate(ts, language)
        problems += [f"{language}: unfinished: [{c}] {s!r}" for c, s in unfinished(ts)]
    problems += stale_qm(shipped)
    return problems


def stale_qm(ts: Path) -> list[str]:
    """The finished translations of `ts` its .qm does not give (read back with QTranslator, so that
    another Qt's lrelease, whose bytes differ, still passes)."""
    from PySide6.QtCore import QTranslator

    qm = ts.with_suffix(".qm")
    translator = QTranslator()
    if not qm.exists() or not translator.load(str(qm)):
        return [f"{qm}: missing or unreadable (run python -m tokviz.gui.i18n.update)"]
    return [f"{qm}: [{c}] {s!r} is not translated as in {ts.name} (run python -m tokviz.gui.i18n.update)"
            for c, s, t in messages(ts)
            if t is not None and t.get("type") is None and translator.translate(c, s) != (t.text or "")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokviz.gui.i18n.update", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when anything is out of date")
    parser.add_argument("--fill", nargs="+", type=Path, default=[], metavar="TS",
                        help="copy finished translations from these .ts files")
    parser.add_argument("--lang", action="append", help="only these languages (default: all but English)")
    args = parser.parse_args(argv)
    languages = args.lang or [code for code in LANGUAGES if code != ENGLISH]
    if args.check:
        problems = [line for language in languages for line in check(language)]
        print("\n".join(problems) or "translations up to date")
        return 1 if problems else 0
    for language in languages:
        ts = ts_file(language)
        run_lupdate(ts, language)
        filled = fill(ts, args.fill) if args.fill else 0
        run_lrelease(ts, ts.with_suffix(".qm"))
        left = unfinished(ts)
        print(f"{ts.name}: {sum(1 for _ in messages(ts))} messages, {filled} filled, {len(left)} unfinished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
