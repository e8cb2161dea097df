"""tiktoken `.tiktoken` rank files: one `base64(token bytes) rank` per line.

The file holds no pre-tokenization regex: it is known by the file's name for OpenAI's encodings,
otherwise the caller passes `pattern=`.
"""
from __future__ import annotations

import binascii
from functools import partial
from pathlib import Path

from ..core import decoders as dec
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.bytelevel import many_bytes_to_unicode
from ..core.models import BPE
from ..core.patterns import TIKTOKEN_PATTERNS, TIKTOKEN_SPECIALS
from ..core.tokenizer import Source, Tokenizer
from ..core.limits import MAX_ID, max_sane_id
from ..errors import TokvizError
from ._util import read_bytes, stem


_strict_base64 = partial(binascii.a2b_base64, strict_mode=True)


def _decode_token(field: bytes) -> bytes:
    """A token's bytes from its base64.  Padding alone ("=", as in openai-whisper's
    multilingual.tiktoken) is the empty token, as tiktoken's load_tiktoken_bpe reads it."""
    if field.strip(b"=") == b"":
        return b""
    return _strict_base64(field)


def read_ranks(path: Path) -> dict[bytes, int]:
    """token bytes -> rank of a .tiktoken file, checked (tiktoken's loader takes anything)."""
    return _read_table(path)[0]


def _read_table(path: Path) -> tuple[dict[bytes, int], dict[str, int]]:
    """(token bytes -> rank, token as byte-level text -> rank) of a .tiktoken file.  A regular
    file is read in C when the extension is there; anything else by `_read_ranks`, which names
    what is wrong."""
    data = read_bytes(path)
    from .. import native

    table = native.tiktoken_table(data) if native.tiktoken_table else None
    if table is not None:
        ranks, vocab = table
        values = ranks.values()
        if min(values) >= 0 and max(values) <= max_sane_id(len(ranks)) and len(set(values)) == len(ranks):
            return ranks, vocab
    ranks = _read_ranks(path, data)
    vocab = dict(zip(many_bytes_to_unicode(ranks), ranks.values()))
    if len(vocab) != len(ranks):
        raise TokvizError("two tokens map to the same byte string", path)
    return ranks, vocab


def _read_ranks(path: Path, data: bytes) -> dict[bytes, int]:
    lines = data.splitlines()
    fields = data.split()
    if len(fields) == 2 * len(lines) and lines:
        try:  # the whole file at C speed; the slow loop below only runs to find what is wrong
            tokens = list(map(_decode_token, fields[0::2]))
            ranks = dict(zip(tokens, map(int, fields[1::2])))
            values = ranks.values()
            if (len(ranks) == len(lines) and min(values) >= 0 and max(values) <= max_sane_id(len(ranks))
                    and len(set(values)) == len(ranks)):
                return ranks
        except (binascii.Error, ValueError):
            pass
    ranks = {}
    token_of_rank: dict[int, bytes] = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise TokvizError(f"line {lineno}: expected 'base64 rank', got {line[:60]!r}", path)
        try:
            token = _decode_token(parts[0])
        except (binascii.Error, ValueError):
            raise TokvizError(f"line {lineno}: invalid base64 token {parts[0][:40]!r}", path) from None
        rank_text = parts[1][:40].decode("utf-8", "replace")
        if not parts[1].isdigit():
            raise TokvizError(f"line {lineno}: rank {rank_text!r} is not a non-negative whole number", path)
        if len(parts[1]) > 10 or int(parts[1]) > MAX_ID:
            raise TokvizError(f"line {lineno}: rank {rank_text} is out of range (ranks must be below 2**31)", path)
        rank = int(parts[1])
        if token in ranks:
            raise TokvizError(f"line {lineno}: token {token!r} appears twice", path)
        if rank in token_of_rank:
            raise TokvizError(f"line {lineno}: rank {rank} is given to two tokens, {token_of_rank[rank]!r} and {token!r}", path)
        ranks[token] = rank
        token_of_rank[rank] = token
    if not ranks:
        raise TokvizError("no ranks in file (empty or not a .tiktoken file)", path)
    return ranks


def read_tiktoken(path: Path, pattern: str | None = None, *, name: str | None = None) -> Tokenizer:
    """`name`: the encoding's name when the file is not named after it (tiktoken's download cache
    names files by a hash); it picks the split pattern and special tokens."""
    name = name or stem(path)
    if pattern is None:
        pattern = TIKTOKEN_PATTERNS.get(name)
        if pattern is None:
            known = ", ".join(sorted(TIKTOKEN_PATTERNS))
            raise TokvizError(
                f"unknown tiktoken encoding {name!r}: its split regex is not stored in the file; "
                f"pass pattern= (CLI: --pattern) or name the file after a known encoding ({known})",
                path,
            )
    ranks, vocab = _read_table(path)
    specials = [AddedToken(content, id, special=True) for content, id in TIKTOKEN_SPECIALS.get(name, {}).items()]
    taken = set(ranks.values())
    specials = [s for s in specials if s.id not in taken]
    model = BPE(vocab, None, ignore_merges=True)  # tiktoken: ranks of merged tokens, whole piece first
    tok = Tokenizer(
        model,
        pre_tokenizer=pre.Sequence([pre.Split(pattern, "Isolated", dialect="rust"), pre.ByteLevel(use_regex=False)]),
        decoder=dec.ByteLevel(),
        added_tokens=specials,
        special_in_text=False,
        source=Source("tiktoken", str(path), name, {"pattern": pattern}),
    )
    tok.decode_skips_special = False  # tiktoken's decode gives a special token's text
    tok.repairs_surrogates = True  # tiktoken's encode repairs surrogates instead of refusing the text
    return tok
