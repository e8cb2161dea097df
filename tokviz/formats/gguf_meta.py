"""The metadata of a GGUF file (llama.cpp's model format), read without its tensors.

A GGUF file starts with a header (magic `GGUF`, version, tensor count, key count) and its
key/value pairs; the tensor descriptions and the weights follow, and are never read here.  The
`gguf` package's reader parses the whole file into numpy views (some 6 s for a vocabulary-only
Qwen2.5 file); this reads the key/value section alone, in well under a second, and only decodes
the values of the keys asked for.
"""
from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path

from ..errors import TokvizError
from ..paths import open_regular, os_error_reason

MAGIC = b"GGUF"
# value types (the GGUF specification's numbering)
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
_SCALARS = {UINT8: "B", INT8: "b", UINT16: "H", INT16: "h", UINT32: "I", INT32: "i", FLOAT32: "f", BOOL: "?",
            UINT64: "Q", INT64: "q", FLOAT64: "d"}
_MAX_KEYS = 1 << 20


def is_gguf(head: bytes) -> bool:
    return head[:4] == MAGIC


class _Reader:
    def __init__(self, data, path: Path):
        self.data = data
        self.pos = 0
        self.path = path

    def fail(self, what: str):
        raise TokvizError(f"not a readable GGUF file: {what} (at byte {self.pos})", self.path)

    def unpack(self, fmt: str):
        size = struct.calcsize("<" + fmt)
        if self.pos + size > len(self.data):
            self.fail("it ends inside its metadata")
        value = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += size
        return value[0] if len(value) == 1 else value

    def string(self, decode: bool = True):
        n = self.unpack("Q")
        if self.pos + n > len(self.data):
            self.fail("a string runs past the end of the file")
        start = self.pos
        self.pos += n
        if not decode:
            return None
        try:
            return self.data[start:self.pos].decode("utf-8")
        except UnicodeDecodeError:
            self.fail("a string is not UTF-8")

    def value(self, kind: int, decode: bool):
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == STRING:
            return self.string(decode)
        if kind == ARRAY:
            item, count = self.unpack("I"), self.unpack("Q")
            if item in _SCALARS:
                size = struct.calcsize("<" + _SCALARS[item])
                if self.pos + size * count > len(self.data):
                    self.fail("an array runs past the end of the file")
                start = self.pos
                self.pos += size * count
                if not decode:
                    return None
                import numpy as np

                dtype = np.dtype("<" + _SCALARS[item]) if item != BOOL else np.dtype(bool)
                return np.frombuffer(self.data, dtype, count, start).copy()
            if item == STRING:
                if not decode:
                    for _ in range(count):
                        self.string(False)
                    return None
                return [self.string() for _ in range(count)]
            if item == ARRAY:
                return [self.value(ARRAY, decode) for _ in range(count)]
            self.fail(f"unknown array item type {item}")
        self.fail(f"unknown value type {kind}")


def read_metadata(path: str | os.PathLike, wanted=lambda key: True) -> dict:
    """{key: value} of the GGUF file's metadata, for the keys `wanted(key)` accepts (the others are
    skipped without decoding); arrays of numbers come as numpy arrays, of strings as lists.  A file
    that is not GGUF, or is cut short, is a TokvizError naming it."""
    path = Path(path)
    try:
        with open_regular(path, "a GGUF file") as fh:
            try:
                data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # an empty file
                data = b""
    except OSError as exc:
        raise TokvizError(os_error_reason(exc), path) from None
    try:
        r = _Reader(data, path)
        if data[:4] != MAGIC:
            raise TokvizError("not a GGUF file (it does not start with 'GGUF')", path)
        r.pos = 4
        version = r.unpack("I")
        if version not in (2, 3):
            raise TokvizError(f"GGUF version {version} is not supported (2 and 3 are)", path)
        _tensors, keys = r.unpack("Q"), r.unpack("Q")
        if keys > _MAX_KEYS:
            r.fail(f"it claims {keys:,} metadata keys")
        out = {"GGUF.version": version}
        for _ in range(keys):
            key = r.string()
            kind = r.unpack("I")
            take = wanted(key)
            value = r.value(kind, take)
            if take:
                out[key] = value
        return out
    finally:
        r = None
        if isinstance(data, mmap.mmap):
            try:
                data.close()
            except BufferError:  # (a view still held by a traceback: the mapping closes when it goes)
                pass
