"""What a vocabulary holds, without any corpus: size, special and reserved tokens, token lengths,
scripts, single-character CJK tokens, numbers, longest tokens; and the vocabulary table, one
numpy column per field (`token_table`).

    >>> table = token_table(tok)
    >>> stats = vocab_stats(tok, table)
    >>> stats.size, stats.divisible_by_128, stats.script_counts["CJK"]
    (151665, False, 24974)

Plain data, no Qt: `tokviz stats` prints it, the Vocabulary view shows it.
"""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np
import regex

from ..core.encoding import display_string
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


@dataclass(eq=False)
class TokenTable:
    """The vocabulary table as columns: each array holds one element per row, a row per id that has
    a token (in id order).

    No string is made per row: `tokens` are the vocabulary's own strings, `text(row)` is decoded from
    the token's bytes when a cell is shown, and the substring filter searches one lower-case
    haystack of all rows (`contains`)."""

    tokenizer: object
    ids: np.ndarray  # int64
    tokens: list[str]  # the tokenizer's own strings ('Ġthe', '##ing', '▁the'), as id_to_token gives them
    n_bytes: np.ndarray  # int32
    n_chars: np.ndarray  # int32: characters of the text, 0 when its bytes are not UTF-8
    category: np.ndarray  # uint8: index into CATEGORIES
    special: np.ndarray  # bool
    rank: np.ndarray  # float64: merge rank (BPE) or score (Unigram / sentencepiece BPE), NaN for none
    rank_is_int: bool  # the ranks are merge ranks (integers), not scores
    byte_name: np.ndarray  # bool: the token is written like a byte piece ('<0xE6>')
    reserved: np.ndarray  # bool: counted in VocabStats.reserved
    single_han: np.ndarray  # bool: the text is one Han character, with or without spaces around it
    text_is_token: np.ndarray  # bool: text(row) == token(row) (a regex need not look at the text)
    haystack: np.ndarray  # uint32 code points: (token + '\x00' + text).lower() + '\n', row after row
    starts: np.ndarray  # int64: where each row begins in haystack, then len(haystack)
    other_texts: list[str] = field(default_factory=list)  # text(row) of each row where it is not the token, in order

    @classmethod
    def empty(cls) -> TokenTable:
        no = np.zeros(0, bool)
        return cls(tokenizer=None, ids=np.zeros(0, np.int64), tokens=[], n_bytes=np.zeros(0, np.int32),
                   n_chars=np.zeros(0, np.int32), category=np.zeros(0, np.uint8), special=no, rank=np.zeros(0),
                   rank_is_int=False, byte_name=no, reserved=no, single_han=no, text_is_token=no,
                   haystack=np.zeros(0, np.uint32), starts=np.zeros(1, np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def token(self, row: int) -> str:
        return self.tokens[row]

    def text(self, row: int) -> str:
        """What the token stands for in text, bytes that are not UTF-8 as ⟨e6⟩."""
        return display_string(self.tokenizer.token_bytes(int(self.ids[row])))

    def category_name(self, row: int) -> str:
        return CATEGORIES[self.category[row]]

    def contains(self, needle: str) -> np.ndarray:
        """A mask of the rows whose `(token + '\\x00' + text).lower()` contains `needle.lower()`."""
        code = _code_points(needle.lower())
        hay, starts = self.haystack, self.starts
        if not len(code):
            return np.ones(len(self), bool)
        at = np.flatnonzero(hay == code[0])
        at = at[at + len(code) <= len(hay)]
        for k in range(1, len(code)):
            at = at[hay[at + k] == code[k]]
        rows = np.searchsorted(starts, at, "right") - 1
        # a hit must end before its row's '\n' (one that runs into the next row is no hit)
        rows = rows[at + len(code) < starts[rows + 1]]
        keep = np.zeros(len(self), bool)
        keep[rows] = True
        return keep

    def matches(self, rx) -> np.ndarray:
        """A mask of the rows whose token or text (each on its own) `rx.search` finds something in."""
        # (concurrent=False: `regex` lets go of the GIL around each search of a str, and taking it
        # back 150k times beside busy threads made a filter on the UI thread 25x slower)
        search = functools.partial(rx.search, concurrent=False) if isinstance(rx, regex.Pattern) else rx.search
        hit = np.fromiter(map(bool, map(search, self.tokens)), bool, len(self))  # (a match object is true)
        others = np.flatnonzero(~self.text_is_token)
        if len(others):
            hit[others] |= np.fromiter(map(bool, map(search, self.other_texts)), bool, len(others))
        return hit


def token_table(tokenizer) -> TokenTable:
    """The table of every id below `tokenizer.vocab_size` that has a token.

    Computed in bulk: the tokens joined in one string, the bytes decoded in one go, per-character
    classes looked up once per distinct character and summed per row with numpy."""
    from ..core.sentencepiece import BYTE, CONTROL, UNKNOWN, USER_DEFINED

    model = tokenizer.model
    tokens = list(map(tokenizer.id_to_token, range(tokenizer.vocab_size)))  # the vocabulary's own strings
    ids = np.flatnonzero(np.fromiter((t is not None for t in tokens), bool, len(tokens)))
    if len(ids) < len(tokens):
        tokens = [t for t in tokens if t is not None]
    n = len(ids)
    blobs = [tokenizer.token_bytes(i) for i in ids.tolist()]
    n_bytes = np.fromiter(map(len, blobs), np.int32, n)
    text, text_starts = decoded_rows(blobs, n_bytes)
    del blobs
    category, n_chars, single_han = text_categories(text, text_starts)

    joined = "\n".join(tokens)  # ('\n' can be in a token, but no pattern used on it matches it)
    token_lengths = np.fromiter(map(len, tokens), np.int64, n)
    token_cp = _code_points(joined)
    token_starts = _starts(token_lengths + 1)[:-1]
    byte_name = _byte_names(token_cp, token_starts, token_lengths)
    if getattr(model, "byte_fallback", False):
        category[byte_name] = _CODE["byte piece"]
    types = getattr(getattr(model, "table", None), "types", None)
    if types is not None:
        types = np.asarray(types)
        inside = np.flatnonzero(ids < len(types))
        kinds = types[ids[inside]]
        for kind, name in ((BYTE, "byte piece"), (CONTROL, "control"), (UNKNOWN, "control"), (USER_DEFINED, "user-defined")):
            category[inside[kinds == kind]] = _CODE[name]
    special = np.isin(ids, [t.id for t in tokenizer.added.tokens if t.special])
    category[special] = _CODE["special"]

    reserved = _reserved_slots(joined, token_cp, token_starts, token_lengths, category)
    del joined

    display, display_starts = _display_code_points(text, text_starts)
    text_is_token = _same_rows(token_cp, token_starts, token_lengths, display, display_starts)
    haystack, starts = _haystack(token_cp, token_starts, token_lengths, display, display_starts)
    rank, rank_is_int = _rank_column(model, ids)
    other_texts = _rows_as_strings(display, display_starts, np.flatnonzero(~text_is_token))
    return TokenTable(tokenizer, ids, tokens, n_bytes, n_chars, category, special, rank, rank_is_int,
                      byte_name, reserved, single_han, text_is_token, haystack, starts, other_texts)


def _rows_as_strings(cp: np.ndarray, starts: np.ndarray, rows: np.ndarray) -> list[str]:
    """The strings of `rows` of code points laid out from `starts`."""
    joined = cp.astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    return [joined[a:b] for a, b in zip(starts[rows].tolist(), starts[rows + 1].tolist())]


_CODE = {name: code for code, name in enumerate(CATEGORIES)}
# per-character classes, bits of _char_classes: SCRIPTS first (bit k: the k-th script), then these
_LETTER_BIT, _RX_SPACE, _DIGIT, _PUNCT_CHAR, _HAN, _SPACE, _ESCAPE = (1 << k for k in range(len(SCRIPTS), len(SCRIPTS) + 7))
_SCRIPT_BITS = (1 << len(SCRIPTS)) - 1
_CLASS_PATTERNS = (*SCRIPTS.values(), _LETTER, regex.compile(r"\s"), regex.compile(r"\p{Nd}"),
                   regex.compile(r"\p{P}"), _HAN_CHAR)


def _code_points(s: str) -> np.ndarray:
    return np.frombuffer(s.encode("utf-32-le", "surrogatepass"), np.uint32)


def _starts(lengths: np.ndarray) -> np.ndarray:
    """Where segments of these lengths start when laid end to end, then their total."""
    out = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


def decoded_rows(blobs: list[bytes], n_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every row's bytes decoded as UTF-8: the code points of all rows, each byte that is not part of
    a character as U+DC80..U+DCFF ('surrogateescape'; valid UTF-8 never decodes to those), and
    where each row starts in them."""
    # Rows are joined by 0xFF, a byte no UTF-8 character holds: no character spans two rows, and
    # each code point's byte offset tells its row.
    cp = _code_points(b"\xff".join(blobs).decode("utf-8", "surrogateescape"))
    escaped = (cp >= 0xDC80) & (cp <= 0xDCFF)
    width = np.where(cp < 0x80, 1, np.where(cp < 0x800, 2, np.where(cp < 0x10000, 3, 4)))
    width[escaped] = 1
    offset = np.cumsum(width) - width
    row_at = _starts(n_bytes + 1)[:-1]
    first = np.searchsorted(offset, row_at)
    after = np.searchsorted(offset, row_at + n_bytes)  # the joining 0xFF after the row
    return np.delete(cp, after[:-1]), _starts(after - first)


def _char_classes(cp: np.ndarray) -> np.ndarray:
    """The class bits of each code point (each distinct character is looked at once)."""
    if not len(cp):
        return np.zeros(0, np.uint16)
    seen = np.flatnonzero(np.bincount(cp))
    chars = "".join(map(chr, seen.tolist()))
    bits = np.zeros(len(seen), np.uint16)
    for k, rx in enumerate(_CLASS_PATTERNS):  # (all single-character patterns)
        bits[np.fromiter((m.start() for m in rx.finditer(chars)), np.int64)] |= 1 << k
    bits[np.fromiter(map(str.isspace, chars), bool, len(chars))] |= _SPACE  # what str.strip() strips
    bits[(seen >= 0xDC80) & (seen <= 0xDCFF)] = _ESCAPE
    lookup = np.zeros(int(seen[-1]) + 1, np.uint16)
    lookup[seen] = bits
    return lookup[cp]


def text_categories(cp: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`token_category` of every row's text (from `decoded_rows`), its length in characters (0 if
    not UTF-8) and whether it is one Han character with only spaces around it."""
    n = len(starts) - 1
    lengths = np.diff(starts)
    row = np.repeat(np.arange(n), lengths)
    bits = _char_classes(cp)

    def per_row(mask: np.ndarray) -> np.ndarray:  # how many characters of each row are in mask
        return np.bincount(row[mask], minlength=n)

    def has(bit: int) -> np.ndarray:
        return (bits & bit) != 0

    partial = per_row(has(_ESCAPE)) > 0
    space = has(_SPACE)
    letter = has(_LETTER_BIT)
    scripts = np.array([per_row(letter & has(1 << k)) > 0 for k in range(len(SCRIPTS))]).reshape(len(SCRIPTS), n)
    found = scripts.sum(axis=0)
    unscripted = per_row(letter & ((bits & _SCRIPT_BITS) == 0)) > 0

    category = np.full(n, _CODE["symbols"], np.uint8)
    rx_space = has(_RX_SPACE)
    punct = has(_PUNCT_CHAR)
    # [\s\p{P}]*\p{P}[\s\p{P}]* matches in full exactly when every character is \s or \p{P} and one is \p{P}
    category[(per_row(rx_space | punct) == lengths) & (per_row(punct) > 0)] = _CODE["punctuation"]
    # \s*\p{Nd}+\s*: checked with the pattern on the (few) rows made only of those characters
    for r in np.flatnonzero((per_row(rx_space | has(_DIGIT)) == lengths) & (lengths > 0)).tolist():
        if _DIGITS.fullmatch(cp[starts[r]:starts[r + 1]].tobytes().decode("utf-32-le", "surrogatepass")):
            category[r] = _CODE["digits"]
    lettered = per_row(letter) > 0
    category[lettered & (found > 1)] = _CODE["mixed scripts"]
    category[lettered & (found < 2)] = _CODE["other letters"]
    one = lettered & (found == 1) & ~unscripted
    category[one] = scripts[:, one].argmax(axis=0)  # (SCRIPTS come first in CATEGORIES)
    category[per_row(space) == lengths] = _CODE["whitespace"]
    category[partial] = _CODE["partial UTF-8"]
    n_chars = np.where(partial, 0, lengths).astype(np.int32)
    single_han = ~partial & (per_row(~space) == 1) & (per_row(~space & has(_HAN)) == 1)
    return category, n_chars, single_han


def _display_code_points(cp: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of `decoded_rows` as `core.encoding.display_string` shows them: each byte that is
    not UTF-8 as a chip ⟨e6⟩."""
    escaped = (cp >= 0xDC80) & (cp <= 0xDCFF)
    if not escaped.any():
        return cp, starts
    width = np.where(escaped, 4, 1)
    at = np.cumsum(width) - width
    out = np.empty(int(width.sum()), np.uint32)
    out[at] = np.where(escaped, ord("⟨"), cp)
    byte = cp[escaped] - 0xDC00
    hex_digits = np.array([ord(c) for c in "0123456789abcdef"], np.uint32)
    chips = at[escaped]
    out[chips + 1] = hex_digits[byte >> 4]
    out[chips + 2] = hex_digits[byte & 15]
    out[chips + 3] = ord("⟩")
    grown = np.zeros(len(cp) + 1, np.int64)
    np.cumsum(escaped * 3, out=grown[1:])
    return out, starts + grown[starts]


def _haystack(token_cp, token_starts, token_lengths, text_cp, text_starts) -> tuple[np.ndarray, np.ndarray]:
    """(token + '\\x00' + text).lower() + '\\n' for every row, as code points, and the row starts.

    Lower-casing it whole equals lower-casing row by row: str.lower() maps character by character
    except a final sigma, which looks past neighbours only while they are case-ignorable, and
    '\\n' is not (neither cased nor case-ignorable)."""
    n = len(token_lengths)
    text_lengths = np.diff(text_starts)
    row_lengths = token_lengths + text_lengths + 2
    starts = _starts(row_lengths)
    out = np.empty(int(starts[-1]), np.uint32)
    # each token and the '\n' after it (in token_cp) go to the row's start; the '\n' becomes '\x00'
    shift = np.repeat(starts[:-1] - token_starts, token_lengths + 1)[: len(token_cp)]
    out[np.arange(len(token_cp)) + shift] = token_cp
    out[np.arange(len(text_cp)) + np.repeat(starts[:-1] + token_lengths + 1 - text_starts[:-1], text_lengths)] = text_cp
    out[starts[:-1] + token_lengths] = 0
    out[starts[1:] - 1] = ord("\n")
    hay = _code_points(out.tobytes().decode("utf-32-le", "surrogatepass").lower())
    if len(hay) != len(out):  # some characters lower-case to two ('İ' -> 'i̇'): rows grow
        seen = np.flatnonzero(np.bincount(out))
        lookup = np.zeros(int(seen[-1]) + 1, np.int64)
        lookup[seen] = [len(chr(c).lower()) for c in seen.tolist()]
        row_lengths = np.bincount(np.repeat(np.arange(n), row_lengths), weights=lookup[out], minlength=n)
        starts = _starts(row_lengths.astype(np.int64))
    return hay, starts


def _same_rows(token_cp, token_starts, token_lengths, text_cp, text_starts) -> np.ndarray:
    """Which rows' text has the same code points as their token."""
    same = token_lengths == np.diff(text_starts)
    rows = np.flatnonzero(same & (token_lengths > 0))
    lengths = token_lengths[rows]
    k = np.arange(int(lengths.sum())) - np.repeat(_starts(lengths)[:-1], lengths)  # place in its row
    differ = token_cp[np.repeat(token_starts[rows], lengths) + k] != text_cp[np.repeat(text_starts[rows], lengths) + k]
    same[rows] = np.bincount(np.repeat(np.arange(len(rows)), lengths)[differ], minlength=len(rows)) == 0
    return same


def _reserved_slots(joined: str, token_cp, token_starts, token_lengths, category) -> np.ndarray:
    """Reserved slots: special, control or user-defined tokens, or bracketed ones ('[unused7]'),
    named reserved or unused (`joined`: the tokens joined by '\\n')."""
    named = np.zeros(len(token_lengths), bool)
    hits = np.fromiter((m.start() for m in _RESERVED.finditer(joined)), np.int64)
    named[np.searchsorted(token_starts, hits, "right") - 1] = True
    first = np.zeros(len(token_lengths), np.uint32)
    some = token_lengths > 0
    first[some] = token_cp[token_starts[some]]
    bracketed = (first == ord("[")) | (first == ord("<"))
    return named & (np.isin(category, [_CODE["special"], _CODE["control"], _CODE["user-defined"]]) | bracketed)


def _byte_names(token_cp: np.ndarray, token_starts: np.ndarray, token_lengths: np.ndarray) -> np.ndarray:
    """Which tokens fully match <0x[0-9A-F]{2}>."""
    out = np.zeros(len(token_lengths), bool)
    rows = np.flatnonzero(token_lengths == 6)
    c = [token_cp[token_starts[rows] + k] for k in range(6)]

    def upper_hex(x):
        return ((x >= ord("0")) & (x <= ord("9"))) | ((x >= ord("A")) & (x <= ord("F")))

    out[rows] = ((c[0] == ord("<")) & (c[1] == ord("0")) & (c[2] == ord("x")) & upper_hex(c[3]) & upper_hex(c[4])
                 & (c[5] == ord(">")))
    return out


def _rank_column(model, ids: np.ndarray) -> tuple[np.ndarray, bool]:
    """Each row's merge rank (BPE with a merge list; a tiktoken-style BPE: the id) or score, NaN
    for none; and whether these are merge ranks."""
    rank = np.full(len(ids), np.nan)
    if isinstance(model, BPE):
        from .token_info import merge_rank

        row_of = np.full(int(ids[-1]) + 1 if len(ids) else 0, -1, np.int64)
        row_of[ids] = np.arange(len(ids))
        for token, i in model.vocab.items():
            r = merge_rank(model, token)
            if r is not None and 0 <= i < len(row_of) and row_of[i] >= 0:
                rank[row_of[i]] = r
        return rank, True
    scores = getattr(model, "scores", None)
    if scores is not None:
        scores = np.asarray(scores, np.float64)
        inside = ids < len(scores)
        rank[inside] = scores[ids[inside]]
    return rank, False


def vocab_stats(tokenizer, table: TokenTable | None = None, longest: int = 20) -> VocabStats:
    """The vocabulary's figures (from `token_table`, computed here unless given)."""
    table = token_table(tokenizer) if table is None else table
    size = tokenizer.vocab_size
    added = tokenizer.added.tokens
    types = getattr(getattr(tokenizer.model, "table", None), "types", None)
    kinds = Counter(types) if types is not None else Counter()
    from ..core.sentencepiece import BYTE, CONTROL, UNUSED, USER_DEFINED

    stats = VocabStats(
        size=size,
        divisible_by_64=size % 64 == 0,
        divisible_by_128=size % 128 == 0,
        special=sum(1 for t in added if t.special),
        added=sum(1 for t in added if not t.special),
        control=kinds.get(CONTROL, 0),
        user_defined=kinds.get(USER_DEFINED, 0),
        byte_pieces=kinds.get(BYTE, 0) if types is not None else int(table.byte_name.sum()),
        unused=kinds.get(UNUSED, 0),
        reserved=int(table.reserved.sum()),
    )
    plain = ~table.special
    stats.length_bytes = _histogram(table.n_bytes[plain])
    stats.length_chars = _histogram(table.n_chars[plain & (table.category != _CODE["partial UTF-8"])])
    counts = np.bincount(table.category, minlength=len(CATEGORIES))
    stats.script_counts = {c: int(counts[k]) for k, c in enumerate(CATEGORIES)}
    stats.cjk_single_chars = int((plain & table.single_han).sum())
    stats.numbers_single_token = numbers_single_token(tokenizer)
    rows = np.flatnonzero(plain)
    rows = rows[np.lexsort((table.ids[rows], -table.n_bytes[rows].astype(np.int64)))[:longest]]
    stats.longest = [(int(table.ids[r]), table.text(r), int(table.n_bytes[r])) for r in rows.tolist()]
    return stats


def _histogram(values: np.ndarray) -> dict[int, int]:
    """value -> how many times, in increasing order of value."""
    found, counts = np.unique(values, return_counts=True)
    return dict(zip(found.tolist(), counts.tolist()))


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
