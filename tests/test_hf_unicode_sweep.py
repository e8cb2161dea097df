"""HF tokenizers' character-class pre-tokenizers on every kind of character, newest Unicode included.

Each pre-tokenizer is saved by the tokenizers library in a tokenizer.json whose model makes one
[UNK] token per piece, so that the offsets are the pieces; tokviz loads it and must cut the same
pieces on the Python path and on the native one (a native WordPiece model after the pre-tokenizer;
for BertPreTokenizer and BertNormalizer's clean_text also the C BERT front end, src/bert_pre.c).  The code points swept: all
of the blocks added in Unicode 14 to 17 (CJK Extensions H, I and J, the new scripts and emoji) and
every 61st code point of the rest.  Each one is put between probe characters of known classes
(letter, digit, space, punctuation, Han) and beside its neighbours.
"""
from __future__ import annotations

import pytest

import tokviz

from _shared import sweep

tk = pytest.importorskip("tokenizers")
from tokenizers import models, normalizers, pre_tokenizers  # noqa: E402

RECENT_BLOCKS = [
    (0x31350, 0x323AF),  # CJK Unified Ideographs Extension H (Unicode 15)
    (0x2EBF0, 0x2EE5F),  # CJK Extension I (15.1)
    (0x323B0, 0x3347F),  # CJK Extension J (17)
    (0x1FA70, 0x1FAFF),  # Symbols and Pictographs Extended-A: the newest emoji
    (0x1CC00, 0x1CEBF),  # Symbols for Legacy Computing Supplement (16)
    (0x105C0, 0x105FF), (0x10D40, 0x10D8F), (0x11380, 0x113FF), (0x11BC0, 0x11BFF), (0x16100, 0x1613F),
    (0x16D40, 0x16D7F), (0x1E5D0, 0x1E5FF),  # Todhri, Garay, Tulu-Tigalari, Sunuwar, Gurung Khema, Kirat Rai, Ol Onal (16)
    (0x10940, 0x1095F), (0x11DB0, 0x11DEF), (0x16EA0, 0x16EDF), (0x1E6C0, 0x1E6FF), (0x18D80, 0x18DFF),  # Unicode 17
    (0x10EC0, 0x10EFF), (0x11F00, 0x11F5F), (0x1E4D0, 0x1E4FF), (0x1E030, 0x1E08F),  # Unicode 15
    (0x0870, 0x089F), (0x1AB0, 0x1AFF), (0x2E40, 0x2E5F), (0xA7C0, 0xA7FF), (0x1DF00, 0x1DFFF),  # additions 14+
]
CODE_POINTS = sorted(
    {cp for a, b in RECENT_BLOCKS for cp in range(a, b + 1)} | set(range(0, 0x110000, 61))
    - set(range(0xD800, 0xE000))
)
PRE_TOKENIZERS = {
    "whitespace": pre_tokenizers.Whitespace,
    "whitespace-split": pre_tokenizers.WhitespaceSplit,
    "punctuation": pre_tokenizers.Punctuation,
    "digits": pre_tokenizers.Digits,
    "digits-individual": lambda: pre_tokenizers.Digits(individual_digits=True),
    "bert": pre_tokenizers.BertPreTokenizer,
    "metaspace": pre_tokenizers.Metaspace,
    "unicode-scripts": pre_tokenizers.UnicodeScripts,
    # BertNormalizer's clean_text drops BERT's control characters (HF's classes too)
    "bert-clean-text": (lambda: normalizers.BertNormalizer(handle_chinese_chars=True, strip_accents=False,
                                                           lowercase=False), pre_tokenizers.BertPreTokenizer),
}
BLOCK = 256


def window(cp: int) -> str:
    """The code point between probes, and after and before its neighbours."""
    c = chr(cp)
    before = chr(cp - 1) if cp and not 0xD800 <= cp - 1 < 0xE000 else "x"
    after = chr(cp + 1) if cp + 1 < 0x110000 and not 0xD800 <= cp + 1 < 0xE000 else "x"
    return f"a{c}1{c} {c}!{c}中{c}{after}{before}{c}"


def _offsets(encoding) -> list[tuple[int, int]]:
    return [tuple(o) for o in encoding.offsets]


def _variants(tmp_path, name: str):
    """(HF tokenizer, {path: tokviz tokenizer}) for pre-tokenizer `name`."""
    make = PRE_TOKENIZERS[name]
    normalizer, pre = (make[0](), make[1]()) if isinstance(make, tuple) else (None, make())
    hf = tk.Tokenizer(models.WordPiece({"[UNK]": 0}, unk_token="[UNK]", max_input_chars_per_word=1000))
    hf.pre_tokenizer = pre
    if normalizer is not None:
        hf.normalizer = normalizer
    path = tmp_path / f"{name}.json"
    hf.save(str(path))
    variants = {"python": tokviz.load(path).use_native(False), "native": tokviz.load(path)}
    if name.startswith("bert"):  # with a BertNormalizer and BertPreTokenizer: the BERT front end in C
        hf_bert = tk.Tokenizer(models.WordPiece({"[UNK]": 0}, unk_token="[UNK]", max_input_chars_per_word=1000))
        hf_bert.normalizer = normalizer or normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                                                      strip_accents=False, lowercase=False)
        hf_bert.pre_tokenizer = pre
        bert_path = tmp_path / "bert-c.json"
        hf_bert.save(str(bert_path))
        variants["native-bert"] = tokviz.load(bert_path)
        assert type(variants["native-bert"].native_encoder()).__name__ == "NativeBert"
    return hf, variants


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", sweep(list(PRE_TOKENIZERS), list(PRE_TOKENIZERS)[:3]))
def test_every_kind_of_character_is_cut_as_hf_cuts_it(name, tmp_path):
    hf, variants = _variants(tmp_path, name)
    assert variants["native"].native_encoder() is not None
    differ: dict[str, list[str]] = {label: [] for label in variants}
    for k in range(0, len(CODE_POINTS), BLOCK):
        block = CODE_POINTS[k:k + BLOCK]
        text = " ".join(window(cp) for cp in block)
        want = _offsets(hf.encode(text))
        for label, tok in variants.items():
            if _offsets(tok.encode(text)) == want:
                continue
            differ[label] += [f"U+{cp:04X}" for cp in block
                              if _offsets(tok.encode(window(cp))) != _offsets(hf.encode(window(cp)))]
    assert differ == {label: [] for label in variants}, {label: cps[:20] for label, cps in differ.items()}
