"""Ids as people copy them around: written space- or comma-separated or as a list (which is both
JSON and Python), read back from any of those, and turned back into tokens.

    >>> format_ids([9906, 1917], "list")
    '[9906, 1917]'
    >>> parse_ids("9906, 1917")
    [9906, 1917]
    >>> encoding_from_ids(tok, [9906, 1917]).tokens
    ['Hello', ' world']
"""
from __future__ import annotations

import re

from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from .encoding import Encoding, display_string
from .tokenizer import Tokenizer

STYLES = {"space": "Space-separated", "comma": "Comma-separated", "list": "JSON / Python list"}
_NUMBER = re.compile(r"-?\d+")
_ALLOWED = re.compile(r"[\s,\[\]()\d-]*")


def format_ids(ids, style: str = "space") -> str:
    """`ids` written in one of STYLES."""
    if hasattr(ids, "tolist"):  # a numpy array: its Python ints print much faster
        ids = ids.tolist()
    if style == "space":
        return " ".join(map(str, ids))
    if style == "comma":
        return ", ".join(map(str, ids))
    if style == "list":
        return "[" + ", ".join(map(str, ids)) + "]"
    raise TokvizError(Message(QT_TRANSLATE_NOOP("core", "unknown ids style {style!r} (choose from {choices})"),
                              style=style, choices=", ".join(STYLES)))


def parse_ids(text: str) -> list[int]:
    """The ids in `text`: numbers separated by spaces and/or commas, optionally in [ ] or ( )."""
    if not _ALLOWED.fullmatch(text):
        bad = next(c for c in text if not _ALLOWED.fullmatch(c))
        raise TokvizError(Message(QT_TRANSLATE_NOOP("core", "ids must be numbers separated by spaces or commas; found "
                                                            "{bad!r}"), bad=bad))
    ids = [int(m.group()) for m in _NUMBER.finditer(text)]
    if any(i < 0 for i in ids):
        raise TokvizError(QT_TRANSLATE_NOOP("core", "ids cannot be negative"))
    return ids


def encoding_from_ids(tokenizer: Tokenizer, ids: list[int]) -> Encoding:
    """The tokens of `ids` laid end to end: `text` is their display strings joined, so each token's
    offsets cover its own display string.  Unknown ids raise TokvizError."""
    size = tokenizer.vocab_size
    special_ids = tokenizer.added.special_ids
    pieces, token_bytes, partial, special, offsets = [], [], [], [], []
    parts = []
    pos = 0
    for i in ids:
        piece = tokenizer.id_to_token(i)
        if piece is None:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("core", "id {id} is not in the vocabulary (size {size})"), id=i,
                                      size=size))
        data = tokenizer.token_bytes(i)
        is_special = i in special_ids
        try:
            data.decode("utf-8")
            is_partial = False
        except UnicodeDecodeError:
            is_partial = not is_special
        shown = piece if is_special else display_string(data, is_partial)
        pieces.append(piece)
        token_bytes.append(data)
        partial.append(is_partial)
        special.append(is_special)
        offsets.append((pos, pos + len(shown)))
        parts.append(shown)
        pos += len(shown)
    return Encoding("".join(parts), list(ids), offsets, token_bytes, pieces, special, partial)
