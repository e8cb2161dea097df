r"""Encoding a file larger than memory: read it in chunks, cut the text where tokenization provably
does not depend on what follows, encode piece by piece.

    >>> ids = encode_file(tok, "big.txt", progress=lambda done, total: print(done, total))
    >>> ids == array("I", tok.encode(open("big.txt", encoding="utf-8").read()).ids)
    True

Where the text is cut
---------------------
Between a letter and a following ``' '`` (U+0020) that is itself followed by a letter
("word| word").  For the pipelines tokviz knows this is a boundary the whole-text encoding has too,
and everything on each side of it is encoded the same way alone:

* regex pre-tokenizers (GPT-2, cl100k, o200k, Qwen, Llama 3 and the demo tokenizer's pattern, any
  ``Split`` without look-behind, isolated or removed): no alternative matches a letter followed by a
  space (letter runs stop at the space; the whitespace alternatives start at it), the only
  look-ahead (``\s+(?!\S)``) belongs to whitespace runs, and a match starting at the space sees
  the same text either way, so the pre-token before the cut ends at it and the one after starts
  at it.  Each pre-token is then encoded on its own by the model.
* ``ByteLevel`` (also with add_prefix_space: the second piece already starts with a space),
  ``Bert``/``Whitespace``/``WhitespaceSplit``/``Punctuation``/``Digits`` pre-tokenizers, and
  ``Metaspace`` that splits on its replacement: a space is always a split point.
* normalizers NFC/NFD/NFKC/NFKD, Lowercase, StripAccents, Bert: per character, and nothing
  composes across a space.  Others (Replace, Prepend, Strip, Precompiled...) are not trusted.
* sentencepiece (whole-text normalizer with add_dummy_prefix and remove_extra_whitespaces): "a b"
  normalizes to "▁a▁b", and "a" + " b" to "▁a" + "▁b": the same.  No vocabulary piece holds '▁'
  except as its first character (checked), so no piece of the segmentation crosses the cut.
* added tokens: a cut is skipped where an added token containing a space spans it, or an lstrip /
  rstrip token next to it would swallow the space.

Text without spaces (Chinese, Japanese) is also cut after a newline that follows a non-space
character and precedes a letter ("。\n|中"), for every pipeline above except Metaspace (which does
not split at a newline) and a sentencepiece normalizer that keeps newlines (the newline must become
the '▁' separator).  The regex argument is the same: the newline ends a pre-token in every pattern
(``\s*[\r\n]``, ``\s+(?!\S)|\s+``, ``[^\s\p{L}\p{N}]+[\r\n]*`` all stop before the letter, and
the optional one-character prefix of a letter run excludes ``\r\n``).

The rule is also checked on a few probe strings when a tokenizer is first streamed.  A tokenizer
whose pipeline is not in this list is not cut at all: the file is read whole, up to
`max_chunk_bytes` (memory is then proportional to the file; `stream_plan(tok)` says which case
applies), and a larger file is refused with a TokvizError.

Memory and results
------------------
The text in memory is one read chunk (`chunk_bytes`) plus the tail carried to the next cut.  A text
with no usable cut for `max_chunk_bytes` (one endless word, e.g. a huge base64 blob or Chinese text
without any space) raises TokvizError rather than growing without bound.

Ids are returned as ``array('I')`` (4 bytes per token, not a list of Python ints).  With
`on_chunk`, each piece's Encoding is handed over as a `Chunk` and not kept; pass ``keep_ids=False``
too and nothing at all grows with the file (the return value is then None).

Cancellation (`cancel` is a callable returning True, or a threading.Event) is checked before every
piece (pieces are ~`piece_chars` characters, a few tens of milliseconds of work), or before each
batch of a read chunk's pieces with `encode_many`, and raises `Cancelled`, which carries how far it
got.

A UTF-8 byte-order mark at the start of the file is skipped, as `tokviz.gui.window.files.read_text_file`
does.  Special tokens of a post-processor are not added (this is the text's own tokens).
"""
from __future__ import annotations

import os
from array import array
from collections.abc import Callable
from dataclasses import dataclass

import regex

from .. import errors
from ..errors import TokvizError
from ..paths import open_regular, os_error_reason, other_unicode_message, unicode_encoding
from .encoding import Encoding

__all__ = ["Cancelled", "Chunk", "encode_file", "last_cut", "stream_plan", "safe_cuts"]

# Cuts: before the space in letter ' ' letter; with newline cuts also after a newline that follows
# a non-space and precedes a letter.
_SPACE_CUT = r"(?<=\p{L}) (?=\p{L})"
NEWLINE_CUT = r"(?<=\S\n)(?=\p{L})"
_CUTS = {
    False: (regex.compile(_SPACE_CUT), regex.compile("(?r)" + _SPACE_CUT)),
    True: (regex.compile(f"{_SPACE_CUT}|{NEWLINE_CUT}"), regex.compile(f"(?r){_SPACE_CUT}|{NEWLINE_CUT}")),
}

_NEWLINE_PROBES = [
    ("你好。\n", "世界"),
    ("word\n", "Next one"),
    ("x.\n", "y"),
    ("end of line\n", "start"),
]

_PROBES = [
    ("hello", " world"),
    ("Hello", " World and more"),
    ("it's", " done"),
    ("the end.\n\nAnd", " then"),
    ("中文", " 字符"),
    ("Größe", " Straße"),
    ("x", " y"),
    ("don", " t"),
]


class Cancelled(errors.Cancelled):
    """`encode_file` stopped because `cancel` said so.  `bytes_done` of `total_bytes` were encoded;
    `ids` holds their ids (when ids were being kept)."""

    def __init__(self, bytes_done: int, total_bytes: int, ids: array | None = None):
        super().__init__(f"cancelled after {bytes_done:,} of {total_bytes:,} bytes")
        self.bytes_done = bytes_done
        self.total_bytes = total_bytes
        self.ids = ids


@dataclass(frozen=True)
class Chunk:
    """One encoded piece of a file: `encoding.offsets` are relative to the piece, which starts at
    character `char_start` and byte `byte_start` of the file."""

    encoding: Encoding
    char_start: int
    byte_start: int


# ---- which tokenizers can be cut ------------------------------------------------------------------

_SAFE_NORMALIZERS = {"UnicodeForm", "Lowercase", "StripAccents", "BertNormalizer"}
_SAFE_PRE_TOKENIZERS = {"ByteLevel", "BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Punctuation", "Digits"}


def _normalizer_ok(norm) -> str | None:
    if norm is None:
        return None
    name = type(norm).__name__
    if name == "Sequence":
        for n in norm.normalizers:
            why = _normalizer_ok(n)
            if why:
                return why
        return None
    return None if name in _SAFE_NORMALIZERS else f"normalizer {name} is not known to be local"


def _pre_tokenizer_ok(pre) -> str | None:
    if pre is None:
        return "no pre-tokenizer: the model sees the whole text at once"
    name = type(pre).__name__
    if name == "Sequence":
        whys = [_pre_tokenizer_ok(p) for p in pre.pre_tokenizers]
        return next((w for w in whys if w), None)
    if name == "Split":
        if pre.behavior not in ("Isolated", "Removed") or pre.invert:
            return f"Split with behavior {pre.behavior}{' (inverted)' if pre.invert else ''}"
        if "(?<" in pre.pattern:
            return "the split pattern has a look-behind"
        return None
    if name == "Metaspace":
        return None if pre.split_on_replacement else "Metaspace without splitting on the replacement"
    return None if name in _SAFE_PRE_TOKENIZERS else f"pre-tokenizer {name} is not known to be cuttable"


def _sentencepiece_ok(tokenizer) -> str | None:
    norm = tokenizer.text_normalizer
    if type(norm).__name__ != "SentencePieceNormalizer":
        return "unknown whole-text normalizer"
    if norm.treat_whitespace_as_suffix or not norm.escape_whitespaces:
        return "sentencepiece whitespace options"
    if norm.add_dummy_prefix != norm.remove_extra_whitespaces:
        return "sentencepiece add_dummy_prefix without remove_extra_whitespaces (or the reverse)"
    symbols = [s for group in (norm.user_defined.by_first.values() if norm.user_defined else ()) for s in group]
    if any(" " in s or "▁" in s for s in symbols):
        return "a user-defined symbol holds a space"
    model = tokenizer.model
    for i in range(model.vocab_size):
        piece = model.id_to_token(i)
        if piece and "▁" in piece[1:]:
            return f"vocabulary piece {piece!r} holds '▁' inside"
    return None


def _probe(tokenizer, probes) -> str | None:
    for left, right in probes:
        whole = tokenizer.encode(left + right).ids
        parts = tokenizer.encode(left).ids + tokenizer.encode(right).ids
        if whole != parts:
            return f"probe {left + right!r} encodes differently when cut"
    return None


def _has_metaspace(pre) -> bool:
    if pre is None:
        return False
    if type(pre).__name__ == "Sequence":
        return any(_has_metaspace(p) for p in pre.pre_tokenizers)
    return type(pre).__name__ == "Metaspace"


def newline_cuts_ok(tokenizer) -> bool:
    """Whether the newline cut applies too (see the module docstring); stream_plan must be None."""
    if tokenizer.text_normalizer is not None:
        normalized = tokenizer.text_normalizer.normalize_spans("a\nb")[0]
        if normalized != "▁a▁b":
            return False
    elif _has_metaspace(tokenizer.pre_tokenizer):
        return False
    return _probe(tokenizer, _NEWLINE_PROBES) is None


def cut_patterns(tokenizer):
    """(forward, reverse) regexes of the cut positions for `tokenizer`, or None if it cannot be cut."""
    cached = getattr(tokenizer, "_stream_cuts", False)
    if cached is not False:
        return cached
    cuts = None if stream_plan(tokenizer) is not None else _CUTS[newline_cuts_ok(tokenizer)]
    try:
        tokenizer._stream_cuts = cuts
    except AttributeError:
        pass
    return cuts


def stream_plan(tokenizer) -> str | None:
    """None when `encode_file` can cut text for `tokenizer` (see the module docstring), else the
    reason it reads files whole.  Cached on the tokenizer."""
    cached = getattr(tokenizer, "_stream_plan", False)
    if cached is not False:
        return cached
    if tokenizer.text_normalizer is not None:
        why = _sentencepiece_ok(tokenizer)
    else:
        why = _normalizer_ok(tokenizer.normalizer) or _pre_tokenizer_ok(tokenizer.pre_tokenizer)
    why = why or _probe(tokenizer, _PROBES)
    try:
        tokenizer._stream_plan = why
    except AttributeError:
        pass
    return why


class AddedGuard:
    """Rejects cuts an added token would straddle or swallow."""

    def __init__(self, tokenizer):
        toks = [t for t in tokenizer.added.tokens if t.content and (tokenizer.special_in_text or not t.special)]
        norm = tokenizer.normalizer
        spaced = [t for t in toks if " " in t.content or "\n" in t.content]
        self.spanning = [t.content for t in spaced if not (t.normalized and norm)]
        # tokens matched in normalized text: looked for in the normalized neighbourhood
        self.spanning_normalized = [t.content for t in spaced if t.normalized and norm]
        self.normalize = norm.normalize_str if norm else None
        self.lstrip = tuple(t.content for t in toks if t.lstrip)
        self.rstrip = tuple(t.content for t in toks if t.rstrip)
        self.active = bool(self.spanning or self.spanning_normalized or self.lstrip or self.rstrip)

    def ok(self, text: str, cut: int) -> bool:
        """False if an added token near `cut` could change the tokens there (conservatively: the
        separator is the space after `cut` or the newline before it)."""
        if self.lstrip and (text.startswith(self.lstrip, cut) or text.startswith(self.lstrip, cut + 1)):
            return False
        if self.rstrip and (text[:cut].endswith(self.rstrip) or text[: max(0, cut - 1)].endswith(self.rstrip)):
            return False
        for s in self.spanning_normalized:
            # the normalizers allowed here are local, so each side normalizes on its own
            left = self.normalize(text[max(0, cut - 2 * len(s)) : cut])
            joined = left + self.normalize(text[cut : cut + 2 * len(s)])
            if _spans(joined, s, len(left)):
                return False
        return not any(_spans(text, s, cut) for s in self.spanning)


def _spans(text: str, s: str, cut: int) -> bool:
    """Whether an occurrence of `s` in `text` starts before `cut` and ends after it."""
    k = text.find(s, max(0, cut - len(s) + 1), cut + len(s))
    while k != -1 and k < cut:
        if k + len(s) > cut:
            return True
        k = text.find(s, k + 1, cut + len(s))
    return False


def safe_cuts(tokenizer, text: str, every: int):
    """Cut positions in `text`, about `every` characters apart (each at least `every` after the
    previous one), where `text` can be split for `tokenizer`.  Empty if it cannot be cut at all."""
    cuts = cut_patterns(tokenizer)
    if cuts is None:
        return
    guard = AddedGuard(tokenizer)
    pos = every
    while pos < len(text):
        m = cuts[0].search(text, pos)
        if m is None:
            return
        c = m.start()
        if guard.active and not guard.ok(text, c):
            pos = c + 1
            continue
        yield c
        pos = c + every


def last_cut(text: str, tokenizer=None) -> int:
    """The last position where `text` may be cut for `tokenizer` (None: for any tokenizer that
    `encode_file` cuts, ignoring added tokens), 0 if none.  The explorer ends its preview of a big
    file there."""
    if tokenizer is None:
        m = _CUTS[False][1].search(text)
        return m.start() if m else 0
    cuts = cut_patterns(tokenizer)
    return _last_cut(cuts, AddedGuard(tokenizer), text) if cuts else 0


def _last_cut(cuts, guard: AddedGuard, text: str) -> int:
    """The last usable cut in `text` (0 if none)."""
    end = len(text)
    while True:
        m = cuts[1].search(text, 0, end)
        if m is None:
            return 0
        c = m.start()
        if not guard.active or guard.ok(text, c):
            return c
        end = c


# ---- reading ---------------------------------------------------------------------------------------


def _refuse_other_unicode(fh, path: str) -> None:
    """Refuse a file that is not UTF-8 because it is UTF-16 or UTF-32 text, naming the encoding
    (its first bytes tell, wherever in the file the reading stopped)."""
    try:
        head = os.pread(fh.fileno(), 4096, 0)
    except (OSError, AttributeError):  # (no pread: Windows)
        return
    encoding = unicode_encoding(head)
    if encoding is not None:
        raise TokvizError(other_unicode_message(encoding, "encodes"), path)


def utf8_tail(data: bytes) -> int:
    """How many bytes at the end of `data` start a UTF-8 sequence that is not complete yet."""
    n = len(data)
    for back in range(1, min(4, n) + 1):
        b = data[n - back]
        if b & 0xC0 != 0x80:  # a lead byte (or ASCII)
            need = 1 if b < 0x80 else 2 if b >> 5 == 0b110 else 3 if b >> 4 == 0b1110 else 4 if b >> 3 == 0b11110 else 1
            return back if need > back else 0
    return 0


def is_cancelled(cancel) -> bool:
    """Whether `cancel` (None, a callable or an Event) says stop."""
    if cancel is None:
        return False
    is_set = getattr(cancel, "is_set", None)
    return bool(is_set() if is_set is not None else cancel())


def encode_file(
    tokenizer,
    path: str | os.PathLike,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancel=None,
    chunk_bytes: int = 1 << 20,
    on_chunk: Callable[[Chunk], None] | None = None,
    keep_ids: bool = True,
    piece_chars: int = 32 * 1024,
    max_chunk_bytes: int = 64 << 20,
    allow_nul: bool = False,
    start: int = 0,
    end: int | None = None,
    encode_many: Callable | None = None,
) -> array | None:
    """Encode a UTF-8 file in bounded memory; the ids equal ``tokenizer.encode(whole_text).ids``.

    progress(bytes_done, total_bytes): after every piece, and (total, total) at the end.
    cancel: a callable or threading.Event, checked before every piece; raises `Cancelled`.
    chunk_bytes: bytes read at a time.  piece_chars: characters encoded at a time.
    on_chunk(Chunk): receives each piece's Encoding (not kept).  keep_ids=False (only with on_chunk):
    return None and keep nothing.  Raises TokvizError naming the file when it cannot be read or is
    not UTF-8 (with the byte offset), or when no cut is found within `max_chunk_bytes`.
    A NUL byte anywhere marks a binary file, refused with its offset (allow_nul=True: encoded).
    start, end: encode only bytes [start, end) of the file (a safe cut at both ends, e.g. from
    tokviz.cluster.ranges); progress and Chunk.byte_start then count from `start`.
    encode_many: what makes the Encodings for on_chunk of a list of pieces at once (a batch on
    several threads; default tokenizer.encode of each piece; a caller that needs only some fields
    may return less): it gets every piece of a read chunk together, and on_chunk still gets them
    one by one, in order."""
    path = os.fspath(path)
    fh = open_regular(path, "a text file")
    try:
        size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        fh.close()
        raise TokvizError(os_error_reason(exc), path) from None
    end = size if end is None else min(end, size)
    total = max(0, end - start)
    if on_chunk is None:
        keep_ids = True  # else there would be nothing to show for the work
    ids = array("I") if keep_ids else None
    encode_ids = getattr(tokenizer, "encode_ids", None) or (lambda t: tokenizer.encode(t).ids)
    why_whole = stream_plan(tokenizer)
    cuttable = why_whole is None
    if not cuttable and total > max_chunk_bytes:
        fh.close()
        raise TokvizError(
            f"this tokenizer's text cannot be cut safely ({why_whole}), and the file is too large to encode "
            f"whole ({total / 2**20:.0f} MB, limit {max_chunk_bytes / 2**20:.0f} MB)",
            path,
        )
    guard = AddedGuard(tokenizer)
    cuts = cut_patterns(tokenizer)
    state = {"bytes": 0, "chars": 0}

    def check_cancel() -> None:
        if is_cancelled(cancel):
            raise Cancelled(state["bytes"], total, ids)

    def pieces_of(text: str) -> list[str]:
        bounds = [0] + (list(safe_cuts(tokenizer, text, piece_chars)) if cuttable else []) + [len(text)]
        return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]

    def done(piece: str, enc) -> None:
        if on_chunk is None:
            ids.extend(enc)  # (ids only)
        else:
            if ids is not None:
                ids.extend(enc.ids)
            on_chunk(Chunk(enc, state["chars"], state["bytes"]))
        state["chars"] += len(piece)
        state["bytes"] += len(piece.encode("utf-8"))
        if progress is not None:
            progress(state["bytes"], total)

    def emit(text: str) -> None:
        """Encode `text` (which ends at a cut or at the end of the file), piece by piece (or all
        its pieces in one batch)."""
        pieces = pieces_of(text)
        if encode_many is not None and on_chunk is not None:
            check_cancel()
            for piece, enc in zip(pieces, encode_many(pieces), strict=True):
                done(piece, enc)
            return
        for piece in pieces:
            check_cancel()
            done(piece, encode_ids(piece) if on_chunk is None else tokenizer.encode(piece))

    with fh:
        carry_bytes = b""
        pending = ""
        pending_bytes = 0  # bytes of the file behind `pending`
        offset = start  # file offset of the next read
        first = start == 0  # (a byte-order mark only at the start of the file)
        if start:
            fh.seek(start)
        while True:
            check_cancel()
            try:
                data = fh.read(min(chunk_bytes, end - offset))
            except OSError as exc:
                raise TokvizError(f"cannot read the file at byte {offset}: {exc.strerror or exc}", path) from None
            eof = not data
            block_start = offset - len(carry_bytes)
            offset += len(data)
            data = carry_bytes + data
            keep = 0 if eof else utf8_tail(data)
            carry_bytes = data[len(data) - keep:] if keep else b""
            body = data[: len(data) - keep] if keep else data
            if first and body:
                first = False
                if body.startswith(b"\xef\xbb\xbf"):
                    body = body[3:]
                    block_start += 3
                    state["bytes"] += 3
            if not allow_nul and (nul := body.find(b"\x00")) >= 0:
                _refuse_other_unicode(fh, path)
                raise TokvizError(
                    f"this looks like a binary file, not text: a NUL byte at offset {block_start + nul}", path
                )
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError as exc:
                _refuse_other_unicode(fh, path)
                where = block_start + exc.start
                raise TokvizError(
                    f"not UTF-8 text: byte 0x{body[exc.start]:02x} at offset {where} is not valid UTF-8", path
                ) from None
            pending += text
            pending_bytes += len(body)
            if eof:
                if pending:
                    emit(pending)
                break
            if not cuttable:
                continue  # read whole: see stream_plan
            cut = _last_cut(cuts, guard, pending)
            if cut == 0:
                if pending_bytes > max_chunk_bytes:
                    raise TokvizError(
                        f"no place to cut the text safely for this tokenizer in {pending_bytes / 2**20:.0f} MB "
                        f"from byte {state['bytes']} (a word that long cannot be streamed; encode it whole)",
                        path,
                    )
                continue
            head, pending = pending[:cut], pending[cut:]
            pending_bytes -= len(head.encode("utf-8"))
            emit(head)
    if progress is not None:
        progress(total, total)
    return ids
