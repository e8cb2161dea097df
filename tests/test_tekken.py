"""Mistral's tekken.json against mistral-common's Tekkenizer: ids of Tekkenizer.encode(text,
bos=False, eos=False), decode with its IGNORE (default) and KEEP special-token policies, files it
refuses, and tekken.json written by tokviz and read back by mistral-common."""
from __future__ import annotations

import base64
import json
import lzma
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.errors import TokvizError
from _shared import CORPUS, CORPUS_FILES, EDGE_CASES, corpus_samples, examples

REAL = Path(__file__).parent / "data" / "real"

tekken_module = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
Tekkenizer = tekken_module.Tekkenizer
from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy  # noqa: E402

MISTRAL_DATA = Path(tekken_module.__file__).parents[2] / "data"


@pytest.fixture(scope="module")
def nemo_path(tmp_path_factory) -> Path:
    """Mistral NeMo's tekken.json: the copy in tests/data/real, else mistral-common's own."""
    shipped = REAL / "tekken_240718.json.xz"
    if not shipped.exists():
        return MISTRAL_DATA / "tekken_240718.json"
    path = tmp_path_factory.mktemp("tekken") / "tekken_240718.json"
    path.write_bytes(lzma.decompress(shipped.read_bytes()))
    return path


@pytest.fixture(scope="module")
def nemo_data(nemo_path) -> dict:
    return json.loads(nemo_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def nemo(nemo_path):
    return tokviz.load(nemo_path), Tekkenizer.from_file(nemo_path)


def _random_texts(rng: random.Random, specials: list[str], count: int) -> list[str]:
    pools = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789٠١٢३", " \t\n\r\u00a0\u3000  ",
             "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”«»—…", "àéîõüçñßœŁ\u0301\u0308", "的一是不了人我在有他这中大来",
             "あいうえおアイウエオ가나다라", "абвгдеёжзΑΒΓαβγ", "ابتثجحअआइกขค", "😀👍🏽👨‍👩‍👧❤️🇯🇵\u200d\ufe0f", "ﬁⅫ㎏ＡＢ𝔘𝔫"]
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(3, 50)):
            if specials and rng.random() < 0.06:
                parts.append(rng.choice(specials))
            else:
                pool = rng.choice(pools)
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
        texts.append("".join(parts))
    return texts


def _texts(specials: list[str]) -> list[str]:
    shipped = (REAL / "texts.txt").read_text(encoding="utf-8")
    texts = [shipped, *shipped.splitlines(keepends=True), *EDGE_CASES, *_random_texts(random.Random(7), specials, 60)]
    if CORPUS.exists():
        for name in CORPUS_FILES:
            texts += corpus_samples(name, 6, seed=36)
    return texts


def _assert_same(tok, ref, texts):
    """Same ids as Tekkenizer.encode, and the same decode of them, alone and with special tokens
    and stray partial bytes between them, under both policies."""
    rng = random.Random(11)
    n = ref.num_special_tokens
    for text in texts:
        ids = ref.encode(text, bos=False, eos=False)
        assert tok.encode(text).ids == ids, text
        assert tok.encode_ids(text) == ids, text
        assert tok.encode(text, add_special_tokens=True).ids == ref.encode(text, bos=True, eos=False), text
        assert tok.decode(ids) == ref.decode(ids), text
        mixed = [ref.bos_id] + ids[: len(ids) // 2] + [rng.randrange(n)] + ids[len(ids) // 2:] + [ref.eos_id]
        mixed.insert(rng.randrange(len(mixed) + 1), n + rng.randrange(128, 256))  # a byte that is no character
        assert tok.decode(mixed) == ref.decode(mixed), text
        assert tok.decode(mixed, skip_special_tokens=False) == ref.decode(mixed, SpecialTokenPolicy.KEEP), text


def test_nemo_tekken_ids_and_decode_equal_mistral_common(nemo):
    tok, ref = nemo
    specials = [t["token_str"] for t in ref._all_special_tokens[:40]]
    _assert_same(tok, ref, _texts(specials))
    assert tok.vocab_size == ref.n_words == 131072
    assert tok.describe()["format"] == "tekken"


def test_special_token_strings_are_plain_text(nemo):
    tok, ref = nemo
    text = "<s>[INST] hello [/INST]</s><SPECIAL_999>"
    ids = tok.encode(text).ids
    assert ids == ref.encode(text, bos=False, eos=False)
    assert min(ids) >= ref.num_special_tokens
    assert tok.decode(ids) == text


def test_random_id_sequences_decode_as_mistral_common(nemo):
    tok, ref = nemo
    n = ref.num_special_tokens
    rng = random.Random(3)
    # "中" cut by a special token: each run of ordinary tokens is decoded on its own
    cut = [n + 0xE4, 1, n + 0xB8, n + 0xAD]
    assert tok.decode(cut) == ref.decode(cut) == "\ufffd" * 3
    for _ in range(300):
        ids = [rng.choice((rng.randrange(ref.n_words), rng.randrange(n), n + rng.randrange(128, 256)))
               for _ in range(rng.randint(1, 12))]
        assert tok.decode(ids) == ref.decode(ids), ids
        assert tok.decode(ids, skip_special_tokens=False) == ref.decode(ids, SpecialTokenPolicy.KEEP), ids


def test_pixtral_tekken_with_image_section():
    path = MISTRAL_DATA / "tekken_240911.json"
    if not path.exists():
        pytest.skip(f"{path} is not in this mistral-common")
    tok, ref = tokviz.load(path), Tekkenizer.from_file(path)
    assert tok.source.extra["tekken_sections"]["image"] == json.loads(path.read_text(encoding="utf-8"))["image"]
    _assert_same(tok, ref, [(REAL / "texts.txt").read_text(encoding="utf-8"), *EDGE_CASES])


def _small_tekken(nemo_data: dict, *, inner: int = 3000, num_special: int = 16, **changes) -> dict:
    """A tekken file of the newer kind (listed special tokens) from the first ranks of NeMo's."""
    data = {
        "config": {**nemo_data["config"], "num_vocab_tokens": inner + 500, "default_vocab_size": inner + num_special,
                   "default_num_special_tokens": num_special, "version": "v13"},
        "vocab": nemo_data["vocab"][: inner + 500],  # (more than the config keeps: cut as Tekkenizer cuts)
        "special_tokens": [{"rank": i, "token_str": s, "is_control": i != 5}
                           for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[IMG]", "[THINK]"])],
    }
    data.update(changes)
    return data


def _write(tmp_path: Path, data: dict, name: str = "tekken.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_listed_special_tokens_fillers_and_vocab_cut(tmp_path, nemo_data):
    path = _write(tmp_path, _small_tekken(nemo_data))
    tok, ref = tokviz.load(path), Tekkenizer.from_file(path)
    assert tok.vocab_size == ref.n_words == 3016
    assert [tok.id_to_token(i) for i in range(16)] == [t["token_str"] for t in ref._all_special_tokens]
    _assert_same(tok, ref, _texts(["[THINK]", "<SPECIAL_9>"])[:120])


def test_text_no_match_covers_is_dropped_as_tiktoken_does(tmp_path, nemo_data):
    data = _small_tekken(nemo_data)
    data["config"] = {**data["config"], "pattern": r" ?\p{L}+| ?\p{N}"}
    path = _write(tmp_path, data)
    tok, ref = tokviz.load(path), Tekkenizer.from_file(path)
    for text in ["Hello, world! 42 times...", "", "!!!", "a\tb\nc", *EDGE_CASES]:
        assert tok.encode(text).ids == ref.encode(text, bos=False, eos=False), text
    assert tok.decode(tok.encode("Hello, world!").ids) == "Hello world"


def test_mistral_pattern_streams_a_file_as_mistral_common_encodes_it(tmp_path, nemo):
    """Mistral's pattern covers every text, so the file can be cut and encoded piece by piece."""
    from tokviz.core.streaming import stream_plan

    tok, ref = nemo
    assert stream_plan(tok) is None
    text = "".join(_texts(["[INST]"])[:200]) * 3
    path = tmp_path / "text.txt"
    path.write_text(text, encoding="utf-8", newline="")
    ids = tok.encode_file(path, chunk_bytes=1 << 12, piece_chars=512, allow_nul=True)
    assert list(ids) == ref.encode(text, bos=False, eos=False)


def test_a_folder_with_tekken_json_loads_it(tmp_path, nemo_data):
    _write(tmp_path, _small_tekken(nemo_data))
    (tmp_path / "params.json").write_text('{"dim": 5120}', encoding="utf-8")
    assert tokviz.load(tmp_path).source.format == "tekken"


def test_any_json_name_is_detected_by_its_keys(tmp_path, nemo_data):
    path = _write(tmp_path, _small_tekken(nemo_data), "mistral_tok.json")
    assert tokviz.formats.detect(path)[0] == "tekken"
    # read as a tokenizer.json, it is still read as the tekken file it is
    assert tokviz.load(path, format="hf-json").encode("Hello").ids == tokviz.load(path).encode("Hello").ids


def _refusals(nemo_data):
    base = _small_tekken(nemo_data)
    no_specials = {k: v for k, v in base.items() if k != "special_tokens"}
    vocab_bad_byte = [dict(e) for e in base["vocab"]]
    vocab_bad_byte[65] = {**vocab_bad_byte[65], "token_bytes": base64.b64encode(b"B").decode()}
    vocab_bad_rank = [dict(e) for e in base["vocab"]]
    vocab_bad_rank[300] = {**vocab_bad_rank[300], "rank": 301}
    vocab_extra_key = [dict(e) for e in base["vocab"]]
    vocab_extra_key[7]["score"] = 1.0
    duplicate = base["special_tokens"] + [{"rank": 7, "token_str": "<s>", "is_control": True}]
    return {
        # (field in the message, data, whether mistral-common refuses it too)
        "version": ("'v99'", {**base, "config": {**base["config"], "version": "v99"}}, True),
        "config key": ("'byte_fallback'", {**base, "config": {**base["config"], "byte_fallback": True}}, False),
        "root key": ("'merges'", {**base, "merges": []}, False),
        "specials missing": ("special_tokens", no_specials, True),
        "byte order": ("vocab[65]", {**base, "vocab": vocab_bad_byte}, True),
        "rank": ("vocab[300]", {**base, "vocab": vocab_bad_rank}, True),
        "vocab key": ("vocab[7]", {**base, "vocab": vocab_extra_key}, True),
        "duplicate special": ("listed twice", {**base, "special_tokens": duplicate}, True),
        "too few tokens": ("default_vocab_size", {**base, "vocab": base["vocab"][:1000]}, True),
        "multimodal": ("'multimodal'", {**base, "multimodal": {"image_patch_size": 16, "max_image_size": 1024}}, True),
        "model settings": ("model_settings_builder", {**base, "model_settings_builder": {}}, True),
        # (mistral-common would make a billion filler special tokens)
        "huge size": ("out of range", {**base, "config": {**base["config"], "default_num_special_tokens": 10**9,
                                                          "default_vocab_size": 10**9 + 3000}}, False),
        # (mistral-common loads it, then tiktoken panics on text holding a byte without a token)
        "bytes missing": ("256 single bytes", {**base, "config": {**base["config"], "default_vocab_size": 216}}, False),
    }


@pytest.mark.parametrize("case", ["version", "config key", "root key", "specials missing", "byte order", "rank",
                                  "vocab key", "duplicate special", "too few tokens", "multimodal", "model settings",
                                  "bytes missing", "huge size"])
def test_refused_by_name(tmp_path, nemo_data, case):
    field, data, reference_refuses = _refusals(nemo_data)[case]
    path = _write(tmp_path, data)
    with pytest.raises(TokvizError) as err:
        tokviz.load(path)
    assert field in err.value.reason and str(path) in str(err.value)
    if reference_refuses:
        with pytest.raises((ValueError, AssertionError, TypeError, KeyError)):
            Tekkenizer.from_file(path)


@pytest.mark.slow
def test_written_tekken_reads_back_in_mistral_common(tmp_path, nemo, nemo_path):
    tok, ref = nemo
    assert tokviz.can_write(tok, "tekken") is None
    out = tokviz.save(tok, tmp_path / "written.json", format="tekken")
    back = Tekkenizer.from_file(out)
    assert back.num_special_tokens == ref.num_special_tokens and back.n_words == ref.n_words
    assert [t["token_str"] for t in back._all_special_tokens] == [t["token_str"] for t in ref._all_special_tokens]
    for text in _texts([])[:80]:
        ids = ref.encode(text, bos=False, eos=False)
        assert back.encode(text, bos=False, eos=False) == ids, text
        assert back.decode(ids) == ref.decode(ids)
    again = tokviz.load(out)
    assert again.encode((REAL / "texts.txt").read_text(encoding="utf-8")).ids == \
        tok.encode((REAL / "texts.txt").read_text(encoding="utf-8")).ids


def test_written_small_tekken_keeps_sections_and_is_control(tmp_path, nemo_data):
    image = {"image_patch_size": 16, "max_image_size": 1024, "spatial_merge_size": 2}
    path = _write(tmp_path, _small_tekken(nemo_data, image=image))
    tok = tokviz.load(path)
    out = tokviz.save(tok, tmp_path / "back.json", format="tekken")
    written = json.loads(out.read_text(encoding="utf-8"))
    original = json.loads(path.read_text(encoding="utf-8"))
    assert written["special_tokens"] == original["special_tokens"]
    assert written["image"] == image and written["config"]["version"] == "v13"
    assert written["vocab"] == original["vocab"][:3000]
    back, ref = Tekkenizer.from_file(out), Tekkenizer.from_file(path)
    for text in _texts(["[THINK]"])[:60]:
        assert back.encode(text, bos=False, eos=False) == ref.encode(text, bos=False, eos=False)


def test_writing_refused_where_not_exact(tmp_path):
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(lzma.decompress((REAL / "cl100k_base.tiktoken.xz").read_bytes()))
    reason = tokviz.can_write(tokviz.load(path), "tekken")
    assert reason is not None and "byte 0x00" in reason
    with pytest.raises(TokvizError, match="byte 0x00"):
        tokviz.save(tokviz.load(path), tmp_path / "t.json", format="tekken")
    assert not (tmp_path / "t.json").exists()
    bert = tmp_path / "tokenizer.json"
    bert.write_bytes(lzma.decompress((REAL / "bert-minilm" / "tokenizer.json.xz").read_bytes()))
    assert "byte-level" in tokviz.can_write(tokviz.load(bert), "tekken")


def test_a_tiktoken_file_in_byte_order_is_written_exactly(tmp_path, nemo_data):
    """A tokenizer not read from a tekken file: a .tiktoken whose first ranks are the bytes in order
    (NeMo's first 5000), written as tekken.json with no special tokens, encodes as tiktoken does."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    pattern = nemo_data["config"]["pattern"]
    lines = [f"{e['token_bytes']} {e['rank']}\n" for e in nemo_data["vocab"][:5000]]
    ranks_path = tmp_path / "nemo5000.tiktoken"
    ranks_path.write_text("".join(lines), encoding="utf-8")
    tok = tokviz.load(ranks_path, pattern=pattern)
    out = tokviz.save(tok, tmp_path / "nemo5000.json", format="tekken")
    written, by_tiktoken = Tekkenizer.from_file(out), tiktoken.Encoding(
        "nemo5000", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(ranks_path)), special_tokens={})
    assert json.loads(out.read_text(encoding="utf-8"))["config"]["version"] == "v13"
    for text in _texts([])[:100]:
        ids = by_tiktoken.encode_ordinary(text)
        assert written.encode(text, bos=False, eos=False) == ids == tok.encode(text).ids, text


# Text where the tekken pattern's alternatives meet: cased words and marks (the upper / lower
# classes), digits of several scripts (one per piece), CR/LF and other white space runs, '/' after
# punctuation, apostrophes (no contractions in this pattern), emoji.
TEKKEN_ALPHABET = (
    "aAzZ'sStTlLdD \u00a0\u3000\u2028\u0085\t\x0b\x0c\r\n\r\n0123456789١٢३²½Ⅻ/.,!?-_#()\"中日ひカ한"
    "ÉéßǅǈʰᴬΣσςΑ\u0301\u0308\u0903\u20dd😀👍🏽\u200d🇯🇵"
)


def _native_and_python(nemo):
    tok, ref = nemo
    native = pytest.importorskip("tokviz.native")
    if not native.available:
        pytest.skip(native.reason)
    python = tokviz.load(tok.source.path).use_native(False)
    return tok, python, ref


def test_nemo_tekken_is_cut_by_the_native_tekken_scanner(nemo):
    """The C tekken scanner gives the Python (regex module) path's ids and offsets, and
    mistral-common's ids, on multi-script, digit, white-space, mark and emoji text."""
    tok, python, ref = _native_and_python(nemo)
    assert tok.native_encoder().describe() == "native (tekken scanner)"
    rng = random.Random(36)
    texts = _random_texts(rng, [], 150)
    texts += ["".join(rng.choice(TEKKEN_ALPHABET) for _ in range(rng.randint(1, 60))) for _ in range(400)]
    texts += ["1234567890" * 30, " " * 9000 + "x", "\r\n \n\t  \r" * 50 + "end  ", "x's DON'T y'all 'LL",
              "camelCaseHTTPServer ÉtéÀ ǅemal ʰᴬb", "a" * 5000 + "/\r\n/" + "B" * 5000, "😀" * 100 + "١٢٣"]
    for text in texts:
        expected = python.encode(text)
        got = tok.encode(text)
        assert got.ids == expected.ids == ref.encode(text, bos=False, eos=False), text
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in expected.offsets], text
    assert [e.ids for e in tok.encode_batch(texts[:50], threads=2)] == [python.encode(t).ids for t in texts[:50]]


@settings(max_examples=examples(300), deadline=None)
@given(text=st.one_of(st.text(alphabet=st.sampled_from(TEKKEN_ALPHABET), max_size=80),
                      st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)))
def test_native_tekken_ids_equal_mistral_common_on_any_text(nemo, text):
    tok, ref = nemo
    assert tok.encode_ids(text) == ref.encode(text, bos=False, eos=False)


def test_a_file_with_another_pattern_is_cut_by_its_own_regex(tmp_path, nemo_data):
    """A pattern close to Mistral's (three digits per piece) is no pattern of a native scanner: the
    file is cut by its regex, as mistral-common cuts it."""
    data = _small_tekken(nemo_data)
    data["config"] = {**data["config"], "pattern": data["config"]["pattern"].replace(r"|\p{N}|", r"|\p{N}{1,3}|")}
    assert data["config"]["pattern"] != nemo_data["config"]["pattern"]
    path = _write(tmp_path, data)
    tok, ref = tokviz.load(path), Tekkenizer.from_file(path)
    assert "tekken scanner" not in tok.describe()["encoder_detail"]
    for text in ["12345 and 7", "Year 2024: 1,234,567.89", *EDGE_CASES]:
        assert tok.encode(text).ids == ref.encode(text, bos=False, eos=False), text


def _code_points_engines_class_otherwise() -> list[int]:
    """The code points tiktoken's regex engine classes otherwise than the regex module (tokviz
    replaces them by stand-ins), and every 509th code point, surrogates left out."""
    from tokviz.core import reference_unicode

    cps = set(range(0, 0x110000, 509))
    for item in reference_unicode.RUST.split():
        first, _, last = item.partition(":")[0].partition("-")
        cps.update(range(int(first, 16), int(last or first, 16) + 1))
    return sorted(cp for cp in cps if not 0xD800 <= cp < 0xE000)


@pytest.mark.slow
def test_every_kind_of_character_is_cut_as_mistral_common_cuts_it(nemo):
    """Each code point beside letters of both cases, digits, white space, CR/LF and punctuation, on
    the native and Python paths (classes of tiktoken's Unicode version, which mistral-common runs)."""
    tok, python, ref = _native_and_python(nemo)
    differ = {"native": [], "python": []}
    cps = _code_points_engines_class_otherwise()
    window = "a{0}1{0} {0}!{0}中{0}A{0}a{0}'S{0}{0}\n{0}  {0}123{0}Éé\u0301{0}"
    for k in range(0, len(cps), 64):
        block = cps[k:k + 64]
        text = " ".join(window.format(chr(cp)) for cp in block)
        expected = ref.encode(text, bos=False, eos=False)
        for label, t in (("native", tok), ("python", python)):
            if t.encode_ids(text) != expected:
                differ[label] += [f"U+{cp:04X}" for cp in block
                                  if t.encode_ids(window.format(chr(cp))) != ref.encode(window.format(chr(cp)),
                                                                                        bos=False, eos=False)]
    assert differ == {"native": [], "python": []}, {label: cps[:20] for label, cps in differ.items()}
