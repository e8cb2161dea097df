"""minbpe `.model` files: a version line, the split regex, special tokens, then merges as id pairs.

Ids 0-255 are the bytes; merge i creates id 256 + i.  Written by minbpe's RegexTokenizer and by tokviz.
"""
from __future__ import annotations

from pathlib import Path

from ..core import decoders as dec
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.bytelevel import bytes_to_unicode
from ..core.models import BPE
from ..core.tokenizer import Source, Tokenizer
from ..core.limits import MAX_ID
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ._util import read_text

MAGIC = "minbpe v1"


def read_minbpe(path: Path) -> Tokenizer:
    lines = read_text(path).split("\n")
    if not lines or lines[0].strip() != MAGIC:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "not a minbpe model: first line should be {magic!r}"),
                                  magic=MAGIC), path)
    if len(lines) < 3:
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "truncated minbpe model: missing pattern or special-token count"),
                          path)
    pattern = lines[1]
    try:
        n_special = int(lines[2])
    except ValueError:
        raise TokvizError(f"line 3: expected the number of special tokens, got {lines[2][:40]!r}", path) from None
    if n_special < 0 or 3 + n_special > len(lines):
        raise TokvizError(f"line 3: {n_special} special tokens announced but the file ends first", path)
    specials: list[tuple[str, int]] = []
    for k in range(n_special):
        line = lines[3 + k]
        content, _, num = line.rpartition(" ")
        if not content or not num.isdecimal():
            raise TokvizError(f"line {4 + k}: expected 'token id', got {line[:60]!r}", path)
        if len(num) > 10 or int(num) > MAX_ID:
            raise TokvizError(f"line {4 + k}: special token id {num[:40]} is too large (ids must be below 2**31)", path)
        taken = next((c for c, i in specials if i == int(num)), None)
        if taken is not None:
            raise TokvizError(f"line {4 + k}: special tokens {taken!r} and {content!r} both have id {num}", path)
        specials.append((content, int(num)))
    token_bytes = [bytes([b]) for b in range(256)]
    merges: list[tuple[str, str]] = []
    for lineno, line in enumerate(lines[3 + n_special :], 4 + n_special):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not all(p.isdecimal() for p in parts):
            raise TokvizError(f"line {lineno}: expected two token ids, got {line[:60]!r}", path)
        if max(map(len, parts)) > 10:
            raise TokvizError(f"line {lineno}: merge uses id {max(parts, key=len)[:40]}, which is not defined yet", path)
        a, b = int(parts[0]), int(parts[1])
        if a >= len(token_bytes) or b >= len(token_bytes):
            raise TokvizError(f"line {lineno}: merge uses id {max(a, b)}, which is not defined yet", path)
        merges.append((bytes_to_unicode(token_bytes[a]), bytes_to_unicode(token_bytes[b])))
        token_bytes.append(token_bytes[a] + token_bytes[b])
    vocab: dict[str, int] = {}
    for i, data in enumerate(token_bytes):
        vocab.setdefault(bytes_to_unicode(data), i)
    added = [AddedToken(c, i, special=True) for c, i in specials]
    try:
        split = pre.Split(pattern, "Isolated", dialect="rust") if pattern else None
    except TokvizError as exc:
        raise TokvizError(exc.reason, path) from None
    pieces = [split, pre.ByteLevel(use_regex=False)] if split else [pre.ByteLevel(use_regex=False)]
    tok = Tokenizer(
        BPE(vocab, merges),
        pre_tokenizer=pre.Sequence(pieces),
        decoder=dec.ByteLevel(),
        added_tokens=added,
        special_in_text=False,
        source=Source("minbpe", str(path), path.stem, {"pattern": pattern}),
    )
    tok.decode_skips_special = False  # minbpe's decode writes a special token's text
    return tok


def write_minbpe(path: Path, pattern: str, merges: list[tuple[int, int]], special_tokens: dict[str, int]) -> None:
    """Write a minbpe `.model` file (atomically: a temporary file, then a rename)."""
    from .atomic_write import write_text_atomic

    write_text_atomic(Path(path), minbpe_model_text(pattern, merges, special_tokens))


def minbpe_model_text(pattern: str, merges: list[tuple[int, int]], special_tokens: dict[str, int]) -> str:
    lines = [MAGIC, pattern, str(len(special_tokens))]
    lines += [f"{s} {i}" for s, i in special_tokens.items()]
    lines += [f"{a} {b}" for a, b in merges]
    return "\n".join(lines) + "\n"
