"""tokenizer.json files as transformers writes them for many model families.

transformers builds a model family's tokenizer.json from its original files (a sentencepiece
model, vocab.json + merges.txt, a WordPiece vocab.txt) with that family's normalizer,
pre-tokenizer, post-processor and decoder. Each family's file, made here from real tokenizer
files under tests/data/real (and a sentencepiece Unigram model trained by the sentencepiece
library), is read by tokviz and compared with HF tokenizers: ids and offsets with and without
the post-processor's tokens, and decode.
"""
from __future__ import annotations

import gzip
import json
import lzma
import random
import shutil
import warnings
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
spm = pytest.importorskip("sentencepiece")

import tokviz  # noqa: E402
from _shared import EDGE_CASES, sweep  # noqa: E402

REAL = Path(__file__).parent / "data" / "real"
RESOURCES = Path(__file__).parents[1] / "resources"

SENTENCEPIECE_FAMILIES = [
    "T5Tokenizer", "LlamaTokenizer", "CodeLlamaTokenizer", "XLMRobertaTokenizer",
    "AlbertTokenizer", "CamembertTokenizer", "BigBirdTokenizer", "MBartTokenizer", "XLNetTokenizer",
    "DebertaV2Tokenizer", "BarthezTokenizer", "NllbTokenizer", "FNetTokenizer", "RemBertTokenizer",
    "LayoutXLMTokenizer", "UdopTokenizer",
]
BYTE_LEVEL_FAMILIES = [
    "GPT2Tokenizer", "RobertaTokenizer", "BartTokenizer", "LongformerTokenizer",
    "CodeGenTokenizer", "WhisperTokenizer", "GPTNeoXTokenizer", "Qwen2Tokenizer", "BlenderbotTokenizer",
    "LEDTokenizer", "DebertaTokenizer", "LayoutLMv3Tokenizer", "OpenAIGPTTokenizer",
]
WORDPIECE_FAMILIES = [
    "BertTokenizer", "DistilBertTokenizer", "ElectraTokenizer", "SqueezeBertTokenizer", "LayoutLMTokenizer",
    "ConvBertTokenizer", "FunnelTokenizer", "MobileBertTokenizer", "LxmertTokenizer", "HerbertTokenizer",
    "SplinterTokenizer",
]


def _texts() -> list[str]:
    shipped = (REAL / "texts.txt").read_text(encoding="utf-8")
    rng = random.Random(11)
    pool = shipped + "<s></s><unk><pad><mask>[CLS][SEP]▁  \t\n"
    randoms = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(40)]
    return [shipped, *shipped.splitlines(keepends=True), *EDGE_CASES, *randoms]


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """Original files of each kind: sentencepiece BPE (Mistral) and Unigram models, vocab.json +
    merges.txt (Qwen2.5's), and a WordPiece vocab.txt (MiniLM's)."""
    root = tmp_path_factory.mktemp("families")
    bpe = root / "mistral.model"
    bpe.write_bytes(lzma.decompress((REAL / "mistral-v1.model.xz").read_bytes()))
    unigram_prefix = root / "unigram"
    spm.SentencePieceTrainer.train(
        input=str(RESOURCES / "training.txt"), model_prefix=str(unigram_prefix), vocab_size=600,
        model_type="unigram", character_coverage=1.0, minloglevel=2)
    qwen = json.loads(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    vocab_json, merges_txt = root / "vocab.json", root / "merges.txt"
    vocab_json.write_text(json.dumps(qwen["model"]["vocab"], ensure_ascii=False), encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in qwen["model"]["merges"]]
    merges_txt.write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    vocab_txt = root / "vocab.txt"
    vocab_txt.write_bytes(lzma.decompress((REAL / "bert-minilm" / "vocab.txt.xz").read_bytes()))
    return {"bpe": bpe, "unigram": unigram_prefix.with_suffix(".model"), "vocab.json": vocab_json,
            "merges.txt": merges_txt, "vocab.txt": vocab_txt, "root": root}


def _family_file(cls_name: str, out: Path, files: dict[str, Path]) -> Path:
    """The family's tokenizer.json as transformers converts it from the original files (named as
    the family expects them in a model folder)."""
    cls = getattr(transformers, cls_name, None)
    if cls is None:
        pytest.skip(f"transformers {transformers.__version__} has no {cls_name}")
    folder = out / "original"
    folder.mkdir(parents=True)
    wanted = {key: name for key, name in getattr(cls, "vocab_files_names", {}).items() if key != "tokenizer_file"}
    if not wanted:
        pytest.skip(f"{cls_name} is only made from a tokenizer.json")
    for name in wanted.values():
        kind = "model" if name.endswith(".model") else name
        if kind not in files:
            pytest.skip(f"{cls_name} also needs a {name}")
        shutil.copyfile(files[kind], folder / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            converted = cls.from_pretrained(str(folder))
        except Exception as exc:  # transformers' own converter fails on this kind of model
            pytest.skip(f"transformers cannot make {cls_name} from these files: {exc}")
        converted.save_pretrained(str(out / "converted"))
    path = out / "converted" / "tokenizer.json"
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    assert len(vocab) > 500, "transformers did not read the original files"
    return path


def _assert_like_hf(path: Path) -> None:
    hf = tokenizers.Tokenizer.from_file(str(path))
    hf.no_padding()
    hf.no_truncation()
    try:
        hf.encode(_texts()[0])
    except Exception as exc:
        pytest.skip(f"HF tokenizers cannot encode with this file: {exc}")
    tok = tokviz.load(path)
    for text in _texts():
        for with_specials in (False, True):
            want = hf.encode(text, add_special_tokens=with_specials)
            got = tok.encode(text, add_special_tokens=with_specials)
            assert got.ids == want.ids, (text, with_specials)
            assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], (text, with_specials)
        ids = hf.encode(text, add_special_tokens=True).ids
        assert tok.decode(ids) == hf.decode(ids), text


@pytest.mark.first_cases(2)
@pytest.mark.parametrize("model", ["bpe", "unigram"])
@pytest.mark.parametrize("family", sweep(SENTENCEPIECE_FAMILIES, ["T5Tokenizer", "LlamaTokenizer", "XLMRobertaTokenizer"]))
def test_sentencepiece_families(sources, family, model):
    out = sources["root"] / f"{family}-{model}"
    _assert_like_hf(_family_file(family, out, {"model": sources[model]}))


@pytest.mark.parametrize("family", sweep(BYTE_LEVEL_FAMILIES, ["GPT2Tokenizer"]))
def test_byte_level_families(sources, family):
    out = sources["root"] / family
    _assert_like_hf(_family_file(family, out, sources))


def test_clip(tmp_path):
    """CLIP's tokenizer.json (lower-casing, whitespace clean-up, words ending in "</w>", Roberta
    post-processor) as transformers makes it from CLIP's vocab.json and merges.txt, which are built
    from the merges file CLIP ships as CLIP's own tokenizer builds them."""
    from tokviz.core.bytelevel import BYTE_TO_CHAR

    lines = gzip.decompress((REAL / "clip-bpe_simple_vocab_16e6.txt.gz").read_bytes()).decode("utf-8").split("\n")
    merges = lines[1:49152 - 256 - 2 + 1]
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    alphabet = [BYTE_TO_CHAR[b] for b in printable + [b for b in range(256) if b not in printable]]
    vocab = alphabet + [c + "</w>" for c in alphabet] + ["".join(m.split()) for m in merges]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    files = {"vocab.json": tmp_path / "vocab.json", "merges.txt": tmp_path / "merges.txt"}
    files["vocab.json"].write_text(json.dumps({t: i for i, t in enumerate(vocab)}, ensure_ascii=False), encoding="utf-8")
    files["merges.txt"].write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    path = _family_file("CLIPTokenizer", tmp_path / "clip", files)
    hf = tokenizers.Tokenizer.from_file(str(path))
    assert hf.encode("a photo of a cat").ids == [49406, 320, 1125, 539, 320, 2368, 49407]  # CLIP's own ids
    _assert_like_hf(path)


@pytest.mark.parametrize("family", sweep(WORDPIECE_FAMILIES, WORDPIECE_FAMILIES[:2]))
def test_wordpiece_families(sources, family):
    _assert_like_hf(_family_file(family, sources["root"] / family, sources))
