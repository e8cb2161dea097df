"""The split regexes and normalizers of tiktoken and HF tokenizers files on the newest Unicode.

tiktoken's regex engine (Rust's regex crate) and HF tokenizers' (Oniguruma) each class characters
by a Unicode version of their own, not the `regex` module's that tokviz runs their patterns with:
a character of Unicode 17 (CJK Extension J, Sidetic, Tolong Siki, the newest emoji) is unassigned
to them, and U+0295 is a lower-case letter.  Each file is encoded by tokviz (Python and native
paths) and by its reference library, ids and (tokenizer.json) offsets compared, on every code point
of the blocks added in Unicode 14 to 17, every code point whose class the engines and the `regex`
module disagree on, and every 509th code point of the rest (every 128th CJK
ideograph of the extensions), each in contexts that reveal its
class (after a letter, a digit, a space, an apostrophe, an upper-case letter, itself).

HF's normalizers too have Unicode versions of their own: Lowercase (Rust's char::to_lowercase, one
character at a time: no final sigma), StripAccents and BertNormalizer's strip_accents (older mark
tables), NFC/NFD/NFKC/NFKD (older normalization tables); each is compared with tokviz's on every
code point, and a real uncased BERT file through its three encode paths.
"""
from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.core import normalizers as T
from tokviz.core import reference_unicode
from tokviz.core.patterns import compile_pattern, reference_text

tiktoken = pytest.importorskip("tiktoken")
tk = pytest.importorskip("tokenizers")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402
from tiktoken_ext import openai_public  # noqa: E402

REAL = Path(__file__).parent / "data" / "real"
RECENT_BLOCKS = [
    (0x31350, 0x323AF), (0x2EBF0, 0x2EE5F), (0x323B0, 0x3347F),  # CJK Extensions H, I, J
    (0x1FA70, 0x1FAFF), (0x1CC00, 0x1CEBF),  # the newest emoji, legacy computing symbols
    (0x105C0, 0x105FF), (0x10D40, 0x10D8F), (0x11380, 0x113FF), (0x11BC0, 0x11BFF), (0x16100, 0x1613F),
    (0x16D40, 0x16D7F), (0x1E5D0, 0x1E5FF),  # Todhri, Garay, Tulu-Tigalari, Sunuwar, Gurung Khema, Kirat Rai, Ol Onal
    (0x10940, 0x1095F), (0x11DB0, 0x11DEF), (0x16EA0, 0x16EDF), (0x1E6C0, 0x1E6FF), (0x18D80, 0x18DFF),  # 17
    (0x10EC0, 0x10EFF), (0x11F00, 0x11F5F), (0x1E4D0, 0x1E4FF), (0x1E030, 0x1E08F),  # 15
    (0x0870, 0x089F), (0x1AB0, 0x1AFF), (0x2E40, 0x2E5F), (0xA7C0, 0xA7FF), (0x1DF00, 0x1DFFF),  # additions 14+
]


def _replaced_code_points() -> set[int]:
    out = set()
    for table in (reference_unicode.RUST, reference_unicode.ONIG):
        for item in table.split():
            first, _, last = item.partition(":")[0].partition("-")
            out.update(range(int(first, 16), int(last or first, 16) + 1))
    return out


CJK_EXTENSIONS = [(0x2A700, 0x2EE5F), (0x30000, 0x3347F)]  # ideographs alike: every 128th of them


def _sampled(cps: set[int]) -> list[int]:
    return sorted(cp for cp in cps - set(range(0xD800, 0xE000))
                  if cp % 128 == 0 or not any(a <= cp <= b for a, b in CJK_EXTENSIONS))


CODE_POINTS = _sampled({cp for a, b in RECENT_BLOCKS for cp in range(a, b + 1)} | set(range(0, 0x110000, 509))
                       | _replaced_code_points())
BLOCK = 128


def window(cp: int) -> str:
    c = chr(cp)
    near = [chr(x) if 0 <= x < 0x110000 and not 0xD800 <= x < 0xE000 else "x" for x in (cp + 1, cp - 1)]
    return f"a{c}1{c} {c}!{c}中{c}A{c}a{c}'S{c}{c}\n{c}{near[0]}{near[1]}{c}  {c}'ll {c}123"


def _tiktoken_pair(name: str, tmp_path):
    path = tmp_path / f"{name}.tiktoken"
    path.write_bytes(lzma.decompress((REAL / f"{name}.tiktoken.xz").read_bytes()))
    ranks = load_tiktoken_bpe(str(path))
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *a, **k: ranks
    try:
        spec = getattr(openai_public, name)()
    finally:
        openai_public.load_tiktoken_bpe = original
    enc = tiktoken.Encoding(**spec)
    return path, lambda text: (enc.encode_ordinary(text), None)


def _hf_pair(path: Path, tmp_path):
    if path.suffix == ".xz":
        plain = tmp_path / "tokenizer.json"
        plain.write_bytes(lzma.decompress(path.read_bytes()))
        path = plain
    hf = tk.Tokenizer.from_file(str(path))

    def reference(text):
        e = hf.encode(text, add_special_tokens=False)
        return e.ids, [tuple(o) for o in e.offsets]

    return path, reference


FILES = {
    "cl100k_base": lambda tmp: _tiktoken_pair("cl100k_base", tmp),
    "o200k_base": lambda tmp: _tiktoken_pair("o200k_base", tmp),
    "deepseek-v4": lambda tmp: _hf_pair(REAL / "deepseek-v4" / "tokenizer.json.xz", tmp),
    "qwen2.5": lambda tmp: _hf_pair(REAL / "qwen2.5" / "tokenizer.json.xz", tmp),  # NFC first
}


def _same(tok, reference, text: str) -> bool:
    ids, offsets = reference(text)
    e = tok.encode(text)
    return e.ids == ids and (offsets is None or [tuple(o) for o in e.offsets] == offsets)


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_every_kind_of_character_is_split_as_the_reference_splits_it(name, tmp_path):
    path, reference = FILES[name](tmp_path)
    variants = {"python": tokviz.load(path).use_native(False), "native": tokviz.load(path).use_native(True)}
    assert variants["native"].native_encoder() is not None
    differ: dict[str, list[str]] = {label: [] for label in variants}
    for k in range(0, len(CODE_POINTS), BLOCK):
        block = CODE_POINTS[k:k + BLOCK]
        text = " ".join(window(cp) for cp in block)
        for label, tok in variants.items():
            if not _same(tok, reference, text):
                differ[label] += [f"U+{cp:04X}" for cp in block if not _same(tok, reference, window(cp))]
    assert differ == {label: [] for label in variants}, {label: cps[:20] for label, cps in differ.items()}


def test_stand_ins_keep_the_text_length_and_the_pieces_text():
    text = "ab\U000323b0\u0295 c\U00031350 1\U00011de0"
    for dialect in ("rust", "onig"):
        replaced = reference_text(text, dialect)
        assert len(replaced) == len(text) and replaced != text
        pieces = [m.group() for m in compile_pattern(r"\p{L}+|\S", dialect).finditer(text)]
        assert "".join(pieces) == text.replace(" ", "")
    assert reference_text("plain ascii", "rust") == "plain ascii"


def test_replace_decoder_pattern_keeps_the_original_characters(tmp_path):
    """A Replace decoder's regex classes characters as Oniguruma does, and what it does not
    replace comes back as it was (not as a stand-in)."""
    from tokenizers import decoders

    hf_decoder = decoders.Replace(tk.Regex(r"\p{L}+"), "L")
    from tokviz.core.decoders import Replace

    ours = Replace(r"\p{L}+", "L", is_regex=True)
    tokens = ["x\U000323b0y", "\u0295\U00011de0", "ab\U0001fac8c"]
    assert "".join(ours.decode_chain(tokens)) == hf_decoder.decode(tokens)
    assert "\U000323b0" in hf_decoder.decode(tokens)


NORMALIZERS = {  # name: (HF's, tokviz's)
    "lowercase": lambda N: (N.Lowercase(), T.Lowercase()),
    "strip-accents": lambda N: (N.StripAccents(), T.StripAccents()),
    "nfd-strip-accents": lambda N: (N.Sequence([N.NFD(), N.StripAccents()]),
                                    T.Sequence([T.UnicodeForm("NFD"), T.StripAccents()])),
    "bert-strip-lower": lambda N: (
        N.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=True),
        T.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=True)),
}
GREEK = "ΟΔΟΣ ΑΣ. λόγοΣ Σ ΣΑ ΑΣ'Σ Α\u0301Σ"


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", NORMALIZERS)
def test_normalizers_on_every_code_point(name):
    """Lowercase is Rust's char::to_lowercase on each character (its Unicode's case pairs, no final
    sigma); StripAccents and BertNormalizer drop the marks of HF's tables, not this Python's."""
    from tokenizers import normalizers as N

    hf, ours = NORMALIZERS[name](N)
    differ = _differences(hf, ours, lambda c: "a" + c)
    assert ours.normalize_str(GREEK) == hf.normalize_str(GREEK)
    assert differ == [], differ[:20]


def _differences(hf, ours, probe, cps=None) -> list[str]:
    cps = cps or [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    differ = []
    for k in range(0, len(cps), 2048):
        block = cps[k:k + 2048]
        text = "".join(probe(chr(cp)) for cp in block) + GREEK
        if ours.normalize_str(text) != hf.normalize_str(text):
            differ += [f"U+{cp:04X}" for cp in block if ours.normalize_str(probe(chr(cp))) != hf.normalize_str(probe(chr(cp)))]
    return differ


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_normal_forms_on_every_code_point(form):
    """HF's normal forms come from older Unicode tables than this Python's (U+32FF, the Unicode 14
    Arabic marks U+0898.., Dives Akuru's U+11938 are unknown to them): each code point after 'a',
    between marks of combining class 1 and 240 (its own class shows in their order), and each
    two-character canonical decomposition put together again."""
    import unicodedata

    from tokenizers import normalizers as N

    hf, ours = getattr(N, form)(), T.UnicodeForm(form)
    # every character this Python decomposes or gives a combining class (Hangul syllables aside),
    # the newest blocks and every 61st code point
    cps = sorted({cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and not 0xAC00 <= cp <= 0xD7A3
                  and (unicodedata.decomposition(chr(cp)) or unicodedata.combining(chr(cp)))}
                 | {cp for a, b in RECENT_BLOCKS for cp in range(a, b + 1)} | set(range(0, 0x110000, 61))
                 - set(range(0xD800, 0xE000)))
    differ = _differences(hf, ours, lambda c: f"a{c}\u0334a\u0345{c}\u0301 ", cps)
    pairs = [unicodedata.normalize("NFD", chr(cp)) for cp in range(0xC0, 0x110000)
             if not 0xD800 <= cp < 0xE000 and unicodedata.decomposition(chr(cp))[:1] not in ("", "<")]
    text = " ".join(pairs)
    assert ours.normalize_str(text) == hf.normalize_str(text)
    assert differ == [], differ[:20]


def test_uncased_bert_file_lowercases_as_hf(tmp_path):
    """A real uncased BERT tokenizer.json on Greek capitals and the newest case pairs (Garay,
    Tolong Siki, Latin of Unicode 16): the Python path, the native WordPiece and the C BERT front end."""
    data = json.loads(lzma.decompress((REAL / "bert-minilm" / "tokenizer.json.xz").read_bytes()))
    data["padding"] = data["truncation"] = None  # (the file pads every encoding to 128)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    path, reference = _hf_pair(path, tmp_path)
    text = GREEK + " \U00010D50\U00010D65x \U00016EA0 \uA7CB\uA7DC \u1C89 \u0898a\u0301 ÀÉ"
    for native in (False, True):
        tok = tokviz.load(path).use_native(native)
        assert _same(tok, reference, text), native
    assert type(tokviz.load(path).native_encoder()).__name__ == "NativeBert"
