"""Small helpers shared by the readers: checked access to parsed data, and file reading."""
from __future__ import annotations

import json
import os
from itertools import repeat
from pathlib import Path

from ..errors import TokvizError

# Refuse absurd files before reading them into memory (a vocabulary file is at most tens of MB).
MAX_TOKENIZER_FILE = 1 << 30


def read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_TOKENIZER_FILE:
            raise TokvizError(f"file is {size / 2**30:.1f} GB, too large to be a tokenizer", path)
        return path.read_bytes()
    except TokvizError:
        raise
    except IsADirectoryError:
        raise TokvizError("is a folder, expected a file", path) from None
    except OSError as exc:
        raise TokvizError(f"cannot read: {exc.strerror or exc}", path) from None


def read_text(path: Path) -> str:
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TokvizError(f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})", path) from None


def read_json(path: Path):
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TokvizError(f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path) from None
    except RecursionError:
        raise TokvizError("JSON is nested too deeply", path) from None


class Fields:
    """Typed access into a parsed JSON object that turns every surprise into a TokvizError
    naming the file and the place (`model.vocab`, `pre_tokenizer.pretokenizers[1].pattern`)."""

    def __init__(self, data, path: Path | str | None, where: str = ""):
        self.path = path
        self.where = where
        if not isinstance(data, dict):
            self.fail(f"expected an object, got {_kind(data)}")
        self.data = data

    def fail(self, message: str):
        place = f"{self.where}: " if self.where else ""
        raise TokvizError(place + message, self.path)

    def _at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def get(self, key: str, types, default=None, *, required: bool = False):
        value = self.data.get(key)
        if value is None:
            if required:
                self.fail(f"missing field {key!r}")
            return default
        if not isinstance(value, types) or (isinstance(value, bool) and types in (int, float, (int, float))):
            names = types.__name__ if isinstance(types, type) else "/".join(t.__name__ for t in types)
            raise TokvizError(f"{self._at(key)}: expected {names}, got {_kind(value)}", self.path)
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
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "integer", float: "number"}.get(
        type(value), type(value).__name__
    ) if value is not None else "null"


def stem(path: Path) -> str:
    name = os.path.basename(str(path).rstrip("/\\"))
    return name.split(".")[0] if "." in name else name


def first_bad_merge_line(vocab: dict[str, int], lines: list[str]) -> tuple[int, str] | None:
    """Check "a b" merge lines in bulk: (index, reason) of the first line that is not exactly two
    tokens whose concatenation is in the vocabulary, or None when all are fine."""
    if lines and set(map(str.count, lines, repeat(" "))) != {1}:
        i = next(i for i, line in enumerate(lines) if line.count(" ") != 1)
        return i, f"expected two tokens separated by one space, got {lines[i][:60]!r}"
    merged = list(map(str.replace, lines, repeat(" "), repeat(""), repeat(1)))
    if not all(map(vocab.__contains__, merged)):
        i = next(i for i, m in enumerate(merged) if m not in vocab)
        return i, f"merge {lines[i]!r} makes {merged[i]!r}, which is not in the vocabulary"
    return None
