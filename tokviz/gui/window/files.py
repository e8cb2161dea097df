"""Deciding what a dropped or opened file is, and reading text files.  No Qt here, so it is easy to test."""
from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from ...core.limits import check_fits_in_memory
from ...errors import TokvizError
from ...formats import detect
from ...formats._util import identify_binary, open_regular_file
from ...paths import check_regular_file, open_regular, other_unicode_message, unicode_encoding

TOKENIZER = "tokenizer"
TEXT = "text"
_TOKENIZER_SUFFIXES = (".json", ".model", ".tiktoken", ".gguf")

# Beyond this `read_text_file` refuses a file (the window opens big files in big-file mode instead).
MAX_TEXT_BYTES = 64 * 1024 * 1024
# Big-file mode keeps the whole text (1-2 bytes a byte) and a TokenArray of 13 bytes a token
# (a token is 1 to 4 bytes of text): about this many times the file's size in memory, at worst.
WHOLE_FILE_MEMORY_FACTOR = 8


def classify_path(path: str | os.PathLike) -> str:
    """TOKENIZER or TEXT: what a dropped file or folder most likely is.

    tokviz's own format detection decides (a folder is always a tokenizer).  One refinement: the
    detector takes any ``*.txt`` for a WordPiece vocab.txt, so a ``.txt`` file that is not named
    ``vocab.txt`` counts as a tokenizer only when its lines look like vocabulary entries (one
    token per line, no inner spaces).  A file detection refuses is a tokenizer when its name
    says so (``*.json``, ``*.model``, ...), so that the refusal is reported as a tokenizer's."""
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            return TOKENIZER
    except (OSError, ValueError):
        pass  # (missing, unreadable, a file named with a '/' at its end: its reader names the problem)
    path = Path(path)
    try:
        fmt, _ = detect(path)
    except TokvizError:
        return TOKENIZER if path.suffix.lower() in _TOKENIZER_SUFFIXES else TEXT
    if fmt == "wordpiece-vocab" and path.name != "vocab.txt":
        return TOKENIZER if _looks_like_vocab(path) else TEXT
    return TOKENIZER


def _looks_like_vocab(path: Path, sample: int = 200) -> bool:
    try:
        with open_regular(path) as fh:
            lines = [line.rstrip(b"\r\n") for _, line in zip(range(sample), fh)]
    except (OSError, TokvizError):
        return False
    lines = [line for line in lines if line]
    if len(lines) < 5:
        return False
    tokenish = sum(1 for line in lines if len(line.split()) == 1 and len(line) <= 50)
    return tokenish >= 0.9 * len(lines)


def _existing_file(path: str | os.PathLike) -> Path:
    """`path` (~ expanded) when it is a regular file, else a TokvizError naming it and what it is
    (missing, a folder, a pipe or device, unreadable, a file named with a '/' at its end)."""
    path = os.path.expanduser(os.fspath(path))
    check_regular_file(path, "a text file")
    return Path(path)


def _decode(data: bytes, path: Path, *, final: bool = True) -> str:
    """UTF-8 text of `data` (a byte-order mark dropped), or a TokvizError saying why it is not
    text: UTF-16 or UTF-32, binary, or not UTF-8 (with the offending byte, offset and line).  With
    final=False a character cut at the end of `data` is left out."""
    why = identify_binary(data[:64])
    if why is not None:
        raise TokvizError(why, path)
    encoding = unicode_encoding(data[:4096])
    if encoding is not None:
        raise TokvizError(other_unicode_message(encoding, "opens"), path)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TokvizError(f"this looks like a binary file, not text: a NUL byte at offset {nul}", path)
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
    clearly why not: missing, a folder, too large, compressed, binary, or not UTF-8 (with the
    offending byte).  Files over MAX_TEXT_BYTES are refused before reading: the explorer opens
    them in big-file mode (`read_text_head` and streaming encoding) instead."""
    path = _existing_file(path)
    with open_regular_file(path, "text") as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_TEXT_BYTES:
                raise TokvizError(
                    f"text file is too large ({size / 1e6:.0f} MB; the explorer opens up to {MAX_TEXT_BYTES // 2**20} MB)",
                    path,
                )
            data = fh.read(size)
        except OSError as exc:
            raise TokvizError(f"cannot read the file: {exc.strerror or exc}", path) from None
    return _decode(data, path)


def check_whole_file_encoding(path: str | os.PathLike, size: int) -> None:
    """Refuse a text file whose whole-file encoding (its text and a TokenArray of its tokens,
    WHOLE_FILE_MEMORY_FACTOR times its size) would not fit in the memory available."""
    check_fits_in_memory(size, WHOLE_FILE_MEMORY_FACTOR, path, "encoding the whole file")


def read_text_head(path: str | os.PathLike, nbytes: int) -> str:
    """The text of the first `nbytes` bytes of a UTF-8 file (a character cut by the limit is left
    out, a byte-order mark dropped), with the same checks and messages as `read_text_file` for
    what it reads.  This is how big-file mode starts, and big-file mode then encodes the whole
    file and keeps its tokens: a file too large for that in the memory available is refused here
    (`check_whole_file_encoding`), with a message saying so, rather than failing hours later."""
    path = _existing_file(path)
    with open_regular_file(path, "text") as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            check_whole_file_encoding(path, size)
            data = fh.read(nbytes)
            more = bool(fh.read(1))
        except OSError as exc:
            raise TokvizError(f"cannot read the file: {exc.strerror or exc}", path) from None
    return _decode(data, path, final=not more)
