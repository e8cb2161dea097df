"""Added tokens: strings matched whole in the text before the model ever sees it.

Matching follows HF tokenizers: leftmost-longest; tokens marked `normalized` are matched in the
normalized text, the others in the raw text; `lstrip`/`rstrip` swallow neighbouring whitespace;
`single_word` only matches between non-word characters.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import regex

from .normalized import NormalizedString
from .unicode import is_whitespace


@dataclass(frozen=True)
class AddedToken:
    content: str
    id: int
    special: bool = True
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    normalized: bool = False


class AddedVocabulary:
    def __init__(self, tokens: list[AddedToken]):
        self.tokens = list(tokens)
        self.by_id = {t.id: t for t in self.tokens}
        self.by_content = {t.content: t for t in self.tokens}
        self.special_ids = frozenset(t.id for t in self.tokens if t.special)
        # llama.cpp's order (GGUF files): each token, longest first, cut out of the whole text in
        # turn, instead of HF's leftmost-longest scan; they differ where two tokens' strings overlap
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
            for t in self.tokens:
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
        for start, stop, tok in matches:
            if tok.single_word:
                before_ok = start == 0 or not text[start - 1].isalnum()
                after_ok = stop == len(text) or not text[stop].isalnum()
                if not (before_ok and after_ok):
                    continue
            if tok.lstrip:
                s = start
                while s > 0 and is_whitespace(text[s - 1]):
                    s -= 1
                start = max(s, done)
            if tok.rstrip:
                while stop < len(text) and is_whitespace(text[stop]):
                    stop += 1
            if start < done:
                continue
            if done < start:
                out.append((ns.slice(done, start), None))
            out.append((ns.slice(start, stop), tok))
            done = stop
        if not out:  # nothing matched (the common case): the string itself, not a copy
            return [(ns, None)]
        if done < len(text):
            out.append((ns.slice(done, len(text)), None))
        return out
