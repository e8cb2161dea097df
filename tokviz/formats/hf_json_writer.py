"""Write a Tokenizer as an HF tokenizer.json (the inverse of hf_json.read_hf_json).

    >>> write_hf_json(tok, "out/tokenizer.json")
    >>> tokenizers.Tokenizer.from_file("out/tokenizer.json").encode("hi").ids == tok.encode("hi").ids
    True

Each pipeline component is written by the function registered for its class (`to_json`); the
JSON follows what HF tokenizers 0.19+ reads and writes.  Three things are translated so that HF
gives tokviz's ids:

- a tiktoken-style split pattern is written in Oniguruma's spelling (core.patterns.rust_to_onig:
  X{n,m}+ is possessive to tiktoken, a repetition to HF);
- added tokens HF would give other ids (special tokens trained in front of the vocabulary, ids
  with gaps) are also written into the model's vocabulary (`added_in_model_vocab`);
- a BPE ranked by its merged tokens (a .tiktoken file) gets the merge list HF needs
  (tiktoken_to_hf), and a sentencepiece .model is rebuilt from HF components (sentencepiece_to_hf).

What the format cannot hold (a "</w>" symbol of its own, sentencepiece's whitespace-as-suffix, ...)
raises TokvizError saying why, before anything is written (`hf_json_problem` gives the reason
without writing).  HF always matches special tokens typed in the text, where tiktoken's
encode_ordinary and sentencepiece never do: such texts encode differently with the written file.
"""
from __future__ import annotations

import base64
import json
import os
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
from ..core.patterns import rust_to_onig
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from . import atomic_write
from .sentencepiece_to_hf import is_sentencepiece, sentencepiece_as_hf, sentencepiece_hf_problem
from .tiktoken_to_hf import merges_from_ranks


def tokenizer_to_json(tok: Tokenizer) -> dict:
    """The tokenizer.json document of `tok`, as plain Python data."""
    problem = hf_json_problem(tok)
    if problem:
        raise TokvizError(problem)
    if is_sentencepiece(tok):
        tok = sentencepiece_as_hf(tok)
    extra = tok.source.extra or {}
    model = _model_json(tok.model, added_in_model_vocab(tok))
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
        "model": model,
    }


def write_hf_json(tok: Tokenizer, path: str | os.PathLike, *, overwrite: bool = True) -> None:
    """Write `tok` to `path` (atomically: a temporary file beside it, then a rename: atomic_write)."""
    text = json.dumps(tokenizer_to_json(tok), ensure_ascii=False, indent=2)
    atomic_write.write_text_atomic(Path(path), text + "\n", overwrite=overwrite)


def hf_json_problem(tok: Tokenizer) -> str | None:
    """Why tokenizer.json cannot hold `tok` (None: it can), without building the document."""
    if is_sentencepiece(tok):  # rebuilt from HF components (sentencepiece_to_hf), all writable
        problem = sentencepiece_hf_problem(tok)
        parts = ()
    elif tok.text_normalizer is not None or tok.decode_fn is not None:
        return (f"a {tok.source.format} tokenizer normalizes and decodes the whole text its own way, "
                "which tokenizer.json cannot express; save it in its own format")
    else:
        problem = None
        parts = _components(tok)
    if problem:
        return problem
    m = tok.model
    if isinstance(m, BPE):
        if m.end_symbol:
            return (f"this BPE keeps {m.end_symbol!r} as a symbol of its own after each word; HF tokenizers' "
                    "BPE can only glue it to the last character")
    for part in parts:
        if to_json.dispatch(type(part)) is to_json.dispatch(object):
            return f"{type(part).__name__} cannot be written to tokenizer.json"
        if isinstance(part, pre.Split) and part.is_regex and part.dialect != "onig":
            try:
                split_pattern_for_hf(part)
            except ValueError as exc:
                return f"the split pattern {part.pattern!r} cannot be written for HF tokenizers: {exc}"
    try:
        added_in_model_vocab(tok)
    except ValueError as exc:
        return str(exc)
    return None


def added_in_model_vocab(tok: Tokenizer) -> dict[str, int]:
    """The added tokens that must also be written into the model's vocabulary (content -> id) for
    HF tokenizers to give them tokviz's ids; ValueError when no vocabulary can do that.

    HF reads `added_tokens` in order and gives a token the id the model's vocabulary has for its
    content, else the next free id after the model's vocabulary (its number of entries) and the
    added tokens before it: a special token trained in front of the vocabulary, or ids with gaps,
    would move.  Such tokens are written into the vocabulary at their ids, as HF's trainers do."""
    vocab = _model_ids(tok.model)
    owner = {i: c for c, i in vocab.items()}
    tokens = sorted(tok.added.tokens, key=lambda t: t.id)
    # HF gives a token outside the vocabulary an id past its end: one below it can only be placed
    # (placed at once, so that the loop below, which places one token a round, stays short)
    placed = {t.content: t.id for t in tokens if t.content not in vocab and t.id < len(vocab) and t.id not in owner}
    owner.update((i, c) for c, i in placed.items())
    while True:
        size = len(vocab) + len(placed)
        given: dict[str, int] = {}
        highest = None
        moved = None
        for t in tokens:
            hf_id = vocab.get(t.content, placed.get(t.content, given.get(t.content)))
            if hf_id is None:
                hf_id = highest + 1 if highest is not None and (highest >= size or size == 0) else size
            given.setdefault(t.content, hf_id)
            highest = hf_id if highest is None else max(highest, hf_id)
            if hf_id != t.id:
                moved = t
                break
        if moved is None:
            break
        if moved.content in vocab or moved.content in placed:
            known = vocab.get(moved.content, placed.get(moved.content))
            raise ValueError(f"the added token {moved.content!r} has id {moved.id} but the model's vocabulary "
                             f"gives it id {known}; HF tokenizers would use {known}")
        if moved.id in owner:
            raise ValueError(f"id {moved.id} is both the added token {moved.content!r} and the model's "
                             f"token {owner[moved.id]!r}; HF tokenizers cannot hold both")
        placed[moved.content] = moved.id
        owner[moved.id] = moved.content
    if placed and isinstance(tok.model, Unigram):
        # (every id up to the pieces' count is a piece's: what HF would misplace lies beyond a gap)
        raise ValueError("the added tokens' ids leave gaps after the Unigram pieces, and a Unigram "
                         "vocabulary in tokenizer.json is a list with no gaps")
    return placed


def _model_ids(model) -> dict[str, int]:
    """content -> id as HF's model.token_to_id would answer it."""
    if isinstance(model, Unigram):
        return {p: i for i, (p, _) in enumerate(model.pieces)}  # (HF: the last of a repeated piece)
    return dict(model.vocab)


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


@singledispatch
def to_json(component) -> dict | None:
    """The JSON object of one pipeline component (None stays null)."""
    if component is None:
        return None
    raise TokvizError(f"{type(component).__name__} cannot be written to tokenizer.json")


def _pattern(pattern: str, is_regex: bool) -> dict:
    return {"Regex": pattern} if is_regex else {"String": pattern}


# ---- models ---------------------------------------------------------------------------------

def _model_json(model, added: dict[str, int]) -> dict:
    """The model's JSON with the `added` tokens (content -> id) in its vocabulary."""
    out = to_json(model)
    if added:  # (never a Unigram's: see added_in_model_vocab)
        out["vocab"] = _by_id({**out["vocab"], **added})
    return out


@to_json.register
def _(m: BPE) -> dict:
    merges = m.merges
    if merges is None:  # ranked by the merged token (tiktoken): HF needs the merges spelled out
        merges = merges_from_ranks(m.vocab)
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
        "merges": [[a, b] for a, b in merges] if spaced else [f"{a} {b}" for a, b in merges],
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

def split_pattern_for_hf(p: pre.Split) -> str:
    """The Split's pattern as Oniguruma (HF) must read it to cut the same pieces: a tiktoken-style
    pattern ("rust" dialect: possessive X{n,m}+, $ the end of the text) is rewritten
    (core.patterns.rust_to_onig).  ValueError when it cannot be."""
    if not p.is_regex or p.dialect == "onig":
        return p.pattern
    if p.dialect == "rust":
        return rust_to_onig(p.pattern)
    raise ValueError(f"unknown regex dialect {p.dialect!r}")


@to_json.register
def _(p: pre.Split) -> dict:
    try:
        pattern = split_pattern_for_hf(p)
    except ValueError as exc:
        raise TokvizError(f"the split pattern {p.pattern!r} cannot be written for HF tokenizers: {exc}") from None
    return {"type": "Split", "pattern": _pattern(pattern, p.is_regex), "behavior": p.behavior, "invert": p.invert}


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
