"""A CLIP folder (vocab.json + merges.txt + tokenizer_config.json naming CLIPTokenizer, as the text
encoders of Stable Diffusion 1.x/2.x/XL and Flux ship it) read by tokviz as transformers'
AutoTokenizer reads it: ids with and without <|startoftext|> ... <|endoftext|>, and decode with
and without special tokens, on texts with accents, CJK, emoji, white-space runs, ligatures and
mojibake (transformers 5 applies no ftfy fix-up, and neither does tokviz).

vocab.json and merges.txt are built from the merges file CLIP ships, as CLIP's own tokenizer
builds them (tests/data/real/clip-bpe_simple_vocab_16e6.txt.gz).
"""
from __future__ import annotations

import gzip
import json
import random
import warnings
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")

import tokviz  # noqa: E402
from tokviz.core.bytelevel import BYTE_TO_CHAR  # noqa: E402
from tokviz.errors import TokvizError  # noqa: E402

REAL = Path(__file__).parent / "data" / "real"
AS_SHIPPED = {  # Stable Diffusion 1.x's tokenizer/tokenizer_config.json, keys and values as published
    "tokenizer_class": "CLIPTokenizer", "add_prefix_space": False, "do_lower_case": True, "errors": "replace",
    "model_max_length": 77, "pad_token": "<|endoftext|>",
    **{attr: {"content": content, "lstrip": False, "normalized": True, "rstrip": False, "single_word": False,
              "__type": "AddedToken"}
       for attr, content in (("bos_token", "<|startoftext|>"), ("eos_token", "<|endoftext|>"),
                             ("unk_token", "<|endoftext|>"))},
}
CONFIGS = {
    "plain": {"tokenizer_class": "CLIPTokenizer"},
    "as shipped": AS_SHIPPED,
    "ignored switches": {"tokenizer_class": "CLIPTokenizerFast", "add_prefix_space": True, "add_bos_token": False,
                         "add_eos_token": False, "trim_offsets": True},
    "split special tokens": {"tokenizer_class": "CLIPTokenizer", "split_special_tokens": True},
    "added tokens": {"tokenizer_class": "CLIPTokenizer", "added_tokens_decoder": {
        "49408": {"content": "<extra>", "special": True, "lstrip": False, "rstrip": False, "normalized": False,
                  "single_word": False},
        "49409": {"content": "Sks", "special": False, "lstrip": False, "rstrip": False, "normalized": True,
                  "single_word": False}}},
}
TEXTS = [
    "a photo of a cat", "A Photo OF a CAT!!", "  multiple   spaces\n\nnewlines\t tabs ", "Café naïve résumé Ångström",
    "日本語のテキスト 中文", "emoji 🎉🐱‍👤 ok", "don't you'll we've I'M", "<|startoftext|>hi<|endoftext|>",
    "x<|endoftext|>y", "fi ligature ﬁ and Ｆｕｌｌｗｉｄｔｈ", "mojibake: â€™ Ã©", "numbers 12345 3.14 1,000", "", " ",
    "e\u0301 combining", "tokens-with_punct.and/slashes", "\u00a0nbsp\u2003em space", "ÀÉÎÕÜ ß İ", "a" * 40,
    "a <extra> photo of sks Sks SKS",
]


@pytest.fixture(scope="module")
def clip_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("clip")
    lines = gzip.decompress((REAL / "clip-bpe_simple_vocab_16e6.txt.gz").read_bytes()).decode("utf-8").split("\n")
    merges = lines[1:49152 - 256 - 2 + 1]
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    alphabet = [BYTE_TO_CHAR[b] for b in printable + [b for b in range(256) if b not in printable]]
    vocab = alphabet + [c + "</w>" for c in alphabet] + ["".join(m.split()) for m in merges]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    (root / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(vocab)}, ensure_ascii=False), encoding="utf-8")
    (root / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    return root


def _folder(clip_files: Path, tmp_path: Path, config: dict) -> Path:
    for name in ("vocab.json", "merges.txt"):
        (tmp_path / name).symlink_to(clip_files / name)
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def _texts():
    rng = random.Random(5)
    pool = "".join(TEXTS) + "  \n\t"
    return TEXTS + ["".join(rng.choice(pool) for _ in range(rng.randint(1, 30))) for _ in range(40)]


@pytest.mark.parametrize("config", CONFIGS)
def test_clip_folder_matches_transformers(clip_files, tmp_path, config):
    folder = _folder(clip_files, tmp_path, CONFIGS[config])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = transformers.AutoTokenizer.from_pretrained(str(folder))
    mine = tokviz.load(folder)
    assert type(reference).__name__.startswith("CLIPTokenizer")
    for text in _texts():
        for special in (False, True):
            want = reference(text, add_special_tokens=special)["input_ids"]
            got = mine.encode(text, add_special_tokens=special).ids
            assert got == want, (text, special)
            for skip in (False, True):
                assert mine.decode(got, skip_special_tokens=skip) == reference.decode(want, skip_special_tokens=skip), text


def test_clip_ids_are_clips_own(clip_files, tmp_path):
    mine = tokviz.load(_folder(clip_files, tmp_path, CONFIGS["plain"]))
    assert mine.encode("a photo of a cat", add_special_tokens=True).ids == [49406, 320, 1125, 539, 320, 2368, 49407]


def test_clip_without_its_start_token_is_refused(clip_files, tmp_path):
    config = {"tokenizer_class": "CLIPTokenizer", "bos_token": None}
    with pytest.raises(TokvizError, match="bos_token"):
        tokviz.load(_folder(clip_files, tmp_path, config))
