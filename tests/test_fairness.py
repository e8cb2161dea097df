"""Fairness across languages (`analysis.fairness`, `tokviz fairness`) on the parallel man pages of
the parallel sample in resources/parallel and the real tokenizers of tests/data/real: counts, premiums, unknown and
byte-fallback counts against the reference libraries, split characters and STRR computed
independently, the file rules and their errors."""
from __future__ import annotations

import json
import lzma
import re
import threading
from pathlib import Path
from unittest import mock

import pytest

import tokviz
from tokviz.analysis.fairness import (
    fairness,
    fairness_files,
    language_of,
    measure,
    parallel_files,
    read_parallel,
)
from tokviz.cli import main
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.defaults import parallel_sample_path
from tokviz.errors import Cancelled, TokvizError

DATA = Path(__file__).parent / "data"
PARALLEL = parallel_sample_path()
REAL = DATA / "real"
LANGUAGES = ("en", "da", "de", "es", "fr", "id", "ja", "ko", "nl", "pl", "pt", "pt_BR", "ro", "ru", "sr", "sv", "tr",
             "zh_CN")


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Name (a path under tests/data/real without .xz) -> the decompressed file, once per module."""
    root = tmp_path_factory.mktemp("real")
    cache: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in cache:
            src = REAL / f"{name}.xz"
            dest = root / name.replace("/", "_")
            dest.write_bytes(lzma.decompress(src.read_bytes()))
            cache[name] = dest
        return cache[name]

    return get


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {lang: (PARALLEL / f"whatis.{lang}.txt").read_text(encoding="utf-8") for lang in LANGUAGES}


def _hf_reference(path: Path):
    """HF tokenizers on a tokenizer.json, without the file's truncation and padding (BERT's: 128)."""
    hf = pytest.importorskip("tokenizers")
    ref = hf.Tokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    return ref


def _cl100k_reference(path: Path):
    """tiktoken's cl100k_base, its ranks read from the local file instead of downloaded."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import openai_public

    with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *a, **k: load_tiktoken_bpe(str(path))):
        return tiktoken.Encoding(**openai_public.cl100k_base())


# ---- the shipped parallel set ------------------------------------------------------------------------


def test_the_shipped_set_is_one_file_per_language_of_the_right_size():
    files = parallel_files([PARALLEL])
    assert sorted(files) == sorted(LANGUAGES)  # (README.md is not a language: only *.txt are taken)
    for lang, f in files.items():
        assert 2_000 <= f.stat().st_size <= 10_000, f
        lines = f.read_text(encoding="utf-8").splitlines()
        headings = [line for line in lines if line and not line[0].isspace()]
        assert len(headings) == 4 and lines[0] == headings[0], lang  # NAME, SYNOPSIS, DESCRIPTION, OPTIONS
        assert not any("WHATIS(1)" in line for line in lines) and "\t" not in "".join(lines)
        assert "whatis" in lines[1]  # (the NAME line: "whatis - ..." in every language)


# ---- counts and premiums against the reference libraries -----------------------------------------------


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("piece_chars", [16 * 1024, 700])  # whole files, and cut into pieces
def test_counts_and_premiums_equal_hf_tokenizers(real, texts, piece_chars):
    names = {"qwen2.5": "qwen2.5/tokenizer.json", "bert": "bert-minilm/tokenizer.json"}
    ours = {name: tokviz.load(real(rel)) for name, rel in names.items()}
    result = fairness(ours, texts, "en", piece_chars=piece_chars)
    assert result.languages[0] == "en" and set(result.languages) == set(LANGUAGES)
    for name, rel in names.items():
        ref = _hf_reference(real(rel))
        counts = {lang: len(ref.encode(text, add_special_tokens=False).ids) for lang, text in texts.items()}
        for lang in LANGUAGES:
            f = result.figures[name][lang]
            assert f.tokens == counts[lang], (name, lang)
            assert f.premium == pytest.approx(counts[lang] / counts["en"]), (name, lang)
        assert result.figures[name]["en"].premium == 1.0
        assert result.premiums(name) == [result.figures[name][lang].premium for lang in result.languages]


def test_counts_premiums_and_split_characters_equal_tiktoken(real, texts):
    ref = _cl100k_reference(real("cl100k_base.tiktoken"))
    result = fairness({"cl100k": tokviz.load(real("cl100k_base.tiktoken"))}, texts, "de", piece_chars=900)
    assert result.pivot == "de" and result.languages[0] == "de"
    pivot_tokens = len(ref.encode_ordinary(texts["de"]))
    for lang, text in texts.items():
        ids = ref.encode_ordinary(text)
        f = result.figures["cl100k"][lang]
        assert f.tokens == len(ids)
        assert f.premium == pytest.approx(len(ids) / pivot_tokens)
        data = text.encode("utf-8")
        assert f.chars_per_token == pytest.approx(len(text) / len(ids))
        assert f.bytes_per_token == pytest.approx(len(data) / len(ids))
        # a character is split when a token boundary falls inside its UTF-8 bytes
        cuts, at = set(), 0
        for i in ids:
            at += len(ref.decode_single_token_bytes(i))
            cuts.add(at)
        char_ends, at = [], 0
        for ch in text:
            start, at = at, at + len(ch.encode("utf-8"))
            char_ends.append((start, at))
        split = sum(1 for a, b in char_ends if any(c in cuts for c in range(a + 1, b)))
        assert f.split_chars == split, lang
        assert f.unknown == 0 and f.byte_fallback == 0
    assert result.figures["cl100k"]["de"].premium == 1.0
    assert result.figures["cl100k"]["zh_CN"].split_chars > 0 and result.figures["cl100k"]["en"].split_chars == 0


def test_unknown_tokens_equal_hf_tokenizers(real, texts):
    path = real("bert-minilm/tokenizer.json")
    ref = _hf_reference(path)
    unk = ref.token_to_id("[UNK]")
    result = fairness({"bert": tokviz.load(path)}, texts, "en")
    for lang, text in texts.items():
        expected = ref.encode(text, add_special_tokens=False).ids.count(unk)
        f = result.figures["bert"][lang]
        assert f.unknown == expected, lang
        assert f.fallback_share == pytest.approx(expected / f.tokens)
    assert result.figures["bert"]["ja"].unknown > 0  # (kanji the English WordPiece vocabulary lacks)


def test_byte_fallback_and_counts_equal_sentencepiece(real, texts):
    spm = pytest.importorskip("sentencepiece")
    path = real("mistral-v1.model")
    ref = spm.SentencePieceProcessor(model_file=str(path))
    result = fairness({"mistral": tokviz.load(path)}, texts, "en", piece_chars=800)
    en = len(ref.encode(texts["en"]))
    for lang, text in texts.items():
        ids = ref.encode(text)
        f = result.figures["mistral"][lang]
        assert f.tokens == len(ids), lang
        assert f.premium == pytest.approx(len(ids) / en)
        assert f.byte_fallback == sum(1 for i in ids if ref.IsByte(i)), lang
        assert f.unknown == sum(1 for i in ids if ref.IsUnknown(i)), lang
    assert result.figures["mistral"]["ko"].byte_fallback > 0
    # its vocabulary has no newline: English pays byte fallback too, and a note says so
    newline = ref.PieceToId("<0x0A>")
    en_newlines = ref.encode(texts["en"]).count(newline)
    assert result.figures["mistral"]["en"].common_fallback[0] == ("<0x0A>", en_newlines) and en_newlines > 0
    assert any(n.startswith("mistral:") and "<0x0A> ('\\n')" in n for n in result.notes)


# ---- the single-token word rate ------------------------------------------------------------------------


def test_strr_on_a_tokenizer_whose_answer_is_known():
    base = {c: i for i, c in enumerate("abcd ,")}
    tok = Tokenizer(BPE({**base, "ab": 6, "cd": 7}, [("a", "b"), ("c", "d")]))
    # tokens: ab| |cd| |ab|cd|,| |d  -> words ab, cd, d are one token each, abcd is two
    f = measure(tok, "ab cd abcd, d")
    assert f.tokens == 9 and f.facts.words == 4
    assert f.single_token_words == 3 and f.strr == pytest.approx(3 / 4)


def test_strr_equals_an_independent_count_over_tiktoken_offsets(real):
    ref = _cl100k_reference(real("cl100k_base.tiktoken"))
    text = ("Each manual page has a short description available within it. Größere Wörter werden "
            "öfter zerlegt; несколько русских слов тоже, and under_scored names or 12345 numbers.")
    ids = ref.encode_ordinary(text)
    _, starts = ref.decode_with_offsets(ids)
    spans = list(zip(starts, starts[1:] + [len(text)]))
    words = [m.span() for m in re.finditer(r"\w+", text)]
    single = sum(1 for a, b in words if sum(1 for s, e in spans if s < b and e > a) == 1)
    f = measure(tokviz.load(real("cl100k_base.tiktoken")), text)
    assert f.facts.words == len(words)
    assert f.single_token_words == single
    assert 0 < f.strr < 1


def test_strr_is_not_given_for_a_language_written_without_spaces(texts):
    base = {c: i for i, c in enumerate(sorted(set(texts["zh_CN"] + texts["ko"] + texts["en"])))}
    char_level = Tokenizer(BPE(base, []))
    result = fairness({"chars": char_level}, {k: texts[k] for k in ("en", "zh_CN", "ja", "ko")}, "en")
    assert result.figures["chars"]["zh_CN"].strr is None and result.figures["chars"]["ja"].strr is None
    assert result.figures["chars"]["ko"].strr is not None  # (Korean is written with spaces)
    assert result.facts["zh_CN"].unspaced_share > 0.5 and result.facts["ko"].unspaced_share == 0
    assert any(n.startswith("zh_CN:") and "n/a" in n for n in result.notes)
    assert any(n.startswith("ja:") for n in result.notes) and not any(n.startswith("ko:") for n in result.notes)
    # one character per token: words of one character are the single-token words
    en_words = re.findall(r"\w+", texts["en"])
    assert result.figures["chars"]["en"].single_token_words == sum(1 for w in en_words if len(w) == 1)
    assert result.rows()[1]["chars STRR"] == "n/a"


# ---- files, errors, warnings, progress and cancel -------------------------------------------------------


def test_language_from_the_file_name():
    assert language_of("de.txt") == "de"
    assert language_of("/x/dpkg.de.txt") == "de"
    assert language_of("whatis.pt_BR.txt") == "pt_BR"
    assert language_of("notes.zh-Hans.txt") == "zh-Hans"
    assert language_of("my.notes.txt") == "my.notes"  # (not a language tag: the whole stem)
    assert language_of("german.txt") == "german"


def _write(folder: Path, name: str, data: bytes | str) -> Path:
    p = folder / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def test_errors_name_the_file(tmp_path, texts):
    tok = {"t": Tokenizer(BPE({c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz ")}, []))}
    en = _write(tmp_path, "en.txt", "some text")
    bad = _write(tmp_path, "de.txt", b"gr\xf6\xdfe")  # Latin-1, not UTF-8
    with pytest.raises(TokvizError, match="not UTF-8") as e:
        fairness_files(tok, [en, bad], "en")
    assert e.value.path == str(bad)
    empty = _write(tmp_path, "fr.txt", " \n\n")
    with pytest.raises(TokvizError, match="empty") as e:
        fairness_files(tok, [en, empty], "en")
    assert e.value.path == str(empty)
    twin = _write(tmp_path, "page.en.txt", "more text")
    with pytest.raises(TokvizError, match="two files for the language 'en'") as e:
        fairness_files(tok, [en, twin], "en")
    assert "en.txt" in str(e.value) and "page.en.txt" in str(e.value)
    with pytest.raises(TokvizError, match="pivot language 'xx' is not among .*: en"):
        fairness_files(tok, [en], "xx")
    with pytest.raises(TokvizError, match="no such file"):
        fairness_files(tok, [tmp_path / "missing.txt"], "en")
    (tmp_path / "none").mkdir()
    with pytest.raises(TokvizError, match="no .txt files") as e:
        fairness_files(tok, [tmp_path / "none"], "en")
    assert e.value.path == str(tmp_path / "none")
    assert parallel_files([en, en]) == {"en": en}  # (the same file twice is one file)
    assert read_parallel({"en": _write(tmp_path, "bom.txt", "\ufeffhello".encode("utf-8"))}) == {"en": "hello"}


def test_pivot_names_match_without_case_or_dash():
    tok = {"t": Tokenizer(BPE({c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz ")}, []))}
    result = fairness(tok, {"en": "a b", "pt_BR": "ab cd"}, "PT-br")
    assert result.pivot == "pt_BR" and result.languages == ["pt_BR", "en"]


def test_warns_when_files_do_not_look_parallel(texts):
    tok = {"t": Tokenizer(BPE({c: i for i, c in enumerate(sorted(set("".join(texts.values()))))}, []))}
    short = "\n".join(texts["de"].splitlines()[:20])
    result = fairness(tok, {"en": texts["en"], "de": short, "fr": texts["fr"]}, "en")
    assert len(result.warnings) == 1 and result.warnings[0].startswith("de:")
    assert "lines" in result.warnings[0] and "parallel" in result.warnings[0]
    assert fairness_files(tok, [PARALLEL], "en").warnings == []


def test_progress_reaches_the_total_and_cancel_stops(texts):
    tok = {"a": Tokenizer(BPE({c: i for i, c in enumerate(sorted(set("".join(texts.values()))))}, []))}
    tok["b"] = tok["a"]
    seen = []
    fairness(tok, texts, "en", progress=lambda d, t: seen.append((d, t)))
    total = 2 * sum(len(t) for t in texts.values())
    assert seen[-1] == (total, total) and all(d <= t for d, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    cancel = threading.Event()

    def stop_halfway(done, total):
        if done > total // 2:
            cancel.set()

    with pytest.raises(Cancelled):
        fairness(tok, texts, "en", progress=stop_halfway, cancel=cancel, piece_chars=500)


# ---- the command line -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_json_markdown_and_csv(real, capsys):
    qwen = real("qwen2.5/tokenizer.json")
    cl100k = real("cl100k_base.tiktoken")
    assert main(["fairness", "-t", str(qwen), "-t", str(cl100k), str(PARALLEL), "--pivot", "en", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ref = _hf_reference(qwen)
    name = data["tokenizers"][0]
    for lang in ("en", "ru", "zh_CN"):
        text = (PARALLEL / f"whatis.{lang}.txt").read_text(encoding="utf-8")
        assert data["figures"][name][lang]["tokens"] == len(ref.encode(text, add_special_tokens=False).ids)
    assert data["figures"][name]["en"]["premium"] == 1.0 and data["figures"][name]["zh_CN"]["strr"] is None
    assert {d["language"] for d in data["languages"]} == set(LANGUAGES) and data["pivot"] == "en"
    assert "word_definition" in data and data["warnings"] == []

    assert main(["fairness", "-t", str(cl100k), str(PARALLEL / "whatis.en.txt"), str(PARALLEL / "whatis.ja.txt")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| language |") and "| ja |" in out and "n/a" in out and "ja:" in out

    assert main(["fairness", "-t", str(cl100k), "--table", "csv"]) == 0  # no files: the shipped sample
    rows = capsys.readouterr().out.splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == sorted(LANGUAGES, key=lambda lang: (lang != "en", lang))

    assert main(["fairness", "-t", str(cl100k), str(PARALLEL), "--pivot", "ru", "--table", "csv", "--long"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("tokenizer,language,tokens,premium")
    assert len(lines) == 1 + len(LANGUAGES) and lines[1].split(",")[1:4:2] == ["ru", "1.0"]


def test_cli_errors(real, capsys, tmp_path):
    cl100k = real("cl100k_base.tiktoken")
    assert main(["fairness", "-t", str(cl100k), str(PARALLEL), "--pivot", "xx"]) == 2
    assert "pivot language 'xx'" in capsys.readouterr().err
    bad = _write(tmp_path, "de.txt", b"\xff\xfe")
    assert main(["fairness", "-t", str(cl100k), str(PARALLEL / "whatis.en.txt"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "not UTF-8" in err
    assert main(["fairness", str(PARALLEL)]) == 2
    assert "-t" in capsys.readouterr().err


@pytest.mark.shared
def test_llama3_from_shared_equals_hf_tokenizers(texts):
    from _shared import SHARED_TOKENIZER_FILES, need, reference

    path = need(SHARED_TOKENIZER_FILES["llama3"])
    ref = _hf_reference(path)
    result = fairness({"llama3": reference(path)}, texts, "en", piece_chars=1000)  # (loaded once per session)
    counts = {lang: len(ref.encode(text, add_special_tokens=False).ids) for lang, text in texts.items()}
    assert [f.tokens for f in result.figures["llama3"].values()] == [counts[lang] for lang in result.languages]
    assert result.premiums("llama3") == pytest.approx([counts[lang] / counts["en"] for lang in result.languages])
