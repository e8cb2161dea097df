"""Every writer: what it writes, loaded by the format's reference library (and by tokviz), encodes
exactly as tokviz does; what a format cannot hold is refused with the reason; writes are atomic
and never replace a file unless asked."""
from __future__ import annotations

import copy
import csv
import json
import lzma
import os
from functools import lru_cache
from pathlib import Path

import pytest
import regex

import tokviz
from tokviz import can_write, save
from tokviz.core import pre_tokenizers as pre
from tokviz.core.models import WordLevel
from tokviz.defaults import default_tokenizer_path
from tokviz.errors import TokvizError
from tokviz.formats.atomic_write import write_bytes_atomic
from tokviz.formats.protobuf import iter_fields
from tokviz.formats.sentencepiece import ORIGINAL_FIELDS
from tokviz.formats.tiktoken_writer import tiktoken_params
from tokviz.train import train
from tokviz.train.options import TrainOptions
from tokviz.defaults import resource_path

from _shared import EDGE_CASES, TOKENIZERS, corpus_samples, need, reference

REAL = Path(__file__).parent / "data" / "real"

tokenizers = pytest.importorskip("tokenizers")

SAMPLES_PER_CORPUS = 5
DEMO = "demo"  # the minbpe model tokviz ships
TRAINED = ("trained-bytelevel", "trained-unigram", "trained-wordpiece", "trained-charbpe", "wordlevel")


@lru_cache(maxsize=None)
def load(name: str) -> tokviz.Tokenizer:
    """A shared tokenizer (path under ../shared/tokenizers), the demo, or one trained here."""
    if name == DEMO:
        return tokviz.load(default_tokenizer_path())
    if name in TRAINED:
        return _trained(name)
    return reference(need(TOKENIZERS / name))  # (the writers only read it: loaded once per session)


def _trained(name: str) -> tokviz.Tokenizer:
    files = [str(resource_path("training.txt"))]
    if name == "trained-bytelevel":
        return train("bytelevel-bpe", files, TrainOptions(vocab_size=1000, special_tokens=["<|end|>"]))
    if name == "trained-unigram":
        return train("unigram", files, TrainOptions(vocab_size=800, special_tokens=["<unk>", "<s>", "</s>"]))
    if name == "trained-wordpiece":
        return train("wordpiece", files, TrainOptions(vocab_size=900, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    if name == "trained-charbpe":
        return train("bpe", files, TrainOptions(vocab_size=1000, special_tokens=["<unk>"]), end_of_word="glued")
    words = sorted(set(regex.findall(r"\w+|[^\w\s]+", resource_path("training.txt").read_text(encoding="utf-8"))))
    vocab = {"[UNK]": 0, **{w: i for i, w in enumerate(words, 1)}}
    return tokviz.Tokenizer(WordLevel(vocab, unk_token="[UNK]"), pre_tokenizer=pre.Whitespace())


@lru_cache(maxsize=None)
def samples() -> tuple[str, ...]:
    out = [t for t in EDGE_CASES if t]
    for name in ("en", "zh", "code", "multi"):
        out += corpus_samples(name, SAMPLES_PER_CORPUS)
    return tuple(out)


def plain_samples(tok) -> list[str]:
    """Samples without added-token strings (whose matching in text differs between libraries'
    defaults: tiktoken's encode_ordinary and sentencepiece never match them)."""
    return [t for t in samples() if not any(a.content in t for a in tok.added.tokens)]


def assert_same_ids(tok, encode, texts, add_special_tokens=False):
    assert texts
    for text in texts:
        assert encode(text) == tok.encode(text, add_special_tokens=add_special_tokens).ids, text[:80]


# ---- tokenizer.json ------------------------------------------------------------------------------

HF_JSON = ["qwen2.5/tokenizer.json", "qwen2.5/vocab.json", "llama3/tokenizer.json", "bert-minilm/tokenizer.json",
           "bert-minilm/vocab.txt", DEMO, *TRAINED]


@pytest.mark.shared
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", HF_JSON)
def test_tokenizer_json_round_trip(name, tmp_path):
    tok = load(name)
    assert can_write(tok, "hf-json") is None
    out = save(tok, tmp_path / "tokenizer.json")
    ref = tokenizers.Tokenizer.from_file(str(out))
    ref.no_padding()  # the file keeps the original's padding and truncation settings
    ref.no_truncation()
    again = tokviz.load(out)
    texts = plain_samples(tok)
    assert_same_ids(tok, lambda t: ref.encode(t, add_special_tokens=False).ids, texts)
    assert_same_ids(tok, lambda t: again.encode(t).ids, texts)


# ---- vocab.json + merges.txt ---------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["qwen2.5/tokenizer.json", "qwen2.5/vocab.json", DEMO, "trained-bytelevel"])
def test_vocab_merges_round_trip(name, tmp_path):
    tok = load(name)
    first = save(tok, tmp_path, format="vocab-merges")
    vocab, merges = tmp_path / "vocab.json", tmp_path / "merges.txt"
    assert first == vocab and merges.is_file()
    config = tmp_path / "tokenizer_config.json"
    tok_class = json.loads(config.read_text(encoding="utf-8"))["tokenizer_class"] if config.exists() else "GPT2Tokenizer"
    if tok_class == "GPT2Tokenizer":
        ref = tokenizers.ByteLevelBPETokenizer.from_file(str(vocab), str(merges))
    else:  # what transformers' Qwen2TokenizerFast builds around the two files
        assert tok_class == "Qwen2Tokenizer"
        from tokviz.core.patterns import QWEN2_PATTERN

        ref = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(vocab), str(merges)))
        ref.normalizer = tokenizers.normalizers.NFC()
        ref.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
            tokenizers.pre_tokenizers.Split(tokenizers.Regex(QWEN2_PATTERN), "isolated"),
            tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    again = tokviz.load(tmp_path)
    texts = plain_samples(tok)
    assert_same_ids(tok, lambda t: ref.encode(t, add_special_tokens=False).ids, texts)
    assert_same_ids(tok, lambda t: again.encode(t).ids, texts)
    assert again.vocab_size == tok.vocab_size


def test_vocab_merges_names_beside_a_file(tmp_path):
    written = save(load(DEMO), tmp_path / "demo.json", format="vocab-merges")
    assert written == tmp_path / "demo-vocab.json"
    assert (tmp_path / "demo-merges.txt").is_file()
    save(load(DEMO), tmp_path / "sub", format="vocab-merges")  # a new folder is made
    assert (tmp_path / "sub" / "vocab.json").is_file()


# ---- .tiktoken -----------------------------------------------------------------------------------

@pytest.mark.shared
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["cl100k_base.tiktoken", "llama3/tokenizer.json"])
def test_tiktoken_round_trip(name, tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    import tiktoken.load

    tok = load(name)
    out = save(tok, tmp_path / "out.tiktoken")
    params = tiktoken_params(tok)
    enc = tiktoken.Encoding("out", mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(out)), **params)
    again = tokviz.load(out, pattern=params["pat_str"])
    texts = plain_samples(tok)
    assert_same_ids(tok, enc.encode_ordinary, texts)
    assert_same_ids(tok, lambda t: again.encode(t).ids, texts)
    if name.endswith(".tiktoken"):
        assert out.read_bytes() == (TOKENIZERS / name).read_bytes()


# ---- sentencepiece .model ------------------------------------------------------------------------

SP_MODELS = ["sentencepiece/bpe_8k.model", "sentencepiece/unigram_8k.model"]


@pytest.mark.shared
@pytest.mark.parametrize("name", SP_MODELS)
def test_sentencepiece_round_trip_is_byte_identical(name, tmp_path):
    spm = pytest.importorskip("sentencepiece")
    tok = load(name)
    out = save(tok, tmp_path / "out.model")
    assert out.read_bytes() == (TOKENIZERS / name).read_bytes()
    ref = spm.SentencePieceProcessor(model_file=str(out))
    assert_same_ids(tok, ref.encode, plain_samples(tok))


@pytest.mark.shared
@pytest.mark.parametrize("name", SP_MODELS)
def test_sentencepiece_specs_rebuilt_from_the_pipeline(name, tmp_path):
    """A model whose original fields are unknown gets trainer_spec and normalizer_spec from the pipeline."""
    spm = pytest.importorskip("sentencepiece")
    tok = tokviz.load(need(TOKENIZERS / name))
    del ORIGINAL_FIELDS[tok.model]
    out = save(tok, tmp_path / "out.model", format="sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(out))
    assert_same_ids(tok, ref.encode, plain_samples(tok))
    assert_same_ids(tok, lambda t: tokviz.load(out).encode(t).ids, plain_samples(tok)[:5])


@pytest.mark.shared
@pytest.mark.parametrize("name", SP_MODELS)
def test_scrub_removes_the_training_corpus_path(name, tmp_path):
    spm = pytest.importorskip("sentencepiece")
    source = need(TOKENIZERS / name).read_bytes()
    trainer = next(v for n, _, v in iter_fields(source) if n == 2)
    corpus = next(v for n, _, v in iter_fields(trainer) if n == 1)  # TrainerSpec.input
    prefix = next(v for n, _, v in iter_fields(trainer) if n == 2)  # TrainerSpec.model_prefix
    tok = load(name)
    out = save(tok, tmp_path / "scrubbed.model", scrub=True)
    data = out.read_bytes()
    assert corpus in source and corpus not in data
    trainer_out = next(v for n, _, v in iter_fields(data) if n == 2)
    fields = {n for n, _, _ in iter_fields(trainer_out)}
    assert not fields & {1, 2, 7, 54}
    assert prefix not in trainer_out
    ref = spm.SentencePieceProcessor(model_file=str(out))
    assert_same_ids(tok, ref.encode, plain_samples(tok))


@pytest.mark.shared
def test_scrub_drops_self_test_sentences(tmp_path):
    from tokviz.formats.protobuf import LEN, encode_field, encode_string

    sample = encode_field(1, LEN, encode_string(1, "a secret training sentence") + encode_string(2, "▁a ▁secret"))
    source = tmp_path / "with_tests.model"
    source.write_bytes(need(TOKENIZERS / SP_MODELS[0]).read_bytes() + encode_field(4, LEN, sample))
    tok = tokviz.load(source)
    assert tok.source.extra["self_test_samples"] == 1
    assert save(tok, tmp_path / "kept.model").read_bytes() == source.read_bytes()
    scrubbed = save(tok, tmp_path / "scrubbed.model", scrub=True).read_bytes()
    assert b"secret" not in scrubbed
    assert tokviz.load(tmp_path / "scrubbed.model").source.extra["self_test_samples"] == 0


# ---- WordPiece vocab.txt -------------------------------------------------------------------------

CASED_BERT = {"do_lower_case": False, "tokenize_chinese_chars": False, "additional_special_tokens": ["<u>"],
              "clean_up_tokenization_spaces": True}


def _bert_folder(tmp_path, config):
    """A BERT folder: the real MiniLM vocab.txt, the given tokenizer_config.json."""
    folder = tmp_path / "source"
    folder.mkdir()
    (folder / "vocab.txt").write_bytes(lzma.decompress((REAL / "bert-minilm" / "vocab.txt.xz").read_bytes()))
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder / "vocab.txt"


@pytest.mark.shared
@pytest.mark.parametrize("name", ["bert-minilm/tokenizer.json", "bert-minilm/vocab.txt", "trained-wordpiece", "cased"])
def test_wordpiece_vocab_round_trip(name, tmp_path):
    """What tokviz writes, BertTokenizer.from_pretrained reads as the same tokenizer: ids with and
    without [CLS]/[SEP], casing, accents, added tokens."""
    transformers = pytest.importorskip("transformers")
    tok = tokviz.load(_bert_folder(tmp_path, CASED_BERT)) if name == "cased" else load(name)
    out = tmp_path / "out"
    out.mkdir()
    written = save(tok, out / "vocab.txt")
    assert (out / "tokenizer_config.json").exists()
    ref = transformers.BertTokenizer.from_pretrained(str(out))
    again = tokviz.load(written)
    texts = [*plain_samples(tok), "Hello CAFÉ café 中文 <u>x", "[CLS] [MASK] [UNK]"]
    for specials in (False, True):
        assert_same_ids(tok, lambda t: ref.encode(t, add_special_tokens=specials), texts, add_special_tokens=specials)
        assert_same_ids(tok, lambda t: again.encode(t, add_special_tokens=specials).ids, texts,
                        add_special_tokens=specials)


def test_wordpiece_vocab_refuses_what_bert_tokenizer_would_read_otherwise(tmp_path):
    from tokviz.core import normalizers as norm

    tok = tokviz.load(_bert_folder(tmp_path, CASED_BERT))
    other = copy.copy(tok)
    other.normalizer = norm.Lowercase()
    assert "BertNormalizer" in can_write(other, "wordpiece-vocab")
    other = copy.copy(tok)
    other.pre_tokenizer = pre.Whitespace()
    assert "BertPreTokenizer" in can_write(other, "wordpiece-vocab")
    other = copy.copy(tok)
    other.post_processor = None
    assert "no post-processor" in can_write(other, "wordpiece-vocab")
    spaced = copy.copy(tok)
    spaced.model = copy.copy(tok.model)
    vocab = dict(tok.model.vocab)
    word = next(w for w, i in vocab.items() if i > 2000 and w.isalpha())
    vocab[word + " "] = vocab.pop(word)
    spaced.model.vocab = vocab
    assert "white space" in can_write(spaced, "wordpiece-vocab")
    with pytest.raises(TokvizError, match="white space"):
        save(spaced, tmp_path / "x" / "vocab.txt")
    assert not (tmp_path / "x").exists()


# ---- minbpe --------------------------------------------------------------------------------------

def minbpe_encode(text: str, model_path) -> list[int]:
    """minbpe's RegexTokenizer.encode_ordinary, written out: split with the regex, then merge the
    pair with the lowest merge index until none applies."""
    lines = model_path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "minbpe v1"
    pattern, n_special = lines[1], int(lines[2])
    merges = {}
    for line in lines[3 + n_special:]:
        if line:
            a, b = map(int, line.split())
            merges[(a, b)] = 256 + len(merges)
    out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        while len(ids) > 1:
            pair = min(zip(ids, ids[1:]), key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            merged, i = [], 0
            while i < len(ids):
                if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                    merged.append(merges[pair])
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        out += ids
    return out


@pytest.mark.shared
def test_minbpe_round_trip(tmp_path):
    tok = load(DEMO)
    out = save(tok, tmp_path / "demo.model")  # .model: minbpe, the format that can hold it
    assert out.read_bytes() == default_tokenizer_path().read_bytes()
    listing = (tmp_path / "demo.vocab").read_text(encoding="utf-8").splitlines()
    assert len(listing) == tok.vocab_size
    assert listing[256] == "[ ][t] -> [ t] 256"
    again = tokviz.load(out)
    texts = plain_samples(tok)
    assert_same_ids(tok, lambda t: minbpe_encode(t, out), texts)
    assert_same_ids(tok, lambda t: again.encode(t).ids, texts)


# ---- vocabulary listings -------------------------------------------------------------------------

def _read_listing(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        return list(csv.reader(text.splitlines()))
    unescape = {"\\\\": "\\", "\\t": "\t", "\\n": "\n", "\\r": "\r"}
    return [[regex.sub(r"\\[\\tnr]", lambda m: unescape[m.group()], cell) for cell in line.split("\t")]
            for line in text.split("\n")[:-1]]


@pytest.mark.first_cases(2)
@pytest.mark.parametrize("name", ["trained-bytelevel", "bert-minilm/vocab.txt", "sentencepiece/unigram_8k.model",
                                  "cl100k_base.tiktoken"])
@pytest.mark.parametrize("kind", ["tsv", "csv"])
def test_vocab_listing(name, kind, tmp_path):
    tok = load(name)
    out = save(tok, tmp_path / f"vocab.{kind}")
    rows = _read_listing(out)
    assert rows[0] == ["id", "token", "bytes", "left", "right", "count"]
    rows = rows[1:]
    assert len(rows) == tok.vocab_size
    for row in rows[:: max(1, len(rows) // 500)]:
        i = int(row[0])
        assert row[1] == tok.id_to_token(i)
        assert bytes.fromhex(row[2]) == tok.token_bytes(i)
    if name == "trained-bytelevel":
        model = tok.model
        by_id = {int(r[0]): r for r in rows}
        for rank in (0, 1, len(model.merges) - 1):
            a, b = model.merges[rank]
            row = by_id[model.vocab[a + b]]
            assert (row[3], row[4]) == (a, b)
            assert int(row[5]) == model.merge_counts[rank]


def test_tsv_escapes_tabs_and_line_breaks(tmp_path):
    tok = tokviz.Tokenizer(WordLevel({"[UNK]": 0, "a\tb": 1, "c\nd\\": 2}, unk_token="[UNK]"))
    rows = _read_listing(save(tok, tmp_path / "v.tsv"))
    assert [r[1] for r in rows[1:]] == ["[UNK]", "a\tb", "c\nd\\"]
    assert (tmp_path / "v.tsv").read_text(encoding="utf-8").count("\n") == 4


# ---- refusals ------------------------------------------------------------------------------------

REFUSED = [
    ("bert-minilm/vocab.txt", "tiktoken", "byte-level BPE"),
    ("bert-minilm/vocab.txt", "vocab-merges", "byte-level BPE"),
    ("sentencepiece/unigram_8k.model", "vocab-merges", "Unigram"),
    ("sentencepiece/bpe_8k.model", "minbpe", "works on characters"),
    ("cl100k_base.tiktoken", "vocab-merges", "merge list"),
    ("cl100k_base.tiktoken", "minbpe", "merge list"),
    ("qwen2.5/tokenizer.json", "tiktoken", "normalizer"),
    ("qwen2.5/tokenizer.json", "sentencepiece", "sentencepiece models only"),
    ("llama3/tokenizer.json", "vocab-merges", "split regex"),
    ("llama3/tokenizer.json", "minbpe", "bytes in byte order"),
    (DEMO, "tiktoken", "not a merge"),
    (DEMO, "wordpiece-vocab", "WordPiece"),
    ("trained-unigram", "sentencepiece", "sentencepiece models only"),
    ("trained-charbpe", "tiktoken", "works on characters"),
]


@pytest.mark.shared
@pytest.mark.parametrize("name,format,reason", REFUSED)
def test_refused_with_the_reason_and_nothing_written(name, format, reason, tmp_path):
    tok = load(name)
    assert reason in can_write(tok, format)
    target = tmp_path / "out.bin"
    with pytest.raises(TokvizError, match=reason) as info:
        save(tok, target, format=format)
    assert info.value.path == str(target)
    assert list(tmp_path.iterdir()) == []


def _tiny_bpe(merges: list[tuple[str, str]], ids: list[int], ignore_merges=False) -> tokviz.Tokenizer:
    """A byte-level BPE over the 256 bytes (ids 0-255) plus one token per merge, with the given ids."""
    from tokviz.core import decoders as dec
    from tokviz.core.bytelevel import BYTE_TO_CHAR
    from tokviz.core.models import BPE

    vocab = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
    for (a, b), i in zip(merges, ids):
        vocab.setdefault(a + b, i)
    return tokviz.Tokenizer(BPE(vocab, merges, ignore_merges=ignore_merges), pre_tokenizer=pre.ByteLevel(),
                            decoder=dec.ByteLevel())


@pytest.mark.shared
def test_tiktoken_refuses_merges_that_rank_differently(tmp_path):
    out_of_order = _tiny_bpe([("a", "b"), ("c", "d")], [257, 256])
    assert "out of id order" in can_write(out_of_order, "tiktoken")
    missing_split = _tiny_bpe([("a", "b"), ("ab", "c"), ("b", "c")], [256, 257, 258])
    assert "'a' + 'bc' make the token 'abc' but are not a merge" in can_write(missing_split, "tiktoken")
    unreachable = _tiny_bpe([("b", "c"), ("a", "b"), ("c", "d"), ("ab", "cd")], [256, 257, 258, 259])
    assert "does not come out whole" in can_write(unreachable, "tiktoken")
    with pytest.raises(TokvizError, match="does not come out whole"):
        save(unreachable, tmp_path / "x.tiktoken")
    # the same merges, but a piece that is a token is taken whole (HF's ignore_merges): as tiktoken
    whole = _tiny_bpe([("b", "c"), ("a", "b"), ("c", "d"), ("ab", "cd")], [256, 257, 258, 259], ignore_merges=True)
    assert can_write(whole, "tiktoken") is None
    tiktoken = pytest.importorskip("tiktoken")
    import tiktoken.load

    out = save(whole, tmp_path / "whole.tiktoken")
    enc = tiktoken.Encoding("w", mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(out)), **tiktoken_params(whole))
    for text in ("abcd abcde xabcd", "abc bcd", *samples()[:10]):
        assert enc.encode_ordinary(text) == whole.encode(text).ids


@pytest.mark.shared
def test_format_from_the_name(tmp_path):
    with pytest.raises(TokvizError, match="neither can hold"):
        save(load("bert-minilm/vocab.txt"), tmp_path / "x.model")
    with pytest.raises(TokvizError, match="format from the name"):
        save(load(DEMO), tmp_path / "x.bin")
    with pytest.raises(TokvizError, match="cannot write format 'nope'"):
        save(load(DEMO), tmp_path / "x.json", format="nope")
    assert save(load("sentencepiece/bpe_8k.model"), tmp_path / "x.model").read_bytes()[:1] == b"\n"
    assert save(load(DEMO), tmp_path / "y.model").read_text(encoding="utf-8").startswith("minbpe v1\n")
    assert save(load(DEMO), tmp_path / "vocab.json") == tmp_path / "vocab.json"
    assert (tmp_path / "merges.txt").is_file()
    assert save(load(DEMO), tmp_path, format="hf-json") == tmp_path / "tokenizer.json"  # a folder: the usual name


# ---- overwriting and atomic writes ---------------------------------------------------------------

def test_no_overwrite_unless_asked(tmp_path):
    tok = load(DEMO)
    target = tmp_path / "demo.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(TokvizError, match="already exists"):
        save(tok, target)
    assert target.read_text(encoding="utf-8") == "old"
    save(tok, target, overwrite=True)
    assert json.loads(target.read_text(encoding="utf-8"))["model"]["type"] == "BPE"


def test_no_file_of_a_set_is_written_when_one_exists(tmp_path):
    (tmp_path / "merges.txt").write_text("old", encoding="utf-8")
    with pytest.raises(TokvizError, match="already exists") as info:
        save(load(DEMO), tmp_path, format="vocab-merges")
    assert info.value.path == str(tmp_path / "merges.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merges.txt"]
    save(load(DEMO), tmp_path, format="vocab-merges", overwrite=True)
    assert (tmp_path / "merges.txt").read_text(encoding="utf-8").startswith("#version")


def test_a_file_that_appears_while_writing_is_kept(tmp_path):
    target = tmp_path / "x.bin"
    target.write_bytes(b"theirs")
    with pytest.raises(TokvizError, match="already exists"):
        write_bytes_atomic(target, b"ours", overwrite=False)
    assert target.read_bytes() == b"theirs"
    assert os.listdir(tmp_path) == ["x.bin"]


@pytest.mark.shared
@pytest.mark.parametrize("overwrite", [True, False])
def test_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch, overwrite):
    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    monkeypatch.setattr(os, "link", fail)
    old = tmp_path / "old.model"
    old.write_bytes(b"old")
    with pytest.raises(TokvizError, match="No space left"):
        save(load("sentencepiece/bpe_8k.model"), old, overwrite=True)
    with pytest.raises(TokvizError, match="No space left"):
        save(load(DEMO), tmp_path / "new.tsv", overwrite=overwrite)
    assert old.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["old.model"]


# ---- file permissions ----------------------------------------------------------------------------

@pytest.fixture(params=[0o022, 0o027], ids=["umask022", "umask027"])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def _mode(path) -> int:
    return os.stat(path).st_mode & 0o7777


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("fmt, out", [("hf-json", "t.json"), ("vocab-merges", "gpt2"), ("minbpe", "t.model"),
                                      ("vocab-csv", "t.csv"), ("vocab-tsv", "t.tsv")])
def test_export_gives_new_files_the_usual_permissions(capsys, tmp_path, umask, fmt, out):
    from tokviz.cli import main

    target = tmp_path / out
    assert main(["export", "-t", str(default_tokenizer_path()), "--format", fmt, "-o", str(target), "--json"]) == 0
    files = [tmp_path / f for f in json.loads(capsys.readouterr().out)["files"]]
    assert files and all(f.is_file() for f in files)
    assert {f.name: _mode(f) for f in files} == {f.name: 0o666 & ~umask for f in files}
    assert not [p for p in tmp_path.rglob(".*.tmp")]


@pytest.mark.shared
@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_binary_sentencepiece_model_written_with_the_usual_permissions(capsys, tmp_path, umask):
    from tokviz.cli import main

    source = need(TOKENIZERS / "sentencepiece" / "bpe_8k.model")
    target = tmp_path / "sp.model"
    assert main(["export", "-t", str(source), "--format", "sentencepiece", "-o", str(target)]) == 0
    assert _mode(target) == 0o666 & ~umask
    assert tokviz.load(target).encode("some text").ids == tokviz.load(source).encode("some text").ids


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("kept", [0o600, 0o640, 0o664])
def test_a_replaced_file_keeps_its_mode(capsys, tmp_path, umask, kept):
    from tokviz.cli import main

    target = tmp_path / "t.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, kept)
    assert main(["export", "-t", str(default_tokenizer_path()), "--format", "hf-json", "-o", str(target),
                 "--force"]) == 0
    assert json.loads(target.read_text(encoding="utf-8"))["model"]["type"] == "BPE"
    assert _mode(target) == kept
    write_bytes_atomic(target, b"again")
    assert target.read_bytes() == b"again" and _mode(target) == kept
