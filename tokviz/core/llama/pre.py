"""llama.cpp's BPE pre-tokenizer: a list of regexes applied one after another, each cutting every
piece the previous one left (llama.cpp's unicode_regex_split).

llama.cpp runs a few regexes, recognised by their exact text, through hand-written splitters; the
others through std::regex on text rewritten to one character per Unicode class
(`core.llama.vocab.StdRegexSplit`).  `split_steps` turns such a list into tokviz pre-tokenizers:
the hand-written GPT-2, Llama 3, Qwen2 and Qwen3.5 splitters as the tokenizer.json patterns they
stand for (tokviz's scanners run those), the newline splitter as its plain regex, the digit
groupers as `ThousandsDigits`, and the rest as `StdRegexSplit`.
"""
from __future__ import annotations

from .classes import LlamaSplit
from .vocab import StdRegexSplit
from ..patterns import GPT2_PATTERN, LLAMA3_PATTERN, QWEN2_PATTERN, QWEN35_PATTERN
from ..pre_tokenizers import PreTokenizer, split_normalized

# the regex texts llama.cpp sends to its hand-written splitters (unicode.cpp)
GPT2_SPLITTER = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
LLAMA3_SPLITTERS = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+",
    r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"
    r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
)
QWEN2_SPLITTER = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN35_SPLITTER = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?"
                   r"[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
NEWLINES_SPLITTER = r"[^\n]+|[\n]+"
DIGIT_GROUP_SPLITTERS = (r"\p{AFMoE_digits}", r"\d{1,3}(?=(?:\d{3})*\b)")
KIMI_K2_SPLITTER = r"\p{Han}+"

# what each hand-written splitter does, as a tokenizer.json pattern
_AS_PATTERN = {GPT2_SPLITTER: GPT2_PATTERN, QWEN2_SPLITTER: QWEN2_PATTERN, QWEN35_SPLITTER: QWEN35_PATTERN,
               NEWLINES_SPLITTER: r"[^\n]+|\n+", **dict.fromkeys(LLAMA3_SPLITTERS, LLAMA3_PATTERN)}


class ThousandsDigits(PreTokenizer):
    """llama.cpp's digit grouper: each run of digits (Unicode numbers) cut into groups of three
    from the right, the first group holding what is left over.  A piece ends after each group, so
    the text before a run joins its first group, and the text after the last run is one piece."""

    def split(self, ns):
        from .vocab import _category

        text = ns.text
        cuts = []
        i, n = 0, len(text)
        while i < n:
            if _category(text[i]) != "N":
                i += 1
                continue
            j = i
            while j < n and _category(text[j]) == "N":
                j += 1
            first = i + (j - i) % 3
            cuts.extend(([first] if first > i else []) + list(range(first + 3, j + 1, 3)))
            i = j
        if not cuts or cuts[-1] != n:
            cuts.append(n)
        starts = [0] + cuts[:-1]
        return split_normalized(ns, list(zip(starts, cuts)), "Isolated")

    def describe(self) -> str:
        return "llama.cpp digit groups of three"


def hand_written(regex: str) -> bool:
    """Whether llama.cpp runs `regex` through one of its hand-written splitters."""
    return regex in _AS_PATTERN or regex in DIGIT_GROUP_SPLITTERS or regex == KIMI_K2_SPLITTER


def as_hf_pattern(regex: str) -> str | None:
    """The tokenizer.json pattern that cuts as llama.cpp's splitter for `regex` does, if any."""
    return _AS_PATTERN.get(regex)


def split_steps(regexes) -> list[PreTokenizer]:
    """tokviz pre-tokenizers doing what llama.cpp does with `regexes`, in order."""
    steps: list[PreTokenizer] = []
    for r in regexes:
        pattern = _AS_PATTERN.get(r)
        if pattern is not None:
            steps.append(LlamaSplit(pattern, "Isolated"))
        elif r in DIGIT_GROUP_SPLITTERS:
            steps.append(ThousandsDigits())
        elif r == KIMI_K2_SPLITTER:
            from .kimi import KimiK2Split

            steps.append(KimiK2Split())
        else:
            steps.append(StdRegexSplit(r))
    return steps
