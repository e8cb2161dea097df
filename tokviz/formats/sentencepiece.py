"""sentencepiece `.model` files: a serialized ModelProto, read without the sentencepiece library.

The parts of sentencepiece_model.proto that matter for encoding and decoding:

    ModelProto        1 pieces (repeated SentencePiece)   2 trainer_spec   3 normalizer_spec
                      5 denormalizer_spec
    SentencePiece     1 piece (string)   2 score (float)   3 type (NORMAL=1 UNKNOWN=2 CONTROL=3
                      USER_DEFINED=4 UNUSED=5 BYTE=6)
    TrainerSpec       3 model_type (UNIGRAM=1 BPE=2 WORD=3 CHAR=4)   24 treat_whitespace_as_suffix
                      35 byte_fallback   44 unk_surface   ... (training options, shown by `info`)
    NormalizerSpec    1 name   2 precompiled_charsmap   3 add_dummy_prefix   4 remove_extra_whitespaces
                      5 escape_whitespaces

    >>> tok = read_sentencepiece("unigram_8k.model")
    >>> tok.encode("Hello world").pieces
    ['▁', 'Hello', '▁', 'world']
    >>> tok.decode([261, 3612, 261, 4301])
    'Hello world'
"""
from __future__ import annotations

import os
import struct
import weakref
from array import array
from pathlib import Path

from ..core.added import AddedToken
from ..core.charsmap import CharsMap
from ..core.sentencepiece import (
    CONTROL,
    DEFAULT_UNK_SURFACE,
    NORMAL,
    TYPE_NAMES,
    PieceTable,
    PrefixMatcher,
    SentencePieceBPE,
    SentencePieceDecoder,
    SentencePieceNormalizer,
    SentencePieceUnigram,
)
from .. import native
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ._util import read_bytes
from .protobuf import I32, LEN, VARINT, as_float, as_signed, as_string, expect, iter_fields, read_field

_F32 = struct.Struct("<f")

MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}

# field number -> (name, kind); kinds: str, bytes, strs (repeated), bool, int, float
TRAINER_SPEC = {
    2: ("model_prefix", "str"),
    3: ("model_type", "int"),
    4: ("vocab_size", "int"),
    10: ("character_coverage", "float"),
    20: ("max_sentencepiece_length", "int"),
    21: ("split_by_unicode_script", "bool"),
    22: ("split_by_whitespace", "bool"),
    23: ("split_by_number", "bool"),
    24: ("treat_whitespace_as_suffix", "bool"),
    25: ("split_digits", "bool"),
    26: ("allow_whitespace_only_pieces", "bool"),
    30: ("control_symbols", "strs"),
    31: ("user_defined_symbols", "strs"),
    35: ("byte_fallback", "bool"),
    40: ("unk_id", "int"),
    41: ("bos_id", "int"),
    42: ("eos_id", "int"),
    43: ("pad_id", "int"),
    44: ("unk_surface", "str"),
    45: ("unk_piece", "str"),
    46: ("bos_piece", "str"),
    47: ("eos_piece", "str"),
    48: ("pad_piece", "str"),
    53: ("pretokenization_delimiter", "str"),
}
TRAINER_DEFAULTS = {
    "model_type": 1, "vocab_size": 8000, "character_coverage": 0.9995, "max_sentencepiece_length": 16,
    "split_by_unicode_script": True, "split_by_whitespace": True, "split_by_number": True,
    "treat_whitespace_as_suffix": False, "split_digits": False, "allow_whitespace_only_pieces": False,
    "control_symbols": [], "user_defined_symbols": [], "byte_fallback": False,
    "unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1, "unk_surface": DEFAULT_UNK_SURFACE,
}
NORMALIZER_SPEC = {
    1: ("name", "str"),
    2: ("precompiled_charsmap", "bytes"),
    3: ("add_dummy_prefix", "bool"),
    4: ("remove_extra_whitespaces", "bool"),
    5: ("escape_whitespaces", "bool"),
}
NORMALIZER_DEFAULTS = {
    "name": "", "precompiled_charsmap": b"", "add_dummy_prefix": True,
    "remove_extra_whitespaces": True, "escape_whitespaces": True,
}
# model -> the ModelProto fields other than pieces, as read (number, wire type, value), so that a
# written .model keeps its specs byte for byte (see sentencepiece_writer).
ORIGINAL_FIELDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

_WIRE = {"str": LEN, "bytes": LEN, "strs": LEN, "bool": VARINT, "int": VARINT, "float": I32}


def read_sentencepiece(path: str | os.PathLike) -> Tokenizer:
    """Read a sentencepiece .model (BPE or Unigram) into a Tokenizer that encodes and decodes
    exactly like `sentencepiece.SentencePieceProcessor` with default options."""
    path = Path(path)
    data = read_bytes(path)
    if data[:64].lstrip()[:1] in (b"{", b"["):
        raise TokvizError("looks like JSON text, not a sentencepiece .model (a binary protobuf file)", path)
    try:
        proto = parse_model_proto(data, path)
    except TokvizError as exc:
        raise TokvizError(f"not a valid sentencepiece model: {exc.reason}", path) from None
    return build_tokenizer(proto, path)


def parse_model_proto(data: bytes, source=None) -> dict:
    """The fields of a serialized ModelProto that tokviz uses, as plain Python values."""
    pieces: list[str] = []
    scores = array("f")  # float32, as stored
    types = bytearray()  # one type code per piece
    vocab = None  # piece -> first id, when the C reader read every piece
    trainer = normalizer = denormalizer = None
    self_tests = 0
    other_fields: list[tuple[int, int, int | bytes]] = []
    pos, end = 0, len(data)
    while pos < end:
        if data[pos] == 0x0A:  # a run of pieces: read the usual layout fast, the rest field by field
            first = not pieces
            pos, run_vocab = _read_pieces(data, pos, pieces, scores, types, source)
            if first and run_vocab is not None and len(run_vocab) and len(pieces) == len(types):
                vocab, vocab_count = run_vocab, len(pieces)
            if pos >= end:
                break
        number, wire, value, pos = read_field(data, pos, end, source)
        if number != 1:
            other_fields.append((number, wire, value))
        if number == 1:
            expect(number, wire, LEN, "pieces", source)
            piece, score, kind = _parse_piece(value, len(pieces), source)
            pieces.append(piece)
            scores.append(score)
            types.append(kind)
        elif number == 2:
            expect(number, wire, LEN, "trainer_spec", source)
            trainer = _parse_message(value, TRAINER_SPEC, TRAINER_DEFAULTS, "trainer_spec", source)
        elif number == 3:
            expect(number, wire, LEN, "normalizer_spec", source)
            normalizer = _parse_message(value, NORMALIZER_SPEC, NORMALIZER_DEFAULTS, "normalizer_spec", source)
        elif number == 4:
            expect(number, wire, LEN, "self_test_data", source)
            self_tests += sum(1 for n, _, _ in iter_fields(value, source=source) if n == 1)
        elif number == 5:
            expect(number, wire, LEN, "denormalizer_spec", source)
            denormalizer = _parse_message(value, NORMALIZER_SPEC, NORMALIZER_DEFAULTS, "denormalizer_spec", source)
        # other fields: unknown to this schema version, skipped as protobuf does
    if not pieces:
        raise TokvizError("no pieces (vocabulary) found", source)
    if trainer is None or normalizer is None:
        missing = "trainer_spec" if trainer is None else "normalizer_spec"
        raise TokvizError(f"{missing} is missing (the file is truncated or not a sentencepiece model)", source)
    if vocab is not None and vocab_count != len(pieces):
        vocab = None  # more pieces followed in another layout: PieceTable builds it
    return {
        "pieces": pieces, "scores": scores, "types": types, "vocab": vocab, "trainer_spec": trainer,
        "normalizer_spec": normalizer, "denormalizer_spec": denormalizer, "self_test_samples": self_tests,
        "other_fields": other_fields,
    }


def _read_pieces(data: bytes, pos: int, pieces: list, scores: array, types: bytearray, source):
    """Read pieces laid out the way sentencepiece writes them (field 1 holding piece, score and an
    optional type, all with one-byte lengths) starting at `pos`.  Return where that stops, and the
    piece -> first id map of what the C reader read (None without the C reader)."""
    run_vocab = None
    if native.sp_pieces is not None:  # the same reading in C; the loop below goes on where it stops
        more_pieces, more_scores, more_types, run_vocab, pos = native.sp_pieces(data, pos)
        pieces += more_pieces
        scores.frombytes(more_scores)
        types += more_types
    end = len(data)
    unpack = _F32.unpack_from
    raw: list[bytes] = []
    while pos + 1 < end and data[pos] == 0x0A:
        size = data[pos + 1]
        sub = pos + 2
        stop = sub + size
        if size >= 0x80 or stop > end or size < 2 or data[sub] != 0x0A:
            break
        n = data[sub + 1]
        k = sub + 2 + n
        if n >= 0x80 or k > stop:
            break
        score = 0.0
        kind = NORMAL
        if k < stop and data[k] == 0x15:
            if k + 5 > stop:
                break
            (score,) = unpack(data, k + 1)
            k += 5
        if k < stop and data[k] == 0x18:
            if k + 2 > stop or data[k + 1] >= 0x80:
                break
            kind = data[k + 1]
            k += 2
        if k != stop:
            break  # some other layout: the caller reads this piece field by field
        if kind not in TYPE_NAMES:
            raise TokvizError(f"piece {len(pieces) + len(raw)} has unknown type {kind}", source)
        raw.append(data[sub + 2 : sub + 2 + n])
        scores.append(score)
        types.append(kind)
        pos = stop
    for b in raw:
        try:
            pieces.append(b.decode("utf-8"))
        except UnicodeDecodeError:
            raise TokvizError(f"piece {len(pieces)} is not valid UTF-8: {b!r}", source) from None
    return pos, run_vocab


def _parse_piece(data: bytes, index: int, source) -> tuple[str, float, int]:
    piece = ""
    score = 0.0
    kind = NORMAL
    for number, wire, value in iter_fields(data, source=source):
        if number == 1:
            expect(number, wire, LEN, f"pieces[{index}].piece", source)
            piece = as_string(value, f"piece {index}", source)
        elif number == 2:
            expect(number, wire, I32, f"pieces[{index}].score", source)
            score = as_float(value)
        elif number == 3:
            expect(number, wire, VARINT, f"pieces[{index}].type", source)
            kind = value
            if kind not in TYPE_NAMES:
                raise TokvizError(f"piece {index} ({piece!r}) has unknown type {kind}", source)
    return piece, score, kind


def _parse_message(data: bytes, schema: dict, defaults: dict, what: str, source) -> dict:
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in defaults.items()}
    for number, wire, value in iter_fields(data, source=source):
        spec = schema.get(number)
        if spec is None:
            continue
        name, kind = spec
        expect(number, wire, _WIRE[kind], f"{what}.{name}", source)
        if kind == "str":
            out[name] = as_string(value, f"{what}.{name}", source)
        elif kind == "strs":
            out[name].append(as_string(value, f"{what}.{name}", source))
        elif kind == "bytes":
            out[name] = value
        elif kind == "bool":
            out[name] = value != 0
        elif kind == "int":
            out[name] = as_signed(value, 32)
        else:
            out[name] = as_float(value)
    return out


def build_tokenizer(proto: dict, path) -> Tokenizer:
    """A Tokenizer from a parsed ModelProto, after sentencepiece's own load-time checks."""
    pieces, scores, types = proto["pieces"], proto["scores"], proto["types"]
    trainer, norm_spec, denorm_spec = proto["trainer_spec"], proto["normalizer_spec"], proto["denormalizer_spec"]
    model_type = trainer["model_type"]
    kind = MODEL_TYPES.get(model_type)
    if kind is None:
        raise TokvizError(f"unknown sentencepiece model_type {model_type}", path)
    if kind in ("word", "char"):
        raise TokvizError(f"sentencepiece {kind.upper()} models are not supported (only BPE and UNIGRAM)", path)
    byte_fallback = trainer["byte_fallback"]
    try:
        table = PieceTable(pieces, scores, types, byte_fallback=byte_fallback, vocab=proto.get("vocab"))
    except TokvizError as exc:
        raise TokvizError(exc.reason, path) from None
    suffix = trainer["treat_whitespace_as_suffix"]
    if kind == "bpe":
        model = SentencePieceBPE(table, byte_fallback=byte_fallback, treat_whitespace_as_suffix=suffix)
    else:
        model = SentencePieceUnigram(table, byte_fallback=byte_fallback)

    normalizer = SentencePieceNormalizer(
        CharsMap(norm_spec["precompiled_charsmap"], source=path),
        user_defined=PrefixMatcher(table.user_defined),
        add_dummy_prefix=norm_spec["add_dummy_prefix"],
        remove_extra_whitespaces=norm_spec["remove_extra_whitespaces"],
        escape_whitespaces=norm_spec["escape_whitespaces"],
        treat_whitespace_as_suffix=suffix,
        name=norm_spec["name"] or None,
    )
    denormalizer = None
    if denorm_spec is not None and denorm_spec["precompiled_charsmap"]:
        denormalizer = SentencePieceNormalizer(
            CharsMap(denorm_spec["precompiled_charsmap"], source=path),
            add_dummy_prefix=denorm_spec["add_dummy_prefix"],
            remove_extra_whitespaces=denorm_spec["remove_extra_whitespaces"],
            escape_whitespaces=denorm_spec["escape_whitespaces"],
            name=denorm_spec["name"] or None,
        )
    decoder = SentencePieceDecoder(
        table,
        add_dummy_prefix=norm_spec["add_dummy_prefix"],
        remove_extra_whitespaces=norm_spec["remove_extra_whitespaces"],
        unk_surface=trainer["unk_surface"],
        denormalizer=denormalizer,
    )
    if "other_fields" in proto:
        ORIGINAL_FIELDS[model] = proto["other_fields"]
    controls = [AddedToken(pieces[i], i, special=True) for i in table.special_ids if types[i] == CONTROL]
    extra = {
        "model_type": kind,
        "normalizer": normalizer.describe(),
        "normalization_rule": norm_spec["name"] or ("identity" if not norm_spec["precompiled_charsmap"] else None),
        "byte_fallback": byte_fallback,
        "add_dummy_prefix": norm_spec["add_dummy_prefix"],
        "remove_extra_whitespaces": norm_spec["remove_extra_whitespaces"],
        "escape_whitespaces": norm_spec["escape_whitespaces"],
        "treat_whitespace_as_suffix": suffix,
        "split_digits": trainer["split_digits"],
        "split_by_whitespace": trainer["split_by_whitespace"],
        "character_coverage": round(trainer["character_coverage"], 6),
        "trained_vocab_size": trainer["vocab_size"],
        "max_sentencepiece_length": trainer["max_sentencepiece_length"],
        "unk_id": table.unk_id,
        "bos_id": trainer["bos_id"],
        "eos_id": trainer["eos_id"],
        "pad_id": trainer["pad_id"],
        "unk_surface": trainer["unk_surface"],
        "user_defined_symbols": list(table.user_defined),
        "control_symbols": [t.content for t in controls],
        "piece_types": {TYPE_NAMES[t]: n for t in sorted(TYPE_NAMES) if (n := table.type_codes.count(t))},
        "denormalizer": (denorm_spec["name"] or "charsmap") if denormalizer else None,
        "self_test_samples": proto["self_test_samples"],
    }
    return Tokenizer(
        model,
        added_tokens=controls,
        special_in_text=False,
        space_marker="\u2581",
        source=Source("sentencepiece", os.fspath(path), name=Path(path).stem, extra=extra),
        text_normalizer=normalizer,
        decode_fn=decoder,
    )
