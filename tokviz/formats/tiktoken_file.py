"""tiktoken `.tiktoken` rank files: one `base64(token bytes) rank` per line.

The file holds no pre-tokenization regex: it is known by the file's name for OpenAI's encodings,
or by the file's contents for those and Llama 3 and 4 (`known_ranks`); otherwise the caller
passes `pattern=`.
"""
from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

from ..core import decoders as dec
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.bytelevel import many_bytes_to_unicode
from ..core.models import BPE
from ..core.patterns import TIKTOKEN_PATTERNS, TIKTOKEN_SPECIALS
from ..core.tokenizer import Source, Tokenizer
from ..core.limits import check_ids, max_sane_id
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP
from ._util import read_bytes, stem
from .known_ranks import known_encoding


_REGULAR = re.compile(rb"(?:[^\s]+ [^\s]+\n)*(?:[^\s]+ [^\s]+\n?)")  # every line "token rank"
MAX_TIKTOKEN_RANK = (1 << 32) - 1  # tiktoken's ranks are 32-bit unsigned


def read_ranks(path: Path) -> dict[bytes, int]:
    """token bytes -> rank of a .tiktoken file, read as tiktoken's load_tiktoken_bpe reads it."""
    return _read_table(path)[0]


def _read_table(path: Path) -> tuple[dict[bytes, int], dict[str, int]]:
    """(token bytes -> rank, token as byte-level text -> rank) of a .tiktoken file.  A regular
    file is read in C when the extension is there; anything else by `_read_ranks`, which reads
    it as tiktoken does and names what is wrong."""
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
    """tiktoken's reading (load_tiktoken_bpe, then the Encoding's checks): lines cut by
    bytes.splitlines, an empty one skipped, every other one exactly two fields cut at ASCII
    whitespace, the token decoded by base64.b64decode (which drops characters outside the
    alphabet), the rank read by int(); a token listed twice keeps its last rank; two tokens with
    one rank, or a rank outside 0..2**32-1, and tiktoken refuses the file."""
    ranks: dict[bytes, int] = {}
    line_of: dict[bytes, int] = {}  # token -> the line that gave its rank (read line by line)
    if _REGULAR.fullmatch(data):  # the whole file at C speed; the loop below names what is wrong
        fields = data.split()
        try:
            ranks = dict(zip(map(base64.b64decode, fields[0::2]), map(int, fields[1::2])))
        except (binascii.Error, ValueError):
            ranks = {}
        if ranks and (not 0 <= min(ranks.values()) <= max(ranks.values()) <= MAX_TIKTOKEN_RANK
                      or len(set(ranks.values())) != len(ranks)):
            ranks = {}  # read again line by line, to name the line
    if not ranks:
        for lineno, line in enumerate(data.splitlines(), 1):
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                what = "a line of only spaces" if not parts else f"{len(parts)} fields"
                raise TokvizError(f"line {lineno}: expected 'base64 rank', got {what}: {line[:60]!r} "
                                  "(tiktoken refuses such a line)", path)
            try:
                token = base64.b64decode(parts[0])
            except (binascii.Error, ValueError) as exc:
                raise TokvizError(f"line {lineno}: invalid base64 token {parts[0][:40]!r} ({exc})", path) from None
            try:
                rank = int(parts[1])
            except ValueError:
                rank_text = parts[1][:40].decode("utf-8", "replace")
                if parts[1].isdigit():  # more digits than int() reads
                    raise TokvizError(f"line {lineno}: rank {rank_text}... of {len(parts[1])} digits is out of range",
                                      path) from None
                raise TokvizError(f"line {lineno}: rank {rank_text!r} is not a whole number", path) from None
            if not 0 <= rank <= MAX_TIKTOKEN_RANK:
                raise TokvizError(f"line {lineno}: rank {rank} is out of range (tiktoken's ranks are 0..2**32-1)", path)
            ranks[token] = rank  # a token listed twice keeps its last rank, as in tiktoken's dict
            line_of[token] = lineno
    if not ranks:
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "no ranks in file (empty or not a .tiktoken file)"), path)
    values = ranks.values()
    if len(set(values)) != len(ranks):
        token_of_rank: dict[int, bytes] = {}
        for token, rank in sorted(ranks.items(), key=lambda item: line_of.get(item[0], 0)):
            if rank in token_of_rank:
                where = f"line {line_of[token]}: " if token in line_of else ""
                raise TokvizError(f"{where}rank {rank} is given to two tokens, {token_of_rank[rank]!r} and {token!r} "
                                  "(tiktoken refuses duplicate ranks)", path)
            token_of_rank[rank] = token
    check_ids(max(values), len(ranks), path, "rank")
    return ranks


def read_tiktoken(path: Path, pattern: str | None = None, *, name: str | None = None) -> Tokenizer:
    """`name`: the encoding's name when the file is not named after it (tiktoken's download cache
    names files by a hash); it picks the split pattern and special tokens."""
    name = name or stem(path)
    special_tokens = TIKTOKEN_SPECIALS.get(name, {})
    if pattern is None:
        pattern = TIKTOKEN_PATTERNS.get(name)
        if pattern is None:
            known = known_encoding(path)
            if known is None:
                names = ", ".join(sorted(TIKTOKEN_PATTERNS))
                raise TokvizError(
                    f"unknown tiktoken encoding {name!r}: its split regex is not stored in the file, and its contents "
                    f"are not those of a known encoding; pass pattern= (CLI: --pattern) or name the file after a "
                    f"known encoding ({names})",
                    path,
                )
            name, pattern, special_tokens = known.name, known.pattern, known.special_tokens
    ranks, vocab = _read_table(path)
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        shown = ", ".join(f"0x{b:02X}" for b in missing[:8]) + (", ..." if len(missing) > 8 else "")
        raise TokvizError(f"the ranks lack {len(missing)} of the 256 single bytes ({shown}): tiktoken fails on any "
                          "text that needs one of them, and tokviz does not take such a file", path)
    specials = [AddedToken(content, id, special=True) for content, id in special_tokens.items()]
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
