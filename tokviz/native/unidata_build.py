"""Build-time step (setup.py): the C tables that hold data of Python's `unicodedata`, made for the
Unicode version of the Python that builds the extension.

src/unidata/ holds them for the oldest Python tokviz supports.  Each header records the version
it was made from; the C fast paths that use it (the normal-form quick check, the BERT normalizer
and pre-tokenizer) compare it with `unicodedata.unidata_version` at import time and stand aside
on a mismatch, since the Python reference would then treat some characters otherwise.  Python
3.12 has Unicode 15.0, 3.13 15.1: without this step those fast paths would be off there.

No tokviz import here: setup.py loads this file by its path, before anything is built.
"""
from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

# (header, its generator beside this file, the macro holding the Unicode version it was made from)
TABLES = [("nfc_tables.h", "gen_nfc_tables.py", "TV_NORM_UNICODE_VERSION"),
          ("bert_tables.h", "gen_bert_tables.py", "BT_UNICODE_VERSION")]


def recorded_version(header: Path, macro: str) -> str | None:
    found = re.search(rf'#define {macro} "([^"]*)"', header.read_text(encoding="ascii", errors="replace"))
    return found.group(1) if found else None


def tables_for_this_python(committed: Path, build_temp: Path) -> list[str]:
    """Include folders to search before `committed`: empty when its tables are for this Python's
    Unicode version, else a folder under `build_temp` where they were generated again.  A table
    that cannot be generated here costs speed only (its fast path stays off): a note says so."""
    version = unicodedata.unidata_version
    out = build_temp.resolve() / f"unidata-{version}"
    generators = Path(__file__).resolve().parent
    for header, generator, macro in TABLES:
        target = out / header
        if recorded_version(committed / header, macro) == version:
            target.unlink(missing_ok=True)
            continue
        # made again at each build (the generators read tokviz's own classes, which change); the
        # header is replaced only when it differs, so that nothing is recompiled for nothing
        out.mkdir(parents=True, exist_ok=True)
        fresh = target.with_name(target.name + ".new")
        done = subprocess.run([sys.executable, str(generators / generator), str(fresh)],
                              cwd=generators.parents[1], capture_output=True, text=True)
        if done.returncode != 0 or not fresh.exists():
            fresh.unlink(missing_ok=True)
            target.unlink(missing_ok=True)
            why = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"note: {header} could not be made for Unicode {version} ({why}); "
                  f"its C fast path stays off on this Python", file=sys.stderr)
        elif target.exists() and target.read_bytes() == fresh.read_bytes():
            fresh.unlink()
        else:
            fresh.replace(target)
    return [str(out)] if any((out / header).exists() for header, _, _ in TABLES) else []
