"""The hostile-file corpus (tests/hostile, listed in its MANIFEST.json): every broken or hostile
file gives a TokvizError naming the file and the reason, and nothing else happens: no other
exception, no write, no code run, no huge allocation.  Files of many GB, pipes and symlink loops
are made here (sparse or in tmp_path) instead of being committed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz
from tokviz import TokvizError
from tokviz.core import limits
from tokviz.gui.window import files

from _shared import TOKENIZERS

HOSTILE = Path(__file__).resolve().parent / "hostile"
MANIFEST = json.loads((HOSTILE / "MANIFEST.json").read_text(encoding="utf-8"))
CATEGORIES = {
    "truncated", "malformed JSON", "wrong types", "giant numbers", "cyclic merges", "ids out of range",
    "duplicate ids", "invalid UTF-8", "invalid base64", "protobuf", "compressed", "code", "binary",
}
TEXT_HEAD = 64 * 1024  # what big-file mode reads of a text file first
GB = 2**30


def open_case(entry: dict) -> None:
    """Open a corpus file the way the manifest says (raises what tokviz raises)."""
    path = HOSTILE / entry["file"]
    if entry["open"] == "tokenizer":
        tokviz.load(path, pattern=entry.get("pattern"))
    elif entry["open"] == "gpt2-pair":
        tokviz.load(path.parent)
    elif entry["open"] == "text":
        files.read_text_file(path)
    else:
        raise AssertionError(f"unknown way to open: {entry['open']}")


def assert_names_file_and_reason(err: TokvizError, path: Path, words) -> None:
    assert err.path is not None, f"the error does not carry the file: {err}"
    assert os.path.samefile(err.path, path), f"the error names {err.path}, not {path}"
    assert str(path) in str(err), f"the message does not name the file: {err}"
    for word in words:
        assert word.lower() in str(err).lower(), f"{word!r} is not in the message: {err}"


def test_manifest_lists_every_file_and_category():
    listed = {HOSTILE / e["file"] for e in MANIFEST}
    assert len(MANIFEST) >= 50 and len(listed) == len(MANIFEST)
    assert {e["category"] for e in MANIFEST} == CATEGORIES
    for e in MANIFEST:
        assert (HOSTILE / e["file"]).is_file(), e["file"]
        assert e["words"] and e["what"] and e["open"] in ("tokenizer", "gpt2-pair", "text")
        for name in e.get("companions", []):
            assert (HOSTILE / e["file"]).with_name(name).is_file()
    on_disk = {p for p in HOSTILE.rglob("*") if p.is_file() and p.name not in ("MANIFEST.json", "make_corpus.py")}
    companions = {(HOSTILE / e["file"]).with_name(n) for e in MANIFEST for n in e.get("companions", [])}
    assert on_disk == listed | companions, "files in tests/hostile that the manifest does not list"
    sizes = [p.stat().st_size for p in on_disk]
    assert max(sizes) < 200_000 and sum(sizes) < 2_000_000


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_hostile_file_gives_clear_error(entry):
    path = HOSTILE / entry["file"]
    with pytest.raises(TokvizError) as info:
        open_case(entry)
    assert_names_file_and_reason(info.value, path, entry["words"])
    if entry["open"] == "text":  # big-file mode reads the start of the file: the same refusal
        with pytest.raises(TokvizError) as info:
            files.read_text_head(path, TEXT_HEAD)
        assert_names_file_and_reason(info.value, path, entry["words"])


@pytest.mark.parametrize("entry", [e for e in MANIFEST if e["open"] == "text"], ids=lambda e: e["file"])
def test_hostile_text_file_is_text_when_dropped(entry):
    """A dropped binary or compressed file is offered to the text reader, which then says what it is."""
    assert files.classify_path(HOSTILE / entry["file"]) == files.TEXT


@pytest.mark.slow
def test_real_tokenizers_still_load():
    """The checks refuse nothing real: each shared tokenizer loads and round-trips."""
    found = [p for p in (TOKENIZERS / "cl100k_base.tiktoken", TOKENIZERS / "qwen2.5" / "tokenizer.json",
                         TOKENIZERS / "qwen2.5" / "vocab.json", TOKENIZERS / "llama3", TOKENIZERS / "bert-minilm" / "vocab.txt",
                         TOKENIZERS / "bert-minilm" / "tokenizer.json", TOKENIZERS / "sentencepiece" / "unigram_8k.model",
                         TOKENIZERS / "sentencepiece" / "bpe_8k.model") if p.exists()]
    if not found:
        pytest.skip(f"shared tokenizers not found: {TOKENIZERS}")
    for path in found:
        tok = tokviz.load(path)
        assert tok.decode(tok.encode("Hello, world").ids).strip().lower() == "hello, world", path


# ---- files of many GB (sparse: no disk used), pipes, devices, links -----------------------------------


def sparse(path: Path, size: int, start: bytes = b"") -> Path:
    with open(path, "wb") as fh:
        fh.write(start)
        fh.truncate(size)
    return path


@pytest.mark.parametrize("name", ["tokenizer.json", "cl100k_base.tiktoken", "huge.model", "vocab.txt", "minbpe.model"])
def test_many_gb_tokenizer_is_refused_before_reading(tmp_path, name):
    start = b"minbpe v1\n" if name == "minbpe.model" else b"[PAD]\n[UNK]\n" if name == "vocab.txt" else b""
    path = sparse(tmp_path / name, 5 * GB, start)
    with pytest.raises(TokvizError) as info:
        tokviz.load(path)
    assert_names_file_and_reason(info.value, path, ["5.0 GB", "too large"])


def test_tokenizer_larger_than_free_memory_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 100 * 2**20)
    path = sparse(tmp_path / "tokenizer.json", 50 * 2**20, b"{")
    with pytest.raises(TokvizError) as info:
        tokviz.load(path)
    assert_names_file_and_reason(info.value, path, ["50.0 MB", "memory", "100.0 MB is available", "refused before reading"])


def test_many_gb_text_of_zeros_is_refused(tmp_path):
    path = sparse(tmp_path / "zeros.txt", 5 * GB)
    for read in (files.read_text_file, lambda p: files.read_text_head(p, TEXT_HEAD)):
        with pytest.raises(TokvizError) as info:
            read(path)
        assert str(path) in str(info.value)
    with pytest.raises(TokvizError, match="too large"):
        files.read_text_file(path)


def test_text_too_large_for_memory_is_refused_before_streaming(tmp_path, monkeypatch):
    """Big-file mode keeps every token of the whole file: one that cannot fit is refused at once."""
    monkeypatch.setattr(limits, "available_memory", lambda: 4 * GB)
    path = sparse(tmp_path / "log.txt", 5 * GB, b"a real text file\n" * 100)
    with pytest.raises(TokvizError) as info:
        files.read_text_head(path, TEXT_HEAD)
    assert_names_file_and_reason(info.value, path, ["5.0 GB", "encoding the whole file", "4.0 GB is available"])


def test_big_text_that_fits_streams_from_its_head(tmp_path, monkeypatch):
    """A text file over MAX_TEXT_BYTES that fits in memory opens in big-file mode: only its head is read."""
    monkeypatch.setattr(limits, "available_memory", lambda: 64 * GB)
    path = sparse(tmp_path / "big.txt", 3 * GB, b"hello world\n" * 10_000)
    head = files.read_text_head(path, 1000)
    assert head.startswith("hello world\n") and len(head) == 1000
    with pytest.raises(TokvizError, match="too large"):
        files.read_text_file(path)


def test_text_whose_nul_bytes_come_late_is_refused_as_binary(tmp_path, monkeypatch):
    """A file whose head is text and whose rest is NUL bytes (a disk image, a sparse file): whole
    files are refused on reading, big files when streaming reaches the first NUL."""
    from tokviz.core.streaming import encode_file
    from tokviz.defaults import default_tokenizer_path

    small = tmp_path / "late.txt"
    small.write_bytes(b"words and more words\n" * 30_000 + b"\x00" * 10 + b"tail\n")
    with pytest.raises(TokvizError) as info:
        files.read_text_file(small)
    assert_names_file_and_reason(info.value, small, ["binary", "NUL byte at offset 630000"])

    monkeypatch.setattr(limits, "available_memory", lambda: 64 * GB)
    big = sparse(tmp_path / "big.txt", 3 * GB, b"hello world\n" * 10_000)
    assert files.read_text_head(big, 1000).startswith("hello world")
    with pytest.raises(TokvizError) as info:
        encode_file(tokviz.load(default_tokenizer_path()), big)
    assert_names_file_and_reason(info.value, big, ["binary", "NUL byte at offset 120000"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_is_refused_without_blocking(tmp_path):
    for name in ("tokenizer.json", "cl100k_base.tiktoken", "notes.txt"):
        fifo = tmp_path / name
        os.mkfifo(fifo)
        with pytest.raises(TokvizError, match="not a regular file"):
            # a writer is kept open, so that a reader that tried to read would wait forever
            with PipeWriter(fifo):
                if name == "notes.txt":
                    files.read_text_file(fifo)
                else:
                    tokviz.load(fifo)


class PipeWriter:
    """Holds the pipe's write end open (non-blocking) while a reader is tried."""

    def __init__(self, fifo: Path):
        self.fifo = fifo

    def __enter__(self):
        self.reader_guard = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)
        os.close(self.reader_guard)
        return False


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_endless_device_is_refused(tmp_path):
    link = tmp_path / "tokenizer.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(TokvizError, match="not a regular file"):
        tokviz.load(link)
    with pytest.raises(TokvizError, match="not a regular file"):
        files.read_text_file("/dev/zero")


def test_symlink_loop_is_refused(tmp_path):
    a, b = tmp_path / "tokenizer.json", tmp_path / "other.json"
    a.symlink_to(b)
    b.symlink_to(a)
    for read in (tokviz.load, files.read_text_file, lambda p: files.read_text_head(p, TEXT_HEAD)):
        with pytest.raises(TokvizError) as info:
            read(a)
        assert info.value.path == str(a) and str(a) in str(info.value)
        assert "loop of symbolic links" in str(info.value)


def test_folder_holding_a_link_loop_is_refused(tmp_path):
    (tmp_path / "tokenizer.json").symlink_to(tmp_path / "tokenizer.json")
    with pytest.raises(TokvizError) as info:
        tokviz.load(tmp_path)
    assert str(tmp_path) in str(info.value)


# ---- nothing written, no code run, no huge allocation ----------------------------------------------

def child_env() -> dict:
    """The environment of a child Python that imports this checkout's tokviz (whatever is installed)."""
    root = str(Path(tokviz.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            "PYTHONDONTWRITEBYTECODE": "1"}


AUDIT_SCRIPT = r'''
import json, os, sys
from pathlib import Path

FORBIDDEN = {"os.remove", "os.unlink", "os.rename", "os.replace", "os.mkdir", "os.rmdir", "os.symlink", "os.link",
             "os.truncate", "os.chmod", "os.chown", "shutil.rmtree", "shutil.copyfile", "shutil.move",
             "pickle.find_class", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
             "os.spawn", "os.fork", "os.forkpty", "ctypes.dlopen", "socket.connect", "tempfile.mkstemp", "tempfile.mkdtemp"}
NEVER_RUN = ("tokviz must never", "__import__('os')", "exec(open(")  # strings from the hostile files
events = []
armed = [False]

def hook(event, args):
    if not armed[0]:
        return
    if event == "open":
        mode = args[1] if len(args) > 1 else "r"
        flags = args[2] if len(args) > 2 else 0
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
        if writes:
            events.append(f"open for writing: {args[0]!r} {mode!r}")
    elif event in FORBIDDEN:
        events.append(f"{event}: {args!r:.200}")
    elif event in ("exec", "compile") and args and isinstance(args[0], (bytes, str)):
        source = args[0] if isinstance(args[0], str) else args[0].decode("latin-1")
        if any(s in source for s in NEVER_RUN):
            events.append(f"{event} of file content: {source!r:.120}")

import tokviz
from tokviz.gui.window import files

hostile = Path(sys.argv[1])
manifest = json.loads((hostile / "MANIFEST.json").read_text(encoding="utf-8"))
real = [Path(p) for p in sys.argv[2:]]
sys.addaudithook(hook)
armed[0] = True
outcomes = {}
for entry in manifest:
    path = hostile / entry["file"]
    try:
        if entry["open"] == "text":
            files.read_text_file(path)
            files.read_text_head(path, 65536)
        elif entry["open"] == "gpt2-pair":
            tokviz.load(path.parent)
        else:
            tokviz.load(path, pattern=entry.get("pattern"))
        outcomes[entry["file"]] = "loaded"
    except tokviz.TokvizError:
        outcomes[entry["file"]] = "refused"
    except BaseException as exc:
        outcomes[entry["file"]] = f"{type(exc).__name__}: {exc}"
for path in real:
    tok = tokviz.load(path)
    tok.decode(tok.encode("Hello, world").ids)
    outcomes[str(path)] = "loaded"
armed[0] = False
print(json.dumps({"events": events, "outcomes": outcomes}))
'''


@pytest.mark.slow
def test_loading_never_writes_or_runs_code(tmp_path):
    """Under an audit hook (in a child process, so it does not stay in pytest's), load every corpus
    file and every shared tokenizer: no file opened for writing, nothing removed, renamed or made,
    no unpickling, no code compiled from file content, no process started."""
    real = [p for p in (TOKENIZERS / "cl100k_base.tiktoken", TOKENIZERS / "qwen2.5" / "tokenizer.json",
                        TOKENIZERS / "qwen2.5", TOKENIZERS / "llama3" / "tokenizer.json",
                        TOKENIZERS / "bert-minilm" / "vocab.txt", TOKENIZERS / "bert-minilm" / "tokenizer.json",
                        TOKENIZERS / "sentencepiece" / "unigram_8k.model", TOKENIZERS / "sentencepiece" / "bpe_8k.model")
            if p.exists()]
    script = tmp_path / "audit.py"
    script.write_text(AUDIT_SCRIPT, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script), str(HOSTILE), *map(str, real)],
                          capture_output=True, text=True, timeout=600, env=child_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["events"] == []
    outcomes = report["outcomes"]
    assert all(outcomes[e["file"]] == "refused" for e in MANIFEST), {
        k: v for k, v in outcomes.items() if v != "refused" and not k.startswith("/")}
    assert all(outcomes[str(p)] == "loaded" for p in real)


MEMORY_SCRIPT = r'''
import json, resource, sys, tokviz
from pathlib import Path
hostile = Path(sys.argv[1])
import tokviz.formats.hf_json, tokviz.formats.gpt2, tokviz.formats.tiktoken_file, tokviz.formats.sentencepiece, tokviz.formats.minbpe
growth = {}
for entry in json.loads(sys.argv[2]):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    path = hostile / entry["file"]
    try:
        tok = tokviz.load(path.parent if entry["open"] == "gpt2-pair" else path, pattern=entry.get("pattern"))
        tok.decode(tok.encode("hello world").ids)  # builds the tables indexed by id
        result = "loaded"
    except tokviz.TokvizError:
        result = "refused"
    growth[entry["file"]] = [result, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024]
print(json.dumps(growth))
'''


def test_giant_ids_and_lengths_are_refused_before_allocation(tmp_path):
    """Loading the files with giant ids or huge declared lengths peaks at a few MB more than the
    interpreter (maximum resident size, in a fresh process): nothing is sized by the bad number."""
    chosen = [e for e in MANIFEST if e["category"] == "giant numbers" or "sparse" in e["file"] or "bomb" in e["file"]]
    chosen = [e for e in chosen if e["open"] != "text"]
    assert len(chosen) >= 10
    script = tmp_path / "memory.py"
    script.write_text(MEMORY_SCRIPT, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script), str(HOSTILE), json.dumps(chosen)],
                          capture_output=True, text=True, timeout=300, env=child_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    growth = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(result == "refused" for result, _ in growth.values()), growth
    worst = max(growth.items(), key=lambda kv: kv[1][1])
    assert worst[1][1] < 50, f"{worst[0]} made the process grow by {worst[1][1]:.0f} MB"


def _tokenizer_json_with(tmp_path: Path, extra=(), **parts) -> Path:
    """A small WordLevel tokenizer.json with the given normalizer / pre_tokenizer / decoder."""
    vocab = {c: i for i, c in enumerate(["[UNK]", "a", "b", "c", "aa", " ", *extra])}
    doc = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None, "post_processor": None,
           "decoder": None, "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}, **parts}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


CATASTROPHIC = {"Regex": "(a|aa)+b"}  # exponential on a long run of a's with no b


@pytest.mark.parametrize("part", ["pre_tokenizer", "normalizer"])
def test_catastrophic_pattern_fails_the_encode_instead_of_hanging(tmp_path, monkeypatch, part):
    """A tokenizer file's regex that backtracks catastrophically gets a time budget: the encode
    fails with the pattern named, and the tokenizer still encodes texts it is fast on."""
    from tokviz.core import patterns

    monkeypatch.setattr(patterns, "MATCH_SECONDS", 0.2)
    spec = ({"type": "Split", "pattern": CATASTROPHIC, "behavior": "Isolated", "invert": False}
            if part == "pre_tokenizer" else {"type": "Replace", "pattern": CATASTROPHIC, "content": "b"})
    tok = tokviz.load(_tokenizer_json_with(tmp_path, **{part: spec}))
    assert tok.encode("aab c").ids  # (fast on this)
    with pytest.raises(TokvizError) as info:
        tok.encode("a" * 80 + "c")  # (left alone: longer than the universe's age)
    message = str(info.value)
    for words in ("(a|aa)+b", "backtracks catastrophically", "81 characters", "Split" if part == "pre_tokenizer" else "Replace"):
        assert words in message, message


def test_catastrophic_decoder_pattern_fails_the_decode(tmp_path, monkeypatch):
    from tokviz.core import patterns

    monkeypatch.setattr(patterns, "MATCH_SECONDS", 0.2)
    long_run = "a" * 80 + "c"
    tok = tokviz.load(_tokenizer_json_with(tmp_path, extra=[long_run],
                                           decoder={"type": "Replace", "pattern": CATASTROPHIC, "content": "x"}))
    assert tok.decode([tok.token_to_id("aa"), tok.token_to_id("b")]) == "aab"  # (per token: no match)
    with pytest.raises(TokvizError, match=r"Replace decoder's pattern '\(a\|aa\)\+b'.*backtracks catastrophically"):
        tok.decode([tok.token_to_id(long_run)])
