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

Groups (types 3 and 4, long deprecated) are skipped whole, as unknown fields.  The reading
follows protobuf's C++ parser where a file is malformed (what sentencepiece loads with): a tag is
at most 5 bytes and its value is cut to 32 bits, a varint value to 64 bits, a length is at most
5 bytes; field number 0, a stray end-group, and wire types 6 and 7 are errors.  Every malformed input
raises a `TokvizError` naming the source and the byte offset, never an IndexError.

`parse_message` reads a message against a schema (`MessageSpec`) with proto2's rules: a field
seen twice keeps the last value, a sub-message seen twice is merged, repeated fields append, and
a field with another wire type than its schema's, or an enum value the schema does not know,
is kept aside as an unknown field (here: ignored).

    >>> list(iter_fields(b"\\x08\\x96\\x01\\x12\\x02hi"))
    [(1, 0, 150), (2, 2, b'hi')]
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import TokvizError

VARINT, I64, LEN, GROUP_START, GROUP_END, I32 = 0, 1, 2, 3, 4, 5

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


MAX_GROUP_DEPTH = 100  # protobuf's default recursion limit

_U64_MASK = (1 << 64) - 1


def read_varint(data: bytes, pos: int, end: int, source=None, *, max_bytes: int = 10) -> tuple[int, int]:
    """The varint at `pos` (bits beyond 64 dropped, as protobuf does) and the position after it."""
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
        if pos - start >= max_bytes:
            raise TokvizError(f"bad varint at byte {start}: longer than {max_bytes} bytes", source)
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value & _U64_MASK, pos
        shift += 7


def _read_tag(data: bytes, pos: int, end: int, source) -> tuple[int, int, int]:
    """(field number, wire type, position after) of the tag at `pos`: at most 5 bytes, cut to 32 bits."""
    key_at = pos
    key, pos = read_varint(data, pos, end, source, max_bytes=5)
    key &= 0xFFFFFFFF
    number, wire = key >> 3, key & 7
    if number == 0:
        raise TokvizError(f"bad protobuf field number 0 at byte {key_at}", source)
    return number, wire, pos


def read_field(data: bytes, pos: int, end: int, source=None) -> tuple[int, int, int | bytes | None, int]:
    """(field number, wire type, value, position after it) of the field starting at `pos`
    (a group's value is None: its contents are skipped)."""
    key_at = pos
    number, wire, pos = _read_tag(data, pos, end, source)
    if wire == VARINT:
        value, pos = read_varint(data, pos, end, source)
    elif wire == LEN:
        length_at = pos
        length, pos = read_varint(data, pos, end, source)
        if length <= end - pos and pos - length_at > 5:
            raise TokvizError(f"the length of field {number} at byte {key_at} is written in more than 5 bytes", source)
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
    elif wire == GROUP_START:
        try:
            value, pos = None, _skip_group(data, pos, end, number, key_at, source)
        except TokvizError as exc:
            raise TokvizError(f"in the group (wire type 3) of field {number} at byte {key_at}: {exc.reason}", source) from None
    elif wire == GROUP_END:
        raise TokvizError(f"protobuf end-group (field {number}) without a start at byte {key_at}", source)
    else:
        raise TokvizError(f"unsupported protobuf wire type {wire} (field {number}) at byte {key_at}", source)
    return number, wire, value, pos


def _skip_group(data: bytes, pos: int, end: int, number: int, start: int, source) -> int:
    """The position after the end-group that closes the group `number` opened at `start`."""
    open_groups = [number]
    while open_groups:
        if pos >= end:
            raise TokvizError(f"protobuf group (field {number}) at byte {start} is not closed", source)
        tag_at = pos
        inner, wire, pos = _read_tag(data, pos, end, source)
        if wire == GROUP_START:
            open_groups.append(inner)
            if len(open_groups) > MAX_GROUP_DEPTH:
                raise TokvizError(f"protobuf groups nested more than {MAX_GROUP_DEPTH} deep at byte {tag_at}", source)
        elif wire == GROUP_END:
            if inner != open_groups.pop():
                raise TokvizError(f"protobuf end-group (field {inner}) at byte {tag_at} closes another group", source)
        else:
            pos = read_field(data, tag_at, end, source)[3]
    return pos


def iter_fields(data: bytes, start: int = 0, end: int | None = None, *, source=None) -> Iterator[tuple[int, int, int | bytes | None]]:
    """Yield (field number, wire type, value) for each field of the message in data[start:end].

    VARINT, I32 and I64 values are unsigned ints (see `as_signed`, `as_float`, `as_double`);
    LEN values are bytes; groups are skipped, their value None.
    """
    if end is None:
        end = len(data)
    if not (0 <= start <= end <= len(data)):
        raise TokvizError(f"protobuf message bounds {start}..{end} outside the {len(data)}-byte data", source)
    pos = start
    while pos < end:
        number, wire, value, pos = read_field(data, pos, end, source)
        yield number, wire, value


# ---- reading against a schema ---------------------------------------------------------------

@dataclass(frozen=True)
class FieldSpec:
    """One field of a message schema.  kind: int32, uint32, int64, uint64, bool, enum, float,
    double, string, bytes or message (then `message` is its schema); `values`: an enum's numbers."""

    name: str
    kind: str
    repeated: bool = False
    values: frozenset = frozenset()
    message: "MessageSpec | None" = None


@dataclass(frozen=True)
class MessageSpec:
    name: str
    fields: dict  # field number -> FieldSpec


WIRE_OF_KIND = {
    "int32": VARINT, "uint32": VARINT, "int64": VARINT, "uint64": VARINT, "bool": VARINT, "enum": VARINT,
    "float": I32, "double": I64, "string": LEN, "bytes": LEN, "message": LEN,
}


def parse_message(data: bytes, spec: MessageSpec, *, source=None, into: dict | None = None) -> dict:
    """The fields of `data` known to `spec` that are set, by name, read with proto2's rules (see
    the module doc); parsing into `into` merges `data` into that message.  Strings and bytes
    stay bytes (proto2 does not check UTF-8)."""
    out = {} if into is None else into
    fields = spec.fields
    for number, wire, value in iter_fields(data, source=source):
        field = fields.get(number)
        if field is None:
            continue
        wanted = WIRE_OF_KIND[field.kind]
        if wire == wanted:
            _store(out, field, value, source)
        elif field.repeated and wire == LEN and wanted != LEN:  # a packed repeated scalar
            for item in _unpack(value, wanted, source):
                _store(out, field, item, source)
        # else: another wire type than the schema's, kept by protobuf as an unknown field
    return out


def _unpack(data: bytes, wire: int, source) -> Iterator[int]:
    pos, end = 0, len(data)
    while pos < end:
        if wire == VARINT:
            value, pos = read_varint(data, pos, end, source)
        else:
            size = 4 if wire == I32 else 8
            if end - pos < size:
                raise TokvizError("packed protobuf field ends inside a value", source)
            value = (_U32 if size == 4 else _U64).unpack_from(data, pos)[0]
            pos += size
        yield value


def _store(out: dict, field: FieldSpec, raw, source) -> None:
    kind = field.kind
    if kind == "message":
        if field.repeated:
            out.setdefault(field.name, []).append(parse_message(raw, field.message, source=source))
        else:
            parse_message(raw, field.message, source=source, into=out.setdefault(field.name, {}))
        return
    if kind in ("int32", "enum"):
        value = as_signed(raw, 32)
        if kind == "enum" and value not in field.values:
            return  # an unknown enum value: protobuf keeps it as an unknown field
    elif kind == "int64":
        value = as_signed(raw)
    elif kind == "uint32":
        value = raw & 0xFFFFFFFF
    elif kind == "bool":
        value = raw != 0
    elif kind == "float":
        value = as_float(raw)
    elif kind == "double":
        value = as_double(raw)
    else:  # uint64, string, bytes
        value = raw
    if field.repeated:
        out.setdefault(field.name, []).append(value)
    else:
        out[field.name] = value


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
