"""Small helpers shared by the readers: checked access to parsed data, and file reading."""
from __future__ import annotations

import json
import math
import os
import re
import threading
from itertools import repeat
from pathlib import Path

from ..core.limits import check_fits_in_memory
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import open_regular, os_error_reason
from ..paths import other_unicode_message, unicode_bom, unicode_encoding  # noqa: F401 (imported from here too)
from .serde_float import serde_f64

try:  # first_bad_merge_line's checks in C, when the extension is built
    from .._native import merge_lines_ok as _merge_lines_ok
except ImportError:
    _merge_lines_ok = None

# Refuse absurd files before reading them into memory (a vocabulary file is at most tens of MB).
MAX_TOKENIZER_FILE = 1 << 30
# Parsed, a tokenizer file takes several times its size in memory (JSON objects, dicts, tables).
LOAD_MEMORY_FACTOR = 8

# Leading bytes of files that are not tokenizers or text, and what each one is.
_COMPRESSED = (
    (b"\x1f\x8b", QT_TRANSLATE_NOOP("formats", "gzip-compressed"), "gunzip"),
    (b"PK\x03\x04", QT_TRANSLATE_NOOP("formats", "a zip archive"), "unzip"),
    (b"PK\x05\x06", QT_TRANSLATE_NOOP("formats", "an (empty) zip archive"), "unzip"),
    (b"\xfd7zXZ\x00", QT_TRANSLATE_NOOP("formats", "xz-compressed"), "unxz"),
    (b"BZh", QT_TRANSLATE_NOOP("formats", "bzip2-compressed"), "bunzip2"),
    (b"\x28\xb5\x2f\xfd", QT_TRANSLATE_NOOP("formats", "zstd-compressed"), "unzstd"),
    (b"7z\xbc\xaf\x27\x1c", QT_TRANSLATE_NOOP("formats", "a 7-Zip archive"), "7z x"),
)
_BINARY = (
    (b"\x89PNG\r\n\x1a\n", QT_TRANSLATE_NOOP("formats", "a PNG image")),
    (b"\xff\xd8\xff", QT_TRANSLATE_NOOP("formats", "a JPEG image")),
    (b"GIF8", QT_TRANSLATE_NOOP("formats", "a GIF image")),
    (b"%PDF-", QT_TRANSLATE_NOOP("formats", "a PDF document")),
    (b"\x7fELF", QT_TRANSLATE_NOOP("formats", "an ELF executable or library")),
    (b"MZ", QT_TRANSLATE_NOOP("formats", "a Windows executable")),
    (b"\x93NUMPY", QT_TRANSLATE_NOOP("formats", "a NumPy array file")),
)


def identify_binary(head: bytes) -> str | None:
    """Why a file starting with `head` is neither a tokenizer nor text, or None when it may be:
    compressed files and archives (never decompressed: a small .gz can hide gigabytes), pickles
    (never loaded: unpickling runs code), images and executables.

    >>> identify_binary(b"\\x1f\\x8b\\x08\\x00")
    'the file is gzip-compressed; tokviz does not decompress files: decompress it first (gunzip)'
    """
    for magic, kind, tool in _COMPRESSED:
        if head.startswith(magic) and not (magic == b"BZh" and not head[3:4].isdigit()):
            return Message(QT_TRANSLATE_NOOP("formats", "the file is {kind}; tokviz does not decompress files: "
                                                        "decompress it first ({tool})"), kind=kind, tool=tool)
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return QT_TRANSLATE_NOOP("formats", "the file is a Python pickle; tokviz never loads pickles (unpickling "
                                            "can run arbitrary code): save the tokenizer as tokenizer.json, .model "
                                            "or .tiktoken instead")
    for magic, kind in _BINARY:
        if head.startswith(magic) and not (magic == b"MZ" and b"\x00" not in head[:64]):
            return Message(QT_TRANSLATE_NOOP("formats", "the file is {kind}, not a tokenizer or text (binary data, "
                                                        "not UTF-8)"), kind=kind)
    return None


def open_regular_file(path: Path, what: str = "a file"):
    """`path` opened for reading in binary, refused unless it is a regular file (`paths.open_regular`:
    a pipe, /dev/zero or a terminal would block or never end; the open itself never blocks)."""
    return open_regular(path, what)


def read_bytes(path: Path) -> bytes:
    """The bytes of a tokenizer file, after checking that it is a regular file, not compressed,
    a pickle or another binary format, and small enough to load in the memory available."""
    with open_regular(path) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_TOKENIZER_FILE:
                raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "file is {size:.1f} GB, too large to be a "
                                                                       "tokenizer (limit 1 GB)"), size=size / 2**30), path)
            check_fits_in_memory(size, LOAD_MEMORY_FACTOR, path, "loading it")
            head = fh.read(64)
            why = identify_binary(head)
            if why is not None:
                raise TokvizError(why, path)
            return head + fh.read(max(0, size - len(head)))
        except OSError as exc:
            raise TokvizError(os_error_reason(exc), path) from None


def read_text(path: Path) -> str:
    data = read_bytes(path)
    encoding = unicode_encoding(data[:4096])
    if encoding is not None:
        raise TokvizError(other_unicode_message(encoding), path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "not UTF-8 text (invalid byte 0x{byte:02x} at offset "
                                                           "{offset})"), byte=data[exc.start], offset=exc.start),
                          path) from None


def _parse_int(digits: str) -> int:
    # A Python function, not `int`: json.loads is one C call that holds the GIL for the whole
    # file (~80 ms for Qwen2.5's tokenizer.json, a pause of the window while a worker loads it);
    # running bytecode per number lets the interpreter hand the GIL over every few milliseconds.
    # On the main thread (nothing else waits for the GIL) json's own int is faster.
    return int(digits)


class DuplicateKeys(dict):
    """A JSON object that named some key more than once: the last value kept (as Python and, in
    most places, HF tokenizers read it), the repeated keys in `duplicate_keys`."""
    duplicate_keys: list[str]


def _object_noting_duplicates(pairs):
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    out = DuplicateKeys(obj)
    out.duplicate_keys = [k for k, _ in pairs if k in seen or seen.add(k)]
    return out


class _Constant:
    """A number Python reads and serde_json refuses, in place of its value: NaN, Infinity or
    -Infinity, or an integer beyond the range of a 64-bit float (`name` says which, as a reason)."""

    def __init__(self, name: str):
        self.name = name


# Integer literals serde_json reads as a 64-bit float, not an integer: beyond 64 bits (20 digits
# or more) and -0.  Where one of these may be in a file, every integer is looked at (`_serde_int`).
_SERDE_FLOAT_INTEGER = re.compile(r"\d{20}|-0(?![.\deE])")
_U64_MAX = 2**64 - 1
_I64_MIN = -(2**63)


class IntegerAsFloat(float):
    """An integer literal serde_json reads as a float (beyond 64 bits, or -0): that float, with
    the literal's digits in `literal` for messages."""

    literal: str

    def __new__(cls, value: float, literal: str):
        self = super().__new__(cls, value)
        self.literal = literal
        return self


def _serde_int(digits: str, out_of_range) -> int | float:
    """The number serde_json reads from an integer literal: an int within u64 / i64, else the
    `IntegerAsFloat` of `serde_f64` (refused by the readers where an integer belongs, as HF
    tokenizers refuses it), or `out_of_range(digits)` beyond the largest float."""
    value = int(digits)
    if _I64_MIN <= value <= _U64_MAX and digits != "-0":
        return value
    as_float = serde_f64(digits)
    return out_of_range(digits) if math.isinf(as_float) else IntegerAsFloat(as_float, digits)


def _first_constant(value, where: str = "", depth: int = 0):
    """(place, name) of the first `_Constant` in parsed JSON, or None."""
    if isinstance(value, _Constant):
        return where, value.name
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        if isinstance(item, (dict, list, _Constant)):
            if isinstance(key, int):
                place = f"{where}[{key}]"
            elif key.isidentifier() and depth < 2:
                place = f"{where}.{key}" if where else key
            else:
                place = f"{where}[{key!r}]"
            found = _first_constant(item, place, depth + 1)
            if found is not None:
                return found
    return None


def read_json(path: Path, *, serde: bool = False):
    """The parsed JSON file; numbers with a fraction or exponent read as HF tokenizers reads them.

    serde: read as HF tokenizers' JSON parser (serde_json) does: NaN and Infinity, which Python
    accepts, are refused; objects that repeat a key are `DuplicateKeys`."""
    text = read_text(path)
    constants: list[str] = []

    def constant(name: str) -> _Constant:
        name = f"{name} is not a JSON number (JSON has no NaN or Infinity, integer or float; HF tokenizers refuses it)"
        constants.append(name)
        return _Constant(name)

    def out_of_range(digits: str) -> _Constant:
        name = (f"the {len(digits.lstrip('-'))}-digit integer {digits[:12]}... is out of range (HF tokenizers "
                "reads it as a 64-bit float, and it is beyond the largest; it refuses it)")
        constants.append(name)
        return _Constant(name)

    on_worker = threading.current_thread() is not threading.main_thread()
    parse_int = _parse_int if on_worker else None
    if serde and _SERDE_FLOAT_INTEGER.search(text):
        def parse_int(digits: str):
            return _serde_int(digits, out_of_range)

    extra = {"parse_constant": constant, "object_pairs_hook": _object_noting_duplicates} if serde else {}
    try:
        data = json.loads(text, parse_int=parse_int, parse_float=serde_f64, **extra)
    except json.JSONDecodeError as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "malformed JSON at line {line}, column {column}: "
                                                           "{error}"), line=exc.lineno, column=exc.colno,
                                  error=exc.msg), path) from None
    except RecursionError:
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "JSON is nested too deeply"), path) from None
    except ValueError as exc:  # e.g. a number of more than 4300 digits
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "malformed JSON: a number is too long to read "
                                                           "({error})"), error=str(exc)), path) from None
    if constants:
        place, name = _first_constant(data) or ("", constants[0])
        if place:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "malformed JSON: {place}: {error}"), place=place,
                                      error=name), path)
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "malformed JSON: {error}"), error=name), path)
    return data


class Fields:
    """Typed access into a parsed JSON object that turns every surprise into a TokvizError
    naming the file and the place (`model.vocab`, `pre_tokenizer.pretokenizers[1].pattern`)."""

    def __init__(self, data, path: Path | str | None, where: str = ""):
        self.path = path
        self.where = where
        if not isinstance(data, dict):
            self.fail(Message(QT_TRANSLATE_NOOP("formats", "expected an object, got {kind}"), kind=_kind(data)))
        self.data = data

    def fail(self, message: str):
        if self.where:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "{place}: {message}"), place=self.where,
                                      message=message), self.path)
        raise TokvizError(message, self.path)

    def _at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def get(self, key: str, types, default=None, *, required: bool = False):
        value = self.data.get(key)
        if value is None:
            if required:
                self.fail(Message(QT_TRANSLATE_NOOP("formats", "missing field {key!r}"), key=key))
            return default
        if not isinstance(value, types) or (isinstance(value, bool) and types in (int, float, (int, float))):
            names = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "{place}: expected {names}, got {kind}"),
                                      place=self._at(key), names=names, kind=_kind(value)), self.path)
        return value

    def obj(self, key: str, *, required: bool = False) -> Fields | None:
        value = self.get(key, dict, required=required)
        return None if value is None else Fields(value, self.path, self._at(key))

    def items(self, key: str) -> list[Fields]:
        values = self.get(key, list, [], required=True)
        return [Fields(v, self.path, f"{self._at(key)}[{i}]") for i, v in enumerate(values)]

    def type_name(self) -> str | None:
        return self.get("type", str)


def _kind(value) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "integer", float: "number",
            IntegerAsFloat: "number"}.get(type(value), type(value).__name__) if value is not None else "null"


def stem(path: Path) -> str:
    name = os.path.basename(str(path).rstrip("/\\"))
    return name.split(".")[0] if "." in name else name


def first_bad_merge_line(vocab: dict[str, int], lines: list[str]) -> tuple[int, str] | None:
    """Check "a b" merge lines in bulk: (index, reason) of the first line that is not exactly two
    non-empty tokens whose concatenation is in the vocabulary, or None when all are fine."""
    if _merge_lines_ok is not None and type(vocab) is dict and type(lines) is list and _merge_lines_ok(vocab, lines):
        return None  # (the same checks in one C loop; a file that fails them is looked at below)
    if lines and set(map(str.count, lines, repeat(" "))) != {1}:
        i = next(i for i, line in enumerate(lines) if line.count(" ") != 1)
        return i, f"expected two tokens separated by one space, got {lines[i][:60]!r}"
    joined = "\n".join(lines)  # (one scan of the joined text: much faster than a call per line)
    if joined.startswith(" ") or joined.endswith(" ") or "\n " in joined or " \n" in joined:
        i = next((i for i, line in enumerate(lines) if line.startswith(" ") or line.endswith(" ")), None)
        if i is not None:  # (else a token holds a newline next to the space)
            return i, f"merge {lines[i]!r} has an empty part: {SELF_MERGE}"
    merged = list(map(str.replace, lines, repeat(" "), repeat(""), repeat(1)))
    if not all(map(vocab.__contains__, merged)):
        i = next(i for i, m in enumerate(merged) if m not in vocab)
        return i, f"merge {lines[i]!r} makes {merged[i]!r}, which is not in the vocabulary"
    return None


SELF_MERGE = "a merge must join two non-empty tokens (joining the empty token makes a token out of itself)"


def first_surrogate(strings) -> str | None:
    """The first string holding a lone surrogate (JSON can write "\\ud800", which is no character
    and cannot be encoded as UTF-8), or None."""
    joined = "".join(strings)
    if joined.isascii():
        return None
    try:
        joined.encode("utf-8")
        return None
    except UnicodeEncodeError:
        return next(s for s in strings if _has_surrogate(s))


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def surrogate_message(text: str, what: str) -> str:
    bad = next(c for c in text if 0xD800 <= ord(c) <= 0xDFFF)
    return (f"{what} {text!r} holds a lone surrogate U+{ord(bad):04X}, which is not a character "
            "(invalid Unicode that cannot be encoded as UTF-8)")


def first_duplicate_id(vocab: dict[str, int]) -> tuple[str, str, int] | None:
    """(first token, second token, id) for two tokens that share an id, or None."""
    if len(set(vocab.values())) == len(vocab):
        return None
    seen: dict[int, str] = {}
    for token, i in vocab.items():
        if i in seen:
            return seen[i], token, i
        seen[i] = token
    return None


def check_vocab(vocab: dict, fail) -> None:
    """A token -> id map: ids are integers within `limits.check_ids`, each id names one token,
    tokens are valid Unicode.  `fail(message)` raises (a Fields' fail, to name the place)."""
    from ..core.limits import MAX_ID, max_sane_id

    ids = vocab.values()
    if vocab and (set(map(type, ids)) != {int} or min(ids) < 0 or max(ids) > max_sane_id(len(vocab))):
        limit = max_sane_id(len(vocab))
        for token, i in vocab.items():
            if isinstance(i, IntegerAsFloat):
                fail(f"token {token!r} has id {i.literal}, which " + ("is too large: ids must be below 2**31" if i
                     else "HF tokenizers reads as a float (-0): expected a non-negative integer"))
            if type(i) is not int or i < 0:
                fail(f"token {token!r} has id {i!r}, expected a non-negative integer")
            if i > MAX_ID:
                fail(f"token {token!r} has id {i}, which is too large: ids must be below 2**31")
            if i > limit:
                fail(f"token {token!r} has id {i}, out of range for a vocabulary of {len(vocab)} tokens "
                     f"(ids up to {limit} are accepted)")
    dup = first_duplicate_id(vocab)
    if dup is not None:
        fail(f"tokens {dup[0]!r} and {dup[1]!r} both have id {dup[2]} (duplicate ids)")
    bad = first_surrogate(vocab)
    if bad is not None:
        fail(surrogate_message(bad, "token"))
