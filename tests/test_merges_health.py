"""Merge traces and trees, WordPiece and Unigram traces, and the vocabulary health report, on
hand-built vocabularies whose answers are known (the 乌鲁木齐 examples) and on the real tokenizers."""
from __future__ import annotations

import math
import random

import pytest

import tokviz
from tokviz.analysis.health import bad_merges, edit_impact, vocab_health, with_merges
from tokviz.analysis.merges import listed_tree, merge_list, merge_tree, merges_making, trace_bpe, used_by
from tokviz.analysis.segments import unigram_lattice, wordpiece_trace
from tokviz.analysis.token_info import merge_rank
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


@pytest.mark.shared
def test_unigram_lattice_on_a_real_model():
    tok = tokviz.load(shared_path("sentencepiece/unigram_8k.model"))
    for text in ["▁hello▁world", "▁tokenization", "▁中文分词"]:
        lattice = unigram_lattice(tok.model, text)
        best = lattice.n_best(5)
        assert best[0].ids == [i for i, _, _ in tok.model.viterbi(text)]
        assert 0 < sum(s.probability for s in best) <= 1.0 + 1e-9


@pytest.mark.shared
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


def test_vocab_edits_keep_ids_apart_and_report(qwen):
    from tokviz.analysis.vocab_edit import add_merges, add_reserved_tokens, check_edit, pad_to_multiple, remove_tokens

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


# ---- the merge index, against the plain dicts it replaces ---------------------------------------


def _reference(model):
    """(merge list, making, used by, merge rank) as straightforward dicts, from the model's own
    merge strings (a model without a merge list: its traced merge_list)."""
    if getattr(model, "has_merge_list", False):
        lines = model._merge_lines
        pairs = [tuple(line.split(" ")) for line in lines] if lines is not None else model._merges
        merges = [(r, a, b, model._merged(a, b)) for r, (a, b) in enumerate(pairs)]
    else:
        merges = merge_list(model)
    making, used = {}, {}
    for r, a, b, m in merges:
        making.setdefault(m, (r, a, b))
        used.setdefault(a, []).append((r, m))
        if b != a:
            used.setdefault(b, []).append((r, m))
    if getattr(model, "has_merge_list", False):
        rank = {m: r for m, (r, _, _) in making.items()}
    else:  # tiktoken-style: the id of a token longer than one character
        rank = {t: i for t, i in model.vocab.items() if len(t) > 1}
    return merges, making, used, rank


def _reference_bad_merges(model, merges, making):
    vocab, out = model.vocab, []
    for r, a, b, m in merges:
        if a not in vocab or b not in vocab:
            out.append((r, a, b, f"part {' and '.join(repr(x) for x in (a, b) if x not in vocab)} is not a token"))
        elif m not in vocab:
            out.append((r, a, b, f"result {m!r} is not a token"))
        else:
            late = [x for x in (a, b) if x in making and making[x][0] > r]
            if late:
                out.append((r, a, b, "part " + " and ".join(f"{x!r} is only made by merge {making[x][0]}" for x in late)))
    return out


def _shape(node):
    return (node.token, node.id, node.rank, node.count,
            node.left and _shape(node.left), node.right and _shape(node.right))


def _check_index(model, extra=(), tree_tokens=None):
    """merges_making, used_by, merge_rank, listed_tree and bad_merges equal the reference for every
    token (and every string a merge names, and `extra`)."""
    merges, making, used, rank = _reference(model)
    got = merges_making(model)
    assert len(got) == len(making) and list(got.items()) == list(making.items())  # (in the same order)
    strings = set(model.vocab) | set(making) | set(used) | {x for _, a, b, _ in merges for x in (a, b)} | set(extra)
    for t in strings:
        assert got.get(t) == making.get(t), t
        assert (t in got) == (t in making), t
        assert used_by(model, t) == used.get(t, []), t
        if isinstance(model, BPE):
            assert merge_rank(model, t) == rank.get(t), t

    counts = getattr(model, "merge_counts", None)
    by_list = getattr(model, "has_merge_list", False)
    memo = {}

    def expected_tree(t, depth=0):
        if t not in memo:
            made = making.get(t)
            if made is None or depth > 256:
                memo[t] = (t, model.vocab.get(t), None, None, None, None)
            else:
                r, a, b = made
                count = counts[r] if counts is not None and by_list and r < len(counts) else None
                memo[t] = (t, model.vocab.get(t), r, count, expected_tree(a, depth + 1), expected_tree(b, depth + 1))
        return memo[t]

    for t in strings if tree_tokens is None else tree_tokens:
        assert _shape(listed_tree(model, t)) == expected_tree(t), t
    if isinstance(model, BPE) and by_list:
        assert bad_merges(model) == _reference_bad_merges(model, merges, making)
    if getattr(model, "_merge_lines", None) is not None:
        assert model._merges is None  # nothing above built model.merges


_AWKWARD = [
    ("a", "b"),    # 0  ab
    ("b", "c"),    # 1  bc
    ("a", "a"),    # 2  aa: a part twice (used_by lists the merge once)
    ("ab", "c"),   # 3  abc
    ("a", "bc"),   # 4  abc again: rank 3 makes it
    ("z", "c"),    # 5  part 'z' is not a token, nor is the result 'zc'
    ("c", "c"),    # 6  the result 'cc' is not a token
    ("ab", "ab"),  # 7  abab
    ("ca", "b"),   # 8  cab, but 'ca' is only made by merge 9
    ("c", "a"),    # 9  ca
    ("q", "b"),    # 10 part 'q' is not a token, the result 'qb' is
    ("z", "z"),    # 11 a part that is not a token, twice
    ("zc", "a"),   # 12 a part made by a merge whose result is not a token
    ("z", "ca"),   # 13 zca again: rank 12 makes it
]
_AWKWARD_VOCAB = ["a", "b", "c", "ab", "bc", "abc", "aa", "abab", "ca", "cab", "qb"]


def _awkward(lines: bool, counts=None) -> BPE:
    vocab = {t: i for i, t in enumerate(_AWKWARD_VOCAB)}
    if lines:
        return BPE(vocab, None, merge_lines=[f"{a} {b}" for a, b in _AWKWARD], merge_counts=counts)
    return BPE(vocab, list(_AWKWARD), merge_counts=counts)


@pytest.mark.parametrize("lines", [False, True], ids=["pairs", "merge lines"])
def test_merge_index_on_an_awkward_merge_list(lines):
    model = _awkward(lines, counts=[9, 8, 7, 6, 5])
    _check_index(model, extra=["", "zca", "nothing", "Ġ"])
    making = merges_making(model)
    assert making == {m: (r, a, b) for r, a, b, m in reversed(merge_list(model))}  # (a Mapping's ==)
    with pytest.raises(KeyError):
        making["a"]
    assert making["abc"] == (3, "ab", "c")  # the lowest of the two merges making it
    assert making["zc"] == (5, "z", "c") and making["zca"] == (12, "zc", "a") and "cc" in making
    assert "a" not in making and making.get("a", 0) == 0 and "nothing" not in making
    assert used_by(model, "a") == [(0, "ab"), (2, "aa"), (4, "abc"), (9, "ca"), (12, "zca")]
    assert used_by(model, "ca") == [(8, "cab"), (13, "zca")]
    assert used_by(model, "z") == [(5, "zc"), (11, "zz"), (13, "zca")] and used_by(model, "zc") == [(12, "zca")]
    assert used_by(model, "ab") == [(3, "abc"), (7, "abab")] and used_by(model, "abab") == []
    assert [merge_rank(model, t) for t in ("abc", "cc", "qb", "a", "zz", "nope")] == [3, 6, 10, None, 11, None]
    tree = listed_tree(model, "zca")
    assert _shape(tree) == ("zca", None, 12, None, ("zc", None, 5, None, ("z", None, None, None, None, None),
                                                     ("c", 2, None, None, None, None)),
                            ("a", 0, None, None, None, None))
    assert listed_tree(model, "abc").count == 6 and listed_tree(model, "abc").left.count == 9
    reasons = {r: why for r, _, _, why in bad_merges(model)}
    assert sorted(reasons) == [5, 6, 8, 10, 11, 12, 13]
    assert reasons[8] == "part 'ca' is only made by merge 9" and reasons[6] == "result 'cc' is not a token"


def test_merge_index_when_tokens_share_an_id():
    # (a hand-built model: loaders refuse duplicate and negative ids.)  id_to_token(2) is 'ba', so
    # 'ab' has no id of its own; 'x' has a negative one.
    vocab = {"a": 0, "b": 1, "ab": 2, "ba": 2, "aba": 3, "bab": 4, "x": -1}
    model = BPE(vocab, [("ab", "a"), ("a", "b"), ("b", "a"), ("ba", "b"), ("x", "ab"), ("ab", "ab")])
    _check_index(model)
    assert merges_making(model)["ab"] == (1, "a", "b") and merges_making(model)["ba"] == (2, "b", "a")
    assert used_by(model, "ab") == [(0, "aba"), (4, "xab"), (5, "abab")]
    assert used_by(model, "ba") == [(3, "bab")]
    assert merge_rank(model, "aba") == 0 and merge_rank(model, "xab") == 4
    assert bad_merges(model)[0] == (0, "ab", "a", "part 'ab' is only made by merge 1")


def test_merge_index_with_a_continuing_subword_prefix():
    vocab = {t: i for i, t in enumerate(["u", "##n", "##a", "un", "##na", "una", "##aa"])}
    model = BPE(vocab, [("u", "##n"), ("##n", "##a"), ("un", "##a"), ("u", "##na"), ("##a", "##a")],
                continuing_subword_prefix="##")
    _check_index(model)
    assert merges_making(model)["una"] == (2, "un", "##a")
    assert used_by(model, "##a") == [(1, "##na"), (2, "una"), (4, "##aa")]
    assert merge_rank(model, "##aa") == 4


def test_merge_index_without_a_merge_list():
    vocab = {t: i for i, t in enumerate(["a", "b", "c", "ab", "bc", "abc", "ca"])}
    model = BPE(vocab, None)  # tiktoken-style: a pair ranks as the merged token's id
    _check_index(model)
    assert merges_making(model)["abc"] == (5, "ab", "c")
    assert used_by(model, "c") == [(4, "bc"), (5, "abc"), (6, "ca")]
    assert merge_rank(model, "abc") == 5 and merge_rank(model, "c") is None
    empty = BPE({"a": 0, "b": 1}, [])
    _check_index(empty)
    assert len(merges_making(empty)) == 0 and used_by(empty, "a") == [] and merge_rank(empty, "a") is None


@pytest.mark.slow
def test_merge_index_on_qwen_merge_lines():
    model = tokviz.load(shared_path("qwen2.5/vocab.json")).model
    _check_index(model)
    making = merges_making(model)
    assert making["Ġtokenizer"] == (45702, "Ġtoken", "izer") and making["Ġworld"] == (1623, "Ġw", "orld")
    assert merge_rank(model, "ing") == 31 and merge_rank(model, "H") is None
    assert used_by(model, "Ġtoken")[:3] == [(45702, "Ġtokenizer"), (77395, "Ġtokenize"), (86782, "ĠtokenId")]
    assert len(used_by(model, "Ġ")) == 473


@pytest.mark.slow
def test_merge_index_on_llama3():
    model = tokviz.load(shared_path("llama3/tokenizer.json")).model
    # (listed_tree for a sample: it only reads merges_making, checked for every token, and the
    # Qwen test walks every tree)
    _check_index(model, tree_tokens=random.Random(12).sample(sorted(model.vocab), 5000) + ["Ġtokenizer"])
    # two merges make Ġtokenizer: the lower rank is its merge, both use Ġtoken or Ġ
    assert merges_making(model)["Ġtokenizer"] == (120234, "Ġ", "tokenizer")
    assert used_by(model, "Ġtoken")[:2] == [(30651, "Ġtokens"), (120235, "Ġtokenizer")]
    assert len(bad_merges(model)) == 49630  # parts only a later merge makes (runs of spaces)


@pytest.mark.shared
def test_merge_index_on_a_sentencepiece_bpe():
    model = tokviz.load(shared_path("sentencepiece/bpe_8k.model")).model
    _check_index(model, tree_tokens=random.Random(13).sample(sorted(model.vocab), 1000))


def test_an_added_token_edit_is_checked_on_the_text_lines(qwen):
    from tokviz.analysis.vocab_edit import add_special_tokens, check_edit

    edited = add_special_tokens(qwen, ["soaktoken"], special=False)
    assert edited.model is qwen.model
    text = "first line without it\nthe soaktoken is here\n\nthe soaktoken is here\nlast line"
    report = check_edit(qwen, edited, text=text)
    assert report.safe and report.unit == "lines of the text" and report.words_checked == 3
    [(line, before, after)] = report.changed_words
    assert line == "the soaktoken is here" and "soaktoken" in after and "soaktoken" not in before
    assert before == qwen.encode(line).tokens and after == edited.encode(line).tokens
    assert "1 of 3 lines of the text checked cut differently" in report.summary()


@pytest.mark.shared
def test_a_sentencepiece_token_edit_is_checked_on_the_text_lines():
    from tokviz.analysis.vocab_edit import add_special_tokens, check_edit

    sp = tokviz.load(shared_path("sentencepiece/bpe_8k.model"))
    edited = add_special_tokens(sp, ["soaktoken"], special=False)
    assert edited.model is not sp.model
    text = "first line without it\nthe soaktoken is here\n\nthe soaktoken is here\nlast line"
    report = check_edit(sp, edited, text=text)
    assert report.safe and report.unit == "lines of the text" and report.words_checked == 3
    [(line, before, after)] = report.changed_words
    assert line == "the soaktoken is here" and "soaktoken" in after and "soaktoken" not in before
    assert check_edit(edited, sp, text=text).unit == "words"  # (pieces taken away: the whole check)


def test_an_added_token_edit_shares_the_unchanged_id_tables():
    from tokviz.analysis.vocab_edit import add_special_tokens

    qwen = tokviz.load(shared_path("qwen2.5/tokenizer.json"))
    qwen.encode("warm")  # (builds the per-id tables the native path reads)
    edited = add_special_tokens(qwen, ["<|mine|>", "plainword"], special=False)
    old, new = qwen._id_tables(), edited._tables
    assert new is not None and len(new[0]) == len(old[0]) + 2
    assert all(a is b for a, b in zip(old[0], new[0]))  # the same bytes objects, not copies
    fresh = Tokenizer(qwen.model, added_tokens=list(edited.added.tokens), pre_tokenizer=qwen.pre_tokenizer,
                      normalizer=qwen.normalizer, decoder=qwen.decoder)
    assert new == fresh._id_tables()  # what building them anew gives
    text = "a <|mine|> and plainword here"
    enc = edited.encode(text)
    assert "<|mine|>" in enc.tokens and "plainword" in enc.tokens and qwen.encode(text).tokens != enc.tokens
