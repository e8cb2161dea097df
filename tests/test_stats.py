"""Vocabulary statistics and corpus metrics on cases whose answers are known, and `tokviz stats`."""
from __future__ import annotations

import itertools
import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest
import regex

import tokviz
from tokviz.analysis.corpus_stats import (
    comparison_rows,
    corpus_files,
    corpus_stats,
    gini,
    renyi_entropy,
    shannon_entropy,
    table_csv,
    table_markdown,
    text_stats,
)
from tokviz.analysis.vocab_stats import CATEGORIES, token_category, token_table, vocab_stats
from tokviz.cli import main
from tokviz.core import Tokenizer
from tokviz.core.models.wordlevel import WordLevel
from tokviz.core.pre_tokenizers import WhitespaceSplit
from tokviz.errors import Cancelled, TokvizError

from _shared import TOKENIZERS, need
from _vocab_reference import reference_filter, reference_rows, reference_stats


def test_entropies_and_gini_of_known_distributions():
    uniform = np.array([5, 5, 5, 5])
    assert math.isclose(shannon_entropy(uniform), 2.0)
    assert math.isclose(renyi_entropy(uniform, 2.5), 2.0)
    assert math.isclose(renyi_entropy(uniform, 1), 2.0)
    assert math.isclose(gini(uniform), 0.0, abs_tol=1e-12)
    assert math.isclose(gini(np.array([0, 0, 0, 10])), 0.75)
    skewed = np.array([8, 1, 1, 0])
    p = np.array([0.8, 0.1, 0.1])
    assert math.isclose(shannon_entropy(skewed), float(-(p * np.log2(p)).sum()))
    assert math.isclose(renyi_entropy(skewed, 2.0), -math.log2((p ** 2).sum()))
    assert renyi_entropy(skewed, 2.5) < shannon_entropy(skewed)  # Rényi falls with the order


def test_token_categories():
    assert token_category("hello") == "Latin"
    assert token_category(" 中文") == "CJK"
    assert token_category("привет") == "Cyrillic"
    assert token_category("abcпр") == "mixed scripts"
    assert token_category(" 123") == "digits"
    assert token_category("...") == "punctuation"
    assert token_category(" \n") == "whitespace"
    assert token_category("+=") == "symbols"
    assert token_category(None) == "partial UTF-8"


def _word_level():
    words = ["<unk>", "the", "cat", "sat", "中", "文", "字", "1", "12"]
    model = WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>")
    return Tokenizer(model, pre_tokenizer=WhitespaceSplit(),
                     added_tokens=[tokviz.AddedToken("<pad>", 9, special=True)])


def test_text_metrics_on_a_word_level_tokenizer():
    tok = _word_level()
    text = "the cat sat the dog 中 文字"
    s = text_stats(tok, text)
    # tokens: the cat sat the <unk> 中 <unk>("文字" is not a word)
    assert s.tokens == 7 and s.chars == len(text) and s.bytes == len(text.encode("utf-8"))
    assert s.words == 7 and math.isclose(s.fertility, 1.0)
    assert s.unknown == 2 and math.isclose(s.unknown_rate, 2 / 7)
    assert s.han_chars == 3 and s.han_tokens == 2 and math.isclose(s.han_chars_per_token, 1.5)
    assert s.used == 5  # the, cat, sat, <unk>, 中
    assert math.isclose(s.utilisation, 5 / tok.vocab_size)
    assert s.never_used() == [5, 6, 7, 8]  # 文 字 1 12 (the special <pad> is left out)
    assert list(s.frequencies()) == [2, 2, 1, 1, 1]


def test_vocab_stats_on_a_word_level_tokenizer():
    v = vocab_stats(_word_level())
    assert v.size == 10 and not v.divisible_by_64 and v.special == 1
    assert v.length_bytes == {1: 1, 2: 1, 3: 6, 5: 1}  # 1; 12; the cat sat 中 文 字; <unk>
    assert v.numbers_single_token == [1, 12]
    assert v.cjk_single_chars == 3
    assert v.script_counts["CJK"] == 3 and v.script_counts["digits"] == 2 and v.script_counts["special"] == 1


def _assert_table_is_reference(tok):
    """The columnar table of `tok` holds, row by row, what the per-row reference computes, and
    `vocab_stats` from it equals the reference figures (in the same order, as `tokviz stats` prints them)."""
    rows = reference_rows(tok)
    table = token_table(tok)
    assert table.ids.tolist() == [r.id for r in rows]
    assert table.tokens == [r.token for r in rows]
    assert [table.text(k) for k in range(len(table))] == [r.text for r in rows]
    assert table.n_bytes.tolist() == [r.n_bytes for r in rows]
    assert table.n_chars.tolist() == [r.n_chars for r in rows]
    assert [CATEGORIES[c] for c in table.category] == [r.category for r in rows]
    assert table.special.tolist() == [r.special for r in rows]
    assert [None if math.isnan(x) else x for x in table.rank.tolist()] == [r.rank for r in rows]
    haystack = "".join(f"{r.token}\x00{r.text}".lower() + "\n" for r in rows)
    assert table.haystack.tobytes().decode("utf-32-le", "surrogatepass") == haystack
    assert table.starts.tolist() == [0, *itertools.accumulate(len(f"{r.token}\x00{r.text}".lower()) + 1 for r in rows)]
    expected = reference_stats(tok, rows)
    assert json.dumps(vocab_stats(tok, table).as_dict(), ensure_ascii=False) == json.dumps(expected.as_dict(), ensure_ascii=False)
    return rows, table


def _edge_tokenizer():
    """Tokens that trip a joined haystack: final sigma before the next row, characters that lower-case
    to two ('İ'), newlines and NULs inside tokens, rows whose ends and starts make a word together."""
    words = ["<unk>", "ab", "cd", "ΑΣ", "b", "İİx", "tail", "x\ny", "q\x00r", "中文", "ABC", "Straße", " ", "12", "ǅ",
             "[reserved_3]", "<unused>", "unused", "Ⅻ", "٣", "a\u0301", "1 2", " 12\t", "\x1c", "\u200b"]
    model = WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>")
    return Tokenizer(model, pre_tokenizer=WhitespaceSplit(), added_tokens=[tokviz.AddedToken("<pad>", len(words), special=True)])


def test_token_table_of_edge_case_tokens():
    tok = _edge_tokenizer()
    rows, table = _assert_table_is_reference(tok)
    row = {r.token: k for k, r in enumerate(rows)}

    def hits(needle):
        return np.flatnonzero(table.contains(needle)).tolist()

    assert hits("b\ncd") == hits("ab\x00ab\nc") == []  # across two rows: never
    assert hits("b\x00a") == [row["ab"]]  # token end + text start, in one row (as the row string always did)
    assert hits("ας") == [row["ΑΣ"]] and hits("ασ") == []  # a final sigma stays final before the next row
    assert hits("TAIL") == [row["tail"]]  # after 'İİx', whose lower case is longer
    assert hits("i̇x") == [row["İİx"]] and hits("İX") == [row["İİx"]]
    assert hits("x\ny") == [row["x\ny"]] and hits("\x00r") == [row["q\x00r"]] and hits("中") == [row["中文"]]
    assert hits("abc") == [row["ABC"]] and hits("straße") == [row["Straße"]]
    assert hits("\n") == [row["x\ny"]] and hits("zz") == [] and len(hits("")) == len(rows)
    for needle in ("b\ncd", "ΑΣ", "x", "\x00", "a\u0301", "d\x00cd\nα", "<"):
        assert hits(needle) == reference_filter(rows, needle), needle
    for pattern in (r"^a", r"b$", r"\d", r"^.$", r"\x00", r"^\s+$", r"[^\x00-\x7f]", r"SS"):
        assert np.flatnonzero(table.matches(regex.compile(pattern, regex.IGNORECASE))).tolist() == \
            reference_filter(rows, f"/{pattern}/"), pattern
    assert table.reserved.sum() == 2  # '[reserved_3]', '<unused>'; 'unused' is not bracketed
    assert [table.category_name(row[t]) for t in ("1 2", " 12\t", "\x1c", "ΑΣ", "a\u0301")] == [
        "symbols", "digits", "whitespace", "Greek", "Latin"]


@pytest.mark.shared
def test_token_table_of_the_demo_and_sentencepiece_models():
    from tokviz.defaults import default_tokenizer_path

    rows, table = _assert_table_is_reference(tokviz.load(default_tokenizer_path()))
    assert {r.category for r in rows} >= {"partial UTF-8", "Latin", "CJK"}  # (so the checks above mean something)
    assert len(token_table(_word_level())) == 10 and len(token_table(Tokenizer(WordLevel({}, unk_token="x")))) == 0
    for name in ("unigram_8k.model", "bpe_8k.model"):
        rows, table = _assert_table_is_reference(tokviz.load(need(TOKENIZERS / "sentencepiece" / name)))
        assert {"byte piece", "control"} <= {r.category for r in rows}


@pytest.mark.shared
def test_byte_fallback_rate_on_a_sentencepiece_model():
    tok = tokviz.load(need(TOKENIZERS / "sentencepiece" / "unigram_8k.model"))
    s = text_stats(tok, "plain text 𓀀 more")  # an Egyptian hieroglyph: no piece, four byte pieces
    enc = tok.encode("plain text 𓀀 more")
    assert s.byte_fallback == sum(1 for p in enc.pieces if p.startswith("<0x")) == 4
    assert math.isclose(s.byte_fallback_rate, 4 / len(enc))


def test_corpus_stats_streams_files_and_folders(tmp_path):
    from tokviz.defaults import default_tokenizer_path

    tok = tokviz.load(default_tokenizer_path())
    folder = tmp_path / "corpus"
    folder.mkdir()
    parts = ["first file text, with words.\n" * 200, "中文的文本，一些字。\n" * 150]
    for k, t in enumerate(parts):
        (folder / f"{k}.txt").write_text(t, encoding="utf-8")
    (folder / "skip.bin").write_bytes(b"\x00\x01")
    seen = []
    s = corpus_stats(tok, [folder], progress=lambda d, t: seen.append((d, t)))
    whole = text_stats(tok, "".join(parts))
    assert [p.split("/")[-1] for p in s.files] == ["0.txt", "1.txt"]
    assert (s.tokens, s.chars, s.bytes, s.words, s.han_chars) == (
        sum(len(tok.encode(t)) for t in parts), whole.chars, whole.bytes, whole.words, whole.han_chars)
    assert seen[-1] == (s.bytes, s.bytes) and all(a <= b for (a, _), (b, _) in zip(seen, seen[1:]))
    with pytest.raises(TokvizError, match="no such file"):
        corpus_files([tmp_path / "missing.txt"])
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        corpus_stats(tok, [folder], cancel=stop)


def test_comparison_table_formats(tmp_path):
    from tokviz.defaults import default_tokenizer_path

    tok = tokviz.load(default_tokenizer_path())
    f = tmp_path / "zh.txt"
    f.write_text("中文分词。" * 50, encoding="utf-8")
    rows = comparison_rows({"demo": tok, "demo again": tok}, {"zh": [f]})
    assert [r["tokenizer"] for r in rows] == ["demo", "demo again"]
    assert rows[0]["zh chars/token"] == rows[1]["zh chars/token"] == round(250 / len(tok.encode("中文分词。" * 50)), 3)
    md = table_markdown(rows)
    assert md.splitlines()[0].startswith("| tokenizer | vocab size | zh tokens |") and md.count("\n") == 4
    csv_text = table_csv(rows)
    assert csv_text.splitlines()[0].startswith("tokenizer,vocab size,zh tokens")


def test_stats_cli_json_equals_the_functions(capsys):
    from tokviz.defaults import default_tokenizer_path, sample_text_path

    demo = str(default_tokenizer_path())
    code = main(["stats", "-t", demo, "--corpus", f"sample={sample_text_path()}", "--json"])
    data = json.loads(capsys.readouterr().out)
    tok = tokviz.load(demo)
    expected = corpus_stats(tok, [sample_text_path()]).as_dict()
    got = data["corpus"]["sample"]
    assert code == 0
    for key in ("tokens", "chars", "bytes", "words", "chars_per_token", "renyi_entropy", "gini", "used"):
        assert got[key] == pytest.approx(expected[key]), key
    assert data["vocab"]["size"] == tok.vocab_size
    code = main(["stats", "-t", demo, "-t", demo, "--corpus", str(sample_text_path()), "--table", "csv"])
    assert code == 0 and capsys.readouterr().out.startswith("tokenizer,vocab size,")


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["demo", "bert-minilm", "qwen2.5"])
def test_corpus_stats_on_threads_equal_one_encoding_per_piece(tmp_path, name):
    """Each read chunk's pieces go to the encoder as two batches (ids arrays for pieces without Han
    characters, whole Encodings for the rest) on 1 or 2 threads: every figure and every id's count
    equals those of encoding the pieces one by one."""
    import lzma

    from tokviz.analysis.corpus_stats import CorpusCounter
    from tokviz.core.streaming import encode_file
    from tokviz.defaults import default_tokenizer_path

    if name == "demo":
        path = default_tokenizer_path()
    else:
        src = next((Path(__file__).parent / "data" / "real" / name).glob("tokenizer.json.xz"))
        path = tmp_path / "tokenizer.json"
        path.write_bytes(lzma.decompress(src.read_bytes()))
    tok = tokviz.load(path)
    lines = ["An English line, with 42 words and some punctuation!", "中文的句子，还有一些汉字。",
             "mixed 文本 and text", "plain words only here"]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines[k % 4] + f" {k}" for k in range(30_000)), encoding="utf-8")
    one_by_one = CorpusCounter(tok, 2.5)
    encode_file(tok, corpus, keep_ids=False, piece_chars=64 * 1024,
                on_chunk=lambda chunk: one_by_one.add(chunk.encoding.text, chunk.encoding))
    expected = one_by_one.stats
    for threads in (1, 2):
        got = corpus_stats(tok, [corpus], threads=threads)
        assert np.array_equal(got.counts, expected.counts)
        for key in ("tokens", "chars", "bytes", "words", "han_chars", "han_tokens", "unknown", "byte_fallback"):
            assert getattr(got, key) == getattr(expected, key), (threads, key)
    assert expected.han_tokens > 0 and expected.tokens > 100_000
