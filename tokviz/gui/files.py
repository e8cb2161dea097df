"""Deciding what a dropped or opened file is, and reading text files.  No Qt here, so it is easy to test."""
from __future__ import annotations

import codecs
import os
from pathlib import Path

from ..errors import TokvizError
from ..formats import detect

TOKENIZER = "tokenizer"
TEXT = "text"

# Beyond this a text file is refused (the explorer view is not virtualised yet).
MAX_TEXT_BYTES = 64 * 1024 * 1024


def classify_path(path: str | os.PathLike) -> str:
    """TOKENIZER or TEXT: what a dropped file or folder most likely is.

    tokviz's own format detection decides (a folder is always a tokenizer).  One refinement: the
    detector takes any ``*.txt`` for a WordPiece vocab.txt, so a ``.txt`` file that is not named
    ``vocab.txt`` counts as a tokenizer only when its lines look like vocabulary entries (one
    token per line, no inner spaces)."""
    path = Path(path)
    if path.is_dir():
        return TOKENIZER
    try:
        fmt, _ = detect(path)
    except TokvizError:
        return TEXT
    if fmt == "wordpiece-vocab" and path.name != "vocab.txt":
        return TOKENIZER if _looks_like_vocab(path) else TEXT
    return TOKENIZER


def _looks_like_vocab(path: Path, sample: int = 200) -> bool:
    try:
        with open(path, "rb") as fh:
            lines = [line.rstrip(b"\r\n") for _, line in zip(range(sample), fh)]
    except OSError:
        return False
    lines = [line for line in lines if line]
    if len(lines) < 5:
        return False
    tokenish = sum(1 for line in lines if len(line.split()) == 1 and len(line) <= 50)
    return tokenish >= 0.9 * len(lines)


def _existing_file(path: str | os.PathLike) -> Path:
    path = Path(path).expanduser()
    if not path.exists():
        raise TokvizError("no such file", path)
    if path.is_dir():
        raise TokvizError("is a folder, not a text file", path)
    return path


def _decode(data: bytes, path: Path, *, final: bool = True) -> str:
    """UTF-8 text of `data` (a byte-order mark dropped), or a TokvizError saying why it is not
    text: UTF-16, binary, or not UTF-8 (with the offending byte, offset and line).  With
    final=False a character cut at the end of `data` is left out."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise TokvizError("the file is UTF-16 text; tokviz opens UTF-8 text (convert it with iconv -f UTF-16 -t UTF-8)", path)
    if b"\x00" in data[:8192]:
        raise TokvizError("this looks like a binary file (it contains NUL bytes), not text", path)
    try:
        return codecs.getincrementaldecoder("utf-8-sig")().decode(data, final=final)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise TokvizError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line}) is not valid UTF-8; "
            "convert the file to UTF-8 first (e.g. iconv -f latin1 -t utf-8)",
            path,
        ) from None


def read_text_file(path: str | os.PathLike) -> str:
    """The UTF-8 text of `path` (a UTF-8 byte-order mark is dropped), or a TokvizError saying
    clearly why not: missing, a folder, too large, binary, or not UTF-8 (with the offending byte)."""
    path = _existing_file(path)
    try:
        size = path.stat().st_size
        if size > MAX_TEXT_BYTES:
            raise TokvizError(
                f"text file is too large ({size / 1e6:.0f} MB; the explorer opens up to {MAX_TEXT_BYTES // 2**20} MB)",
                path,
            )
        data = path.read_bytes()
    except OSError as exc:
        raise TokvizError(f"cannot read the file: {exc.strerror or exc}", path) from None
    return _decode(data, path)


def read_text_head(path: str | os.PathLike, nbytes: int) -> str:
    """The text of the first `nbytes` bytes of a UTF-8 file of any size (a character cut by the
    limit is left out, a byte-order mark dropped), with the same checks and messages as
    `read_text_file` for what it reads."""
    path = _existing_file(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(nbytes)
            more = bool(fh.read(1))
    except OSError as exc:
        raise TokvizError(f"cannot read the file: {exc.strerror or exc}", path) from None
    return _decode(data, path, final=not more)
