"""Writes the hostile-file corpus of this folder and its MANIFEST.json.

The files are committed; this script says how each one was made, so that a case can be changed
or added and the corpus written again:

    python tests/hostile/make_corpus.py      (needs the zstd command; ../shared for one truncated file)

Each case: the file (a folder holds a GPT-2 vocab.json + merges.txt pair), what it is, how the
test opens it ("tokenizer": tokviz.load(file), "gpt2-pair": tokviz.load(folder), "text": the
explorer's text reading), and words the error must contain.  Files of many GB, FIFOs and symlink
loops are made by the tests themselves (sparse or in tmp_path), not committed.
"""
from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import pickle
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "tokenizers"
SIMPLE_PATTERN = r"\s*\S+|\s+"  # split regex passed for .tiktoken cases not named after an encoding

# ---- building blocks ------------------------------------------------------------------------------


def byte_chars() -> list[str]:
    """GPT-2's byte -> printable character table, written out here so the corpus does not depend on tokviz."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = [], 0
    for b in range(256):
        if b in keep:
            chars.append(chr(b))
        else:
            chars.append(chr(256 + extra))
            extra += 1
    return chars


def bpe_json(**model_overrides) -> dict:
    """A small valid byte-level BPE tokenizer.json (256 byte tokens, a few merges, one added token)."""
    vocab = {c: i for i, c in enumerate(byte_chars())}
    merges = ["Ġ t", "h e", "Ġt he", "i n"]
    for m in merges:
        vocab[m.replace(" ", "")] = len(vocab)
    model = {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocab, "merges": merges}
    model.update(model_overrides)
    return {
        "version": "1.0",
        "added_tokens": [{"id": len(vocab), "content": "<|endoftext|>", "special": True, "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": False}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "model": model,
    }


def unigram_json(vocab) -> dict:
    return {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": False}}


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number: int, wire: int, value) -> bytes:
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(value)
    if wire == 2:
        return key + varint(len(value)) + value
    if wire == 5:
        return key + value
    raise ValueError(wire)


def sp_piece(piece: bytes, score: float, kind: int | None = None) -> bytes:
    body = field(1, 2, piece) + field(2, 5, struct.pack("<f", score))
    if kind is not None:
        body += field(3, 0, kind)
    return field(1, 2, body)


SP_PIECES = [(b"<unk>", 0.0, 2), (b"<s>", 0.0, 3), (b"</s>", 0.0, 3), ("▁".encode(), -1.0, None),
             (b"a", -2.0, None), (b"b", -2.5, None), ("▁a".encode(), -3.0, None)]


def sp_trainer(model_type: int = 1, extra: bytes = b"") -> bytes:
    return field(2, 2, field(3, 0, model_type) + field(4, 0, len(SP_PIECES)) + extra)


def sp_normalizer(charsmap: bytes | None = None) -> bytes:
    body = field(1, 2, b"identity")
    if charsmap is not None:
        body += field(2, 2, charsmap)
    return field(3, 2, body)


def sp_model(pieces=SP_PIECES, trainer: bytes | None = None, normalizer: bytes | None = None) -> bytes:
    """A small valid sentencepiece unigram ModelProto (or one with the parts given)."""
    body = b"".join(sp_piece(*p) for p in pieces)
    return body + (sp_trainer() if trainer is None else trainer) + (sp_normalizer() if normalizer is None else normalizer)


def b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


def tiktoken_text(extra_lines=()) -> str:
    lines = [f"{b64(bytes([b]))} {b}" for b in range(256)]
    lines += [f"{b64(t)} {256 + k}" for k, t in enumerate([b" t", b"he", b" the", b"in"])]
    return "\n".join(lines + list(extra_lines)) + "\n"


GPT2_MERGES = "#version: 0.2\nĠ t\nh e\nĠt he\ni n\n"


def gpt2_vocab() -> dict:
    return bpe_json()["model"]["vocab"]


class _RunsCode:
    """Pickles to a call of os.system: what a hostile pickle does when it is loaded."""

    def __reduce__(self):
        return os.system, ("echo tokviz must never unpickle this",)


def gzip_bomb(megabytes: int) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0) as gz:
        block = bytes(1 << 20)
        for _ in range(megabytes):
            gz.write(block)
    return buf.getvalue()


def zip_of(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        zf.writestr(info, data)
    return buf.getvalue()


def zstd_of(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-q", "-c", "-19"], input=data, stdout=subprocess.PIPE, check=True).stdout


def tiny_png() -> bytes:
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 4 for _ in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def tiny_elf() -> bytes:
    """An ELF-64 header (x86-64, executable) followed by zero padding: the start of any Linux program."""
    header = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + struct.pack("<HHIQQQIHHHHHH", 2, 0x3E, 1, 0x401000, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    return header + bytes(512)


def replaced(text, old, new):
    """`text` with the first `old` replaced by `new` (which must be there)."""
    assert old in text, old
    return text.replace(old, new, 1)


def js(data, **kw) -> bytes:
    return json.dumps(data, ensure_ascii=False, **kw).encode("utf-8")


# ---- the cases ------------------------------------------------------------------------------------

CASES: list[dict] = []


def case(name: str, content: bytes | str | dict | list, what: str, words: list[str], *, open: str = "tokenizer",
         category: str, pattern: str | None = None, companions: dict[str, bytes | str] | None = None):
    CASES.append({"file": name, "what": what, "category": category, "open": open, "words": words,
                  **({"pattern": pattern} if pattern else {}),
                  "content": content, "companions": companions or {}})


def gpt2_pair(folder: str, what: str, words: list[str], *, category: str, broken: str,
              vocab=None, merges=None, extra: dict | None = None):
    """A GPT-2 folder; `broken` names the file of the pair the error must name."""
    files = {"vocab.json": js(gpt2_vocab()) if vocab is None else vocab,
             "merges.txt": GPT2_MERGES if merges is None else merges, **(extra or {})}
    content = files.pop(broken)
    case(f"{folder}/{broken}", content, what, words, open="gpt2-pair", category=category, companions=files)


def build_cases() -> None:
    ok = bpe_json()
    ok_text = json.dumps(ok, ensure_ascii=False, indent=2)

    # -- truncated, each format
    case("tokenizer_json_truncated.json", ok_text[: len(ok_text) * 2 // 3], "tokenizer.json cut two thirds in",
         ["malformed JSON"], category="truncated")
    case("tokenizer_json_empty.json", b"", "a zero-byte tokenizer.json", ["malformed JSON", "line 1"], category="truncated")
    case("tiktoken_truncated.tiktoken", tiktoken_text()[:-6], "a .tiktoken cut in the middle of its last line",
         ["line 260", "expected 'base64 rank'"], pattern=SIMPLE_PATTERN, category="truncated")
    case("tiktoken_empty.tiktoken", b"", "an empty .tiktoken", ["no ranks"], pattern=SIMPLE_PATTERN, category="truncated")
    real_sp = SHARED / "sentencepiece" / "unigram_8k.model"
    sp_cut = real_sp.read_bytes()[:60_001] if real_sp.exists() else sp_model()[:-7]
    case("sp_model_truncated.model", sp_cut, "a real unigram .model cut after 60 KB (in the middle of its pieces)",
         ["not a valid sentencepiece model", "truncated"], category="truncated")
    case("sp_model_empty.model", b"", "a zero-byte .model", ["no pieces"], category="truncated")
    case("minbpe_truncated.model", "minbpe v1\n", "a minbpe .model that stops after its version line",
         ["truncated minbpe model"], category="truncated")
    case("minbpe_truncated_merge_line.model", "minbpe v1\n\\w+| ?\\S+\n0\n104 101\n3",
         "a minbpe .model cut inside its last merge line", ["line 5", "expected two token ids"], category="truncated")
    case("wordpiece_truncated_before_unk.txt", "[PAD]\n" + "".join(f"[unused{i}]\n" for i in range(40)) + "the\nof\nan",
         "a BERT vocab.txt cut before its [UNK] line", ["no [UNK] token"], category="truncated")
    gpt2_pair("gpt2_vocab_truncated", "vocab.json of a GPT-2 pair cut in half", ["malformed JSON"],
              category="truncated", broken="vocab.json", vocab=js(gpt2_vocab())[:1500])
    gpt2_pair("gpt2_merges_truncated", "merges.txt cut in the middle of a line", ["merge 5", "two tokens"],
              category="truncated", broken="merges.txt", merges=GPT2_MERGES + "Ġ")

    # -- malformed JSON
    case("tokenizer_json_trailing_comma.json", ok_text[:-2] + ",\n}",
         "a trailing comma before the closing brace", ["malformed JSON"], category="malformed JSON")
    case("tokenizer_json_python_dict.json", repr({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "normalizer": None}),
         "a Python dict repr (single quotes, None) instead of JSON", ["malformed JSON", "line 1"], category="malformed JSON")
    case("tokenizer_json_two_documents.json", json.dumps(ok) + "\n" + json.dumps(ok), "two JSON documents one after the other",
         ["malformed JSON", "Extra data"], category="malformed JSON")
    case("tokenizer_json_newline_in_string.json", '{"model": {"type": "BPE", "vocab": {"a": 0, "b\n": 1}}}',
         "a raw newline inside a string", ["malformed JSON", "line 1", "control character"], category="malformed JSON")
    case("tokenizer_json_deeply_nested.json", "[" * 50_000 + "]" * 50_000, "50,000 nested lists",
         ["nested too deeply"], category="malformed JSON")
    deep = '{"type": "Sequence", "normalizers": [' * 2000 + '{"type": "Lowercase"}' + "]}" * 2000
    case("tokenizer_json_deep_normalizer_sequence.json", replaced(ok_text, '"normalizer": null', '"normalizer": ' + deep),
         "a normalizer Sequence nested 2000 deep", ["nested too deeply"], category="malformed JSON")
    case("tokenizer_json_giant_number_literal.json", replaced(ok_text, '"!": 33', '"!": ' + "9" * 5000),
         "a vocabulary id written with 5000 digits", ["number", "digits"], category="giant numbers")
    case("tokenizer_json_utf16.json", ok_text.encode("utf-16"), "tokenizer.json saved as UTF-16 (with a BOM)",
         ["UTF-16"], category="malformed JSON")

    # -- wrong types
    case("tokenizer_json_root_is_list.json", [ok], "the top level is a list, not an object", ["expected an object", "list"],
         category="wrong types")
    case("tokenizer_json_null.json", b"null", "the file holds just null", ["expected an object", "null"], category="wrong types")
    case("tokenizer_json_model_is_string.json", {**ok, "model": "BPE"}, "model is a string", ["model", "expected dict", "string"],
         category="wrong types")
    case("tokenizer_json_vocab_id_string.json", bpe_json(vocab={**gpt2_vocab(), "hello": "7"}), "a vocabulary id given as a string",
         ["'hello'", "'7'", "integer"], category="wrong types")
    case("tokenizer_json_vocab_id_float.json", bpe_json(vocab={**gpt2_vocab(), "hello": 7.5}), "a vocabulary id that is 7.5",
         ["'hello'", "7.5", "integer"], category="wrong types")
    case("tokenizer_json_vocab_id_nan.json", json.dumps(bpe_json(vocab={**gpt2_vocab(), "hello": float("nan")})),
         "a vocabulary id that is NaN (Python's json writes and reads it)", ["'hello'", "nan", "integer"], category="wrong types")
    case("tokenizer_json_vocab_is_list.json", bpe_json(vocab=[["a", 0]]), "a BPE vocab given as a list",
         ["model.vocab", "expected dict", "list"], category="wrong types")
    case("tokenizer_json_merges_is_object.json", bpe_json(merges={"Ġ t": 0}), "merges given as an object",
         ["model.merges", "expected list", "object"], category="wrong types")
    case("tokenizer_json_merge_is_number.json", bpe_json(merges=["Ġ t", 42]), "a merge that is a number",
         ["merges[1]", "42"], category="wrong types")
    case("tokenizer_json_added_token_no_content.json", {**ok, "added_tokens": [{"id": 300, "content": None}]},
         "an added token without content", ["added_tokens[0]", "content"], category="wrong types")
    case("tokenizer_json_added_tokens_is_object.json", {**ok, "added_tokens": {"<s>": 0}}, "added_tokens is an object",
         ["added_tokens", "expected list"], category="wrong types")
    case("tokenizer_json_added_token_special_string.json",
         {**ok, "added_tokens": [{"id": 262, "content": "<s>", "special": "yes"}]}, "an added token whose 'special' is a string",
         ["added_tokens[0].special", "expected bool"], category="wrong types")
    case("tokenizer_json_normalizers_not_list.json", {**ok, "normalizer": {"type": "Sequence", "normalizers": {"type": "NFC"}}},
         "a normalizer Sequence whose list is an object", ["normalizer.normalizers", "expected list"], category="wrong types")
    case("tokenizer_json_split_pattern_int.json",
         {**ok, "pre_tokenizer": {"type": "Split", "pattern": 5, "behavior": "Isolated", "invert": False}},
         "a Split pre-tokenizer whose pattern is a number", ["pre_tokenizer.pattern", "expected dict"], category="wrong types")
    case("tokenizer_json_unigram_bad_pair.json", unigram_json([["<unk>", 0.0], ["▁a", "high"], ["a", -2.0]]),
         "a Unigram piece whose score is a string", ["vocab[1]", "[piece, score]"], category="wrong types")
    case("tokenizer_json_template_ids_strings.json",
         {**ok, "post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}],
                                   "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": ["0"], "tokens": ["<s>"]}}}},
         "TemplateProcessing special token ids given as strings", ["special_tokens.<s>", "ids[0]"], category="wrong types")
    case("tokenizer_json_decoder_strip_start_string.json", {**ok, "decoder": {"type": "Strip", "content": " ", "start": "1", "stop": 0}},
         "a Strip decoder whose start is a string", ["decoder.start", "expected int"], category="wrong types")
    case("tokenizer_json_byte_fallback_string.json", bpe_json(byte_fallback="true"), "byte_fallback given as a string",
         ["model.byte_fallback", "expected bool"], category="wrong types")
    gpt2_pair("gpt2_vocab_is_list", "vocab.json holding a list", ["expected dict", "list"], category="wrong types",
              broken="vocab.json", vocab=js(list(gpt2_vocab())))
    gpt2_pair("gpt2_vocab_float_id", "a vocab.json id that is 1.5", ["1.5", "integer"], category="wrong types",
              broken="vocab.json", vocab=js({**gpt2_vocab(), "hello": 1.5}))
    case("sp_model_wrong_wire_type.model", sp_model() + varint(2 << 3 | 7), "trainer_spec with wire type 7 (none such)",
         ["wire type 7", "field 2"], category="wrong types")
    case("minbpe_special_count_not_number.model", "minbpe v1\n\\w+\nthree\n", "a minbpe special-token count that is a word",
         ["line 3", "number of special tokens"], category="wrong types")

    # -- giant numbers
    case("tokenizer_json_giant_id.json", bpe_json(vocab={**gpt2_vocab(), "hello": 10**30}), "a vocabulary id of 10**30",
         ["1000000000000000000000000000000", "too large"], category="giant numbers")
    case("tokenizer_json_sparse_id.json", bpe_json(vocab={**gpt2_vocab(), "hello": 2**30}), "a vocabulary id of 2**30 in a vocabulary of 261",
         ["1073741824", "out of range"], category="giant numbers")
    case("tokenizer_json_float_overflow.json", replaced(ok_text, '"id": 260', '"id": 1e309'), "an added-token id of 1e309 (read as infinity)",
         ["added_tokens[0].id", "expected int"], category="giant numbers")
    case("tokenizer_json_unigram_infinite_score.json",
         ('{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", 1e309], ["b", -1.0]]}}'),
         "a Unigram score of 1e309 (infinity)", ["vocab[1]", "finite"], category="giant numbers")
    case("tokenizer_json_added_token_giant_id.json", {**ok, "added_tokens": [{"id": 2**40, "content": "<s>", "special": True}]},
         "an added token with id 2**40", ["added_tokens[0]", "1099511627776"], category="giant numbers")
    case("tokenizer_json_added_token_sparse_id.json", {**ok, "added_tokens": [{"id": 10**9, "content": "<s>", "special": True}]},
         "an added token with id 10**9 beside 261 tokens", ["added_tokens[0]", "single_word"], category="giant numbers")
    case("tokenizer_json_template_giant_id.json",
         {**ok, "post_processor": {"type": "TemplateProcessing",
                                   "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                                   "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [10**12], "tokens": ["<s>"]}}}},
         "a TemplateProcessing special token with id 10**12", ["post_processor", "1000000000000"], category="giant numbers")
    gpt2_pair("gpt2_vocab_giant_id", "a vocab.json id of 2**40", ["1099511627776", "too large"], category="giant numbers",
              broken="vocab.json", vocab=js({**gpt2_vocab(), "hello": 2**40}))
    gpt2_pair("gpt2_vocab_sparse_id", "a vocab.json id of 10**9 beside 260 tokens", ["1000000000", "out of range"],
              category="giant numbers", broken="vocab.json", vocab=js({**gpt2_vocab(), "hello": 10**9}))
    case("tiktoken_giant_rank.tiktoken", tiktoken_text([f"{b64(b'hello')} {10**30}"]), "a rank of 10**30",
         ["line 261", "rank", "out of range"], pattern=SIMPLE_PATTERN, category="giant numbers")
    case("tiktoken_sparse_rank.tiktoken", tiktoken_text([f"{b64(b'hello')} {2**31 - 2}"]), "a rank of 2**31-2 beside 260 tokens",
         ["2147483646", "out of range"], pattern=SIMPLE_PATTERN, category="giant numbers")
    case("sp_model_huge_declared_length.model", sp_model() + b"\x22" + varint(2**40) + b"abc",
         "a field that declares a length of 2**40 bytes", ["1099511627776 bytes", "truncated"], category="giant numbers")
    case("minbpe_giant_special_id.model", "minbpe v1\n\\w+\n1\n<|end|> 100000000000000000000\n104 101\n",
         "a minbpe special token with id 10**20", ["100000000000000000000", "too large"], category="giant numbers")
    case("tokenizer_json_strip_giant_count.json", {**ok, "decoder": {"type": "Strip", "content": " ", "start": 2**40, "stop": 0}},
         "a Strip decoder told to strip 2**40 characters (decoding would loop that many times a token)",
         ["decoder", "start 1099511627776", "out of range"], category="giant numbers")
    case("minbpe_merge_5000_digit_id.model", "minbpe v1\n\\w+\n0\n104 101\n" + "7" * 5000 + " 1\n",
         "a minbpe merge whose first id has 5000 digits", ["line 5", "777777", "not defined yet"], category="giant numbers")
    case("tiktoken_5000_digit_rank.tiktoken", tiktoken_text([f"{b64(b'hello')} {'8' * 5000}"]), "a rank with 5000 digits",
         ["line 261", "888888", "out of range"], pattern=SIMPLE_PATTERN, category="giant numbers")
    case("minbpe_huge_special_count.model", "minbpe v1\n\\w+\n999999999999\n", "a minbpe file announcing 10**12 special tokens",
         ["999999999999 special tokens", "ends first"], category="giant numbers")

    # -- cyclic or self-referencing merges
    case("tokenizer_json_merge_self_referencing.json", bpe_json(vocab={**gpt2_vocab(), "": 265}, merges=[["h", ""], "h e"]),
         "a merge of 'h' with the empty token: its result is one of its own parts", ["merges[0]", "empty"],
         category="cyclic merges")
    case("tokenizer_json_merge_line_self_referencing.json", bpe_json(merges=["Ġ t", "he "]),
         "a merge line 'he ' whose second part is empty, so it makes 'he' from 'he'", ["merges[1]", "empty"],
         category="cyclic merges")
    gpt2_pair("gpt2_merges_self_referencing", "a merges.txt line 'Ġt ' that makes 'Ġt' out of itself", ["merge 2", "empty"],
              category="cyclic merges", broken="merges.txt", merges=GPT2_MERGES.replace("h e\n", "Ġt \n"))
    case("minbpe_merge_self_reference.model", "minbpe v1\n\\w+\n0\n256 101\n", "a minbpe merge that uses the id it creates",
         ["line 4", "id 256", "not defined yet"], category="cyclic merges")
    case("minbpe_merge_cycle.model", "minbpe v1\n\\w+\n0\n257 101\n256 104\n",
         "two minbpe merges that each use the other's result (a loop)", ["line 4", "id 257", "not defined yet"],
         category="cyclic merges")
    gpt2_pair("gpt2_merges_unknown_result", "a merge whose result is not in vocab.json", ["merge 5", "not in the vocabulary"],
              category="ids out of range", broken="merges.txt", merges=GPT2_MERGES + "x y\n")

    # -- ids out of range
    case("tokenizer_json_added_token_negative_id.json", {**ok, "added_tokens": [{"id": -1, "content": "<s>", "special": True}]},
         "an added token with id -1", ["added_tokens[0]", "-1", "out of range"], category="ids out of range")
    case("tokenizer_json_unigram_unk_id_out_of_range.json", {**unigram_json([["<unk>", 0.0], ["a", -1.0]]),
                                                             "model": {**unigram_json([])["model"], "vocab": [["<unk>", 0.0], ["a", -1.0]], "unk_id": 7}},
         "a Unigram unk_id of 7 in a vocabulary of 2", ["unk_id 7", "outside the vocabulary"], category="ids out of range")
    case("tokenizer_json_bert_processing_unknown_id.json",
         {**ok, "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 99999], "cls": ["[CLS]", 1]}},
         "a BertProcessing [SEP] id that no token has", ["post_processor", "99999", "no token"], category="ids out of range")
    case("tokenizer_json_merge_unknown_part.json", bpe_json(merges=["Ġ t", "q zz"]), "a merge of tokens not in the vocabulary",
         ["merges[1]", "not in the vocabulary"], category="ids out of range")
    case("sp_model_no_unknown_piece.model", sp_model(pieces=[p for p in SP_PIECES if p[2] != 2]),
         "a sentencepiece model without an <unk> piece", ["no unknown piece"], category="ids out of range")
    gpt2_pair("gpt2_config_added_token_giant_id", "tokenizer_config.json declaring an added token with id 10**15",
              ["1000000000000000"], category="ids out of range", broken="tokenizer_config.json",
              extra={"tokenizer_config.json": js({"added_tokens_decoder": {str(10**15): {"content": "<s>", "special": True}}})})

    # -- duplicate ids and tokens
    case("tokenizer_json_duplicate_ids.json", bpe_json(vocab={**gpt2_vocab(), "hello": 33}), "two tokens with id 33",
         ["id 33", "'!'", "'hello'"], category="duplicate ids")
    case("tokenizer_json_added_token_duplicate_id.json",
         {**ok, "added_tokens": [{"id": 300, "content": "<s>", "special": True}, {"id": 300, "content": "</s>", "special": True}]},
         "two added tokens with the same id", ["added_tokens[0]", "single_word"], category="duplicate ids")
    gpt2_pair("gpt2_vocab_duplicate_ids", "two vocab.json tokens with id 33", ["id 33", "'!'", "'hello'"], category="duplicate ids",
              broken="vocab.json", vocab=js({**gpt2_vocab(), "hello": 33}))
    case("tiktoken_duplicate_rank.tiktoken", tiktoken_text([f"{b64(b'hello')} 7"]), "two tokens with rank 7",
         ["line 261", "rank 7", "two tokens"], pattern=SIMPLE_PATTERN, category="duplicate ids")
    case("tiktoken_duplicate_token.tiktoken", tiktoken_text([f"{b64(b'he')} 300", f"{b64(b'hello')} 300"]),
         "the token 'he' listed twice, its last rank given to another token too",
         ["line 262", "rank 300", "two tokens"], pattern=SIMPLE_PATTERN, category="duplicate ids")
    case("sp_model_duplicate_piece.model", sp_model(pieces=SP_PIECES + [(b"a", -4.0, None)]), "the piece 'a' defined twice",
         ["'a'", "defined twice"], category="duplicate ids")
    case("minbpe_duplicate_special_ids.model", "minbpe v1\n\\w+\n2\n<s> 300\n</s> 300\n104 101\n",
         "two minbpe special tokens with id 300", ["300", "'<s>'", "'</s>'"], category="duplicate ids")

    # -- invalid UTF-8 and surrogates
    case("tokenizer_json_invalid_utf8.json", replaced(ok_text.encode(), b'"h"', b'"h\xff"'),
         "a tokenizer.json with a 0xff byte inside a token", ["not UTF-8", "0xff"], category="invalid UTF-8")
    case("tokenizer_json_lone_surrogate.json", json.dumps(bpe_json(vocab={**gpt2_vocab(), "\ud800": 300})),
         "a token written as the JSON escape \\ud800 (a lone surrogate, not a character)", ["surrogate", "U+D800"],
         category="invalid UTF-8")
    gpt2_pair("gpt2_merges_invalid_utf8", "merges.txt with a broken two-byte sequence", ["not UTF-8"], category="invalid UTF-8",
              broken="merges.txt", merges=GPT2_MERGES.encode() + b"\xc3\x28 x\n")
    case("wordpiece_invalid_utf8.txt", b"[PAD]\n[UNK]\ncaf\xe9\n", "a vocab.txt in Latin-1", ["not UTF-8", "0xe9"],
         category="invalid UTF-8")
    case("sp_model_piece_invalid_utf8.model", sp_model(pieces=SP_PIECES + [(b"\xc3\x28", -5.0, None)]),
         "a sentencepiece piece that is not UTF-8", ["not valid UTF-8"], category="invalid UTF-8")
    case("minbpe_invalid_utf8.model", b"minbpe v1\n\\w+\n1\n<s\xff> 300\n", "a minbpe special token that is not UTF-8",
         ["not UTF-8"], category="invalid UTF-8")

    # -- invalid base64
    case("tiktoken_bad_base64.tiktoken", tiktoken_text(["!!!!a 300"]), "a token that is not base64",
         ["line 261", "invalid base64"], pattern=SIMPLE_PATTERN, category="invalid base64")
    case("tiktoken_base64_bad_padding.tiktoken", tiktoken_text(["aGVsbG8 300"]), "a token with its base64 padding missing",
         ["line 261", "invalid base64"], pattern=SIMPLE_PATTERN, category="invalid base64")
    case("tiktoken_rank_not_number.tiktoken", tiktoken_text([f"{b64(b'hello')} 3e2"]), "a rank written as 3e2",
         ["line 261", "rank", "'3e2'"], pattern=SIMPLE_PATTERN, category="invalid base64")
    case("tokenizer_json_precompiled_bad_base64.json", {**ok, "normalizer": {"type": "Precompiled", "precompiled_charsmap": "%%not base64%%"}},
         "a Precompiled normalizer whose charsmap is not base64", ["normalizer", "base64"], category="invalid base64")
    case("tokenizer_json_precompiled_garbage.json", {**ok, "normalizer": {"type": "Precompiled", "precompiled_charsmap": b64(b"\xff\xff\xff\x7fjunk")}},
         "a Precompiled charsmap that is valid base64 of garbage", ["charsmap", "declares a trie"], category="invalid base64")

    # -- protobuf: varints, lengths, wire types
    case("sp_model_bad_varint_overlong.model", sp_model(trainer=field(2, 2, b"\x20" + b"\xff" * 11 + b"\x01")),
         "a varint of 12 bytes in trainer_spec", ["bad varint", "longer than 10 bytes"], category="protobuf")
    case("sp_model_bad_varint_overflow.model", sp_model() + b"\x98\x80\x80\x80\x80\x00\x00",
         "a field tag written in 6 bytes", ["bad varint", "longer than 5 bytes"], category="protobuf")
    case("sp_model_varint_truncated.model", sp_model() + b"\x2a\xff\xff", "the file ends inside a length varint",
         ["ends inside a varint"], category="protobuf")
    case("sp_model_length_past_end.model", sp_model(pieces=SP_PIECES) + field(1, 2, b"\x0a\x50abc"),
         "a piece whose string declares 80 bytes inside a 5-byte message", ["declares 80 bytes", "remain"], category="protobuf")
    case("sp_model_group_wire_type.model", sp_model() + b"\x33\x00", "a deprecated group field (wire type 3)",
         ["wire type 3"], category="protobuf")
    case("sp_model_field_number_zero.model", b"\x02\x00" + sp_model(), "a field with number 0",
         ["field number 0"], category="protobuf")
    case("sp_model_no_pieces.model", sp_trainer() + sp_normalizer(), "a ModelProto with specs but no pieces",
         ["no pieces"], category="protobuf")
    case("sp_model_unknown_piece_type.model", sp_model(pieces=SP_PIECES + [(b"c\x00", -4.0, 4)]),
         "a piece holding a NUL character", ["NUL", "piece"], category="protobuf")
    case("sp_model_charsmap_garbage.model", sp_model(normalizer=sp_normalizer(b"\xff\xff\xff\x7fgarbage")),
         "a precompiled charsmap declaring a 2 GB trie", ["charsmap", "declares a trie"], category="protobuf")
    case("sp_model_word_type.model", sp_model(trainer=sp_trainer(model_type=3)) + varint(9 << 3 | 6),
         "a WORD model followed by a field of wire type 6 (none such)", ["wire type 6", "field 9"], category="protobuf")
    case("sp_model_is_json.model", ok_text, "a tokenizer.json renamed .model", ["looks like JSON"], category="protobuf")
    case("sp_model_is_text.model", "This is plain English text, saved with a .model name.\n" * 20,
         "plain text renamed .model", ["not a valid sentencepiece model"], category="protobuf")

    # -- compressed files and bombs
    case("gzip_bomb_tokenizer.json", gzip_bomb(64), "64 MB of zeros gzipped to 64 KB, named tokenizer.json",
         ["gzip-compressed", "decompress it first"], category="compressed")
    case("gzip_bomb.tiktoken", gzip_bomb(16), "16 MB of zeros gzipped, named .tiktoken", ["gzip-compressed", "decompress it first"],
         pattern=SIMPLE_PATTERN, category="compressed")
    case("gzip_sentencepiece.model", gzip.compress(sp_model(), mtime=0), "a gzipped sentencepiece model",
         ["gzip-compressed", "decompress it first"], category="compressed")
    case("zip_tokenizer.json", zip_of("tokenizer.json", js(ok)), "a zip archive holding a tokenizer.json",
         ["zip archive", "decompress it first"], category="compressed")
    case("xz_vocab.txt", lzma.compress(b"[PAD]\n[UNK]\nthe\n"), "an xz-compressed vocab.txt", ["xz-compressed"], category="compressed")
    case("bz2_ranks.tiktoken", bz2.compress(tiktoken_text().encode()), "a bzip2-compressed .tiktoken", ["bzip2-compressed"],
         pattern=SIMPLE_PATTERN, category="compressed")
    case("zstd_tokenizer.json", zstd_of(js(ok)), "a zstd-compressed tokenizer.json", ["zstd-compressed"], category="compressed")
    case("text_gzip_bomb.txt.gz", gzip_bomb(64), "64 MB of zeros gzipped, opened as text", ["gzip-compressed", "decompress it first"],
         open="text", category="compressed")
    case("text_zip_archive.zip", zip_of("notes.txt", b"hello\n" * 100), "a zip archive opened as text", ["zip archive"],
         open="text", category="compressed")
    case("text_xz.txt.xz", lzma.compress(b"hello world\n" * 100), "an xz file opened as text", ["xz-compressed"], open="text",
         category="compressed")
    case("text_bz2.txt.bz2", bz2.compress(b"hello world\n" * 100), "a bzip2 file opened as text", ["bzip2-compressed"],
         open="text", category="compressed")
    case("text_zstd.txt.zst", zstd_of(b"hello world\n" * 100), "a zstd file opened as text", ["zstd-compressed"], open="text",
         category="compressed")

    # -- pickles and code
    hostile_pickle = pickle.dumps({"model": _RunsCode()}, protocol=4)
    case("pickle_tokenizer.pkl", hostile_pickle, "a pickle that would call os.system when loaded", ["pickle", "never loads"],
         category="code")
    case("pickle_tokenizer.bin", pickle.dumps(_RunsCode(), protocol=2), "a .bin that is a protocol-2 pickle",
         ["pickle", "never loads"], category="code")
    case("pickle_disguised.model", hostile_pickle, "a pickle named .model", ["pickle"], category="code")
    case("pickle_named_tokenizer.json", pickle.dumps(_RunsCode(), protocol=5), "a pickle named tokenizer.json", ["pickle"],
         category="code")
    case("text_pickle.pkl", hostile_pickle, "a pickle opened as text", ["pickle"], open="text", category="code")
    case("tokenizer_json_python_code.json",
         {**ok, "model": {**ok["model"], "type": "__import__('os').system('echo tokviz must never run this')"},
          "normalizer": {"type": "eval", "code": "exec(open('/etc/passwd').read())"}},
         "a tokenizer.json whose type fields hold Python code", ["unsupported model type", "__import__"], category="code")

    # -- binary files opened as tokenizers or text
    case("png_named_tokenizer.json", tiny_png(), "a PNG image named tokenizer.json", ["PNG image"], category="binary")
    case("elf_named_vocab.txt", tiny_elf(), "an ELF executable named .txt, loaded as a vocabulary", ["ELF"], category="binary")
    case("unknown_binary.bin", bytes(range(256)) * 4, "random-looking bytes with an unknown extension",
         ["unknown tokenizer format"], category="binary")
    case("wordpiece_utf16.txt", "[PAD]\n[UNK]\nthe\n".encode("utf-16"), "a vocab.txt saved as UTF-16", ["UTF-16"],
         category="binary")
    case("text_png_image.png", tiny_png(), "a PNG image opened as text", ["PNG image"], open="text", category="binary")
    case("text_elf_binary", tiny_elf(), "an ELF executable opened as text", ["ELF"], open="text", category="binary")
    case("text_nul_bytes.txt", b"hello\x00\x00\x00world\x00" * 20, "text with NUL bytes", ["binary", "NUL"], open="text",
         category="binary")
    case("text_utf16_bom.txt", "héllo wörld\n".encode("utf-16") * 10, "UTF-16 text with a byte-order mark", ["UTF-16", "iconv"],
         open="text", category="binary")
    case("text_utf16_no_bom.txt", ("hello world, plain ASCII\n" * 10).encode("utf-16-le"), "UTF-16LE text without a byte-order mark",
         ["UTF-16"], open="text", category="binary")
    case("text_latin1.txt", "café, naïve, über\n".encode("latin-1"), "Latin-1 text", ["not UTF-8", "0xe9", "line 1"],
         open="text", category="invalid UTF-8")
    case("text_cut_utf8.txt", "中文文本".encode() + "中".encode()[:2], "UTF-8 text cut inside its last character",
         ["not UTF-8", "offset 12"], open="text", category="invalid UTF-8")
    case("text_overlong_utf8.txt", b"path \xc0\xaf etc\n", "an overlong UTF-8 encoding of '/'", ["not UTF-8", "0xc0"],
         open="text", category="invalid UTF-8")
    case("text_encoded_surrogate.txt", b"emoji \xed\xa0\xbd\xed\xb8\x80 as CESU-8\n", "surrogates encoded as UTF-8 (CESU-8)",
         ["not UTF-8", "0xed"], open="text", category="invalid UTF-8")
    case("text_pdf.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", "a PDF opened as text",
         ["PDF document"], open="text", category="binary")
    case("tiktoken_unknown_encoding.tiktoken", tiktoken_text(), "a .tiktoken not named after a known encoding, opened without a pattern",
         ["unknown tiktoken encoding", "pattern"], category="wrong types")


def write_all() -> None:
    build_cases()
    keep = {"make_corpus.py", "MANIFEST.json"}
    for p in HERE.iterdir():
        if p.name not in keep:
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    manifest = []
    for c in CASES:
        path = HERE / c["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        for name, data in c["companions"].items():
            (path.parent / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        content = c["content"]
        if isinstance(content, (dict, list)):
            content = js(content, indent=1)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        entry = {k: c[k] for k in ("file", "category", "what", "open", "words")}
        if "pattern" in c:
            entry["pattern"] = c["pattern"]
        if c["companions"]:
            entry["companions"] = sorted(c["companions"])
        manifest.append(entry)
    (HERE / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in HERE.rglob("*") if p.is_file())
    print(f"{len(manifest)} cases, {total / 1024:.0f} KB")


if __name__ == "__main__":
    write_all()
