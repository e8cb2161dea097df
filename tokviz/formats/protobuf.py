"""A minimal, bounds-checked reader of the protobuf wire format (no schema, no protobuf library).

A message is a sequence of fields, each a varint key ``number << 3 | wire_type`` and a value:

====  ========  ==================================================
type  name      value
====  ========  ==================================================
0     VARINT    base-128 varint, at most 10 bytes
1     I64       8 little-endian bytes (fixed64, sfixed64, double)
2     LEN       varint length, then that many bytes (strings, bytes, sub-messages)
5     I32       4 little-endian bytes (fixed32, sfixed32, float)
====  ========  ==================================================

Groups (types 3 and 4) are long deprecated and rejected.  Every malformed input raises a
`TokvizError` naming the source and the byte offset, never an IndexError.

    >>> list(iter_fields(b"\\x08\\x96\\x01\\x12\\x02hi"))
    [(1, 0, 150), (2, 2, b'hi')]
"""
from __future__ import annotations

import struct
from collections.abc import Iterator

from ..errors import TokvizError

VARINT, I64, LEN, I32 = 0, 1, 2, 5

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


def read_varint(data: bytes, pos: int, end: int, source=None) -> tuple[int, int]:
    """The varint at `pos` and the position after it."""
    if pos >= end:
        raise TokvizError(f"protobuf data ends inside a varint at byte {pos}", source)
    b = data[pos]
    if b < 0x80:  # the common one-byte case
        return b, pos + 1
    value = b & 0x7F
    shift = 7
    start = pos
    pos += 1
    while True:
        if pos >= end:
            raise TokvizError(f"protobuf data ends inside a varint at byte {start}", source)
        if pos - start >= 10:
            raise TokvizError(f"bad varint at byte {start}: longer than 10 bytes", source)
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            if value >> 64:
                raise TokvizError(f"bad varint at byte {start}: value does not fit in 64 bits", source)
            return value, pos
        shift += 7


def read_field(data: bytes, pos: int, end: int, source=None) -> tuple[int, int, int | bytes, int]:
    """(field number, wire type, value, position after it) of the field starting at `pos`."""
    key_at = pos
    key, pos = read_varint(data, pos, end, source)
    number, wire = key >> 3, key & 7
    if number == 0 or number > 0x1FFFFFFF:
        raise TokvizError(f"bad protobuf field number {number} at byte {key_at}", source)
    if wire == VARINT:
        value, pos = read_varint(data, pos, end, source)
    elif wire == LEN:
        length, pos = read_varint(data, pos, end, source)
        if length > end - pos:
            raise TokvizError(
                f"field {number} at byte {key_at} declares {length} bytes but only {end - pos} remain "
                "(truncated or not protobuf data)",
                source,
            )
        value = data[pos : pos + length]
        pos += length
    elif wire == I32:
        if end - pos < 4:
            raise TokvizError(f"protobuf data ends inside a 4-byte field {number} at byte {key_at}", source)
        (value,) = _U32.unpack_from(data, pos)
        pos += 4
    elif wire == I64:
        if end - pos < 8:
            raise TokvizError(f"protobuf data ends inside an 8-byte field {number} at byte {key_at}", source)
        (value,) = _U64.unpack_from(data, pos)
        pos += 8
    else:
        raise TokvizError(f"unsupported protobuf wire type {wire} (field {number}) at byte {key_at}", source)
    return number, wire, value, pos


def iter_fields(data: bytes, start: int = 0, end: int | None = None, *, source=None) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield (field number, wire type, value) for each field of the message in data[start:end].

    VARINT, I32 and I64 values are unsigned ints (see `as_signed`, `as_float`, `as_double`);
    LEN values are bytes.
    """
    if end is None:
        end = len(data)
    if not (0 <= start <= end <= len(data)):
        raise TokvizError(f"protobuf message bounds {start}..{end} outside the {len(data)}-byte data", source)
    pos = start
    while pos < end:
        number, wire, value, pos = read_field(data, pos, end, source)
        yield number, wire, value


def expect(number: int, wire: int, wanted: int, what: str, source=None) -> None:
    """Raise unless field `number` has the wire type the schema says (`what` names it)."""
    if wire != wanted:
        names = {VARINT: "varint", I64: "64-bit", LEN: "length-delimited", I32: "32-bit"}
        raise TokvizError(
            f"field {what} (number {number}) is {names.get(wire, wire)}, expected {names[wanted]}", source
        )


def as_signed(value: int, bits: int = 64) -> int:
    """Two's-complement reading of an unsigned varint (int32 fields encode -1 as 10 bytes)."""
    value &= (1 << 64) - 1
    if value >= 1 << 63:
        value -= 1 << 64
    if bits == 32:
        value = ((value + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    return value


def as_float(value: int) -> float:
    return _FLOAT.unpack(_U32.pack(value))[0]


def as_double(value: int) -> float:
    return _DOUBLE.unpack(_U64.pack(value))[0]


def as_string(value: bytes, what: str, source=None) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokvizError(f"{what} is not valid UTF-8 (byte {exc.start}: {value[exc.start:exc.start + 1]!r})", source) from None


# ---- writing --------------------------------------------------------------------------------

def encode_varint(value: int) -> bytes:
    """Base-128 varint of `value`; a negative int32/int64 is written as its 64-bit two's complement."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_key(number: int, wire: int) -> bytes:
    return encode_varint(number << 3 | wire)


def encode_field(number: int, wire: int, value: int | bytes) -> bytes:
    """One field as `read_field` reads it back: VARINT, I32 and I64 values are ints (unsigned
    bit patterns, see `float_bits`), LEN values are bytes."""
    key = encode_key(number, wire)
    if wire == VARINT:
        return key + encode_varint(value)
    if wire == LEN:
        return key + encode_varint(len(value)) + bytes(value)
    if wire == I32:
        return key + _U32.pack(value)
    if wire == I64:
        return key + _U64.pack(value)
    raise ValueError(f"unsupported wire type {wire}")


def float_bits(value: float) -> int:
    """The 32-bit pattern of a float field (the inverse of `as_float`)."""
    return _U32.unpack(_FLOAT.pack(value))[0]


def encode_string(number: int, text: str) -> bytes:
    return encode_field(number, LEN, text.encode("utf-8"))
