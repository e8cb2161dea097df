"""`tokviz export`: writes what `tokviz.save` writes, refuses what it refuses (one line on stderr,
exit code 2), replaces files only with --force, and scrubs with --scrub."""
from __future__ import annotations

import json

import pytest

import tokviz
from tokviz.cli import main
from tokviz.defaults import default_tokenizer_path, sample_text

from _shared import TOKENIZERS, need

DEMO = str(default_tokenizer_path())


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_export_writes_what_save_writes(capsys, tmp_path):
    code, out, err = run(capsys, "export", "-t", DEMO, "--format", "hf-json", "-o", str(tmp_path / "demo.json"))
    assert code == 0 and err == ""
    assert str(tmp_path / "demo.json") in out
    api = tokviz.save(tokviz.load(DEMO), tmp_path / "api.json")
    assert (tmp_path / "demo.json").read_bytes() == api.read_bytes()


def test_export_format_from_the_name_and_json_report(capsys, tmp_path):
    code, out, _ = run(capsys, "export", "-t", DEMO, "-o", str(tmp_path / "demo.model"), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["format"] == "minbpe"
    assert report["files"] == [str(tmp_path / "demo.model"), str(tmp_path / "demo.vocab")]
    assert tokviz.load(tmp_path / "demo.model").encode(sample_text()).ids == tokviz.load(DEMO).encode(sample_text()).ids


def test_export_vocab_merges_into_a_folder(capsys, tmp_path):
    code, out, _ = run(capsys, "export", "-t", DEMO, "--format", "vocab-merges", "-o", str(tmp_path / "gpt2"))
    assert code == 0
    assert {p.name for p in (tmp_path / "gpt2").iterdir()} == {"vocab.json", "merges.txt", "tokenizer_config.json"}
    assert "merges.txt" in out


def test_export_refuses_with_one_line_and_code_2(capsys, tmp_path):
    target = tmp_path / "bert.tiktoken"
    code, out, err = run(capsys, "export", "-t", str(need(TOKENIZERS / "bert-minilm" / "vocab.txt")),
                         "--format", "tiktoken", "-o", str(target))
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"tokviz: error: {target}: cannot write as tiktoken .tiktoken:")
    assert "byte-level BPE" in err
    assert not target.exists()


def test_export_unknown_format_and_unknown_name(capsys, tmp_path):
    code, _, err = run(capsys, "export", "-t", DEMO, "--format", "nope", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "cannot write format 'nope'" in err
    code, _, err = run(capsys, "export", "-t", DEMO, "-o", str(tmp_path / "x.bin"))
    assert code == 2 and "format from the name" in err
    assert list(tmp_path.iterdir()) == []


def test_export_needs_force_to_replace(capsys, tmp_path):
    target = tmp_path / "vocab.tsv"
    target.write_text("old", encoding="utf-8")
    code, _, err = run(capsys, "export", "-t", DEMO, "-o", str(target))
    assert code == 2 and "already exists" in err and "--force" in err
    assert target.read_text(encoding="utf-8") == "old"
    code, _, _ = run(capsys, "export", "-t", DEMO, "-o", str(target), "--force")
    assert code == 0
    assert target.read_text(encoding="utf-8").startswith("id\ttoken\tbytes\tleft\tright\tcount\n")


@pytest.mark.shared
def test_export_scrub(capsys, tmp_path):
    source = need(TOKENIZERS / "sentencepiece" / "bpe_8k.model")
    code, _, _ = run(capsys, "export", "-t", str(source), "-o", str(tmp_path / "kept.model"))
    assert code == 0 and (tmp_path / "kept.model").read_bytes() == source.read_bytes()
    code, _, _ = run(capsys, "export", "-t", str(source), "-o", str(tmp_path / "clean.model"), "--scrub")
    assert code == 0
    data = (tmp_path / "clean.model").read_bytes()
    assert b"corpus.txt" in source.read_bytes() and b"corpus.txt" not in data
    spm = pytest.importorskip("sentencepiece")
    text = sample_text()
    assert spm.SentencePieceProcessor(model_file=str(tmp_path / "clean.model")).encode(text) == \
        tokviz.load(source).encode(text).ids


def test_export_tiktoken_with_pattern(capsys, tmp_path):
    """A .tiktoken file not named after a known encoding is read back with --pattern."""
    source = need(TOKENIZERS / "cl100k_base.tiktoken")
    target = tmp_path / "mine.tiktoken"
    code, _, _ = run(capsys, "export", "-t", str(source), "-o", str(target))
    assert code == 0 and target.read_bytes() == source.read_bytes()
    from tokviz.core.patterns import CL100K_PATTERN

    text_file = tmp_path / "text.txt"
    text_file.write_text(sample_text(), encoding="utf-8")
    code, out, _ = run(capsys, "encode", "-t", str(target), "--pattern", CL100K_PATTERN, str(text_file))
    assert code == 0
    assert [int(x) for x in out.split()] == tokviz.load(source).encode(sample_text()).ids
