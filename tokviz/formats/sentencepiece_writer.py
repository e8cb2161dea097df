"""Write a sentencepiece model as a `.model` file: a ModelProto serialized by hand.

    ModelProto      1 pieces   2 trainer_spec   3 normalizer_spec   4 self_test_data   5 denormalizer_spec
    SentencePiece   1 piece    2 score (float)  3 type (written when not NORMAL)

A model read from a .model keeps every other field as it was read, byte for byte (its training
options included).  `scrub=True` drops what tells about the training data: TrainerSpec's input
files (1), input_format (7), model_prefix (2) and seed_sentencepieces_file (54), and the
self-test samples (4), which are sentences of the training corpus.
"""
from __future__ import annotations

from pathlib import Path

from ..core.sentencepiece import (
    NORMAL,
    SentencePieceBPE,
    SentencePieceChar,
    SentencePieceNormalizer,
    SentencePieceUnigram,
    SentencePieceWord,
)
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from .atomic_write import write_bytes_atomic
from .protobuf import I32, LEN, VARINT, encode_field, encode_string, float_bits, iter_fields
from .sentencepiece import ORIGINAL_FIELDS

# TrainerSpec fields that name training files or outputs; ModelProto.self_test_data.
TRAINING_PATH_FIELDS = {1: "input", 2: "model_prefix", 7: "input_format", 54: "seed_sentencepieces_file"}
SELF_TEST_DATA = 4


def sentencepiece_problem(tok: Tokenizer) -> str | None:
    """Why a sentencepiece .model cannot hold `tok` (None: it can)."""
    if not isinstance(tok.model, (SentencePieceBPE, SentencePieceUnigram, SentencePieceChar, SentencePieceWord)) or not isinstance(
        tok.text_normalizer, SentencePieceNormalizer
    ):
        return (f"a sentencepiece .model holds sentencepiece models only (loaded from a .model); this is a "
                f"{tok.model.kind} with an HF-style pipeline, whose normalizer and pre-tokenizer a .model cannot express")
    table = tok.model.table
    extra = [t.content for t in tok.added.tokens
             if not (t.id < len(table.pieces) and table.pieces[t.id] == t.content)]
    if extra:
        return f"added tokens outside the pieces ({extra[0]!r}) have no place in a .model"
    return None


def model_proto_bytes(tok: Tokenizer, *, scrub: bool = False) -> bytes:
    problem = sentencepiece_problem(tok)
    if problem:
        raise TokvizError(problem)
    model = tok.model
    table = model.table
    out = bytearray()
    for piece, score, kind in zip(table.pieces, table.scores, table.types):
        body = encode_string(1, piece) + encode_field(2, I32, float_bits(score))
        if kind != NORMAL:
            body += encode_field(3, VARINT, kind)
        out += encode_field(1, LEN, body)
    fields = ORIGINAL_FIELDS.get(model.edited_from or model)  # (an edit keeps the file's specs)
    if fields is None:
        fields = _spec_fields(tok)
    for number, wire, value in fields:
        if scrub and number == SELF_TEST_DATA:
            continue
        if scrub and number == 2 and wire == LEN:
            value = scrub_trainer_spec(value)
        out += encode_field(number, wire, value)
    return bytes(out)


def scrub_trainer_spec(data: bytes) -> bytes:
    """The TrainerSpec without the fields that name training files."""
    return b"".join(encode_field(n, w, v) for n, w, v in iter_fields(data) if n not in TRAINING_PATH_FIELDS)


def write_sentencepiece(tok: Tokenizer, path: Path, *, overwrite: bool = True, scrub: bool = False) -> list[Path]:
    write_bytes_atomic(path, model_proto_bytes(tok, scrub=scrub), overwrite=overwrite)
    return [path]


def _spec_fields(tok: Tokenizer) -> list[tuple[int, int, int | bytes]]:
    """trainer_spec and normalizer_spec rebuilt from the pipeline, for a model not read from a file."""
    model, norm = tok.model, tok.text_normalizer
    model_type = {SentencePieceBPE: 2, SentencePieceWord: 3, SentencePieceChar: 4}.get(type(model), 1)
    trainer = (encode_field(3, VARINT, model_type)
               + encode_field(4, VARINT, len(model.table.pieces))
               + encode_field(24, VARINT, int(norm.treat_whitespace_as_suffix))
               + encode_field(35, VARINT, int(model.byte_fallback)))
    unk_surface = getattr(tok.decode_fn, "unk_surface", None)
    if unk_surface is not None:
        trainer += encode_string(44, unk_surface)
    fields = [(2, LEN, trainer), (3, LEN, _normalizer_spec(norm))]
    denorm = getattr(tok.decode_fn, "denormalizer", None)
    if denorm is not None:
        fields.append((5, LEN, _normalizer_spec(denorm)))
    return fields


def _normalizer_spec(norm: SentencePieceNormalizer) -> bytes:
    out = encode_string(1, norm.name) if norm.name else b""
    if norm.charsmap is not None:
        out += encode_field(2, LEN, norm.charsmap.blob)
    return (out + encode_field(3, VARINT, int(norm.add_dummy_prefix))
            + encode_field(4, VARINT, int(norm.remove_extra_whitespaces))
            + encode_field(5, VARINT, int(norm.escape_whitespaces)))
