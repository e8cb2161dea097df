"""Trainers: each turns text files into an ordinary tokviz Tokenizer.

    >>> from tokviz.train import train, TrainOptions
    >>> tok = train("bytelevel-bpe", ["corpus.txt"], TrainOptions(vocab_size=8000), pattern="gpt2")

=================  ===========================================================================
model              trainer
=================  ===========================================================================
bpe                character-level BPE, words end in ``</w>`` (train/charbpe.py)
bytelevel-bpe      byte-level BPE over a split pattern, GPT-2 style (train/bytelevel.py)
wordpiece          WordPiece, merge score count(ab) / (count(a) count(b)), ``##`` (train/wordpiece.py)
unigram            Unigram: seed substrings, EM over the lattice, pruning (train/unigram.py)
=================  ===========================================================================

Every trainer takes the same TrainOptions (train/options.py), reports progress(fraction, message)
and stops with Cancelled when cancel() says so.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from collections.abc import Sequence

from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import check_regular_file, distinct_files
from .options import CancelCheck, Progress, TrainOptions

# model name -> (module, function); imported on use
TRAINERS = {
    "bpe": ("charbpe", "train_char_bpe"),
    "bytelevel-bpe": ("bytelevel", "train_bytelevel_bpe"),
    "wordpiece": ("wordpiece", "train_wordpiece"),
    "unigram": ("unigram", "train_unigram"),
}

def train(
    model: str,
    files: Sequence[str | os.PathLike],
    options: TrainOptions,
    *,
    pattern: str | None = None,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    threads: int | None = None,
    cluster=None,
    **model_options,
) -> Tokenizer:
    """Train a `model` tokenizer on the text `files` (paths).  `pattern` (byte-level BPE only): a split
    pattern name (gpt2, cl100k, o200k, llama3, qwen2) or a regex; `model_options`: what that
    trainer alone takes (bpe: end_of_word="separate" | "glued"; wordpiece: lowercase=True).
    `cluster`: a tokviz.cluster.Cluster that counts the words (the model is learned here, from
    the same counts as without it); `files` may then be fsspec URLs and URL globs too."""
    if model not in TRAINERS:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "unknown model {model!r} (choose from {choices})"),
                                  model=model, choices=", ".join(TRAINERS)))
    if not files:
        raise TokvizError(QT_TRANSLATE_NOOP("train", "no training files given"))
    module, function = TRAINERS[model]
    trainer = getattr(importlib.import_module(f".{module}", __name__), function)
    kwargs = {"progress": progress, "cancel": cancel, "threads": threads, **model_options}
    if cluster is not None:
        from ..cluster import count_corpus_on, count_words_on

        kwargs["count"] = (count_words_on if model == "unigram" else count_corpus_on)(cluster)
    if model == "bytelevel-bpe":
        kwargs["pattern"] = pattern or "gpt2"
    elif pattern is not None:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "--pattern applies to bytelevel-bpe only, not {model}"),
                                  model=model))
    if cluster is not None:
        # resolved here as the cluster reads them: absolute paths, URLs and URL globs listed
        from ..cluster import training_files

        return trainer(training_files(files), options, **kwargs)
    # Paths, not strs: the trainers read a str that names no file as text, and a mistyped file
    # name must be an error, not a corpus of one line.
    paths = [Path(f).expanduser() for f in files]
    for path in paths:
        check_regular_file(path, "a training file")
    return trainer(distinct_files(paths), options, **kwargs)


__all__ = ["TRAINERS", "TrainOptions", "distinct_files", "train"]
