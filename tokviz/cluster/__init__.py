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
Unigram pieces) is the same.  Files must be readable at the same paths on the workers (a shared
file system) and, for statistics, the tokenizer too (it is sent as its path and loaded there).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import TokvizError
from .connect import INSTALL_HINT, Cluster, connect, require_distributed
from .ranges import byte_ranges, stats_cut, training_cut
from .tree import reduce_tree, wait_result

__all__ = ["Cluster", "INSTALL_HINT", "connect", "corpus_stats_on", "count_corpus_on", "count_words_on",
           "require_distributed"]


def corpus_stats_on(
    cluster: Cluster,
    spec: tuple[str, str | None],
    paths: Iterable[str | os.PathLike],
    *,
    tokenizer=None,
    progress: Callable[[int, int], None] | None = None,
    cancel=None,
    alpha: float = 2.5,
    range_bytes: int | None = None,
):
    """`analysis.corpus_stats` counted on `cluster`: the same CorpusStats (seconds: the wall time
    here).  `spec`: (path, pattern) the workers load the tokenizer from; `tokenizer`: the same,
    loaded here (else loaded from `spec`), for the cuts and the vocabulary.  range_bytes: default
    cluster.range_bytes."""
    import numpy as np

    from ..analysis.corpus_stats import CorpusStats, corpus_files
    from . import tasks

    tok = tokenizer if tokenizer is not None else tasks.tokenizer(*spec)
    if tokenizer is not None and not same_tokenizer(tokenizer, tasks.tokenizer(*spec)):
        raise TokvizError("the tokenizer is not the one its file holds (edited and not saved?): the workers "
                          "load it from the file, so save it first, then measure it on a cluster", spec[0])
    files = corpus_files(paths)
    find = stats_cut(tok)
    t0 = time.perf_counter()
    client = cluster.client
    leaves, weights = [], []
    for f in files:
        for start, end in byte_ranges(f, range_bytes or cluster.range_bytes, find):
            leaves.append(client.submit(tasks.stats_range, spec, str(f), start, end, alpha, pure=False))
            weights.append(end - start)
    if leaves:
        root = reduce_tree(client, leaves, tasks.combine_stats)
        part = wait_result(client, root, leaves, weights, progress=progress, cancel=cancel)
    else:
        part = tasks.empty_stats(tok.vocab_size)
    stats = CorpusStats([str(f) for f in files], vocab_size=tok.vocab_size,
                        counts=np.asarray(part["counts"], np.int64),
                        special_ids=frozenset(tok.added.special_ids), alpha=alpha)
    for name in tasks.STAT_FIELDS:
        setattr(stats, name, int(part[name]))
    stats.seconds = time.perf_counter() - t0
    return stats


_DESCRIBED_ASIDE = ("path", "name", "encoder", "encoder_detail", "chat_templates")


def same_tokenizer(a, b) -> bool:
    """Whether two tokenizers cut text alike as far as can be told from what they hold: the same
    pipeline, added tokens, vocabulary (every token's bytes) and merges."""
    if a is b:
        return True
    da, db = a.describe(), b.describe()
    if any(da.get(k) != db.get(k) for k in set(da) | set(db) if k not in _DESCRIBED_ASIDE):
        return False
    if [(t.id, t.content, t.special) for t in a.added.tokens] != [(t.id, t.content, t.special) for t in b.added.tokens]:
        return False
    if any(a.token_bytes(i) != b.token_bytes(i) for i in range(a.vocab_size)):
        return False
    return list(getattr(a.model, "merges", None) or ()) == list(getattr(b.model, "merges", None) or ())


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


def _count_ranges(cluster, corpus, find, task, options, min_count, range_bytes, progress, cancel):
    """(pieces, counts) of the files of `corpus`: task(path, start, end, options) on each byte range
    (cut where `find` says), combined in a tree and pruned to `min_count` on the workers."""
    from . import tasks

    client = cluster.client
    leaves, weights = [], []
    for item in corpus:
        if not isinstance(item, (str, os.PathLike)) or not Path(item).is_file():
            raise TokvizError("training on a Dask cluster reads files, not texts", str(item)[:80])
        for start, end in byte_ranges(item, range_bytes or cluster.range_bytes, find):
            leaves.append(client.submit(task, os.fspath(item), start, end, options, pure=False))
            weights.append(end - start)
    if not leaves:
        return [], []
    root = reduce_tree(client, leaves, tasks.combine_counts)
    if min_count > 1:
        root = client.submit(tasks.prune_packed, root, min_count, pure=False)
    return tasks.unpack(wait_result(client, root, leaves, weights, progress=progress, cancel=cancel))
