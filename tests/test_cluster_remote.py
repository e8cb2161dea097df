"""tokviz on a Dask cluster as a real one is: a scheduler and workers started as processes of their
own (`dask scheduler`, `dask worker --nworkers 2`), the workers unable to see the client's folder
(they run in a mount namespace of their own with an empty tmpfs over it), and the corpus in S3 (a
local moto server, the credentials in the environment).  From the client's folder, with relative
paths, `tokviz stats` prints the figures and `tokviz train` writes the file that one machine does
on the same text; a local corpus the workers cannot see, a URL that does not exist, wrong
credentials and a worker killed mid-run are said or survived.

Needs root (unshare -m, mount -t tmpfs), Dask distributed, s3fs and moto (the test extra has
them); skipped, with the reason, where any is missing.  All slow (CI runs -m slow)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tokviz import cli
from tokviz.analysis.corpus_stats import corpus_stats
from tokviz.formats import load, save
from tokviz.train import train
from tokviz.train.options import TrainOptions

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [ROOT / "resources" / "training.txt", ROOT / "resources" / "sample.txt",
           *sorted((ROOT / "resources" / "parallel").glob("*.txt")), ROOT / "tests" / "data" / "real" / "texts.txt"]
BUCKET = "corpora"
TIMING = {"seconds", "mb_per_second"}
START_TIMEOUT = 180  # seconds for a process to come up on a loaded machine


def _needs(module: str, why: str):
    if os.environ.get("CI") == "true":
        return __import__(module)
    return pytest.importorskip(module, reason=why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on port {port} within {timeout} s")


def _stop(proc: subprocess.Popen | None) -> None:
    """Ends a process started with start_new_session=True and all it started (its process group)."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 20)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _moto_server(extra_env: dict | None = None):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            env={**os.environ, **(extra_env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_port(port, proc, "moto server")
    except BaseException:
        _stop(proc)
        raise
    return proc, f"http://127.0.0.1:{port}"


def _s3_env(endpoint: str, key: str = "testing", secret: str = "testing") -> dict:
    return {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret, "AWS_ENDPOINT_URL_S3": endpoint,
            "AWS_ENDPOINT_URL": endpoint, "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1"}


def _fresh_filesystems() -> None:
    """s3fs keeps one file system per set of options: a change of the environment's credentials
    needs new ones."""
    import fsspec

    fsspec.AbstractFileSystem.clear_instance_cache()
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


def _big_text() -> str:
    """About 3 MB of shipped text: many 16 KB ranges, so that tasks still run when a worker dies."""
    text = "".join(f.read_text(encoding="utf-8") for f in SHIPPED)
    return text * (3_000_000 // len(text.encode("utf-8")) + 1)


@pytest.fixture(scope="module")
def s3():
    """A moto S3 server holding s3://corpora/corpus/*.txt (the shipped texts) and big/big.txt;
    the client's environment points at it while the module runs."""
    _needs("s3fs", 's3fs is not installed (pip install "tokviz[cluster]")')
    _needs("moto", "moto is not installed (the test extra has it)")
    boto3 = _needs("boto3", "boto3 is not installed (moto needs it)")
    proc, endpoint = _moto_server()
    saved = dict(os.environ)
    try:
        env = _s3_env(endpoint)
        os.environ.update(env)
        _fresh_filesystems()
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                              aws_secret_access_key="testing")
        client.create_bucket(Bucket=BUCKET)
        for f in SHIPPED:
            client.put_object(Bucket=BUCKET, Key=f"corpus/{f.name}", Body=f.read_bytes())
        client.put_object(Bucket=BUCKET, Key="big/big.txt", Body=_big_text().encode("utf-8"))
        yield {"endpoint": endpoint, "env": env}
    finally:
        os.environ.clear()
        os.environ.update(saved)
        _stop(proc)


@pytest.fixture(scope="module")
def client_dir(tmp_path_factory):
    """The client's folder: a tokenizer (one.json), the corpus as local files (corpus/, code.txt)
    and big.txt, all the same bytes as in S3."""
    d = tmp_path_factory.mktemp("client")
    save(train("bytelevel-bpe", SHIPPED, TrainOptions(vocab_size=600)), d / "one.json")
    (d / "corpus").mkdir()
    for f in SHIPPED:
        shutil.copyfile(f, d / "corpus" / f.name)
    shutil.copyfile(SHIPPED[0], d / "code.txt")
    (d / "big.txt").write_text(_big_text(), encoding="utf-8")
    return d


def _unshare_works(folder: Path) -> str | None:
    """None when a process here can make a mount namespace and mount a tmpfs over `folder` (what
    hides the client's folder from the workers), else why not."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = folder / "probe"
    probe.write_text("x")
    try:
        run = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs none '{folder}' && test ! -e '{probe}'"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare -m failed ({exc})"
    finally:
        probe.unlink()
    if run.returncode:
        return f"unshare -m / mount -t tmpfs is not permitted here ({run.stderr.strip() or run.returncode})"
    return None


@pytest.fixture(scope="module")
def scheduler(client_dir, s3):
    """A scheduler and `dask worker --nworkers 2` started as processes of their own; the workers in
    a mount namespace where the client's folder is an empty tmpfs, with the S3 credentials."""
    _needs("distributed", 'Dask distributed is not installed (pip install "tokviz[cluster]")')
    why = _unshare_works(client_dir)
    if why:
        pytest.skip(why)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, **s3["env"], "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    procs = []
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--dashboard-address", ":0", "--no-show"],
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        _wait_port(port, procs[0], "dask scheduler")
        worker = (f"mount -t tmpfs none '{client_dir}' && exec '{sys.executable}' -m distributed.cli.dask_worker "
                  f"{address} --nworkers 2 --nthreads 1 --no-dashboard --host 127.0.0.1")
        log = open(client_dir.parent / "workers.log", "w")
        procs.append(subprocess.Popen(["unshare", "-m", "sh", "-c", worker], env=env, cwd="/",
                                      stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        from distributed import Client

        with Client(address, timeout=f"{START_TIMEOUT}s") as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
            # the workers import this tree's tokviz, and do not see the client's folder
            assert set(client.run(lambda: __import__("tokviz").__file__).values()) == {str(ROOT / "tokviz" / "__init__.py")}
            assert not any(client.run(os.path.exists, str(client_dir / "one.json")).values())
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _figures(out: str) -> dict:
    result = json.loads(out)
    for corpus in result["corpus"].values():
        for key in TIMING | {"files"}:
            corpus.pop(key)
    return result


# ---- what the "done when" asks ---------------------------------------------------------------


def test_stats_from_the_clients_folder_with_relative_paths_and_s3(scheduler, client_dir, monkeypatch, capsys):
    monkeypatch.chdir(client_dir)
    code, out, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", "code=corpus/", "--json")
    assert code == 0, err
    alone = _figures(out)
    code, out, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", f"code=s3://{BUCKET}/corpus/*.txt", "--json",
                          "--scheduler", scheduler)
    assert code == 0, err
    there = json.loads(out)
    assert there["corpus"]["code"]["files"] == [f"s3://{BUCKET}/corpus/{f.name}" for f in
                                                sorted(SHIPPED, key=lambda f: f.name)]
    assert _figures(out) == alone
    assert alone["corpus"]["code"]["tokens"] > 0
    # the text report's figures too (but the timing)
    code, out, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", f"s3://{BUCKET}/corpus/", "--scheduler", scheduler)
    assert code == 0, err
    code, out_alone, _ = _cli(capsys, "stats", "-t", "one.json", "--corpus", "corpus/")
    strip = (lambda text: [line.split(" in ")[0] if " MB/s" in line else line for line in text.splitlines()])
    assert strip(out) == strip(out_alone)


@pytest.mark.parametrize("model", ["bytelevel-bpe", "unigram"])
def test_train_from_the_clients_folder_writes_the_same_file(scheduler, client_dir, monkeypatch, capsys, model):
    monkeypatch.chdir(client_dir)
    files = sorted(SHIPPED, key=lambda f: f.name)
    common = ["--model", model, "--vocab-size", "2000", "-q", "--force"]
    code, _, err = _cli(capsys, "train", *(f"corpus/{f.name}" for f in files), *common, "-o", f"alone-{model}.json")
    assert code == 0, err
    code, _, err = _cli(capsys, "train", f"s3://{BUCKET}/corpus/*.txt", *common, "-o", f"cluster-{model}.json",
                        "--scheduler", scheduler)
    assert code == 0, err
    assert (client_dir / f"cluster-{model}.json").read_bytes() == (client_dir / f"alone-{model}.json").read_bytes()


def test_an_edited_tokenizer_is_measured_as_it_is_in_memory(scheduler, client_dir, s3):
    """The tokenizer goes as its bytes: the workers, which see no file of it, count with the
    edited one, and give one machine's figures."""
    from tokviz.analysis.health import with_added_tokens
    from tokviz.cluster import Cluster, corpus_stats_on
    from tokviz.core import AddedToken

    tok = load(client_dir / "one.json")
    edited = with_added_tokens(tok, [AddedToken(content=" the ", id=tok.vocab_size)])
    with Cluster(scheduler, timeout=60) as cluster:
        there = corpus_stats_on(cluster, edited, [f"s3://{BUCKET}/corpus/*.txt"], range_bytes=2048)
    alone = corpus_stats(edited, sorted(client_dir.joinpath("corpus").iterdir()))
    assert {k: v for k, v in there.as_dict().items() if k not in TIMING | {"files"}} == \
        {k: v for k, v in alone.as_dict().items() if k not in TIMING | {"files"}}
    assert np.array_equal(there.counts, alone.counts) and there.counts[tok.vocab_size] > 0


# ---- what cannot be read, and where --------------------------------------------------------------------


def test_a_local_corpus_the_workers_cannot_see_names_the_worker_and_the_file(scheduler, client_dir, monkeypatch,
                                                                             capsys):
    monkeypatch.chdir(client_dir)
    code, _, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", "code.txt", "--scheduler", scheduler)
    assert code == 2
    assert "worker tcp://127.0.0.1:" in err and f"cannot read {client_dir / 'code.txt'}" in err
    assert "the workers do not see this machine's files" in err and "s3://" in err
    code, _, err = _cli(capsys, "train", "code.txt", "--model", "bytelevel-bpe", "--vocab-size", "300", "-q",
                        "-o", "never.json", "--scheduler", scheduler)
    assert code == 2 and "worker tcp://127.0.0.1:" in err and str(client_dir / "code.txt") in err
    assert not (client_dir / "never.json").exists()


def test_paths_are_resolved_and_checked_on_the_client(scheduler, client_dir, monkeypatch, capsys):
    monkeypatch.chdir(client_dir)
    code, _, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", "missing.txt", "--scheduler", scheduler)
    assert code == 2 and "on this machine (the client): missing.txt: no such file or folder" in err


def test_a_url_that_does_not_exist(scheduler, client_dir, monkeypatch, capsys):
    monkeypatch.chdir(client_dir)
    for url, said in ((f"s3://{BUCKET}/nothing/*.txt", "matches no file"),
                      (f"s3://{BUCKET}/corpus/nothing.txt", "no such file or folder"),
                      ("s3://no-such-bucket/corpus/a.txt", "no such file or folder")):
        code, _, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", url, "--scheduler", scheduler)
        assert code == 2, url
        assert f"on this machine (the client): {url}: {said}" in err, err
        code, _, err = _cli(capsys, "train", url, "--model", "unigram", "--vocab-size", "300", "-q", "-o", "never.json",
                            "--scheduler", scheduler)
        assert code == 2 and url in err and said in err
    assert not (client_dir / "never.json").exists()


def test_wrong_credentials_are_said(scheduler, client_dir, monkeypatch, capsys):
    """An S3 server that checks credentials (moto with auth on), given keys it does not know."""
    proc, endpoint = _moto_server({"INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    try:
        for name, value in _s3_env(endpoint, "AKIAWRONGWRONGWRONG", "wrong").items():
            monkeypatch.setenv(name, value)
        _fresh_filesystems()
        monkeypatch.chdir(client_dir)
        code, _, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", f"s3://{BUCKET}/corpus/*.txt",
                            "--scheduler", scheduler)
        assert code == 2
        assert f"on this machine (the client): s3://{BUCKET}/corpus/*.txt: access denied" in err
        assert "Access Key Id you provided does not exist" in err
    finally:
        _stop(proc)
        monkeypatch.undo()
        _fresh_filesystems()


@pytest.mark.parametrize("workers", [["--workers", "2"], []], ids=["workers-2", "no-cluster-given"])
def test_worker_processes_started_here_read_s3_too(s3, client_dir, monkeypatch, capsys, workers):
    """--workers N, or no cluster at all for a URL (one worker process): the worker processes
    started here get the environment's credentials."""
    _needs("distributed", 'Dask distributed is not installed (pip install "tokviz[cluster]")')
    monkeypatch.chdir(client_dir)
    code, out, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", "code=corpus/", "--json")
    assert code == 0, err
    alone = _figures(out)
    code, out, err = _cli(capsys, "stats", "-t", "one.json", "--corpus", f"code=s3://{BUCKET}/corpus/", "--json",
                          *workers)
    assert code == 0, err
    assert _figures(out) == alone


def test_cancel_stops_the_cluster_tasks(scheduler, client_dir, s3):
    from tokviz.cluster import Cluster, corpus_stats_on
    from tokviz.errors import Cancelled

    stop = threading.Event()
    with Cluster(scheduler, timeout=60) as cluster:
        with pytest.raises(Cancelled):
            corpus_stats_on(cluster, load(client_dir / "one.json"), [f"s3://{BUCKET}/big/big.txt"], cancel=stop,
                            progress=lambda done, total: stop.set() if 0 < done < total else None, range_bytes=16 << 10)
        assert stop.is_set()

        def tokviz_tasks(dask_scheduler):
            return sum(1 for ts in dask_scheduler.tasks.values() if "stats_range" in str(ts.key)
                       or "tokviz-combine" in str(ts.key))

        deadline = time.monotonic() + START_TIMEOUT
        while cluster.client.run_on_scheduler(tokviz_tasks) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert cluster.client.run_on_scheduler(tokviz_tasks) == 0


# ---- a worker killed mid-run -------------------------------------------------------------------------


def test_a_worker_killed_mid_run_changes_nothing(scheduler, client_dir, s3):
    """Statistics of 3 MB in S3, in 16 KB ranges; one worker process killed once some ranges are
    done: Dask runs its tasks again elsewhere and the restarted worker fetches the tokenizer's
    bytes from the other; the figures are one machine's."""
    from tokviz.cluster import Cluster, corpus_stats_on

    tok = load(client_dir / "one.json")
    with Cluster(scheduler, timeout=60) as cluster:
        client = cluster.client
        victim, pid = sorted(client.run(os.getpid).items())[0]
        killed = threading.Event()

        def progress(done, total):
            if not killed.is_set() and 0 < done < total:
                killed.set()
                os.kill(pid, signal.SIGKILL)

        there = corpus_stats_on(cluster, tok, [f"s3://{BUCKET}/big/big.txt"], progress=progress, range_bytes=16 << 10)
        assert killed.is_set(), "the worker was not killed while tasks ran"
        deadline = time.monotonic() + START_TIMEOUT  # (the scheduler lets the dead one go; its nanny starts
        while victim in client.scheduler_info()["workers"] and time.monotonic() < deadline:  # a new one)
            time.sleep(0.2)
        assert victim not in client.scheduler_info()["workers"]
        client.wait_for_workers(2, timeout=START_TIMEOUT)
    alone = corpus_stats(tok, [client_dir / "big.txt"])
    assert {k: v for k, v in there.as_dict().items() if k not in TIMING | {"files"}} == \
        {k: v for k, v in alone.as_dict().items() if k not in TIMING | {"files"}}
    assert np.array_equal(there.counts, alone.counts)
