"""tokviz.messages: text from the layers without Qt is the same English str as before (the command
line prints it unchanged) and remembers its template and parameters for the GUI to translate."""
from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys

import pytest

import tokviz
from tokviz import paths
from tokviz.analysis import fairness, health, overlap, token_health, vocab_edit
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.core import chat
from tokviz.core.ids import encoding_from_ids, parse_ids
from tokviz.errors import TokvizError, check_text
from tokviz.formats import writers
from tokviz.formats.chat_templates import read_chat_templates
from tokviz.messages import QT_TRANSLATE_NOOP, Joined, Message, Template
from tokviz.train import TrainOptions, train
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


def _reason(call) -> str:
    with pytest.raises(TokvizError) as caught:
        call()
    return caught.value.reason


def test_file_errors_are_the_english_of_before(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(TokvizError) as caught:
        tokviz.load(missing)
    assert str(caught.value) == f"{missing}: no such file or folder" and caught.value.reason.context == "paths"
    (tmp_path / "folder").mkdir()
    folder = _reason(lambda: paths.check_regular_file(tmp_path / "folder", "a tokenizer file"))
    assert folder == "is a folder, expected a tokenizer file" and folder.params["what"].context == "paths"
    if os.path.exists("/dev/zero"):
        assert _reason(lambda: paths.check_regular_file("/dev/zero")) == "is a character device, not a regular file"
    (tmp_path / "a.txt").write_text("x")
    assert _reason(lambda: paths.check_regular_file(f"{tmp_path / 'a.txt'}/")) == (
        "is a file, not a folder (the path ends in '/')")
    assert paths.file_size_text(12) == "12 bytes" and paths.file_size_text(3 << 20) == "3.0 MB"
    assert paths.other_unicode_message("UTF-16") == (
        "the file is UTF-16 text, not UTF-8, which tokviz reads (convert it: iconv -f UTF-16 -t UTF-8)")
    assert paths.other_unicode_message("UTF-32", "opens").context == "paths"
    assert str(_reason(lambda: check_text("a\ud800"))) == (
        "text has a lone surrogate U+D800 at character 1; it is not valid Unicode and cannot be encoded as UTF-8")


def test_format_refusals_are_the_english_of_before(tmp_path):
    gz = tmp_path / "tokenizer.json.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00" + bytes(60))
    assert _reason(lambda: tokviz.load(gz)) == (
        "the file is gzip-compressed; tokviz does not decompress files: decompress it first (gunzip)")
    config = tmp_path / "tokenizer_config.json"
    config.write_text("{}")
    refusal = _reason(lambda: tokviz.load(config))
    assert refusal == ("a transformers tokenizer_config.json (settings beside a tokenizer, not a vocabulary): load "
                       "the folder that holds it, or its tokenizer.json or vocabulary files")
    assert refusal.context == "formats"
    codes = tmp_path / "codes.txt"
    codes.write_text("t h 10\nth e 5\n")
    assert _reason(lambda: tokviz.load(codes)) == (
        "a fastBPE codes file (one merge 'a b count' per line): tokviz does not read fastBPE files")
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": ')
    assert _reason(lambda: tokviz.load(bad)).startswith("malformed JSON at line 1, column 11: ")
    bad.write_text('{"version": "1.0"}')
    assert _reason(lambda: tokviz.load(bad)) == "not a tokenizer.json (no 'model' field)"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _reason(lambda: tokviz.load(empty)).startswith("no tokenizer found in this folder (looked for ")


def test_export_errors_are_the_english_of_before(tmp_path):
    tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    with pytest.raises(TokvizError) as caught:
        writers.save(tok, tmp_path / "x.json", format="nope")
    assert str(caught.value) == (f"{tmp_path / 'x.json'}: cannot write format 'nope' (writable: "
                                 f"{', '.join(writers.WRITE_FORMATS)})")
    assert _reason(lambda: writers.save(tok, tmp_path / "x.weird")) == (
        "cannot tell the format from the name (use .json, .txt, .tiktoken, .model, .tsv or .csv, or give format=)")
    writers.save(tok, tmp_path / "tokenizer.json")
    assert _reason(lambda: writers.save(tok, tmp_path / "tokenizer.json")) == (
        "already exists (pass overwrite=True, or --force, to replace it)")


def test_chat_errors_are_the_english_of_before(tmp_path):
    none = _reason(lambda: chat.ChatTemplates().pick())
    assert none == ("this tokenizer has no chat template (none in tokenizer_config.json, chat_template.jinja or "
                    "additional_chat_templates/)") and none.context == "chat"
    two = chat.ChatTemplates({"a": chat.ChatTemplate("a", "x", "o"), "b": chat.ChatTemplate("b", "y", "o")})
    assert _reason(lambda: two.pick("zz")) == "no chat template named 'zz' (there are: a, b)"
    assert _reason(lambda: two.pick()) == "several chat templates and none is the default: name one of a, b"
    assert _reason(lambda: chat.conversation_from_json([{"role": 1}])) == 'message 1: "role" must be a string'
    conversation = tmp_path / "c.json"
    conversation.write_text("[")
    assert _reason(lambda: chat.read_conversation(conversation)).startswith("not JSON: Expecting value (line 1, ")
    folder = tmp_path / "tok"
    folder.mkdir()
    (folder / "chat_template.json").write_text("[]")
    templates = read_chat_templates(folder)
    assert templates.problem == f"{folder / 'chat_template.json'}: expected an object with \"chat_template\""
    assert _reason(templates.pick) == templates.problem and templates.problem.params["reason"].context == "chat"


def test_training_and_ids_errors_are_the_english_of_before():
    assert _reason(lambda: TrainOptions(vocab_size=0)) == "vocab_size must be at least 1, got 0"
    assert _reason(lambda: TrainOptions(100, special_tokens=["<a>"], user_defined_symbols=["<a>"])) == (
        "listed twice among special tokens and user-defined symbols: <a>")
    assert _reason(lambda: TrainOptions(100, tie_break="coin")) == "tie_break must be one of hf, minbpe, got 'coin'"
    unknown = _reason(lambda: train("nope", ["x.txt"], TrainOptions(100)))
    assert unknown.startswith("unknown model 'nope' (choose from ") and unknown.context == "train"
    assert _reason(lambda: train("bpe", [], TrainOptions(100))) == "no training files given"
    assert _reason(lambda: parse_ids("1 x")) == "ids must be numbers separated by spaces or commas; found 'x'"
    assert _reason(lambda: parse_ids("-1")) == "ids cannot be negative"
    tok = Tokenizer(BPE({"a": 0, "b": 1}, []))
    assert _reason(lambda: tok.decode([5])) == "cannot decode id 5: not in the vocabulary (size 2)"
    assert _reason(lambda: encoding_from_ids(tok, [7])) == "id 7 is not in the vocabulary (size 2)"


def test_the_layers_without_qt_still_import_no_qt():
    code = ("import sys, tokviz.messages, tokviz.analysis.overlap, tokviz.analysis.fairness, "
            "tokviz.analysis.token_health, tokviz.analysis.vocab_edit, tokviz.train.unigram, tokviz.train.bytelevel, "
            "tokviz.train.wordpiece, tokviz.train.charbpe, tokviz.train, tokviz.train.learn, tokviz.paths, tokviz.errors, tokviz.formats, "
            "tokviz.formats.writers, tokviz.formats.chat_templates, tokviz.formats.hf_json, tokviz.formats.gguf, "
            "tokviz.formats.sentencepiece, tokviz.core.chat, tokviz.core.ids, tokviz.core.tokenizer; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
