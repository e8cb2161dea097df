"""Tokenizers by their Hugging Face Hub name (`Qwen/Qwen2.5-7B-Instruct`), from the local cache.

The cache is read with huggingface_hub's own scanner (`scan_cache_dir`), so it is found and read
as transformers and the `hf` command find and read it (HF_HUB_CACHE, HF_HOME, ...).  A name may
carry a revision: `Qwen/Qwen2.5-7B-Instruct@main`, `...@v1.0`, `...@<commit hash>`; without one,
the revision `main` points to, else the newest.  Nothing is downloaded unless `download` is
called, which fetches only the tokenizer's files.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import TokvizError

_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")
# what `download` fetches: everything a tokenizer folder may hold, and no weights
TOKENIZER_FILES = [
    "tokenizer.json", "tokenizer_config.json", "tokenizer.model", "*.tiktoken", "vocab.json", "merges.txt",
    "vocab.txt", "encoder.json", "vocab.bpe", "special_tokens_map.json", "added_tokens.json",
    "chat_template.jinja", "chat_template.json", "additional_chat_templates/*", "tekken.json", "rwkv_vocab*.txt",
]


class NotCached(TokvizError):
    """A repository (or revision) the cache does not have."""

    def __init__(self, message: str, repo_id: str, folder: Path):
        super().__init__(message)
        self.repo_id = repo_id
        self.folder = folder


@dataclass(frozen=True)
class CachedModel:
    """One revision of a model repository in the cache."""

    repo_id: str
    commit: str
    refs: tuple[str, ...]  # the branch and tag names pointing at it
    folder: Path  # its snapshot folder
    last_modified: float


def parse_name(text: str) -> tuple[str, str | None] | None:
    """(repo id, revision or None) when `text` reads as `owner/name[@revision]`, else None."""
    name, _, revision = text.strip().partition("@")
    if not _REPO_ID.fullmatch(name) or ".." in name or (revision == "" and "@" in text):
        return None
    return name, revision or None


def hf_cache_dir(env: Mapping[str, str]) -> Path:
    """The hub cache folder as huggingface_hub finds it (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME)."""
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    base = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "huggingface" / "hub"


def cache_dir() -> Path:
    """The hub cache folder for this process's environment (read at each call)."""
    return hf_cache_dir(os.environ)


def cached_models(folder: str | os.PathLike | None = None) -> list[CachedModel]:
    """Every revision of every model repository in the cache (`folder`: the default one), in
    huggingface_hub's view of it; an empty list when there is no cache."""
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.utils import CacheNotFound

    folder = Path(folder) if folder is not None else cache_dir()
    try:
        info = scan_cache_dir(folder)
    except CacheNotFound:
        return []
    except OSError:
        return []
    out = []
    for repo in info.repos:
        if repo.repo_type != "model":
            continue
        for rev in repo.revisions:
            out.append(CachedModel(repo.repo_id, rev.commit_hash, tuple(sorted(rev.refs)), Path(rev.snapshot_path),
                                   rev.last_modified))
    out.sort(key=lambda m: (m.repo_id.lower(), "main" not in m.refs, -m.last_modified))
    return out


def find_cached(repo_id: str, revision: str | None = None, folder: str | os.PathLike | None = None) -> CachedModel:
    """The cached revision of `repo_id` (`revision`: a branch, tag or commit hash, at least 7
    characters of one), or a TokvizError saying what is missing and how to get it."""
    folder = Path(folder) if folder is not None else cache_dir()
    models = cached_models(folder)
    revisions = [m for m in models if m.repo_id == repo_id] or [m for m in models if m.repo_id.lower() == repo_id.lower()]
    if not revisions:
        raise NotCached(f"{repo_id} is not in the Hugging Face cache ({folder}); fetch its tokenizer files with "
                        f"`tokviz fetch {repo_id}` (in the app: type the name in the Library, then Download)",
                        repo_id, folder)
    if revision is None:
        return revisions[0]  # (main's, else the newest: see cached_models' order)
    for m in revisions:
        if revision in m.refs or (len(revision) >= 7 and m.commit.startswith(revision)):
            return m
    have = ", ".join(sorted({r for m in revisions for r in m.refs} | {m.commit[:12] for m in revisions}))
    raise NotCached(f"{repo_id}: revision {revision!r} is not in the Hugging Face cache (it has {have})", repo_id, folder)


def snapshot_repo(path: str | os.PathLike) -> tuple[str, str] | None:
    """(repo id, commit) when `path` is in a model's snapshot folder of a hub cache
    (.../models--owner--name/snapshots/<commit>/...), else None."""
    parts = Path(os.path.abspath(path)).parts
    for i in range(1, len(parts) - 1):
        if parts[i] == "snapshots" and parts[i - 1].startswith("models--"):
            return parts[i - 1][len("models--"):].replace("--", "/"), parts[i + 1]
    return None


def holds_tokenizer(folder: Path) -> bool:
    """Whether a snapshot folder has the files of some tokenizer (not only weights or configs)."""
    names = ("tokenizer.json", "tokenizer.model", "vocab.json", "encoder.json", "vocab.txt", "tekken.json")
    return any((folder / n).is_file() for n in names) or any(folder.glob("*.tiktoken")) or any(folder.glob("rwkv_vocab*.txt"))


def download(repo_id: str, revision: str | None = None, folder: str | os.PathLike | None = None) -> Path:
    """Fetch the tokenizer files of `repo_id` from the Hub into the cache (no weights); the snapshot
    folder.  Network errors become a TokvizError that names the repository."""
    from huggingface_hub import snapshot_download

    try:
        path = snapshot_download(repo_id, revision=revision, cache_dir=folder if folder is not None else cache_dir(),
                                 allow_patterns=TOKENIZER_FILES)
    except Exception as exc:  # (huggingface_hub raises many kinds: offline, gated, missing, HTTP)
        raise TokvizError(f"could not download the tokenizer files: {type(exc).__name__}: {exc}", repo_id) from None
    return Path(path)
