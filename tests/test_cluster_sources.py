"""What the cluster path does on the client and in a task, without a cluster (fast: the default
run): corpus paths resolved here (relative made absolute, folders, URLs and globs listed, errors
said to be the client's), ranges and reads of a URL (fsspec's memory:// file system) equal to a
local file's, a worker's message for a file it cannot see, and the tokenizer as bytes giving the
same ids."""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from tokviz import cli
from tokviz.cluster import tasks
from tokviz.cluster.ranges import byte_ranges, stats_cut, training_cut
from tokviz.cluster.shipping import TokenizerPayload
from tokviz.cluster.sources import CorpusFile, corpus_sources, is_url
from tokviz.errors import TokvizError
from tokviz.formats import load

fsspec = pytest.importorskip("fsspec", reason='fsspec is not installed (pip install "tokviz[cluster]")')

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "resources" / "training.txt").read_bytes()
DEMO = ROOT / "resources" / "tokviz-demo.model"


@pytest.fixture
def memory():
    """memory://corpus/ holding a.txt, b.md (text), c.bin (not text) and sub/d.txt."""
    fs = fsspec.filesystem("memory")
    files = {"/corpus/a.txt": TEXT, "/corpus/b.md": TEXT[:5000], "/corpus/c.bin": b"\0\1",
             "/corpus/sub/d.txt": b"\xef\xbb\xbf" + TEXT[:3000]}
    for path, data in files.items():
        fs.pipe_file(path, data)
    yield fs
    fs.rm("/corpus", recursive=True)


def test_urls_and_paths_are_told_apart():
    assert is_url("s3://bucket/a.txt") and is_url("gs://b/x/*.txt") and is_url("hdfs://name:8020/x")
    assert not any(map(is_url, ["a.txt", "dir/a.txt", "/abs/a.txt", "file:///abs/a.txt", Path("s3:/x")]))


def test_local_paths_are_made_absolute_here_and_keep_their_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    for name in ("b.txt", "a.txt"):
        (tmp_path / "corpus" / name).write_bytes(TEXT)
    (tmp_path / "corpus" / "x.bin").write_bytes(b"\0")
    found = corpus_sources(["corpus", "corpus/a.txt"])
    assert found == [CorpusFile(os.path.join("corpus", n), str(tmp_path / "corpus" / n), len(TEXT)) for n in ("a.txt", "b.txt")]
    assert [f.remote for f in found] == [False, False]
    with pytest.raises(TokvizError, match=r"^on this machine \(the client\): missing.txt: no such file or folder$"):
        corpus_sources(["missing.txt"])
    with pytest.raises(TokvizError, match="on this machine .*corpus: is a folder"):
        corpus_sources(["corpus"], folders=False)


def test_urls_and_globs_are_listed_here(memory):
    names = [f.name for f in corpus_sources(["memory://corpus/"])]
    assert names == ["memory:///corpus/a.txt", "memory:///corpus/b.md", "memory:///corpus/sub/d.txt"]
    glob = corpus_sources(["memory://corpus/*.txt", "memory://corpus/a.txt"])
    assert [(f.url, f.size, f.remote) for f in glob] == [("memory:///corpus/a.txt", len(TEXT), True)]
    for url, said in (("memory://corpus/none/*.txt", "matches no file"),
                      ("memory://corpus/none.txt", "no such file or folder")):
        with pytest.raises(TokvizError, match="^" + re.escape(f"on this machine (the client): {url}: {said}")):
            corpus_sources([url])
    with pytest.raises(TokvizError, match="is a folder, expected a training file"):
        corpus_sources(["memory://corpus/"], folders=False)
    with pytest.raises(TokvizError, match="on this machine .*nosuchprotocol"):
        corpus_sources(["nosuchprotocol://x/a.txt"])


def test_ranges_and_reads_of_a_url_equal_a_local_files(memory, tmp_path):
    local = tmp_path / "a.txt"
    local.write_bytes(TEXT)
    [remote] = corpus_sources(["memory://corpus/a.txt"])
    for find in (training_cut, stats_cut(load(DEMO))):
        ranges = byte_ranges(remote, 700, find)
        assert len(ranges) > 5 and ranges == byte_ranges(local, 700, find)
        for start, end in ranges[:3] + ranges[-2:]:
            assert "".join(tasks.read_range(remote, start, end, block=97)) == \
                "".join(tasks.read_range(CorpusFile("a.txt", str(local), len(TEXT)), start, end))


def test_stats_of_a_url_range_equal_a_local_ranges(memory, tmp_path):
    """A URL's range is counted from a sparse local copy at its own offset: the byte-order mark at
    the file's start is dropped, the figures of every range are a local file's."""
    tok = load(DEMO)
    payload = TokenizerPayload.of(tok)
    data = b"\xef\xbb\xbf" + TEXT[:3000]
    local = tmp_path / "d.txt"
    local.write_bytes(data)
    [remote] = corpus_sources(["memory://corpus/sub/d.txt"])
    here = CorpusFile("d.txt", str(local), len(data))
    ranges = byte_ranges(here, 600, stats_cut(tok))
    assert len(ranges) > 2
    for start, end in ranges:
        a = tasks.stats_range(payload, remote, start, end, 2.5)
        b = tasks.stats_range(payload, here, start, end, 2.5)
        assert {k: a[k] for k in tasks.STAT_FIELDS} == {k: b[k] for k in tasks.STAT_FIELDS}
        assert np.array_equal(a["counts"], b["counts"]) and a["tokens"] > 0


def test_a_file_the_worker_does_not_see_is_named_with_the_hint(tmp_path):
    gone = CorpusFile("code.txt", str(tmp_path / "code.txt"), 10)
    with pytest.raises(tasks.WorkerReadError) as err:
        tasks.count_range(gone, 0, 10, {"pattern": "gpt2"})
    text = str(err.value)
    assert text.startswith(f"worker this process: cannot read {tmp_path / 'code.txt'}: no such file or folder")
    assert "the workers do not see this machine's files" in text and "s3://" in text
    (tmp_path / "code.txt").write_bytes(b"other text, other size")
    with pytest.raises(tasks.WorkerReadError, match="22 bytes here and 10 bytes on the client, not the same file"):
        tasks.count_range(gone, 0, 10, {"pattern": "gpt2"})


def test_the_tokenizer_as_bytes_gives_the_same_ids():
    import pickle

    from tokviz.analysis.health import with_added_tokens
    from tokviz.core import AddedToken

    from tokviz.train import train
    from tokviz.train.options import TrainOptions

    text = TEXT.decode("utf-8")
    demo = load(DEMO)
    trained = train("bytelevel-bpe", [ROOT / "resources" / "training.txt"], TrainOptions(vocab_size=400))
    edited = with_added_tokens(trained, [AddedToken(content=" the ", id=trained.vocab_size)])
    assert trained.vocab_size in edited.encode(text).ids
    for tok in (demo, trained, edited):
        tok.encode(text)  # (what the first encode builds stays here)
        payload = pickle.loads(pickle.dumps(TokenizerPayload.of(tok)))
        there = tasks.shipped_tokenizer(payload)
        assert there is tasks.shipped_tokenizer(payload)  # (unpickled once per process)
        assert there.encode(text).ids == tok.encode(text).ids
    assert trained.vocab_size in tasks.shipped_tokenizer(TokenizerPayload.of(edited)).encode(text).ids


def test_a_url_is_read_on_a_worker_and_labelled_by_its_folder():
    assert cli._corpus_label("s3://bucket/code/*.txt") == "code"
    assert cli._corpus_label("s3://bucket/code/") == "code"
    assert cli._corpus_label("gs://bucket/zh.txt") == "zh"
    assert cli._corpora(["s3://b/x/a.txt?versionId=1", "zh=s3://b/zh/*.txt"]) == {
        "a": ["s3://b/x/a.txt?versionId=1"], "zh": ["s3://b/zh/*.txt"]}
    args = cli.build_parser().parse_args(["stats", "-t", str(DEMO), "--corpus", "s3://bucket/corpus/*.txt"])
    assert cli._cluster_spec(args, ["s3://bucket/corpus/*.txt"]) == (None, 1)  # one worker process here
    assert cli._cluster_spec(args, ["corpus/a.txt"]) is None
    args = cli.build_parser().parse_args(["stats", "-t", str(DEMO), "--workers", "2"])
    assert cli._cluster_spec(args, ["s3://bucket/corpus/*.txt"]) == (None, 2)


def test_a_url_a_worker_may_not_read_names_the_worker(monkeypatch):
    """What the storage refuses a worker (wrong credentials there, no network) is said with the
    worker's address, the URL and the storage's own words."""
    class Refusing:
        def cat_file(self, path, start=None, end=None):
            raise PermissionError("The AWS Access Key Id you provided does not exist in our records.")

    monkeypatch.setattr(tasks, "filesystem", lambda url: (Refusing(), url.split("://")[1]))
    src = CorpusFile("s3://bucket/a.txt", "s3://bucket/a.txt", 100)
    for run in (lambda: tasks.count_range(src, 0, 100, {"pattern": "gpt2"}),
                lambda: tasks.stats_range(TokenizerPayload.of(load(DEMO)), src, 0, 100, 2.5)):
        with pytest.raises(tasks.WorkerReadError) as err:
            run()
        assert str(err.value) == ("worker this process: cannot read s3://bucket/a.txt: access denied (check the "
                                  "credentials the environment gives): The AWS Access Key Id you provided does not "
                                  "exist in our records.")
