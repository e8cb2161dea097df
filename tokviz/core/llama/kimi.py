"""llama.cpp's hand-written pre-tokenizer for Kimi-K2 (tokenizer.ggml.pre "kimi-k2").

It stands for Kimi's pattern: runs of Han characters; words of letters (Han excluded) with one
optional leading character that is no letter, digit, CR or LF, and an optional English
contraction; numbers in groups of up to three; runs of other symbols with one optional space
before and CR/LF after; then whitespace as GPT-4's pattern cuts it.  This is llama.cpp's scanner,
step by step (unicode.cpp, unicode_regex_split_custom_kimi_k2).
"""
from __future__ import annotations

from ..pre_tokenizers import PreTokenizer, split_normalized

_HAN = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0x2CEB0, 0x2EBEF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_han(c: str) -> bool:
    """llama.cpp's unicode_cpt_is_han."""
    cp = ord(c)
    return any(a <= cp <= b for a, b in _HAN)


class KimiK2Split(PreTokenizer):
    def split(self, ns):
        from .vocab import _WIDE_SPACES, _category

        text = ns.text
        n = len(text)
        kinds = [_category(c) for c in text]
        space = [c in " \t\n\x0b\x0c\r" or ord(c) in _WIDE_SPACES for c in text]

        def letter(i: int) -> bool:
            return i < n and kinds[i] == "L" and not is_han(text[i])

        def number(i: int) -> bool:
            return i < n and kinds[i] == "N"

        def white(i: int) -> bool:
            return i < n and space[i]

        cuts = []
        pos = 0
        while pos < n:
            c = text[pos]
            if is_han(c):
                while pos < n and is_han(text[pos]):
                    pos += 1
                cuts.append(pos)
                continue
            leading = not (c in "\r\n" or kinds[pos] in ("L", "N"))
            if letter(pos) or (leading and letter(pos + 1)):
                if leading:
                    pos += 1
                while letter(pos):
                    pos += 1
                if pos + 1 < n and text[pos] == "'":
                    nxt = text[pos + 1].lower()
                    if nxt in ("s", "t", "m", "d"):
                        pos += 2
                    elif pos + 2 < n and (nxt + text[pos + 2].lower()) in ("re", "ve", "ll"):
                        pos += 3
                cuts.append(pos)
                continue
            if number(pos):
                start = pos
                while number(pos):
                    pos += 1
                    if pos - start >= 3:
                        cuts.append(pos)
                        start = pos
                cuts.append(pos)
                continue
            at = pos + 1 if c == " " else pos
            if at < n and not (white(at) or kinds[at] in ("L", "N")):
                pos = at
                while pos < n and not (white(pos) or kinds[pos] in ("L", "N")):
                    pos += 1
                while pos < n and text[pos] in "\r\n":
                    pos += 1
                cuts.append(pos)
                continue
            count = 0
            last_newline = 0
            while white(pos + count):
                if text[pos + count] in "\r\n":
                    last_newline = pos + count + 1
                count += 1
            if last_newline:
                pos = last_newline
            elif count > 1 and pos + count < n:
                pos += count - 1
            elif count:
                pos += count
            else:
                pos += 1
            cuts.append(pos)
        spans, prev = [], 0
        for cut in cuts:
            if cut > prev:
                spans.append((prev, cut))
                prev = cut
        return split_normalized(ns, spans, "Isolated")

    def describe(self) -> str:
        return "llama.cpp Kimi-K2 splitter"
