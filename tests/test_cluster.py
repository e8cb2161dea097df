"""Corpus statistics and training on a real Dask LocalCluster (2 worker processes, one thread
each) give what the single-machine path gives: every statistic but the timing, and byte-identical
tokenizer files for every trainer, with and without pruning of the word counts.  Also: a worker killed mid-run, an unreachable scheduler, cancel, and the message
without Dask.  Skipped without `distributed` (the test extra has it), except under CI=true."""
from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tokviz import cli
from tokviz.analysis.corpus_stats import corpus_stats
from tokviz.cluster import INSTALL_HINT, require_distributed
from tokviz.cluster.ranges import byte_ranges, stats_cut, training_cut
from tokviz.errors import Cancelled, TokvizError
from tokviz.formats import load, save
from tokviz.train import train
from tokviz.train.options import TrainOptions

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [ROOT / "resources" / "training.txt", ROOT / "resources" / "sample.txt",
           *sorted((ROOT / "resources" / "parallel").glob("*.txt")), ROOT / "tests" / "data" / "real" / "texts.txt"]
SHARED = ROOT.parent / "shared"
SHARED_CORPUS = sorted((SHARED / "corpus").glob("*.txt"))
TIMING = {"seconds", "mb_per_second"}


def _distributed():
    if os.environ.get("CI") == "true":
        import distributed

        return distributed
    return pytest.importorskip("distributed", reason='Dask distributed is not installed (pip install "tokviz[cluster]")')


@pytest.fixture(scope="module")
def cluster():
    _distributed()
    from tokviz.cluster import Cluster

    with Cluster(workers=2, range_bytes=2048) as c:
        # the workers import this tree's tokviz, not another installed one
        assert set(c.client.run(lambda: __import__("tokviz").__file__).values()) == {
            str(ROOT / "tokviz" / "__init__.py")}
        yield c


@pytest.fixture(scope="module")
def bytelevel_json(tmp_path_factory):
    path = tmp_path_factory.mktemp("tok") / "bytelevel.json"
    save(train("bytelevel-bpe", SHIPPED, TrainOptions(vocab_size=600)), path)
    return path


def _same_stats(a, b):
    da, db = a.as_dict(), b.as_dict()
    assert {k: v for k, v in da.items() if k not in TIMING} == {k: v for k, v in db.items() if k not in TIMING}
    assert np.array_equal(a.counts, b.counts)
    assert a.tokens > 0


def _stats_on(cluster, spec, files, **kw):
    from tokviz.cluster import corpus_stats_on

    return corpus_stats_on(cluster, (str(spec), None), files, **kw)


# ---- ranges ---------------------------------------------------------------------------------------


def test_ranges_cover_the_file_and_end_at_line_cuts():
    data = SHIPPED[0].read_bytes()
    for find in (training_cut, stats_cut(load(ROOT / "resources" / "tokviz-demo.model"))):
        ranges = byte_ranges(SHIPPED[0], 500, find)
        assert len(ranges) > 3
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        for _, end in ranges[:-1]:
            assert data[end - 1:end] == b"\n" and data[end - 2:end - 1] not in (b" ", b"\n")


def test_unigram_ranges_start_before_a_space_outside_special_tokens(tmp_path):
    from tokviz.train.unigram import WordStarts

    path = tmp_path / "t.txt"
    path.write_text("word<|a b|>" * 2000, encoding="utf-8")
    starts = WordStarts(TrainOptions(vocab_size=100, special_tokens=["<|a b|>"]))
    assert byte_ranges(path, 500, starts.next) == [(0, path.stat().st_size)]
    path.write_text("word<|a b|> x" * 2000, encoding="utf-8")
    data = path.read_bytes()
    ranges = byte_ranges(path, 500, starts.next)
    assert len(ranges) > 10 and all(data[start:start + 2] == b" x" for start, _ in ranges[1:])


# ---- statistics -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_stats_equal_single_machine_on_shipped_text(cluster, bytelevel_json):
    for spec in (bytelevel_json, ROOT / "resources" / "tokviz-demo.model"):
        tok = load(spec)
        assert sum(len(byte_ranges(f, cluster.range_bytes, stats_cut(tok))) for f in SHIPPED) > 2 * len(SHIPPED)
        seen = []
        _same_stats(_stats_on(cluster, spec, SHIPPED, progress=lambda d, t: seen.append((d, t))),
                    corpus_stats(tok, SHIPPED))
        assert seen[-1][0] == seen[-1][1] == sum(f.stat().st_size for f in SHIPPED)


@pytest.mark.slow
def test_an_edited_unsaved_tokenizer_goes_as_it_is(cluster, bytelevel_json):
    """The tokenizer goes to the workers as its bytes: one edited and not saved is measured as it
    is in memory (its added token counted), not as its file holds it."""
    from tokviz.analysis.health import with_added_tokens
    from tokviz.cluster import corpus_stats_on
    from tokviz.core import AddedToken

    tok = load(bytelevel_json)
    edited = with_added_tokens(tok, [AddedToken(content=" the ", id=tok.vocab_size)])
    there = corpus_stats_on(cluster, (str(bytelevel_json), None), SHIPPED, tokenizer=edited)
    _same_stats(there, corpus_stats(edited, SHIPPED))
    assert there.counts[tok.vocab_size] > 0
    _same_stats(corpus_stats_on(cluster, edited, SHIPPED), there)


@pytest.mark.slow
def test_the_tokenizer_on_the_workers_gives_the_same_ids(cluster, bytelevel_json):
    from tokviz.cluster import ship_tokenizer
    from tokviz.cluster.tasks import shipped_tokenizer

    text = SHIPPED[0].read_text(encoding="utf-8")
    for spec in (bytelevel_json, ROOT / "resources" / "tokviz-demo.model",
                 *(p for p in (SHARED / "tokenizers" / n for n in ("qwen2.5", "bert-minilm", "sentencepiece")) if p.exists())):
        tok = load(spec)
        shipped = ship_tokenizer(cluster, tok)
        ids = cluster.client.run(lambda: None)  # (every worker alive)
        results = [cluster.client.submit(lambda p, t, w: shipped_tokenizer(p).encode(t).ids, shipped, text, w,
                                         workers=[w], pure=False).result(timeout=120) for w in ids]
        assert results == [tok.encode(text).ids] * len(ids), spec


@pytest.mark.slow
def test_byte_order_mark_and_crlf_lines(cluster, bytelevel_json, tmp_path):
    text = SHIPPED[0].read_text(encoding="utf-8")
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + (text.replace("\n", "\r\n") + text).encode("utf-8"))
    assert len(byte_ranges(path, cluster.range_bytes, training_cut)) > 2
    _same_stats(_stats_on(cluster, bytelevel_json, [path]), corpus_stats(load(bytelevel_json), [path]))
    from tokviz.cluster import count_corpus_on
    from tokviz.train.bpe_core import count_corpus

    assert count_corpus_on(cluster)([path], "gpt2") == count_corpus([path], "gpt2")


@pytest.mark.slow
def test_files_without_line_cuts_are_cut_before_spaces(cluster, tmp_path):
    """A CRLF file and a file of one long line still give many training ranges (cut before a
    space), and count what one machine counts."""
    from tokviz.cluster import count_corpus_on
    from tokviz.train.bpe_core import count_corpus

    text = SHIPPED[0].read_text(encoding="utf-8")
    crlf, one_line = tmp_path / "crlf.txt", tmp_path / "line.txt"
    crlf.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    one_line.write_text(text.replace("\n", " "), encoding="utf-8")
    for path in (crlf, one_line):
        data = path.read_bytes()
        ranges = byte_ranges(path, 512, training_cut)
        assert len(ranges) > 5
        assert all(data[start:start + 1] == b" " and data[start - 1:start] not in b" \r\n" for start, _ in ranges[1:])
        for pattern, dialect in (("gpt2", "onig"), ("o200k", "rust")):
            assert count_corpus_on(cluster, range_bytes=512)([path], pattern, dialect=dialect) == \
                count_corpus([path], pattern, dialect=dialect)


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.skipif(not SHARED_CORPUS, reason="../shared/corpus is absent")
@pytest.mark.parametrize("name", ["qwen2.5", "llama3", "bert-minilm"])
def test_stats_equal_single_machine_on_shared_corpus(cluster, name):
    spec = SHARED / "tokenizers" / name
    if not spec.exists():
        pytest.skip(f"{spec} is absent")
    tok = load(spec)
    _same_stats(_stats_on(cluster, spec, SHARED_CORPUS, range_bytes=1 << 20), corpus_stats(tok, SHARED_CORPUS))


@pytest.mark.slow
def test_stats_cli_equal_single_machine(cluster, bytelevel_json, capsys):
    import json

    args = ["stats", "-t", str(bytelevel_json), "--corpus", str(SHIPPED[0]), "--json"]
    assert cli.main(args) == 0
    alone = json.loads(capsys.readouterr().out)
    assert cli.main(args + ["--scheduler", cluster.address]) == 0
    there = json.loads(capsys.readouterr().out)
    for result in (alone, there):
        for key in TIMING:
            result["corpus"]["training"].pop(key)
    assert alone == there


# ---- training -------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("model,kw", [
    ("bytelevel-bpe", {}),
    ("bytelevel-bpe", {"pattern": "o200k"}),
    ("bpe", {"end_of_word": "glued"}),
    ("wordpiece", {}),
    ("unigram", {}),
])
def test_training_writes_identical_files(cluster, tmp_path, model, kw):
    files = SHIPPED + SHARED_CORPUS[:1]
    options = TrainOptions(vocab_size=3000, special_tokens=["<|endoftext|>", "<unk>"])
    save(train(model, files, options, cluster=cluster, **kw), tmp_path / "cluster.json")
    save(train(model, files, options, **kw), tmp_path / "alone.json")
    assert (tmp_path / "cluster.json").read_bytes() == (tmp_path / "alone.json").read_bytes()


@pytest.mark.slow
def test_unigram_words_equal_single_machine_across_ranges(cluster, tmp_path):
    """Ranges of a Unigram corpus end before a space; words that span line ends, special tokens
    with spaces in them and text that NFKC changes count the same on the cluster."""
    from tokviz.cluster import count_words_on
    from tokviz.train.unigram import count_words

    line = "Ｆｕｌｌ width<|my token|>x and\nwords over\nlines ﬁne <|my token|> 1\u00a02  end\n"
    path = tmp_path / "u.txt"
    path.write_text(SHIPPED[0].read_text(encoding="utf-8") + line * 400, encoding="utf-8")
    for collapse in (False, True):
        options = TrainOptions(vocab_size=500, special_tokens=["<|my token|>"], collapse_whitespace=collapse)
        words = count_words_on(cluster, range_bytes=512)([path], options)
        alone = count_words([path], options)
        assert list(words.items()) == list(alone.items())
        assert ("and\nwords" in alone) != collapse and "my token" not in " ".join(alone)


@pytest.mark.slow
def test_pruned_counts_equal_single_machine_and_drop_only_rare_words(cluster, tmp_path):
    from tokviz.cluster import count_corpus_on
    from tokviz.train.bpe_core import count_corpus

    pieces, counts = count_corpus(SHIPPED, "gpt2")
    pruned = count_corpus_on(cluster)(SHIPPED, "gpt2", min_count=3)
    assert pruned == count_corpus(SHIPPED, "gpt2", min_count=3)
    assert pruned == ([p for p, n in zip(pieces, counts) if n >= 3], [n for n in counts if n >= 3])
    assert 0 < len(pruned[0]) < len(pieces) // 2

    options = TrainOptions(vocab_size=2000, min_word_count=3)
    for model in ("bytelevel-bpe", "unigram"):
        written = {}
        for name, kw in (("cluster", {"cluster": cluster}), ("alone", {}), ("unpruned", {})):
            opts = options if name != "unpruned" else TrainOptions(vocab_size=2000)
            save(train(model, SHIPPED, opts, **kw), tmp_path / f"{model}-{name}.json")
            written[name] = (tmp_path / f"{model}-{name}.json").read_bytes()
        assert written["cluster"] == written["alone"] != written["unpruned"]


@pytest.mark.slow
@pytest.mark.parametrize("model", ["bytelevel-bpe", "wordpiece"])
def test_training_cli_identical(cluster, tmp_path, model):
    base = ["train", *map(str, SHIPPED), "--model", model, "--vocab-size", "700", "-q", "--min-word-count", "2"]
    assert cli.main(base + ["-o", str(tmp_path / "a.json")]) == 0
    assert cli.main(base + ["-o", str(tmp_path / "b.json"), "--scheduler", cluster.address]) == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.skipif(not SHARED_CORPUS, reason="../shared/corpus is absent")
def test_training_on_shared_corpus_identical(cluster, tmp_path):
    options = TrainOptions(vocab_size=1000)
    from tokviz.cluster import count_corpus_on
    from tokviz.train.bpe_core import count_corpus

    assert count_corpus_on(cluster, range_bytes=1 << 20)(SHARED_CORPUS, "o200k", dialect="rust") == \
        count_corpus(SHARED_CORPUS, "o200k", dialect="rust")
    save(train("bytelevel-bpe", SHARED_CORPUS, options, cluster=cluster, pattern="llama3"), tmp_path / "c.json")
    save(train("bytelevel-bpe", SHARED_CORPUS, options, pattern="llama3"), tmp_path / "a.json")
    assert (tmp_path / "c.json").read_bytes() == (tmp_path / "a.json").read_bytes()


# ---- faults -----------------------------------------------------------------------------------------


def _big_corpus(tmp_path) -> Path:
    """About 3 MB of shipped text: enough 16 KB ranges that tasks still run when a worker dies."""
    text = "".join(f.read_text(encoding="utf-8") for f in SHIPPED)
    path = tmp_path / "big.txt"
    path.write_text(text * (3_000_000 // len(text.encode("utf-8")) + 1), encoding="utf-8")
    return path


@pytest.mark.slow
def test_worker_killed_mid_run_changes_nothing(cluster, tmp_path):
    from tokviz.cluster import count_corpus_on
    from tokviz.train.bpe_core import count_corpus

    corpus = _big_corpus(tmp_path)
    client = cluster.client
    victim, pid = sorted(client.run(os.getpid).items())[0]
    killed_at = []

    def progress(fraction):
        if not killed_at and 0 < fraction < 1:
            killed_at.append(fraction)
            os.kill(pid, signal.SIGKILL)

    result = count_corpus_on(cluster, range_bytes=16 << 10)([corpus], "gpt2", progress=progress)
    assert killed_at, "the worker was not killed while tasks ran"
    assert result == count_corpus([corpus], "gpt2")
    assert victim not in client.scheduler_info()["workers"]
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it: the next tests have two workers again


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_unreachable_scheduler_names_it_and_writes_nothing(tmp_path, capsys):
    _distributed()
    from tokviz.cluster import Cluster

    address = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(TokvizError, match=f"cannot reach the Dask scheduler at {address}"):
        Cluster(address, timeout=1)
    out = tmp_path / "t.json"
    assert cli.main(["train", str(SHIPPED[0]), "--model", "bytelevel-bpe", "--vocab-size", "300", "-q",
                     "-o", str(out), "--scheduler", address]) == 2
    assert address in capsys.readouterr().err
    assert not out.exists()


def test_cancel_while_connecting_gives_up_at_once():
    """A scheduler address that accepts the connection and never answers: connect returns with
    Cancelled as soon as cancel is set, long before its timeout."""
    _distributed()
    from tokviz.cluster import connect

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = "tcp://127.0.0.1:%d" % silent.getsockname()[1]
        stop = threading.Event()
        threading.Timer(0.5, stop.set).start()
        started = time.monotonic()
        with pytest.raises(Cancelled, match="connecting to " + address):
            connect(address, cancel=stop, timeout=60)
        assert stop.is_set() and time.monotonic() - started < 30


@pytest.mark.slow
def test_cancel_cancels_the_cluster_tasks(cluster, bytelevel_json, tmp_path):
    corpus = _big_corpus(tmp_path)
    client = cluster.client
    stop = threading.Event()

    def progress(done, total):
        if 0 < done < total:
            stop.set()

    with pytest.raises(Cancelled):
        _stats_on(cluster, bytelevel_json, [corpus], progress=progress, cancel=stop, range_bytes=16 << 10)
    assert stop.is_set()

    def tokviz_tasks(dask_scheduler):
        return sum(1 for ts in dask_scheduler.tasks.values() if "stats_range" in str(ts.key)
                   or "tokviz-combine" in str(ts.key))

    deadline = time.monotonic() + 60
    while client.run_on_scheduler(tokviz_tasks) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.run_on_scheduler(tokviz_tasks) == 0


def test_without_dask_the_options_say_how_to_get_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # what `import distributed` meets when it is absent
    with pytest.raises(TokvizError) as info:
        require_distributed()
    assert 'pip install "tokviz[cluster]"' in str(info.value)
    assert cli.main(["stats", "-t", str(ROOT / "resources" / "tokviz-demo.model"), "--corpus", str(SHIPPED[0]),
                     "--workers", "2"]) == 2
    assert INSTALL_HINT in capsys.readouterr().err
