"""The exception tokviz raises for bad input, and the one long work raises when it is cancelled."""
from __future__ import annotations

import os

from .messages import QT_TRANSLATE_NOOP, Message

try:  # the C scan of a text for lone surrogates (a UTF-8 encode of the text without it)
    from ._native import surrogate_at as _surrogate_at
except ImportError:
    _surrogate_at = None


class TokvizError(Exception):
    """A file or text tokviz cannot use, with the file's name and the reason.

    >>> str(TokvizError("merges refer to unknown token 'ab'", path="tok.json"))
    "tok.json: merges refer to unknown token 'ab'"
    """

    def __init__(self, message: str, path: str | os.PathLike | None = None):
        self.reason = message
        self.path = os.fspath(path) if path is not None else None
        super().__init__(f"{self.path}: {message}" if self.path else message)


class SurrogateError(TokvizError):
    """Text with a surrogate code point (U+D800..U+DFFF), which UTF-8 cannot encode; `at` is its index."""

    def __init__(self, message: str, at: int):
        super().__init__(message)
        self.at = at


class Cancelled(Exception):
    """Long work (encoding a file, training) stopped because its cancel callback said so."""


def check_text(text: str) -> str:
    """Return `text` if it can be encoded to UTF-8, else raise a SurrogateError (a TokvizError) that
    says where it cannot."""
    if not isinstance(text, str):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("errors", "expected text (str), got {kind}"), kind=type(text).__name__))
    if text.isascii():  # no surrogate possible; much cheaper than encoding
        return text
    if _surrogate_at is not None:
        at = _surrogate_at(text)
    else:
        try:
            text.encode("utf-8")
            at = -1
        except UnicodeEncodeError as exc:
            at = exc.start
    if at >= 0:
        raise SurrogateError(
            Message(QT_TRANSLATE_NOOP("errors", "text has a lone surrogate U+{code:04X} at character {at}; it is not "
                                                "valid Unicode and cannot be encoded as UTF-8"), code=ord(text[at]), at=at),
            at,
        )
    return text
