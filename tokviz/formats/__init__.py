"""Readers for the tokenizer files people have on disk, `load`, which tells them apart, and `save`
(writers.py), which writes them."""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..core.gcpause import paused_gc
from ..core.limits import check_tokenizer_ids
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import (check_regular_file, check_trailing_separator, is_regular_file, os_error_reason,
                     regular_file_or_none, stat_path)
from ._util import identify_binary, open_regular_file
from . import hub
from .chat_templates import read_chat_templates
from .gguf_meta import MAGIC as GGUF_MAGIC
from .rwkv_vocab import looks_like_rwkv_vocab
from .sniff import head_lines, is_tiktoken_ranks, other_format, settings_file
from .writers import WRITE_FORMATS, can_write, save, save_files

FORMATS = ("hf-json", "gpt2", "tiktoken", "sentencepiece", "wordpiece-vocab", "minbpe", "gguf", "tekken", "rwkv-vocab")
TEMPLATE_FORMATS = ("hf-json", "gpt2", "sentencepiece", "wordpiece-vocab")  # transformers' folders: chat templates beside

# Files looked for, in this order, when a folder is given.
_FOLDER_FILES = ("tokenizer.json", "tekken.json", "vocab.json", "encoder.json", "tokenizer.model", "vocab.txt")


def detect(path: Path) -> tuple[str, Path]:
    """(format, path to read) for a file or folder, or a TokvizError saying why not."""
    try:
        return _detect(path)
    except OSError as exc:
        raise TokvizError(os_error_reason(exc), path) from None


def _head(path: Path, size: int) -> bytes:
    with open_regular_file(path) as fh:
        head = fh.read(max(size, 64))
    why = identify_binary(head)
    if why is not None:
        raise TokvizError(why, path)
    return head[:size]


def _detect(path: Path) -> tuple[str, Path]:
    if stat.S_ISDIR(stat_path(path).st_mode):
        for name in _FOLDER_FILES:
            if regular_file_or_none(path / name, "a tokenizer file") is not None:
                return detect(path / name)
        rwkv = sorted(p for p in path.glob("rwkv_vocab*.txt") if is_regular_file(p))  # (RWKV's Hub folders)
        if rwkv:
            return detect(rwkv[-1])
        found = sorted(p for p in path.iterdir() if p.suffix in (".tiktoken", ".model", ".json", ".gguf"))
        for p in found:
            try:
                return detect(p)
            except TokvizError:
                continue
        raise TokvizError(
            QT_TRANSLATE_NOOP("formats", "no tokenizer found in this folder (looked for tokenizer.json, tekken.json, "
                                         "vocab.json + merges.txt, *.tiktoken, *.model, vocab.txt, rwkv_vocab*.txt, "
                                         "*.gguf)"),
            path,
        )
    check_regular_file(path, "a tokenizer file")  # (a pipe or a device would block or never end)
    if _magic(path) == GGUF_MAGIC:  # (Ollama's blobs have no suffix)
        return "gguf", path
    name = path.name
    if name in ("vocab.json", "merges.txt", "encoder.json", "vocab.bpe"):
        return "gpt2", path.parent
    suffix = path.suffix.lower()
    if suffix == ".tiktoken":
        return "tiktoken", path
    if suffix == ".json":
        if settings_file(name) is not None:
            raise TokvizError(settings_file(name), path)
        return ("tekken" if looks_like_tekken_head(_head(path, _SNIFF)) else "hf-json"), path
    if suffix == ".model":
        head = _head(path, _SNIFF)
        if head.startswith(b"minbpe v"):
            return "minbpe", path
        if not _looks_like_sentencepiece(head):
            lines = _lines(head)
            if is_tiktoken_ranks(lines):
                return "tiktoken", path  # e.g. Meta's Llama 3 tokenizer.model
            _refuse_other_format(lines, path)
        return "sentencepiece", path
    if name == "vocab.txt" or suffix == ".txt":
        head = _head(path, _SNIFF)
        if looks_like_rwkv_vocab(head.split(b"\n", 1)[0]):
            return "rwkv-vocab", path
        lines = _lines(head)
        if is_tiktoken_ranks(lines):
            return "tiktoken", path
        _refuse_other_format(lines, path)
        return "wordpiece-vocab", path
    head = _head(path, _SNIFF)
    if head.lstrip().startswith(b"{"):
        return "hf-json", path
    if head.startswith(b"minbpe v"):
        return "minbpe", path
    if _looks_like_sentencepiece(head):
        return "sentencepiece", path  # e.g. Mistral's tokenizer.model.v3
    if looks_like_rwkv_vocab(head.split(b"\n", 1)[0]):
        return "rwkv-vocab", path
    lines = _lines(head)
    if is_tiktoken_ranks(lines):
        return "tiktoken", path  # e.g. tiktoken's download cache, which names files by a hash
    _refuse_other_format(lines, path)
    raise TokvizError(
        QT_TRANSLATE_NOOP("formats", "unknown tokenizer format (expected one of: tokenizer.json, tekken.json, "
                                     "vocab.json + merges.txt, .tiktoken, .model, vocab.txt, an RWKV vocabulary .txt, "
                                     ".gguf)"),
        path,
    )


_SNIFF = 4096  # bytes looked at to tell text layouts apart


def _lines(head: bytes) -> list[bytes]:
    """The complete lines of a file's first `_SNIFF` bytes (all of them when the file is shorter)."""
    return head_lines(head + b"\n" if len(head) < _SNIFF else head)


def _refuse_other_format(lines: list[bytes], path: Path) -> None:
    """Raise naming the format when the lines are a tokenizer file of a format tokviz does not read."""
    named = other_format(lines, path.name)
    if named is not None:
        raise TokvizError(named, path)


_TEKKEN_KEY = re.compile(rb'"(token_bytes|default_num_special_tokens|is_control)"\s*:')


def looks_like_tekken_head(head: bytes) -> bool:
    """Whether the start of a JSON file is a tekken.json's: keys no tokenizer.json has (a vocab
    entry's "token_bytes", the config's "default_num_special_tokens", a special token's "is_control")."""
    return head.lstrip().startswith(b"{") and _TEKKEN_KEY.search(head) is not None


def _magic(path: Path) -> bytes:
    with open_regular_file(path) as fh:
        return fh.read(4)


def _looks_like_sentencepiece(head: bytes) -> bool:
    """A sentencepiece ModelProto starts with its first piece: field 1 (a message) holding field 1
    (the piece's text)."""
    if not head.startswith(b"\x0a"):
        return False
    i = 1
    while i < len(head) and head[i] & 0x80:
        i += 1
    return i + 2 < len(head) and head[i + 1] == 0x0A


def load(path: str | os.PathLike, *, pattern: str | None = None, format: str | None = None) -> Tokenizer:
    """Load a tokenizer from a file or folder, detecting its format.

    >>> tok = tokviz.load("tokenizers/qwen2.5")            # folder with tokenizer.json
    >>> tok = tokviz.load("cl100k_base.tiktoken")           # regex known by name
    >>> tok = tokviz.load("my_encoding.tiktoken", pattern=r"...")
    >>> tok = tokviz.load("Mistral-Nemo/tekken.json")        # mistral-common's tekken
    >>> tok = tokviz.load("rwkv_vocab_v20230424.txt")         # an RWKV world vocabulary
    >>> tok = tokviz.load("Qwen/Qwen2.5-7B-Instruct")       # a Hub name: from the local HF cache

    A path that does not exist but reads as `owner/name[@revision]` is looked up in the Hugging
    Face cache (formats/hub.py); nothing is downloaded.  A file of a format tokviz does not read
    (fastBPE, subword-nmt, YouTokenToMe, a fairseq dict.txt, ...) is refused naming that format.
    """
    check_trailing_separator(path)
    if not _exists(Path(path).expanduser()):
        named = hub.parse_name(os.fspath(path))
        if named is not None:
            try:
                cached = hub.find_cached(*named)
            except hub.NotCached as exc:  # (a mistyped path reads as a name too: say both)
                raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "no such file or folder; as a Hub model name: "
                                                                       "{reason}"), reason=exc.reason),
                                  os.fspath(path)) from None
            if not hub.holds_tokenizer(cached.folder):
                raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "is in the Hugging Face cache (revision "
                                                                       "{revision}) but holds no tokenizer files; "
                                                                       "`tokviz fetch {repo}` adds them"),
                                          revision=cached.commit[:12], repo=cached.repo_id), cached.repo_id)
            path = cached.folder
    path = Path(path).expanduser()
    if format is None:
        format, target = detect(path)
    else:
        if format not in FORMATS:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "unknown format {format!r} (known: {known})"),
                                      format=format, known=", ".join(FORMATS)), path)
        target = path
        if not stat.S_ISDIR(stat_path(target).st_mode):
            check_regular_file(target, "a tokenizer file")
    with paused_gc():
        opened_folder = format == "hf-json" and target in (path, path / "tokenizer.json") and stat.S_ISDIR(stat_path(path).st_mode)
        folder = path if opened_folder else None
        tokenizer = _read(format, target, pattern, folder)
        check_tokenizer_ids(tokenizer, target)
        if format in TEMPLATE_FORMATS:
            tokenizer.chat_templates = read_chat_templates(target if target.is_dir() else target.parent)
            if "special_tokens_map" in tokenizer.source.extra:  # (a folder read as transformers: its own names)
                tokenizer.chat_templates.variables = dict(tokenizer.source.extra["special_tokens_map"])
        tokenizer.native_encoder()  # built now (tens of ms), not by the first encode
        tokenizer.added.match_strings(tokenizer.special_in_text)  # what the encoder checks texts for
    in_cache = hub.snapshot_repo(target)
    if in_cache is not None:  # (named after its repository, not its snapshot's commit)
        tokenizer.source.name, tokenizer.source.extra["hub_revision"] = in_cache
    return tokenizer


def _exists(path: Path) -> bool:
    """Whether something is at `path` (an unreadable folder on the way counts: `detect` says so)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return os.path.islink(path)
    except OSError:
        return True
    return True


def _read(format: str, target: Path, pattern: str | None, folder: Path | None = None) -> Tokenizer:
    """`folder`: the folder the user opened, when it holds the tokenizer.json (transformers reads
    the folder's tokenizer_config.json with it; a tokenizer.json opened as a file is read alone)."""
    try:
        if format == "hf-json":
            from .hf_folder import has_transformers_config, read_hf_folder
            from .hf_json import read_hf_json

            if folder is not None and has_transformers_config(folder):
                return read_hf_folder(folder)

            return read_hf_json(target)
        if format == "gpt2":
            from .gpt2 import read_gpt2

            return read_gpt2(target if target.is_dir() else target.parent)
        if format == "tiktoken":
            from .tiktoken_file import read_tiktoken

            return read_tiktoken(target, pattern)
        if format == "sentencepiece":
            from .sentencepiece import read_sentencepiece

            return read_sentencepiece(target)
        if format == "wordpiece-vocab":
            from .wordpiece_vocab import read_wordpiece_vocab

            return read_wordpiece_vocab(target)
        if format == "gguf":
            from .gguf import read_gguf

            return read_gguf(target)
        if format == "tekken":
            from .tekken import read_tekken

            return read_tekken(target)
        if format == "rwkv-vocab":
            from .rwkv_vocab import read_rwkv_vocab

            return read_rwkv_vocab(target)
        from .minbpe import read_minbpe

        return read_minbpe(target)
    except TokvizError as exc:
        if exc.path is None:
            raise TokvizError(exc.reason, target) from None
        raise
    except (MemoryError, RecursionError) as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "file is too large or too deeply nested to load "
                                                           "({kind})"), kind=type(exc).__name__), target) from None


SAVE_FORMATS = tuple(WRITE_FORMATS)
