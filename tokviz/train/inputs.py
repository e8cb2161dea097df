"""Training inputs, each file once.

A file can reach the trainer under several names: listed alone and again inside a listed folder,
through a symbolic or hard link, or as `dir/../dir/a.txt`.  Counted once per name, its words would
weigh double and the progress would report more megabytes than the corpus holds.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def distinct_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """`paths` as Paths with each file once, at its first name; two names are one file when they
    reach the same inode (links followed).  A path that cannot be read is kept as given (the
    caller's own check names it)."""
    seen: set[tuple[int, int]] = set()
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            out.append(path)
            continue
        key = (st.st_dev, st.st_ino)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out
