"""Pre-tokenization regexes of well-known tokenizers, by name, and how a tokenizer file's own
regexes are compiled and run (with a time budget: see `bounded_spans`)."""
from __future__ import annotations

import regex

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

# Qwen3.5: Qwen2's with the marks in the words ([\p{L}\p{M}]+) and not in the other characters.
QWEN35_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Mistral's tekken files (NeMo, Pixtral, Small 3...): o200k's without the contractions, one digit per piece.
TEKKEN_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"""
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}|"""
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
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


# ---- regex dialects ----------------------------------------------------------------------------
#
# The same pattern text means different things to the three engines involved:
#
#   construct     Oniguruma (HF tokenizers)          fancy-regex (tiktoken)    Python `regex`
#   X{n,m}+       (?:X{n,m})+  (repeat the interval) possessive                possessive
#   X{n}?         (?:X{n})?    (optional)            lazy, i.e. X{n}            lazy, i.e. X{n}
#   X++ X*+ X?+   possessive                         possessive                possessive
#   $             end of a line (before any \n)      end of the text           end of a line with MULTILINE
#   ^             start of a line, not after the     start of the text         start of a line with MULTILINE,
#                 text's final \n                                              also after the final \n
#   \Z            end, or before a final \n          (refused when written)    end of the text
#   \z            end of the text                    end of the text           end of the text
#   \h            a hex digit                        (not supported)           (not a class)
#   (?m)          dot matches \n                     multi-line anchors        multi-line anchors
#
# `onig_to_python` and `rust_to_python` give Python `regex` patterns with the first two columns'
# meanings (compile_pattern uses them); `rust_to_onig` gives the tokenizer.json spelling of a
# tiktoken-style pattern.  All three work on a lexed pattern, never by string replacement.

_INTERVAL = regex.compile(r"\{(\d*)(,?)(\d*)\}")
_GROUP_PREFIX = regex.compile(r"\(\?(?:[:>=!|]|<[=!]|P?<[A-Za-z_]\w*>|'[A-Za-z_]\w*'|P=\w+\)|#[^)]*\)|[A-Za-z^-]*[:)])")


def _escape_end(pattern: str, i: int) -> int:
    """End of the escape starting at pattern[i] == "\\"."""
    n = len(pattern)
    if i + 1 >= n:
        return n
    c = pattern[i + 1]
    j = i + 2
    if c in "pPxNuogk" and j < n and pattern[j] in "{<":
        close = pattern.find("}" if pattern[j] == "{" else ">", j)
        return n if close < 0 else close + 1
    if c == "x":
        while j < n and j < i + 4 and pattern[j] in "0123456789abcdefABCDEF":
            j += 1
    elif c == "u":
        while j < n and j < i + 6 and pattern[j] in "0123456789abcdefABCDEF":
            j += 1
    elif c == "c":
        j = min(n, j + 1)
    elif c == "0":
        while j < n and j < i + 4 and pattern[j] in "01234567":
            j += 1
    return j


def _class_end(pattern: str, i: int) -> int:
    """End of the character class starting at pattern[i] == "[" (nested classes included)."""
    n = len(pattern)
    j = i + 1
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":  # a "]" first is a literal
        j += 1
    while j < n:
        c = pattern[j]
        if c == "\\":
            j = _escape_end(pattern, j)
        elif c == "[":
            j = _class_end(pattern, j)
        elif c == "]":
            return j + 1
        else:
            j += 1
    return n


def lex_pattern(pattern: str) -> list[tuple[str, str]]:
    """The pattern as (kind, text) pieces: "atom" (a character, escape, class or "."), "anchor"
    ("^", "$"), "open" (a group's opening, "(?i:" included), "close", "flags" ("(?i)"),
    "comment", "alt" ("|") and "quant" (*, +, ?, {n,m} with a following "?" or "+").
    Joining the texts gives the pattern back."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = _escape_end(pattern, i)
            out.append(("atom", pattern[i:j]))
        elif c == "[":
            j = _class_end(pattern, i)
            out.append(("atom", pattern[i:j]))
        elif c == "(":
            m = _GROUP_PREFIX.match(pattern, i)
            j = m.end() if m else i + 1
            text = pattern[i:j]
            kind = "open"
            if text.startswith("(?#"):
                kind = "comment"
            elif text.endswith(")") and not text.startswith("(?P="):
                kind = "flags"
            elif text.startswith("(?P="):
                kind = "atom"
            out.append((kind, text))
        elif c == ")":
            j = i + 1
            out.append(("close", c))
        elif c == "|":
            j = i + 1
            out.append(("alt", c))
        elif c in "^$":
            j = i + 1
            out.append(("anchor", c))
        elif c in "*+?" or (c == "{" and _INTERVAL.match(pattern, i) and _INTERVAL.match(pattern, i).group(1, 3) != ("", "")):
            j = _INTERVAL.match(pattern, i).end() if c == "{" else i + 1
            if j < n and pattern[j] in "?+":
                j += 1
            out.append(("quant", pattern[i:j]))
        else:
            j = i + 1
            out.append(("atom", c))
        i = j
    return out


def _rewrite(pattern: str, quant, token) -> str:
    """Rebuild `pattern` from its lexed pieces: quant(atom, quantifier, quantified_already) gives
    the text of a quantified atom, token(kind, text) that of every other piece."""
    out: list[str] = []
    opens: list[int] = []
    atom_at: int | None = None  # where in `out` the last complete atom starts
    quantified = False
    for kind, text in lex_pattern(pattern):
        if kind == "quant" and atom_at is not None:
            atom = "".join(out[atom_at:])
            del out[atom_at:]
            out.append(quant(atom, text, quantified))
            quantified = True
            continue
        quantified = False
        if kind == "open":
            opens.append(len(out))
            out.append(token(kind, text))
            atom_at = None
        elif kind == "close":
            out.append(text)
            atom_at = opens.pop() if opens else None
        elif kind == "atom":
            atom_at = len(out)
            out.append(token(kind, text))
        else:
            out.append(token(kind, text))
            atom_at = None
    return "".join(out)


def _split_quant(q: str) -> tuple[str, str]:
    """(base, suffix) of a quantifier: ("{1,3}", "+"), ("*", "?"), ("+", "")."""
    if len(q) > 1 and q[-1] in "?+" and (q[0] != "{" or q[-2] == "}"):
        return q[:-1], q[-1]
    return q, ""


def _grouped(atom: str, quantified: bool) -> str:
    return f"(?:{atom})" if quantified else atom


# Oniguruma's \w: Python's without the joiners U+200C/U+200D; alone (not in a class) it also
# matches six Latin-1 numbers (checked against HF's Split on every assigned character).
_ONIG_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"
_ONIG_WORD_LATIN1 = "\u00b2\u00b3\u00b9\u00bc-\u00be"


def onig_to_python(pattern: str) -> str:
    """A Python `regex` pattern (to be compiled with MULTILINE) that matches what Oniguruma,
    HF tokenizers' engine, matches with `pattern` (see the table above)."""
    def quant(atom, q, quantified):
        atom = _grouped(atom, quantified)
        base, suffix = _split_quant(q)
        if base.startswith("{") and suffix == "+":
            return f"(?:{atom}{base})+"
        if base.startswith("{") and "," not in base and suffix == "?":
            return f"(?:{atom}{base})?"
        return atom + q

    def token(kind, text):
        if kind == "anchor" and text == "^":
            return r"(?:^(?!\Z)|\A)"
        if kind == "atom":
            if text == r"\z":
                return r"\Z"
            if text == r"\Z":
                return r"(?=\n?\Z)"
            if text == r"\h":
                return "[0-9a-fA-F]"
            if text == r"\H":
                return "[^0-9a-fA-F]"
            if text == r"\w":
                return f"[{_ONIG_WORD}{_ONIG_WORD_LATIN1}]"
            if text == r"\W":
                return f"[^{_ONIG_WORD}{_ONIG_WORD_LATIN1}]"
            if text.startswith("["):
                for escape, replacement in ((r"\h", "0-9a-fA-F"), (r"\w", _ONIG_WORD)):
                    if escape in text:
                        text = _replace_class_escape(text, escape, replacement)
                return text
        if kind in ("open", "flags") and regex.fullmatch(r"[A-Za-z-]+", text[2:-1]):
            return text.replace("m", "s")  # Oniguruma's (?m) is Python's (?s): "." matches a newline
        return text

    return _rewrite(pattern, quant, token)


def _replace_class_escape(cls: str, escape: str, replacement: str) -> str:
    """The class `cls` with each `escape` in it (not an escaped backslash) replaced."""
    out, i = [], 0
    while i < len(cls):
        if cls[i] == "\\":
            j = _escape_end(cls, i)
            out.append(replacement if cls[i:j] == escape else cls[i:j])
            i = j
        else:
            out.append(cls[i])
            i += 1
    return "".join(out)


def rust_to_python(pattern: str) -> str:
    """A Python `regex` pattern (compiled without MULTILINE) that matches what fancy-regex,
    tiktoken's engine, matches: `$` is the end of the text."""
    def token(kind, text):
        if kind == "anchor" and text == "$":
            return r"\Z"
        if kind == "atom" and text == r"\z":
            return r"\Z"
        return text

    return _rewrite(pattern, lambda atom, q, quantified: _grouped(atom, quantified) + q, token)


def rust_to_onig(pattern: str) -> str:
    """The Oniguruma spelling (tokenizer.json) of a fancy-regex (tiktoken-style) pattern: a
    possessive interval X{n,m}+ becomes the atomic group (?>X{n,m}), a lazy exact X{n}? becomes
    X{n}, `$` becomes \\z and `^` \\A.  ValueError for inline flags other than i and for \\Z (their
    meanings differ between the engines)."""
    def quant(atom, q, quantified):
        atom = _grouped(atom, quantified)
        base, suffix = _split_quant(q)
        if base.startswith("{") and suffix == "+":
            return f"(?>{atom}{base})"
        if base.startswith("{") and "," not in base and suffix == "?":
            return atom + base
        return atom + q

    def token(kind, text):
        if kind == "anchor":
            return r"\z" if text == "$" else r"\A"
        if kind == "atom" and text == r"\Z":
            raise ValueError(r"\Z is not the same anchor in tiktoken's and HF's regex engines (write \z)")
        if kind in ("open", "flags"):
            flags = text[2:-1]
            if regex.fullmatch(r"[A-Za-z-]+", flags) and not set(flags) <= set("i-"):
                raise ValueError(f"the inline flags {text!r} mean different things in tiktoken's and HF's regex engines")
        return text

    return _rewrite(pattern, quant, token)


def same_in_both_dialects(pattern: str) -> bool:
    """True when Oniguruma and fancy-regex read `pattern` alike (nothing of the table above in it)."""
    return onig_to_python(pattern) == pattern == rust_to_python(pattern)


class _Piece:
    """A match's span over the original text (what `ReferencePattern.finditer` yields where the
    text had characters replaced)."""

    __slots__ = ("string", "_start", "_end")

    def __init__(self, string: str, start: int, end: int):
        self.string, self._start, self._end = string, start, end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self) -> str:
        return self.string[self._start:self._end]


class _StandIns:
    """One dialect's stand-ins (core/reference_unicode.py): `apply(text)` gives the text with each
    character that the dialect's engine classes otherwise than the `regex` module replaced, or
    None when there is none (the common case, found with one search)."""

    def __init__(self, table: str):
        self._map: dict[int, str] = {}
        items = []
        for item in table.split():
            span, _, stand_in = item.partition(":")
            first, _, last = span.partition("-")
            a, b = int(first, 16), int(last or first, 16)
            self._map.update((cp, chr(int(stand_in, 16))) for cp in range(a, b + 1))
            items.append(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}")
        self._first = chr(min(self._map)) if self._map else None
        self._find = regex.compile(f"[{''.join(items)}]") if items else None

    def apply(self, text: str) -> str | None:
        if self._find is None or text.isascii() or max(text) < self._first or self._find.search(text) is None:
            return None
        return text.translate(self._map)


_STAND_INS: dict[str, _StandIns] = {}


def _stand_ins(dialect: str) -> _StandIns:
    if dialect not in _STAND_INS:
        from . import reference_unicode

        _STAND_INS[dialect] = _StandIns(reference_unicode.RUST if dialect == "rust" else reference_unicode.ONIG)
    return _STAND_INS[dialect]


def reference_text(text: str, dialect: str) -> str:
    """`text` as the `regex` module must see it to class each character as the regex engine of
    `dialect` ("rust": tiktoken's, "onig": HF tokenizers') does: the same length, characters the
    engine's Unicode version puts in another category replaced by stand-ins of that category."""
    replaced = _stand_ins(dialect).apply(text)
    return text if replaced is None else replaced


class ReferencePattern:
    """A compiled pre-tokenization regex that classes characters as the engine of its dialect
    does (its Unicode version, not the `regex` module's): it runs on `reference_text`.  Offers
    what tokviz uses of a compiled pattern: `pattern`, `finditer`, `sub`."""

    def __init__(self, compiled, dialect: str):
        self.compiled = compiled
        self.pattern = compiled.pattern
        self.dialect = dialect
        self._stand_ins = _stand_ins(dialect)

    def finditer(self, text: str, *args, **kwargs):
        replaced = self._stand_ins.apply(text)
        if replaced is None:
            return self.compiled.finditer(text, *args, **kwargs)
        return [_Piece(text, *m.span()) for m in self.compiled.finditer(replaced, *args, **kwargs)]

    def sub(self, repl, text: str, count: int = 0, **kwargs) -> str:
        """compiled.sub with a function `repl` (given each match) or a literal string."""
        replaced = self._stand_ins.apply(text)
        if replaced is None:
            return self.compiled.sub(repl, text, count, **kwargs)
        out, at = [], 0
        for m in self.compiled.finditer(replaced, **kwargs):
            if count and len(out) // 2 == count:
                break
            out += [text[at:m.start()], repl(_Piece(text, *m.span())) if callable(repl) else repl]
            at = m.end()
        out.append(text[at:])
        return "".join(out)


def compile_pattern(pattern: str, dialect: str = "onig") -> ReferencePattern:
    """Compile a pre-tokenization regex with the semantics of the engine it was written for.

    "onig" (HF tokenizers' Oniguruma, Ruby syntax): ^ and $ match at line boundaries, X{n,m}+
    repeats the interval, X{n}? is optional (see `onig_to_python`).
    "rust" (tiktoken's fancy-regex): $ matches only at the end of the text, X{n,m}+ is possessive.
    The result classes characters as that engine does (see `ReferencePattern`).
    """
    try:
        if dialect == "onig":
            return ReferencePattern(regex.compile(onig_to_python(pattern), regex.MULTILINE), dialect)
        if dialect == "rust":
            return ReferencePattern(regex.compile(rust_to_python(pattern)), dialect)
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
