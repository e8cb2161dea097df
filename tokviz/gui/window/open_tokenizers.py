"""The tokenizers the app has open, shared by file.

A view that opens a tokenizer file another view already holds (the explorer and a Compare pane,
two panes, the Library and the statistics) gets the same Tokenizer object: no second load, no
second copy in memory.  Entries are weak: a tokenizer no view holds any more is freed as before.
A file changed on disk since (size, modification time or inode) is a different entry and is
loaded again.  Tokenizers are never changed in place (an edit makes a copy), and their encoders
take concurrent calls, so sharing one between views and workers is safe.
"""
from __future__ import annotations

import os
import stat
import threading
import weakref
from collections.abc import Callable

from ...core.tokenizer import Tokenizer

_open: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_lock = threading.Lock()


def file_identity(path: str | os.PathLike) -> tuple:
    """What names the contents of a tokenizer file or folder: its real path and, for each
    regular file in it (a folder: those directly inside), name, inode, size and modification
    time.  Raises OSError when it cannot be looked at."""
    st = os.stat(path)  # (the path as given: "tok.json/" is not the file, as the system says; realpath drops the '/')
    real = os.path.realpath(path)
    if not stat.S_ISDIR(st.st_mode):
        return real, st.st_ino, st.st_size, st.st_mtime_ns
    files = []
    with os.scandir(real) as entries:
        for entry in entries:
            if entry.is_file():
                s = entry.stat()
                files.append((entry.name, s.st_ino, s.st_size, s.st_mtime_ns))
    return real, tuple(sorted(files))


def open_tokenizer(path: str | os.PathLike, load: Callable[[], Tokenizer] | None = None, variant: str = "") -> Tokenizer:
    """The tokenizer of `path`: the one a view already has open when the file has not changed,
    else `load()` (default: tokviz.load(path)).  `variant` tells apart tokenizers read from the
    same file differently (a tiktoken file's encoding name).  Safe from any thread."""
    if load is None:
        from ... import load as load_file

        def load() -> Tokenizer:
            return load_file(path)

    try:
        key = (file_identity(path), variant)
    except OSError:
        return load()  # (the loader says what is wrong with the file)
    with _lock:
        tokenizer = _open.get(key)
    if tokenizer is not None:
        return tokenizer
    tokenizer = load()
    with _lock:
        # (another thread may have loaded the same file meanwhile: keep one)
        return _open.setdefault(key, tokenizer)


def open_found(found) -> Tokenizer:
    """The tokenizer of a Library entry (formats.discover.Found), shared as `open_tokenizer`."""
    return open_tokenizer(found.path, found.load, found.encoding or "")


def open_count() -> int:
    """How many tokenizers are open (held by some view) now."""
    with _lock:
        return len(_open)
