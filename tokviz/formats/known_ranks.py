"""Rank files known by their contents, for a `.tiktoken`-style file whose name says nothing.

A rank file holds no split pattern and no special tokens, so a file named after no known encoding
(tiktoken's download cache names files by a hash; Meta ships Llama 3 and Llama 4 as
`tokenizer.model`) is recognised by the SHA-256 of its bytes: tiktoken's own download checks use
the same digests for OpenAI's encodings.

    >>> known_encoding(Path("Meta-Llama-3-8B/original/tokenizer.model")).name
    'llama3'
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..core.patterns import LLAMA3_PATTERN, O200K_PATTERN, TIKTOKEN_PATTERNS, TIKTOKEN_SPECIALS
from ..errors import TokvizError
from ..paths import check_regular_file, read_limited

_LARGEST_KNOWN = 8 << 20  # bytes: no known rank file is larger, so a larger file is not hashed


@dataclass(frozen=True)
class KnownEncoding:
    """An encoding a rank file belongs to: its name, split pattern and special tokens."""

    name: str
    pattern: str
    special_tokens: dict[str, int]


def _llama3_specials(base: int) -> dict[str, int]:
    """Llama 3's 256 special tokens, numbered after the ranks (Meta's llama_models tokenizer)."""
    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
             "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
             "<|eot_id|>", "<|python_tag|>", "<|image|>"]
    named += [f"<|reserved_special_token_{i}|>" for i in range(2, 2 + 256 - len(named))]
    return {token: base + i for i, token in enumerate(named)}


def _llama4_specials(base: int) -> dict[str, int]:
    """Llama 4's 2048 special tokens, numbered after the ranks (Meta's llama_models tokenizer)."""
    def reserved(kind: str, first: int, count: int) -> list[str]:
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in range(first, first + count)]

    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
             "<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>",
             *reserved("text_post_train", 0, 6), "<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>",
             *reserved("text_post_train", 8, 61),
             "<|image_start|>", "<|image_end|>", *reserved("vision", 0, 2), "<|tile_x_separator|>",
             "<|tile_y_separator|>", *reserved("vision", 2, 4), "<|image|>", *reserved("vision", 6, 1), "<|patch|>",
             *reserved("vision", 7, 1041),
             *reserved("reasoning", 0, 8), "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    named += [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))]
    return {token: base + i for i, token in enumerate(named)}


def _openai(name: str) -> KnownEncoding:
    return KnownEncoding(name, TIKTOKEN_PATTERNS[name], dict(TIKTOKEN_SPECIALS[name]))


# SHA-256 of the file -> its encoding: OpenAI's from tiktoken's download checks, Llama's
# measured on the files Meta's llama_models package ships.
_BY_DIGEST = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": lambda: _openai("r50k_base"),
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": lambda: _openai("p50k_base"),
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": lambda: _openai("cl100k_base"),
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": lambda: _openai("o200k_base"),
    "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55":
        lambda: KnownEncoding("llama3", LLAMA3_PATTERN, _llama3_specials(128000)),
    "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed":
        lambda: KnownEncoding("llama4", O200K_PATTERN, _llama4_specials(200000)),
}


def known_encoding(path: Path) -> KnownEncoding | None:
    """The encoding whose rank file `path` is, byte for byte, or None."""
    try:
        if check_regular_file(path).st_size > _LARGEST_KNOWN:
            return None
        digest = hashlib.sha256(read_limited(path, _LARGEST_KNOWN)).hexdigest()
    except TokvizError:
        return None
    make = _BY_DIGEST.get(digest)
    return make() if make is not None else None
