"""sentencepiece .model tokenizers encoded natively end to end (tokviz._spnative).

The C encoder does what `SentencePieceNormalizer` and `SentencePieceUnigram` / `SentencePieceBPE`
do in tokviz.core.sentencepiece (the definition): it takes the raw text, normalizes it itself
(charsmap, whitespace rules, user-defined symbols), runs the model, applies byte fallback or
fuses unknowns, and gives ids with offsets into the raw text.

    >>> tok = tokviz.load("unigram_8k.model")
    >>> tok.native_encoder().describe()
    'native sentencepiece (unigram)'

It is used for a Tokenizer built by tokviz.formats.sentencepiece (exactly those classes, no other
normalizer or pre-tokenizer), when every score is a number (a NaN would order BPE merges the way
Python's tuple comparison does, which C does not reproduce) and the charsmap's replacement
strings are valid UTF-8.  Anything else stays on the Python path.
"""
from __future__ import annotations

import math

from ..core.id_arrays import arrays_of_buffers

try:
    from .. import _spnative
except ImportError:  # not built: the Python path
    _spnative = None


class SentencePieceNativeEncoder:
    """The encoder interface Tokenizer uses (see tokviz.native.NativeEncoder) over a
    tokviz._spnative.SentencePieceEncoder.  It normalizes by itself: the Tokenizer hands it the
    raw text as one identity segment (`normalizes`)."""

    python_split = False
    normalizes = True

    def __init__(self, encoder, kind: str):
        self.encoder = encoder
        self.kind = kind

    def describe(self) -> str:
        return f"native sentencepiece ({self.kind})"

    def clear_cache(self) -> None:
        """Forget the words the BPE word caches hold (they are kept between calls)."""
        self.encoder.clear_cache()

    def cache_info(self) -> dict:
        """{caches, bytes, entries}: the BPE word caches that hold tables now."""
        return self.encoder.cache_info()

    def encode_segment(self, seg, with_offsets: bool = True):
        """ids (and offsets into the original text) of one raw-text segment."""
        if not seg.is_identity:
            raise ValueError("the native sentencepiece encoder takes raw text, not normalized text")
        return self.encoder.encode(seg.text, seg.base, 1 if with_offsets else 0)

    def encode_many(self, segments, threads: int, with_offsets: bool = True, packed: bool = False):
        """encode_segment over many segments on `threads` native threads.  packed=True: (ids,
        int32 start/end pairs relative to each segment) for `unpack` or a LazyEncoding."""
        for seg in segments:
            if not seg.is_identity:
                raise ValueError("the native sentencepiece encoder takes raw text, not normalized text")
        mode = 2 if (packed or with_offsets) else 0
        results = self.encoder.encode_many([s.text for s in segments], threads, mode)
        if packed or not with_offsets:
            return results
        return [self.unpack(seg, ids, offs) for seg, (ids, offs) in zip(segments, results)]

    def encode_many_flat(self, segments, threads: int):
        """The ids of `encode_many` as (ids, offsets) arrays (tokviz.core.id_arrays), written by
        the C threads into one buffer without a Python int per id."""
        for seg in segments:
            if not seg.is_identity:
                raise ValueError("the native sentencepiece encoder takes raw text, not normalized text")
        ids, offsets, _ = self.encoder.encode_many([s.text for s in segments], threads, 0, flat=True)
        return arrays_of_buffers(ids, offsets)

    def unpack(self, seg, ids, packed):
        """(ids, offsets in the original text) from a packed result for the segment `seg`."""
        pairs = memoryview(packed).cast("i")
        base = seg.base
        return ids, [(a + base, b + base) for a, b in zip(pairs[0::2], pairs[1::2])]


def sentencepiece_encoder_for(tokenizer) -> SentencePieceNativeEncoder | None:
    """The native encoder for a sentencepiece Tokenizer whose settings the C code supports, else None."""
    from ..core.sentencepiece import SentencePieceBPE, SentencePieceNormalizer, SentencePieceUnigram

    if _spnative is None:
        return None
    norm = tokenizer.text_normalizer
    model = tokenizer.model
    if type(norm) is not SentencePieceNormalizer or tokenizer.normalizer is not None or tokenizer.pre_tokenizer is not None:
        return None
    table = getattr(model, "table", None)
    if table is None:
        return None
    byte_ids = None
    if model.byte_fallback:
        byte_ids = [table.byte_ids.get(b) for b in range(256)]
        if None in byte_ids:
            return None
    normalizer_symbols = [s for group in norm.user_defined.by_first.values() for s in group] if norm.user_defined else []
    charsmap = norm.charsmap.blob if norm.charsmap is not None else b""
    common = dict(
        unk_id=model.unk_id, byte_ids=byte_ids, normalizer_symbols=normalizer_symbols, charsmap=charsmap,
        add_dummy_prefix=norm.add_dummy_prefix, remove_extra_whitespaces=norm.remove_extra_whitespaces,
        escape_whitespaces=norm.escape_whitespaces, treat_whitespace_as_suffix=norm.treat_whitespace_as_suffix,
    )
    try:
        if type(model) is SentencePieceUnigram:
            scores = list(model._lattice_scores)
            if any(math.isnan(s) for s in scores) or math.isnan(model.unk_score):
                return None
            enc = _spnative.SentencePieceEncoder(
                kind=_spnative.UNIGRAM, match=model._match, scores=scores, unk_score=model.unk_score,
                model_symbols=[], reserved={}, unused=[], by_word=False, **common,
            )
            return SentencePieceNativeEncoder(enc, "unigram")
        if type(model) is SentencePieceBPE:
            scores = list(model.scores)
            if any(math.isnan(s) for s in scores):
                return None
            if model.suffix_mode != norm.treat_whitespace_as_suffix:
                return None  # the word cut follows the model's setting, the normalizer its own
            model_symbols = [s for group in model.matcher.by_first.values() for s in group]
            enc = _spnative.SentencePieceEncoder(
                kind=_spnative.BPE, match=table.normal, scores=scores, unk_score=0.0,
                model_symbols=model_symbols, reserved=table.reserved, unused=sorted(model.unused),
                by_word=model.by_word, **common,
            )
            return SentencePieceNativeEncoder(enc, "bpe")
    except (ValueError, TypeError, OverflowError):
        return None  # something the C encoder does not take (a charsmap it refuses...): Python
    return None
