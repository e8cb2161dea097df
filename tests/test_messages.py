"""tokviz.messages: text from the layers without Qt is the same English str as before (the command
line prints it unchanged) and remembers its template and parameters for the GUI to translate."""
from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys

import pytest

from tokviz.analysis import fairness, health, overlap, token_health, vocab_edit
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.errors import TokvizError
from tokviz.messages import QT_TRANSLATE_NOOP, Joined, Message, Template
from tokviz.train.options import COUNTING_WORDS, done_message, merge_message


def test_a_message_is_its_english_text_and_survives_pickle_copy_and_json():
    m = Message(QT_TRANSLATE_NOOP("overlap", "{b} holds all {n:,} tokens of {a}"), a="x", b="y", n=1200)
    assert m == "y holds all 1,200 tokens of x" and isinstance(m, str)
    assert (m.context, m.template, m.params) == ("overlap", "{b} holds all {n:,} tokens of {a}",
                                                 {"a": "x", "b": "y", "n": 1200})
    nested = Message(QT_TRANSLATE_NOOP("c", "{head}: {items}."), head=m,
                     items=Joined(QT_TRANSLATE_NOOP("c", "; "), [QT_TRANSLATE_NOOP("c", "one"), "two"]))
    assert nested == "y holds all 1,200 tokens of x: one; two."
    for back in (pickle.loads(pickle.dumps(nested)), copy.deepcopy(nested)):
        assert back == nested and type(back) is Message and back.context == "c"
        assert back.params["items"].items == ("one", "two") and back.params["items"].separator.context == "c"
    assert json.dumps({"v": nested, QT_TRANSLATE_NOOP("c", "k"): 1}) == json.dumps({"v": str(nested), "k": 1})
    assert isinstance(QT_TRANSLATE_NOOP("c", "plain"), Template) and Message("no {x}", x=1).context is None


def _pair(**kw) -> overlap.PairOverlap:
    base = dict(a="A", b="B", tokens_a=1000, tokens_b=2000, shared=1000, jaccard=0.5, a_in_b=1.0, b_in_a=0.5,
                same_id=1000, same_id_prefix=1000, special_shared=0, special_only_a=0, special_only_b=0)
    return overlap.PairOverlap(**(base | kw))


def test_overlap_verdicts_are_the_english_of_before():
    m = overlap.MergeAgreement(700, 1700, False, False, 700, 700, 1.0, 0.41, 1.0, 700, 700)
    assert overlap.verdict(_pair(merges=m)) == (
        "B extends A: B's first 700 merges are A's, in A's order; B adds 1,000 more; B's vocabulary holds 100 % of "
        "A's 1,000 tokens; ids 0–999 stand for the same tokens in both.")
    same = _pair(tokens_b=1000, b_in_a=1.0, jaccard=1.0, same_id=3)
    assert overlap.verdict(same) == "A and B are the same vocabulary: the same 1,000 tokens, with other ids."
    none = _pair(shared=100, jaccard=100 / 2900, a_in_b=0.1, b_in_a=0.05, same_id=0, same_id_prefix=0)
    none.merges_note = overlap.merges_note([("A", "WordPiece"), ("B", "Unigram")])
    assert none.merges_note == "A is a WordPiece, B is a Unigram (no merge list)"
    text = overlap.verdict(none)
    assert text == ("No sign that one was derived from the other: they share 100 tokens (Jaccard 0.03), what "
                    "tokenizers trained on similar text all learn; B's vocabulary holds 10.0 % of A's 1,000 tokens. "
                    "Merges not compared: A is a WordPiece, B is a Unigram (no merge list).")
    assert text.context == "overlap" and text.params["verdict"].params["head"].template.startswith("No sign")


def test_fairness_warnings_and_notes_are_the_english_of_before():
    def facts(lines, size, words=100, unspaced=0):
        return fairness.TextFacts(chars=size, bytes=size, lines=lines, words=words, unspaced_chars=unspaced,
                                  word_chars=1000)

    got = fairness.parallel_warnings({"en": facts(100, 10_000), "de": facts(300, 100_000), "fr": facts(100, 1000)},
                                     "en")
    assert got == ["de: 300 non-blank lines against 100 and 100,000 bytes against 10,000 of the pivot en: is it the "
                   "same content (parallel)?",
                   "fr: 1,000 bytes against 10,000 of the pivot en: is it the same content (parallel)?"]
    notes = fairness._notes({"ja": facts(10, 100, words=3, unspaced=900), "en": facts(10, 100, unspaced=10)},
                            ["ja", "en"])
    assert notes == ["ja: 90% of its word characters are in scripts written without spaces; STRR is n/a (its 3 "
                     "other words are not the language's words)",
                     "en: 1% of its word characters are in scripts written without spaces and are left out of its "
                     "words"]
    assert all(isinstance(n, Message) and n.context == "fairness" for n in got + notes)


def test_health_reasons_and_notes_are_the_english_of_before():
    late = BPE({"乌": 0, "鲁": 1, "木": 2, "乌鲁": 3, "乌鲁木": 4}, [("乌鲁", "木"), ("乌", "鲁")])
    [(_, _, _, why)] = health.bad_merges(late)
    assert why == "part '乌鲁' is only made by merge 1" and why.context == "health"
    missing = BPE({"乌": 0, "鲁": 1, "乌鲁": 2}, [("乌", "鲁"), ("齐", "乌")])
    assert [r[3] for r in health.bad_merges(missing)] == ["part '齐' is not a token"]
    assert token_health.stray_kind(b"\x80abc\xe6") == "starts inside a character, ends inside a character"
    assert token_health.FORMS == ("plain", "space", "after a word")
    tiktoken_like = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], ignore_merges=True)
    assert health.vocab_health(Tokenizer(tiktoken_like)).notes == [
        "this BPE takes a pre-token that is a token whole (ignore_merges / tiktoken): unreachable here means no "
        "sequence of merges makes the token, so it only appears when a whole pre-token equals it"]


def test_edit_errors_and_training_messages_are_the_english_of_before():
    tok = Tokenizer(BPE({"t": 0, "o": 1, "to": 2, "k": 3}, [("t", "o")]))
    with pytest.raises(TokvizError) as caught:
        vocab_edit.add_merges(tok, [("t", "o"), ("o", "k"), ("o", "k"), ("x", "y")])
    assert str(caught.value) == ("not tokens of this model, nor made by an earlier merge of this edit: 'x', 'y'; "
                                 "'t o' is already merge 0 of this model; 'o k' is listed twice")
    assert isinstance(caught.value.reason, Joined)
    with pytest.raises(TokvizError, match=r"^not tokens of this model: 'zz'$"):
        vocab_edit.remove_tokens(tok, ["zz"])
    assert merge_message(1200, "th", "e", 4410) == "merge 1200: 'th' + 'e' (4410)"
    assert done_message(85, 400) == "done: 85 merges, 400 tokens" and COUNTING_WORDS == "counting words"


def test_the_layers_without_qt_still_import_no_qt():
    code = ("import sys, tokviz.messages, tokviz.analysis.overlap, tokviz.analysis.fairness, "
            "tokviz.analysis.token_health, tokviz.analysis.vocab_edit, tokviz.train.unigram, tokviz.train.bytelevel, "
            "tokviz.train.wordpiece, tokviz.train.charbpe; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
