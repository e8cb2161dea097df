"""Token health (analysis/token_health.py) against answers measured with the reference libraries:
tiktoken for cl100k, HF tokenizers for Qwen2.5 and BERT, sentencepiece for Mistral; the IoS
counts against a plain re-implementation of BPE over HF's own pre-tokenizer.  Runs from
tests/data/real alone (a fresh clone); `tokviz health` end to end at the bottom."""
from __future__ import annotations

import collections
import csv
import io
import json
import lzma
import shutil
from pathlib import Path

import pytest

import tokviz
from tokviz.analysis.token_health import ANCHORS, default_corpus, full_health, stray_kind, token_health
from tokviz.core import AddedToken, Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.core.pre_tokenizers import WhitespaceSplit

REAL = Path(__file__).parent / "data" / "real"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Name -> unpacked path of a file or folder of tests/data/real."""
    root = tmp_path_factory.mktemp("real")
    cache: dict[str, Path] = {}

    def unpack(src: Path, dest: Path) -> Path:
        if src.is_dir():
            dest.mkdir()
            for child in src.iterdir():
                unpack(child, dest / child.name)
            return dest
        if src.suffix == ".xz":
            dest = dest.with_suffix("")
            dest.write_bytes(lzma.decompress(src.read_bytes()))
            return dest
        shutil.copyfile(src, dest)
        return dest

    def get(name: str) -> Path:
        if name not in cache:
            src = REAL / name if (REAL / name).exists() else REAL / f"{name}.xz"
            cache[name] = unpack(src, root / src.name)
        return cache[name]

    return get


def round_trip_failures(n, decode, encode, skip=()):
    """The reference check: ids whose decode, encoded plain, after a space, and after each anchor
    token (decode([a, id]) -> [a, id]), never gives the id back."""
    anchors = [got[0] for got in map(encode, ANCHORS) if len(got) == 1]
    anchors = list(dict.fromkeys(anchors))
    failed = set()
    for i in range(n):
        if i in skip:
            continue
        s = decode([i])
        if encode(s) == [i] or encode(" " + s) == [i]:
            continue
        if any(encode(decode([a, i])) == [a, i] for a in anchors):
            continue
        failed.add(i)
    return failed


def hf_tokenizer(path: Path):
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_file(str(path))
    hf.no_padding()
    hf.no_truncation()
    return hf


def hf_encode(hf):
    return lambda s: hf.encode(s, add_special_tokens=False).ids


# -- undecodable ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cl100k_undecodable_and_stray_bytes_match_tiktoken(real, monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import openai_public

    path = real("cl100k_base.tiktoken")
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: load_tiktoken_bpe(str(path)))
    enc = tiktoken.Encoding(**openai_public.cl100k_base())
    n = len(load_tiktoken_bpe(str(path)))
    want = round_trip_failures(n, enc.decode, enc.encode_ordinary)
    th = token_health(tokviz.load(path))
    assert {i for i, *_ in th.undecodable} == want
    assert len(want) > 500
    not_utf8 = set()
    for i in range(n):
        try:
            enc.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            not_utf8.add(i)
    assert {i for i, *_ in th.stray_bytes} == not_utf8
    # such a token decodes with U+FFFD: every form fails
    assert all("\ufffd" in d for i, _, d, _ in th.undecodable if i in not_utf8)


@pytest.mark.slow
def test_qwen_undecodable_matches_hf_and_names_the_forms(real):
    path = real("qwen2.5") / "tokenizer.json"
    hf = hf_tokenizer(path)
    added = set(hf.get_added_tokens_decoder())
    want = round_trip_failures(hf.get_vocab_size(), lambda ids: hf.decode(ids, skip_special_tokens=False),
                               hf_encode(hf), skip=added)
    th = token_health(tokviz.load(path))
    got = {i: forms for i, _, _, forms in th.undecodable}
    assert set(got) == want
    # every form failed, each with what HF encodes it to
    i = next(i for i in sorted(want) if "\ufffd" not in hf.decode([i]))
    s = hf.decode([i])
    assert list(got[i]) == ["plain", "space", "after a word"]
    assert got[i]["plain"] == hf.encode(s, add_special_tokens=False).ids
    assert got[i]["space"] == hf.encode(" " + s, add_special_tokens=False).ids
    assert th.checked == hf.get_vocab_size(with_added_tokens=False)


def test_bert_unused_tokens_are_undecodable_continuations_are_not(real):
    path = real("bert-minilm") / "tokenizer.json"
    hf = hf_tokenizer(path)
    added = set(hf.get_added_tokens_decoder())
    want = round_trip_failures(hf.get_vocab_size(), lambda ids: hf.decode(ids, skip_special_tokens=False),
                               hf_encode(hf), skip=added)
    th = token_health(tokviz.load(path))
    got = {i for i, *_ in th.undecodable}
    assert got == want
    unused = {i for t, i in hf.get_vocab().items() if t.startswith("[unused")}
    assert len(unused) == 994 and unused <= got
    # '##ing' round-trips only after a word: no false positive
    ing = hf.token_to_id("##ing")
    assert ing not in got and th.round_trip["after a word"] > 5000
    # ids HF decodes alike after the anchor: its clean-up joins '!' and '##!' alike
    anchor = next(e for e in map(hf_encode(hf), ANCHORS) if len(e) == 1)
    head = hf.decode(anchor)
    groups: dict[str, list[int]] = {}
    for i in range(hf.get_vocab_size()):
        if i not in added:
            groups.setdefault(hf.decode(anchor + [i])[len(head):], []).append(i)
    assert dict(th.same_decode) == {t: ids for t, ids in groups.items() if len(ids) > 1}
    assert sorted(dict(th.same_decode)["!"]) == sorted([hf.token_to_id("!"), hf.token_to_id("##!")])


def test_a_space_prefix_rescues_a_token_whose_leading_space_the_decoder_drops(tmp_path):
    """A Metaspace tokenizer that never prepends '▁' but whose decoder strips the first space:
    '▁ab' decodes to 'ab', which encodes to 'ab'; ' ab' gives '▁ab' back (HF measures it)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers

    vocab = {c: i for i, c in enumerate(["▁", "a", "b", "▁a", "▁ab", "ab", "c"])}
    merges = [("▁", "a"), ("▁a", "b"), ("a", "b")]
    hf = tokenizers.Tokenizer(models.BPE(vocab, merges))
    hf.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="never")
    hf.decoder = decoders.Metaspace(prepend_scheme="always")
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    th = token_health(tokviz.load(path))
    want = round_trip_failures(len(vocab), hf.decode, hf_encode(hf))
    assert {i for i, *_ in th.undecodable} == want
    space_only = [i for i in range(len(vocab)) if hf_encode(hf)(hf.decode([i])) != [i]
                  and hf_encode(hf)(" " + hf.decode([i])) == [i]]
    assert vocab["▁ab"] in space_only and th.round_trip["space"] == len(space_only)
    assert vocab["▁ab"] not in {i for i, *_ in th.undecodable}


# -- specials text never produces ---------------------------------------------------------------------


@pytest.mark.slow
def test_qwen_specials_that_text_never_produces(real):
    path = real("qwen2.5") / "tokenizer.json"
    hf = hf_tokenizer(path)
    hf.encode_special_tokens = True  # text as text: special-token strings are not matched
    want = {i for i, t in hf.get_added_tokens_decoder().items()
            if t.special and hf.encode(t.content, add_special_tokens=False).ids != [i]}
    th = token_health(tokviz.load(path))
    got = {i: (c, who) for i, c, who in th.unproduced_specials}
    assert set(got) == want and len(want) == 14
    assert got[hf.token_to_id("<|im_start|>")][0] == "<|im_start|>"
    assert hf.token_to_id("<tool_call>") not in got  # not special: matched in text


def test_sentencepiece_control_pieces_text_never_produces(real):
    spm = pytest.importorskip("sentencepiece")
    path = real("mistral-v7.model")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    want = {i for i in range(sp.get_piece_size()) if sp.is_control(i) and sp.id_to_piece(i)
            and sp.encode(sp.id_to_piece(i)) != [i]}
    th = token_health(tokviz.load(path))
    got = {i for i, *_ in th.unproduced_specials}
    assert got == want and sp.piece_to_id("[INST]") in got and len(got) > 700


def test_bert_post_processor_tokens_and_unk(real):
    path = real("bert-minilm") / "tokenizer.json"
    hf = hf_tokenizer(path)
    hf.encode_special_tokens = True
    unk = hf.token_to_id("[UNK]")
    assert hf.encode("\u0378", add_special_tokens=False).ids == [unk]  # unknown text gives [UNK]
    want = {i for i, t in hf.get_added_tokens_decoder().items()
            if t.special and hf.encode(t.content, add_special_tokens=False).ids != [i]} - {unk}
    wrapped = set(hf.encode("x").ids) - set(hf.encode("x", add_special_tokens=False).ids)
    th = token_health(tokviz.load(path))
    got = {i: who for i, _, who in th.unproduced_specials}
    assert set(got) == want
    assert {i for i, who in got.items() if who == "the post-processor"} == wrapped


# -- same decode, stray bytes: Mistral's byte pieces -------------------------------------------------------


def test_mistral_byte_pieces_decode_like_letters(real):
    spm = pytest.importorskip("sentencepiece")
    path = real("mistral-v1.model")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    th = token_health(tokviz.load(path))
    anchor = next(a for a in map(sp.encode, ANCHORS) if len(a) == 1)  # ('7' is ▁ + 7 here)
    head = sp.decode(anchor)
    pieces: dict[str, list[int]] = {}
    stray = set()
    for i in range(sp.get_piece_size()):
        if sp.is_control(i) or sp.is_unknown(i):
            continue
        if "\ufffd" in sp.decode([i]) and "\ufffd" not in sp.id_to_piece(i):  # (one piece is U+FFFD itself)
            stray.add(i)
            continue
        text = sp.decode(anchor + [i])
        assert text.startswith(head)
        pieces.setdefault(text[len(head):], []).append(i)
    want = {t: ids for t, ids in pieces.items() if len(ids) > 1}
    assert dict(th.same_decode) == want
    assert sorted(dict(th.same_decode)["A"]) == sorted([sp.piece_to_id("<0x41>"), sp.piece_to_id("A")])
    assert {i for i, *_ in th.stray_bytes} == stray
    assert len(stray) == 128 and all(sp.is_byte(i) for i in stray)
    assert not th.undecodable  # (sentencepiece's round trip measured the same: none)
    assert round_trip_failures(sp.get_piece_size(), sp.decode, sp.encode,
                               skip={i for i in range(sp.get_piece_size())
                                     if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)}) == set()


def test_stray_kind_names_where_the_bytes_break():
    assert stray_kind("中".encode()) is None
    assert stray_kind("中".encode()[:2]) == "ends inside a character"
    assert stray_kind("中".encode()[1:]) == "starts inside a character"
    assert stray_kind(b"\xff") == "invalid byte"


# -- added tokens duplicating model tokens ----------------------------------------------------------------------


@pytest.mark.slow
def test_an_added_token_that_is_already_a_model_token(real):
    from tokviz.analysis.health import with_added_tokens

    path = real("qwen2.5") / "tokenizer.json"
    hf = hf_tokenizer(path)
    tok = tokviz.load(path)
    assert token_health(tok).added_duplicates == []
    new_id = hf.get_vocab_size()
    edited = with_added_tokens(tok, [AddedToken("hello", new_id, special=False)])
    model_id = hf.get_vocab(with_added_tokens=False)["hello"]
    assert token_health(edited).added_duplicates == [(new_id, "hello", model_id)]


# -- intermediate-only tokens (IoS) ----------------------------------------------------------------------------


def test_ios_on_a_hand_built_bpe():
    """'ab' is made 3 times in 'abc abc ab' and merged again into 'abc' twice: IoS 2/3."""
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}
    tok = Tokenizer(BPE(vocab, [("a", "b"), ("ab", "c")]), pre_tokenizer=WhitespaceSplit())
    th = token_health(tok, corpus="abc abc ab", ios_threshold=0.6, min_count=2)
    assert th.intermediate == [(3, "ab", pytest.approx(2 / 3), 3, 2)]
    assert token_health(tok, corpus="abc abc ab", ios_threshold=0.7, min_count=2).intermediate == []
    assert token_health(tok, corpus="abc abc abc", ios_threshold=0.9, min_count=3).intermediate[0][:2] == (3, "ab")


def _bpe_counts(vocab_merges: dict, words: dict[str, int]):
    """Made / merged-again counts by a plain BPE written here (merge the lowest-ranked pair)."""
    ranks = {tuple(m.split(" ")) if isinstance(m, str) else tuple(m): r for r, m in enumerate(vocab_merges)}
    made, again, final = {}, {}, {}
    for word, n in words.items():
        syms, fresh = list(word), [False] * len(word)
        while len(syms) > 1:
            pairs = [(ranks.get((syms[k], syms[k + 1])), k) for k in range(len(syms) - 1)]
            pairs = [p for p in pairs if p[0] is not None]
            if not pairs:
                break
            _, k = min(pairs)
            for j in (k, k + 1):
                if fresh[j]:
                    again[syms[j]] = again.get(syms[j], 0) + n
            syms[k : k + 2] = [syms[k] + syms[k + 1]]
            fresh[k : k + 2] = [True]
            made[syms[k]] = made.get(syms[k], 0) + n
        final[word] = syms
    return made, again, final


@pytest.mark.slow
def test_qwen_ios_matches_a_plain_bpe_over_hf_pre_tokenization(real):
    path = real("qwen2.5") / "tokenizer.json"
    hf = hf_tokenizer(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    name, text = default_corpus()
    assert name.startswith("resources/")
    normalized = hf.normalizer.normalize_str(text) if hf.normalizer else text
    words: dict[str, int] = {}
    source = {}
    for w, (a, b) in hf.pre_tokenizer.pre_tokenize_str(normalized):
        words[w] = words.get(w, 0) + 1
        source[w] = normalized[a:b]
    made, again, final = _bpe_counts(data["model"]["merges"], words)
    vocab = data["model"]["vocab"]
    for w in list(words)[:200]:  # the plain BPE is the model: it encodes as HF does
        assert [vocab[s] for s in final[w]] == hf.encode(source[w], add_special_tokens=False).ids
    want = sorted((vocab[t], t, again.get(t, 0) / n, n, again.get(t, 0)) for t, n in made.items()
                  if n >= 3 and again.get(t, 0) / n >= 0.9)
    th = token_health(tokviz.load(path))
    assert sorted(th.intermediate) == want and want
    assert th.corpus == name


# -- tokviz health ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_health_json_and_text(real, capsys, tmp_path):
    from tokviz.cli import main

    path = real("mistral-v1.model")
    corpus = tmp_path / "c.txt"
    corpus.write_text("the the the there", encoding="utf-8")
    assert main(["health", "-t", str(path), "--json", "--corpus", str(corpus), "--min-count", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("undecodable", "unproduced_specials", "intermediate", "added_duplicates", "same_decode", "stray_bytes",
                "unreachable"):
        assert key in data
    assert data["counts"]["stray bytes"] == 128 and data["counts"]["undecodable"] == 0
    assert data["intermediate"]["corpus"] == str(corpus)
    assert main(["health", "-t", str(path), "--show", "1"]) == 0
    out = capsys.readouterr().out
    for title in ("undecodable: 0", "unproduced specials: 2", "same decode: 125", "stray bytes: 128",
                  "resources/sample.txt"):
        assert title in out
    assert main(["health", "-t", str(path), "--table", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    counts = collections.Counter(r["finding"] for r in rows)
    assert counts["stray bytes"] == data["counts"]["stray bytes"] and counts["same decode"] == 125
    assert "undecodable" not in counts and set(counts) <= set(data["counts"])


def test_full_health_reports_progress_and_both_parts(real):
    tok = tokviz.load(real("bert-minilm") / "tokenizer.json")
    seen = []
    report = full_health(tok, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (1000, 1000) and seen == sorted(seen)
    assert report.tokens is not None and "undecodable" in report.counts() and "unreachable" in report.counts()
