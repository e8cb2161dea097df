"""Pre-tokenization regexes of well-known tokenizers, by name, and how a tokenizer file's own
regexes are compiled and run (with a time budget: see `bounded_spans`)."""
from __future__ import annotations

from ..errors import TokvizError

# A tokenizer file's regex may take this long on any text, plus a character's share at this rate
# (the patterns of real tokenizers run at megabytes per second).  One that backtracks
# catastrophically, as (a|aa)+b on a long run of a's, takes exponential time: it runs out of
# budget and the encode fails with a clear reason instead of holding a worker forever.
MATCH_SECONDS = 5.0
MATCH_CHARS_PER_SECOND = 50_000

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

# tiktoken's spelling of the GPT-2 split (possessive, same pieces on real text).
R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# tiktoken encodings, by the file name people keep them under.
TIKTOKEN_PATTERNS = {
    "gpt2": R50K_PATTERN,
    "r50k_base": R50K_PATTERN,
    "p50k_base": R50K_PATTERN,
    "p50k_edit": R50K_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    "o200k_base": O200K_PATTERN,
}

# Special tokens the tiktoken encodings define (ids follow their rank tables).
TIKTOKEN_SPECIALS = {
    "gpt2": {"<|endoftext|>": 50256},
    "r50k_base": {"<|endoftext|>": 50256},
    "p50k_base": {"<|endoftext|>": 50256},
    "p50k_edit": {"<|endoftext|>": 50256, "<|fim_prefix|>": 50281, "<|fim_middle|>": 50282, "<|fim_suffix|>": 50283},
    "cl100k_base": {
        "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}

NAMED_PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "qwen2": QWEN2_PATTERN,
}


def _end_anchors_to_absolute(pattern: str) -> str:
    """Rewrite `$` (outside character classes) as `\\Z`: in Rust's regex `$` is the end of the text,
    in Python's it may also match before a final newline."""
    out = []
    i = 0
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < len(pattern) and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < len(pattern) and pattern[i] == "]":
                out.append("]")
                i += 1
            continue
        elif c == "$":
            out.append(r"\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def compile_pattern(pattern: str, dialect: str = "onig"):
    """Compile a pre-tokenization regex with the anchor semantics of the library it was written for.

    "onig" (HF tokenizers, Ruby syntax): ^ and $ match at line boundaries.
    "rust" (tiktoken's fancy-regex): $ matches only at the end of the text.
    """
    import regex

    try:
        if dialect == "onig":
            return regex.compile(pattern, regex.MULTILINE)
        if dialect == "rust":
            return regex.compile(_end_anchors_to_absolute(pattern))
        raise ValueError(f"unknown regex dialect {dialect!r}")
    except regex.error as exc:
        raise TokvizError(f"invalid pre-tokenization regex {pattern!r}: {exc}") from None


def match_budget(n_chars: int) -> float:
    """Seconds a tokenizer file's regex may take on a text of `n_chars` characters."""
    return MATCH_SECONDS + n_chars / MATCH_CHARS_PER_SECOND


def _too_slow(what: str, compiled, budget: float, n_chars: int) -> TokvizError:
    return TokvizError(
        f"{what} {compiled.pattern!r} took more than {budget:.1f} s on {n_chars:,} characters: it backtracks "
        "catastrophically on this text (as (a|aa)+ does on a long run of a's); correct the pattern in the tokenizer file"
    )


def bounded_spans(compiled, text: str, what: str) -> list[tuple[int, int]]:
    """The (start, end) of every match of a tokenizer file's `compiled` regex in `text`, or a
    TokvizError naming `what` (e.g. "the Split pre-tokenizer's pattern") when they take longer
    than `match_budget`.  (Matches are collected at once: the budget counts wall time from the
    first match, so no other work may run between them.)"""
    budget = match_budget(len(text))
    try:
        return [m.span() for m in compiled.finditer(text, timeout=budget)]
    except TimeoutError:
        raise _too_slow(what, compiled, budget, len(text)) from None


def bounded_sub(compiled, repl: str, text: str, what: str) -> str:
    """compiled.sub(repl, text) (repl taken literally) within `match_budget`, or a TokvizError."""
    budget = match_budget(len(text))
    try:
        return compiled.sub(lambda _m: repl, text, timeout=budget)
    except TimeoutError:
        raise _too_slow(what, compiled, budget, len(text)) from None
