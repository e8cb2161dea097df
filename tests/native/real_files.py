"""The real vocabularies of tests/data/real as the native tests use them: unpacked into a
temporary folder, and cl100k's ranks beside tiktoken's encoder of them."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from tokviz.core import patterns

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def unpacked(name: str, tmp_path: Path) -> Path:
    """tests/data/real/<name> (xz-compressed) written out under tmp_path."""
    src = REAL / name
    target = tmp_path / src.name.removesuffix(".xz")
    target.write_bytes(lzma.decompress(src.read_bytes()))
    return target


def cl100k_reference(tmp_path: Path, pattern: str = "cl100k_base"):
    """(path of cl100k's ranks, the ranks, tiktoken's encoder of them cut by the named tiktoken
    pattern); skips without tiktoken."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    path = unpacked("cl100k_base.tiktoken.xz", tmp_path)
    ranks = load_tiktoken_bpe(str(path))
    ref = tiktoken.Encoding(f"ref-{pattern}", pat_str=patterns.TIKTOKEN_PATTERNS[pattern], mergeable_ranks=ranks,
                            special_tokens={})
    return path, ranks, ref
