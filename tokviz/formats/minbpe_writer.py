"""Write a byte-level BPE as minbpe's `.model` (what minbpe loads) and `.vocab` (for people).

minbpe's layout is fixed: ids 0-255 are the bytes in order and merge i makes id 256 + i, so only
a BPE built that way (minbpe's own, or tokviz's byte-level trainer) fits; special tokens follow.

    .model   "minbpe v1", the split regex, the number of special tokens, "token id" per special,
             then one merge per line as the two ids it joins
    .vocab   one line per id: "[left][right] -> [token] id" for a merge, "[token] id" otherwise
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

from ..core.bytelevel import BYTE_TO_CHAR
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ._bytelevel_check import byte_level_bpe_problem, has_line_anchor, split_pattern
from .atomic_write import write_files_atomic
from .minbpe import minbpe_model_text

FORMAT = "a minbpe .model"


def minbpe_problem(tok: Tokenizer) -> str | None:
    """Why a minbpe .model cannot hold `tok` (None: it can)."""
    problem = byte_level_bpe_problem(tok, FORMAT)
    if problem:
        return problem
    model = tok.model
    if tok.normalizer is not None:
        return f"minbpe has no normalizer; this tokenizer normalizes with {tok.normalizer.describe()}"
    found = split_pattern(tok)
    if isinstance(found, str):
        return found + " (minbpe needs one regex)"
    pattern, dialect = found
    if "\n" in pattern or "\r" in pattern:
        return "the split regex spans lines, and minbpe stores it on one line"
    if dialect == "onig" and has_line_anchor(pattern):
        return f"the split regex {pattern!r} uses ^ or $, which match at each line in HF tokenizers but not in minbpe"
    if not model.has_merge_list:
        return f"{FORMAT} needs a merge list; this BPE ranks pairs by the merged token (a tiktoken file)"
    vocab = model.vocab
    if any(vocab[BYTE_TO_CHAR[b]] != b for b in range(256)):
        return "minbpe needs ids 0-255 to be the 256 bytes in byte order"
    merges = model.merges
    if len(vocab) != 256 + len(merges):
        return f"minbpe's vocabulary is the 256 bytes plus one token per merge; this one has {len(vocab)} tokens and {len(merges)} merges"
    for i, (a, b) in enumerate(merges):
        if vocab.get(a + b) != 256 + i:
            return f"minbpe needs merge i to make id 256 + i; merge {i} ({a!r} + {b!r}) makes id {vocab.get(a + b)}"
    for t in tok.added.tokens:
        if "\n" in t.content or "\r" in t.content or not t.content:
            return f"the special token {t.content!r} cannot be written on one line"
        if t.id < len(vocab):
            return f"the added token {t.content!r} has id {t.id}, inside the merged vocabulary (minbpe puts specials after it)"
    return None


def minbpe_paths(path: Path) -> tuple[Path, Path]:
    """(X.model, X.vocab) for a target X.model (or X)."""
    base = path.with_suffix("") if path.suffix == ".model" else path
    return base.with_name(base.name + ".model"), base.with_name(base.name + ".vocab")


def write_minbpe_files(tok: Tokenizer, path: Path, *, overwrite: bool = True) -> list[Path]:
    """Write X.model and X.vocab as one transaction (both new or, on failure, both as they were)."""
    problem = minbpe_problem(tok)
    if problem:
        raise TokvizError(problem)
    model = tok.model
    vocab = model.vocab
    pattern = split_pattern(tok)[0]
    merges = [(vocab[a], vocab[b]) for a, b in model.merges]
    specials = {t.content: t.id for t in sorted(tok.added.tokens, key=lambda t: t.id)}
    model_path, vocab_path = minbpe_paths(path)
    return write_files_atomic([(model_path, minbpe_model_text(pattern, merges, specials)),
                               (vocab_path, _vocab_text(tok, merges, specials))], overwrite=overwrite)


def _render(data: bytes) -> str:
    """Token bytes as readable text: invalid UTF-8 as U+FFFD, control characters as \\uXXXX."""
    text = data.decode("utf-8", errors="replace")
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c)[0] == "C" else c for c in text)


def _vocab_text(tok: Tokenizer, merges: list[tuple[int, int]], specials: dict[str, int]) -> str:
    lines = [f"[{_render(bytes([b]))}] {b}" for b in range(256)]
    for i, (a, b) in enumerate(merges, 256):
        lines.append(f"[{_render(tok.token_bytes(a))}][{_render(tok.token_bytes(b))}] -> [{_render(tok.token_bytes(i))}] {i}")
    lines += [f"[{_render(s.encode('utf-8'))}] {i}" for s, i in specials.items()]
    return "\n".join(lines) + "\n"
