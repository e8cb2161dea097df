"""`tokviz train`: every model from the command line, written where HF tokenizers reads it back."""
from __future__ import annotations

import json

import pytest

import tokviz
from tokviz.cli import main
from tokviz.defaults import resource_path

tokenizers = pytest.importorskip("tokenizers")

CORPUS = resource_path("training.txt")
SAMPLE = resource_path("sample.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "model, args, name",
    [
        ("bytelevel-bpe", ["--vocab-size", "1000", "--special-tokens", "<|endoftext|>"], "bpe.json"),
        ("bytelevel-bpe", ["--vocab-size", "1000", "--pattern", "cl100k", "--split-digits"], "bpe_cl100k.json"),
        ("bpe", ["--vocab-size", "1200", "--end-of-word", "glued", "--special-tokens", "<unk>"], "char.json"),
        ("wordpiece", ["--vocab-size", "1200", "--special-tokens", "[PAD],[UNK],[CLS],[SEP],[MASK]"], "wp.json"),
        ("unigram", ["--vocab-size", "700", "--special-tokens", "<unk>,<s>,</s>", "--byte-fallback"], "uni.json"),
    ],
)
def test_train_writes_a_tokenizer_json_hf_encodes_the_same(model, args, name, tmp_path, capsys):
    out = tmp_path / name
    code = main(["train", "--model", model, *args, "-o", str(out), "--quiet", "--json", str(CORPUS)])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == model and report["output"] == str(out)
    ours = tokviz.load(out)
    assert ours.vocab_size == report["vocab_size"]
    ref = tokenizers.Tokenizer.from_file(str(out))
    for text in (SAMPLE, "plain words, 1234 digits and 中文 🙂"):
        assert ref.encode(text, add_special_tokens=False).ids == ours.encode(text).ids


def test_wordpiece_vocab_txt_and_clear_errors(tmp_path, capsys):
    out = tmp_path / "vocab.txt"
    assert main(["train", "--model", "wordpiece", "--vocab-size", "900", "-o", str(out), "-q", str(CORPUS)]) == 0
    assert tokviz.load(out).vocab_size == len(out.read_text(encoding="utf-8").splitlines())
    capsys.readouterr()
    # a Sennrich-style BPE has no tokenizer.json form: said before any training
    assert main(["train", "--model", "bpe", "--vocab-size", "900", "-o", str(tmp_path / "x.json"), str(CORPUS)]) == 2
    assert "--end-of-word glued" in capsys.readouterr().err
    assert main(["train", "--model", "unigram", "--vocab-size", "900", "-o", str(tmp_path / "x.txt"), str(CORPUS)]) == 2
    assert main(["train", "--model", "unigram", "--vocab-size", "900", "-o", str(tmp_path / "x.json"),
                 str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("model", ["bpe", "bytelevel-bpe", "wordpiece", "unigram"])
def test_a_missing_training_file_is_a_clear_error(model, tmp_path):
    from tokviz.errors import TokvizError
    from tokviz.train import TRAINERS, train
    from tokviz.train.options import TrainOptions

    missing = tmp_path / "missing.txt"
    with pytest.raises(TokvizError, match="missing.txt"):
        train(model, [missing], TrainOptions(vocab_size=500))
    module, function = TRAINERS[model]
    trainer = getattr(__import__(f"tokviz.train.{module}", fromlist=[function]), function)
    with pytest.raises(TokvizError, match="missing.txt"):  # the trainer itself, given a Path
        trainer([missing], TrainOptions(vocab_size=500))


def test_tie_break_flag_picks_the_rule(tmp_path, capsys):
    """`--tie-break minbpe` merges the first of the tied pairs met in the text, the default (hf) the
    pair of the lowest ids: on a corpus where the two differ, the first merges differ as they should."""
    corpus = tmp_path / "ties.txt"
    corpus.write_text("长长长长长长 潮潮潮潮潮潮\n", encoding="utf-8")  # 长长 and 潮潮: 5 times each
    firsts = {}
    for rule in ("hf", "minbpe"):
        out = tmp_path / f"{rule}.json"
        args = ["train", "--model", "bpe", "--end-of-word", "glued", "--vocab-size", "12", "--min-frequency", "1",
                "--tie-break", rule,
                "-o", str(out), "--quiet", str(corpus)]
        assert main(args) == 0
        first = json.loads(out.read_text(encoding="utf-8"))["model"]["merges"][0]
        firsts[rule] = tuple(first.split(" ") if isinstance(first, str) else first)
    assert firsts == {"hf": ("潮", "潮"), "minbpe": ("长", "长")}
    with pytest.raises(SystemExit):
        main(["train", "--model", "bpe", "--vocab-size", "12", "--tie-break", "random", "-o", str(tmp_path / "x.json"),
              str(corpus)])
