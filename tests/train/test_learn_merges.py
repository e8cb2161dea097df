"""Learn for the merge trainers: the textbook's tables, and the same merges as the real trainers
(tokviz train, HF tokenizers' BpeTrainer)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tokviz.errors import TokvizError
from tokviz.train import train
from tokviz.train.learn import learn, parse_word_counts
from tokviz.train.learn.words import count_listed_words, count_text
from tokviz.train.options import TrainOptions
from tokviz.defaults import resource_path

TEXTBOOK = "low:5 lowest:2 new:6 widest:3"
BIG = TrainOptions(vocab_size=100_000)


def textbook():
    return parse_word_counts(TEXTBOOK)


def vocab(tok) -> dict[str, int]:
    return {tok.id_to_token(i): i for i in range(tok.vocab_size)}


def as_text(words, counts) -> str:
    """A text holding each word `count` times, words in order of first appearance."""
    return " ".join(w for w, c in zip(words, counts) for _ in range(c))


def test_step_one_is_the_textbooks():
    run = learn("bpe", *textbook(), BIG)
    first = run.steps[0]
    assert {(a, b): c for a, b, c in first.pair_counts} == {
        ("l", "o"): 7, ("o", "w"): 7, ("w", "</w>"): 11, ("w", "e"): 2, ("e", "s"): 5, ("s", "t"): 5,
        ("t", "</w>"): 5, ("n", "e"): 6, ("e", "w"): 6, ("w", "i"): 3, ("i", "d"): 3, ("d", "e"): 3,
    }
    assert first.merge == ("w", "</w>") and first.count == 11 and first.new_symbol == "w</w>"
    assert first.pair_counts[0] == ("w", "</w>", 11)
    assert [c for _, _, c in first.pair_counts] == sorted((c for _, _, c in first.pair_counts), reverse=True)
    assert first.words[0] == (["l", "o", "w", "</w>"], 5)
    assert (first.symbols_before, first.symbols_after, first.delta, first.gone) == (10, 11, 1, [])


def test_the_corpus_and_the_symbols_follow_each_merge():
    run = learn("bpe", *textbook(), BIG)
    second = run.steps[1]
    assert second.words[0] == (["l", "o", "w</w>"], 5)  # the first merge applied
    assert second.merge == ("l", "o")
    assert (second.delta, sorted(second.gone)) == (-1, ["l", "o"])  # neither occurs alone any more
    deltas = {s.delta for s in run.steps}
    assert deltas <= {-1, 0, 1} and 0 in deltas
    zero = next(s for s in run.steps if s.delta == 0)
    assert len(zero.gone) == 1
    assert [s.vocab_size for s in run.steps] == list(range(run.steps[0].vocab_size,
                                                           run.steps[0].vocab_size + len(run.steps)))
    assert run.steps[-1].vocab_size == run.tokenizer.vocab_size


def test_training_stops_when_the_best_pair_occurs_once():
    run = learn("bpe", *parse_word_counts("low:5 lowest:1 new:6 widest:1"), BIG)
    assert run.steps[-1].count >= 2
    assert "fewer than min_frequency 2" in str(run.stop)
    assert "occurs 1 times" in str(run.stop)


@pytest.mark.parametrize("end_of_word", ["separate", "glued", "none"])
@pytest.mark.parametrize("tie_break", ["hf", "minbpe"])
def test_a_full_run_equals_tokviz_train(tmp_path, end_of_word, tie_break):
    options = TrainOptions(vocab_size=100_000, tie_break=tie_break)
    corpus = tmp_path / "words.txt"
    corpus.write_text(as_text(*textbook()) + "\n喜欢吃鱼 喜欢吃肉 我喜欢鱼\n", encoding="utf-8")
    trained = train("bpe", [corpus], options, end_of_word=end_of_word)
    words, counts = count_text("bpe", corpus.read_text(encoding="utf-8"), options)
    run = learn("bpe", words, counts, options, end_of_word=end_of_word)
    assert run.merges == [tuple(m) for m in trained.model.merges]
    assert [s.count for s in run.steps] == list(trained.model.merge_counts)
    assert vocab(run.tokenizer) == vocab(trained)


def test_a_full_run_equals_hf_bpe_trainer_with_the_same_end_of_word_suffix():
    tokenizers = pytest.importorskip("tokenizers")
    text = open(resource_path("training.txt"), encoding="utf-8").read()
    options = TrainOptions(vocab_size=1200)
    run = learn("bpe", *count_text("bpe", text, options), options, end_of_word="glued")
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(end_of_word_suffix="</w>"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=1200, min_frequency=2, end_of_word_suffix="</w>",
                                             show_progress=False)
    hf.train_from_iterator([text], trainer)
    hf_merges = [tuple(m) for m in json.loads(hf.to_str())["model"]["merges"]]
    # HF numbers the characters with the suffix glued on in the order of a hash map, which changes
    # from run to run: its merges are compared up to the first tie that only that order decides
    decided = next((s.number - 1 for s in run.steps if any(undecided_by_hf(s.merge, t) for t in s.tied)),
                   len(run.steps))
    assert decided > 150
    assert run.merges[:decided] == hf_merges[:decided]


def undecided_by_hf(pair, other) -> bool:
    """Whether HF's rule (the pair of the lowest ids) orders `pair` and `other` only by the ids of
    two different suffixed characters."""
    def suffixed(symbol):
        return len(symbol) == 1 + len("</w>") and symbol.endswith("</w>")

    for a, b in zip(pair, other):
        if a != b:
            return suffixed(a) and suffixed(b)
    return False


def test_textbook_run_equals_hf_bpe_trainer():
    tokenizers = pytest.importorskip("tokenizers")
    run = learn("bpe", *textbook(), BIG, end_of_word="glued")
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(end_of_word_suffix="</w>"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    hf.train_from_iterator([as_text(*textbook())], tokenizers.trainers.BpeTrainer(
        vocab_size=1000, min_frequency=2, end_of_word_suffix="</w>", show_progress=False))
    assert run.merges == [tuple(m) for m in json.loads(hf.to_str())["model"]["merges"]]


def text_file(tmp_path, text: str):
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_wordpiece_steps_equal_the_trainer_step_by_step(tmp_path):
    options = TrainOptions(vocab_size=100_000)
    words, counts = count_listed_words("wordpiece", *textbook(), options)
    run = learn("wordpiece", words, counts, options)
    said = []
    trained = train("wordpiece", [text_file(tmp_path, as_text(*textbook()))], options,
                    progress=lambda f, m: said.append(str(m)) if str(m).startswith("merge ") else None)
    assert [f"merge {s.number}: {s.merge[0]!r} + {s.merge[1]!r} ({s.count})" for s in run.steps] == said
    assert vocab(run.tokenizer) == vocab(trained)
    first = run.steps[0]
    best = max(first.scores, key=lambda e: e[2] / (e[3] * e[4]))
    assert first.scores[0][2:] == best[2:] and first.merge in {(e[0], e[1]) for e in first.scores
                                                              if e[2] * best[3] * best[4] == best[2] * e[3] * e[4]}
    assert first.bpe_pick == ("l", "##o")  # the most frequent pair (7), which WordPiece passes over
    assert first.merge != first.bpe_pick


def test_bytelevel_steps_equal_the_trainer(tmp_path):
    options = TrainOptions(vocab_size=100_000)
    text = open(resource_path("sample.txt"), encoding="utf-8").read()
    run = learn("bytelevel-bpe", *count_text("bytelevel-bpe", text, options, pattern="gpt2"), options, pattern="gpt2")
    trained = train("bytelevel-bpe", [text_file(tmp_path, text)], options, pattern="gpt2")
    assert run.merges == [tuple(m) for m in trained.model.merges]
    assert any("Ġ" in s.new_symbol for s in run.steps)
    assert vocab(run.tokenizer) == vocab(trained)


@pytest.mark.parametrize("model", ["bpe", "wordpiece", "bytelevel-bpe"])
def test_the_tokenizer_at_a_step_knows_the_merges_so_far(model):
    options = TrainOptions(vocab_size=100_000)
    run = learn(model, *count_listed_words(model, *textbook(), options), options)
    sample = "lowest newest wide"
    for k in (0, 1, 3, len(run.steps)):
        tok = run.tokenizer_at(k)
        assert tok.vocab_size == (run.steps[k].vocab_size - 1 if k < len(run.steps) else run.tokenizer.vocab_size)
        if model != "wordpiece":
            assert [tuple(m) for m in tok.model.merges] == run.merges[:k]
        assert tok.decode(tok.encode(sample).ids).replace(" ", "") == sample.replace(" ", "") or model == "wordpiece"
    assert len(run.tokenizer_at(0).encode("lowest").ids) > len(run.tokenizer.encode("lowest").ids)


def test_chinese_characters_are_symbols_and_ties_follow_the_rule():
    # 长 U+957F, 潮 U+6F6E: HF's rule takes the lower ids (潮潮), minbpe's the first in the text (长长)
    words = ["长长潮潮"]
    hf = learn("bpe", words, [6], TrainOptions(vocab_size=100_000), end_of_word="none")
    first = hf.steps[0]
    assert first.merge == ("潮", "潮")
    assert set(first.tied) == {("长", "长"), ("长", "潮")}
    mb = learn("bpe", words, [6], TrainOptions(vocab_size=100_000, tie_break="minbpe"), end_of_word="none")
    assert mb.steps[0].merge == ("长", "长")
    run = learn("bpe", *parse_word_counts("喜欢吃鱼:3 喜欢吃肉:2 我喜欢:4"), TrainOptions(vocab_size=100_000))
    assert run.steps[0].merge == ("喜", "欢") and run.steps[0].count == 9


def test_the_json_and_markdown_carry_the_tables():
    run = learn("bpe", *textbook(), BIG)
    data = json.loads(json.dumps(run.to_json()))
    assert data["steps"][0]["merge"] == ["w", "</w>"]
    assert ["w", "</w>", 11] in data["steps"][0]["pair_counts"]
    assert data["merges"] == [list(m) for m in run.merges]
    md = run.to_markdown(2)
    assert "| pair | count |" in md and "| `w </w>` | 11 |" in md
    assert f"… {len(run.steps) - 2} more steps" in md
    wp = learn("wordpiece", *count_listed_words("wordpiece", *textbook(), BIG), BIG)
    assert "scores" in wp.to_json()["steps"][0]
    assert "| pair | count(ab) | count(a) | count(b) | score |" in wp.to_markdown(1)


@pytest.mark.parametrize("listed, problem", [
    ("low:5 lowest", "'lowest' is not word:count"),
    ("low:0", "must be at least 1"),
    ("", "no words given"),
    ('{"low": "five"}', "not a whole number"),
])
def test_a_bad_word_list_is_refused_by_name(listed, problem):
    with pytest.raises(TokvizError, match=problem):
        parse_word_counts(listed)


def test_word_lists_in_their_usual_spellings():
    assert parse_word_counts("low 5\nlowest 2\nlow 1") == (["low", "lowest"], [6, 2])
    assert parse_word_counts('{"low": 5, "new": 6}') == (["low", "new"], [5, 6])
    assert parse_word_counts("low:5, new=6") == (["low", "new"], [5, 6])


def test_a_corpus_too_big_to_step_through_is_refused():
    words = [f"w{i}" for i in range(2500)]
    with pytest.raises(TokvizError, match="2500 distinct words"):
        count_listed_words("bpe", words, [1] * len(words), BIG)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "tokviz", "learn", *args], capture_output=True, text=True,
                          timeout=120)


def test_the_command_prints_the_tables_and_the_json():
    out = run_cli("--model", "bpe", "--words", TEXTBOOK, "--end-of-word", "</w>", "--steps", "10", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    run = learn("bpe", *textbook(), BIG)
    assert len(data["steps"]) == 10 and data["steps_total"] == len(run.steps)
    assert data["steps"][0]["merge"] == ["w", "</w>"]
    assert data["merges"] == [list(m) for m in run.merges]
    md = run_cli("--model", "bpe", "--words", TEXTBOOK, "--steps", "1")
    assert md.returncode == 0 and "## Step 1: `w` + `</w>` → `w</w>` (11)" in md.stdout
    bad = run_cli("--words", "low:5 lowest")
    assert bad.returncode == 2 and "'lowest' is not word:count" in bad.stderr


@pytest.mark.parametrize("end_of_word, marker", [("none", "</w>"), ("glued", "@@")])
def test_char_bpe_without_a_marker_or_with_another_reads_the_same_in_hf(tmp_path, end_of_word, marker):
    tokenizers = pytest.importorskip("tokenizers")
    from tokviz.formats import load, save

    tok = train("bpe", [resource_path("training.txt")], TrainOptions(vocab_size=900), end_of_word=end_of_word,
                marker=marker)
    out = tmp_path / "tokenizer.json"
    save(tok, out)
    hf = tokenizers.Tokenizer.from_file(str(out))
    ours = load(out)
    text = open(resource_path("sample.txt"), encoding="utf-8").read()
    want, got = hf.encode(text), ours.encode(text)
    assert list(got.ids) == want.ids == list(tok.encode(text).ids)
    assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets]
    assert ours.decode(got.ids) == hf.decode(want.ids)
    assert any(t.endswith(marker) for t in want.tokens) == (end_of_word == "glued")


def test_an_empty_marker_is_refused():
    with pytest.raises(TokvizError, match="end-of-word marker"):
        learn("bpe", *textbook(), BIG, marker="")


@pytest.mark.parametrize("model", ["bpe", "wordpiece", "bytelevel-bpe", "unigram"])
def test_min_word_count_prunes_the_whole_counts(model):
    options = TrainOptions(vocab_size=100, min_word_count=3)
    words, counts = count_listed_words(model, *textbook(), options)
    assert sorted(counts) == [3, 5, 6]  # lowest (2) is left out, the others kept with their counts
    words, counts = count_text(model, as_text(*textbook()), options)
    everything = count_text(model, as_text(*textbook()), TrainOptions(vocab_size=100))
    assert (words, counts) == tuple(map(list, zip(*[(w, n) for w, n in zip(*everything) if n >= 3])))


@pytest.mark.parametrize("model", ["bpe", "wordpiece", "bytelevel-bpe"])
def test_the_tokenizer_at_the_last_step_is_the_trained_one(model):
    """tokenizer_at assembles the tokenizer as the trainer does: given every merge, the same one."""
    options = TrainOptions(vocab_size=100_000, special_tokens=["<pad>", "[UNK]"], user_defined_symbols=["<x>"])
    text = open(resource_path("sample.txt"), encoding="utf-8").read()
    run = learn(model, *count_text(model, text, options), options)
    rebuilt = run._build_at(len(run.steps))
    assert vocab(rebuilt) == vocab(run.tokenizer)
    assert rebuilt.encode(text).ids == run.tokenizer.encode(text).ids


def test_unigrams_default_vocabulary_prunes_the_textbook_words():
    from tokviz.train.learn.words import default_vocab_size

    options = TrainOptions(vocab_size=1)
    for listed in (TEXTBOOK, "喜欢吃鱼:3 喜欢吃肉:2 长长潮潮:1 我喜欢鱼:2 吃鱼:4"):
        words, counts = count_listed_words("unigram", *parse_word_counts(listed), options)
        run = learn("unigram", words, counts, TrainOptions(vocab_size=default_vocab_size("unigram", words)))
        assert "prune" in [s.kind for s in run.steps], listed
