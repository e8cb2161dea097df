"""The formats tokviz writes: what each can hold (`can_write`) and `save`, which writes one.

A GUI lists `WRITE_FORMATS` and enables a choice when `can_write(tok, name)` is None.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Joined, Message
from ..paths import check_trailing_separator
from .atomic_write import ALREADY_EXISTS, cannot_write


@dataclass(frozen=True)
class WriteFormat:
    """One writable format: `problem(tok)` is why it cannot hold a tokenizer (None: it can);
    `write(tok, path, overwrite, scrub)` writes it and returns the files written; `targets(path)`
    names those files before writing."""

    name: str
    label: str
    suffixes: tuple[str, ...]
    problem: Callable[[Tokenizer], str | None]
    write: Callable[..., list[Path]]
    targets: Callable[[Path], list[Path]] = lambda path: [path]
    default_name: str = ""  # the file written when the target is a folder


def _hf_problem(tok):
    from .hf_json_writer import hf_json_problem

    return hf_json_problem(tok)


def _hf_write(tok, path, overwrite, scrub):
    from .hf_json_writer import write_hf_json

    write_hf_json(tok, path, overwrite=overwrite)
    return [path]


def _vm_problem(tok):
    from .gpt2_writer import vocab_merges_problem

    return vocab_merges_problem(tok)


def _vm_write(tok, path, overwrite, scrub):
    from .gpt2_writer import write_vocab_merges

    return write_vocab_merges(tok, path, overwrite=overwrite)


def _vm_targets(path):
    from .gpt2_writer import vocab_merges_paths

    return list(vocab_merges_paths(path))


def _tt_problem(tok):
    from .tiktoken_writer import tiktoken_problem

    return tiktoken_problem(tok)


def _tt_write(tok, path, overwrite, scrub):
    from .tiktoken_writer import write_tiktoken

    return write_tiktoken(tok, path, overwrite=overwrite)


def _sp_problem(tok):
    from .sentencepiece_writer import sentencepiece_problem

    return sentencepiece_problem(tok)


def _sp_write(tok, path, overwrite, scrub):
    from .sentencepiece_writer import write_sentencepiece

    return write_sentencepiece(tok, path, overwrite=overwrite, scrub=scrub)


def _wp_problem(tok):
    from .wordpiece_vocab import wordpiece_vocab_problem

    return wordpiece_vocab_problem(tok)


def _wp_write(tok, path, overwrite, scrub):
    from .wordpiece_vocab import write_wordpiece_vocab

    return write_wordpiece_vocab(tok, path, overwrite=overwrite)


def _wp_targets(path):
    return [path, path.parent / "tokenizer_config.json"]


def _mb_problem(tok):
    from .minbpe_writer import minbpe_problem

    return minbpe_problem(tok)


def _mb_write(tok, path, overwrite, scrub):
    from .minbpe_writer import write_minbpe_files

    return write_minbpe_files(tok, path, overwrite=overwrite)


def _mb_targets(path):
    from .minbpe_writer import minbpe_paths

    return list(minbpe_paths(path))


def _tk_problem(tok):
    from .tekken_writer import tekken_problem

    return tekken_problem(tok)


def _tk_write(tok, path, overwrite, scrub):
    from .tekken_writer import write_tekken

    return write_tekken(tok, path, overwrite=overwrite)


def _listing(kind):
    def write(tok, path, overwrite, scrub):
        from .listing_writer import write_listing

        return write_listing(tok, path, kind, overwrite=overwrite)

    return write


WRITE_FORMATS: dict[str, WriteFormat] = {
    f.name: f
    for f in (
        WriteFormat("hf-json", "HF tokenizer.json", (".json",), _hf_problem, _hf_write,
                    default_name="tokenizer.json"),
        WriteFormat("vocab-merges", "vocab.json + merges.txt (GPT-2)", (), _vm_problem, _vm_write, _vm_targets),
        WriteFormat("tiktoken", "tiktoken .tiktoken", (".tiktoken",), _tt_problem, _tt_write,
                    default_name="tokenizer.tiktoken"),
        WriteFormat("sentencepiece", "sentencepiece .model", (".model",), _sp_problem, _sp_write,
                    default_name="tokenizer.model"),
        WriteFormat("wordpiece-vocab", "WordPiece vocab.txt", (".txt",), _wp_problem, _wp_write, _wp_targets,
                    default_name="vocab.txt"),
        WriteFormat("minbpe", "minbpe .model + .vocab", (".model",), _mb_problem, _mb_write, _mb_targets,
                    default_name="tokenizer.model"),
        WriteFormat("tekken", "Mistral tekken.json", (), _tk_problem, _tk_write, default_name="tekken.json"),
        WriteFormat("vocab-tsv", "vocabulary listing (TSV)", (".tsv",), lambda tok: None, _listing("tsv"),
                    default_name="vocab.tsv"),
        WriteFormat("vocab-csv", "vocabulary listing (CSV)", (".csv",), lambda tok: None, _listing("csv"),
                    default_name="vocab.csv"),
    )
}
ALIASES = {"gpt2": "vocab-merges", "json": "hf-json", "tsv": "vocab-tsv", "csv": "vocab-csv", "spm": "sentencepiece"}


def write_format(format: str, path=None) -> WriteFormat:
    spec = WRITE_FORMATS.get(ALIASES.get(format, format))
    if spec is None:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "cannot write format {format!r} (writable: {known})"),
                                  format=format, known=", ".join(WRITE_FORMATS)), path)
    return spec


def can_write(tok: Tokenizer, format: str) -> str | None:
    """None when `format` can hold `tok` exactly, else the reason it cannot (for a GUI's tooltip).

    Fast, except "tiktoken" the first time for a model with a merge list: it checks once that the
    merges agree with tiktoken's ranking (about a second for a 128k vocabulary)."""
    return write_format(format).problem(tok)


def format_for_path(tok: Tokenizer, path: Path) -> str:
    """The format a file name asks for: .json, .txt, .tiktoken, .tsv, .csv; vocab.json or merges.txt
    (vocab-merges); .model is sentencepiece or minbpe, whichever can hold the tokenizer."""
    if path.name in ("vocab.json", "merges.txt"):
        return "vocab-merges"
    suffix = path.suffix.lower()
    if suffix == ".model":
        reasons = {name: can_write(tok, name) for name in ("sentencepiece", "minbpe")}
        for name, reason in reasons.items():
            if reason is None:
                return name
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "a .model file is a sentencepiece or a minbpe model, "
                                                           "and neither can hold this tokenizer: {reasons}"),
                                  reasons=Joined(QT_TRANSLATE_NOOP("formats", "; "), reasons.values())), path)
    for spec in WRITE_FORMATS.values():
        if suffix in spec.suffixes:
            return spec.name
    raise TokvizError(QT_TRANSLATE_NOOP("formats", "cannot tell the format from the name (use .json, .txt, .tiktoken, "
                                                   ".model, .tsv or .csv, or give format=)"), path)


def save(
    tokenizer: Tokenizer,
    path: str | os.PathLike,
    *,
    format: str | None = None,
    scrub: bool = False,
    overwrite: bool = False,
) -> Path:
    """Write `tokenizer` to `path` and return the (first) file written (`save_files` returns all).

    format: one of WRITE_FORMATS; None takes it from the name (see `format_for_path`).  Given
    a folder, a single-file format writes its usual name in it (tokenizer.json, vocab.txt, ...).
    "vocab-merges" writes vocab.json, merges.txt and tokenizer_config.json (the tokenizer class,
    which names the split regex, and the added tokens) into `path` when it is a folder or has no
    suffix (a missing folder is made), else beside it as NAME-vocab.json, NAME-merges.txt and
    NAME-tokenizer_config.json (plain names when `path` is vocab.json or merges.txt).
    "minbpe" writes NAME.model and NAME.vocab.
    scrub: leave out training metadata: a sentencepiece model's input files, input format, model
    prefix, seed file and self-test sentences (the other formats hold none).
    overwrite: replace existing files (default: refuse, naming the first one that exists).
    The files are written as one transaction (atomic_write): temporary files beside them, renamed
    into place once all are written; on any failure the old files stay as they were and no
    temporary file is left.  A tokenizer the format cannot hold raises TokvizError before anything
    is written.
    """
    return save_files(tokenizer, path, format=format, scrub=scrub, overwrite=overwrite)[0]


def save_files(
    tokenizer: Tokenizer,
    path: str | os.PathLike,
    *,
    format: str | None = None,
    scrub: bool = False,
    overwrite: bool = False,
) -> list[Path]:
    """`save`, returning every file written.  A path ending in a separator ("out/") names a folder:
    an existing one, or for vocab-merges one to make."""
    given = os.fspath(path)
    as_folder = given.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep))
    check_trailing_separator(path)
    path = Path(path).expanduser()
    name = format if format is not None else format_for_path(tokenizer, path)
    spec = write_format(name, path)
    if spec.default_name and path.is_dir():
        path = path / spec.default_name
    elif as_folder and spec.name != "vocab-merges":
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "no such folder (the path ends in '{sep}'); {format} is "
                                                           "written into an existing folder or as a file name"),
                                  sep=os.sep, format=spec.label), given)
    problem = spec.problem(tokenizer)
    if problem:
        raise TokvizError(_cannot_write_as(spec.label, problem), path)
    in_itself = spec.name == "vocab-merges" and (as_folder or not path.suffix)
    folder = path if in_itself else path.parent
    made_folder = in_itself and not path.exists() and path.parent.is_dir()
    if made_folder:
        path.mkdir()
    if not folder.is_dir():
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "the folder to write into does not exist"), path)
    if not overwrite:
        existing = [p for p in spec.targets(path) if p.exists()]
        if existing:
            raise TokvizError(ALREADY_EXISTS, existing[0])
    try:
        try:
            written = spec.write(tokenizer, path, overwrite, scrub)
        except BaseException:
            if made_folder:
                _remove_empty_folder(path)
            raise
    except TokvizError as exc:
        raise TokvizError(_cannot_write_as(spec.label, exc.reason) if exc.path is None else exc.reason,
                          exc.path or path) from None
    except OSError as exc:
        raise TokvizError(cannot_write(exc), path) from None
    return written


def _cannot_write_as(label: str, reason: str) -> Message:
    return Message(QT_TRANSLATE_NOOP("formats", "cannot write as {format}: {reason}"), format=label, reason=reason)


def _remove_empty_folder(path: Path) -> None:
    """Remove the folder `save_files` made for a write that failed (only while it is empty)."""
    try:
        path.rmdir()
    except OSError:
        pass
