"""`tokviz bench`: report structure, ids checked against the references, exit code on mismatch.
No timing assertions: only that the numbers are there."""
from __future__ import annotations

import importlib.util
import json

import pytest

import tokviz
from tokviz import bench
from tokviz.cli import main
from tokviz.defaults import default_tokenizer_path

from _shared import CORPUS, TOKENIZERS, need

DEMO = str(default_tokenizer_path())


def run_json(capsys, *argv):
    code = main(["bench", *argv, "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _check_row(row, name):
    assert row["name"] == name
    assert row["seconds"] > 0 and row["mb_per_s"] > 0 and row["tokens_per_s"] > 0 and row["tokens"] > 0


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text("Hello, world! 你好 🙂 tokens, tokens and more tokens.\n" * 300, encoding="utf-8")
    return path


def test_demo_tokenizer_alone(capsys, text_file):
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file), "--chunk-kb", "1")
    assert code == 0
    assert report["format"] == "minbpe" and report["encoder"] in ("python", "native")
    assert report["bytes"] == text_file.stat().st_size
    assert report["chunks"] == len(bench.read_chunks([text_file], 1)) > 10
    assert report["threads"] == 1 and report["chunk_kb"] == 1
    assert [r["name"] for r in report["results"]] == ["tokviz"]
    _check_row(report["results"][0], "tokviz")
    demo = tokviz.load(DEMO)  # each chunk is encoded on its own
    assert report["results"][0]["tokens"] == sum(len(demo.encode(c).ids) for c in bench.read_chunks([text_file], 1))
    assert report["skipped"] == [] and report["agree"] is True


def test_explicit_reference_that_does_not_apply_is_reported_skipped(capsys, text_file):
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file), "--against", "tiktoken,hf,sentencepiece")
    assert code == 0
    assert {s["name"] for s in report["skipped"]} == {"tiktoken", "hf", "sentencepiece"}
    assert all("applies to" in s["reason"] or "not installed" in s["reason"] for s in report["skipped"])


def test_human_output(capsys, text_file):
    assert main(["bench", "-t", DEMO, str(text_file), "--threads", "2"]) == 0
    out = capsys.readouterr().out
    assert "MB/s" in out and "tokens/s" in out and "tokviz" in out and "2 threads" in out


def test_chunks_are_cut_at_character_boundaries(tmp_path):
    path = tmp_path / "cjk.txt"
    text = "海洋🙂é" * 500
    path.write_text(text, encoding="utf-8")
    chunks = bench.read_chunks([path], chunk_kb=0.01)  # 10 bytes: cuts land inside characters
    assert "".join(chunks) == text and all(len(c.encode("utf-8")) <= 10 for c in chunks)


def test_mismatch_is_counted_and_exits_1(capsys, text_file, monkeypatch):
    def fake(tok, threads):  # a "reference" that gets every other chunk wrong
        return lambda chunks: [tok.encode(c).ids + ([0] if k % 2 else []) for k, c in enumerate(chunks)]

    monkeypatch.setitem(bench._FACTORIES, "tiktoken", fake)
    code, report, _ = run_json(capsys, "-t", DEMO, str(text_file), "--chunk-kb", "2", "--against", "tiktoken")
    assert code == 1 and report["agree"] is False
    row = report["results"][1]
    assert row["mismatched_chunks"] == report["chunks"] // 2 and row["agree"] is False
    assert row["first_mismatch"]["chunk"] == 1
    main(["bench", "-t", DEMO, str(text_file), "--chunk-kb", "2", "--against", "tiktoken"])
    assert "chunks DIFFER" in capsys.readouterr().out


def test_unknown_reference_is_an_error(capsys, text_file):
    assert main(["bench", "-t", DEMO, str(text_file), "--against", "spacy"]) == 2
    assert "unknown reference spacy" in capsys.readouterr().err


@pytest.mark.parametrize(
    "rel, lib, name",
    [
        ("cl100k_base.tiktoken", "tiktoken", "tiktoken"),
        ("qwen2.5/tokenizer.json", "tokenizers", "hf"),
        ("bert-minilm/tokenizer.json", "tokenizers", "hf"),
        ("sentencepiece/unigram_8k.model", "sentencepiece", "sentencepiece"),
    ],
)
def test_against_reference_libraries_on_shared_tokenizers(capsys, rel, lib, name):
    if importlib.util.find_spec(lib) is None:
        pytest.skip(f"{lib} is not installed")
    tok = str(need(TOKENIZERS / rel))
    files = [str(need(CORPUS / f"{c}.txt")) for c in ("en", "zh")]
    code, report, _ = run_json(capsys, "-t", tok, *files, "--limit-kb", "24", "--chunk-kb", "4", "--threads", "2")
    assert code == 0, report
    names = [r["name"] for r in report["results"]]
    assert names == ["tokviz", name]
    ref = report["results"][1]
    _check_row(ref, name)
    assert ref["agree"] is True and ref["mismatched_chunks"] == 0 and ref["first_mismatch"] is None
    assert ref["tokens"] == report["results"][0]["tokens"] and ref["ratio"] > 0
    assert report["agree"] is True and report["chunks"] >= 12


def test_info_shows_the_encoder_in_use(capsys):
    assert main(["info", "-t", DEMO]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.startswith("encoder"))
    info = tokviz.load(DEMO).describe()
    assert rows["encoder"].strip() == info["encoder_detail"]
    assert info["encoder_detail"].startswith(info["encoder"])  # "native (gpt2 scanner)" or "python"
