"""Text with surrogate code points, repaired as tiktoken repairs it before encoding.

A Python str can hold UTF-16 surrogates (U+D800..U+DFFF), which UTF-8 cannot encode.  tiktoken's
`encode` then writes the text as UTF-16 letting surrogates through and reads it back replacing what
is not valid: a high surrogate followed by a low one becomes the character they encode, any other
surrogate becomes U+FFFD.  `repair_surrogates` does the same and also says where each character of
the repaired text came from, so that offsets into it can be given in the caller's string.

    >>> repair_surrogates("a\\ud83d\\udc4d\\ud83d")
    ('a👍\\ufffd', [0, 1, 3, 4])
"""
from __future__ import annotations

from .encoding import Encoding

HIGH = range(0xD800, 0xDC00)
LOW = range(0xDC00, 0xE000)


def repair_surrogates(text: str) -> tuple[str, list[int]]:
    """(repaired text, starts) where starts[i] is the index in `text` of the repaired text's
    character i, and starts[-1] == len(text)."""
    out: list[str] = []
    starts: list[int] = []
    i, n = 0, len(text)
    while i < n:
        code = ord(text[i])
        starts.append(i)
        if code in HIGH and i + 1 < n and ord(text[i + 1]) in LOW:
            out.append(chr(0x10000 + ((code - 0xD800) << 10) + (ord(text[i + 1]) - 0xDC00)))
            i += 2
        elif 0xD800 <= code < 0xE000:
            out.append("\ufffd")
            i += 1
        else:
            out.append(text[i])
            i += 1
    starts.append(n)
    return "".join(out), starts


def in_original(encoding: Encoding, text: str, starts: list[int]) -> Encoding:
    """`encoding` of a repaired text, its text and offsets moved back to the original `text`."""
    return Encoding(
        text,
        list(encoding.ids),
        [(starts[a], starts[b]) for a, b in encoding.offsets],
        list(encoding.token_bytes),
        list(encoding.pieces),
        list(encoding.special),
        list(encoding.partial),
    )
