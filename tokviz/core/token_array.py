"""Encodings of whole big documents in numpy arrays, and the document's cut into layout blocks.

A `TokenArray` reads like an `Encoding` (``len``, ``ids[i]``, ``offsets[i]``, ``token_bytes[i]``,
``pieces[i]``, ``special[i]``, ``partial[i]``, ``text``) but holds per token only an id, a start, an
end and a special flag — not a dozen Python objects — and looks the rest up by id (13 bytes a token with int32 offsets): a 50 MB file of 21 million tokens
takes ~280 MB besides its text.  `TokenArrayBuilder` collects one
from the pieces `streaming.encode_file` hands over.

`layout_blocks` cuts a document into the blocks the token view lays out one at a time: a block
starts at a token that begins a line (the character before it is a newline that no token still
covers), or after `max_tokens` tokens without one.  Only the blocks on screen are ever laid out.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .encoding import Encoding, LazyEncoding

__all__ = ["TokenArray", "TokenArrayBuilder", "Blocks", "encode_to_array", "layout_blocks", "offsets_arrays",
           "newline_positions"]

PIECE_CHARS = 64 * 1024  # encode_to_array's pieces


class _Column(Sequence):
    """A read-only per-token column computed from the arrays on access."""

    def __init__(self, n: int, item):
        self._n = n
        self._item = item

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._item(k) for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._item(i)


class TokenArray(Encoding):
    """The tokens of `text` as arrays: `ids` (uint32), `starts` / `ends` (character offsets, int32
    unless the text has 2**31 characters or more) and `special_mask` (bool); bytes, pieces and
    partial flags come from `tokenizer` by id.  The offsets are in text order, as
    `offsets_arrays` gives them: a closing special token sits at the end of the text."""

    def __init__(self, text: str, ids, starts, ends, special_mask, tokenizer):
        self.text = text
        self._ids = np.asarray(ids, dtype=np.uint32)
        offset_type = _offset_type(len(text))
        self.starts = np.asarray(starts, dtype=offset_type)
        self.ends = np.asarray(ends, dtype=offset_type)
        self.special_mask = np.asarray(special_mask, dtype=bool)
        n = len(self._ids)
        if not (len(self.starts) == len(self.ends) == len(self.special_mask) == n):
            raise ValueError("ids, starts, ends and special_mask must have one entry per token")
        self.tokenizer = tokenizer
        self._by_id: dict[int, tuple[bytes, str, bool]] = {}

    # Encoding's fields, as views
    @property
    def ids(self):  # type: ignore[override]
        return self._ids

    @property
    def offsets(self):  # type: ignore[override]
        return _Column(len(self), lambda i: (int(self.starts[i]), int(self.ends[i])))

    @property
    def token_bytes(self):  # type: ignore[override]
        return _Column(len(self), lambda i: self._facts(i)[0])

    @property
    def pieces(self):  # type: ignore[override]
        return _Column(len(self), lambda i: self._facts(i)[1])

    @property
    def special(self):  # type: ignore[override]
        return _Column(len(self), lambda i: bool(self.special_mask[i]))

    @property
    def partial(self):  # type: ignore[override]
        return _Column(len(self), lambda i: self._facts(i)[2] and not self.special_mask[i])

    def __len__(self) -> int:
        return len(self._ids)

    def _facts(self, i: int) -> tuple[bytes, str, bool]:
        token_id = int(self._ids[i])
        facts = self._by_id.get(token_id)
        if facts is None:
            from .tokenizer import _is_partial

            tok = self.tokenizer
            data = tok.token_bytes(token_id)
            facts = self._by_id[token_id] = (data, tok.id_to_token(token_id) or "", _is_partial(data))
        return facts

    def token_at(self, char_index: int) -> int | None:
        """Index of the first token whose span covers character `char_index`, or None."""
        k = int(np.searchsorted(self.starts, char_index, side="right"))
        for i in range(max(0, k - 8), min(len(self), k + 1)):  # (partial tokens share a span)
            if self.starts[i] <= char_index < self.ends[i]:
                return i
        return None

    cached_blocks: Blocks | None = None  # set by prepare_blocks (e.g. on a worker thread)

    def prepare_blocks(self, max_tokens: int = 512) -> Blocks:
        """Compute the layout blocks once, so the view need not (for a huge document, on a
        worker thread rather than the UI thread)."""
        self.cached_blocks = layout_blocks(self.text, self.starts, self.ends, max_tokens)
        return self.cached_blocks

    def nbytes(self) -> int:
        """Memory held by the arrays (not the text)."""
        return self._ids.nbytes + self.starts.nbytes + self.ends.nbytes + self.special_mask.nbytes

    def __eq__(self, other):
        if not isinstance(other, Encoding):
            return NotImplemented
        return (self.text == other.text and list(self.ids) == list(other.ids)
                and list(self.offsets) == [tuple(o) for o in other.offsets]
                and list(self.special) == list(other.special))

    __hash__ = None

    def __repr__(self) -> str:
        return f"<TokenArray {len(self):,} tokens of {len(self.text):,} characters>"


class TokenArrayBuilder:
    """Collects the encodings of consecutive pieces of a text (each with the character where it
    starts) into one TokenArray."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self._texts: list[str] = []
        self._parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = []
        self.chars = 0
        self.tokens = 0

    def add(self, encoding: Encoding, char_start: int) -> None:
        """Add the tokens of a piece that starts at character `char_start` of the whole text (the
        pieces come in order and without gaps)."""
        if char_start != self.chars:
            raise ValueError(f"piece starts at character {char_start}, expected {self.chars}")
        starts, ends = offsets_arrays(encoding)
        special = None if isinstance(encoding, LazyEncoding) else np.asarray(encoding.special, dtype=bool)
        self._texts.append(encoding.text)
        self._parts.append((char_start, np.asarray(encoding.ids, dtype=np.uint32), starts, ends, special))
        self.chars += len(encoding.text)
        self.tokens += len(encoding)

    def build(self) -> TokenArray:
        n = self.tokens
        offset_type = _offset_type(self.chars)
        ids = np.empty(n, np.uint32)
        starts = np.empty(n, offset_type)
        ends = np.empty(n, offset_type)
        special = np.zeros(n, bool)
        k = 0
        for base, part_ids, part_starts, part_ends, part_special in self._parts:
            m = len(part_ids)
            ids[k : k + m] = part_ids
            np.add(part_starts, base, out=starts[k : k + m], casting="unsafe")
            np.add(part_ends, base, out=ends[k : k + m], casting="unsafe")
            if part_special is not None:
                special[k : k + m] = part_special
            k += m
        return TokenArray(join_text(self._texts), ids, starts, ends, special, self.tokenizer)


def encode_to_array(tok, text: str, *, add_special_tokens: bool = False, allow_special: bool | None = None,
                    piece_chars: int = PIECE_CHARS) -> TokenArray:
    """`tok.encode(text, ...)` as a TokenArray: the same ids, offsets and special flags.

    A long text is encoded piece by piece, cut where the encoding provably does not depend on
    what follows (`core.streaming.safe_cuts`), so that neither a Python object per token for the
    whole text nor one long normalizer or regex call holding the GIL is ever needed: each piece's
    Encoding is turned into arrays and dropped.  A text that cannot be cut (a sentencepiece
    normalizer, an untrusted pipeline, special-token matching other than the tokenizer's default)
    is encoded whole."""
    from .streaming import safe_cuts, stream_plan

    wrap = add_special_tokens and tok.post_processor is not None
    cuttable = (len(text) > 4 * piece_chars and tok.text_normalizer is None
                and (allow_special is None or allow_special == tok.special_in_text) and stream_plan(tok) is None)
    if not cuttable:
        enc = tok.encode(text, add_special_tokens=add_special_tokens, allow_special=allow_special)
        starts, ends = offsets_arrays(enc)
        special = np.zeros(len(enc), bool) if isinstance(enc, LazyEncoding) else enc.special
        return TokenArray(text, enc.ids, starts, ends, special, tok)
    builder = TokenArrayBuilder(tok)
    start = 0
    for end in [*safe_cuts(tok, text, piece_chars), len(text)]:
        if end > start:
            builder.add(tok.encode(text[start:end], allow_special=allow_special), start)
            start = end
    body = builder.build()
    if not wrap:
        return body
    before, after = tok.post_processor.wrap()
    n_before, n_after, end = len(before), len(after), len(text)
    ids = np.concatenate([np.array([i for i, _ in before], np.uint32), body.ids,
                          np.array([i for i, _ in after], np.uint32)])
    starts = np.concatenate([np.zeros(n_before, body.starts.dtype), body.starts, np.full(n_after, end, body.starts.dtype)])
    ends = np.concatenate([np.zeros(n_before, body.ends.dtype), body.ends, np.full(n_after, end, body.ends.dtype)])
    special = np.concatenate([np.ones(n_before, bool), body.special_mask, np.ones(n_after, bool)])
    return TokenArray(body.text, ids, starts, ends, special, tok)


def join_text(pieces: list[str]) -> str:
    """"".join(pieces), on a worker thread without stalling the others: tokviz._textjoin copies
    the characters without holding the GIL (a 50 MB text is ~100 ms of copying)."""
    try:
        from .. import _textjoin
    except ImportError:
        return "".join(pieces)
    return _textjoin.join(pieces)


def _offset_type(chars: int):
    return np.int32 if chars < 2**31 - 1 else np.int64


# Offsets read into the array per slice: numpy reads a list holding the GIL (60,000 pairs: 8 ms here).
OFFSETS_CHUNK = 4096


def offsets_arrays(encoding: Encoding) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of an encoding's tokens as int64 arrays in text order, without a Python
    object per token where the encoding has them packed.

    An empty span behind the text already covered (a post-processor's closing special token,
    which has (0, 0) as in HF tokenizers) is placed where the token stands: after that text."""
    if isinstance(encoding, TokenArray):
        return encoding.starts, encoding.ends
    packed = encoding.__dict__.get("_packed") if isinstance(encoding, LazyEncoding) else None
    if packed is not None and "offsets" not in encoding.__dict__:
        pairs = np.frombuffer(packed, dtype=np.int32).reshape(-1, 2).astype(np.int64)
        return pairs[:, 0].copy(), pairs[:, 1].copy()
    if not len(encoding):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    offsets = encoding.offsets
    pairs = np.empty((len(offsets), 2), np.int64)
    for at in range(0, len(offsets), OFFSETS_CHUNK):
        pairs[at:at + OFFSETS_CHUNK] = offsets[at:at + OFFSETS_CHUNK]
    starts, ends = pairs[:, 0].copy(), pairs[:, 1].copy()
    covered = np.maximum.accumulate(ends)
    behind = np.zeros_like(starts)
    behind[1:] = covered[:-1]
    move = (starts == ends) & (starts < behind)
    if move.any():
        starts[move] = ends[move] = behind[move]
    return starts, ends


def newline_positions(text: str, chunk_chars: int = 1 << 20) -> np.ndarray:
    """Sorted character positions of every '\\n' in `text` (int64), in slices of `chunk_chars` so a
    worker thread gives the GIL back often on a big text."""
    found = []
    for base in range(0, len(text), chunk_chars):
        part = text[base : base + chunk_chars]
        if "\n" not in part:
            continue
        codes = np.frombuffer(part.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        found.append(np.flatnonzero(codes == 10) + base)
    return np.concatenate(found) if found else np.zeros(0, np.int64)


@dataclass(frozen=True)
class Blocks:
    """A document cut into layout blocks: block b holds tokens first[b] .. first[b + 1] - 1 and the
    characters chars[b] .. chars[b + 1] - 1 (source text no token covers trails the block before
    it); `lines[b]` is how many newlines those characters hold.  first and chars end with
    sentinels (the token count, the text length)."""

    first: np.ndarray
    chars: np.ndarray
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.first) - 1

    def of_token(self, index: int) -> int:
        return int(np.searchsorted(self.first, index, side="right")) - 1

    def of_char(self, char_index: int) -> int:
        return max(0, int(np.searchsorted(self.chars, char_index, side="right")) - 1)


def layout_blocks(text: str, starts: np.ndarray, ends: np.ndarray, max_tokens: int = 512,
                  newlines: np.ndarray | None = None) -> Blocks:
    """Cut a document into layout blocks (see the module docstring)."""
    n = len(starts)
    nl = newline_positions(text) if newlines is None else newlines
    if n == 0:
        chars = np.array([0, len(text)], np.int64)
        return Blocks(np.array([0, 0], np.int64), chars, np.array([len(nl)], np.int64))
    # characters covered by the tokens before each token (ends are nearly always in order already)
    before = np.empty(n, ends.dtype)
    before[0] = 0
    before[1:] = ends[:-1]
    if n > 1 and not (ends[1:] >= ends[:-1]).all():
        before[1:] = np.maximum.accumulate(ends)[:-1]
    # tokens that start right after a newline no earlier token still covers
    after = (nl + 1).astype(starts.dtype)  # (the same dtype: else searchsorted copies `starts`)
    cand = np.searchsorted(starts, after)
    inside = cand < n
    cand, after = cand[inside], after[inside]
    cand = cand[starts[cand] == after]
    cand = cand[(starts[cand] >= before[cand]) & (cand > 0)]
    first = np.concatenate(([0], cand)).astype(np.int64)  # (sorted and distinct, as nl is)
    # long runs without a line start: extra cuts every max_tokens tokens
    lengths = np.diff(np.append(first, n))
    extra = lengths > max_tokens
    if extra.any():
        cuts = [first]
        for f, length in zip(first[extra], lengths[extra]):
            cuts.append(np.arange(f + max_tokens, f + length, max_tokens, dtype=np.int64))
        first = np.sort(np.concatenate(cuts))
    chars = np.maximum(starts[first], before[first])
    chars[0] = 0
    first = np.append(first, n).astype(np.int64)
    chars = np.append(chars, len(text)).astype(np.int64)
    lines = np.diff(np.searchsorted(nl, chars))
    return Blocks(first, chars, lines)
