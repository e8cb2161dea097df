"""Checking and opening the files tokviz reads, for every caller (formats, cli, train, analysis,
the app): regular files only (a folder where one is expected), checked without blocking, with a
TokvizError that names the file and what it is.  Also here, for the same callers: each file of a
list once, whatever names reach it (`distinct_files`), and text in UTF-16 or UTF-32 named as such
(`unicode_encoding`, `other_unicode_message`).

A named pipe, /dev/zero or a terminal given where a file belongs would block or never end:

    >>> check_regular_file("/dev/zero")
    Traceback (most recent call last):
    tokviz.errors.TokvizError: /dev/zero: is a character device, not a regular file

`open_regular` opens with O_NONBLOCK and checks the opened file again, so a path swapped for a
pipe between the check and the open is refused too, never waited on.
"""
from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from .errors import TokvizError
from .messages import QT_TRANSLATE_NOOP, Message

try:
    import fcntl
except ImportError:  # (Windows: no pipes or devices in the file system to guard against)
    fcntl = None

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)

_KINDS = (
    (stat.S_ISFIFO, QT_TRANSLATE_NOOP("paths", "a named pipe (FIFO)")),
    (stat.S_ISCHR, QT_TRANSLATE_NOOP("paths", "a character device")),
    (stat.S_ISBLK, QT_TRANSLATE_NOOP("paths", "a block device")),
    (stat.S_ISSOCK, QT_TRANSLATE_NOOP("paths", "a socket")),
    (stat.S_ISDIR, QT_TRANSLATE_NOOP("paths", "a folder")),
)

#: What the callers say they expect (`what`), in words translatable where the app shows them;
#: a `what` not listed here is used as it is.
_WHATS = {t: t for t in (
    QT_TRANSLATE_NOOP("paths", "a file"),
    QT_TRANSLATE_NOOP("paths", "a text file"),
    QT_TRANSLATE_NOOP("paths", "a tokenizer file"),
    QT_TRANSLATE_NOOP("paths", "a settings file"),
    QT_TRANSLATE_NOOP("paths", "a chat template file"),
    QT_TRANSLATE_NOOP("paths", "a vocabulary file"),
    QT_TRANSLATE_NOOP("paths", "a merges file"),
    QT_TRANSLATE_NOOP("paths", "a GGUF file"),
    QT_TRANSLATE_NOOP("paths", "a training file"),
    QT_TRANSLATE_NOOP("paths", "a conversation file"),
)}


def _what(what: str) -> str:
    return _WHATS.get(what, what)


def kind_of(mode: int) -> str:
    """What a file of this st_mode is, in words ("a named pipe (FIFO)", "a folder", ...)."""
    if stat.S_ISREG(mode):
        return QT_TRANSLATE_NOOP("paths", "a regular file")
    return next((name for test, name in _KINDS if test(mode)), QT_TRANSLATE_NOOP("paths", "a special file"))


def os_error_reason(exc: OSError) -> str:
    """The reason to give for an OSError met while looking at or reading a file."""
    code = exc.errno
    if code in (errno.EACCES, errno.EPERM):
        return QT_TRANSLATE_NOOP("paths", "permission denied")
    if code == errno.ENOENT:
        return QT_TRANSLATE_NOOP("paths", "no such file or folder")
    if code == errno.ELOOP:
        return QT_TRANSLATE_NOOP("paths", "is a loop of symbolic links")
    if code == errno.ENOTDIR:
        return QT_TRANSLATE_NOOP("paths", "a part of the path is not a folder")
    if code == errno.ENAMETOOLONG:
        return QT_TRANSLATE_NOOP("paths", "the name is too long")
    if code == errno.EISDIR:
        return QT_TRANSLATE_NOOP("paths", "is a folder, expected a file")
    return Message(QT_TRANSLATE_NOOP("paths", "cannot read: {error}"), error=exc.strerror or str(exc))


_SEPARATORS = tuple(sep for sep in (os.sep, os.altsep) if sep)


def _ends_in_separator(path: str | os.PathLike) -> bool:
    """Whether the path as given ends in a separator (pathlib drops it: Path("a.txt/") is "a.txt")."""
    text = os.fspath(path)
    return isinstance(text, str) and text.endswith(_SEPARATORS) and text.rstrip("".join(_SEPARATORS)) != ""


def _not_a_folder_reason(path: str | os.PathLike) -> str | None:
    """For a path ending in a separator whose name is a file (the system's "Not a directory"):
    the refusal, saying so; None when the path is something else."""
    if not _ends_in_separator(path):
        return None
    try:
        mode = os.stat(os.fspath(path).rstrip("".join(_SEPARATORS))).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode):
        return None
    what = QT_TRANSLATE_NOOP("paths", "a file") if stat.S_ISREG(mode) else kind_of(mode)
    return Message(QT_TRANSLATE_NOOP("paths", "is {what}, not a folder (the path ends in '{sep}')"), what=what,
                   sep=os.fspath(path)[-1])


def check_trailing_separator(path: str | os.PathLike) -> None:
    """Refuse a path given with a separator at its end ("tok.json/") when it names a file, as the
    system does, before a conversion to Path drops the separator and with it what the user wrote."""
    reason = _not_a_folder_reason(path)
    if reason is not None:
        raise TokvizError(reason, path)


def stat_path(path: str | os.PathLike) -> os.stat_result:
    """os.stat of `path` (symbolic links followed), or a TokvizError saying why there is none."""
    try:
        return os.stat(path)
    except NotADirectoryError as exc:
        reason = _not_a_folder_reason(path) or os_error_reason(exc)
        raise TokvizError(reason, path) from None
    except FileNotFoundError:
        if os.path.islink(path):
            raise TokvizError(QT_TRANSLATE_NOOP("paths", "is a broken symbolic link"), path) from None
        raise TokvizError(QT_TRANSLATE_NOOP("paths", "no such file or folder"), path) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        reason = os_error_reason(exc) if isinstance(exc, OSError) else QT_TRANSLATE_NOOP("paths", "the name holds a NUL character")
        raise TokvizError(reason, path) from None


def _refuse_mode(mode: int, path, what: str, pipe_hint: str = "") -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "is a folder, expected {what}"), what=_what(what)), path)
    hint = pipe_hint if stat.S_ISFIFO(mode) else ""
    raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "is {kind}, not a regular file{hint}"), kind=kind_of(mode),
                              hint=hint), path)


def check_regular_file(path: str | os.PathLike, what: str = "a file", *, pipe_hint: str = "") -> os.stat_result:
    """The stat of `path` (symbolic links followed) when it is a regular file, else a TokvizError
    naming it and what it is: missing, a folder, a pipe, a device, a socket, unreadable.  Opens
    nothing and never blocks.  `pipe_hint` is added to the refusal of a pipe (what to do instead)."""
    st = stat_path(path)
    _refuse_mode(st.st_mode, path, what, pipe_hint)
    return st


def check_folder(path: str | os.PathLike) -> os.stat_result:
    """The stat of `path` when it is a folder, else a TokvizError naming it and what it is."""
    st = stat_path(path)
    if not stat.S_ISDIR(st.st_mode):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "is {kind}, expected a folder"), kind=kind_of(st.st_mode)),
                          path)
    return st


def check_output_path(path: str | os.PathLike, *, file_only: bool = False) -> os.stat_result | None:
    """The stat of `path`, a file or folder about to be written, or None when nothing is there yet;
    a TokvizError naming it when it cannot be looked at (a folder on the way cannot be searched),
    when it ends in a separator but names a file (or, with `file_only`, ends in one at all), or when
    the folder it is written into exists and cannot be written ("permission denied", said before
    any work that would end in that write)."""
    check_trailing_separator(path)
    if file_only and _ends_in_separator(path):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "names a folder (the path ends in '{sep}'); give the name "
                                                     "of the file to write"), sep=os.fspath(path)[-1]), path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError):
        stat_path(path)  # (raises, saying why)
        raise
    folder = path if st is not None and stat.S_ISDIR(st.st_mode) else (os.path.dirname(os.fspath(path)) or ".")
    effective = os.access in os.supports_effective_ids
    if os.path.isdir(folder) and not os.access(folder, os.W_OK | os.X_OK, effective_ids=effective):
        raise TokvizError(QT_TRANSLATE_NOOP("paths", "permission denied (its folder cannot be written)"), path)
    return st


def folder_entries(path: str | os.PathLike) -> list[Path]:
    """The entries of the folder `path` (sorted), or a TokvizError naming it when it cannot be
    listed (Path.iterdir raises PermissionError for a folder that can be looked at, not read)."""
    check_folder(path)
    try:
        names = os.listdir(path)
    except OSError as exc:
        raise TokvizError(os_error_reason(exc), path) from None
    return sorted(Path(path) / name for name in names)


def regular_file_or_none(path: str | os.PathLike, what: str = "a file") -> Path | None:
    """`path` when it is a regular file, None when nothing is there, a TokvizError when something
    else is (an optional file such as tokenizer_config.json that is a pipe or a folder is refused,
    not silently skipped)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        if not os.path.islink(path):
            return None
    except (OSError, ValueError):
        pass  # (stat_path below says why)
    check_regular_file(path, what)
    return Path(path)


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether `path` is a regular file (symbolic links followed), for picking files out of a
    folder: False when it is missing or something else, a TokvizError when it cannot be looked at
    (Path.is_file raises PermissionError there)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return False
    except OSError as exc:
        raise TokvizError(os_error_reason(exc), path) from None


def open_regular(path: str | os.PathLike, what: str = "a file", *, pipe_hint: str = "") -> BinaryIO:
    """`path` opened for reading in binary, refused (TokvizError) unless it is a regular file.
    The open itself cannot block: O_NONBLOCK, then the opened file is checked with fstat."""
    check_regular_file(path, what, pipe_hint=pipe_hint)  # (first, for the clearer message: a socket's open says ENXIO)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise TokvizError(os_error_reason(exc), path) from None
    try:
        _refuse_mode(os.fstat(fd).st_mode, path, what, pipe_hint)
        if _NONBLOCK and fcntl is not None:
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_regular_text(path: str | os.PathLike, what: str = "a text file") -> io.TextIOWrapper:
    """`open_regular` as UTF-8 text with line ends kept as they are (newline="")."""
    return io.TextIOWrapper(open_regular(path, what), encoding="utf-8", newline="")


def file_size_text(size: float) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return Message(QT_TRANSLATE_NOOP("paths", "{size} bytes"), size=int(size))


def read_limited(path: str | os.PathLike, limit: int, what: str = "a file", *, hint: str = "",
                 pipe_hint: str = "") -> bytes:
    """All bytes of the regular file `path`, refused before reading when it is larger than
    `limit` bytes (`hint` is added to that message, `pipe_hint` to a pipe's: what to do instead)."""
    with open_regular(path, what, pipe_hint=pipe_hint) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "file is {size}, more than the {limit} tokviz reads "
                                                             "whole here{hint}"), size=file_size_text(size),
                                          limit=file_size_text(limit), hint=hint), path)
            data = fh.read(limit + 1)  # (a file that grew since the fstat still stops at the limit)
        except OSError as exc:
            raise TokvizError(os_error_reason(exc), path) from None
    if len(data) > limit:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "file is more than the {limit} tokviz reads whole "
                                                     "here{hint}"), limit=file_size_text(limit), hint=hint), path)
    return data


def read_stream_limited(stream: BinaryIO, limit: int, name: str, *, hint: str = "") -> bytes:
    """The bytes of a stream (standard input) up to its end, refused once more than `limit` bytes
    arrive: a pipe that never ends (/dev/zero on standard input) stops with a TokvizError, not
    when memory runs out."""
    data = bytearray()
    try:
        while True:
            block = stream.read(min(1 << 20, limit + 1 - len(data)))
            if not block:
                return bytes(data)
            data += block
            if len(data) > limit:
                raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "more than {limit} of input, more than tokviz reads "
                                                             "whole here{hint}"), limit=file_size_text(limit),
                                          hint=hint), name)
    except OSError as exc:
        raise TokvizError(os_error_reason(exc), name) from None
    except MemoryError:
        size = len(data)
        data = None
        raise TokvizError(Message(QT_TRANSLATE_NOOP("paths", "out of memory after reading {size} of input{hint}"),
                                  size=file_size_text(size), hint=hint), name) from None


def distinct_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """`paths` as Paths with each file once, at its first name.  A file reaches tokviz under several
    names (listed alone and again inside a listed folder, through a symbolic or hard link, as
    `dir/../dir/a.txt`); read once per name it would count or weigh double.  Two names are one file
    when they reach the same inode (links followed).  A path that cannot be looked at is kept as
    given (the caller's own check names it)."""
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


# ---- text in another Unicode encoding ----------------------------------------------------------

# Byte-order marks of the Unicode encodings other than UTF-8 (UTF-32 LE's starts with UTF-16 LE's:
# it is looked for first).
_OTHER_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
               (b"\xfe\xff", "UTF-16"))


def _nul_pattern(sample: bytes, width: int) -> bool:
    """Whether mostly-ASCII text in UTF-16 (width 2) or UTF-32 (width 4) without a byte-order mark
    could give `sample`: one byte of each unit holds the character, the others are NUL."""
    units = len(sample) // width
    if units < 8:
        return False
    for lane in range(width):
        chars = sample[lane::width][:units]
        others = [sample[k::width][:units] for k in range(width) if k != lane]
        if chars.count(0) < 0.05 * units and all(o.count(0) > 0.9 * units for o in others):
            return True
    return False


def unicode_bom(head: bytes) -> str | None:
    """"UTF-16" or "UTF-32" when `head` starts with that encoding's byte-order mark, else None."""
    return next((name for bom, name in _OTHER_BOMS if head.startswith(bom)), None)


def unicode_encoding(head: bytes) -> str | None:
    """"UTF-16" or "UTF-32" when a file starting with `head` is text in that encoding (a byte-order
    mark, or the NUL bytes ASCII-range text leaves without one), else None (UTF-8 or not text).

    >>> unicode_encoding("hi".encode("utf-32"))
    'UTF-32'
    """
    named = unicode_bom(head)
    if named is not None:
        return named
    sample = head[:4096]
    if _nul_pattern(sample, 4):
        return "UTF-32"
    if _nul_pattern(sample, 2):
        return "UTF-16"
    return None


def other_unicode_message(encoding: str, reads: str = "reads") -> str:
    """The refusal of a text file in UTF-16 or UTF-32 (`unicode_encoding`), with the command that converts it."""
    template = _OTHER_UNICODE.get(reads)
    if template is None:
        return f"the file is {encoding} text, not UTF-8, which tokviz {reads} (convert it: iconv -f {encoding} -t UTF-8)"
    return Message(template, encoding=encoding)


_OTHER_UNICODE = {
    "reads": QT_TRANSLATE_NOOP("paths", "the file is {encoding} text, not UTF-8, which tokviz reads (convert it: "
                                        "iconv -f {encoding} -t UTF-8)"),
    "opens": QT_TRANSLATE_NOOP("paths", "the file is {encoding} text, not UTF-8, which tokviz opens (convert it: "
                                        "iconv -f {encoding} -t UTF-8)"),
    "encodes": QT_TRANSLATE_NOOP("paths", "the file is {encoding} text, not UTF-8, which tokviz encodes (convert "
                                          "it: iconv -f {encoding} -t UTF-8)"),
}
