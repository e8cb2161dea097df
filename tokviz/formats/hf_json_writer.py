"""Write a Tokenizer as an HF tokenizer.json (the inverse of hf_json.read_hf_json).

    >>> write_hf_json(tok, "out/tokenizer.json")
    >>> tokenizers.Tokenizer.from_file("out/tokenizer.json").encode("hi").ids == tok.encode("hi").ids
    True

Each pipeline component is written by the function registered for its class (`to_json`); the
JSON follows what HF tokenizers 0.19+ reads and writes.  A tokenizer that the format cannot hold
(sentencepiece's whole-text normalizer, a tiktoken rank table without merges) raises TokvizError
saying what is missing, before anything is written.
"""
from __future__ import annotations

import base64
import json
import os
import tempfile
from functools import singledispatch
from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.models.bpe import BPE
from ..core.models.unigram import Unigram
from ..core.models.wordlevel import WordLevel
from ..core.models.wordpiece import WordPiece
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError


def tokenizer_to_json(tok: Tokenizer) -> dict:
    """The tokenizer.json document of `tok`, as plain Python data."""
    if tok.text_normalizer is not None or tok.decode_fn is not None:
        raise TokvizError(
            f"a {tok.source.format} tokenizer normalizes and decodes the whole text its own way, "
            "which tokenizer.json cannot express; save it in its own format"
        )
    extra = tok.source.extra or {}
    return {
        "version": "1.0",
        "truncation": extra.get("truncation"),
        "padding": extra.get("padding"),
        "added_tokens": [
            {
                "id": t.id,
                "content": t.content,
                "single_word": t.single_word,
                "lstrip": t.lstrip,
                "rstrip": t.rstrip,
                "normalized": t.normalized,
                "special": t.special,
            }
            for t in sorted(tok.added.tokens, key=lambda t: t.id)
        ],
        "normalizer": to_json(tok.normalizer),
        "pre_tokenizer": to_json(tok.pre_tokenizer),
        "post_processor": to_json(tok.post_processor),
        "decoder": to_json(tok.decoder),
        "model": to_json(tok.model),
    }


def write_hf_json(tok: Tokenizer, path: str | os.PathLike, *, overwrite: bool = True) -> None:
    """Write `tok` to `path` (atomically: a temporary file beside it, then a rename)."""
    text = json.dumps(tokenizer_to_json(tok), ensure_ascii=False, indent=2)
    write_text_atomic(Path(path), text + "\n", overwrite=overwrite)


def hf_json_problem(tok: Tokenizer) -> str | None:
    """Why tokenizer.json cannot hold `tok` (None: it can), without building the document."""
    if tok.text_normalizer is not None or tok.decode_fn is not None:
        return (f"a {tok.source.format} tokenizer normalizes and decodes the whole text its own way, "
                "which tokenizer.json cannot express; save it in its own format")
    m = tok.model
    if isinstance(m, BPE):
        if m.ranks is None:
            return ("this BPE ranks pairs by the merged token (a tiktoken file) and has no merge list; "
                    "tokenizer.json needs one")
        if m.end_symbol:
            return (f"this BPE keeps {m.end_symbol!r} as a symbol of its own after each word; HF tokenizers' "
                    "BPE can only glue it to the last character")
    for part in _components(tok):
        if to_json.dispatch(type(part)) is to_json.dispatch(object):
            return f"{type(part).__name__} cannot be written to tokenizer.json"
    return None


def _components(tok: Tokenizer):
    """Every pipeline component, nested sequences included."""
    stack = [tok.model, tok.normalizer, tok.pre_tokenizer, tok.post_processor, tok.decoder]
    while stack:
        part = stack.pop()
        if part is None:
            continue
        yield part
        for attr in ("normalizers", "pre_tokenizers", "processors", "decoders"):
            stack.extend(getattr(part, attr, None) or [])


def write_text_atomic(path: Path, text: str, *, overwrite: bool = True) -> None:
    """Replace `path` with `text` (UTF-8, "\\n" line ends) only once all of it is written."""
    write_bytes_atomic(path, text.encode("utf-8"), overwrite=overwrite)


def write_bytes_atomic(path: Path, data: bytes, *, overwrite: bool = True) -> None:
    """Write `data` to a temporary file beside `path`, then rename it into place: a failure leaves
    the old file (or none) and no temporary file.  With overwrite=False an existing `path` is
    never replaced, even one that appears while writing."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if overwrite:
            os.replace(tmp, path)
        else:
            _rename_no_replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _rename_no_replace(tmp: str, path: Path) -> None:
    try:
        os.link(tmp, path)  # fails with FileExistsError instead of replacing
    except FileExistsError:
        raise TokvizError("already exists (pass overwrite=True, or --force, to replace it)", path) from None
    except OSError:  # no hard links on this file system: check, then rename
        if path.exists():
            raise TokvizError("already exists (pass overwrite=True, or --force, to replace it)", path) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


@singledispatch
def to_json(component) -> dict | None:
    """The JSON object of one pipeline component (None stays null)."""
    if component is None:
        return None
    raise TokvizError(f"{type(component).__name__} cannot be written to tokenizer.json")


def _pattern(pattern: str, is_regex: bool) -> dict:
    return {"Regex": pattern} if is_regex else {"String": pattern}


# ---- models ---------------------------------------------------------------------------------

@to_json.register
def _(m: BPE) -> dict:
    if m.merges is None:
        raise TokvizError(
            "this BPE ranks pairs by the merged token (a tiktoken file) and has no merge list; "
            "tokenizer.json needs one"
        )
    if m.end_symbol:
        raise TokvizError(
            f"this BPE keeps {m.end_symbol!r} as a symbol of its own after each word (Sennrich et al.); "
            "HF tokenizers' BPE can only glue it to the last character (train with end_of_word='glued' "
            "for a tokenizer.json)"
        )
    spaced = any(" " in t for t in m.vocab)
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": m.unk_token,
        "continuing_subword_prefix": m.prefix or None,
        "end_of_word_suffix": m.suffix or None,
        "fuse_unk": m.fuse_unk,
        "byte_fallback": m.byte_fallback,
        "ignore_merges": m.ignore_merges,
        "vocab": _by_id(m.vocab),
        # "a b" lines are what every version reads; pairs when a token holds a space
        "merges": [[a, b] for a, b in m.merges] if spaced else [f"{a} {b}" for a, b in m.merges],
    }


@to_json.register
def _(m: WordPiece) -> dict:
    return {
        "type": "WordPiece",
        "unk_token": m.unk_token,
        "continuing_subword_prefix": m.prefix,
        "max_input_chars_per_word": m.max_input_chars_per_word,
        "vocab": _by_id(m.vocab),
    }


@to_json.register
def _(m: Unigram) -> dict:
    return {
        "type": "Unigram",
        "unk_id": m.unk_id,
        "vocab": [[p, s] for p, s in m.pieces],
        "byte_fallback": m.byte_fallback,
    }


@to_json.register
def _(m: WordLevel) -> dict:
    return {"type": "WordLevel", "vocab": _by_id(m.vocab), "unk_token": m.unk_token}


def _by_id(vocab: dict[str, int]) -> dict[str, int]:
    return dict(sorted(vocab.items(), key=lambda kv: kv[1]))


# ---- normalizers ----------------------------------------------------------------------------

@to_json.register
def _(n: norm.UnicodeForm) -> dict:
    return {"type": n.form}


@to_json.register
def _(n: norm.Lowercase) -> dict:
    return {"type": "Lowercase"}


@to_json.register
def _(n: norm.StripAccents) -> dict:
    return {"type": "StripAccents"}


@to_json.register
def _(n: norm.Replace) -> dict:
    return {"type": "Replace", "pattern": _pattern(n.pattern, n.is_regex), "content": n.content}


@to_json.register
def _(n: norm.Prepend) -> dict:
    return {"type": "Prepend", "prepend": n.prepend}


@to_json.register
def _(n: norm.Strip) -> dict:
    return {"type": "Strip", "strip_left": n.left, "strip_right": n.right}


@to_json.register
def _(n: norm.BertNormalizer) -> dict:
    return {
        "type": "BertNormalizer",
        "clean_text": n.clean_text,
        "handle_chinese_chars": n.handle_chinese_chars,
        "strip_accents": n.strip_accents,
        "lowercase": n.lowercase,
    }


@to_json.register
def _(n: norm.Nmt) -> dict:
    return {"type": "Nmt"}


@to_json.register
def _(n: norm.Precompiled) -> dict:
    return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(n.charsmap.blob).decode("ascii")}


@to_json.register
def _(n: norm.ByteLevelNormalizer) -> dict:
    return {"type": "ByteLevel"}


@to_json.register
def _(n: norm.Sequence) -> dict:
    return {"type": "Sequence", "normalizers": [to_json(x) for x in n.normalizers]}


# ---- pre-tokenizers -------------------------------------------------------------------------

@to_json.register
def _(p: pre.Split) -> dict:
    return {"type": "Split", "pattern": _pattern(p.pattern, p.is_regex), "behavior": p.behavior, "invert": p.invert}


@to_json.register
def _(p: pre.ByteLevel) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": p.add_prefix_space, "trim_offsets": True, "use_regex": p.use_regex}


@to_json.register
def _(p: pre.Metaspace) -> dict:
    return {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": p.prepend_scheme,
            "split": p.split_on_replacement}


@to_json.register
def _(p: pre.Whitespace) -> dict:
    return {"type": "Whitespace"}


@to_json.register
def _(p: pre.WhitespaceSplit) -> dict:
    return {"type": "WhitespaceSplit"}


@to_json.register
def _(p: pre.BertPreTokenizer) -> dict:
    return {"type": "BertPreTokenizer"}


@to_json.register
def _(p: pre.Punctuation) -> dict:
    return {"type": "Punctuation", "behavior": p.behavior}


@to_json.register
def _(p: pre.Digits) -> dict:
    return {"type": "Digits", "individual_digits": p.individual_digits}


@to_json.register
def _(p: pre.UnicodeScripts) -> dict:
    return {"type": "UnicodeScripts"}


@to_json.register
def _(p: pre.CharDelimiterSplit) -> dict:
    return {"type": "CharDelimiterSplit", "delimiter": p.delimiter}


@to_json.register
def _(p: pre.FixedLength) -> dict:
    return {"type": "FixedLength", "length": p.length}


@to_json.register
def _(p: pre.Sequence) -> dict:
    return {"type": "Sequence", "pretokenizers": [to_json(x) for x in p.pre_tokenizers]}


# ---- post-processors ------------------------------------------------------------------------

@to_json.register
def _(p: post.TemplateProcessing) -> dict:
    def piece(kind: str, name: str, type_id: int) -> dict:
        key = "SpecialToken" if kind == "special" else "Sequence"
        return {key: {"id": name, "type_id": type_id}}

    single = [piece(kind, name, 0) for kind, name in p.single]
    # tokviz keeps only the single-sequence template; the pair one appends the second sequence
    pair = single + [piece("sequence", "B", 1)]
    specials = {
        name: {"id": name, "ids": [i for i, _ in items], "tokens": [t for _, t in items]}
        for name, items in p.special_tokens.items()
    }
    return {"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": specials}


@to_json.register
def _(p: post.BertProcessing) -> dict:
    kind = "RobertaProcessing" if isinstance(p, post.RobertaProcessing) else "BertProcessing"
    out = {"type": kind, "sep": [p.sep[1], p.sep[0]], "cls": [p.cls[1], p.cls[0]]}
    if kind == "RobertaProcessing":
        out.update(trim_offsets=p.trim_offsets, add_prefix_space=p.add_prefix_space)
    return out


@to_json.register
def _(p: post.ByteLevel) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": p.add_prefix_space, "trim_offsets": p.trim_offsets,
            "use_regex": True}


@to_json.register
def _(p: post.Sequence) -> dict:
    return {"type": "Sequence", "processors": [to_json(x) for x in p.processors]}


# ---- decoders -------------------------------------------------------------------------------

@to_json.register
def _(d: dec.ByteLevel) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


@to_json.register
def _(d: dec.WordPiece) -> dict:
    return {"type": "WordPiece", "prefix": d.prefix, "cleanup": d.cleanup}


@to_json.register
def _(d: dec.Metaspace) -> dict:
    return {"type": "Metaspace", "replacement": d.replacement, "prepend_scheme": d.prepend_scheme, "split": True}


@to_json.register
def _(d: dec.BPEDecoder) -> dict:
    return {"type": "BPEDecoder", "suffix": d.suffix}


@to_json.register
def _(d: dec.ByteFallback) -> dict:
    return {"type": "ByteFallback"}


@to_json.register
def _(d: dec.Fuse) -> dict:
    return {"type": "Fuse"}


@to_json.register
def _(d: dec.Strip) -> dict:
    return {"type": "Strip", "content": d.content, "start": d.start, "stop": d.stop}


@to_json.register
def _(d: dec.Replace) -> dict:
    return {"type": "Replace", "pattern": _pattern(d.pattern, d.is_regex), "content": d.content}


@to_json.register
def _(d: dec.CTC) -> dict:
    return {"type": "CTC", "pad_token": d.pad_token, "word_delimiter_token": d.word_delimiter_token, "cleanup": d.cleanup}


@to_json.register
def _(d: dec.Sequence) -> dict:
    return {"type": "Sequence", "decoders": [to_json(x) for x in d.decoders]}
