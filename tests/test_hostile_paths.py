"""Paths that are not regular files (named pipes, devices, sockets, unreadable folders) given to
the API and to every command that reads a file: a TokvizError / exit 2 that names the file and
what it is, never a hang, never a Python traceback.  Each case runs under a 30 s alarm (API) or
timeout (CLI); a blocked open would fail the test instead of hanging the suite."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz
from tokviz import cli
from tokviz.errors import TokvizError
from tokviz.paths import check_folder, check_regular_file, open_regular, read_limited, read_stream_limited

from _shared import HANG_LIMIT_S, no_hang, without_permissions  # noqa: F401 (no_hang: used by pytestmark)

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "real"
TOKENIZER = REAL / "tortoise-tokenizer.json"  # a 4 KB HF BPE tokenizer.json
GPT2_FOLDER = REAL / "robbert-1000"  # vocab.json + merges.txt

pytestmark = [pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system"),
              pytest.mark.usefixtures("no_hang")]  # (a blocked call fails the test instead of hanging it)


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(tmp_path):
    path = tmp_path / "sock.json"
    if len(os.fsencode(path)) > 100:
        pytest.skip("temporary path too long for a unix socket")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(os.fspath(path))
    yield path
    sock.close()


def refused(call, path, *words) -> TokvizError:
    with pytest.raises(TokvizError) as info:
        call()
    message = str(info.value)
    assert os.fspath(path) in message, message
    for word in words:
        assert word in message, message
    return info.value


# ---- the shared helpers -------------------------------------------------------------------------

def test_kinds_are_named(fifo, unix_socket, tmp_path):
    refused(lambda: check_regular_file(fifo), fifo, "is a named pipe (FIFO), not a regular file")
    refused(lambda: check_regular_file(unix_socket), unix_socket, "is a socket")
    refused(lambda: check_regular_file("/dev/null"), "/dev/null", "is a character device")
    refused(lambda: check_regular_file(tmp_path), tmp_path, "is a folder")
    refused(lambda: check_regular_file(tmp_path / "nope"), tmp_path / "nope", "no such file")
    refused(lambda: check_folder(fifo), fifo, "named pipe", "expected a folder")
    broken = tmp_path / "broken"
    broken.symlink_to(tmp_path / "nothing")
    refused(lambda: check_regular_file(broken), broken, "broken symbolic link")


def test_open_regular_refuses_a_pipe_with_a_writer_waiting(fifo):
    # a writer holds the pipe open: a reader that got through would block on read, not on open
    guard = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    try:
        refused(lambda: open_regular(fifo), fifo, "named pipe")
    finally:
        os.close(writer)
        os.close(guard)


def test_symlink_to_a_regular_file_still_reads(tmp_path):
    link = tmp_path / "tokenizer.json"
    link.symlink_to(TOKENIZER)
    with open_regular(link) as fh:
        assert fh.read() == TOKENIZER.read_bytes()
    assert tokviz.load(link).vocab_size == tokviz.load(TOKENIZER).vocab_size


def test_read_limits(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 100)
    assert read_limited(path, 100) == b"x" * 100
    refused(lambda: read_limited(path, 99, hint="; stream it"), path, "more than the 99 bytes", "stream it")
    with open("/dev/zero", "rb") as endless:
        refused(lambda: read_stream_limited(endless, 1 << 20, "<stdin>"), "<stdin>", "more than 1.0 MB")


# ---- tokviz.load ------------------------------------------------------------------------------

def test_load_refuses_special_files(fifo, unix_socket, tmp_path):
    refused(lambda: tokviz.load(fifo), fifo, "named pipe (FIFO)")
    refused(lambda: tokviz.load(fifo, format="hf-json"), fifo, "named pipe (FIFO)")
    refused(lambda: tokviz.load(fifo, format="gguf"), fifo, "named pipe (FIFO)")
    refused(lambda: tokviz.load(unix_socket), unix_socket, "socket")
    refused(lambda: tokviz.load("/dev/zero"), "/dev/zero", "character device")
    refused(lambda: tokviz.load("/dev/null"), "/dev/null", "character device")
    link = tmp_path / "tokenizer.model"
    link.symlink_to(fifo)
    refused(lambda: tokviz.load(link), link, "named pipe (FIFO)")


@pytest.mark.parametrize("name", ["tokenizer.json", "tekken.json", "vocab.txt", "tokenizer.model"])
def test_pipe_inside_a_folder_is_named(tmp_path, name):
    os.mkfifo(tmp_path / name)
    refused(lambda: tokviz.load(tmp_path), tmp_path / name, "named pipe (FIFO)")


def test_gpt2_folder_with_a_pipe_for_merges(tmp_path):
    shutil.copy(GPT2_FOLDER / "vocab.json", tmp_path / "vocab.json")
    os.mkfifo(tmp_path / "merges.txt")
    refused(lambda: tokviz.load(tmp_path), tmp_path / "merges.txt", "named pipe (FIFO)")


def test_settings_file_that_is_a_pipe_is_refused(tmp_path):
    shutil.copy(GPT2_FOLDER / "vocab.json", tmp_path / "vocab.json")
    shutil.copy(GPT2_FOLDER / "merges.txt", tmp_path / "merges.txt")
    os.mkfifo(tmp_path / "tokenizer_config.json")
    refused(lambda: tokviz.load(tmp_path), tmp_path / "tokenizer_config.json", "named pipe (FIFO)")


def test_chat_template_that_is_a_pipe_is_a_problem_not_a_hang(tmp_path):
    shutil.copy(TOKENIZER, tmp_path / "tokenizer.json")
    os.mkfifo(tmp_path / "chat_template.jinja")
    tok = tokviz.load(tmp_path)
    assert "chat_template.jinja" in tok.chat_templates.problem and "named pipe" in tok.chat_templates.problem


def test_corpus_readers_refuse_special_files(fifo):
    from tokviz.analysis.corpus_stats import corpus_files
    from tokviz.core.streaming import encode_file
    from tokviz.train import train
    from tokviz.train.options import TrainOptions, read_corpus

    tok = tokviz.load(TOKENIZER)
    refused(lambda: corpus_files([fifo]), fifo, "named pipe (FIFO)")
    refused(lambda: encode_file(tok, fifo), fifo, "named pipe (FIFO)")
    refused(lambda: list(read_corpus([fifo])), fifo, "named pipe (FIFO)")
    refused(lambda: train("bpe", [fifo], TrainOptions(vocab_size=300)), fifo, "named pipe (FIFO)")
    refused(lambda: corpus_files(["/dev/zero"]), "/dev/zero", "character device")


# ---- unreadable folders -----------------------------------------------------------------------

@pytest.mark.slow
def test_file_in_an_unreadable_folder(tmp_path):
    prefix = without_permissions()
    if prefix is None:
        pytest.skip("running as root without setpriv: permissions do not apply")
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(TOKENIZER, locked / "tokenizer.json")
    (locked / "corpus.txt").write_text("some text\n")
    corpus_folder = tmp_path / "corpus"  # (a folder corpus holding a link into the locked folder)
    corpus_folder.mkdir()
    (corpus_folder / "a.txt").write_text("more text\n")
    (corpus_folder / "b.txt").symlink_to(locked / "corpus.txt")
    if os.geteuid() == 0:
        os.chown(locked, 65534, 65534)  # (root without its capabilities is then an outsider)
    locked.chmod(0o700 if os.geteuid() == 0 else 0o000)
    try:
        script = ("import tokviz, sys\n"
                  "try:\n    tokviz.load(sys.argv[1])\n"
                  "except tokviz.TokvizError as exc:\n    print(exc)\n")
        for target in (locked / "tokenizer.json", locked):
            done = _run(prefix + [sys.executable, "-c", script, os.fspath(target)])
            assert done.returncode == 0 and "permission denied" in done.stdout, done
            assert os.fspath(locked) in done.stdout
        done = _run(prefix + [sys.executable, "-m", "tokviz", "encode", "-t", os.fspath(TOKENIZER),
                              os.fspath(locked / "corpus.txt")])
        assert done.returncode == 2 and "permission denied" in done.stderr and "corpus.txt" in done.stderr, done
        for corpus in (locked / "corpus.txt", corpus_folder):
            done = _run(prefix + [sys.executable, "-m", "tokviz", "stats", "-t", os.fspath(TOKENIZER), "--corpus",
                                  os.fspath(corpus)])
            assert done.returncode == 2 and "permission denied" in done.stderr and "Traceback" not in done.stderr, done
    finally:
        locked.chmod(0o700)
        if os.geteuid() == 0:
            os.chown(locked, 0, 0)


# ---- the commands -----------------------------------------------------------------------------

def _run(argv, stdin=subprocess.DEVNULL, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.fspath(ROOT), os.environ.get("PYTHONPATH", "")]),
               QT_QPA_PLATFORM="offscreen")
    return subprocess.run(argv, stdin=stdin, capture_output=True, text=True, timeout=HANG_LIMIT_S, env=env, **kw)


def tokviz_cli(*args, **kw) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "tokviz", *map(os.fspath, args)], **kw)


def assert_clean_refusal(done: subprocess.CompletedProcess, path, *words):
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("tokviz: error: ") and os.fspath(path) in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


@pytest.mark.slow
def test_commands_refuse_a_pipe(tmp_path, fifo):
    tok = TOKENIZER
    out = tmp_path / "trained.json"
    for args in (
        ["info", "-t", fifo],
        ["encode", "-t", fifo, "-"],
        ["encode", "-t", tok, fifo],
        ["compare", "-t", tok, "-t", GPT2_FOLDER, fifo],
        ["roundtrip", "-t", tok, fifo],
        ["robustness", "-t", tok, fifo],
        ["health", "-t", tok, "--corpus", fifo],
        ["stats", "-t", tok, "--corpus", fifo],
        ["stats", "-t", tok, "--corpus", f"label={fifo}"],
        ["fairness", "-t", tok, fifo],
        ["chat", "-t", tok, fifo],
        ["overlap", "-t", fifo, "-t", tok],
        ["train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-o", out, fifo],
    ):
        done = tokviz_cli(*args)
        assert_clean_refusal(done, fifo, "named pipe (FIFO)")
    assert not out.exists()


@pytest.mark.slow
def test_commands_refuse_devices(tmp_path):
    for args, path in (
        (["encode", "-t", TOKENIZER, "/dev/zero"], "/dev/zero"),
        (["encode", "-t", TOKENIZER, "/dev/urandom"], "/dev/urandom"),
        (["stats", "-t", TOKENIZER, "--corpus", "/dev/zero"], "/dev/zero"),
        (["info", "-t", "/dev/null"], "/dev/null"),
        (["train", "--model", "bytelevel-bpe", "--vocab-size", "300", "-o", tmp_path / "t.json", "/dev/zero"],
         "/dev/zero"),
    ):
        assert_clean_refusal(tokviz_cli(*args), path, "character device")


def test_commands_refuse_a_socket(unix_socket):
    assert_clean_refusal(tokviz_cli("encode", "-t", TOKENIZER, unix_socket), unix_socket, "is a socket")
    assert_clean_refusal(tokviz_cli("info", "-t", unix_socket), unix_socket, "is a socket")


def test_standard_input_and_symlinks_still_work(tmp_path):
    text = tmp_path / "text.txt"
    text.write_text("hello tokviz world\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(text)
    expected = " ".join(map(str, tokviz.load(TOKENIZER).encode(text.read_text(encoding="utf-8")).ids))
    from_file = tokviz_cli("encode", "-t", TOKENIZER, link)
    assert from_file.returncode == 0 and from_file.stdout.strip() == expected, from_file
    piped = tokviz_cli("encode", "-t", TOKENIZER, "-", input=text.read_text(encoding="utf-8"), stdin=None)
    assert piped.returncode == 0 and piped.stdout.strip() == expected, piped


def test_text_input_limit(tmp_path, monkeypatch, capsys):
    path = tmp_path / "text.txt"
    path.write_text("hello " * 50, encoding="utf-8")
    monkeypatch.setattr(cli, "MAX_TEXT_INPUT", 100)
    assert cli.main(["encode", "-t", os.fspath(TOKENIZER), os.fspath(path)]) == 2
    err = capsys.readouterr().err
    assert os.fspath(path) in err and "more than the 100 bytes" in err and "--corpus" in err

    class EndlessStdin:
        buffer = open("/dev/zero", "rb")

    monkeypatch.setattr(sys, "stdin", EndlessStdin)
    try:
        assert cli.main(["encode", "-t", os.fspath(TOKENIZER), "-"]) == 2
    finally:
        EndlessStdin.buffer.close()
    assert "<stdin>: more than 100 bytes of input" in capsys.readouterr().err


def test_text_too_large_for_the_memory_available(tmp_path, monkeypatch, capsys):
    import tokviz.core.limits as limits

    path = tmp_path / "text.txt"
    path.write_text("hello world\n" * 10_000, encoding="utf-8")  # 120 KB: about 2.9 MB to encode whole
    monkeypatch.setattr(limits, "available_memory", lambda: 1 << 20)  # (the 4 KB tokenizer still fits)
    assert cli.main(["encode", "-t", os.fspath(TOKENIZER), os.fspath(path)]) == 2
    err = capsys.readouterr().err
    assert os.fspath(path) in err and "encoding it whole needs about" in err and "refused before reading" in err


# ---- text in other Unicode encodings ------------------------------------------------------------

@pytest.mark.parametrize("codec, name", [("utf-32", "UTF-32"), ("utf-32-be", "UTF-32"), ("utf-16", "UTF-16"),
                                         ("utf-16-be", "UTF-16")])
def test_other_unicode_encodings_are_named(tmp_path, codec, name):
    from tokviz.formats._util import unicode_encoding

    data = "[PAD]\n[UNK]\nhello\nworld\nfoo\nbar\nbaz\n".encode(codec)
    bom = codec in ("utf-32", "utf-16")
    assert unicode_encoding(data) == name
    vocab = tmp_path / "vocab.txt"
    vocab.write_bytes(data)
    refused(lambda: tokviz.load(vocab), vocab, f"the file is {name} text", f"iconv -f {name}")
    if bom:  # (without a byte-order mark such a text is valid UTF-8, NULs and all: encode takes it)
        text = tmp_path / "text.txt"
        text.write_bytes("hello world".encode(codec))
        assert_clean_refusal(tokviz_cli("encode", "-t", TOKENIZER, text), text, f"the file is {name} text")


def test_utf8_text_is_not_taken_for_utf16():
    from tokviz.formats._util import unicode_encoding

    assert unicode_encoding("hello world, plain text\n".encode()) is None
    assert unicode_encoding("日本語のテキスト".encode()) is None
    assert unicode_encoding(b"") is None
