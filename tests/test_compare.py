"""Comparing tokenizers on one text: boundaries, the identical share, split words, `tokviz compare`."""
from __future__ import annotations

import json

import pytest

import tokviz
from tokviz.analysis.compare import boundaries, compare_text
from tokviz.cli import main
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.defaults import default_tokenizer_path

from _shared import TOKENIZERS, need


def two_tokenizers():
    """A cuts 'abcd' as ab|cd, B as a|bc|d."""
    base = {c: i for i, c in enumerate("abcd ")}
    a = Tokenizer(BPE({**base, "ab": 5, "cd": 6}, [("a", "b"), ("c", "d")]))
    b = Tokenizer(BPE({**base, "bc": 5}, [("b", "c")]))
    return {"A": a, "B": b}


def test_boundaries_and_differences_on_a_known_case():
    toks = two_tokenizers()
    result = compare_text(toks, "abcd dd")
    # A: ab|cd| |d|d   B: a|bc|d| |d|d
    assert boundaries(result.encodings[0]).tolist() == [2, 4, 5, 6]
    assert boundaries(result.encodings[1]).tolist() == [1, 3, 4, 5, 6]
    assert result.differing_positions().tolist() == [1, 2, 3]
    assert result.identical_chars == 3 and result.identical_share == pytest.approx(3 / 7)  # " ", "d", "d"
    assert result.differing_tokens(0).tolist() == [1] and result.differing_tokens(1).tolist() == [1, 2]
    assert result.split_words[0] == {"word": "abcd", "pieces": {"A": 2, "B": 3}, "most": "B"}
    assert [r["tokens"] for r in result.rows] == [5, 6]


def test_identical_tokenizers_agree_everywhere():
    tok = tokviz.load(default_tokenizer_path())
    result = compare_text({"one": tok, "two": tok}, "Hello world, 中文 text!")
    assert result.identical_share == 1.0 and len(result.differing_positions()) == 0 and not result.split_words


def test_compare_cli_json(capsys, tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("The tokenizer splits 乌鲁木齐 and unaffable words.", encoding="utf-8")
    qwen = need(TOKENIZERS / "qwen2.5" / "tokenizer.json")
    demo = str(default_tokenizer_path())
    assert main(["compare", "-t", demo, "-t", str(qwen), str(text), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = compare_text({"tokviz-demo": tokviz.load(demo), "qwen2.5": tokviz.load(qwen)},
                            text.read_text(encoding="utf-8"))
    assert data["tokenizers"] == ["tokviz-demo", "qwen2.5"]
    strip = lambda rows: [{k: v for k, v in r.items() if k != "time (ms)"} for r in rows]  # noqa: E731
    assert strip(data["rows"]) == strip(expected.rows)
    assert data["identical_share"] == pytest.approx(expected.identical_share)
    assert main(["compare", "-t", demo, str(text)]) == 2  # one tokenizer: an error
