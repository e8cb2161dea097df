"""The optional C encoder for byte-level BPE (tokviz._native), and when a tokenizer can use it.

    >>> import tokviz.native
    >>> tokviz.native.available, tokviz.native.reason
    (True, '')

The Python pipeline in tokviz.core is the definition; the native encoder replaces its
pre-tokenizer + model stage for one plain-text segment (the Tokenizer still normalizes the text and
splits off added tokens in Python) and gives the same ids and offsets.  It is used when:

- the model is a BPE over a complete byte-level vocabulary (all 256 bytes are tokens), without
  byte fallback, unknown token, or continuing-subword prefix / end-of-word suffix;
- the pre-tokenizer ends in ByteLevel (add_prefix_space off).  A Split on a known pattern
  (tokviz.core.patterns: GPT-2/r50k/p50k, cl100k, o200k, Llama-3, Qwen2) or ByteLevel's own regex
  is done natively; any other pre-tokenizers before the ByteLevel cut the text in Python
  ("regex fallback") and the pieces are still merged natively.

Set TOKVIZ_PURE_PYTHON=1 (or call Tokenizer.use_native(False)) to stay on the Python path.
"""
from __future__ import annotations

import os
from array import array

from ..core import patterns as _patterns
from ..core import pre_tokenizers as _pre
from ..core.bytelevel import unicode_to_bytes

try:
    from .. import _native
except ImportError as exc:  # not built (no compiler at install time) or built for another Python
    _native = None
    available = False
    reason = f"the C extension tokviz._native is not importable: {exc}"
else:
    available = True
    reason = ""

if available and os.environ.get("TOKVIZ_PURE_PYTHON", "") not in ("", "0"):
    available = False
    reason = "disabled by TOKVIZ_PURE_PYTHON"

# sentencepiece piece records read in C (formats/sentencepiece.py), or None.
sp_pieces = getattr(_native, "sp_pieces", None) if available else None


def _pattern_ids() -> dict[str, int]:
    if _native is None:
        return {}
    return {
        _patterns.GPT2_PATTERN: _native.PAT_GPT2,
        _patterns.R50K_PATTERN: _native.PAT_GPT2,  # the possessive spelling cuts the same pieces
        _patterns.CL100K_PATTERN: _native.PAT_CL100K,
        _patterns.O200K_PATTERN: _native.PAT_O200K,
        _patterns.LLAMA3_PATTERN: _native.PAT_LLAMA3,
        _patterns.QWEN2_PATTERN: _native.PAT_QWEN2,
    }


PATTERN_IDS = _pattern_ids()
PATTERN_NAMES = {0: "none", 1: "gpt2", 2: "cl100k", 3: "o200k", 4: "llama3", 5: "qwen2"}


class NativeEncoder:
    """A tokviz._native.Encoder plus the Python pre-tokenizers that run before it (if any).

    encode_segment(ns) -> (ids, offsets) for one NormalizedString, offsets into the original text.
    """

    def __init__(self, encoder, python_split: list, pattern_name: str):
        self.encoder = encoder
        self.python_split = python_split  # pre-tokenizers to run in Python first ([] when none)
        self.pattern_name = pattern_name

    def describe(self) -> str:
        if self.python_split:
            return "native BPE, pre-tokenizer in Python (regex fallback)"
        return f"native ({self.pattern_name} scanner)"

    def _pieces(self, seg):
        if not self.python_split:
            return [seg]
        pieces = [seg]
        for p in self.python_split:
            pieces = p.pre_tokenize(pieces)
        return pieces

    def encode_segment(self, seg, with_offsets: bool = True):
        """ids (and offsets into the original text) of one normalized segment."""
        encode = self.encoder.encode
        if not self.python_split and seg.is_identity:
            return encode(seg.text, seg.base, with_offsets)
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        for piece in self._pieces(seg):
            if not piece.text:
                continue
            if not with_offsets:
                ids.extend(encode(piece.text, 0, False))
            elif piece.is_identity:
                i, o = encode(piece.text, piece.base, True)
                ids.extend(i)
                offsets.extend(o)
            else:
                i, o = encode(piece.text, 0, True)
                span = piece.original_span
                ids.extend(i)
                offsets.extend(span(a, b) for a, b in o)
        return (ids, offsets) if with_offsets else ids

    def encode_many(self, segments, threads: int, with_offsets: bool = True, packed: bool = False):
        """encode_segment over many segments, the native work on `threads` threads at once.

        packed=True: (ids, offsets packed as int32 pairs relative to the segment's text) for each
        segment, to be turned into offsets by `unpack` (or read lazily)."""
        if self.python_split:
            results = [self.encode_segment(s, with_offsets) for s in segments]
            if packed:
                results = [(ids, _pack(offs)) for ids, offs in results]
            return results
        results = self.encoder.encode_many([s.text for s in segments], threads, 2 if with_offsets or packed else 0)
        if packed or not with_offsets:
            return results
        return [self.unpack(seg, ids, offs) for seg, (ids, offs) in zip(segments, results)]

    def unpack(self, seg, ids, packed):
        """(ids, offsets in the original text) from a packed result for the segment `seg`."""
        pairs = memoryview(packed).cast("i")
        starts, ends = pairs[0::2], pairs[1::2]
        if self.python_split:  # already original offsets (see encode_many)
            return ids, list(zip(starts, ends))
        if seg.is_identity:
            base = seg.base
            return ids, [(a + base, b + base) for a, b in zip(starts, ends)]
        span = seg.original_span
        return ids, [span(a, b) for a, b in zip(starts, ends)]


def _pack(offsets) -> bytes:
    flat = array("i")
    for a, b in offsets:
        flat.append(a)
        flat.append(b)
    return flat.tobytes()


def _flatten(pre) -> list:
    if isinstance(pre, _pre.Sequence):
        out = []
        for p in pre.pre_tokenizers:
            out.extend(_flatten(p))
        return out
    return [pre]


def unsupported(tokenizer) -> str | None:
    """Why `tokenizer` cannot use the native encoder, or None when it can."""
    from ..core.models.bpe import BPE

    if _native is None:
        return reason
    model = tokenizer.model
    if type(model) is not BPE:  # (a subclass may change how pieces are merged)
        return f"the model is {model.kind} ({type(model).__name__}), not tokviz's BPE"
    if not tokenizer.byte_level:
        return "not a byte-level tokenizer"
    if model.byte_fallback or model.unk_token is not None or model.prefix or model.suffix:
        return "BPE with byte fallback, unk token, prefix or suffix"
    pres = _flatten(tokenizer.pre_tokenizer)
    last = pres[-1]
    if not isinstance(last, _pre.ByteLevel) or last.add_prefix_space:
        return "the pre-tokenizer does not end in ByteLevel without a prefix space"
    if any(p.byte_level for p in pres[:-1]):
        return "more than one byte-level pre-tokenizer"
    return None


def _plan(pres: list) -> tuple[list, int]:
    """(pre-tokenizers to run in Python, native pattern id) for a pipeline ending in ByteLevel."""
    last = pres[-1]
    before = pres[:-1]
    if last.use_regex:
        return before, _native.PAT_GPT2
    if (
        len(before) == 1
        and isinstance(before[0], _pre.Split)
        and before[0].behavior == "Isolated"
        and not before[0].invert
        and before[0].is_regex
        and before[0].pattern in PATTERN_IDS
    ):
        return [], PATTERN_IDS[before[0].pattern]
    return before, _native.PAT_NONE


def _tables(model) -> tuple[list, array | None] | None:
    """(bytes per id, merge quadruples or None) for the C encoder; None if the vocabulary cannot be
    encoded natively exactly as the Python model would."""
    vocab = model.vocab
    size = max(vocab.values(), default=-1) + 1
    if len(set(vocab.values())) != len(vocab):
        return None  # two tokens share an id
    tokens: list[bytes | None] = [None] * size
    for tok, i in vocab.items():
        data = unicode_to_bytes(tok)
        if data:
            tokens[i] = data
    if model.ranks is None:
        return tokens, None
    quads = array("i")
    by_line = model._merge_lines is not None
    for key, rank in model.ranks.items():
        a, b = key.split(" ", 1) if by_line else key
        ia, ib = vocab.get(a), vocab.get(b)
        if ia is None or ib is None or tokens[ia] is None or tokens[ib] is None:
            continue  # the pair can never be formed from byte-level symbols
        im = vocab.get(a + b)
        if im is None or tokens[im] is None:
            return None  # Python would produce a symbol outside the vocabulary: leave it to Python
        quads.extend((ia, ib, rank, im))
    return tokens, quads


def encoder_for(tokenizer) -> NativeEncoder | None:
    """A native encoder for `tokenizer` when its pipeline is supported (see the module doc), else None."""
    if not available or unsupported(tokenizer) is not None:
        return None
    python_split, pattern = _plan(_flatten(tokenizer.pre_tokenizer))
    tables = _tables(tokenizer.model)
    if tables is None:
        return None
    tokens, merges = tables
    try:
        enc = _native.Encoder(tokens, merges, pattern, bool(tokenizer.model.ignore_merges))
    except ValueError:
        return None  # e.g. a byte without a token: the Python model handles (drops) it
    return NativeEncoder(enc, python_split, PATTERN_NAMES.get(pattern, str(pattern)))
