"""Perturbations (analysis.perturb), the robustness analysis (analysis.robustness) and
`tokviz robustness`.

The perturbation tables are checked against Unicode character names and NFKC; the token counts
against the reference libraries (HF tokenizers, sentencepiece, tiktoken) on the perturbed text;
and two derived known answers: BERT-MiniLM lowercases and strips accents, so case and diacritics
perturbations change none of its ids, and an NFKC normalizer (sentencepiece's nmt_nfkc) folds
full-width forms and mathematical styled letters back, so they change none of its ids either.
Real tokenizers come from tests/data/real (no ../shared needed) unless a test says otherwise.
"""
from __future__ import annotations

import csv
import io
import json
import lzma
import math
import threading
import unicodedata
from pathlib import Path

import pytest

import tokviz
from _shared import CORPUS, TOKENIZERS, need, reference
from tokviz.analysis import perturb as pt
from tokviz.analysis.robustness import (
    BLOCK_CHARS,
    compare_perturbed,
    corpus_robustness,
    perturbed_pieces,
    split_pieces,
    touched_tokens,
)
from tokviz.cli import main
from tokviz.errors import Cancelled

REAL = Path(__file__).parent / "data" / "real"
ENGLISH = ("The quick brown fox jumps over the lazy dog. Modern clear models read 10 Objects at 50 Hz; "
           "Hello World, tokenizers cut text into pieces!")
ACCENTED = "Café naïve résumé Zürich Ångström façade São Paulo crème brûlée élan Ægir"
ASCII_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Name -> the file of tests/data/real unpacked (xz) into a temporary folder."""
    root = tmp_path_factory.mktemp("real")

    def get(rel: str) -> Path:
        dest = root / rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            src = REAL / rel
            dest.write_bytes(src.read_bytes() if src.exists() else lzma.decompress((REAL / f"{rel}.xz").read_bytes()))
        return dest

    return get


@pytest.fixture(scope="module")
def qwen(real):
    hf = pytest.importorskip("tokenizers")
    path = real("qwen2.5/tokenizer.json")
    return tokviz.load(path), hf.Tokenizer.from_file(str(path)), path


@pytest.fixture(scope="module")
def bert(real):
    hf = pytest.importorskip("tokenizers")
    path = real("bert-minilm/tokenizer.json")
    ref = hf.Tokenizer.from_file(str(path))
    ref.no_truncation()  # (the file truncates at 128 tokens; tokviz counts every token)
    ref.no_padding()
    return tokviz.load(path), ref, path


@pytest.fixture(scope="module")
def botchan(real):
    """sentencepiece's own test model (Unigram, 1000 pieces, normalizer nmt_nfkc)."""
    spm = pytest.importorskip("sentencepiece")
    path = real("sentencepiece-suite/botchan_en_unigram_1000.model")
    return tokviz.load(path), spm.SentencePieceProcessor(model_file=str(path)), path


def _hf_ids(ref, text: str) -> list[int]:
    return ref.encode(text, add_special_tokens=False).ids


def _replay(p: pt.Perturbed) -> str:
    """The perturbed text rebuilt from the original and the spans alone."""
    out, pos = [], 0
    for s in p.spans:
        out.append(p.original[pos:s.start])
        out.append(p.text[s.new_start:s.new_end])
        pos = s.end
    out.append(p.original[pos:])
    return "".join(out)


# ---- the tables, against Unicode ----------------------------------------------------------------

# Written from the Unicode charts, apart from the module: the letter names of Cyrillic and Greek
# letters drawn like a Latin letter.
LOOKALIKE_NAMES = {
    "a": {"A", "ALPHA"}, "b": {"VE", "BETA"}, "c": {"ES"}, "d": {"KOMI DE"}, "e": {"IE", "EPSILON"},
    "h": {"SHHA", "EN", "ETA"}, "i": {"BYELORUSSIAN-UKRAINIAN I", "IOTA"}, "j": {"JE"},
    "k": {"KA", "KAPPA"}, "m": {"EM", "MU"}, "n": {"NU"}, "o": {"O", "OMICRON"}, "p": {"ER", "RHO"},
    "q": {"QA"}, "s": {"DZE"}, "t": {"TE", "TAU"}, "v": {"NU"}, "w": {"WE"}, "x": {"HA", "CHI"},
    "y": {"U", "STRAIGHT U", "UPSILON"}, "z": {"ZETA"},
}


def test_homoglyphs_are_other_scripts_that_look_alike():
    assert len(pt.HOMOGLYPHS) >= 25
    for src, dst in pt.HOMOGLYPHS.items():
        src_name, dst_name = unicodedata.name(src), unicodedata.name(dst)
        assert src_name.startswith("LATIN ")
        script, case, _, letter = dst_name.split(" ", 3)
        assert script in ("CYRILLIC", "GREEK"), dst_name
        assert case == ("CAPITAL" if src.isupper() else "SMALL"), (src, dst_name)
        assert letter in LOOKALIKE_NAMES[src.lower()], (src, dst_name)
        assert unicodedata.category(dst) == unicodedata.category(src)
        # not a compatibility variant: normalisation does not undo a homoglyph
        assert unicodedata.normalize("NFKC", dst) != src


def test_styled_letters_are_mathematical_and_fold_back_under_nfkc():
    words = {"bold": "BOLD", "italic": "ITALIC", "sans": "SANS-SERIF", "mono": "MONOSPACE"}
    for style, table in pt.STYLED.items():
        assert set(ASCII_LETTERS) <= set(table)
        assert set("0123456789") <= set(table) or style == "italic"  # (there are no italic digits)
        for src, dst in table.items():
            name = unicodedata.name(dst)
            hole = (style, src, name) == ("italic", "h", "PLANCK CONSTANT")  # (ℎ was encoded before the block)
            assert name.startswith(f"MATHEMATICAL {words[style]} ") or hole
            assert unicodedata.normalize("NFKC", dst) == src, (style, src, name)
            assert ord(dst) > 0xFFFF or dst == "\u210e"


def test_fullwidth_forms_fold_back_under_nfkc():
    assert len(pt.FULLWIDTH) == 94
    for src, dst in pt.FULLWIDTH.items():
        assert unicodedata.name(dst).startswith("FULLWIDTH ")
        assert unicodedata.normalize("NFKC", dst) == src


def test_accented_letters_are_the_letter_with_one_mark():
    assert set(pt.ACCENTED) >= set(ASCII_LETTERS) - {"Q", "q"}
    for src, forms in pt.ACCENTED.items():
        for form in forms:
            decomposed = unicodedata.normalize("NFD", form)
            assert len(form) == 1 and decomposed[0] == src and len(decomposed) == 2
            assert unicodedata.category(decomposed[1]) == "Mn"
            assert unicodedata.name(form).startswith(unicodedata.name(src) + " WITH ")


def test_plain_letters_drop_only_marks():
    assert len(pt.PLAIN) > 500
    for src, dst in pt.PLAIN.items():
        decomposed = unicodedata.normalize("NFD", src)
        if decomposed == src:  # a letter with a stroke: by name
            assert unicodedata.name(src) == unicodedata.name(dst) + " WITH STROKE"
        else:
            assert decomposed[0] == dst
            assert all(unicodedata.category(m) == "Mn" for m in decomposed[1:])


def test_case_swap_table_has_every_letter_that_swaps_one_for_one():
    every = {}
    for cp in range(0x110000):
        c = chr(cp)
        w = c.swapcase()
        if w != c and len(w) == 1 and w.swapcase() == c and unicodedata.category(c) in ("Lu", "Ll"):
            every[c] = w
    assert pt._swap_table() == every
    assert "ß" not in every and every["ǅ".lower()] == "Ǆ"


# the accent's name in a letter's Unicode name -> the LaTeX command (from the LaTeX manual)
LATEX_ACCENT_BY_NAME = {"ACUTE": "\\'", "GRAVE": "\\`", "CIRCUMFLEX": "\\^", "DIAERESIS": '\\"', "TILDE": "\\~",
                        "MACRON": "\\=", "DOT ABOVE": "\\.", "CEDILLA": "\\c", "CARON": "\\v", "BREVE": "\\u",
                        "RING ABOVE": "\\r", "DOUBLE ACUTE": "\\H", "OGONEK": "\\k", "DOT BELOW": "\\d"}


def test_latex_escapes():
    known = {"é": "\\'e", "ü": '\\"u', "È": "\\`E", "ç": "\\c{c}", "ñ": "\\~n", "í": "\\'{\\i}", "š": "\\v{s}",
             "ő": "\\H{o}", "ß": "\\ss{}", "ø": "\\o{}", "&": "\\&", "%": "\\%", "_": "\\_", "#": "\\#",
             "\\": "\\textbackslash{}", "α": "$\\alpha$", "λ": "$\\lambda$", "Ω": "$\\Omega$", "≤": "$\\leq$",
             "×": "$\\times$", "∞": "$\\infty$"}
    for c, want in known.items():
        assert pt.LATEX[c] == want, c
    for c, got in pt.LATEX.items():
        name = unicodedata.name(c)
        if name.startswith("LATIN ") and " WITH " in name and not name.endswith(" WITH STROKE"):
            accent = name.split(" WITH ", 1)[1]
            assert got.startswith(LATEX_ACCENT_BY_NAME[accent]), (c, got)
            assert unicodedata.normalize("NFD", c)[0] in got.replace("\\i", "i")
        if name.startswith("GREEK CAPITAL"):  # (Alpha, Beta... are Latin capitals in LaTeX)
            assert got[2].isupper() and "ALPHA" not in name


# ---- the perturbations' behaviour ---------------------------------------------------------------


@pytest.mark.parametrize("name", list(pt.PERTURBATIONS))
def test_seeded_deterministic_and_spans_replay(name):
    text = ENGLISH + " " + ACCENTED + " x_1 & y ≤ α·β, e\u0301 Straße 2024"
    a = pt.perturb(name, text, 0.5, seed=7)
    b = pt.perturb(name, text, 0.5, seed=7)
    assert (a.text, a.spans) == (b.text, b.spans)
    assert _replay(a) == a.text
    for s in a.spans:  # a span is a real change, and spans are sorted and apart
        assert a.original[s.start:s.end] != a.text[s.new_start:s.new_end]
    assert all(x.end <= y.start for x, y in zip(a.spans, a.spans[1:]))
    assert pt.perturb(name, text, 0.0).text == text
    assert a.eligible > 0


@pytest.mark.parametrize("name", ["homoglyph", "styled-bold", "styled-mono", "fullwidth", "random-case", "latex"])
def test_rate_is_the_share_of_eligible_units_changed(name):
    text = ENGLISH * 3 + " & % α ≤"
    full = pt.perturb(name, text, 1.0)
    for rate in (0.1, 0.25, 0.5, 0.9):
        p = pt.perturb(name, text, rate, seed=3)
        assert p.eligible == full.eligible
        assert p.changed == math.floor(rate * p.eligible + 0.5)  # (rounded half up)
    assert full.changed == full.eligible
    seeds = {tuple(pt.perturb(name, text, 0.3, seed=s).spans) for s in range(5)}
    assert len(seeds) > 1  # the seed picks which ones


def test_whole_text_answers():
    assert pt.perturb("upper", ENGLISH, 1.0).text == ENGLISH.upper()
    assert pt.perturb("lower", ENGLISH, 1.0).text == ENGLISH.lower()
    assert pt.perturb("random-case", ENGLISH, 1.0).text == ENGLISH.swapcase()
    for name in ("fullwidth", "styled-bold", "styled-italic", "styled-sans", "styled-mono"):
        assert unicodedata.normalize("NFKC", pt.perturb(name, ENGLISH, 1.0).text) == ENGLISH
    stripped = "".join(c for c in unicodedata.normalize("NFD", ACCENTED) if unicodedata.category(c) != "Mn")
    assert pt.perturb("diacritics-remove", ACCENTED + " e\u0301", 1.0).text == unicodedata.normalize("NFC", stripped) + " e"
    assert pt.perturb("diacritics-remove", "Ørsted łódź", 1.0).text == "Orsted lodz"
    added = pt.perturb("diacritics-add", "abc", 1.0).text
    assert [unicodedata.normalize("NFD", c)[0] for c in added] == list("abc")
    assert pt.perturb("homoglyph", "Hello", 1.0).text == "\u041d\u0435ll\u043e"
    assert pt.perturb("latex", "Café & naïve", 1.0).text == 'Caf\\\'e \\& na\\"{\\i}ve'
    assert pt.perturb("random-case", "ß", 1.0).eligible == 0  # (ß -> SS is spelling, not case)


def test_ocr_confusions():
    assert pt.perturb("ocr", "rn", 1.0).text == "m"
    assert pt.perturb("ocr", "cl", 1.0).text == "d"
    assert pt.perturb("ocr", "O", 1.0).text == "0"
    assert pt.perturb("ocr", "0", 1.0).text == "O"
    assert pt.perturb("ocr", "vv", 1.0).text == "w"
    assert pt.perturb("ocr", "l", 1.0).text in ("1", "I")
    p = pt.perturb("ocr", "modern", 1.0)  # m | o | d | e | rn: five places
    assert p.eligible == 5 and p.text == "rn0clcm"


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown perturbation"):
        pt.perturb("nope", "x")
    with pytest.raises(ValueError, match="rate"):
        pt.perturb("upper", "x", 1.5)


# ---- real tokenizers: reference libraries and derived known answers ------------------------------


@pytest.mark.parametrize("name", list(pt.PERTURBATIONS))
def test_qwen_counts_match_hf_tokenizers_on_the_perturbed_text(qwen, name):
    tok, ref, _ = qwen
    text = (REAL / "texts.txt").read_text(encoding="utf-8")[:3000]
    result = compare_perturbed({"qwen": tok}, text, name, rate=0.4, seed=1)
    d = result.diffs[0]
    assert list(d.original.ids) == _hf_ids(ref, text)
    assert list(d.perturbed.ids) == _hf_ids(ref, result.perturbed.text)
    assert result.rows()[0]["change"] == len(_hf_ids(ref, result.perturbed.text)) - len(_hf_ids(ref, text))


def test_homoglyphs_and_styles_inflate_a_byte_level_bpe(qwen):
    tok, ref, _ = qwen
    for name in ("homoglyph", "styled-bold", "fullwidth", "ocr"):
        p = pt.perturb(name, ENGLISH, 0.5)
        assert len(_hf_ids(ref, p.text)) > len(_hf_ids(ref, ENGLISH)), name


@pytest.mark.parametrize("name", ["upper", "lower", "random-case", "diacritics-add", "diacritics-remove"])
def test_bert_lowercases_and_strips_accents_so_case_and_diacritics_change_nothing(bert, name):
    tok, ref, _ = bert
    for text in (ENGLISH, ACCENTED):
        for seed in range(3):
            p = pt.perturb(name, text, 0.6, seed=seed)
            assert p.changed > 0 or name == "lower" or (name == "diacritics-remove" and text == ENGLISH)
            assert _hf_ids(ref, p.text) == _hf_ids(ref, text)  # the reference agrees: the derived answer holds
            r = compare_perturbed({"bert": tok}, text, name, 0.6, seed)
            assert list(r.diffs[0].perturbed.ids) == list(r.diffs[0].original.ids)
            assert r.diffs[0].ratio == 1.0


@pytest.mark.parametrize("name", ["fullwidth", "styled-bold", "styled-italic", "styled-sans", "styled-mono"])
def test_an_nfkc_normalizer_absorbs_fullwidth_and_styled_letters(botchan, name):
    tok, ref, _ = botchan
    p = pt.perturb(name, ENGLISH, 1.0)
    assert p.changed > 50
    assert ref.encode(p.text) == ref.encode(ENGLISH)
    assert tok.encode_ids(p.text) == tok.encode_ids(ENGLISH) == ref.encode(ENGLISH)


def test_bert_and_homoglyphs_do_change(bert):
    tok, ref, _ = bert
    p = pt.perturb("homoglyph", ENGLISH, 0.5)
    r = compare_perturbed({"bert": tok}, ENGLISH, "homoglyph", 0.5)
    assert r.diffs[0].perturbed_tokens == len(_hf_ids(ref, p.text)) > len(_hf_ids(ref, ENGLISH))


def test_cl100k_counts_match_tiktoken(real, monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import openai_public

    path = real("cl100k_base.tiktoken")
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: load_tiktoken_bpe(str(path)))
    ref = tiktoken.Encoding(**openai_public.cl100k_base())
    tok = tokviz.load(path)
    text = ENGLISH + "\n" + ACCENTED
    for name in pt.PERTURBATIONS:
        r = compare_perturbed({"cl100k": tok}, text, name, 0.5, 2)
        assert r.diffs[0].perturbed_tokens == len(ref.encode_ordinary(r.perturbed.text)), name
        assert r.diffs[0].original_tokens == len(ref.encode_ordinary(text))


def test_touched_tokens_are_those_over_a_change(qwen):
    tok, _, _ = qwen
    r = compare_perturbed({"q": tok}, ENGLISH, "homoglyph", 0.3, 5)
    d = r.diffs[0]
    for enc, touched, spans in ((d.original, d.touched_original, [(s.start, s.end) for s in r.perturbed.spans]),
                                (d.perturbed, d.touched_perturbed, [(s.new_start, s.new_end) for s in r.perturbed.spans])):
        overlapping = {i for i, (a, b) in enumerate(enc.offsets) if any(a < e and s < b for s, e in spans)}
        assert set(touched.tolist()) == overlapping
    deleted = compare_perturbed({"q": tok}, "Cafe\u0301 ok", "diacritics-remove", 1.0)
    assert deleted.perturbed.text == "Cafe ok" and len(deleted.diffs[0].touched_perturbed) == 1
    assert touched_tokens(tok.encode(""), [(0, 0)]).size == 0


def test_map_position_between_the_texts():
    r = compare_perturbed({}, "a & b α c", "latex", 1.0)
    assert r.perturbed.text == "a \\& b $\\alpha$ c"
    text, new = r.perturbed.original, r.perturbed.text
    for pos in range(len(text)):  # every unchanged character maps onto itself
        if text[pos] not in "&α":
            assert new[r.map_position(pos)] == text[pos]
            assert r.map_position(r.map_position(pos), to_perturbed=False) == pos
    assert r.map_position(text.index("α")) == new.index("$")  # inside a change: its start
    assert r.map_position(new.index("alpha"), to_perturbed=False) == text.index("α")


# ---- the corpus ---------------------------------------------------------------------------------


def test_split_pieces():
    text = "para one\nline two\n\n\npara two\n   \n" + ("word " * 3000) + "\n" + "x" * 9000 + "\n\n"
    pieces = split_pieces(text, 1000)
    assert all(0 < len(p) <= 1000 and p.strip() for p in pieces)
    assert pieces[0] == "para one\nline two"
    assert "".join("".join(pieces).split()) == "".join(text.split())  # (only white space between pieces is lost)
    assert pieces[-1] == "x" * 1000 and pieces[-9] == "x" * 1000  # a word longer than a piece is cut anywhere
    assert split_pieces("  \n\n \n") == []


def test_perturbed_pieces_are_the_pieces_of_the_perturbed_blocks():
    text = "".join(f"Line {k}: the quick brown fox & the lazy dog ≤ α.\n{'' if k % 3 else chr(10)}" for k in range(12000))
    assert len(text) > 2 * BLOCK_CHARS  # (three blocks)
    pieces = split_pieces(text, 600)
    for name in ("fullwidth", "upper", "latex", "homoglyph"):
        got = list(perturbed_pieces(text, name, 1.0, 0, max_chars=600))
        assert [g[0] for g in got] == pieces
        if name == "fullwidth":
            assert all(unicodedata.normalize("NFKC", new) == old for old, new, _, _ in got)
        if name == "upper":
            assert all(new == old.upper() for old, new, _, _ in got)
        if name == "latex":
            assert all(new == old.replace("&", "\\&").replace("≤", "$\\leq$").replace("α", "$\\alpha$")
                       for old, new, _, _ in got)
        assert sum(g[3] for g in got) == sum(pt.perturb(name, p, 1.0).eligible for p in pieces)
    # at a lower rate: the share holds per block, and the perturbed pieces are a block's text in order
    got = list(perturbed_pieces(text, "homoglyph", 0.3, 5, max_chars=600))
    changed, eligible = sum(g[2] for g in got), sum(g[3] for g in got)
    assert abs(changed - 0.3 * eligible) <= 3
    first_block = [g for g in got[: next(i for i, g in enumerate(got) if i and g[3])]]
    block_text = pt.perturb("homoglyph", text[: text.index(first_block[-1][0]) + len(first_block[-1][0])], 0.3, "5.0").text
    assert "".join(block_text.split()) == "".join("".join(g[1] for g in first_block).split())


def test_corpus_inflation_matches_reference_counts(qwen, bert):
    tok_q, ref_q, _ = qwen
    tok_b, ref_b, _ = bert
    text = (REAL / "texts.txt").read_text(encoding="utf-8")
    names = ["homoglyph", "upper", "fullwidth"]
    seen = []
    report = corpus_robustness({"qwen": tok_q, "bert": tok_b}, text, names, rate=0.5, seed=4, max_chars=400,
                               progress=lambda d, t: seen.append((d, t)))
    pieces = split_pieces(text, 400)
    assert report.pieces == len(pieces) > 3 and report.chars == len(text)
    assert seen[-1][0] == seen[-1][1] == len(pieces) * 4
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    for name in names:
        perturbed = [new for _, new, _, _ in perturbed_pieces(text, name, 0.5, 4, max_chars=400)]
        for label, ref in (("qwen", ref_q), ("bert", ref_b)):
            orig = [len(_hf_ids(ref, p)) for p in pieces]
            new = [len(_hf_ids(ref, p)) for p in perturbed]
            cell = report.cell(name, label)
            assert cell.original_tokens == sum(orig) == report.original_tokens[label]
            assert cell.perturbed_tokens == sum(new)
            ratios = [n / o for n, o in zip(new, orig) if o]
            assert cell.mean_inflation == pytest.approx(sum(ratios) / len(ratios))
            assert cell.ratio == pytest.approx(sum(new) / sum(orig))
    assert report.cell("upper", "bert").ratio == 1.0  # BERT lowercases
    assert report.cell("homoglyph", "qwen").mean_inflation > 1.2


def test_corpus_cancel(qwen):
    tok, _, _ = qwen
    event = threading.Event()

    def progress(done, total):
        if done > 0:
            event.set()

    with pytest.raises(Cancelled):
        corpus_robustness({"q": tok}, ENGLISH * 500, progress=progress, cancel=event, max_chars=200)


@pytest.mark.shared
def test_corpus_of_megabytes_on_shared_tokenizers():
    path = need(CORPUS / "multi.txt")
    text = path.read_text(encoding="utf-8")[:1_000_000]
    tok = reference(need(TOKENIZERS / "llama3" / "tokenizer.json"))  # (loaded once per session)
    report = corpus_robustness({"llama3": tok}, text, ["homoglyph", "upper"], rate=0.3)
    assert report.pieces > 100
    # (every piece encoded on its own: the total equals the pieces' sum by construction of the pieces)
    assert report.original_tokens["llama3"] == sum(len(tok.encode_ids(p)) for p in split_pieces(text))
    assert report.cell("homoglyph", "llama3").mean_inflation > 1.0


# ---- CLI ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_json_markdown_csv(qwen, bert, tmp_path, capsys):
    _, ref_q, q_path = qwen
    _, _, b_path = bert
    text_file = tmp_path / "t.txt"
    text_file.write_text(ENGLISH + "\n\n" + ACCENTED + "\n", encoding="utf-8")
    args = ["robustness", "-t", str(q_path), "-t", str(b_path), str(text_file), "--perturbation", "homoglyph",
            "--perturbation", "lower", "--rate", "0.5", "--seed", "3"]
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["perturbations"]] == ["homoglyph", "lower"]
    assert data["rate"] == 0.5 and data["seed"] == 3 and data["pieces"] == 2
    want = sum(len(_hf_ids(ref_q, new)) for _, new, _, _ in perturbed_pieces(text_file.read_text(encoding="utf-8"),
                                                                              "homoglyph", 0.5, 3))
    q_name, b_name = data["tokenizers"]
    assert data["perturbations"][0]["tokenizers"][q_name]["perturbed_tokens"] == want
    assert data["perturbations"][1]["tokenizers"][b_name]["corpus_inflation"] == 1.0

    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("| perturbation | changed | eligible |") and "| homoglyph |" in out and "| lower |" in out

    assert main(args + ["--table", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["perturbation"] for r in rows] == ["homoglyph", "lower"]
    want_ratio = data["perturbations"][0]["tokenizers"][q_name]["corpus_inflation"]
    assert float(rows[0][f"{q_name} corpus ×"]) == pytest.approx(want_ratio, abs=1e-4)


def test_cli_sample_text_and_errors(qwen, capsys):
    _, _, q_path = qwen
    assert main(["robustness", "-t", str(q_path), "--perturbation", "upper"]) == 0
    assert "| upper |" in capsys.readouterr().out
    assert main(["robustness", "-t", str(q_path), "--perturbation", "sideways"]) == 2
    assert "unknown perturbation 'sideways'" in capsys.readouterr().err
    assert main(["robustness", "-t", str(q_path), "--rate", "2"]) == 2
    assert "--rate" in capsys.readouterr().err
    assert main(["robustness", "-t", str(q_path), "/nonexistent/file.txt"]) == 2
    assert "/nonexistent/file.txt" in capsys.readouterr().err


def test_cli_standard_input_and_comma_separated_names(qwen, bert, capsys, monkeypatch):
    _, ref_b, b_path = bert
    text = "HELLO World\n\nCafé NAÏVE"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))
    assert main(["robustness", "-t", str(b_path), "-", "--perturbation", "lower,diacritics-remove", "--rate", "1",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["perturbations"]] == ["lower", "diacritics-remove"]
    name = data["tokenizers"][0]
    assert data["original_tokens"][name] == len(_hf_ids(ref_b, "HELLO World")) + len(_hf_ids(ref_b, "Café NAÏVE"))
    assert all(p["tokenizers"][name]["corpus_inflation"] == 1.0 for p in data["perturbations"])  # BERT: no change
