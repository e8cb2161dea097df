"""The GPT-2 byte-to-character table that byte-level tokenizers write their vocabularies in.

Every byte 0-255 gets a printable character: printable Latin-1 bytes stand for themselves,
the others are shifted to U+0100 and up (so a space is 'Ġ' and a newline 'Ċ').
"""
from __future__ import annotations


def _byte_to_char() -> list[str]:
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = [""] * 256
    shifted = 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


BYTE_TO_CHAR: list[str] = _byte_to_char()
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_CHAR)}

# str.translate tables: latin-1 text (one char per byte) <-> byte-level text.
_TO_BYTELEVEL = {b: c for b, c in enumerate(BYTE_TO_CHAR)}
_FROM_BYTELEVEL = {b: "\uffff" for b in range(256)}  # raw low chars are not in the alphabet
_FROM_BYTELEVEL.update({ord(c): b for b, c in enumerate(BYTE_TO_CHAR)})


def bytes_to_unicode(data: bytes) -> str:
    """b' hi' -> 'Ġhi'."""
    return data.decode("latin-1").translate(_TO_BYTELEVEL)


def unicode_to_bytes(text: str) -> bytes | None:
    """'Ġhi' -> b' hi'; None when `text` has a character outside the byte-level alphabet."""
    mapped = text.translate(_FROM_BYTELEVEL)
    try:
        return mapped.encode("latin-1")
    except UnicodeEncodeError:
        return None
