"""vocab_edit: merges listed in one edit build on each other in order, anything else is refused with
the reason; the check reports the tokens an edit adds or removes; padding says what it adds."""
from __future__ import annotations

import re

import pytest

import tokviz
from tokviz.analysis.vocab_edit import (
    add_merges,
    add_special_tokens,
    check_edit,
    pad_to_multiple,
    padding,
    remove_tokens,
)
from tokviz.defaults import default_tokenizer_path
from tokviz.errors import TokvizError


@pytest.fixture(scope="module")
def demo():
    """The shipped byte-level BPE: 'pp', 'le' and 'ĠA' are tokens, 'pple' and 'ĠApple' are not."""
    tok = tokviz.load(default_tokenizer_path())
    assert {"pp", "le", "ĠA"} <= set(tok.model.vocab) and not {"pple", "ĠApple"} & set(tok.model.vocab)
    return tok


@pytest.mark.parametrize("at_rank", [None, 0, 7])
def test_a_merge_may_use_what_an_earlier_merge_of_the_edit_made(demo, at_rank):
    before = demo.encode(" Apple").ids
    edited = add_merges(demo, [("pp", "le"), ("ĠA", "pple")], at_rank)
    made = [edited.model.vocab["pple"], edited.model.vocab["ĠApple"]]
    assert made == [demo.vocab_size, demo.vocab_size + 1] and edited.vocab_size == demo.vocab_size + 2
    assert edited.encode(" Apple").ids == [made[1]]
    first = len(demo.model.merges) if at_rank is None else at_rank
    assert edited.model.ranks[("pp", "le")] == first and edited.model.ranks[("ĠA", "pple")] == first + 1
    assert demo.encode(" Apple").ids == before and "pple" not in demo.model.vocab  # the original is untouched


def test_merges_that_cannot_be_made_are_refused_with_the_reason(demo):
    with pytest.raises(TokvizError, match="list it first") as info:
        add_merges(demo, [("ĠA", "pple"), ("pp", "le")])
    assert "'pple' is made by merge 2" in str(info.value)
    with pytest.raises(TokvizError, match="not tokens of this model, nor made by an earlier merge") as info:
        add_merges(demo, [("pp", "le"), ("zzqq", "pple"), ("pple", "xxyy")])
    assert "'zzqq'" in str(info.value) and "'xxyy'" in str(info.value) and "'pple'" not in str(info.value)
    a, b = demo.model.merges[3]
    with pytest.raises(TokvizError, match=re.escape(f"'{a} {b}' is already merge 3 of this model")):
        add_merges(demo, [(a, b)])
    with pytest.raises(TokvizError, match="listed twice"):
        add_merges(demo, [("pp", "le"), ("pp", "le")])
    with pytest.raises(TokvizError, match="outside the merge list"):
        add_merges(demo, [("pp", "le")], len(demo.model.merges) + 1)
    with pytest.raises(TokvizError, match="no merge given"):
        add_merges(demo, [])


def test_the_check_lists_the_tokens_added_and_the_cuts_that_change(demo):
    edited = add_merges(demo, [("pp", "le"), ("ĠA", "pple")])
    report = check_edit(demo, edited, text="An Apple a day")
    assert report.added_tokens == [(edited.model.vocab["pple"], "pple"), (edited.model.vocab["ĠApple"], "ĠApple")]
    assert report.removed_tokens == []
    assert ("ĠApple", demo.encode(" Apple").pieces, edited.encode(" Apple").pieces) in report.changed_words
    assert "2 token(s) added" in report.summary()

    gone = remove_tokens(edited, ["pple"])
    report = check_edit(edited, gone, words=["ĠApple"])
    assert report.removed_tokens == [(edited.model.vocab["pple"], "pple")]
    assert report.newly_unreachable == [(edited.model.vocab["ĠApple"], "ĠApple")]

    special = add_special_tokens(demo, ["<|a|>", "<|b|>"])
    report = check_edit(demo, special, text="x <|a|> y")
    assert report.added_tokens == [(demo.vocab_size, "<|a|>"), (demo.vocab_size + 1, "<|b|>")]


@pytest.mark.parametrize("multiple", [1, 7, 64, 100, 1000])
def test_padding_says_what_pad_to_multiple_adds(demo, multiple):
    tok = add_special_tokens(demo, ["<|x|>"])  # (the demo alone is already a multiple of 64)
    size, add = padding(tok, multiple)
    assert size == tok.vocab_size and 0 <= add < multiple and (size + add) % multiple == 0
    padded = pad_to_multiple(tok, multiple)
    assert padded.vocab_size == size + add
    assert len(check_edit(tok, padded).added_tokens) == add
    with pytest.raises(TokvizError, match="at least 1"):
        padding(tok, 0)


def test_an_edited_copy_has_a_source_and_byte_cache_of_its_own():
    """The app keeps an edit in its data folder and sets the copy's source path there: the original
    (which other views share by file) must still name its own file, and bytes cached for the copy's
    new ids must not appear in the original's cache."""
    original = tokviz.load(default_tokenizer_path())
    path = original.source.path
    edited = add_special_tokens(original, ["<|edit|>"])
    edited.source.path = "/somewhere/kept/tokenizer.json"
    edited.source.extra["note"] = "kept"
    assert original.source.path == path and "note" not in original.source.extra
    new_id = edited.token_to_id("<|edit|>")
    assert edited.token_bytes(new_id) == b"<|edit|>"
    assert new_id not in original._bytes_cache and original.id_to_token(new_id) is None
