"""Write a byte-level BPE as Mistral's tekken.json, when mistral-common's Tekkenizer then gives
the same ids.

Tekkenizer numbers special tokens first (0..n-1) and the ranks of tiktoken after them, the first
256 ranks being the 256 bytes in order, and it encodes special-token strings as plain text.  A
tokenizer fits when its pipeline is what tiktoken runs (one split regex, a merge order tiktoken
reproduces: see tiktoken_writer.merge_order_problem), its ids below the vocabulary are all special
tokens, byte i has id n + i, and it does not match special tokens in text.

A tokenizer read from a tekken.json is written back with its version and model sections (image,
audio...); any other is written as version v13 (the newest that needs no model settings).
"""
from __future__ import annotations

import base64
import json
import weakref
from pathlib import Path

from ..core import pre_tokenizers as pre
from ..core.bytelevel import BYTE_TO_CHAR, unicode_to_bytes
from ..core.patterns import GPT2_PATTERN
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ._bytelevel_check import byte_level_bpe_problem, has_line_anchor
from .atomic_write import write_bytes_atomic
from .tekken import FILLER, FORMAT
from .tiktoken_writer import merge_order_problem

LABEL = "tekken.json"
DEFAULT_VERSION = "v13"


_MERGE_CHECKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> (problem,)


def tekken_pattern(tok: Tokenizer) -> str | None:
    """The split regex of a pipeline that is tiktoken's: Split(regex) then ByteLevel, where the
    Split keeps only the matches (Removed, inverted: exactly tiktoken) or cuts at them (Isolated:
    the same wherever the regex covers all text, as tiktoken_writer takes it), or ByteLevel with
    GPT-2's regex; else None."""
    p = tok.pre_tokenizer
    parts = list(p.pre_tokenizers) if isinstance(p, pre.Sequence) else [p]
    if len(parts) == 1 and isinstance(parts[0], pre.ByteLevel) and parts[0].use_regex:
        return None if parts[0].add_prefix_space else GPT2_PATTERN  # (GPT-2's pipeline)
    if (len(parts) != 2 or not isinstance(parts[0], pre.Split) or not isinstance(parts[1], pre.ByteLevel)
            or parts[1].use_regex or parts[1].add_prefix_space or not parts[0].is_regex):
        return None
    split = parts[0]
    if (split.behavior, split.invert) not in (("Removed", True), ("Isolated", False)):
        return None
    if split.dialect == "onig" and has_line_anchor(split.pattern):
        return None  # (^ and $ match at each line in HF tokenizers, not in tiktoken)
    return split.pattern


def tekken_problem(tok: Tokenizer) -> str | None:
    """Why a tekken.json cannot encode as `tok` does (None: it can)."""
    problem = byte_level_bpe_problem(tok, LABEL)
    if problem:
        return problem
    if tok.normalizer is not None:
        return f"{LABEL} has no normalizer; this tokenizer normalizes with {tok.normalizer.describe()}"
    if tekken_pattern(tok) is None:
        described = tok.pre_tokenizer.describe() if tok.pre_tokenizer is not None else "none"
        return (f"the pre-tokenizer ({described}) is not one split regex (without ^ or $) followed by "
                "byte-level mapping, which is what tiktoken runs")
    checked = _MERGE_CHECKS.get(tok.model)
    if checked is None:
        checked = _MERGE_CHECKS[tok.model] = (merge_order_problem(tok.model),)
    if checked[0]:
        return f"{LABEL} is encoded by tiktoken: {checked[0]}"
    ids = tok.model.vocab.values()
    first, last = min(ids), max(ids)
    if len(set(ids)) != len(ids):
        return f"two tokens share an id; {LABEL} ranks are unique"
    if last - first + 1 != len(tok.model.vocab):
        return f"the vocabulary's ids {first}..{last} have gaps; {LABEL} numbers its tokens without gaps"
    for b in range(256):
        if tok.model.vocab[BYTE_TO_CHAR[b]] != first + b:
            return (f"byte 0x{b:02x} has id {tok.model.vocab[BYTE_TO_CHAR[b]]}, not {first + b}; in {LABEL} "
                    "the first 256 tokens after the special ones are the bytes in order")
    for t in tok.added.tokens:
        if first <= t.id <= last:
            return f"the added token {t.content!r} has id {t.id}, which is also a token of the vocabulary"
        if t.id > last:
            return (f"the added token {t.content!r} has id {t.id}, after the vocabulary; {LABEL} numbers special "
                    "tokens first (0..)")
        if not t.special:
            return f"the added token {t.content!r} is not special; {LABEL} holds special tokens only"
    below = {t.id for t in tok.added.tokens}
    if below != set(range(first)):
        missing = min(set(range(first)) - below)
        return f"id {missing} is neither a special token nor in the vocabulary; {LABEL} has no gaps"
    if tok.added.tokens and tok.special_in_text:
        return (f"this tokenizer matches its special tokens' strings in text; Tekkenizer encodes them as "
                "plain text")
    return None


def tekken_data(tok: Tokenizer) -> dict:
    """The tekken.json of `tok` as a JSON-ready dict (call `tekken_problem` first)."""
    first = min(tok.model.vocab.values())
    specials = sorted(tok.added.tokens, key=lambda t: t.id)
    listed = [t.content for t in specials]
    while listed and listed[-1] == FILLER.format(len(listed) - 1):
        listed.pop()  # (Tekkenizer names the special tokens not listed so)
    extra = tok.source.extra if tok.source.format == FORMAT else {}
    sections = dict(extra.get("tekken_sections", {}))
    not_control = set(extra.get("tekken_not_control", ()))
    vocab = []
    for token, i in sorted(tok.model.vocab.items(), key=lambda kv: kv[1]):
        data = unicode_to_bytes(token)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        vocab.append({"rank": i - first, "token_bytes": base64.b64encode(data).decode("ascii"), "token_str": text})
    out = {
        "config": {
            "pattern": tekken_pattern(tok),
            "num_vocab_tokens": len(vocab),
            "default_vocab_size": first + len(vocab),
            "default_num_special_tokens": first,
            "version": extra.get("tekken_version", DEFAULT_VERSION),
        },
        "vocab": vocab,
        "special_tokens": [{"rank": i, "token_str": s, "is_control": i not in not_control}
                           for i, s in enumerate(listed)],
    }
    for key in ("version", "type"):
        if key in sections:
            out[key] = sections.pop(key)
    out.update(sections)
    return out


def write_tekken(tok: Tokenizer, path: Path, *, overwrite: bool = True) -> list[Path]:
    problem = tekken_problem(tok)
    if problem:
        raise TokvizError(problem)
    text = json.dumps(tekken_data(tok), ensure_ascii=False, indent=1)
    write_bytes_atomic(path, text.encode("utf-8"), overwrite=overwrite)
    return [path]
