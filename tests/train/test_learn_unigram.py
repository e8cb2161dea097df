"""Learn for Unigram: its steps are train_unigram's, one by one, and its tokenizer is the trained one."""
from __future__ import annotations

import json
import re

import pytest

from tokviz.core.streaming import Cancelled
from tokviz.train.learn import learn
from tokviz.train.learn.unigram import TABLE_ROWS, learn_unigram
from tokviz.train.learn.words import count_text
from tokviz.train.options import TrainOptions
from tokviz.train.unigram import train_unigram

try:
    from tokviz import _unigramtrain
except ImportError:  # the C module is optional
    _unigramtrain = None

needs_c = pytest.mark.skipif(_unigramtrain is None, reason="tokviz._unigramtrain is not built")

# (words, counts, vocab_size small enough that pieces are pruned, text to encode)
ENGLISH = (["low", "lowest", "new", "widest"], [5, 2, 6, 3], 12, "lowest newest wider low slow")
CHINESE = (["喜欢吃鱼", "喜欢吃肉", "长长潮潮", "我喜欢鱼", "吃鱼"], [3, 2, 1, 2, 4], 12, "我喜欢吃鱼 长潮 吃肉")
EXAMPLES = pytest.mark.parametrize("example", [ENGLISH, CHINESE], ids=["english", "chinese"])

PROGRESS = re.compile(r"^(?:(?P<seeds>\d+) seed pieces|EM round (?P<round>\d+), step (?P<step>\d+): (?P<em>\d+) pieces"
                      r", objective .*|pruned to (?P<pruned>\d+) pieces)$")


def text_of(words, counts) -> str:
    """A text holding each word `count` times."""
    return " ".join(w for w, c in zip(words, counts) for _ in range(c))


def trained_steps(text: str, options: TrainOptions, native: bool) -> tuple:
    """train_unigram on `text`, and its progress messages as (kind, round, iteration, pieces)."""
    steps, done_rounds = [], 0
    progress_seen = []
    tok = train_unigram([text], options, native=native, progress=lambda f, m: progress_seen.append(str(m)))
    for message in progress_seen:
        m = PROGRESS.match(message)
        if m is None:
            continue
        if m["seeds"]:
            steps.append(("seed", 0, 0, int(m["seeds"])))
        elif m["em"]:
            steps.append(("em", int(m["round"]), int(m["step"]), int(m["em"])))
        else:
            done_rounds += 1
            steps.append(("prune", done_rounds, 0, int(m["pruned"])))
    return tok, steps


def run_of(example):
    words, counts, vocab_size, _ = example
    return learn_unigram(words, counts, TrainOptions(vocab_size=vocab_size))


@EXAMPLES
def test_final_tokenizer_is_the_trained_one(example):
    words, counts, vocab_size, sample = example
    run = run_of(example)
    trained, _ = trained_steps(text_of(words, counts), TrainOptions(vocab_size=vocab_size), native=False)
    assert run.tokenizer.model.pieces == trained.model.pieces
    assert run.tokenizer.vocab_size == vocab_size
    assert run.tokenizer.encode(sample).ids == trained.encode(sample).ids
    assert run.to_json()["pieces"] == [[p, s] for p, s in trained.model.pieces]


@EXAMPLES
@pytest.mark.parametrize("native", [False, pytest.param(True, marks=needs_c)], ids=["python", "c"])
def test_steps_are_the_trainers_step_by_step(example, native):
    words, counts, vocab_size, sample = example
    run = run_of(example)
    trained, steps = trained_steps(text_of(words, counts), TrainOptions(vocab_size=vocab_size), native=native)
    assert [(s.kind, s.round, s.iteration, len(s.pieces)) for s in run.steps] == steps
    assert any(s.kind == "prune" for s in run.steps), "the example should prune"
    assert [p for p, _ in run.tokenizer.model.pieces] == [p for p, _ in trained.model.pieces]
    assert run.tokenizer.encode(sample).ids == trained.encode(sample).ids


def test_the_words_of_a_text_learn_what_the_word_list_learns():
    words, counts, vocab_size, _ = ENGLISH
    options = TrainOptions(vocab_size=vocab_size)
    from_text = learn("unigram", *count_text("unigram", text_of(words, counts), options), options)
    assert (from_text.words, from_text.counts) == (words, counts)
    assert from_text.to_json() == run_of(ENGLISH).to_json()


@EXAMPLES
def test_each_step_says_what_it_removed(example):
    run = run_of(example)
    before = None
    for step in run.steps:
        after = {p for p, _ in step.pieces}
        assert len(after) == len(step.pieces)
        if step.kind == "seed":
            assert not step.removed and not step.expected and not step.losses and step.objective is None
        else:
            assert set(step.removed) == before - after
            assert len(step.removed) == len(before) - len(after)
        if step.kind == "em":
            assert isinstance(step.objective, float)
            assert {p for p, _ in step.expected} == before
            expected = dict(step.expected)
            assert all(expected[p] < 0.5 for p in step.removed)
            assert all(expected[p] >= 0.5 or len(p) == 1 for p in after)
        if step.kind == "prune":
            assert step.removed, "a pruning round removes pieces"
            going = [p for p, _ in step.losses]
            assert set(going[:len(step.removed)]) == set(step.removed)
            assert not set(going) & {p for p in before if len(p) == 1}, "characters are never pruned"
            assert [x for _, x in step.losses] == sorted(x for _, x in step.losses)
        assert [s for _, s in step.pieces] == sorted((s for _, s in step.pieces), reverse=True)
        before = after
    assert [s.number for s in run.steps] == list(range(1, len(run.steps) + 1))


@EXAMPLES
def test_segmentations_join_back_to_their_words(example):
    words, counts, _, _ = example
    run = run_of(example)
    for step in run.steps:
        vocab = {p for p, _ in step.pieces}
        assert [(w, c) for w, c, _ in step.segmentations] == [("▁" + w, c) for w, c in zip(words, counts)]
        for word, _, pieces in step.segmentations:
            assert "".join(pieces) == word
            assert set(pieces) <= vocab


@EXAMPLES
def test_tokenizer_at_each_step(example):
    run = run_of(example)
    steps = run.steps
    seeds = {p for p, _ in steps[0].pieces}
    first = run.tokenizer_at(0)
    assert {p for p, _ in first.model.pieces} == seeds | {"<unk>"}
    assert run.tokenizer_at(1).model.pieces == first.model.pieces
    for k, step in enumerate(steps, 1):
        if k < len(steps):
            assert {p for p, _ in run.tokenizer_at(k).model.pieces} == {p for p, _ in step.pieces} | {"<unk>"}
    assert run.tokenizer_at(len(steps)) is run.tokenizer
    with pytest.raises(IndexError):
        run.tokenizer_at(len(steps) + 1)
    before_last = run.tokenizer_at(len(steps) - 1)
    names = [p for p, _ in before_last.model.pieces]
    for word, _, pieces in steps[-2].segmentations:
        assert [names[i] for i in before_last.encode(word[1:]).ids] == pieces


def test_a_vocabulary_bigger_than_the_seeds_is_only_em():
    words, counts, _, _ = ENGLISH
    run = learn_unigram(words, counts, TrainOptions(vocab_size=100))
    assert [(s.kind, s.round, s.iteration) for s in run.steps] == [("seed", 0, 0), ("em", 1, 1), ("em", 1, 2)]
    assert run.stop == "the vocabulary fits: 14 pieces, at most 108 wanted (vocab_size leaves room for 99)"
    assert run.stop.params == {"n": 14, "desired": 108, "budget": 99}
    assert run.stop.context == "learn"


def test_stop_says_the_best_pieces_make_the_vocabulary():
    run = run_of(ENGLISH)
    assert run.stop == ("the vocabulary fits: 12 pieces, at most 12 wanted (vocab_size leaves room for 11); the 11 "
                        "best-scoring make the vocabulary")
    assert len(run.tokenizer.model.pieces) == 12


def test_options_reach_the_trainer():
    words, counts, _, _ = ENGLISH
    options = TrainOptions(vocab_size=14, special_tokens=["<unk>", "<s>"], min_word_count=3)
    run = learn_unigram(words, counts, options, em_iterations=1, max_piece_length=3)
    assert run.words == ["low", "new", "widest"]
    assert all(s.iteration <= 1 for s in run.steps)
    assert all(len(p) <= 3 for s in run.steps for p, _ in s.pieces)
    trained = train_unigram([text_of(words, counts)], options, native=False, em_iterations=1, max_piece_length=3)
    assert run.tokenizer.model.pieces == trained.model.pieces
    assert run.model_options == {"shrinking_factor": 0.75, "em_iterations": 1, "max_piece_length": 3,
                                 "seed_size": 1_000_000}


def test_cancel_stops_it():
    words, counts, vocab_size, _ = ENGLISH
    with pytest.raises(Cancelled):
        learn_unigram(words, counts, TrainOptions(vocab_size=vocab_size), cancel=lambda: True)


@EXAMPLES
def test_json_round_trips(example):
    run = run_of(example)
    data = run.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["model"] == "unigram"
    assert data["words"] == [[w, c] for w, c in zip(example[0], example[1])]
    assert data["options"]["vocab_size"] == example[2]
    assert data["stop"] == run.stop
    assert len(data["steps"]) == len(run.steps)
    step = data["steps"][-1]
    assert set(step) >= {"kind", "round", "iteration", "pieces", "objective", "expected", "removed", "losses",
                         "segmentations"}
    assert step["segmentations"][0][0].startswith("▁")


def test_markdown_tables():
    run = run_of(ENGLISH)
    text = run.to_markdown()
    assert "| piece | log probability | probability |" in text
    assert "| piece | loss |" in text and "| piece | expected count |" in text
    assert "| word | count | best segmentation |" in text
    assert text.count("\n## Step ") == len(run.steps)
    assert "## Step 1: seed pieces" in text and "## Step 4: round 1, pruning" in text
    assert run.stop in text
    short = run.to_markdown(max_steps=1)
    assert short.count("\n## Step ") == 1
    assert f"… {len(run.steps) - 1} more steps" in short


def test_markdown_cuts_long_tables_and_escapes_cells():
    words = [f"w{i}x|y" for i in range(TABLE_ROWS + 5)]
    run = learn_unigram(words, [2] * len(words), TrainOptions(vocab_size=500))
    text = run.to_markdown(max_steps=1)
    assert "… and 5 more rows" in text
    assert "w0x\\|y" in text
    assert all(line.count("|") - line.count("\\|") in (0, 3, 4) for line in text.splitlines())
