"""What a vocabulary holds, without any corpus: size, special and reserved tokens, token lengths,
scripts, single-character CJK tokens, numbers, longest tokens; and one row per token for the
vocabulary table.

    >>> stats = vocab_stats(tok)
    >>> stats.size, stats.divisible_by_128, stats.script_counts["CJK"]
    (151665, False, 24974)

Plain data, no Qt: `tokviz stats` prints it, the Vocabulary view shows it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

import regex

from ..core.models.bpe import BPE

# Scripts a token is put in, checked in this order on its letters.
SCRIPTS = {
    "Latin": regex.compile(r"\p{Latin}"),
    "CJK": regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Bopomofo}]"),
    "Hangul": regex.compile(r"\p{Hangul}"),
    "Cyrillic": regex.compile(r"\p{Cyrillic}"),
    "Greek": regex.compile(r"\p{Greek}"),
    "Arabic": regex.compile(r"\p{Arabic}"),
    "Hebrew": regex.compile(r"\p{Hebrew}"),
    "Devanagari": regex.compile(r"\p{Devanagari}"),
    "Thai": regex.compile(r"\p{Thai}"),
}
CATEGORIES = (*SCRIPTS, "other letters", "mixed scripts", "digits", "punctuation", "whitespace", "symbols",
              "partial UTF-8", "byte piece", "control", "user-defined", "special")
_BYTE_PIECE = regex.compile(r"<0x[0-9A-F]{2}>")
_LETTER = regex.compile(r"\p{L}")
_DIGITS = regex.compile(r"\s*\p{Nd}+\s*")
_PUNCT = regex.compile(r"[\s\p{P}]*\p{P}[\s\p{P}]*")
_HAN_CHAR = regex.compile(r"\p{Han}")
_RESERVED = regex.compile(r"reserved|unused", regex.IGNORECASE)


def token_category(text: str | None) -> str:
    """The category of a token's text (None: bytes that are not UTF-8 on their own)."""
    if text is None:
        return "partial UTF-8"
    if not text.strip():
        return "whitespace"
    letters = _LETTER.findall(text)
    if letters:
        found = {name for name, rx in SCRIPTS.items() if any(rx.match(c) for c in letters)}
        if len(found) == 1 and all(any(rx.match(c) for rx in SCRIPTS.values()) for c in letters):
            return found.pop()
        return "mixed scripts" if len(found) > 1 else "other letters"
    if _DIGITS.fullmatch(text):
        return "digits"
    if _PUNCT.fullmatch(text):
        return "punctuation"
    return "symbols"


@dataclass
class TokenRow:
    """One token of the vocabulary table."""

    id: int
    token: str  # the tokenizer's own string ('Ġthe', '##ing', '▁the')
    text: str  # what it stands for in text, bytes that are not UTF-8 as ⟨e6⟩
    n_bytes: int
    n_chars: int
    category: str
    special: bool
    rank: float | None  # merge rank (BPE) or score (Unigram / sentencepiece BPE)


@dataclass
class VocabStats:
    size: int
    divisible_by_64: bool
    divisible_by_128: bool
    special: int  # added tokens marked special
    added: int  # added tokens not special
    control: int  # sentencepiece control pieces (<s>, </s>, ...)
    user_defined: int  # sentencepiece user-defined symbols
    byte_pieces: int  # byte-fallback pieces <0x00>..<0xFF>
    unused: int  # sentencepiece unused pieces
    reserved: int  # special, control, user-defined or bracketed tokens named reserved or unused ('[unused7]')
    length_bytes: dict[int, int] = field(default_factory=dict)  # length -> how many tokens
    length_chars: dict[int, int] = field(default_factory=dict)
    script_counts: dict[str, int] = field(default_factory=dict)
    cjk_single_chars: int = 0  # tokens that are exactly one Han character (with or without a leading space)
    numbers_single_token: list[int] = field(default_factory=list)  # which of 0..999 encode to one token
    longest: list[tuple[int, str, int]] = field(default_factory=list)  # (id, text, bytes) of the longest tokens

    @property
    def mean_bytes(self) -> float:
        n = sum(self.length_bytes.values())
        return sum(k * v for k, v in self.length_bytes.items()) / n if n else 0.0

    def as_dict(self) -> dict:
        d = asdict(self)
        d["mean_bytes"] = self.mean_bytes
        d["numbers_single_token_count"] = len(self.numbers_single_token)
        d["length_bytes"] = {str(k): v for k, v in sorted(self.length_bytes.items())}
        d["length_chars"] = {str(k): v for k, v in sorted(self.length_chars.items())}
        d["longest"] = [{"id": i, "text": t, "bytes": n} for i, t, n in self.longest]
        return d


def token_rows(tokenizer) -> list[TokenRow]:
    """One row per id of the vocabulary (ids with no token are left out)."""
    from ..core.encoding import display_string

    from ..core.sentencepiece import BYTE, CONTROL, UNKNOWN, USER_DEFINED

    model = tokenizer.model
    specials = {t.id for t in tokenizer.added.tokens if t.special}
    ranks = _rank_table(model)
    types = getattr(getattr(model, "table", None), "types", None)
    kind_names = {BYTE: "byte piece", CONTROL: "control", UNKNOWN: "control", USER_DEFINED: "user-defined"}
    byte_fallback = bool(getattr(model, "byte_fallback", False))
    rows = []
    for i in range(tokenizer.vocab_size):
        token = tokenizer.id_to_token(i)
        if token is None:
            continue
        data = tokenizer.token_bytes(i)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        special = i in specials
        kind = kind_names.get(types[i]) if types is not None and i < len(types) else None
        if special:
            category = "special"
        elif kind is not None:
            category = kind
        elif byte_fallback and _BYTE_PIECE.fullmatch(token):
            category = "byte piece"
        else:
            category = token_category(text)
        rows.append(TokenRow(i, token, text if text is not None else display_string(data), len(data),
                             len(text) if text is not None else 0, category, special, ranks.get(i)))
    return rows


def _rank_table(model) -> dict[int, float]:
    """id -> merge rank (BPE with a merge list; a tiktoken-style BPE: the id) or score."""
    if isinstance(model, BPE):
        from .token_info import merge_rank

        out = {}
        for token, i in model.vocab.items():
            r = merge_rank(model, token)
            if r is not None:
                out[i] = r
        return out
    scores = getattr(model, "scores", None)
    if scores is not None:
        return {i: float(s) for i, s in enumerate(scores)}
    return {}


def vocab_stats(tokenizer, rows: list[TokenRow] | None = None, longest: int = 20) -> VocabStats:
    """The vocabulary's figures (from `token_rows`, computed here unless given)."""
    rows = token_rows(tokenizer) if rows is None else rows
    size = tokenizer.vocab_size
    added = tokenizer.added.tokens
    types = getattr(getattr(tokenizer.model, "table", None), "types", None)
    kinds = Counter(types) if types is not None else Counter()
    from ..core.sentencepiece import BYTE, CONTROL, UNUSED, USER_DEFINED

    byte_pieces = kinds.get(BYTE, 0) if types is not None else sum(
        1 for r in rows if regex.fullmatch(r"<0x[0-9A-F]{2}>", r.token))
    # reserved slots: special, control or user-defined tokens, or bracketed ones ('[unused7]'), so named
    reserved = sum(1 for r in rows if _RESERVED.search(r.token)
                   and (r.category in ("special", "control", "user-defined") or r.token.startswith(("[", "<"))))
    stats = VocabStats(
        size=size,
        divisible_by_64=size % 64 == 0,
        divisible_by_128=size % 128 == 0,
        special=sum(1 for t in added if t.special),
        added=sum(1 for t in added if not t.special),
        control=kinds.get(CONTROL, 0),
        user_defined=kinds.get(USER_DEFINED, 0),
        byte_pieces=byte_pieces,
        unused=kinds.get(UNUSED, 0),
        reserved=reserved,
    )
    plain = [r for r in rows if not r.special]
    stats.length_bytes = dict(sorted(Counter(r.n_bytes for r in plain).items()))
    stats.length_chars = dict(sorted(Counter(r.n_chars for r in plain if r.category != "partial UTF-8").items()))
    counts = Counter(r.category for r in rows)
    stats.script_counts = {c: counts.get(c, 0) for c in CATEGORIES}
    stats.cjk_single_chars = sum(1 for r in plain if len(r.text.strip()) == 1 and _HAN_CHAR.match(r.text.strip()))
    stats.numbers_single_token = numbers_single_token(tokenizer)
    stats.longest = [(r.id, r.text, r.n_bytes) for r in sorted(plain, key=lambda r: (-r.n_bytes, r.id))[:longest]]
    return stats


def numbers_single_token(tokenizer, upto: int = 1000) -> list[int]:
    """The numbers 0..upto-1 whose digits (alone, as text) encode to exactly one token that holds
    them (not an unknown token)."""
    out = []
    for n in range(upto):
        digits = str(n)
        enc = tokenizer.encode(digits, allow_special=False)
        if len(enc) == 1 and enc.token_bytes[0].decode("utf-8", "replace").strip().lstrip("▁") == digits:
            out.append(n)
    return out
