"""Parity on the real tokenizer files shipped under tests/data/real (see its README): these tests
run on a fresh clone, without ../shared.

Each file is compared with its reference library on the texts shipped beside it, the edge cases,
seeded random text mixing many scripts and the file's own special tokens, and corpus samples
when ../shared is present: ids, decode, and for tokenizer.json files the offsets, with and
without the post-processor's special tokens.
"""
from __future__ import annotations

import lzma
import random
import shutil
from pathlib import Path

import pytest

import tokviz
from _shared import CORPUS, CORPUS_FILES, EDGE_CASES, corpus_samples

REAL = Path(__file__).parent / "data" / "real"
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

HF_JSON = ("deepseek-v4", "qwen2.5", "bert-minilm")
SENTENCEPIECE = ("mistral-v1.model", "mistral-v7.model")
TIKTOKEN = ("whisper-gpt2.tiktoken", "whisper-multilingual.tiktoken", "cl100k_base.tiktoken")

# Characters drawn for random text: scripts, marks, digits, whitespace, emoji and its joiners.
_POOLS = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789٠١٢٣٤٥٦٧٨٩१२३",
    " \t\n\r\u00a0\u3000\u2028\u200b\ufeff   ",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’«»—–…",
    "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿĀāĂăŁłŒœŠšŽž",
    "\u0300\u0301\u0302\u0308\u0323\u0327\u05b0\u0651\u093f",
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "あいうえおかきくけこアイウエオカキクケコ가나다라마바사아자차",
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяΑΒΓΔαβγδ",
    "ابتثجحخدذرزسشصضطظعغفقكلمنهويअआइईउऊकखगघกขคงจฉ",
    "😀😃👍🏽👨‍👩‍👧❤️🇯🇵🏳️‍🌈🤖✨\u200d\ufe0f",
    "ﬁﬀⅫ㎏ＡＢＣａｂｃ１２３𝔘𝔫𝔦",
)


def _unpack(src: Path, dest: Path) -> Path:
    """Copy a file or folder of tests/data/real to dest, decompressing *.xz."""
    if src.is_dir():
        dest.mkdir()
        for child in src.iterdir():
            _unpack(child, dest / child.name)
        return dest
    if src.suffix == ".xz":
        target = dest.with_suffix("")
        target.write_bytes(lzma.decompress(src.read_bytes()))
        return target
    shutil.copyfile(src, dest)
    return dest


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Name -> unpacked path, unpacked once per module."""
    root = tmp_path_factory.mktemp("real")
    cache: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in cache:
            src = REAL / name if (REAL / name).exists() else REAL / f"{name}.xz"
            cache[name] = _unpack(src, root / src.name)
        return cache[name]

    return get


def _random_texts(specials: list[str], count: int = 25, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(5, 60)):
            if specials and rng.random() < 0.05:
                pieces.append(rng.choice(specials))
            else:
                pool = rng.choice(_POOLS)
                pieces.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
        texts.append("".join(pieces))
    return texts


def _texts(specials: list[str] = ()) -> list[str]:
    shipped = (REAL / "texts.txt").read_text(encoding="utf-8")
    texts = [shipped, *shipped.splitlines(keepends=True), *EDGE_CASES, *_random_texts(list(specials))]
    if CORPUS.exists():
        for name in CORPUS_FILES:
            texts += corpus_samples(name, 4, seed=19)
    return texts


# Spaces tried on each side of a special token: its lstrip/rstrip strip some of them, not others.
_SPACES = ("", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\u3000", "\u200b", "\ufeff", "\x0b", "\x85")


def _texts_around(specials: list[str]) -> list[str]:
    """_texts(specials), and each special token (the first 30) between varied spaces and
    letters, doubled, and in other cases."""
    texts = _texts(specials)
    for i, special in enumerate(specials[:30]):
        for j, space in enumerate(_SPACES):
            after = _SPACES[(i + j * 5) % len(_SPACES)]
            texts.append(f"x{space}{special}{after}y")
            texts.append(f"{space}{special}{after}")
        texts += [special + special, f"{special.lower()} {special.upper()}"]
    return texts


def _first_difference(a: list, b: list):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, x, y
    return min(len(a), len(b)), a[len(b):len(b) + 1], b[len(a):len(a) + 1]


# -- tokenizer.json against HF tokenizers -------------------------------------------------------


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", HF_JSON)
def test_hf_json_ids_offsets_and_decode(real, name):
    tokenizers = pytest.importorskip("tokenizers")
    path = real(name) / "tokenizer.json"
    hf = tokenizers.Tokenizer.from_file(str(path))
    hf.no_padding()
    hf.no_truncation()  # tokviz shows every token: stored truncation and padding are not applied
    tok = tokviz.load(path)
    specials = [t.content for t in hf.get_added_tokens_decoder().values()]
    for text in _texts_around(specials):
        for with_specials in (False, True):
            want = hf.encode(text, add_special_tokens=with_specials)
            got = tok.encode(text, add_special_tokens=with_specials)
            assert got.ids == want.ids, (text, with_specials, _first_difference(got.ids, want.ids))
            assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], (
                text, with_specials, _first_difference([tuple(o) for o in got.offsets], want.offsets))
        assert tok.decode(want.ids) == hf.decode(want.ids), text


def test_tokenizer_json_folder_loads_its_tokenizer_json(real):
    """A folder with tokenizer.json and tokenizer_config.json reads the tokenizer.json."""
    tokenizers = pytest.importorskip("tokenizers")
    folder = real("deepseek-v4")
    hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    text = (REAL / "texts.txt").read_text(encoding="utf-8")
    assert tokviz.load(folder).encode(text).ids == hf.encode(text, add_special_tokens=False).ids


# -- WordPiece vocab.txt against transformers ---------------------------------------------------


def test_bert_vocab_txt_against_transformers(real, tmp_path):
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "bert-vocab"
    folder.mkdir()
    shutil.copyfile(real("bert-minilm") / "vocab.txt", folder / "vocab.txt")
    shutil.copyfile(real("bert-minilm") / "tokenizer_config.json", folder / "tokenizer_config.json")
    reference = transformers.AutoTokenizer.from_pretrained(str(folder))
    tok = tokviz.load(folder)
    for text in _texts(["[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"]):
        want = reference(text, add_special_tokens=False)["input_ids"]
        assert tok.encode(text).ids == want, (text, _first_difference(tok.encode(text).ids, want))
        assert tok.decode(want) == reference.decode(want), text


# -- sentencepiece models against the sentencepiece library -------------------------------------


@pytest.mark.parametrize("name", SENTENCEPIECE)
def test_sentencepiece_ids_and_decode(real, name):
    spm = pytest.importorskip("sentencepiece")
    path = real(name)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = tokviz.load(path)
    controls = [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if sp.is_control(i)]
    for text in _texts_around(controls):
        want = sp.encode(text)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == sp.decode(want), text


def test_sentencepiece_detected_by_content_whatever_its_name(real, tmp_path):
    """Mistral ships its models as tokenizer.model.v1, .v3, .v7: read by what they hold."""
    spm = pytest.importorskip("sentencepiece")
    path = tmp_path / "tokenizer.model.v7"
    shutil.copyfile(real("mistral-v7.model"), path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    text = (REAL / "texts.txt").read_text(encoding="utf-8")
    assert tokviz.load(path).encode(text).ids == sp.encode(text)


# -- .tiktoken files against tiktoken -----------------------------------------------------------


def _tiktoken_reference(path: Path, name: str, monkeypatch):
    """tiktoken's Encoding for the file: cl100k_base as tiktoken defines it (its ranks read from
    the local file instead of downloaded), Whisper's files as Whisper builds them."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    if name == "cl100k_base.tiktoken":
        from tiktoken_ext import openai_public

        monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: load_tiktoken_bpe(str(path)))
        return tiktoken.Encoding(**openai_public.cl100k_base()), None
    ranks = load_tiktoken_bpe(str(path))
    return tiktoken.Encoding(name, pat_str=WHISPER_PATTERN, mergeable_ranks=ranks, special_tokens={}), WHISPER_PATTERN


@pytest.mark.parametrize("name", TIKTOKEN)
def test_tiktoken_ids_and_decode(real, name, monkeypatch):
    path = real(name)
    reference, pattern = _tiktoken_reference(path, name, monkeypatch)
    tok = tokviz.load(path, pattern=pattern)
    for text in _texts():
        want = reference.encode_ordinary(text)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == reference.decode(want), text


def test_rank_file_named_by_a_hash_is_known_by_its_contents(real, tmp_path, monkeypatch):
    """tiktoken's cache names cl100k_base's file by a hash and Meta names Llama 3's
    `tokenizer.model`: the contents say which encoding it is (pattern and special tokens)."""
    reference, _ = _tiktoken_reference(real("cl100k_base.tiktoken"), "cl100k_base.tiktoken", monkeypatch)
    path = tmp_path / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
    shutil.copyfile(real("cl100k_base.tiktoken"), path)
    tok = tokviz.load(path)
    assert tok.source.name == "cl100k_base"
    for text in _texts()[:60]:
        want = reference.encode_ordinary(text)
        assert tok.encode(text).ids == want, text
        assert tok.decode(want) == reference.decode(want), text
    for special, id in reference._special_tokens.items():
        assert tok.added.by_content[special].id == id
    edited = tmp_path / "edited"
    edited.write_bytes(path.read_bytes() + b"IQ== 100300\n")  # (one more line: no longer cl100k_base)
    with pytest.raises(tokviz.TokvizError, match="not those of a known encoding"):
        tokviz.load(edited, format="tiktoken")


# -- OpenAI's GPT-2 release names, and files tokviz refuses by name ------------------------------


@pytest.mark.slow
def test_gpt2_release_files_against_tiktoken_and_transformers(real, tmp_path):
    """encoder.json + vocab.bpe (the names of OpenAI's GPT-2 release and fairseq's copy) are the
    vocab.json + merges.txt layout; tiktoken reads them with data_gym_to_mergeable_bpe_ranks."""
    tiktoken = pytest.importorskip("tiktoken")
    transformers = pytest.importorskip("transformers")
    import json

    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tiktoken_ext.openai_public import r50k_pat_str

    qwen = json.loads((real("qwen2.5") / "tokenizer.json").read_text(encoding="utf-8"))
    (tmp_path / "encoder.json").write_text(json.dumps(qwen["model"]["vocab"], ensure_ascii=False), encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in qwen["model"]["merges"]]
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    ranks = data_gym_to_mergeable_bpe_ranks(str(tmp_path / "vocab.bpe"), str(tmp_path / "encoder.json"))
    by_tiktoken = tiktoken.Encoding("gpt2-release", pat_str=r50k_pat_str, mergeable_ranks=ranks, special_tokens={})
    by_transformers = transformers.GPT2Tokenizer(vocab=str(tmp_path / "encoder.json"), merges=str(tmp_path / "vocab.bpe"))
    for target in (tmp_path, tmp_path / "encoder.json", tmp_path / "vocab.bpe"):
        tok = tokviz.load(target)
        for text in _texts()[:40]:
            got = tok.encode(text).ids
            assert got == by_tiktoken.encode_ordinary(text), text
            assert got == by_transformers(text, add_special_tokens=False)["input_ids"], text
            assert tok.decode(got) == by_tiktoken.decode(got), text


def test_tekken_file_refused_by_name(tmp_path):
    path = tmp_path / "tekken.json"
    path.write_text('{"config": {"pattern": "\\\\s+", "num_vocab_tokens": 1, "default_vocab_size": 1001, '
                    '"default_num_special_tokens": 1000, "version": "v3"}, '
                    '"vocab": [{"rank": 0, "token_bytes": "AA==", "token_str": "\\u0000"}]}', encoding="utf-8")
    with pytest.raises(tokviz.TokvizError, match="tekken"):
        tokviz.load(path)
