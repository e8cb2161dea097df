"""The Unigram trainer: C core against the Python reference, the TrainOptions, the callbacks, and
sentencepiece's trainer as the oracle for quality."""
from __future__ import annotations

import random

import pytest

from tests._shared import CORPUS, need
from tokviz.core.streaming import Cancelled
from tokviz.errors import TokvizError
from tokviz.train.options import TrainOptions
from tokviz.train.unigram import train_unigram
from tokviz.train.unigram_lattice import ReferenceLattice, digamma

try:
    from tokviz import _unigramtrain
except ImportError:  # the C module is optional
    _unigramtrain = None

needs_c = pytest.mark.skipif(_unigramtrain is None, reason="tokviz._unigramtrain is not built")

WORDS = (
    "the of and to in is that for it with as was on be by this are from at or an not which have but one "
    "all were when there can more their if will about would out up what so them into time has two some "
    "could "
    "tokenizer token vocabulary training piece model sentence corpus language probability unigram lattice "
    "python function return value string number list dictionary module class method object"
).split()
HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经"


def synthetic_corpus(n_lines: int = 300, seed: int = 0) -> str:
    """English-like lines, some Chinese, some numbers: enough structure for pieces to form."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n_lines):
        kind = rng.random()
        if kind < 0.7:
            words = [rng.choice(WORDS[: rng.randint(10, len(WORDS))]) for _ in range(rng.randint(4, 14))]
            if rng.random() < 0.3:
                words.insert(rng.randrange(len(words)), str(rng.randint(0, 2025)))
            line = " ".join(words).capitalize() + rng.choice(".,;:!?")
        else:
            line = "".join(rng.choice(HAN[: rng.randint(8, len(HAN))]) for _ in range(rng.randint(6, 30))) + "。"
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def small_text() -> str:
    return synthetic_corpus()


def pieces_of(tok):
    return tok.model.pieces


def train(text, native, **kw):
    opts = TrainOptions(**{"vocab_size": 300, **kw.pop("opts", {})})
    return train_unigram([text], opts, native=native, seed_size=kw.pop("seed_size", 5000), **kw)


# ---- pure Python (no C module, no shared data needed) -------------------------------------

def test_digamma_matches_known_values():
    assert digamma(1.0) == pytest.approx(-0.5772156649015329, abs=1e-9)
    assert digamma(0.5) == pytest.approx(-1.9635100260214235, abs=1e-9)
    assert digamma(100.0) == pytest.approx(4.600161852738087, abs=1e-9)


def test_reference_trains_and_round_trips(small_text):
    tok = train(small_text, native=False)
    assert tok.vocab_size == 300
    assert tok.model.unk_id == 0 and tok.id_to_token(0) == "<unk>"
    text = "The tokenizer returns a list of pieces 的一是 2024."
    enc = tok.encode(text)
    assert tok.decode(enc.ids) == text
    assert "▁the" in tok.model.vocab  # frequent words become pieces


def test_reference_scores_are_log_probabilities(small_text):
    tok = train(small_text, native=False)
    learned = [s for p, s in pieces_of(tok) if p != "<unk>"]
    assert all(s < 0 for s in learned)
    assert learned == sorted(learned, reverse=True)  # ordered by score


def test_vocab_size_exact_with_everything(small_text):
    opts = {
        "vocab_size": 333, "special_tokens": ["<pad>", "<unk>", "<s>", "</s>"], "user_defined_symbols": ["<sep>", "@@"],
        "reserved_tokens": 3, "pad_to_multiple_of": 64,
    }
    tok = train(small_text, native=False, opts=opts)
    assert tok.vocab_size == 384  # 333 rounded up to a multiple of 64 with reserved tokens
    names = [p for p, _ in pieces_of(tok)]
    assert names[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    assert tok.model.unk_id == 1
    assert names[4:7] == [f"<|reserved_special_token_{k}|>" for k in range(3)]
    assert names[7:9] == ["<sep>", "@@"]
    assert names[333:] == [f"<|reserved_special_token_{k}|>" for k in range(3, 3 + 51)]
    assert len(set(names)) == len(names)
    ids = tok.encode("a<sep>b @@ the").ids
    assert tok.token_to_id("<sep>") in ids and tok.token_to_id("@@") in ids
    assert not tok.is_special(tok.token_to_id("<sep>"))
    assert tok.is_special(tok.token_to_id("<s>"))


def test_byte_fallback_pieces_and_unseen_characters(small_text):
    tok = train(small_text, native=False, opts={"vocab_size": 600, "byte_fallback": True})
    assert tok.vocab_size == 600
    for b in (0x00, 0x41, 0xF0, 0xFF):
        assert tok.token_to_id(f"<0x{b:02X}>") is not None
    text = "the 😀 model"
    enc = tok.encode(text)
    emoji_bytes = [f"<0x{b:02X}>" for b in "😀".encode()]
    assert [tok.id_to_token(i) for i in enc.ids if tok.id_to_token(i).startswith("<0x")] == emoji_bytes
    assert tok.model.unk_id not in enc.ids
    assert tok.decode(enc.ids) == text


def test_character_coverage_drops_rare_characters():
    text = synthetic_corpus(200) + "ж\n"  # one rare character
    full = train(text, native=False)
    assert "ж" in full.model.vocab
    covered = train(text, native=False, opts={"character_coverage": 0.999})
    assert "ж" not in covered.model.vocab
    ids = covered.encode("ж").ids
    assert covered.model.unk_id in ids


def test_limit_and_initial_alphabet(small_text):
    tok = train(small_text, native=False, opts={"limit_alphabet": 30, "initial_alphabet": ["Q", "ψ"]})
    chars = {p for p, _ in pieces_of(tok) if len(p) == 1}
    assert {"Q", "ψ", "▁"} <= chars
    assert len(chars) <= 33


def test_split_digits(small_text):
    tok = train(small_text, native=False, opts={"split_digits": True})
    assert not [p for p, _ in pieces_of(tok) if len(p) > 1 and any(c.isdigit() for c in p) and not p.startswith("<")]
    assert [t for t in tok.encode("12345").tokens if t.strip("▁ ")] == ["1", "2", "3", "4", "5"]


def test_max_token_length(small_text):
    tok = train(small_text, native=False, opts={"max_token_length": 3})
    assert max(len(p) for p, _ in pieces_of(tok) if not p.startswith("<")) <= 3


def test_collapse_whitespace(small_text):
    tok = train(small_text, native=False, opts={"collapse_whitespace": True})
    assert tok.encode("the   model\n\tvalue").ids == tok.encode("the model value").ids
    assert "\n" not in tok.model.vocab


def test_progress_and_cancel(small_text):
    seen = []
    train(small_text, native=False, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("EM" in m for _, m in seen) and any("pruned" in m for _, m in seen)

    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        train(small_text, native=False, cancel=cancel)


def test_vocab_too_small_for_alphabet(small_text):
    with pytest.raises(TokvizError, match="alphabet"):
        train(small_text, native=False, opts={"vocab_size": 20})


def test_max_symbols_keeps_the_frequent_words(small_text):
    messages = []
    tok = train(small_text, native=False, max_symbols=1500, progress=lambda f, m: messages.append(m))
    assert any("most frequent" in m for m in messages)
    assert "▁the" in tok.model.vocab
    assert tok.decode(tok.encode("the model").ids) == "the model"


@pytest.mark.parametrize("collapse", [False, True])
def test_words_are_those_of_the_whole_text_wherever_it_is_cut(small_text, collapse):
    """WordCounter given a text in pieces cut at random places (inside words, inside a special
    token, after a newline) counts what it counts given the text whole, in the same order."""
    from tokviz.train.unigram import WordCounter

    text = small_text.replace("\n", " <s b> ", 40).replace("the", "ｔｈｅ\u00a0", 30) + " tail"
    options = TrainOptions(vocab_size=300, special_tokens=["<s b>"], collapse_whitespace=collapse)
    whole = WordCounter(options)
    whole.add(text)
    expected = whole.result()
    assert "<s b>" not in " ".join(expected) and "b>" not in expected
    rng = random.Random(7)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(text)), 200))
        pieces = WordCounter(options)
        for a, b in zip([0, *cuts], [*cuts, len(text)]):
            pieces.add(text[a:b])
        assert list(pieces.result().items()) == list(expected.items())


def test_min_word_count_drops_the_rare_words(small_text):
    from tokviz.train.unigram import count_words

    every = count_words([small_text], TrainOptions(vocab_size=300))
    pruned = count_words([small_text], TrainOptions(vocab_size=300, min_word_count=3))
    assert list(pruned.items()) == [(w, n) for w, n in every.items() if n >= 3]
    assert 0 < len(pruned) < len(every)
    with pytest.raises(TokvizError, match="min_word_count"):
        TrainOptions(vocab_size=300, min_word_count=0)


def test_file_and_text_inputs_agree(tmp_path, small_text):
    path = tmp_path / "corpus.txt"
    path.write_text(small_text, encoding="utf-8")
    a = train_unigram([path], TrainOptions(vocab_size=300), native=False, seed_size=5000)
    b = train_unigram([small_text], TrainOptions(vocab_size=300), native=False, seed_size=5000)
    assert pieces_of(a) == pieces_of(b)


# ---- C against the reference ---------------------------------------------------------------

@needs_c
@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"split_digits": True, "max_token_length": 5},
        {"byte_fallback": True, "vocab_size": 500, "character_coverage": 0.995},
        {"collapse_whitespace": True, "special_tokens": ["<unk>", "<s>"], "user_defined_symbols": ["<br>"]},
    ],
)
def test_c_equals_reference(small_text, opts):
    c = train(small_text, native=True, opts=dict(opts))
    py = train(small_text, native=False, opts=dict(opts))
    assert [p for p, _ in pieces_of(c)] == [p for p, _ in pieces_of(py)]
    for (_, a), (_, b) in zip(pieces_of(c), pieces_of(py)):
        assert a == pytest.approx(b, abs=1e-9)


@pytest.mark.slow
@needs_c
def test_c_equals_reference_on_shared_corpus():
    en = need(CORPUS / "en.txt").read_text(encoding="utf-8")[:60_000]
    zh = need(CORPUS / "zh.txt").read_text(encoding="utf-8")[:20_000]
    opts = TrainOptions(vocab_size=800)
    c = train_unigram([en, zh], opts, native=True, seed_size=20_000)
    py = train_unigram([en, zh], opts, native=False, seed_size=20_000)
    assert [p for p, _ in pieces_of(c)] == [p for p, _ in pieces_of(py)]
    assert max(abs(a - b) for (_, a), (_, b) in zip(pieces_of(c), pieces_of(py))) < 1e-9


@needs_c
def test_c_lattice_steps_equal_reference(small_text):
    """The steps one by one: same seeds, same pieces and scores after each EM step and prune."""
    from tokviz.train.unigram import _char_properties, _make_lattice, count_words, encode_words

    opts = TrainOptions(vocab_size=300)
    alphabet, symbols, offsets, freqs = encode_words(count_words([small_text], opts), opts)
    char_class, char_digit = _char_properties(alphabet)
    kw = dict(symbols=symbols, word_offsets=offsets, word_freqs=freqs, n_chars=len(alphabet), char_class=char_class,
              char_digit=char_digit, space_symbol=alphabet.index("▁"), max_piece_length=8, seed_size=3000,
              min_count=2, split_digits=False, threads=2)
    c, py = _make_lattice(True, **kw), _make_lattice(False, **kw)
    assert isinstance(py, ReferenceLattice)
    assert c.make_seeds() == py.make_seeds()
    assert c.pieces() == py.pieces()
    for step in range(3):
        (obj_c, n_c), (obj_py, n_py) = c.em_step(), py.em_step()
        assert n_c == n_py and obj_c == pytest.approx(obj_py, rel=1e-12)
        assert [p for p, _ in c.pieces()] == [p for p, _ in py.pieces()]
        target = int(n_c * 0.75)
        assert c.prune(target) == py.prune(target) == target
        assert [p for p, _ in c.pieces()] == [p for p, _ in py.pieces()]


@pytest.mark.shared
@needs_c
def test_deterministic_for_any_thread_count():
    en = need(CORPUS / "en.txt").read_text(encoding="utf-8")[:150_000]
    opts = TrainOptions(vocab_size=1000)
    runs = [pieces_of(train_unigram([en], opts, native=True, threads=t, seed_size=50_000)) for t in (1, 2, 3, 1)]
    assert all(r == runs[0] for r in runs)


@pytest.mark.shared
@needs_c
def test_c_round_trip_and_hf_json(tmp_path):
    en = need(CORPUS / "en.txt").read_text(encoding="utf-8")[:150_000]
    zh = need(CORPUS / "zh.txt").read_text(encoding="utf-8")[:50_000]
    tok = train_unigram([en, zh], TrainOptions(vocab_size=2000, byte_fallback=True), native=True)
    sample = en[-3000:] + zh[-1000:]
    import unicodedata

    sample = unicodedata.normalize("NFKC", sample)
    assert tok.decode(tok.encode(sample).ids) == sample
    tokenizers = pytest.importorskip("tokenizers")
    path = tmp_path / "tokenizer.json"
    from tokviz.formats import save

    save(tok, path, format="hf-json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    line = "The model splits 中文文本 and numbers 12345 into pieces."
    assert hf.encode(line, add_special_tokens=False).ids == tok.encode(line).ids


@needs_c
def test_token_count_close_to_sentencepiece(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    text = need(CORPUS / "en.txt").read_text(encoding="utf-8")
    train_text, held = text[:400_000], text[400_000:500_000]
    path = tmp_path / "train.txt"
    path.write_text(train_text, encoding="utf-8")
    tok = train_unigram([path], TrainOptions(vocab_size=2000, collapse_whitespace=True), native=True)
    spm.SentencePieceTrainer.train(
        input=str(path), model_prefix=str(tmp_path / "sp"), model_type="unigram", vocab_size=2000,
        character_coverage=1.0, num_threads=2, minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    lines = [line for line in held.splitlines() if line.strip()]
    ours = sum(len(ids) for ids in tok.encode_ids_batch(lines))
    theirs = sum(len(ids) for ids in sp.encode(lines))
    assert abs(ours - theirs) / theirs < 0.03
