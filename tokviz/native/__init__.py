"""The optional C encoders (tokviz._native: byte-level BPE, WordPiece, Unigram) and when a tokenizer can use them.

    >>> import tokviz.native
    >>> tokviz.native.available, tokviz.native.reason
    (True, '')

The Python pipeline in tokviz.core is the definition; the native encoder replaces its
pre-tokenizer + model stage for one plain-text segment (the Tokenizer still normalizes the text and
splits off added tokens in Python) and gives the same ids and offsets.  It is used when:

- the model is a BPE over a complete byte-level vocabulary (all 256 bytes are tokens), without
  byte fallback, unknown token, or continuing-subword prefix / end-of-word suffix;
- the pre-tokenizer ends in ByteLevel (add_prefix_space off).  A Split on a known pattern
  (tokviz.core.patterns: GPT-2/r50k/p50k, cl100k, o200k, Llama-3, Qwen2, Qwen3.5, Mistral's
  tekken) or ByteLevel's own regex is done natively; any other pre-tokenizers before the ByteLevel
  cut the text in Python ("regex fallback") and the pieces are still merged natively.

When the normalizer is one Unicode normal form (NFC, NFKC, NFD, NFKD) or there is none, the C
threads of a batch first check each raw text: one that passes the form's quick check (tables in
src/unidata/nfc_tables.h, made by gen_nfc_tables.py) and holds no added token's string needs no
preparation and is encoded as it is; only the others are normalized and cut in Python.

A WordPiece or (HF) Unigram model is also run in C (NativeModel): the normalizer and the
pre-tokenizer stay in Python, and all the pieces of a text go to the C model in one call.

A sentencepiece `.model` tokenizer is encoded end to end in C, normalizer included
(tokviz.native.sentencepiece, module tokviz._spnative).

Set TOKVIZ_PURE_PYTHON=1 (or call Tokenizer.use_native(False)) to stay on the Python path.
"""
from __future__ import annotations

import os
import unicodedata
from array import array

from ..core import patterns as _patterns
from ..core import normalizers as _norm
from ..core import pre_tokenizers as _pre
from ..core.bytelevel import unicode_to_bytes
from ..core.id_arrays import arrays_of_buffers, arrays_of_lists

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
# a regular .tiktoken file read in C (formats/tiktoken_file.py), or None.
tiktoken_table = getattr(_native, "tiktoken_table", None) if available else None


def _pattern_ids() -> dict[tuple[str, str], int]:
    """(pattern, dialect) -> the C scanner that cuts exactly its pieces.

    The scanners cut as tiktoken does (fancy-regex: X{n,m}+ possessive, $ the end of the text).
    A tokviz pattern maps in the "rust" dialect, its Oniguruma spelling (patterns.rust_to_onig, what
    tokviz writes into tokenizer.json) in "onig", and the pattern itself in "onig" only when no
    construct of it means something else to Oniguruma: a tokenizer.json holding cl100k's literal
    \\p{N}{1,3}+ (a run of digits of any length, to HF) is cut by the regex module instead."""
    if _native is None:
        return {}
    scanners = [
        (_patterns.GPT2_PATTERN, _native.PAT_GPT2),
        (_patterns.R50K_PATTERN, _native.PAT_GPT2),  # the possessive spelling cuts the same pieces
        (_patterns.CL100K_PATTERN, _native.PAT_CL100K),
        (_patterns.O200K_PATTERN, _native.PAT_O200K),
        (_patterns.LLAMA3_PATTERN, _native.PAT_LLAMA3),
        (_patterns.QWEN2_PATTERN, _native.PAT_QWEN2),
        (_patterns.TEKKEN_PATTERN, _native.PAT_TEKKEN),
        (_patterns.QWEN35_PATTERN, _native.PAT_QWEN35),
    ]
    ids: dict[tuple[str, str], int] = {}
    for pattern, scanner in scanners:
        ids[(pattern, "rust")] = scanner
        ids[(_patterns.rust_to_onig(pattern), "onig")] = scanner
        if _patterns.same_in_both_dialects(pattern):
            ids[(pattern, "onig")] = scanner
    return ids


PATTERN_IDS = _pattern_ids()
PATTERN_NAMES = {0: "none", 1: "gpt2", 2: "cl100k", 3: "o200k", 4: "llama3", 5: "qwen2", 6: "tekken",
                 7: "qwen35"}
NORMAL_FORMS = {"NFC": 0, "NFD": 1, "NFKC": 2, "NFKD": 3}  # the `form` of the C text check
FORM_NAMES = {form: name for name, form in NORMAL_FORMS.items()}


def quick_check_form(normalizer) -> int | None:
    """The C text check's `form` for a normalizer that is one Unicode normal form, else None.

    None too when the C tables come from another Unicode version than this Python's unicodedata
    (the Python reference would then normalize some characters differently)."""
    if _native is None or getattr(_native, "NORM_UNICODE_VERSION", None) != unicodedata.unidata_version:
        return None
    if isinstance(normalizer, _norm.Sequence) and len(normalizer.normalizers) == 1:
        normalizer = normalizer.normalizers[0]
    if type(normalizer) is not _norm.UnicodeForm:
        return None
    return NORMAL_FORMS.get(normalizer.form)


class NativeEncoder:
    """A tokviz._native.Encoder plus the Python pre-tokenizers that run before it (if any).

    encode_segment(ns) -> (ids, offsets) for one NormalizedString, offsets into the original text.
    """

    normalizes = False  # the Tokenizer normalizes the text first (see sentencepiece's encoder)

    def __init__(self, encoder, python_split: list, pattern_name: str):
        self.encoder = encoder
        self.python_split = python_split  # pre-tokenizers to run in Python first ([] when none)
        self.pattern_name = pattern_name

    def describe(self) -> str:
        if self.python_split:
            return "native BPE, pre-tokenizer in Python (regex fallback)"
        return f"native ({self.pattern_name} scanner)"

    def clear_cache(self) -> None:
        """Empty the C encoder's piece caches."""
        self.encoder.clear_cache()

    def cache_info(self) -> dict:
        """{caches, bytes, entries}: the C encoder's piece caches that hold tables now."""
        return self.encoder.cache_info()

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
        # (untracked: the id lists hold only ints, the garbage collector need not walk them)
        results = self.encoder.encode_many([s.text for s in segments], threads, 2 if with_offsets or packed else 0,
                                           untracked=True)
        if packed or not with_offsets:
            return results
        return [self.unpack(seg, ids, offs) for seg, (ids, offs) in zip(segments, results)]

    def encode_many_flat(self, segments, threads: int):
        """The ids of `encode_many` as (ids, offsets) arrays (tokviz.core.id_arrays): the C threads
        write them into one buffer, without a Python int per id."""
        if self.python_split:
            return arrays_of_lists(self.encode_many(segments, threads, with_offsets=False))
        ids, offsets, _ = self.encoder.encode_many([s.text for s in segments], threads, flat=True)
        return arrays_of_buffers(ids, offsets)

    def encode_many_checked_flat(self, texts, threads: int, form: int, stops):
        """The ids of `encode_many_checked` as (ids, offsets, rejected): a text the check rejects
        has no ids and its index is in the list `rejected`."""
        ids, offsets, rejected = self.encoder.encode_many(texts, threads, 0, form, stops, flat=True)
        return (*arrays_of_buffers(ids, offsets), rejected)

    def encode_many_checked(self, texts, threads: int, form: int, stops, with_offsets: bool = True,
                            packed: bool = False):
        """encode_many of whole texts that the C threads first check: None for a text that is not
        in the Unicode normal form `form` by the quick check (see NORMAL_FORMS; -1: any text) or
        that holds one of the strings `stops` (the caller prepares those in Python)."""
        offsets = 2 if with_offsets or packed else 0
        results = self.encoder.encode_many(texts, threads, offsets, form, stops, untracked=True)
        if packed or not with_offsets:
            return results
        return [None if r is None else self._unpack_whole(*r) for r in results]

    @staticmethod
    def _unpack_whole(ids, packed):
        pairs = memoryview(packed).cast("i")
        return ids, list(zip(pairs[0::2], pairs[1::2]))

    def unpack(self, seg, ids, packed):
        """(ids, offsets in the original text) from a packed result for the segment `seg`."""
        pairs = memoryview(packed).cast("i")
        starts, ends = pairs[0::2], pairs[1::2]
        if self.python_split:  # already original offsets (see encode_many)
            return ids, list(zip(starts, ends))
        if seg.is_identity:
            base = seg.base
            return ids, [(a + base, b + base) for a, b in zip(starts, ends)]
        # seg.original_span(a, b) inlined (tokens are never empty): this runs once per token
        first, last = seg.starts, seg.ends
        if first == sorted(first) and last == sorted(last):  # (as normalizers make them: cheap)
            return ids, [(first[a], last[b - 1]) for a, b in zip(starts, ends)]
        return ids, [(min(first[a:b]), max(last[a:b])) for a, b in zip(starts, ends)]


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
        and (before[0].pattern, before[0].dialect) in PATTERN_IDS
    ):
        return [], PATTERN_IDS[(before[0].pattern, before[0].dialect)]
    return before, _native.PAT_NONE


def _tables(model) -> tuple[list, array | None] | None:
    """(bytes per id, merge quadruples or None) for the C encoder; None if the vocabulary cannot be
    encoded natively exactly as the Python model would.  Read in C (`_native.byte_level_tables`);
    `_tables_python` is the definition it follows."""
    by_line = model._merge_lines is not None
    return _native.byte_level_tables(model.vocab, model.merge_lines() if by_line else model.merges, by_line)


def _tables_python(model) -> tuple[list, array | None] | None:
    """`_tables` in Python."""
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


class NativeModel:
    """A WordPiece or (HF) Unigram model in C (tokviz._native.WordPieceModel / UnigramModel) behind
    the tokenizer's Python pre-tokenizer: the same encode_segment / encode_many / unpack interface
    as NativeEncoder.  All the pieces of a segment (or of a batch) go to C in one call."""

    # Pre-tokenized in Python (Tokenizer._lazy_ok reads this): never the single-call lazy path.
    python_split = True
    normalizes = False

    def __init__(self, model, pre_tokenizer, name: str):
        self.model = model
        self.pre_tokenizer = pre_tokenizer
        self.name = name

    def describe(self) -> str:
        return f"native {self.name} model, normalizer and pre-tokenizer in Python"

    def clear_cache(self) -> None:
        """Nothing to forget: the C models keep no cache of pieces."""

    def cache_info(self) -> dict:
        """No caches (see clear_cache)."""
        return {"caches": 0, "bytes": 0, "entries": 0}

    def _pieces(self, segments):
        """The non-empty pieces of all `segments` and how many each segment has."""
        pre = self.pre_tokenizer
        pieces = []
        per_segment = []
        for seg in segments:
            got = [p for p in (pre.pre_tokenize([seg]) if pre is not None else [seg]) if p.text]
            pieces.extend(got)
            per_segment.append(len(got))
        return pieces, per_segment

    def _run(self, pieces, threads: int, with_offsets: bool = True):
        """(ids, tokens per piece, offsets in the original text as int32 pairs or None)."""
        words = [p.text for p in pieces]
        if not with_offsets:
            ids, counts, _ = self.model.encode_words(words, threads)
            return ids, memoryview(counts).cast("i"), None
        bases = [p.base if p.starts is None else -1 for p in pieces]
        spans = [None if p.starts is None else (p.starts, p.ends) for p in pieces]
        ids, counts, offs = self.model.encode_words(words, threads, bases, spans)
        return ids, memoryview(counts).cast("i"), memoryview(offs).cast("i")

    def encode_segment(self, seg, with_offsets: bool = True):
        """ids (and offsets into the original text) of one normalized segment."""
        pieces, _ = self._pieces([seg])
        ids, _, pairs = self._run(pieces, 1, with_offsets)
        if not with_offsets:
            return ids
        return ids, list(zip(pairs[0::2], pairs[1::2]))

    def encode_many(self, segments, threads: int, with_offsets: bool = True, packed: bool = False):
        """encode_segment over many segments, the native work on `threads` threads at once.

        packed=True (for Tokenizer.encode_batch, which hands each result to `unpack`): the same
        (ids, offsets) pairs, the offsets already in the original text, so nothing to pack."""
        pieces, per_segment = self._pieces(segments)
        with_offsets = with_offsets or packed
        ids, counts, pairs = self._run(pieces, threads, with_offsets)
        results = []
        p = t = 0
        for n in per_segment:
            c = sum(counts[p : p + n])
            if with_offsets:
                results.append((ids[t : t + c], list(zip(pairs[2 * t : 2 * (t + c) : 2], pairs[2 * t + 1 : 2 * (t + c) : 2]))))
            else:
                results.append(ids[t : t + c])
            p += n
            t += c
        return results

    def encode_many_flat(self, segments, threads: int):
        """The ids of `encode_many` as (ids, offsets) arrays (tokviz.core.id_arrays): the C model
        writes every word's ids into one buffer, without a Python int per id."""
        import numpy as np

        pieces, per_segment = self._pieces(segments)
        ids, counts, _ = self.model.encode_words([p.text for p in pieces], threads, flat=True)
        tokens_before_piece = np.zeros(len(pieces) + 1, np.int64)
        np.cumsum(np.frombuffer(counts, np.int32), out=tokens_before_piece[1:])
        pieces_before_segment = np.zeros(len(segments) + 1, np.int64)
        np.cumsum(per_segment, out=pieces_before_segment[1:])
        return arrays_of_buffers(ids, tokens_before_piece[pieces_before_segment])

    def unpack(self, seg, ids, offsets):
        """(ids, offsets in the original text) from a packed=True result of encode_many."""
        return ids, offsets


def model_encoder_for(tokenizer) -> NativeModel | None:
    """A native model stage for a tokenizer whose model is tokviz's WordPiece or (HF) Unigram
    (exactly those classes: sentencepiece's Unigram has other rules), else None."""
    from ..core.models.unigram import Unigram
    from ..core.models.wordpiece import WordPiece

    if not available or tokenizer.text_normalizer is not None:
        return None
    model = tokenizer.model
    try:
        if type(model) is WordPiece:
            unk = model.vocab.get(model.unk_token)
            if unk is None:
                return None  # the Python model raises for an unknown word: leave it to Python
            prefix = model.prefix
            continuing = {t[len(prefix):]: i for t, i in model.vocab.items() if t.startswith(prefix) and len(t) > len(prefix)}
            native = _native.WordPieceModel(
                model.vocab, continuing, unk, int(model.max_input_chars_per_word), int(model.max_token_chars)
            )
            if (type(tokenizer.normalizer) is _norm.BertNormalizer and type(tokenizer.pre_tokenizer) is _pre.BertPreTokenizer
                    and getattr(_native, "BERT_UNICODE_VERSION", None) == unicodedata.unidata_version):
                # (the C tables must know the same characters as the Python reference's unicodedata)
                from .bert import NativeBert

                return NativeBert(native, tokenizer.normalizer, tokenizer.pre_tokenizer)
            return NativeModel(native, tokenizer.pre_tokenizer, "WordPiece")
        if type(model) is Unigram:
            if model.unk_id is None:
                return None  # Python raises for an unknown character (with byte fallback too, as HF)
            byte_ids = None
            if model.byte_fallback:
                byte_ids = [model.vocab.get(f"<0x{b:02X}>") for b in range(256)]
                if None in byte_ids:
                    return None  # Python fails on a byte without a piece
            native = _native.UnigramModel(
                model._match, list(model._prefixes), model.scores, model.unk_id, float(model.unk_score),
                bool(model.fuse_unk), byte_ids,
            )
            return NativeModel(native, tokenizer.pre_tokenizer, "Unigram")
    except (ValueError, TypeError, OverflowError):
        return None  # something the C model does not take (ids out of range...): the Python path
    return None


def encoder_for(tokenizer) -> NativeEncoder | NativeModel | None:
    """A native encoder for `tokenizer` when its pipeline is supported (see the module doc), else None."""
    if not available:
        return None
    if tokenizer.text_normalizer is not None:  # sentencepiece: normalizer and model in C (or Python)
        from .sentencepiece import sentencepiece_encoder_for

        return sentencepiece_encoder_for(tokenizer)
    model_encoder = model_encoder_for(tokenizer)
    if model_encoder is not None:
        return model_encoder
    if unsupported(tokenizer) is not None:
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
