"""Added tokens: strings matched whole in the text before the model ever sees it.

Matching follows HF tokenizers: leftmost-longest; tokens marked `normalized` are matched in the
normalized text, the others in the raw text; `lstrip`/`rstrip` swallow neighbouring whitespace;
`single_word` only matches between non-word characters.  `resolve_hf_added_tokens` gives the ids
and match order HF tokenizers derives from a tokenizer.json's "added_tokens" list.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace

import regex

from .normalized import NormalizedString
from .unicode import is_whitespace

# HF tokenizers tests word characters and whitespace with Rust regex's Unicode classes \w and \s.
_WORD_AT_END = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]\Z")
_WORD_AT_START = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")
_SPACE = regex.compile(r"\p{White_Space}*")
_ASCII_SPACE = regex.compile(r"[ \t\n\v\f\r]*")  # C's isspace, byte by byte: what llama.cpp strips


@dataclass(frozen=True)
class AddedToken:
    content: str
    id: int
    special: bool = True
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    normalized: bool = False


@dataclass
class HfAddedTokens:
    """What HF tokenizers makes of a tokenizer.json's added-token list: one token per id, and the
    (string, id) pairs it matches in the raw and in the normalized text."""
    tokens: list[AddedToken]
    raw_patterns: list[tuple[str, int]]
    normalized_patterns: list[tuple[str, int]]


def resolve_hf_added_tokens(entries: list[AddedToken], model_token_to_id, model_vocab_size: int,
                            normalize=None) -> HfAddedTokens:
    """HF tokenizers' AddedVocabulary.add_tokens on `entries` (their `id`s are ignored, as HF
    ignores the ids a file declares); `normalize` is the tokenizer's normalizer (str -> str).

    - a content in the model's vocabulary takes the vocabulary's id; a new content takes the
      vocabulary size, or one more than the largest id given so far when that is already past
      the vocabulary; an entry equal in every field to one already given is skipped;
    - a later entry with the same content replaces the token of that id (its flags decide how
      it is matched: by its content in the raw text, or normalized in the normalized text);
    - an id that any entry marked `normalized` is shown and decoded as its normalized content,
      and decoding skips it when that string is the content of a special entry.
    """
    normalize = normalize or str
    special_contents = {e.content for e in entries if e.special and e.content}
    content_ids: dict[str, int] = {}
    by_id: dict[int, AddedToken] = {}
    shown: dict[int, str] = {}
    for e in entries:
        if not e.content or any(_same_flags(t, e) for t in by_id.values()):
            continue
        new_id = content_ids.get(e.content)
        if new_id is None:
            new_id = model_token_to_id(e.content)
        if new_id is None:
            largest = max(content_ids.values(), default=None)
            new_id = (model_vocab_size if largest is None or (largest < model_vocab_size and model_vocab_size)
                      else largest + 1)
        content_ids[e.content] = new_id
        by_id[new_id] = e
        if e.normalized:
            shown[new_id] = normalize(e.content)
    tokens = []
    for i, t in by_id.items():
        content = shown.get(i, t.content)
        tokens.append(replace(t, id=i, content=content, special=content in special_contents))
    return HfAddedTokens(
        tokens,
        [(t.content, i) for i, t in by_id.items() if not t.normalized],
        [(normalize(t.content), i) for i, t in by_id.items() if t.normalized],
    )


def _same_flags(a: AddedToken, b: AddedToken) -> bool:
    return (a.content, a.single_word, a.lstrip, a.rstrip, a.normalized, a.special) == (
        b.content, b.single_word, b.lstrip, b.rstrip, b.normalized, b.special)


class AddedVocabulary:
    def __init__(self, tokens: list[AddedToken], patterns: dict[bool, list[tuple[str, int]]] | None = None):
        """`patterns`: for normalized False and True, the (string, id) pairs to match in that
        text (see `resolve_hf_added_tokens`); without it each token is matched by its own content
        in the text its `normalized` flag names."""
        self.tokens = list(tokens)
        self.patterns = patterns
        self.by_id = {t.id: t for t in self.tokens}
        self.by_content = {t.content: t for t in self.tokens}
        self.special_ids = frozenset(t.id for t in self.tokens if t.special)
        # llama.cpp's rules (GGUF files): each token, longest first, cut out of the whole text in
        # turn, instead of HF's leftmost-longest scan (they differ where two tokens' strings
        # overlap); lstrip/rstrip take ASCII whitespace only
        self.longest_first = False
        # (normalized, allow_special) -> (content -> token, prefix all contents share), or None
        self._matchers: dict[tuple[bool, bool], tuple[dict[str, AddedToken], str] | None] = {}
        self._patterns: dict[tuple[bool, bool], regex.Pattern] = {}  # compiled when `split` first needs one
        self._strings: dict[bool, tuple[str, ...]] = {}  # allow_special -> match_strings

    def __len__(self):
        return len(self.tokens)

    def can_match(self, *, normalized: bool, allow_special: bool) -> bool:
        """Whether some added token can be matched in the raw (normalized=False) or the
        normalized text."""
        return self._matcher(normalized, allow_special) is not None

    def matches_nothing(self, allow_special: bool) -> bool:
        """True when no added token can be matched in text (none, or only special ones that
        are not allowed): `split` then always returns its input whole."""
        return self._matcher(False, allow_special) is None and self._matcher(True, allow_special) is None

    def match_strings(self, allow_special: bool) -> tuple[str, ...]:
        """Every string an added token can be matched as, in the raw or the normalized text: a
        normalized text that holds none of them is never cut by `split`."""
        strings = self._strings.get(allow_special)
        if strings is None:
            out: list[str] = []
            for normalized in (False, True):
                matcher = self._matcher(normalized, allow_special)
                if matcher is not None:
                    out.extend(matcher[0])
            strings = self._strings[allow_special] = tuple(out)
        return strings

    def _matcher(self, normalized: bool, allow_special: bool):
        key = (normalized, allow_special)
        if key not in self._matchers:
            table: dict[str, AddedToken] = {}
            if self.patterns is not None:
                for content, token_id in self.patterns[normalized]:
                    t = self.by_id[token_id]
                    if content and not (t.special and not allow_special):
                        table.setdefault(content, t)
            for t in self.tokens if self.patterns is None else ():
                if t.normalized != normalized or (t.special and not allow_special) or not t.content:
                    continue
                table.setdefault(t.content, t)
            self._matchers[key] = (table, os.path.commonprefix(list(table))) if table else None
        return self._matchers[key]

    def _pattern(self, normalized: bool, allow_special: bool) -> regex.Pattern:
        """The regex that finds the tokens of `_matcher(normalized, allow_special)` (not None)."""
        key = (normalized, allow_special)
        if key not in self._patterns:
            alternatives = sorted(self._matchers[key][0], key=len, reverse=True)  # leftmost-longest
            self._patterns[key] = regex.compile("|".join(regex.escape(s) for s in alternatives))
        return self._patterns[key]

    @staticmethod
    def _longest_first(text: str, table: dict) -> list[tuple[int, int, AddedToken]]:
        """(start, stop, token) as llama.cpp finds them: the tokens in order of their UTF-8 length,
        longest first (then by id), each cutting every occurrence out of the text still left."""
        free = [(0, len(text))]
        found = []
        for content in sorted(table, key=lambda c: (-len(c.encode("utf-8")), table[c].id)):
            if content not in text:
                continue
            left = []
            for a, b in free:
                pos = a
                while (i := text.find(content, pos, b)) >= 0:
                    if pos < i:
                        left.append((pos, i))
                    found.append((i, i + len(content), table[content]))
                    pos = i + len(content)
                if pos < b:
                    left.append((pos, b))
            free = left
        return sorted(found, key=lambda f: f[0])

    def split(
        self,
        ns: NormalizedString,
        *,
        normalized: bool,
        allow_special: bool,
    ) -> list[tuple[NormalizedString, AddedToken | None]]:
        """Cut `ns` around the added tokens found in it: (piece, token or None for plain text)."""
        matcher = self._matcher(normalized, allow_special)
        if matcher is None or not ns.text:
            return [(ns, None)]
        table, prefix = matcher
        text = ns.text
        if prefix and prefix not in text:  # (a substring test is many times faster than the regex)
            return [(ns, None)]
        matches = (self._longest_first(text, table) if self.longest_first else
                   ((m.start(), m.end(), table[m.group()]) for m in self._pattern(normalized, allow_special).finditer(text)))
        out: list[tuple[NormalizedString, AddedToken | None]] = []
        done = 0
        space, spaces = (_is_ascii_space, _ASCII_SPACE) if self.longest_first else (is_whitespace, _SPACE)
        for start, stop, tok in matches:
            if tok.single_word and (_WORD_AT_END.search(text, 0, start) or _WORD_AT_START.match(text, stop)):
                continue
            if tok.lstrip:
                s = start
                while s > 0 and space(text[s - 1]):
                    s -= 1
                start = max(s, done)
            if tok.rstrip:
                stop = spaces.match(text, stop).end()
            if start < done and self.longest_first:
                continue
            # (HF: a token whose rstrip swallowed the start of the next match overlaps that match)
            if done < start:
                out.append((ns.slice(done, start), None))
            if stop <= start:  # whitespace an earlier match swallowed: HF drops the empty piece
                done = start
                continue
            out.append((ns.slice(start, stop), tok))
            done = stop
        if not out:  # nothing matched (the common case): the string itself, not a copy
            return [(ns, None)]
        if done < len(text):
            out.append((ns.slice(done, len(text)), None))
        return out


def _is_ascii_space(c: str) -> bool:
    return c in " \t\n\v\f\r"
