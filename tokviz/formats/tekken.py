"""Mistral's `tekken.json` (mistral-common's Tekkenizer: Mistral NeMo, Pixtral, Mistral Small 3...).

A tiktoken-style byte-level BPE in one JSON file:

- `vocab`: a list of {rank, token_bytes (base64), token_str}; rank i is entry i, and the first
  256 entries are the 256 single bytes in order;
- `config`: the split regex (`pattern`), `default_vocab_size` (the vocabulary is cut to its first
  `default_vocab_size - default_num_special_tokens` entries) and `default_num_special_tokens`;
- `special_tokens`: {rank, token_str, is_control}, ids 0.. (files of version v7 and before may
  leave them out: then mistral-common's fixed list of 20, `<unk>` ... `[TOOL_CONTENT]`), then
  `<SPECIAL_i>` up to `default_num_special_tokens`;
- `image`, `multimodal`, `audio`, `model_settings_builder`: settings of the model around the
  tokenizer, kept as they are (they change no id of text).

Ordinary token ids are the rank plus the number of special tokens.  As in tiktoken, the text is cut
into the matches of the split regex (text no match covers is dropped: `split_of`) and each piece is
merged by rank.  Like Tekkenizer.encode, text is encoded without looking for special tokens (their strings are
plain text); add_special_tokens=True puts `<s>` in front (bos=True, eos=False).  Decode skips special
tokens (mistral-common's default IGNORE policy) or writes their strings (KEEP:
skip_special_tokens=False), decoding each run of ordinary tokens on its own, invalid UTF-8 replaced.
"""
from __future__ import annotations

import base64
import binascii
from itertools import groupby
from pathlib import Path

from ..core import decoders as dec
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.bytelevel import many_bytes_to_unicode
from ..core.limits import max_sane_id
from ..core.patterns import TEKKEN_PATTERN, TIKTOKEN_PATTERNS
from ..core.models import BPE
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ._util import Fields, first_surrogate, read_json, stem, surrogate_message

FORMAT = "tekken"
# mistral-common's TokenizerVersion members (1.13.1)
VERSIONS = ("v1", "v2", "v3", "v7", "v11", "v13", "v15")
# The special tokens of a file that lists none (mistral-common's DEPRECATED_SPECIAL_TOKENS), ids 0..19.
DEFAULT_SPECIAL_TOKENS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)
FILLER = "<SPECIAL_{}>"
BOS = "<s>"
# The pattern of Mistral's tekken files (NeMo, Pixtral, Small 3...).
MISTRAL_PATTERN = TEKKEN_PATTERN
COVERING_PATTERNS = frozenset({MISTRAL_PATTERN, *TIKTOKEN_PATTERNS.values()})
CONFIG_KEYS = {"pattern", "num_vocab_tokens", "default_vocab_size", "default_num_special_tokens", "version"}
# Sections about the model around the tokenizer: kept for writing back, no effect on text ids.
MODEL_SECTIONS = ("image", "multimodal", "audio", "model_settings_builder")
ROOT_KEYS = {"vocab", "special_tokens", "config", "version", "type", *MODEL_SECTIONS}
VOCAB_KEYS = {"rank", "token_bytes", "token_str"}


def read_tekken(path: Path) -> Tokenizer:
    return build_tekken(read_json(path), path)


def build_tekken(data, path: Path) -> Tokenizer:
    """The Tokenizer of a parsed tekken.json (`path`: the file it came from, for errors)."""
    root = Fields(data, path)
    unknown = sorted(k for k in root.data if k not in ROOT_KEYS)
    if unknown:
        root.fail(f"the tekken file has {', '.join(map(repr, unknown))}, which tokviz does not implement")
    config = root.obj("config", required=True)
    unknown = sorted(k for k in config.data if k not in CONFIG_KEYS)
    if unknown:
        config.fail(f"{', '.join(map(repr, unknown))}: not a tekken setting tokviz knows (it may change encoding)")
    version = config.get("version", str)
    if version not in VERSIONS:
        config.fail(f"unknown tekken version {version!r} (tokviz knows {', '.join(VERSIONS)}, as mistral-common 1.13.1)")
    if "multimodal" in root.data and VERSIONS.index(version) > VERSIONS.index("v11"):
        root.fail(f"'multimodal': a tekken file of version {version} names its image settings 'image' "
                  "(mistral-common refuses it)")
    if root.data.get("model_settings_builder") is not None and VERSIONS.index(version) < VERSIONS.index("v15"):
        root.fail(f"'model_settings_builder' needs tekken version v15 or later, this file is {version} "
                  "(mistral-common refuses it)")
    pattern = config.get("pattern", str, required=True)
    vocab_size = config.get("default_vocab_size", int, required=True)
    num_special = config.get("default_num_special_tokens", int, required=True)
    if num_special < 0 or vocab_size < num_special:
        config.fail(f"default_vocab_size {vocab_size} and default_num_special_tokens {num_special} "
                    "leave no room for the special tokens")
    entries = root.get("vocab", list, required=True)
    if vocab_size > max_sane_id(len(entries)):  # (checked before the filler special tokens are made)
        config.fail(f"default_vocab_size {vocab_size} is out of range for a vocab of {len(entries)} tokens")
    specials, not_control = _special_tokens(root, version, num_special)
    inner_size = vocab_size - num_special
    if len(entries) < inner_size:
        root.fail(f"config.default_vocab_size {vocab_size} asks for {inner_size} ordinary tokens "
                  f"after {num_special} special ones, but the vocab has {len(entries)}")
    if inner_size < 256:  # (tiktoken panics on text holding a byte that has no token)
        config.fail(f"default_vocab_size {vocab_size} keeps {inner_size} ordinary tokens; a tekken vocabulary "
                    "starts with the 256 single bytes, and tokviz reads only complete ones")
    token_bytes = _vocab_bytes(root, entries[:inner_size])
    vocab = dict(zip(many_bytes_to_unicode(token_bytes), range(num_special, vocab_size)))
    if len(vocab) != inner_size:
        seen: dict[bytes, int] = {}
        for rank, data in enumerate(token_bytes):
            if data in seen:
                root.fail(f"vocab[{rank}]: token {data!r} is also vocab[{seen[data]}] (tokens must be unique)")
            seen[data] = rank
    try:
        split = split_of(pattern)
    except TokvizError as exc:
        config.fail(f"pattern: {exc.reason}")
    # (the root's own "version" and "type", and the model sections, are written back as they are)
    kept = {key: root.data[key] for key in ("version", "type", *MODEL_SECTIONS) if key in root.data}
    extra = {"pattern": pattern, "tekken_version": version, "tekken_sections": kept}
    if not_control:
        extra["tekken_not_control"] = not_control  # (special tokens listed with is_control false)
    return Tokenizer(
        BPE(vocab, None, ignore_merges=True),  # tiktoken: ranks of merged tokens, whole piece first
        pre_tokenizer=pre.Sequence([split, pre.ByteLevel(use_regex=False)]),
        post_processor=_bos(specials),
        decoder=dec.ByteLevel(),
        added_tokens=[AddedToken(content, i, special=True) for i, content in enumerate(specials)],
        special_in_text=False,
        source=Source(FORMAT, str(path), _name(path), extra),
        decode_fn=TekkenDecoder(num_special, specials),
    )


def split_of(pattern: str) -> pre.Split:
    """tiktoken's cut: the regex's matches, and nothing of the text between them.  A pattern whose
    matches cover every text (Mistral's own and OpenAI's: each character can start a match of one
    of their alternatives, whatever stands around it) is the same cut made by splitting at the
    matches (Isolated), which tokviz can also stream and write as .tiktoken; any other pattern
    keeps only its matches (Removed, inverted)."""
    if pattern in COVERING_PATTERNS:
        return pre.Split(pattern, "Isolated", dialect="rust")
    return pre.Split(pattern, "Removed", invert=True, dialect="rust")


def _bos(specials: list[str]) -> post.TemplateProcessing | None:
    """add_special_tokens=True: `<s>` in front, as Tekkenizer.encode(text, bos=True, eos=False),
    the way mistral-common starts each request."""
    if BOS not in specials:
        return None
    return post.TemplateProcessing([("special", BOS), ("sequence", "A")], {BOS: [(specials.index(BOS), BOS)]})


def _name(path: Path) -> str:
    name = Path(path).name
    return Path(path).parent.name if name == "tekken.json" and Path(path).parent.name else stem(path)


def _special_tokens(root: Fields, version: str, num_special: int) -> tuple[list[str], list[int]]:
    """The strings of special tokens 0..num_special-1, as Tekkenizer numbers them, and the ids of
    those listed with is_control false."""
    not_control = []
    if not root.has("special_tokens"):
        if VERSIONS.index(version) > VERSIONS.index("v7"):
            root.fail(f"special_tokens: missing; a tekken file of version {version} must list its special "
                      "tokens (mistral-common refuses it)")
        listed = list(DEFAULT_SPECIAL_TOKENS)
    else:
        listed = []
        for i, f in enumerate(root.items("special_tokens")):
            content = f.get("token_str", str, required=True)
            rank = f.get("rank", int, required=True)
            if rank != i:
                f.fail(f"rank {rank} of {content!r}: special token i must have rank i (Tekkenizer numbers "
                       "them by their place in the list)")
            if first_surrogate([content]) is not None:
                f.fail(surrogate_message(content, "token_str"))
            if content in listed:
                f.fail(f"special token {content!r} is listed twice (mistral-common refuses it)")
            if f.get("is_control", bool, True) is False:
                not_control.append(i)
            listed.append(content)
    if len(listed) > num_special:
        root.fail(f"special_tokens: {len(listed)} listed, more than config.default_num_special_tokens {num_special}")
    specials = listed + [FILLER.format(i) for i in range(len(listed), num_special)]
    if len(set(specials)) != num_special:
        clash = next(s for s in specials[len(listed):] if s in listed)
        root.fail(f"special_tokens: {clash!r} is listed, and is also the name of filler special token "
                  f"{specials.index(clash, len(listed))} (mistral-common refuses it)")
    return specials, not_control


def _vocab_bytes(root: Fields, entries: list) -> list[bytes]:
    """The token bytes of the vocab entries in rank order, checked as mistral-common checks them."""
    out = []
    for i, entry in enumerate(entries):
        if type(entry) is not dict or entry.keys() != VOCAB_KEYS:
            f = Fields(entry, root.path, f"vocab[{i}]")
            f.fail(f"expected the keys {sorted(VOCAB_KEYS)}, got {sorted(f.data)}")
        rank = entry["rank"]
        if type(rank) is not int or rank != i:
            root.fail(f"vocab[{i}]: rank {rank!r}, expected {i} (ranks are the entries' places)")
        text = entry["token_bytes"]
        try:
            data = base64.b64decode(text, validate=True) if type(text) is str else None
        except (binascii.Error, ValueError):
            data = None
        if data is None:
            root.fail(f"vocab[{i}]: token_bytes {str(text)[:40]!r} is not base64")
        if i < 256 and data != bytes([i]):
            root.fail(f"vocab[{i}]: token {data!r}, expected the byte {bytes([i])!r} (the first 256 ranks are the bytes)")
        out.append(data)
    return out


class TekkenDecoder:
    """Tekkenizer.decode: special tokens skipped (IGNORE) or written (KEEP); each run of ordinary
    tokens between them decoded on its own, invalid UTF-8 replaced by U+FFFD."""

    def __init__(self, num_special: int, specials: list[str]):
        self.num_special = num_special
        self.specials = specials

    def __call__(self, tok: Tokenizer, ids: list[int], skip_special: bool) -> str:
        n = self.num_special
        out = []
        for special, run in groupby(ids, lambda i: i < n):
            if special:
                if not skip_special:
                    out.extend(self.specials[i] for i in run)
            else:
                out.append(b"".join(map(tok.token_bytes, run)).decode("utf-8", "replace"))
        return "".join(out)
