"""`tokviz.load` tells formats apart by their content, and names the formats it does not read.

The files of formats tokviz does not read are written here in the layouts their tools write
(learned from their sources: subword-nmt 0.3.8 learn_bpe.py and get_vocab.py, fastBPE 0.1.0
fastBPE.hpp, YouTokenToMe 1.0.6 utils.cpp BPEState::dump, fairseq's Dictionary.save); the
sentencepiece .vocab and the minbpe .vocab are written by sentencepiece and tokviz themselves.
"""
from __future__ import annotations

import base64
import json
import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.errors import TokvizError
from tokviz.formats import detect

REAL = Path(__file__).parent / "data" / "real"

SUBWORD_NMT_CODES = "#version: 0.2\nw e\nl o\ns t</w>\nwe st</w>\nn e\nne west</w>\nlo w</w>\nwe r</w>\nlo wer</w>\n"
FASTBPE_CODES = "e s 2059\nt h 1830\ni n 1735\nth e</w> 1344\na n 1238\ne r</w> 1163\no n 1044\n"
FASTBPE_VOCAB = "the 50823\n, 47384\n. 39218\nof 27156\nand 24561\nto 21930\nin 18114\na 17262\n"
FAIRSEQ_DICT = "the 50823\n, 47384\n. 39218\nof 27156\n<mask> 0 #fairseq:overwrite\n"
# chars rules / inner_id code_point per character / x y z per rule / unk pad bos eos
YOUTOKENTOME = "5 3\n4 101\n5 108\n6 104\n7 111\n8 32\n6 4 9\n9 5 10\n10 5 11\n1 0 2 3\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.first_cases(3)
@pytest.mark.parametrize("name, text, words", [
    ("bpe.codes", SUBWORD_NMT_CODES, ["subword-nmt", "tokviz does not read"]),
    ("codes.txt", SUBWORD_NMT_CODES, ["subword-nmt"]),
    ("codes", FASTBPE_CODES, ["fastBPE codes", "tokviz does not read fastBPE"]),
    ("codes.en.txt", FASTBPE_CODES, ["fastBPE codes"]),
    ("vocab.txt", FASTBPE_VOCAB, ["fastBPE vocabulary", "tokviz does not read fastBPE"]),
    ("vocab.en", FASTBPE_VOCAB, ["fastBPE vocabulary"]),
    ("dict.txt", FASTBPE_VOCAB, ["fairseq", "dictionar"]),
    ("dict.en.txt", FAIRSEQ_DICT, ["fairseq"]),
    ("words.txt", FAIRSEQ_DICT, ["fairseq"]),
    ("yttm.model", YOUTOKENTOME, ["YouTokenToMe", "tokviz does not read"]),
    ("bpe.yttm", YOUTOKENTOME, ["YouTokenToMe"]),
])
def test_formats_tokviz_does_not_read_are_named(tmp_path, name, text, words):
    path = _write(tmp_path, name, text)
    with pytest.raises(TokvizError) as err:
        tokviz.load(path)
    assert err.value.path is not None and Path(err.value.path) == path
    for word in words:
        assert word in err.value.reason, err.value.reason
    assert "pattern" not in err.value.reason and "[UNK]" not in err.value.reason


def test_sentencepiece_vocab_listing_is_named(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    corpus = _write(tmp_path, "corpus.txt", (REAL / "texts.txt").read_text(encoding="utf-8") * 3)
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "sp"), vocab_size=400,
                                   minloglevel=2, hard_vocab_limit=False)
    assert detect(tmp_path / "sp.model")[0] == "sentencepiece"
    with pytest.raises(TokvizError, match="sentencepiece vocabulary listing .* load the .model"):
        tokviz.load(tmp_path / "sp.vocab")


def test_minbpe_vocab_listing_is_named(tmp_path):
    from tokviz.defaults import default_tokenizer_path

    tok = tokviz.load(default_tokenizer_path())
    written = tokviz.formats.save_files(tok, tmp_path / "mine.model", format="minbpe")
    vocab = next(p for p in written if p.suffix == ".vocab")
    with pytest.raises(TokvizError, match="minbpe .vocab listing"):
        tokviz.load(vocab)
    assert detect(tmp_path / "mine.model")[0] == "minbpe"


def test_tiktoken_ranks_in_any_name(tmp_path):
    """A rank file is a tiktoken file whatever its name: .txt, no suffix (tiktoken's download
    cache), and Meta's Llama 3 `tokenizer.model`; known by its name or its contents, else it asks
    for the regex."""
    data = lzma.decompress((REAL / "cl100k_base.tiktoken.xz").read_bytes())
    for name in ("cl100k_base.txt", "9b5ad71b2ce5302211f9c61530b329a4922fc6a4", "tokenizer.model"):
        (tmp_path / name).write_bytes(data)
        assert detect(tmp_path / name)[0] == "tiktoken", name
        assert tokviz.load(tmp_path / name).encode("hello world").ids == [15339, 1917]
    (tmp_path / "other.model").write_bytes(data.replace(b" 100255\n", b" 100256\n"))  # (a rank moved: unknown)
    with pytest.raises(TokvizError, match="pattern="):
        tokviz.load(tmp_path / "other.model")


def test_small_tiktoken_file_without_final_newline(tmp_path):
    ranks = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)).rstrip("\n")
    path = _write(tmp_path, "tiny.txt", ranks)
    assert detect(path)[0] == "tiktoken"


def test_existing_formats_still_detected(tmp_path):
    bert = tmp_path / "vocab.txt"
    bert.write_bytes(lzma.decompress((REAL / "bert-minilm" / "vocab.txt.xz").read_bytes()))
    assert detect(bert)[0] == "wordpiece-vocab"
    hf = tmp_path / "tokenizer.json"
    hf.write_bytes(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    assert detect(hf)[0] == "hf-json"
    sp = tmp_path / "m.model"
    sp.write_bytes(lzma.decompress((REAL / "mistral-v1.model.xz").read_bytes()))
    assert detect(sp)[0] == "sentencepiece"
    plain = _write(tmp_path, "words.txt", "[PAD]\n[UNK]\nthe\n##s\n")
    assert detect(plain)[0] == "wordpiece-vocab"


def test_tekken_and_rwkv_are_detected_by_content(tmp_path):
    vocab = [{"rank": b, "token_bytes": base64.b64encode(bytes([b])).decode(), "token_str": None} for b in range(256)]
    tekken = {"config": {"pattern": r"\s+|\S+", "num_vocab_tokens": 256, "default_vocab_size": 276,
                         "default_num_special_tokens": 20, "version": "v3"}, "vocab": vocab}
    for name in ("tekken.json", "tokenizer_mistral.json"):
        path = _write(tmp_path, name, json.dumps(tekken))
        assert detect(path)[0] == "tekken"
    assert tokviz.load(tmp_path / "tokenizer_mistral.json").encode("ab").ids == [20 + 97, 20 + 98]
    rwkv = "".join(f"{b + 1} {bytes([b])!r} 1\n" for b in range(256))
    for name in ("rwkv_vocab_v20230424.txt", "vocab.txt", "world_vocab"):
        path = _write(tmp_path, name, rwkv)
        assert detect(path)[0] == "rwkv-vocab", name
    assert tokviz.load(tmp_path / "vocab.txt").encode("ab").ids == [98, 99]
    folder = tmp_path / "rwkv-model"
    folder.mkdir()
    _write(folder, "rwkv_vocab_v20230424.txt", rwkv)
    _write(folder, "config.json", '{"model_type": "rwkv5"}')
    assert tokviz.load(folder).source.format == "rwkv-vocab"


@pytest.mark.parametrize("name", ["tokenizer_config.json", "special_tokens_map.json"])
def test_transformers_settings_files_are_named(tmp_path, name):
    path = _write(tmp_path, name, '{"model_max_length": 512, "tokenizer_class": "BertTokenizer"}')
    with pytest.raises(TokvizError, match=f"a transformers {name} .* load the folder"):
        tokviz.load(path)
    _write(tmp_path, "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\n")
    assert tokviz.load(tmp_path).source.format == "wordpiece-vocab"
