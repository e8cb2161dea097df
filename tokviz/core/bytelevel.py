"""The GPT-2 byte-to-character table that byte-level tokenizers write their vocabularies in.

Every byte 0-255 gets a printable character: printable Latin-1 bytes stand for themselves,
the others are shifted to U+0100 and up (so a space is 'Ġ' and a newline 'Ċ').
"""
from __future__ import annotations

import codecs
from collections.abc import Iterable
from itertools import repeat
from operator import itemgetter


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

_DECODING_TABLE = "".join(BYTE_TO_CHAR)  # for the charmap codec: bytes -> byte-level text in C
# str.translate table: byte-level text -> latin-1 text (one char per byte).
_FROM_BYTELEVEL = {b: "\uffff" for b in range(256)}  # raw low chars are not in the alphabet
_FROM_BYTELEVEL.update({ord(c): b for b, c in enumerate(BYTE_TO_CHAR)})


def bytes_to_unicode(data: bytes) -> str:
    """b' hi' -> 'Ġhi'."""
    return codecs.charmap_decode(data, "strict", _DECODING_TABLE)[0]


def many_bytes_to_unicode(tokens: Iterable[bytes]) -> list[str]:
    """bytes_to_unicode over many tokens without a Python call per token (vocabularies are large)."""
    return list(map(itemgetter(0), map(codecs.charmap_decode, tokens, repeat("strict"), repeat(_DECODING_TABLE))))


def unicode_to_bytes(text: str) -> bytes | None:
    """'Ġhi' -> b' hi'; None when `text` has a character outside the byte-level alphabet."""
    mapped = text.translate(_FROM_BYTELEVEL)
    try:
        return mapped.encode("latin-1")
    except UnicodeEncodeError:
        return None
