"""Tokenizer files already on this machine: the ones tokviz ships, the Hugging Face cache,
tiktoken's download cache, and folders the user names.  Nothing is downloaded.

    >>> for found in discover(["~/models"]):
    ...     print(found.origin, found.name, found.format, found.path)
    >>> tok = found.load()

`discover` only looks at names and a few bytes, so it is quick; loading (to show the model type
and vocabulary size) is left to the caller, on a worker thread in the app.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.gcpause import paused_gc
from ..core.patterns import TIKTOKEN_PATTERNS
from ..core.tokenizer import Tokenizer
from . import hub
from .gpt2 import FILE_PAIRS
from .hub import hf_cache_dir
from ..errors import TokvizError
from ..paths import open_regular

SHIPPED, HF_CACHE, TIKTOKEN_CACHE, FOLDER = "shipped", "Hugging Face cache", "tiktoken cache", "folder"
OLLAMA = "Ollama"  # the GGUF models of Ollama's store, by model:tag
RECENT = "recent"  # opened before (the app's settings keep them)
PACKAGES = "installed packages"  # .tiktoken files that Python packages ship

# Where tiktoken downloads each encoding from: its cache names the file by the SHA-1 of the URL.
_TIKTOKEN_URLS = {
    "gpt2": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
    "r50k_base": "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
    "p50k_base": "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
# files that make a folder a tokenizer, in the order tokviz.load prefers them
_TOKENIZER_FILES = ("tokenizer.json", "tekken.json", "tokenizer.model", "vocab.json", "encoder.json", "vocab.txt")
_MAX_FILES = 2000  # a folder scan stops after looking at this many files (a whole disk is not a folder)
_PACKAGE_SCANS: dict[tuple | None, list] = {}  # package paths -> what _installed_packages found


@dataclass(frozen=True)
class Found:
    """A tokenizer file (or folder) found on disk, and how to load it."""

    name: str
    path: Path
    format: str
    origin: str
    encoding: str | None = None  # a tiktoken cache file: the encoding it holds
    detail: str = field(default="", compare=False)

    def load(self) -> Tokenizer:
        from . import load

        if self.encoding is None:
            return load(self.path)  # (detected again: a recent file may have changed since)
        from .tiktoken_file import read_tiktoken

        from ..core.limits import check_tokenizer_ids

        try:
            with paused_gc():
                tokenizer = read_tiktoken(self.path, TIKTOKEN_PATTERNS[self.encoding], name=self.encoding)
            check_tokenizer_ids(tokenizer, self.path)
            return tokenizer
        except TokvizError as exc:
            raise TokvizError(exc.reason, self.path) from None


def discover(
    folders: Iterable[str | os.PathLike] = (),
    *,
    env: Mapping[str, str] | None = None,
    shipped: bool = True,
    hf_cache: bool = True,
    tiktoken_cache: bool = True,
    packages: bool = True,
    ollama: bool = True,
    package_paths: list[str] | None = None,
    fresh: bool = False,
) -> list[Found]:
    """Every tokenizer found, shipped ones first, then the caches, the .tiktoken files of installed
    packages (`package_paths`: where to look for them instead of sys.path), then `folders` (a
    folder that does not exist is skipped).  Each file once, even if several places lead to it.
    The package list takes a second to read and is kept for the process; `fresh` reads it again."""
    env = os.environ if env is None else env
    found: list[Found] = []
    if shipped:
        found += _shipped()
    if hf_cache:
        found += _hf_cache(env)
    if tiktoken_cache:
        found += _tiktoken_cache(env)
    if ollama:
        found += ollama_models(env)
    if packages:
        key = tuple(package_paths) if package_paths is not None else None
        if fresh or key not in _PACKAGE_SCANS:
            _PACKAGE_SCANS[key] = _installed_packages(package_paths)
        found += _PACKAGE_SCANS[key]
    for folder in folders:
        found += scan_folder(Path(folder).expanduser())
    seen: set[tuple] = set()
    out = []
    for f in found:
        key = (f.path.resolve(), f.name if f.origin == OLLAMA else None)  # (Ollama's tags may share a blob)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _shipped() -> list[Found]:
    from ..defaults import default_tokenizer_path

    path = default_tokenizer_path()
    return [Found(path.stem, path, "minbpe", SHIPPED, detail="trained by tokviz on resources/training.txt")] \
        if path.is_file() else []


def _hf_cache(env: Mapping[str, str]) -> list[Found]:
    """The newest revision holding a tokenizer of each model in the cache, read with
    huggingface_hub's scanner (`hub.cached_models`)."""
    out = []
    done: set[str] = set()
    for model in hub.cached_models(hf_cache_dir(env)):  # (main's revision first, then the newest)
        if model.repo_id in done:
            continue
        hit = tokenizer_in(model.folder)
        if hit is not None:
            done.add(model.repo_id)
            refs = f" ({', '.join(model.refs)})" if model.refs else ""
            out.append(Found(model.repo_id, hit[1], hit[0], HF_CACHE, detail=f"revision {model.commit[:12]}{refs}"))
    return out


def ollama_dir(env: Mapping[str, str]) -> Path:
    """Ollama's model store (OLLAMA_MODELS, else ~/.ollama/models)."""
    if env.get("OLLAMA_MODELS"):
        return Path(env["OLLAMA_MODELS"]).expanduser()
    return Path.home() / ".ollama" / "models"


def ollama_models(env: Mapping[str, str]) -> list[Found]:
    """The models of Ollama's store: each manifest (manifests/HOST/NAMESPACE/MODEL/TAG) names its
    GGUF weights among its layers, a blob named by its digest.  Named model:tag as `ollama list`
    names them (the namespace shown unless it is library, the host unless it is Ollama's)."""
    import json

    store = ollama_dir(env)
    out = []
    manifests = store / "manifests"
    for path in sorted(p for p in manifests.glob("*/*/*/*") if p.is_file()) if manifests.is_dir() else []:
        host, namespace, model, tag = path.relative_to(manifests).parts
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            digest = next(layer["digest"] for layer in manifest.get("layers", [])
                          if layer.get("mediaType") == "application/vnd.ollama.image.model")
        except (OSError, ValueError, StopIteration, KeyError, TypeError, AttributeError):
            continue
        blob = store / "blobs" / str(digest).replace(":", "-")
        if not blob.is_file():
            continue
        name = f"{model}:{tag}"
        if namespace != "library" or host != "registry.ollama.ai":
            name = f"{namespace}/{name}"
        if host != "registry.ollama.ai":
            name = f"{host}/{name}"
        out.append(Found(name, blob, "gguf", OLLAMA, detail=f"Ollama blob {blob.name[:19]}…"))
    return out


def tiktoken_cache_dir(env: Mapping[str, str]) -> Path | None:
    """tiktoken's download cache (TIKTOKEN_CACHE_DIR, DATA_GYM_CACHE_DIR, or a temp folder)."""
    for key in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if key in env:
            return Path(env[key]).expanduser() if env[key] else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _tiktoken_cache(env: Mapping[str, str]) -> list[Found]:
    folder = tiktoken_cache_dir(env)
    if folder is None:
        return []
    out = []
    for encoding, url in _TIKTOKEN_URLS.items():
        if encoding not in TIKTOKEN_PATTERNS:
            continue  # (gpt2's cache holds a vocab.bpe, not a .tiktoken file)
        path = folder / hashlib.sha1(url.encode()).hexdigest()
        if path.is_file():
            out.append(Found(encoding, path, "tiktoken", TIKTOKEN_CACHE, encoding=encoding))
    return out


def _installed_packages(paths: list[str] | None) -> list[Found]:
    """.tiktoken files listed in the installed distributions' file records (named after a known
    encoding, so that their split pattern is known)."""
    from importlib import metadata

    out = []
    try:
        dists = list(metadata.distributions(path=paths) if paths is not None else metadata.distributions())
    except Exception:  # a broken environment must not break the Library
        return []
    for dist in dists:
        try:
            # a quick look at the file list first: parsing every distribution's list into path
            # objects would allocate a few 100k objects (and wake the cycle collector) for nothing
            record = dist.read_text("RECORD") or dist.read_text("SOURCES.txt") or ""
            if ".tiktoken" not in record:
                continue
            files = dist.files or []
        except Exception:
            continue
        for f in files:
            name = f.name
            if name.endswith(".tiktoken") and name[: -len(".tiktoken")] in TIKTOKEN_PATTERNS:
                path = Path(dist.locate_file(f))
                if path.is_file():
                    package = dist.metadata["Name"] or "?"
                    out.append(Found(path.stem, path, "tiktoken", PACKAGES, detail=f"from the package {package}"))
    return out


def scan_folder(root: Path, *, max_depth: int = 6) -> list[Found]:
    """Tokenizers under `root`: a folder holding tokenizer.json / tekken.json / tokenizer.model /
    vocab.json + merges.txt / vocab.txt is one tokenizer; *.tiktoken, *.gguf, *tekken*.json,
    rwkv_vocab*.txt and tokviz or sentencepiece *.model files count on their own.  Hidden folders
    are skipped; at most a few thousand files are looked at."""
    out: list[Found] = []
    budget = [_MAX_FILES]
    for folder, files in _walk(root, max_depth, budget):
        hit = tokenizer_in(folder, files)
        if hit is not None:
            out.append(Found(folder.name or str(folder), hit[1], hit[0], FOLDER))
        for name in sorted(files):
            path = folder / name
            if hit is not None and path == hit[1]:
                continue
            if name.endswith(".tiktoken"):
                stem = name[: -len(".tiktoken")]
                if stem in TIKTOKEN_PATTERNS:
                    out.append(Found(stem, path, "tiktoken", FOLDER))
            elif name.endswith(".model") and name != "tokenizer.model":
                out.append(Found(path.stem, path, _model_format(path), FOLDER))
            elif name.endswith(".gguf"):
                out.append(Found(path.stem, path, "gguf", FOLDER))
            elif "tekken" in name and name.endswith(".json"):  # (mistral-common's own test for one)
                out.append(Found(path.stem, path, "tekken", FOLDER))
            elif name.startswith("rwkv_vocab") and name.endswith(".txt"):
                out.append(Found(path.stem, path, "rwkv-vocab", FOLDER))
    return out


def _walk(root: Path, max_depth: int, budget: list[int]) -> Iterator[tuple[Path, list[str]]]:
    stack = [(root, 0)]
    while stack and budget[0] > 0:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        files = []
        dirs = []
        for e in sorted(entries, key=lambda e: e.name):
            if e.name.startswith("."):
                continue
            try:
                if e.is_dir():
                    dirs.append(Path(e.path))
                elif e.is_file():
                    files.append(e.name)
            except OSError:
                continue
        budget[0] -= len(files)
        yield folder, files
        if depth < max_depth:
            stack.extend((d, depth + 1) for d in reversed(dirs))


def tokenizer_in(folder: Path, files: list[str] | None = None) -> tuple[str, Path] | None:
    names = set(files) if files is not None else {p.name for p in _listdir(folder)}
    for name in _TOKENIZER_FILES:
        if name not in names:
            continue
        path = folder / name
        if name == "tokenizer.json":
            return "hf-json", path
        if name == "tekken.json":
            return "tekken", path
        if name == "tokenizer.model":
            return _model_format(path), path
        if any(name == vocab and merges in names for vocab, merges in FILE_PAIRS):
            return "gpt2", path
        if name == "vocab.txt":
            return "wordpiece-vocab", path
    return None


def _model_format(path: Path) -> str:
    try:
        with open_regular(path) as fh:
            head = fh.read(8)
    except (OSError, TokvizError):
        return "sentencepiece"
    return "minbpe" if head.startswith(b"minbpe v") else "sentencepiece"


def _listdir(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
