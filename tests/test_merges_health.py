"""Merge traces and trees, WordPiece and Unigram traces, and the vocabulary health report, on
hand-built vocabularies whose answers are known (the 乌鲁木齐 examples) and on the real tokenizers."""
from __future__ import annotations

import math
import random

import pytest

import tokviz
from tokviz.analysis.health import edit_impact, vocab_health, with_merges
from tokviz.analysis.merges import listed_tree, merge_tree, trace_bpe, used_by
from tokviz.analysis.segments import unigram_lattice, wordpiece_trace
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.core.models.unigram import Unigram
from tokviz.core.pre_tokenizers import WhitespaceSplit

from _shared import TOKENIZERS, need


def shared_path(rel: str):
    return need(TOKENIZERS / rel)

CHARS = ["乌", "鲁", "木", "齐"]


def _bpe(merges, extra=()):
    vocab = {c: i for i, c in enumerate(CHARS)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    for t in extra:
        vocab.setdefault(t, len(vocab))
    return BPE(vocab, list(merges))


def _segment(model, word):
    return [s for s, _ in model._word(word)]


def test_merge_order_decides_the_segmentation():
    first_wulu = _bpe([("乌", "鲁"), ("鲁", "木")])
    first_lumu = _bpe([("鲁", "木"), ("乌", "鲁")])
    assert _segment(first_wulu, "乌鲁木齐") == ["乌鲁", "木", "齐"]
    assert _segment(first_lumu, "乌鲁木齐") == ["乌", "鲁木", "齐"]
    # the trace shows the one merge that fired, and the one that never could
    trace = trace_bpe(first_lumu, "乌鲁木齐")
    assert [s.merged for s in trace.steps] == ["鲁木"]
    assert trace.segmentation(0) == ("乌", "鲁", "木", "齐") and trace.result == ("乌", "鲁木", "齐")


def test_a_merge_that_can_never_fire_is_unreachable():
    model = _bpe([("鲁", "木"), ("乌", "鲁"), ("木", "齐"), ("乌鲁", "木齐")])
    tok = Tokenizer(model)
    report = vocab_health(tok)
    unreachable = {token: got for _, token, got in report.unreachable}
    assert unreachable == {"乌鲁木齐": ["乌", "鲁木", "齐"]}
    # its tree is the one the merge list implies, marked unreachable
    tree = merge_tree(model, "乌鲁木齐")
    assert not tree.reachable and (tree.left.token, tree.right.token) == ("乌鲁", "木齐")
    assert [leaf.token for leaf in tree.leaves()] == CHARS
    # reachable when 乌鲁 and 木齐 come first
    fixed = _bpe([("乌", "鲁"), ("木", "齐"), ("鲁", "木"), ("乌鲁", "木齐")])
    assert not vocab_health(Tokenizer(fixed)).unreachable
    assert merge_tree(fixed, "乌鲁木齐").reachable


def test_bad_merges_are_reported():
    model = _bpe([("乌鲁", "木"), ("乌", "鲁")], extra=["乌鲁木"])
    reasons = {(a, b): why for _, a, b, why in vocab_health(Tokenizer(model)).bad_merges}
    assert "only made by merge 1" in reasons[("乌鲁", "木")]
    missing = BPE({"乌": 0, "鲁": 1, "乌鲁": 2}, [("乌", "鲁"), ("乌", "齐")])
    reasons = {(a, b): why for _, a, b, why in vocab_health(Tokenizer(missing)).bad_merges}
    assert "'齐' is not a token" in reasons[("乌", "齐")]


def test_edit_impact_names_the_words_that_change():
    before = _bpe([("乌", "鲁")])
    after = with_merges(before, [("鲁", "木")], at_rank=0)
    changed = edit_impact(before, after, ["乌鲁木齐", "鲁木", "齐", "乌鲁"])
    assert changed == [("乌鲁木齐", ["乌鲁", "木", "齐"], ["乌", "鲁木", "齐"]), ("鲁木", ["鲁", "木"], ["鲁木"])]


def test_split_specials_and_duplicates():
    model = _bpe([("乌", "鲁")])
    tok = Tokenizer(model, pre_tokenizer=WhitespaceSplit(),
                    added_tokens=[tokviz.AddedToken("<two words>", 10, special=True)])
    report = vocab_health(tok)
    assert report.split_specials == [(10, "<two words>", ["<two", "words>"])]


def test_used_by_lists_the_merges_that_take_a_token():
    model = _bpe([("乌", "鲁"), ("乌鲁", "木"), ("木", "齐"), ("乌鲁", "齐")])
    assert used_by(model, "乌鲁") == [(1, "乌鲁木"), (3, "乌鲁齐")]
    assert used_by(model, "齐") == [(2, "木齐"), (3, "乌鲁齐")]


# ---- real tokenizers -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def qwen():
    return tokviz.load(shared_path("qwen2.5/tokenizer.json"))


def test_trace_result_is_the_models_encoding(qwen):
    model = qwen.model
    rng = random.Random(3)
    words = rng.sample(sorted(model.vocab), 400)
    for w in words + [w + "ing" for w in words[:100]] + ["Ġtokenization", "Ġ中华人民共和国"]:
        assert list(trace_bpe(model, w).result) == _segment(model, w)


def test_qwen_merge_trees_equal_the_trees_its_merges_imply(qwen):
    model = qwen.model
    tree = merge_tree(model, "Ġtokenizer")
    assert tree.reachable and (tree.left.token, tree.right.token) == ("Ġtoken", "izer")
    assert "".join(leaf.token for leaf in tree.leaves()) == "Ġtokenizer"

    def shape(node):
        return (node.token, node.rank, node.left and shape(node.left), node.right and shape(node.right))

    rng = random.Random(5)
    for token in rng.sample([t for t in model.vocab if len(t) > 2], 300):
        tree = merge_tree(model, token)
        assert tree.reachable
        assert shape(tree) == shape(listed_tree(model, token))
        for node in tree.walk():  # every inner node is a listed merge of its two children
            if not node.is_leaf:
                assert node.left.token + node.right.token == node.token
                assert model._rank(node.left.token, node.right.token) == node.rank


def test_wordpiece_trace_on_bert():
    tok = tokviz.load(shared_path("bert-minilm/tokenizer.json"))
    for word in ["unaffable", "tokenization", "xyzzyq", "hello"]:
        trace = wordpiece_trace(tok.model, word)
        assert [s.id for s in trace.steps] == [i for i, _, _ in tok.model.tokenize(word)]
        for step in trace.steps:  # every longer candidate really was missing
            assert all(t not in tok.model.vocab for t in step.tried)
            assert all(len(t) > len(step.piece) for t in step.tried)
    assert wordpiece_trace(tok.model, "a" * 200).too_long


def test_unigram_lattice_best_path_and_probabilities():
    pieces = [("<unk>", 0.0), ("a", -1.0), ("b", -1.5), ("ab", -2.0), ("abc", -4.0), ("c", -1.2), ("bc", -2.2)]
    model = Unigram(pieces, unk_id=0)
    lattice = unigram_lattice(model, "abc")
    best = lattice.n_best(10)
    # every segmentation of "abc": a|b|c, ab|c, a|bc, abc
    assert sorted(tuple(s.pieces) for s in best) == sorted([("a", "b", "c"), ("ab", "c"), ("a", "bc"), ("abc",)])
    assert [s.score for s in best] == sorted((s.score for s in best), reverse=True)
    assert best[0].ids == [i for i, _, _ in model.viterbi("abc")]
    assert math.isclose(sum(s.probability for s in best), 1.0)
    expected = {("ab", "c"): -3.2, ("a", "bc"): -3.2, ("a", "b", "c"): -3.7, ("abc",): -4.0}
    for s in best:
        assert math.isclose(s.score, expected[tuple(s.pieces)])


def test_unigram_lattice_on_a_real_model():
    tok = tokviz.load(shared_path("sentencepiece/unigram_8k.model"))
    for text in ["▁hello▁world", "▁tokenization", "▁中文分词"]:
        lattice = unigram_lattice(tok.model, text)
        best = lattice.n_best(5)
        assert best[0].ids == [i for i, _, _ in tok.model.viterbi(text)]
        assert 0 < sum(s.probability for s in best) <= 1.0 + 1e-9


def test_sentencepiece_bpe_trace_is_the_models_merge():
    tok = tokviz.load(shared_path("sentencepiece/bpe_8k.model"))
    model = tok.model
    rng = random.Random(7)
    words = ["▁hello", "▁tokenization", "▁中文分词"] + ["▁" + p.lstrip("▁") + "s" for p in rng.sample(sorted(model.table.normal), 300)]
    for w in words:
        trace = trace_bpe(model, w)
        assert [model.table.piece_to_id(s) for s in trace.result] == [i for i, _, _ in model.merge(w)]
        assert all(s.rank is None and s.score is not None for s in trace.steps)
    tree = merge_tree(model, "▁the")
    assert tree.reachable and "".join(leaf.token for leaf in tree.leaves()) == "▁the"


def test_added_token_impact():
    from tokviz.analysis.health import added_token_impact, with_added_tokens

    from tokviz.defaults import default_tokenizer_path

    tok = tokviz.load(default_tokenizer_path())
    edited = with_added_tokens(tok, [tokviz.AddedToken("乌鲁木齐", tok.vocab_size + 10, special=False)])
    texts = ["去乌鲁木齐看看", "plain words", "乌鲁 木齐"]
    changed = added_token_impact(tok, edited, texts)
    assert [c[0] for c in changed] == ["去乌鲁木齐看看"]
    assert "乌鲁木齐" in changed[0][2] and "乌鲁木齐" not in changed[0][1]
    assert tok.encode("去乌鲁木齐看看").tokens == changed[0][1]  # the original is untouched


def test_vocab_edits_keep_ids_apart_and_report():
    from tokviz.analysis.vocab_edit import add_merges, add_reserved_tokens, check_edit, pad_to_multiple, remove_tokens

    qwen = tokviz.load(shared_path("qwen2.5/tokenizer.json"))
    edited = add_merges(qwen, [("Ġtoken", "izers")])
    new_id = edited.model.vocab["Ġtokenizers"]
    assert new_id >= max(t.id for t in qwen.added.tokens) + 1  # not on a special token's id
    assert edited.encode(" tokenizers").ids == [new_id] != qwen.encode(" tokenizers").ids
    assert qwen.encode(" tokenizers").ids != [new_id]  # the original is untouched
    padded = pad_to_multiple(qwen, 128)
    assert padded.vocab_size % 128 == 0 and padded.vocab_size - qwen.vocab_size < 128
    assert add_reserved_tokens(qwen, 3).vocab_size == qwen.vocab_size + 3
    model = _bpe([("乌", "鲁"), ("木", "齐"), ("乌鲁", "木齐")])
    tok = Tokenizer(model)
    report = check_edit(tok, remove_tokens(tok, ["木齐"]), words=["乌鲁木齐"])
    assert [t for _, t in report.newly_unreachable] == ["乌鲁木齐"] and not report.safe
