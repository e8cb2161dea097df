"""Writing tokenizer.json (and vocab.txt): HF tokenizers reads what tokviz writes and encodes the same."""
from __future__ import annotations

import json

import pytest

import tokviz
from tokviz.defaults import default_tokenizer_path, resource_path
from tokviz.errors import TokvizError
from tokviz.formats import save
from tokviz.train import TrainOptions, train

from _shared import EDGE_CASES, TOKENIZERS, corpus_samples, need, sweep

tokenizers = pytest.importorskip("tokenizers")

HF_FILES = ["qwen2.5/tokenizer.json", "llama3/tokenizer.json", "bert-minilm/tokenizer.json", "bert-minilm/vocab.txt",
            "qwen2.5/vocab.json"]


def _texts() -> list[str]:
    out = list(EDGE_CASES)
    for name in ("en", "zh", "code", "multi"):
        out += corpus_samples(name, 3)
    return out


def _reference(path):
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    return ref


@pytest.mark.shared
@pytest.mark.parametrize("name", sweep(HF_FILES, [f for f in HF_FILES if f.startswith("bert-minilm/")]))
def test_written_tokenizer_json_encodes_like_the_original(name, tmp_path):
    tok = tokviz.load(need(TOKENIZERS / name))
    out = save(tok, tmp_path / "tokenizer.json")
    ref = _reference(out)
    again = tokviz.load(out)
    for text in _texts():
        ids = tok.encode(text).ids
        assert ref.encode(text, add_special_tokens=False).ids == ids, text[:60]
        assert again.encode(text).ids == ids
        # (a vocab.txt keeps special tokens in decode, as transformers does; HF's default drops them)
        assert ref.decode(ids, skip_special_tokens=tok.decode_skips_special) == tok.decode(ids)
    assert again.vocab_size == tok.vocab_size


@pytest.mark.shared
def test_demo_tokenizer_round_trips_without_special_strings(tmp_path):
    """A minbpe model keeps special-token strings in text as text (encode_ordinary); HF matches them:
    the written file agrees on everything else."""
    tok = tokviz.load(default_tokenizer_path())
    out = save(tok, tmp_path / "demo.json")
    ref = _reference(out)
    for text in _texts():
        if any(t.content in text for t in tok.added.tokens):
            continue
        assert ref.encode(text, add_special_tokens=False).ids == tok.encode(text).ids


def test_vocab_txt_is_written_line_for_line(tmp_path):
    source = need(TOKENIZERS / "bert-minilm" / "vocab.txt")
    out = save(tokviz.load(source), tmp_path / "vocab.txt")
    assert out.read_bytes() == source.read_bytes()


def test_formats_that_cannot_be_written_say_why_and_leave_the_old_file(tmp_path):
    target = tmp_path / "keep.json"
    target.write_text('{"old": true}', encoding="utf-8")
    charbpe = train("bpe", [resource_path("training.txt")], TrainOptions(vocab_size=400))  # "</w>" a symbol
    with pytest.raises(TokvizError, match="symbol of its own"):
        save(charbpe, target)
    with pytest.raises(TokvizError, match="WordPiece"):
        save(tokviz.load(default_tokenizer_path()), tmp_path / "vocab.txt")
    with pytest.raises(TokvizError, match="format from the name"):
        save(tokviz.load(default_tokenizer_path()), tmp_path / "x.bin")
    with pytest.raises(TokvizError, match="does not exist"):
        save(tokviz.load(default_tokenizer_path()), tmp_path / "no" / "x.json")
    assert json.loads(target.read_text(encoding="utf-8")) == {"old": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json"]  # no temporary file left
