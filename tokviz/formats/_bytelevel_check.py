"""Checks shared by the writers of byte-level BPE formats (vocab.json + merges.txt, .tiktoken, minbpe)."""
from __future__ import annotations

from ..core import pre_tokenizers as pre
from ..core.bytelevel import BYTE_TO_CHAR
from ..core.models.bpe import BPE
from ..core.patterns import GPT2_PATTERN
from ..core.tokenizer import Tokenizer


def byte_level_bpe_problem(tok: Tokenizer, what: str) -> str | None:
    """Why `tok` is not a plain byte-level BPE that `what` (a format's name) could hold."""
    m = tok.model
    if not isinstance(m, BPE) or tok.text_normalizer is not None or not tok.byte_level:
        kind = f"{tok.source.format} {m.kind}" if tok.text_normalizer is not None else m.kind
        if m.kind == "BPE":
            kind = f"a {kind} that works on characters, not bytes"
        return f"{what} holds byte-level BPE vocabularies only (this model is {kind})"
    if m.prefix or m.suffix or m.end_symbol:
        return f"{what} cannot hold a BPE with a continuing-subword prefix or end-of-word suffix"
    if m.byte_fallback:
        return f"{what} cannot hold a BPE with byte fallback"
    missing = [b for b in range(256) if BYTE_TO_CHAR[b] not in m.vocab]
    if missing:
        return f"{what} needs a token for each of the 256 bytes; {len(missing)} are missing (e.g. byte 0x{missing[0]:02x})"
    return None


def split_pattern(tok: Tokenizer) -> tuple[str, str] | str:
    """(pattern, dialect) of the one regex that cuts text before the bytes are merged, or the
    reason there is no such single regex."""
    p = tok.pre_tokenizer
    parts = list(p.pre_tokenizers) if isinstance(p, pre.Sequence) else [p]
    if len(parts) == 1 and isinstance(parts[0], pre.ByteLevel) and parts[0].use_regex:
        if parts[0].add_prefix_space:
            return "the pre-tokenizer adds a space in front of the text, which a regex cannot express"
        return GPT2_PATTERN, "onig"
    if (len(parts) == 2 and isinstance(parts[0], pre.Split) and isinstance(parts[1], pre.ByteLevel)
            and not parts[1].use_regex and not parts[1].add_prefix_space):
        split = parts[0]
        if not split.is_regex or split.behavior != "Isolated" or split.invert:
            return f"the pre-tokenizer {split.describe()} is not one regex whose matches are the pieces"
        return split.pattern, split.dialect
    described = p.describe() if p is not None else "none"
    return f"the pre-tokenizer ({described}) is not a single split regex followed by byte-level mapping"


def has_line_anchor(pattern: str) -> bool:
    """Whether `pattern` uses ^ or $ outside a character class (their meaning differs between
    HF tokenizers' Oniguruma, where they match at every line, and other regex engines)."""
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif c in "^$":
            return True
        i += 1
    return False
