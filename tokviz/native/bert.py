"""BERT's WordPiece tokenizers natively, end to end: BertNormalizer, BertPreTokenizer and the
WordPiece model in C (tokviz._native.BertEncoder, src/bert_pre.c + models.c) on raw text, with
offsets into it, without the GIL and on several threads for a batch.  A text the C encoder
hands back (None: today only a text of 2**28 characters or more) goes through the reference
classes, its words still through the C model.

    >>> tok = tokviz.load("bert-minilm/tokenizer.json")
    >>> tok.native_encoder().describe()
    'native BERT normalizer, pre-tokenizer and WordPiece model'
"""
from __future__ import annotations

import weakref
from array import array

from ..core.id_arrays import arrays_of_buffers, ids_array, splice
from . import NativeModel, _native


def _packed(offsets, shift: int = 0) -> bytes:
    flat = array("i")
    for a, b in offsets:
        flat.append(a - shift)
        flat.append(b - shift)
    return flat.tobytes()


class _RawTextEncoder:
    """What Tokenizer calls for a whole raw text (`native.encoder.encode`): the C encoder, or the
    reference path for a text it hands back."""

    def __init__(self, owner: NativeBert):
        self._owner = weakref.ref(owner)  # (owner holds this: a strong reference would be a cycle)
        self.c = owner.c

    def encode(self, text: str, base: int = 0, offsets: int = 2):
        """ids, or (ids, offsets + base as packed int32 pairs) with offsets=2."""
        got = self.c.encode(text, base, offsets)
        if got is not None:
            return got
        from ..core.normalized import NormalizedString

        ids, offs = self._owner().reference(NormalizedString(text, base), bool(offsets))
        return (ids, _packed(offs)) if offsets else ids


class NativeBert(NativeModel):
    """The native encoder of a WordPiece tokenizer whose normalizer is BertNormalizer and whose
    pre-tokenizer is BertPreTokenizer: it takes raw text (`normalizes`), whole (`python_split`
    false: the Tokenizer's single-call path)."""

    normalizes = True
    python_split = False

    def __init__(self, model, normalizer, pre_tokenizer):
        super().__init__(model, pre_tokenizer, "WordPiece")
        self.normalizer = normalizer
        strip = normalizer.lowercase if normalizer.strip_accents is None else normalizer.strip_accents
        self.c = _native.BertEncoder(
            model, bool(normalizer.clean_text), bool(normalizer.handle_chinese_chars), bool(strip), bool(normalizer.lowercase)
        )
        self.encoder = _RawTextEncoder(self)

    def describe(self) -> str:
        return "native BERT normalizer, pre-tokenizer and WordPiece model"

    def reference(self, seg, with_offsets: bool = True):
        """The reference normalizer and pre-tokenizer in Python, the words through the C model:
        ids, and offsets in the original text (or None)."""
        normalized = self.normalizer.normalize(seg)
        pieces = [p for p in self.pre_tokenizer.pre_tokenize([normalized]) if p.text]
        ids, _, pairs = self._run(pieces, 1, with_offsets)
        if not with_offsets:
            return ids, None
        return ids, list(zip(pairs[0::2], pairs[1::2]))

    def encode_segment(self, seg, with_offsets: bool = True):
        """ids (and offsets into the original text) of one raw segment."""
        if seg.is_identity:
            got = self.c.encode(seg.text, seg.base, 2 if with_offsets else 0)
            if got is not None:
                if not with_offsets:
                    return got
                ids, packed = got
                pairs = memoryview(packed).cast("i")
                return ids, list(zip(pairs[0::2], pairs[1::2]))
        ids, offsets = self.reference(seg, with_offsets)
        return (ids, offsets) if with_offsets else ids

    def encode_many(self, segments, threads: int, with_offsets: bool = True, packed: bool = False):
        """encode_segment over many segments, the native work on `threads` threads at once.

        packed=True: (ids, offsets packed as int32 pairs relative to the segment's base) for each
        segment, to be turned into offsets by `unpack` (Tokenizer.encode_batch; a segment at base 0
        becomes a LazyEncoding as it is)."""
        keep = with_offsets or packed
        identity = [seg.is_identity for seg in segments]
        texts = [seg.text if ok else "" for seg, ok in zip(segments, identity)]
        results = self.c.encode_many(texts, threads, 2 if keep else 0)
        for k, seg in enumerate(segments):
            if results[k] is not None and identity[k]:
                continue
            ids, offsets = self.reference(seg, keep)
            results[k] = (ids, _packed(offsets, seg.base)) if keep else ids
        if packed or not with_offsets:
            return results
        return [self.unpack(seg, ids, offs) for seg, (ids, offs) in zip(segments, results)]

    def encode_many_flat(self, segments, threads: int):
        """The ids of `encode_many` as (ids, offsets) arrays (tokviz.core.id_arrays): the C threads
        write them into one buffer, without a Python int per id; the segments the C encoder does
        not take whole go through `reference` and are spliced in."""
        identity = [seg.is_identity for seg in segments]
        texts = [seg.text if ok else "" for seg, ok in zip(segments, identity)]
        ids, offsets, skipped = self.c.encode_many(texts, threads, flat=True)
        ids, offsets = arrays_of_buffers(ids, offsets)
        redo = sorted(set(skipped) | {k for k, ok in enumerate(identity) if not ok})
        return splice(ids, offsets, {k: ids_array(self.reference(segments[k], False)[0]) for k in redo})

    def unpack(self, seg, ids, packed):
        """(ids, offsets in the original text) from a packed result of encode_many for `seg`."""
        pairs = memoryview(packed).cast("i")
        base = seg.base
        if not base:
            return ids, list(zip(pairs[0::2], pairs[1::2]))
        return ids, [(a + base, b + base) for a, b in zip(pairs[0::2], pairs[1::2])]
