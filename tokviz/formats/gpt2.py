"""The GPT-2 layout: `vocab.json` (byte-level token -> id) and `merges.txt` side by side.

The layout does not store the split regex or added tokens; when a `tokenizer_config.json` sits
beside them its tokenizer class and added tokens are used (Qwen2 splits digits one by one).
"""
from __future__ import annotations

from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.models import BPE
from ..core.patterns import GPT2_PATTERN, QWEN2_PATTERN
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ..core.limits import max_sane_id
from ._util import Fields, check_vocab, first_bad_merge_line, read_json, read_text


def read_merge_lines(path: Path) -> list[str]:
    """The "a b" lines of a merges.txt, without its "#version" header and blank lines."""
    lines = read_text(path).replace("\r\n", "\n").split("\n")
    if lines and lines[0].startswith("#version"):
        lines = lines[1:]
    return [line for line in lines if line]


def _fail(message: str, path: Path):
    raise TokvizError(message, path)


def read_gpt2(folder: Path) -> Tokenizer:
    vocab_path, merges_path = folder / "vocab.json", folder / "merges.txt"
    for p in (vocab_path, merges_path):
        if not p.is_file():
            raise TokvizError("not found: the GPT-2 layout needs vocab.json and merges.txt side by side", p)
    vocab = read_json(vocab_path)
    Fields({"vocab": vocab}, vocab_path).get("vocab", dict, required=True)
    check_vocab(vocab, lambda message: _fail(message, vocab_path))
    lines = read_merge_lines(merges_path)
    bad = first_bad_merge_line(vocab, lines)
    if bad is not None:
        raise TokvizError(f"merge {bad[0] + 1}: {bad[1]}", merges_path)

    pattern, normalizer, added = GPT2_PATTERN, None, []
    config_path = folder / "tokenizer_config.json"
    if config_path.is_file():
        config = Fields(read_json(config_path), config_path)
        if "qwen2" in (config.get("tokenizer_class", str, "") or "").lower():
            pattern, normalizer = QWEN2_PATTERN, norm.UnicodeForm("NFC")
        for key, spec in (config.get("added_tokens_decoder", dict, {}) or {}).items():
            f = Fields(spec, config_path, f"added_tokens_decoder.{key}")
            if not key.isdigit():
                f.fail("key must be a token id")
            if len(key) > 10 or int(key) > max_sane_id(len(vocab)):
                f.fail(f"token id {key} is out of range for a vocabulary of {len(vocab)} tokens")
            special = f.get("special", bool, True)
            added.append(AddedToken(f.get("content", str, required=True), int(key), special=special,
                                    lstrip=f.get("lstrip", bool, False), rstrip=f.get("rstrip", bool, False),
                                    single_word=f.get("single_word", bool, False),
                                    normalized=f.get("normalized", bool, not special)))
    if pattern is GPT2_PATTERN:
        pre_tokenizer = pre.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        pre_tokenizer = pre.Sequence([pre.Split(pattern, "Isolated"), pre.ByteLevel(add_prefix_space=False, use_regex=False)])
    return Tokenizer(
        BPE(vocab, None, merge_lines=lines),
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        decoder=dec.ByteLevel(),
        added_tokens=added,
        special_in_text=True,
        source=Source("gpt2", str(folder), folder.name),
    )
