"""Corpus statistics and the counting step of training on a Dask cluster (`pip install "tokviz[cluster]"`).

    >>> with Cluster(workers=2) as cluster:          # or Cluster("tcp://host:8786")
    ...     stats = corpus_stats_on(cluster, ("tok.json", None), ["corpus/"])
    ...     tok = train("bytelevel-bpe", files, TrainOptions(vocab_size=8000), cluster=cluster)

Files are cut into byte ranges (ranges.py) where the single-machine path may cut too; each range is
one task, which reads only its range, streamed, and counts it (tasks.py); partial results are
combined FAN_IN at a time on the workers, adjacent ranges together, up to one result (tree.py);
only that one comes back, pruned on a worker to TrainOptions.min_word_count when asked.  The
results equal the single-machine ones: statistics (but the timing), and training's word counts in
order of first appearance, so the model learned from them here (merges, WordPiece vocabulary or
Unigram pieces) is the same.

Paths are resolved here first (sources.py: relative ones made absolute, folders, URLs and URL
globs listed, sizes taken): a corpus is local files the workers read at the same absolute paths
(a shared file system), or fsspec URLs (s3://, gs://, hdfs://...) read by ranged reads with the
credentials of each machine's environment.  The tokenizer is sent to the workers as its bytes
(shipping.py, once per worker), so it needs no file there; an edited, unsaved one goes as it is.
What cannot be read says where: "on this machine (the client): ..." or "worker tcp://...: ...".
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import TokvizError
from .connect import INSTALL_HINT, Cluster, connect, require_distributed
from .ranges import byte_ranges, stats_cut, training_cut
from .shipping import TokenizerPayload
from .sources import CorpusFile, client_error, corpus_sources, is_url
from .tree import reduce_tree, wait_result

__all__ = ["Cluster", "CorpusFile", "INSTALL_HINT", "connect", "corpus_sources", "corpus_stats_on", "count_corpus_on",
           "count_words_on", "is_url", "require_distributed", "ship_tokenizer", "training_files"]


def corpus_stats_on(
    cluster: Cluster,
    spec,
    paths: Iterable,
    *,
    tokenizer=None,
    progress: Callable[[int, int], None] | None = None,
    cancel=None,
    alpha: float = 2.5,
    range_bytes: int | None = None,
):
    """`analysis.corpus_stats` counted on `cluster`: the same CorpusStats (seconds: the wall time
    here).  `tokenizer`: the tokenizer as it is here (edited or unsaved ones too), sent to the
    workers as its bytes; without it `spec`, a Tokenizer or (path, pattern) to load here.
    `paths`: files, folders, URLs and URL globs (sources.corpus_sources), resolved here.
    range_bytes: default cluster.range_bytes."""
    import numpy as np

    from ..analysis.corpus_stats import CorpusStats
    from . import tasks

    tok = tokenizer if tokenizer is not None else _tokenizer_of(spec)
    files = corpus_sources(paths)
    find = stats_cut(tok)
    t0 = time.perf_counter()
    client = cluster.client
    leaves, weights = [], []
    plans = [(f, _ranges(f, range_bytes or cluster.range_bytes, find)) for f in files]
    shipped = ship_tokenizer(cluster, tok) if any(ranges for _, ranges in plans) else None
    for f, ranges in plans:
        for start, end in ranges:
            leaves.append(client.submit(tasks.stats_range, shipped, f, start, end, alpha, pure=False))
            weights.append(end - start)
    if leaves:
        root = reduce_tree(client, leaves, tasks.combine_stats)
        part = wait_result(client, root, leaves, weights, progress=progress, cancel=cancel)
    else:
        part = tasks.empty_stats(tok.vocab_size)
    stats = CorpusStats([f.name for f in files], vocab_size=tok.vocab_size,
                        counts=np.asarray(part["counts"], np.int64),
                        special_ids=frozenset(tok.added.special_ids), alpha=alpha)
    for name in tasks.STAT_FIELDS:
        setattr(stats, name, int(part[name]))
    stats.seconds = time.perf_counter() - t0
    return stats


def _tokenizer_of(spec):
    from ..core.tokenizer import Tokenizer

    if isinstance(spec, Tokenizer):
        return spec
    from ..formats import load

    path, pattern = spec
    return load(path, pattern=pattern)


def ship_tokenizer(cluster: Cluster, tokenizer):
    """A future of `tokenizer`'s bytes (shipping.TokenizerPayload) held by every worker: sent once
    to each, and fetched from another by a worker that joins later (one restarted after a crash)."""
    payload = TokenizerPayload.of(tokenizer)
    return cluster.client.scatter(payload, broadcast=True, hash=False)


def _ranges(f: CorpusFile, target: int, find) -> list[tuple[int, int]]:
    """byte_ranges of `f`, read here: an error is this machine's."""
    try:
        return byte_ranges(f, target, find)
    except TokvizError as exc:
        raise client_error(exc) from None
    except Exception as exc:  # (fsspec back ends)
        raise client_error(exc, f.name) from None


def count_corpus_on(cluster: Cluster, *, range_bytes: int | None = None):
    """A drop-in for `bpe_core.count_corpus` over files that counts on `cluster` (a trainer's
    `count=`: bpe, bytelevel-bpe, wordpiece): the same (pieces, counts), pieces in order of first
    appearance, pruned to `min_count` on the workers.  Items must be files (training by path);
    progress(fraction) and cancel as count_corpus's."""
    from . import tasks

    def count(corpus, pattern="gpt2", *, split_digits=False, split_lines=False, threads=None, progress=None,
              cancel=None, use_native=None, files=None, chunk_chars=None, dialect="onig", normalize=None,
              min_count=1):
        if files is False:
            raise TokvizError("training on a Dask cluster reads files, not texts")
        options = {"pattern": pattern, "split_digits": split_digits, "split_lines": split_lines,
                   "use_native": use_native, "dialect": dialect, "normalize": normalize}
        if chunk_chars is not None:
            options["chunk_chars"] = chunk_chars
        report = None if progress is None else (lambda done, total: progress(done / total if total else 1.0))
        return _count_ranges(cluster, corpus, training_cut, tasks.count_range, options, min_count,
                             range_bytes, report, cancel)

    return count


def count_words_on(cluster: Cluster, *, range_bytes: int | None = None):
    """A drop-in for `unigram.count_words` over files that counts on `cluster` (the unigram
    trainer's `count=`): the same Counter, words in order of first appearance.  Ranges end before
    a space, where a file's words are the same cut or not (a line end is not a word end there)."""
    from collections import Counter

    from ..train.unigram import WordStarts
    from . import tasks

    def count(corpus, options, progress=None, cancel=None):
        starts = WordStarts(options)
        report = None if progress is None else (
            lambda done, total: progress(done / total if total else 1.0,
                                         f"counting words on the cluster: {done / 1e6:.1f} of {total / 1e6:.1f} MB"))
        words, counts = _count_ranges(cluster, corpus, starts.next,
                                      tasks.count_words_range, options, options.min_word_count, range_bytes,
                                      report, cancel)
        return Counter(dict(zip((w.decode("utf-8") for w in words), counts)))

    return count


def training_files(files: Iterable) -> list[CorpusFile]:
    """The training files of `files` (paths, URLs, URL globs and folders) as the cluster reads
    them, resolved here: what `train(..., cluster=)` hands its trainer."""
    return corpus_sources(files, folders=False)


def _count_ranges(cluster, corpus, find, task, options, min_count, range_bytes, progress, cancel):
    """(pieces, counts) of the files of `corpus`: task(file, start, end, options) on each byte range
    (cut where `find` says), combined in a tree and pruned to `min_count` on the workers."""
    from . import tasks

    client = cluster.client
    leaves, weights = [], []
    files = []
    for item in corpus:
        if not isinstance(item, (str, os.PathLike)) or not (isinstance(item, CorpusFile) or is_url(item)
                                                             or Path(item).is_file()):
            raise TokvizError("training on a Dask cluster reads files, not texts", str(item)[:80])
        files.append(item)
    for f in corpus_sources(files, folders=False):
        for start, end in _ranges(f, range_bytes or cluster.range_bytes, find):
            leaves.append(client.submit(task, f, start, end, options, pure=False))
            weights.append(end - start)
    if not leaves:
        return [], []
    root = reduce_tree(client, leaves, tasks.combine_counts)
    if min_count > 1:
        root = client.submit(tasks.prune_packed, root, min_count, pure=False)
    return tasks.unpack(wait_result(client, root, leaves, weights, progress=progress, cancel=cancel))
