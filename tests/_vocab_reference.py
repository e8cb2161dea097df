"""The vocabulary table as tokviz built it before it became columnar: one object per token, each
field computed on its own, filters and sorts row by row.  A plain reference that
`analysis.vocab_stats.TokenTable`, `vocab_stats` and the Vocabulary view's proxy are checked against."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import regex

from tokviz.analysis.token_info import merge_rank
from tokviz.analysis.vocab_stats import CATEGORIES, SCRIPTS, VocabStats, numbers_single_token
from tokviz.core.encoding import display_string
from tokviz.core.models.bpe import BPE
from tokviz.core.sentencepiece import BYTE, CONTROL, UNKNOWN, UNUSED, USER_DEFINED

from _shared import SHARED_TOKENIZER_FILES

# the shared tokenizers (skipped when ../shared is absent) and the shipped demo
SHARED_TABLES = SHARED_TOKENIZER_FILES


@dataclass
class Row:
    id: int
    token: str
    text: str  # bytes that are not UTF-8 as ⟨e6⟩
    n_bytes: int
    n_chars: int
    category: str
    special: bool
    rank: int | float | None


def category_of(text: str | None) -> str:
    """The category of a token's text, letter by letter (None: not UTF-8)."""
    if text is None:
        return "partial UTF-8"
    if not text.strip():
        return "whitespace"
    letters = regex.findall(r"\p{L}", text)
    if letters:
        found = {name for name, rx in SCRIPTS.items() if any(rx.match(c) for c in letters)}
        if len(found) == 1 and all(any(rx.match(c) for rx in SCRIPTS.values()) for c in letters):
            return found.pop()
        return "mixed scripts" if len(found) > 1 else "other letters"
    if regex.fullmatch(r"\s*\p{Nd}+\s*", text):
        return "digits"
    if regex.fullmatch(r"[\s\p{P}]*\p{P}[\s\p{P}]*", text):
        return "punctuation"
    return "symbols"


def reference_rows(tok) -> list[Row]:
    model = tok.model
    specials = {t.id for t in tok.added.tokens if t.special}
    ranks = {}
    if isinstance(model, BPE):
        for token, i in model.vocab.items():
            r = merge_rank(model, token)
            if r is not None:
                ranks[i] = r
    elif getattr(model, "scores", None) is not None:
        ranks = {i: float(s) for i, s in enumerate(model.scores)}
    types = getattr(getattr(model, "table", None), "types", None)
    kinds = {BYTE: "byte piece", CONTROL: "control", UNKNOWN: "control", USER_DEFINED: "user-defined"}
    rows = []
    for i in range(tok.vocab_size):
        token = tok.id_to_token(i)
        if token is None:
            continue
        data = tok.token_bytes(i)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        kind = kinds.get(types[i]) if types is not None and i < len(types) else None
        if i in specials:
            category = "special"
        elif kind is not None:
            category = kind
        elif getattr(model, "byte_fallback", False) and regex.fullmatch(r"<0x[0-9A-F]{2}>", token):
            category = "byte piece"
        else:
            category = category_of(text)
        rows.append(Row(i, token, display_string(data), len(data), len(text) if text is not None else 0,
                        category, i in specials, ranks.get(i)))
    return rows


def reference_stats(tok, rows: list[Row], longest: int = 20) -> VocabStats:
    size = tok.vocab_size
    added = tok.added.tokens
    types = getattr(getattr(tok.model, "table", None), "types", None)
    kinds = Counter(types) if types is not None else Counter()
    plain = [r for r in rows if not r.special]
    counts = Counter(r.category for r in rows)
    return VocabStats(
        size=size, divisible_by_64=size % 64 == 0, divisible_by_128=size % 128 == 0,
        special=sum(1 for t in added if t.special), added=sum(1 for t in added if not t.special),
        control=kinds.get(CONTROL, 0), user_defined=kinds.get(USER_DEFINED, 0),
        byte_pieces=kinds.get(BYTE, 0) if types is not None else sum(
            1 for r in rows if regex.fullmatch(r"<0x[0-9A-F]{2}>", r.token)),
        unused=kinds.get(UNUSED, 0),
        reserved=sum(1 for r in rows if regex.search(r"reserved|unused", r.token, regex.IGNORECASE)
                     and (r.category in ("special", "control", "user-defined") or r.token.startswith(("[", "<")))),
        length_bytes=dict(sorted(Counter(r.n_bytes for r in plain).items())),
        length_chars=dict(sorted(Counter(r.n_chars for r in plain if r.category != "partial UTF-8").items())),
        script_counts={c: counts.get(c, 0) for c in CATEGORIES},
        cjk_single_chars=sum(1 for r in plain if len(r.text.strip()) == 1 and regex.match(r"\p{Han}", r.text.strip())),
        numbers_single_token=numbers_single_token(tok),
        longest=[(r.id, r.text, r.n_bytes) for r in sorted(plain, key=lambda r: (-r.n_bytes, r.id))[:longest]],
    )


def reference_cells(r: Row) -> tuple[str, ...]:
    """The seven cells of a row as the table showed them."""
    from tokviz.gui.views.token_view import runs_display, text_runs

    rank = "" if r.rank is None else f"{r.rank:g}" if isinstance(r.rank, float) else str(r.rank)
    return (str(r.id), r.token, runs_display(text_runs(r.text)), str(r.n_bytes), str(r.n_chars), r.category, rank)


def reference_filter(rows: list[Row], text: str = "", category: str = "", lo: int = 0, hi: int = 0) -> list[int]:
    """Indices of the rows the filter keeps (a bad regex filters nothing)."""
    keep = []
    rx = None
    if len(text) > 2 and text.startswith("/") and text.endswith("/"):
        try:
            rx = regex.compile(text[1:-1], regex.IGNORECASE)
        except regex.error:
            text = ""
    for k, r in enumerate(rows):
        if rx is not None:
            if rx.search(r.token) is None and rx.search(r.text) is None:
                continue
        elif text and text.lower() not in f"{r.token}\x00{r.text}".lower():
            continue
        if (category and r.category != category) or (lo and r.n_bytes < lo) or (hi and r.n_bytes > hi):
            continue
        keep.append(k)
    return keep


def reference_order(rows: list[Row], shown: list[int], column: int, descending: bool) -> list[int]:
    """`shown` sorted by a column: stable, ascending, then reversed for descending."""
    numeric = {0: lambda r: r.id, 3: lambda r: r.n_bytes, 4: lambda r: r.n_chars,
               6: lambda r: float("inf") if r.rank is None else float(r.rank)}
    if column in numeric:
        def key(k):
            return numeric[column](rows[k])
    else:
        def key(k):
            return reference_cells(rows[k])[column]
    out = sorted(shown, key=key)
    return out[::-1] if descending else out
