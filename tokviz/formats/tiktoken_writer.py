"""Write a byte-level BPE as a tiktoken `.tiktoken` rank file: `base64(token bytes) rank` per line.

The file holds neither the split regex nor special tokens; `tiktoken_params(tok)` gives both,
for `tiktoken.Encoding(name, pat_str=..., mergeable_ranks=load_tiktoken_bpe(path), special_tokens=...)`.

tiktoken merges, in each piece, the adjacent pair whose concatenation has the lowest rank, and
takes a piece that is itself a token whole.  A BPE with a merge list encodes the same way only if
(1) merges make tokens in the order of their ids, (2) every way to cut a token into two tokens is
a merge, and (3) a piece that is a token comes out whole (HF's ignore_merges, or every token
reachable).  Ties differ too: tiktoken merges the leftmost of equally ranked pairs, so (4) where
two merges make the same token from overlapping pairs (x + y, y + z) and the right one ranks
first, x + y + z must still encode the same both ways (checked by encoding it: whether x, y, z
ever stand side by side depends on the merges before).  `tiktoken_problem` checks all four,
once per model.
"""
from __future__ import annotations

import base64
import weakref
from pathlib import Path

from ..core.bytelevel import unicode_to_bytes
from ..core.models.bpe import BPE
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ._bytelevel_check import byte_level_bpe_problem, has_line_anchor, split_pattern
from .atomic_write import write_bytes_atomic

FORMAT = ".tiktoken"


_MERGE_CHECKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> (problem,)


def tiktoken_problem(tok: Tokenizer) -> str | None:
    """Why a .tiktoken file (with its regex and specials given to tiktoken) cannot encode as `tok`
    does.  The merge checks scan the vocabulary once per model (about a second for 128k tokens)."""
    problem = pipeline_problem(tok)
    if problem:
        return problem
    checked = _MERGE_CHECKS.get(tok.model)
    if checked is None:
        checked = _MERGE_CHECKS[tok.model] = (merge_order_problem(tok.model),)
    return checked[0]


def pipeline_problem(tok: Tokenizer) -> str | None:
    """The checks of `tiktoken_problem` that do not look at the merges."""
    problem = byte_level_bpe_problem(tok, FORMAT)
    if problem:
        return problem
    if tok.normalizer is not None:
        return f"tiktoken has no normalizer; this tokenizer normalizes with {tok.normalizer.describe()}"
    found = split_pattern(tok)
    if isinstance(found, str):
        return found + " (tiktoken needs one regex)"
    pattern, dialect = found
    if dialect == "onig" and has_line_anchor(pattern):
        return f"the split regex {pattern!r} uses ^ or $, which match at each line in HF tokenizers but not in tiktoken"
    ids = list(tok.model.vocab.values())
    if len(set(ids)) != len(ids):
        return "two tokens share an id; tiktoken ranks must be unique"
    return None


def tiktoken_params(tok: Tokenizer) -> dict:
    """pat_str and special_tokens for tiktoken.Encoding: the split regex and every added token
    outside the rank table."""
    found = split_pattern(tok)
    if isinstance(found, str):
        raise TokvizError(found)
    ranked = set(tok.model.vocab.values())
    specials = {t.content: t.id for t in tok.added.tokens if t.id not in ranked}
    return {"pat_str": found[0], "special_tokens": specials}


def merge_order_problem(model) -> str | None:
    """Why ranking pairs by the merged token's id (tiktoken) may give other merges than the
    model's merge list (None: it gives the same ones)."""
    if not model.has_merge_list:
        return None  # ranked by token already
    vocab, merges = model.vocab, model.merges
    rank_of = model._rank
    last_id = -1
    for rank, (a, b) in enumerate(merges):
        made = vocab[a + b]
        if made < last_id:
            return (f"merge {rank} ({a!r} + {b!r}) makes id {made}, out of id order; tiktoken ranks merges "
                    "by the id of what they make")
        last_id = made
    for t in vocab:
        for k in range(1, len(t)):
            a, b = t[:k], t[k:]
            if a in vocab and b in vocab and rank_of(a, b) is None:
                return (f"{a!r} + {b!r} make the token {t!r} but are not a merge; tiktoken would merge them "
                        "(it merges any two tokens whose concatenation is a token)")
    # Two merges making the same token from overlapping pairs (x + y, y + z): with x, y, z side by
    # side tiktoken merges the left pair first, the merge list the pair ranked first.  Whether
    # that state is ever reached depends on the merges before it, so encode x + y + z both ways.
    by_token = BPE(vocab, None, ignore_merges=True)
    for t in vocab:
        for k in range(1, len(t)):
            x, y = t[:k], t[k:]
            z = t[len(y):]  # y + z == t when t starts with y
            if t.startswith(y) and (x, y) != (y, z):
                left, right = rank_of(x, y), rank_of(y, z)
                if left is not None and right is not None and right < left:
                    text = x + y + z
                    if [p for p, _ in model._word(text)] != [p for p, _ in by_token._word(text)]:
                        return (f"{x!r} + {y!r} and {y!r} + {z!r} both make {t!r}; in {text!r} tiktoken merges "
                                "the left pair first, this merge list the right one")
    if not model.ignore_merges:
        for t in vocab:
            if len(t) > 1 and [s for s, _ in model._word(t)] != [t]:
                return (f"the token {t!r} does not come out whole from its own bytes; tiktoken takes a piece "
                        "that is a token whole")
    return None


def write_tiktoken(tok: Tokenizer, path: Path, *, overwrite: bool = True) -> list[Path]:
    problem = tiktoken_problem(tok)
    if problem:
        raise TokvizError(problem)
    items = sorted(tok.model.vocab.items(), key=lambda kv: kv[1])
    lines = [base64.b64encode(unicode_to_bytes(t)) + b" " + str(i).encode("ascii") + b"\n" for t, i in items]
    write_bytes_atomic(path, b"".join(lines), overwrite=overwrite)
    return [path]
