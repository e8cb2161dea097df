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

import math
import os
import re
import struct
import weakref
from array import array
from pathlib import Path

from ..core.added import AddedToken
from ..core.charsmap import CharsMap, sentencepiece_charsmap_problem
from ..core.sentencepiece import (
    CONTROL,
    DEFAULT_UNK_SURFACE,
    NORMAL,
    TYPE_NAMES,
    PieceTable,
    PrefixMatcher,
    SentencePieceBPE,
    SentencePieceChar,
    SentencePieceDecoder,
    SentencePieceNormalizer,
    SentencePieceUnigram,
    SentencePieceWord,
)
from .. import native
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ._util import read_bytes
from .protobuf import GROUP_START, LEN, FieldSpec, MessageSpec, parse_message, read_field

_F32 = struct.Struct("<f")

MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}
MAX_PIECE_BYTES = 8000  # sentencepiece refuses a piece this long or longer

_SURROGATE = re.compile("[\ud800-\udfff]")
_S = FieldSpec
# The schema of sentencepiece_model.proto, the fields tokviz reads (others are skipped, as
# protobuf skips fields it does not know).  ModelProto's field 4 (self_test_data) is not in the
# schema sentencepiece reads models with: it is counted for `info` only when it parses.
PIECE_SPEC = MessageSpec("SentencePiece", {
    1: _S("piece", "string"), 2: _S("score", "float"), 3: _S("type", "enum", values=frozenset(TYPE_NAMES)),
})
TRAINER_SPEC = MessageSpec("TrainerSpec", {
    2: _S("model_prefix", "string"),
    3: _S("model_type", "enum", values=frozenset(MODEL_TYPES)),
    4: _S("vocab_size", "int32"),
    10: _S("character_coverage", "float"),
    20: _S("max_sentencepiece_length", "int32"),
    21: _S("split_by_unicode_script", "bool"),
    22: _S("split_by_whitespace", "bool"),
    23: _S("split_by_number", "bool"),
    24: _S("treat_whitespace_as_suffix", "bool"),
    25: _S("split_digits", "bool"),
    26: _S("allow_whitespace_only_pieces", "bool"),
    30: _S("control_symbols", "string", repeated=True),
    31: _S("user_defined_symbols", "string", repeated=True),
    35: _S("byte_fallback", "bool"),
    40: _S("unk_id", "int32"),
    41: _S("bos_id", "int32"),
    42: _S("eos_id", "int32"),
    43: _S("pad_id", "int32"),
    44: _S("unk_surface", "string"),
    45: _S("unk_piece", "string"),
    46: _S("bos_piece", "string"),
    47: _S("eos_piece", "string"),
    48: _S("pad_piece", "string"),
    53: _S("pretokenization_delimiter", "string"),
})
TRAINER_DEFAULTS = {
    "model_type": 1, "vocab_size": 8000, "character_coverage": 0.9995, "max_sentencepiece_length": 16,
    "split_by_unicode_script": True, "split_by_whitespace": True, "split_by_number": True,
    "treat_whitespace_as_suffix": False, "split_digits": False, "allow_whitespace_only_pieces": False,
    "control_symbols": [], "user_defined_symbols": [], "byte_fallback": False,
    "unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1, "unk_surface": DEFAULT_UNK_SURFACE,
}
NORMALIZER_SPEC = MessageSpec("NormalizerSpec", {
    1: _S("name", "string"),
    2: _S("precompiled_charsmap", "bytes"),
    3: _S("add_dummy_prefix", "bool"),
    4: _S("remove_extra_whitespaces", "bool"),
    5: _S("escape_whitespaces", "bool"),
})
NORMALIZER_DEFAULTS = {
    "name": "", "precompiled_charsmap": b"", "add_dummy_prefix": True,
    "remove_extra_whitespaces": True, "escape_whitespaces": True,
}
SELF_TEST_SPEC = MessageSpec("SelfTestData", {
    1: _S("samples", "message", repeated=True, message=MessageSpec("Sample", {1: _S("input", "string"), 2: _S("expected", "string")})),
})
MODEL_SPEC = MessageSpec("ModelProto", {
    1: _S("pieces", "message", repeated=True, message=PIECE_SPEC),
    2: _S("trainer_spec", "message", message=TRAINER_SPEC),
    3: _S("normalizer_spec", "message", message=NORMALIZER_SPEC),
    5: _S("denormalizer_spec", "message", message=NORMALIZER_SPEC),
})
# strings that reach encoded or decoded text keep undecodable bytes as surrogates (never matched
# by text, refused when decoding); the others are shown only
_TEXT_STRINGS = {"unk_surface"}
# model -> the ModelProto fields other than pieces, as read (number, wire type, value), so that a
# written .model keeps its specs byte for byte (see sentencepiece_writer).
ORIGINAL_FIELDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def read_sentencepiece(path: str | os.PathLike) -> Tokenizer:
    """Read a sentencepiece .model (BPE, Unigram, WORD or CHAR) into a Tokenizer that encodes and
    decodes exactly like `sentencepiece.SentencePieceProcessor` with default options; what
    sentencepiece refuses to load is refused (a TokvizError naming the file and the field)."""
    path = Path(path)
    data = read_bytes(path)
    if data[:64].lstrip()[:1] in (b"{", b"["):
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "looks like JSON text, not a sentencepiece .model (a binary "
                                                       "protobuf file)"), path)
    try:
        proto = parse_model_proto(data, path)
    except TokvizError as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "not a valid sentencepiece model: {reason}"),
                                  reason=exc.reason), path) from None
    return build_tokenizer(proto, path)


def parse_model_proto(data: bytes, source=None) -> dict:
    """The fields of a serialized ModelProto that tokviz uses, as plain Python values, read as
    sentencepiece's protobuf reads them (see `protobuf.parse_message`): a spec message given
    twice is merged, pieces may come anywhere, fields of the wrong wire type are skipped."""
    pieces: list[str] = []
    scores = array("f")  # float32, as stored
    types = bytearray()  # one type code per piece
    vocab = None  # piece -> first id, when the C reader read every piece
    specs: dict = {}
    self_tests = 0
    other_fields: list[tuple[int, int, int | bytes]] = []
    model_fields = MODEL_SPEC.fields
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
        if number != 1 and wire != GROUP_START:
            other_fields.append((number, wire, value))
        if wire != LEN:
            continue  # a group, or a field of another wire type than the schema's: skipped
        if number == 1:
            piece, score, kind = _parse_piece(value, len(pieces), source)
            pieces.append(piece)
            scores.append(score)
            types.append(kind)
        elif number in model_fields:
            field = model_fields[number]
            parse_message(value, field.message, source=source, into=specs.setdefault(field.name, {}))
        elif number == 4:
            self_tests += _count_self_tests(value)
    if not pieces:  # (sentencepiece refuses it too: no unknown piece)
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "no pieces (vocabulary) found"), source)
    if vocab is not None and vocab_count != len(pieces):
        vocab = None  # more pieces followed in another layout: PieceTable builds it
    denormalizer = specs.get("denormalizer_spec")
    return {
        "pieces": pieces, "scores": scores, "types": types, "vocab": vocab,
        "trainer_spec": _with_defaults(specs.get("trainer_spec", {}), TRAINER_DEFAULTS),
        "normalizer_spec": _with_defaults(specs.get("normalizer_spec", {}), NORMALIZER_DEFAULTS),
        "denormalizer_spec": None if denormalizer is None else _with_defaults(denormalizer, NORMALIZER_DEFAULTS),
        "self_test_samples": self_tests, "other_fields": other_fields,
    }


def _with_defaults(fields: dict, defaults: dict) -> dict:
    """A spec's values by name: the defaults, overridden by what the file sets (strings decoded)."""
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in defaults.items()}
    for name, value in fields.items():
        if name == "precompiled_charsmap":
            out[name] = value
        elif isinstance(value, bytes):
            out[name] = _text(value, name)
        elif isinstance(value, list):
            out[name] = [_text(v, name) for v in value]
        else:
            out[name] = value
    return out


def _text(value: bytes, name: str) -> str:
    return value.decode("utf-8", "surrogateescape" if name in _TEXT_STRINGS else "replace")


def _count_self_tests(data: bytes) -> int:
    """How many samples a self_test_data message holds (0 when it does not parse: sentencepiece
    does not read this field)."""
    try:
        return len(parse_message(data, SELF_TEST_SPEC).get("samples", []))
    except TokvizError:
        return 0


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
            break  # an unknown type is left aside by protobuf: the caller reads this piece
        raw.append(data[sub + 2 : sub + 2 + n])
        scores.append(score)
        types.append(kind)
        pos = stop
    pieces += [b.decode("utf-8", "surrogateescape") for b in raw]
    return pos, run_vocab


def _parse_piece(data: bytes, index: int, source) -> tuple[str, float, int]:
    """(piece, score, type) of one SentencePiece message; a piece that is not UTF-8 keeps its
    bytes as surrogates (protobuf does not check; sentencepiece loads it, never matches it)."""
    fields = parse_message(data, PIECE_SPEC, source=source)
    piece = fields.get("piece", b"").decode("utf-8", "surrogateescape")
    return piece, fields.get("score", 0.0), fields.get("type", NORMAL)


def _check_pieces(pieces: list[str], scores, kind: str, path) -> None:
    """sentencepiece's load-time checks of the pieces that PieceTable does not make: no piece of
    MAX_PIECE_BYTES or more, none holding a NUL character, and for Unigram only finite scores."""
    longest = max(map(len, pieces), default=0)
    if longest * 4 >= MAX_PIECE_BYTES:  # (a character is at most 4 bytes: look closer only then)
        for i, p in enumerate(pieces):
            size = len(p.encode("utf-8", "surrogateescape"))
            if size >= MAX_PIECE_BYTES:
                raise TokvizError(f"piece {i} is {size} bytes long; sentencepiece refuses pieces of "
                                  f"{MAX_PIECE_BYTES} bytes or more", path)
    joined = "\1".join(pieces)
    if "\0" in joined:
        i = next(i for i, p in enumerate(pieces) if "\0" in p)
        raise TokvizError(f"piece {i} ({pieces[i]!r}) holds a NUL character, which sentencepiece refuses", path)
    if _SURROGATE.search(joined):
        i = next(i for i, p in enumerate(pieces) if _SURROGATE.search(p))
        raw = pieces[i].encode("utf-8", "surrogateescape")
        raise TokvizError(f"piece {i} ({raw!r}) is not valid UTF-8; sentencepiece loads such a piece but cannot "
                          "decode it, and tokviz does not take pieces that are not text", path)
    if kind == "unigram" and not all(map(math.isfinite, scores)):
        i = next(i for i, v in enumerate(scores) if not math.isfinite(v))
        raise TokvizError(f"pieces[{i}].score ({pieces[i]!r}) is {scores[i]}; sentencepiece refuses a Unigram "
                          "model with a NaN or infinite score", path)


def build_tokenizer(proto: dict, path) -> Tokenizer:
    """A Tokenizer from a parsed ModelProto, after sentencepiece's own load-time checks."""
    pieces, scores, types = proto["pieces"], proto["scores"], proto["types"]
    trainer, norm_spec, denorm_spec = proto["trainer_spec"], proto["normalizer_spec"], proto["denormalizer_spec"]
    model_type = trainer["model_type"]
    kind = MODEL_TYPES.get(model_type)
    if kind is None:
        raise TokvizError(f"unknown sentencepiece model_type {model_type}", path)
    _check_pieces(pieces, scores, kind, path)
    for spec_name, spec in (("normalizer_spec", norm_spec), ("denormalizer_spec", denorm_spec)):
        problem = spec and sentencepiece_charsmap_problem(spec["precompiled_charsmap"])
        if problem:
            raise TokvizError(f"{spec_name}.precompiled_charsmap {problem}; sentencepiece refuses it", path)
    byte_fallback = trainer["byte_fallback"]
    try:
        table = PieceTable(pieces, scores, types, byte_fallback=byte_fallback, vocab=proto.get("vocab"),
                           reserved_apart=kind != "bpe")
    except TokvizError as exc:
        raise TokvizError(exc.reason, path) from None
    suffix = trainer["treat_whitespace_as_suffix"]
    if kind == "bpe":
        model = SentencePieceBPE(table, byte_fallback=byte_fallback, treat_whitespace_as_suffix=suffix)
    elif kind == "char":
        model = SentencePieceChar(table, byte_fallback=byte_fallback)
    elif kind == "word":
        model = SentencePieceWord(table, byte_fallback=byte_fallback)  # (sentencepiece 0.2.3 cuts words in front of '▁' only)
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
