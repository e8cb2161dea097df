"""Telling text files apart by their first lines: the line layouts of tiktoken rank files and of
the tokenizer files tokviz does not read (so that a refusal names what the file is).

    >>> other_format(head_lines(b"t h 2000\\nth e</w> 1500\\n"), "codes")
    "a fastBPE codes file (one merge 'a b count' per line): tokviz does not read fastBPE files"

Only a few KB are looked at: these say what a file looks like, the readers check all of it.
"""
from __future__ import annotations

import binascii
import re

from ..messages import QT_TRANSLATE_NOOP, Message

_INT = re.compile(rb"-?\d+")
_FLOAT = re.compile(rb"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_FAIRSEQ_FLAG = b"#fairseq:overwrite"
# JSON files of a transformers folder that hold settings, never the vocabulary itself
_SETTINGS_JSON = ("tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "generation_config.json",
                  "preprocessor_config.json", "processor_config.json")


def head_lines(head: bytes, limit: int = 64) -> list[bytes]:
    """The complete lines of `head` (the last one only when `head` holds the whole file, i.e. ends
    with a newline), without their line ends and without empty lines, at most `limit`."""
    lines = head.split(b"\n")
    lines.pop()  # (cut by the end of `head`, or empty after the last newline)
    return [line.rstrip(b"\r") for line in lines if line.strip()][:limit]


def _strict_base64(field: bytes) -> bool:
    if field.strip(b"=") == b"":
        return True  # (tiktoken reads "=" as the empty token)
    try:
        binascii.a2b_base64(field, strict_mode=True)
        return True
    except (binascii.Error, ValueError):
        return False


def is_tiktoken_ranks(lines: list[bytes]) -> bool:
    """`base64 rank` lines with ranks in increasing order (a tiktoken file, in any of its names)."""
    if not lines:
        return False
    ranks = []
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit() or not _strict_base64(parts[0]):
            return False
        ranks.append(int(parts[1]))
    return all(a < b for a, b in zip(ranks, ranks[1:]))


def _is_word_counts(lines: list[bytes]) -> bool:
    """`token count` lines (a count, not a rank: not increasing line after line)."""
    if not lines:
        return False
    for line in lines:
        parts = line.split(b" ")
        if parts[-1] == _FAIRSEQ_FLAG:
            parts.pop()
        if len(parts) != 2 or not parts[0] or not parts[1].isdigit():
            return False
    return not is_tiktoken_ranks(lines)


def _is_fastbpe_codes(lines: list[bytes]) -> bool:
    return bool(lines) and all(
        len(parts := line.split(b" ")) == 3 and parts[0] and parts[1] and parts[2].isdigit() for line in lines)


def _is_subword_nmt_codes(lines: list[bytes]) -> bool:
    return bool(lines) and lines[0].startswith(b"#version:") and all(
        len(line.split(b" ")) == 2 for line in lines[1:])


def _is_sentencepiece_vocab(lines: list[bytes]) -> bool:
    """`piece<TAB>score` lines, as spm_train writes NAME.vocab beside NAME.model."""
    if not lines:
        return False
    for line in lines:
        parts = line.split(b"\t")
        if len(parts) != 2 or not parts[0] or _FLOAT.fullmatch(parts[1]) is None:
            return False
    return True


def _is_youtokentome_model(lines: list[bytes]) -> bool:
    """YouTokenToMe's model file: `chars rules`, then `inner_id code_point` per character, then
    `x y z` per merge rule (a text file, usually named *.model)."""
    if len(lines) < 2:
        return False
    first = lines[0].split(b" ")
    if len(first) != 2 or not all(p.isdigit() for p in first):
        return False
    chars = int(first[0])
    for k, line in enumerate(lines[1:], 1):
        parts = line.split(b" ")
        want = 2 if k <= chars else 3 if k <= chars + int(first[1]) else 4
        if len(parts) != want or not all(_INT.fullmatch(p) for p in parts):
            return False
    return True


def _is_minbpe_vocab(lines: list[bytes]) -> bool:
    """The `[token] id` / `[a][b] -> [ab] id` listing minbpe writes beside its .model."""
    return bool(lines) and all(line.startswith(b"[") and line.rsplit(b" ", 1)[-1].isdigit() for line in lines)


def other_format(lines: list[bytes], name: str) -> str | None:
    """What a text file that tokviz does not read is, from its first lines (`head_lines`) and its
    name, as the reason to give (None: none of these layouts)."""
    if not lines:
        return None
    if _is_subword_nmt_codes(lines):
        return QT_TRANSLATE_NOOP("formats", "a subword-nmt BPE codes file ('#version: 0.2', then one merge 'a b' per line): tokviz does not "
                                            "read subword-nmt files (a GPT-2 merges.txt beside its vocab.json is read "
                                            "from their folder)")
    if _is_fastbpe_codes(lines):
        return QT_TRANSLATE_NOOP("formats", "a fastBPE codes file (one merge 'a b count' per line): tokviz does not "
                                            "read fastBPE files")
    if _is_youtokentome_model(lines):
        return QT_TRANSLATE_NOOP("formats", "a YouTokenToMe model (character and merge-rule id lines): tokviz does "
                                            "not read YouTokenToMe models")
    if _is_sentencepiece_vocab(lines):
        return QT_TRANSLATE_NOOP("formats", "a sentencepiece vocabulary listing (piece<TAB>score, the .vocab "
                                            "spm_train writes beside the .model): tokviz does not read it; load the "
                                            ".model file")
    if _is_minbpe_vocab(lines):
        return QT_TRANSLATE_NOOP("formats", "a minbpe .vocab listing (written for people, not read back): load the "
                                            ".model file beside it")
    if _is_word_counts(lines):
        lowered = name.lower()
        if lowered.startswith("dict") or any(line.endswith(_FAIRSEQ_FLAG) for line in lines):
            return QT_TRANSLATE_NOOP("formats", "a fairseq/Moses dictionary (dict.txt: 'token count' lines): tokviz "
                                                "does not read fairseq dictionaries")
        return QT_TRANSLATE_NOOP("formats", "a fastBPE vocabulary ('token count' lines, as fastBPE's getvocab and "
                                            "subword-nmt's get-vocab write): tokviz does not read fastBPE files")
    return None


def settings_file(name: str) -> str | None:
    """The reason to give for a transformers settings file loaded as a tokenizer, or None."""
    if name not in _SETTINGS_JSON:
        return None
    return Message(QT_TRANSLATE_NOOP("formats", "a transformers {name} (settings beside a tokenizer, not a "
                                                "vocabulary): load the folder that holds it, or its tokenizer.json or "
                                                "vocabulary files"), name=name)
