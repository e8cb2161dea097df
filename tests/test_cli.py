"""The `tokviz` command line: encode, info, errors; and the package stays Qt-free outside gui/."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

import tokviz
from tokviz.cli import main
from tokviz.defaults import default_tokenizer_path, sample_text, sample_text_path

DEMO = str(default_tokenizer_path())


def run(capsys, *argv, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_encode_prints_ids(capsys):
    code, out, _ = run(capsys, "encode", "-t", DEMO, str(sample_text_path()))
    assert code == 0
    assert [int(x) for x in out.split()] == tokviz.load(DEMO).encode(sample_text()).ids


def test_encode_json_records_from_stdin(capsys, monkeypatch):
    text = "héllo 海 <|endoftext|>"
    code, out, _ = run(capsys, "encode", "-t", DEMO, "--json", stdin=text, monkeypatch=monkeypatch)
    assert code == 0
    data = json.loads(out)
    enc = tokviz.load(DEMO).encode(text)
    assert [r["id"] for r in data["tokens"]] == enc.ids
    assert [(r["start"], r["end"]) for r in data["tokens"]] == enc.offsets
    assert [bytes.fromhex(r["bytes"]) for r in data["tokens"]] == enc.token_bytes
    assert b"".join(bytes.fromhex(r["bytes"]) for r in data["tokens"]) == text.encode("utf-8")
    assert any(r["partial"] for r in data["tokens"])  # 海 is not one token in the small demo vocabulary


def test_info_json(capsys):
    code, out, _ = run(capsys, "info", "-t", DEMO, "--json")
    info = json.loads(out)
    assert code == 0
    assert info["format"] == "minbpe" and info["model"] == "BPE"
    assert info["vocab_size"] == tokviz.load(DEMO).vocab_size
    assert {s["content"] for s in info["special_tokens"]} == {"<|endoftext|>", "<|pad|>"}


def test_info_human(capsys):
    code, out, _ = run(capsys, "info", "-t", DEMO)
    assert code == 0 and "vocab size" in out and "minbpe" in out


def test_error_is_one_line(capsys, tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json", encoding="utf-8")
    code, out, err = run(capsys, "encode", "-t", str(bad))
    assert code == 2 and out == ""
    assert err.startswith("tokviz: error: ") and str(bad) in err and "Traceback" not in err


def test_non_utf8_text_file(capsys, tmp_path):
    f = tmp_path / "latin1.txt"
    f.write_bytes("caf\xe9".encode("latin-1"))
    code, _, err = run(capsys, "encode", "-t", DEMO, str(f))
    assert code == 2 and "not UTF-8" in err and str(f) in err


def test_python_m_tokviz_runs():
    proc = subprocess.run([sys.executable, "-m", "tokviz", "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and tokviz.__version__ in proc.stdout


def test_core_never_imports_qt():
    code = (
        "import sys, tokviz, tokviz.cli, tokviz.formats, tokviz.core, tokviz.train.bpe;"
        "tokviz.load(tokviz.defaults.default_tokenizer_path()).encode('x');"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'tokenizers', 'tiktoken', 'sentencepiece'))];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", "import tokviz.defaults;" + code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_health_json_is_the_report(capsys):
    from tokviz.analysis.token_health import full_health

    code, out, _ = run(capsys, "health", "-t", DEMO, "--json")
    data = json.loads(out)
    report = full_health(tokviz.load(DEMO))
    assert code == 0 and data["counts"] == report.counts() and "undecodable" in data["counts"]
    assert sorted(u["id"] for u in data["undecodable"]) == report.tokens.ids("undecodable").tolist()
    assert [u["token"] for u in data["unreachable"]] == [t for _, t, _ in report.unreachable]
    code, out, _ = run(capsys, "health", "-t", DEMO, "--show", "1")
    assert code == 0 and "unreachable:" in out and "partial UTF-8:" in out
