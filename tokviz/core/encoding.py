"""The result of encoding a text: ids, and for each token its bytes, its place in the text, and flags."""
from __future__ import annotations

import codecs
from dataclasses import dataclass, field


def byte_chips(data: bytes) -> str:
    """b'\\xe6\\xb5' -> '⟨e6⟩⟨b5⟩': how bytes that are not a whole character are shown."""
    return "".join(f"⟨{b:02x}⟩" for b in data)


def _chips_handler(exc: UnicodeDecodeError):
    return byte_chips(exc.object[exc.start : exc.end]), exc.end


codecs.register_error("tokviz-chips", _chips_handler)


def display_string(data: bytes, partial: bool = False) -> str:
    """What a person should see for a token's bytes: its text, with stray bytes as chips
    (b' \\xe6\\xb5' -> ' ⟨e6⟩⟨b5⟩')."""
    return data.decode("utf-8", "tokviz-chips")


@dataclass
class Encoding:
    """Tokens of `text`.

    `offsets[i]` is the [start, end) character span of token i in `text`; a token that holds only
    part of a UTF-8 character (byte-level BPE on CJK text, byte fallback) points at the character
    it belongs to and has `partial[i]` set.  Special tokens added by the post-processor have an
    empty span at the start or end.
    """

    text: str
    ids: list[int] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)
    token_bytes: list[bytes] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)  # the tokenizer's own token strings ('Ġthe', '##ing')
    special: list[bool] = field(default_factory=list)
    partial: list[bool] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def tokens(self) -> list[str]:
        """Display strings: the token's text, byte chips ⟨e6⟩ for partial tokens, specials as written."""
        return [
            piece if special else display_string(data, partial)
            for piece, data, special, partial in zip(self.pieces, self.token_bytes, self.special, self.partial)
        ]

    def token_at(self, char_index: int) -> int | None:
        """Index of the first token whose span covers character `char_index`, or None."""
        for i, (a, b) in enumerate(self.offsets):
            if a <= char_index < b:
                return i
        return None

    def as_records(self) -> list[dict]:
        """One dict per token (id, token, bytes as hex, start, end, flags): the CLI's --json rows."""
        return [
            {
                "id": i,
                "token": t,
                "piece": p,
                "bytes": b.hex(),
                "start": s,
                "end": e,
                "special": sp,
                "partial": pa,
            }
            for i, t, p, b, (s, e), sp, pa in zip(
                self.ids, self.tokens, self.pieces, self.token_bytes, self.offsets, self.special, self.partial
            )
        ]


class LazyEncoding(Encoding):
    """An Encoding from the native encoder whose per-token lists are built on first use.

    It holds the ids, the offsets packed as native int32 (start, end) pairs, and the tokenizer's
    per-id tables (token bytes, token string, partial flag); `offsets`, `token_bytes`, `pieces`,
    `special` and `partial` become ordinary lists the first time they are read.  It compares equal
    to an `Encoding` with the same fields.
    """

    _LAZY = ("offsets", "token_bytes", "pieces", "special", "partial")

    def __init__(self, text: str, ids: list[int], packed_offsets: bytes, tables: tuple[list, list, list]):
        self.text = text
        self.ids = ids
        self._packed = packed_offsets
        self._tables = tables

    def __getattr__(self, name):  # only called for attributes not set yet
        if name not in LazyEncoding._LAZY or "_tables" not in self.__dict__:
            raise AttributeError(name)
        ids = self.ids
        if name == "offsets":
            pairs = memoryview(self._packed).cast("i")
            value = list(zip(pairs[0::2], pairs[1::2]))
        elif name == "special":
            value = [False] * len(ids)
        else:
            table = self._tables[("token_bytes", "pieces", "partial").index(name)]
            value = list(map(table.__getitem__, ids))
        setattr(self, name, value)
        return value

    def __eq__(self, other):
        if not isinstance(other, Encoding):
            return NotImplemented
        names = ("text", "ids") + LazyEncoding._LAZY
        return all(getattr(self, n) == getattr(other, n) for n in names)

    __hash__ = None

    def __reduce__(self):
        # Copies and pickles are plain Encodings: the per-id tables stay with the tokenizer.
        return Encoding, (self.text, self.ids, self.offsets, self.token_bytes, self.pieces, self.special, self.partial)

    def __repr__(self) -> str:
        return f"LazyEncoding(text={self.text!r}, ids={self.ids!r}, offsets={self.offsets!r})"
