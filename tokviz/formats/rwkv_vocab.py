"""RWKV "world" vocabularies (`rwkv_vocab_v20230424.txt`): one token per line, `id literal length`,
the literal a Python str or bytes literal as repr() writes it (`'\\n\\n'`, `b'\\xe4\\xb8'`) and length
its size in bytes (a str token stands for its UTF-8 bytes).

Encoding is greedy longest match over the text's UTF-8 bytes (`core.models.LongestMatch`), as the
rwkv package's TRIE_TOKENIZER does; decoding joins the tokens' bytes and reads them as UTF-8, and,
as TRIE_TOKENIZER, gives a single U+FFFD when they are not valid UTF-8.

The literals are parsed without evaluating anything: a quoted string without escapes is read as
it is, anything else must parse as a single str or bytes constant (ast), which `ast.literal_eval`
then reads.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from ..core.bytelevel import many_bytes_to_unicode
from ..core.limits import MAX_ID
from ..core.models import LongestMatch
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ._util import read_text, stem

FORMAT = "rwkv-vocab"
# A line of the file: id, a str or bytes literal, its length in bytes.
LINE = re.compile(r"(\d+) (b?(?:'.*'|\".*\")) (\d+)")
_LINE_BYTES = re.compile(LINE.pattern.encode())
_MAX_LITERAL = 4096  # characters: far longer than any token (RWKV's longest is 128 bytes)


def looks_like_rwkv_vocab(first_line: bytes) -> bool:
    """Whether a file's first line is an RWKV vocabulary line (`1 '\\x00' 1`)."""
    return _LINE_BYTES.fullmatch(first_line.rstrip(b"\r")) is not None


def parse_literal(text: str) -> str | bytes | None:
    """The str or bytes a Python literal stands for, or None when `text` is not one plain literal."""
    quote = text[:1]
    if quote in ("'", '"') and len(text) >= 2 and text[-1] == quote and "\\" not in text \
            and quote not in text[1:-1]:
        return text[1:-1]
    if len(text) > _MAX_LITERAL:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Constant) or type(node.value) not in (str, bytes):
        return None  # (an implicit concatenation 'a' 'b' is one Constant too: Python reads it so)
    return ast.literal_eval(text)


def read_rwkv_vocab(path: Path) -> Tokenizer:
    text = read_text(path).replace("\r\n", "\n").replace("\r", "\n")  # (read as Python's text mode does)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    token_of_id: dict[int, bytes] = {}
    id_of_token: dict[bytes, int] = {}
    for lineno, line in enumerate(lines, 1):
        m = LINE.fullmatch(line)
        if m is None:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "line {lineno}: expected 'id literal length' (an "
                                                               "RWKV vocabulary line), got {line!r}"), lineno=lineno,
                                      line=line[:60]), path)
        id_text, literal, length = m.groups()
        if len(id_text) > 10 or int(id_text) > MAX_ID:
            raise TokvizError(f"line {lineno}: id {id_text[:20]} is out of range (ids must be below 2**31)", path)
        value = parse_literal(literal)
        if value is None:
            raise TokvizError(f"line {lineno}: {literal[:60]} is not a Python str or bytes literal", path)
        if isinstance(value, str):
            try:
                value = value.encode("utf-8")
            except UnicodeEncodeError:
                raise TokvizError(f"line {lineno}: the token {literal[:60]} holds a lone surrogate, "
                                  "which has no UTF-8 bytes", path) from None
        if len(value) != int(length[:12]):
            raise TokvizError(f"line {lineno}: the token {literal[:60]} is {len(value)} bytes long, "
                              f"the line says {length[:12]} (the rwkv tokenizer refuses it)", path)
        token_id = int(id_text)
        if token_id in token_of_id:
            raise TokvizError(f"line {lineno}: id {token_id} is given twice, to {token_of_id[token_id]!r} "
                              f"and {value!r}", path)
        if value in id_of_token:
            raise TokvizError(f"line {lineno}: token {value!r} is listed twice, with ids {id_of_token[value]} "
                              f"and {token_id}", path)
        token_of_id[token_id] = value
        id_of_token[value] = token_id
    if not token_of_id:
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "no tokens in the file (empty, or not an RWKV vocabulary)"), path)
    vocab = dict(zip(many_bytes_to_unicode(id_of_token), id_of_token.values()))
    tok = Tokenizer(
        LongestMatch(vocab),
        special_in_text=False,
        source=Source(FORMAT, str(path), stem(path)),
        decode_fn=decode_utf8_or_replacement,
    )
    tok.byte_level = True  # (the vocabulary's strings are byte-level: token_bytes maps them back)
    tok.decode_skips_special = False
    return tok


def decode_utf8_or_replacement(tok: Tokenizer, ids: list[int], skip_special: bool) -> str:
    """TRIE_TOKENIZER.decode: the tokens' bytes as UTF-8, or one U+FFFD if they are not valid UTF-8."""
    try:
        return b"".join(map(tok.token_bytes, ids)).decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd"
