"""sentencepiece BPE models written as tokenizer.json: exact or refused, decided per model.

HF's Precompiled normalizer applies a character map grapheme cluster by cluster, sentencepiece
by the longest rule anywhere; `charsmap_hf_problem` walks a model's rules and refuses the export
when a text comes out differently (nmt_nfkc maps), showing the text.  A model it accepts is
written, read back by HF tokenizers, and HF gives sentencepiece's ids on texts rich in combining
marks, Hangul jamo, Indic scripts, emoji sequences and half-width kana; a model it refuses is
written anyway (the HF components, bypassing the check) to show that HF really differs there.
In both cases tokviz's reading of the written tokenizer.json gives HF's ids (the tokenizer.json
contract), on the same texts and on random grapheme-heavy ones.
"""
from __future__ import annotations

import ast
import json
import lzma
import random
from pathlib import Path

import pytest

import tokviz
from tokviz.errors import TokvizError
from tokviz.formats.hf_json_writer import tokenizer_to_json, write_hf_json
from tokviz.formats.sentencepiece import read_sentencepiece
from tokviz.formats.sentencepiece_to_hf import charsmap_hf_problem, sentencepiece_as_hf, sentencepiece_hf_problem

spm = pytest.importorskip("sentencepiece")
tk = pytest.importorskip("tokenizers")

REAL = Path(__file__).parent / "data" / "real"
RESOURCES = Path(__file__).parents[1] / "resources"
REAL_MODELS = {
    "botchan_en_bpe_1000": REAL / "sentencepiece-suite" / "botchan_en_bpe_1000.model.xz",
    "mistral-v1": REAL / "mistral-v1.model.xz",
    "mistral-v7": REAL / "mistral-v7.model.xz",
}
# trained here: sentencepiece's rule sets, and rule files of our own
TRAINED = {
    "identity": dict(normalization_rule_name="identity"),
    "nmt_nfkc": dict(normalization_rule_name="nmt_nfkc"),
    "nfkc_cf": dict(normalization_rule_name="nfkc_cf"),
    "safe_rules": dict(rules="9\t20\n1F600\t1F642\n"),  # a control and a 4-byte character
    "cross_cluster": dict(rules="61 62\t78\n"),  # "ab" -> "x": two clusters as one rule
    "mark_after_mapped": dict(rules="41\t61\n"),  # "A" -> "a": "A" + U+0301 is one cluster
}
EXPORTABLE = {"mistral-v1", "mistral-v7", "identity", "safe_rules"}

MARKS = [chr(c) for c in range(0x300, 0x370)] + ["\u3099", "\u309a", "\uff9e", "\uff9f", "\u200d", "\ufe0f", "\u20e3",
                                                 "\u0e31", "\u094d", "\u09cd", "\U0001f3fd"]
BASES = list("aeiouAEnNcCx") + ["Ａ", "ｶ", "ﬁ", "①", "か", "は", "\u1100", "\u1161", "\u11a8", "क", "ष", "ষ", "👍", "ℌ",
                                 "Å", "ｱ", "ﾞ", "\u3131", "ñ", "😀", "\t", "한", "\u0600"]


def rich_texts() -> list[str]:
    fixed = [
        "e\u0301 a\u0308\u0323 o\u0302\u0301\u0300 x\u0301\u0301 Ａ\u0301 ﬁ\u0301 ①\u0308 ｶﾞ ﾊﾟ ｶﾞｷﾞ",
        "\u1100\u1161 \u1100\u1161\u11a8 \u1112\u1161\u11ab\u1100\u1173\u11af \u3131\u314f \u110b\u1167\u11bc 한국어",
        "हिन्दी क्षत्रिय स्त्री द्ध्र्य", "বাংলা ক্ষ্ম", "தமிழ் க்ஷ ஸ்ரீ", "മലയാളം ന്റെ", "ไทย น้ำ",
        "👨\u200d👩\u200d👧\u200d👦 👍🏽 🏳️\u200d🌈 🇯🇵🇺🇸 ❤️ 🧑🏾\u200d💻 #️⃣ 1️⃣ 😀\u0301",
        "Å Ω K ℃ ㍻ ½ ² ｱｲｳ ＡＢＣ １２３ ﾊﾝｶｸ", "\u0301abc \u200d\u200c", "a\u0300\u0301\u0302\u0303\u0304",
        "Ａ\u0308\u0323 ｶ\u3099 か\u3099 は\u309a", "\u00a0 \u3000 \u2003 tab\tend\t\tx", "Ǆ ß ẞ ﬀ ﬄ ab abab",
        "Hello, world! The quick brown fox.",
    ]
    rng = random.Random(36)
    made = []
    for _ in range(300):
        made.append("".join(rng.choice(BASES) + "".join(rng.choice(MARKS) for _ in range(rng.randint(0, 3)))
                            + rng.choice(["", " ", ""]) for _ in range(rng.randint(1, 8))))
    return fixed + made


def random_grapheme_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = [chr(c) for c in range(0x300, 0x370)] + [chr(c) for c in range(0x900, 0x980)] + \
           [chr(c) for c in range(0x1100, 0x1200, 3)] + [chr(c) for c in range(0xFF61, 0xFFA0)] + \
           [chr(c) for c in range(0x1F1E6, 0x1F200)] + ["\u200d", "\ufe0f", "\u20e3", "👍", "❤", "🏽", "ﬁ", "①"]
    common = [chr(c) for c in range(0x20, 0x7F)]
    return ["".join(rng.choice(pool) if rng.random() < 0.6 else rng.choice(common) for _ in range(rng.randint(1, 25)))
            for _ in range(count)]


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sp-export")
    out = {}
    for name, packed in REAL_MODELS.items():
        out[name] = root / f"{name}.model"
        out[name].write_bytes(lzma.decompress(packed.read_bytes()))
    for name, options in TRAINED.items():
        options = dict(options)
        rules = options.pop("rules", None)
        if rules:
            tsv = root / f"{name}.tsv"
            tsv.write_text(rules, encoding="utf-8")
            options["normalization_rule_tsv"] = str(tsv)
        spm.SentencePieceTrainer.train(input=str(RESOURCES / "training.txt"), model_prefix=str(root / name),
                                       vocab_size=600, model_type="bpe", character_coverage=1.0, minloglevel=2,
                                       **options)
        out[name] = root / f"{name}.model"
    return out


def _reserved_free(sp, texts):
    """The texts without a control or unknown piece typed in them (HF matches those as special
    tokens; sentencepiece never does)."""
    reserved = [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if sp.is_control(i) or sp.is_unknown(i)]
    return [t for t in texts if not any(r in t for r in reserved)]


def _written(tok, path: Path, *, checked: bool) -> Path:
    if checked:
        write_hf_json(tok, path)
    else:  # the HF components as the writer builds them, without the check that refuses them
        path.write_text(json.dumps(tokenizer_to_json(sentencepiece_as_hf(tok)), ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", list(REAL_MODELS) + list(TRAINED))
def test_export_is_exact_or_refused(models, tmp_path, name):
    path = models[name]
    tok = read_sentencepiece(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    problem = sentencepiece_hf_problem(tok)
    assert (problem is None) == (name in EXPORTABLE), problem
    if problem is not None:
        assert "grapheme cluster" in problem
        with pytest.raises(TokvizError, match="grapheme cluster"):
            write_hf_json(tok, tmp_path / "refused.json")
    out = _written(tok, tmp_path / "tokenizer.json", checked=problem is None)
    hf = tk.Tokenizer.from_file(str(out))
    again = tokviz.load(out)
    texts = _reserved_free(sp, rich_texts())
    same_as_sp = 0
    for text in texts:
        ids = hf.encode(text, add_special_tokens=False).ids
        assert again.encode(text).ids == ids, text  # tokviz reads the written file as HF does
        same_as_sp += ids == sp.encode(text)
    if problem is None:
        assert same_as_sp == len(texts)
        for text in texts:
            ids = sp.encode(text)
            if sp.unk_id() not in ids:  # (HF shows the unknown piece, sentencepiece " ⁇ ")
                assert hf.decode(ids) == sp.decode(ids), text
    else:
        assert same_as_sp < len(texts)  # the refusal is real: HF differs on some of these texts


@pytest.mark.parametrize("name", ["botchan_en_bpe_1000", "nmt_nfkc", "nfkc_cf", "mark_after_mapped"])
def test_written_precompiled_read_as_hf(models, tmp_path, name):
    """The Precompiled normalizer of a written file, per grapheme cluster, read by tokviz as HF
    reads it: random texts of combining marks, Indic letters, jamo, half-width kana, flags."""
    tok = read_sentencepiece(models[name])
    out = _written(tok, tmp_path / "tokenizer.json", checked=False)
    hf = tk.Tokenizer.from_file(str(out))
    again = tokviz.load(out)
    for text in random_grapheme_texts(600, 5):
        assert again.encode(text).ids == hf.encode(text, add_special_tokens=False).ids, text


def _witness(problem: str) -> str:
    """The text a refusal shows ("... in HF ...: 'ab' (U+0061 U+0062) becomes ...")."""
    return ast.literal_eval(problem.split("anywhere: ")[1].split(" (U+")[0])


def test_refusal_shows_a_text_that_differs(models):
    """The witness in the reason is a text HF's Precompiled and sentencepiece's normalizer turn
    into different strings (checked with sentencepiece's own normalizer and HF's)."""
    for name in ("nmt_nfkc", "cross_cluster", "mark_after_mapped"):
        tok = read_sentencepiece(models[name])
        problem = charsmap_hf_problem(tok.text_normalizer.charsmap)
        witness = _witness(problem)
        sp_norm = spm.SentencePieceNormalizer(model_file=str(models[name])) if hasattr(spm, "SentencePieceNormalizer") else None
        hf_norm = tk.normalizers.Precompiled(tok.text_normalizer.charsmap.blob)
        theirs = hf_norm.normalize_str(witness)
        ours = tok.text_normalizer.normalize_str(witness)
        assert ours.lstrip("\u2581") != theirs, (name, witness)
        if sp_norm is not None:
            assert sp_norm.normalize(witness).lstrip("\u2581") == ours.lstrip("\u2581")


def test_tied_scores_checked(models, tmp_path):
    """Pieces of equal score: sentencepiece merges the leftmost first, HF by rank.  Mistral's
    whitespace pieces share a score and still come out alike (accepted); NaN scores given to a
    fifth of the pieces make words that differ (refused, with the word)."""
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    assert sentencepiece_hf_problem(read_sentencepiece(models["mistral-v1"])) is None
    m = pb.ModelProto()
    m.ParseFromString(models["mistral-v1"].read_bytes())
    rng = random.Random(1)
    for p in m.pieces:
        if p.type == p.NORMAL and rng.random() < 0.2:
            p.score = float("nan")
    path = tmp_path / "nan.model"
    path.write_bytes(m.SerializeToString())
    tok = read_sentencepiece(path)
    problem = sentencepiece_hf_problem(tok)
    assert problem and "share a score" in problem
    word = ast.literal_eval(problem.split(", and ")[-1].split(" comes out")[0])
    out = _written(tok, tmp_path / "nan.json", checked=False)
    hf = tk.Tokenizer.from_file(str(out))
    sp = spm.SentencePieceProcessor(model_file=str(path))
    text = word.replace("\u2581", " ")
    assert hf.encode(text, add_special_tokens=False).ids != sp.encode(text)
