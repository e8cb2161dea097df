"""sentencepiece .model files changed field by field at the protobuf level, each loaded by the
sentencepiece library (the oracle) and by tokviz: where sentencepiece refuses a file tokviz
refuses it too (a TokvizError naming the file), where it loads one tokviz gives the same ids and
decodes them the same.  A seeded, bounded run of mutations of the real models, then the
protobuf rules one by one: fields merged, skipped or refused as protobuf's C++ parser does.
"""
from __future__ import annotations

import lzma
import math
import random
import struct
from pathlib import Path

import pytest

from tokviz.errors import TokvizError
from tokviz.formats.sentencepiece import read_sentencepiece

spm = pytest.importorskip("sentencepiece")

REAL = Path(__file__).parent / "data" / "real"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "tokenizers" / "sentencepiece"
MODELS = {
    "botchan_en_unigram_1000": REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz",
    "botchan_en_bpe_1000": REAL / "sentencepiece-suite" / "botchan_en_bpe_1000.model.xz",
    "kyoto_ja_unigram_8000": REAL / "sentencepiece-suite" / "kyoto_ja_unigram_8000.model.xz",
    "mistral-v1": REAL / "mistral-v1.model.xz",
    "mistral-v7": REAL / "mistral-v7.model.xz",
}
TEXTS = [
    "Hello world, this is a test.",
    "  leading,   inner   and trailing spaces  ",
    "ﬁ ﬃ Ａ１ ① ½ ㍻ e\u0301 n\u0303 Å",
    "日本語のテキスト、カタカナ。東京",
    "Русский текст; Deutsch: Größe, Straße.",
    "<s> </s> <unk> [INST] ▁ literal",
    "😀 👍🏽 🇯🇵 \u200b zero width",
    "def f(x):\n\treturn x ** 2  # 123",
    "\x00\x01 ctrl \u2047 \ufffd",
]

VARINT, I64, LEN, GSTART, GEND, I32 = 0, 1, 2, 3, 4, 5


# ---- a protobuf writer and splitter of its own (independent of the reader under test) ----------
def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number: int, wire: int, value=b"") -> bytes:
    key = varint(number << 3 | wire)
    if wire == VARINT:
        return key + varint(value)
    if wire == LEN:
        return key + varint(len(value)) + value
    if wire == I32:
        return key + struct.pack("<I", value)
    if wire == I64:
        return key + struct.pack("<Q", value)
    return key  # a group's start or end


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def split(data: bytes) -> list[tuple[int, int, object]]:
    """(number, wire, value) of each field of a well-formed message without groups."""
    out, pos = [], 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = _read_varint(data, pos)
        elif wire == LEN:
            size, pos = _read_varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire == I32:
            value, pos = struct.unpack_from("<I", data, pos)[0], pos + 4
        else:
            value, pos = struct.unpack_from("<Q", data, pos)[0], pos + 8
        out.append((number, wire, value))
    return out


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def join(fields) -> bytes:
    return b"".join(field(n, w, v) for n, w, v in fields)


# ---- mutations ----------------------------------------------------------------------------------
SPECS = {2: "trainer_spec", 3: "normalizer_spec", 5: "denormalizer_spec"}
# spec fields that change encoding or decoding, with values worth trying
SPEC_VALUES = {
    2: {3: [0, 1, 2, 3, 4, 5, -1, (1 << 32) + 2], 24: [0, 1, 2], 35: [0, 1], 44: [b"", b"?", b"\xe2\x81\x87"],
        4: [0, -5], 40: [3, -1]},
    3: {3: [0, 1, 1 << 40], 4: [0, 1], 5: [0, 1], 1: [b"nmt_nfkc", b"\xff"]},
    5: {3: [0, 1], 4: [0, 1], 5: [0, 1]},
}
SCORES = [math.nan, math.inf, -math.inf, 3.4e38, -3.4e38, 1e-45, 0.0, -1e-7, 12.5]
PIECE_STRINGS = [b"", b"a\x00b", b"\xff\xfe", b"<0x41>", b"<0x4G>", b"\xe2\x96\x81", b"q" * 8000, b"q" * 7999,
                 b"Hello", b"\xe2\x96\x81world"]


def _value_for(wire: int, rng: random.Random):
    if wire == VARINT:
        return rng.choice([0, 1, 2, 300, (1 << 64) - 1])
    if wire == LEN:
        return rng.choice([b"", b"\x01", b"\x08\x01", b"junk", b"\xff\xff"])
    if wire == I32:
        return rng.choice([0, f32(1.5), 0xFFFFFFFF])
    return rng.choice([0, 1 << 63])


def _other_wire(wire: int, rng: random.Random) -> int:
    return rng.choice([w for w in (VARINT, LEN, I32, I64) if w != wire])


def _mutate_spec(top, rng):
    number = rng.choice(list(SPECS))
    where = [i for i, (n, w, _) in enumerate(top) if n == number and w == LEN]
    body = split(top[where[0]][2]) if where else []
    op = rng.choice(["set", "set", "drop", "wire", "twice", "split", "unknown", "remove", "as_varint"])
    desc = f"{SPECS[number]}: {op}"
    values = SPEC_VALUES[number]
    if op in ("set", "twice"):
        k = rng.choice(list(values))
        v = rng.choice(values[k])
        wire = LEN if isinstance(v, bytes) else VARINT
        if op == "set":
            body = [f for f in body if f[0] != k] + [(k, wire, v)]
        else:  # a second message holding just this field: merged into the first
            top = top + [(number, LEN, field(k, wire, v))]
        desc += f" field {k} = {v!r:.40}"
    elif op == "drop" and body:
        k = rng.choice(body)[0]
        body = [f for f in body if f[0] != k]
        desc += f" field {k}"
    elif op == "wire" and body:
        i = rng.randrange(len(body))
        n, w, _ = body[i]
        w2 = _other_wire(w, rng)
        body[i] = (n, w2, _value_for(w2, rng))
        desc += f" field {n} as wire type {w2}"
    elif op == "split" and len(body) > 1:
        cut = rng.randrange(1, len(body))
        rest = join(body[cut:])
        body = body[:cut]
        top = top + [(number, LEN, rest)]
        desc += f" at field {cut}"
    elif op == "unknown":
        w = rng.choice([VARINT, LEN, I32, I64, GSTART])
        n = rng.choice([7, 60, 99, 1000, 536870911])
        extra = field(n, w, _value_for(w, rng)) + (field(n, GEND) if w == GSTART else b"")
        return _replace(top, where, number, join(body) + extra), desc + f" field {n} wire {w}"
    elif op == "remove":
        return [f for i, f in enumerate(top) if i not in where], desc
    elif op == "as_varint":
        return [(n, VARINT, 1) if i in where else (n, w, v) for i, (n, w, v) in enumerate(top)], desc
    return _replace(top, where, number, join(body)), desc


def _replace(top, where, number, body):
    if where:
        return [(n, w, body) if i == where[0] else (n, w, v) for i, (n, w, v) in enumerate(top)]
    return top + [(number, LEN, body)]


def _mutate_piece(top, rng):
    where = [i for i, (n, w, _) in enumerate(top) if n == 1]
    i = rng.choice(where[:8] + rng.sample(where, 8))
    body = split(top[i][2])
    op = rng.choice(["type", "type", "score", "score", "string", "drop", "twice", "extra", "move"])
    desc = f"piece {where.index(i)}: {op}"
    if op == "type":
        t = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 99, -1, (1 << 32) + 4])
        body = [f for f in body if f[0] != 3] + [(3, VARINT, t)]
        desc += f" {t}"
    elif op == "score":
        s = rng.choice(SCORES)
        body = [f for f in body if f[0] != 2] + [(2, I32, f32(s))]
        desc += f" {s}"
    elif op == "string":
        if rng.random() < 0.3:
            other = top[rng.choice(where)][2]
            s = dict((n, v) for n, _, v in split(other)).get(1, b"x")
        else:
            s = rng.choice(PIECE_STRINGS)
        body = [f for f in body if f[0] != 1] + [(1, LEN, s)]
        desc += f" {s[:20]!r}"
    elif op == "drop":
        return [f for k, f in enumerate(top) if k != i], desc
    elif op == "twice":
        return top[: i + 1] + [top[i]] + top[i + 1 :], desc
    elif op == "extra":
        w = rng.choice([VARINT, LEN, I32, I64])
        n = rng.choice([1, 2, 3, 4, 50])
        body = body + [(n, w, _value_for(w, rng))]
        desc += f" field {n} wire {w}"
    elif op == "move":
        return [f for k, f in enumerate(top) if k != i] + [top[i]], desc
    return [(n, w, join(body)) if k == i else (n, w, v) for k, (n, w, v) in enumerate(top)], desc


def _mutate_charsmap(top, rng):
    number = 3 if rng.random() < 0.8 else 5
    where = [i for i, (n, w, _) in enumerate(top) if n == 3 and w == LEN]
    body = split(top[where[0]][2])
    blob = dict((n, v) for n, _, v in body).get(2, b"")
    if not blob:
        return None
    data = bytearray(blob)
    (trie,) = struct.unpack_from("<I", data, 0)
    op = rng.choice(["truncate", "flip", "flip_unit", "header", "leaf", "nul", "units", "pad"])
    desc = f"charsmap ({SPECS[number]}): {op}"
    if op == "truncate":
        cut = rng.choice([1, 4, 5, 1028, trie, trie + 4, trie + 5, len(data) - 1, rng.randrange(len(data))])
        data = data[:cut]
        desc += f" to {cut}"
    elif op == "flip":
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif op == "flip_unit":
        k = rng.randrange(trie // 4)
        struct.pack_into("<I", data, 4 + 4 * k, rng.getrandbits(32))
        desc += f" {k}"
    elif op == "header":
        new = rng.choice([0, 4, 1000, 1024, trie - 4, trie - 1024, trie + 1024, len(data), 0xFFFFFFFF])
        struct.pack_into("<I", data, 0, new & 0xFFFFFFFF)
        desc += f" {new}"
    elif op == "leaf":
        leaves = [k for k in range(trie // 4) if struct.unpack_from("<I", data, 4 + 4 * k)[0] >> 31]
        k = rng.choice(leaves)
        strings = len(data) - 4 - trie
        struct.pack_into("<I", data, 4 + 4 * k, 0x80000000 | rng.choice([strings - 1, strings, strings + 9, 0x7FFFFFFF]))
    elif op == "nul":
        data[-1] = ord("a")
    elif op == "units":
        data = data[:4] + data[4 : 4 + trie - 1024] + data[4 + trie :]
    elif op == "pad":
        data = data[:4 + trie] + b"\0" * 4 + data[4 + trie :]
    body = [(n, w, bytes(data) if n == 2 else v) for n, w, v in body]
    if number == 5:
        return top + [(5, LEN, join(body))], desc
    return _replace(top, where, 3, join(body)), desc


def _mutate_file(top, rng):
    data = bytearray(join(top))
    if rng.random() < 0.5:
        cut = rng.randrange(len(data))
        return bytes(data[:cut]), f"file cut at byte {cut}"
    k = rng.randrange(len(data))
    data[k] = rng.randrange(256)
    return bytes(data), f"byte {k} changed"


MUTATIONS = [(_mutate_spec, 4), (_mutate_piece, 4), (_mutate_charsmap, 2), (_mutate_file, 1)]


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One or two seeded mutations of the serialized model `data`, and what they were."""
    top = split(data)
    steps = []
    for _ in range(1 if rng.random() < 0.7 else 2):
        fn = rng.choices([m for m, _ in MUTATIONS], [w for _, w in MUTATIONS])[0]
        try:
            result = fn(top, rng)
        except (struct.error, IndexError, ValueError):  # a part an earlier step already broke
            continue
        if result is None:
            continue
        if isinstance(result[0], bytes):
            return result[0], "; ".join(steps + [result[1]])
        top, desc = result
        steps.append(desc)
    return join(top), "; ".join(steps) or "unchanged"


# ---- comparing with sentencepiece -----------------------------------------------------------------
# What tokviz refuses by name although sentencepiece loads it: pieces that are not UTF-8 (which
# sentencepiece's own Python API cannot decode).
NAMED_REFUSALS = ("tokviz does not take pieces that are not text",)


def load_reference(data: bytes):
    """sentencepiece's processor for `data`, or the reason it refuses it."""
    try:
        return spm.SentencePieceProcessor(model_proto=data)
    except (RuntimeError, OSError) as exc:
        return str(exc)
    except UnicodeDecodeError:  # a refusal whose message quotes a piece that is not UTF-8
        return "refused (its message is not UTF-8)"


def compare(data: bytes, path: Path) -> str | None:
    """None when tokviz does what sentencepiece does with the model `data`; "named: ..." when
    tokviz refuses by name what it does not implement; else what differs."""
    sp = load_reference(data)
    refusal = sp if isinstance(sp, str) else None
    path.write_bytes(data)
    try:
        tok = read_sentencepiece(path)
    except TokvizError as exc:
        if str(path) not in str(exc):
            return f"the refusal does not name the file: {exc}"
        if refusal is not None:
            return None
        if any(reason in exc.reason for reason in NAMED_REFUSALS):
            return f"named: {exc.reason}"
        return f"tokviz refuses ({exc.reason}), sentencepiece loads it"
    if refusal is not None:
        return f"tokviz loads it, sentencepiece refuses: {refusal}"
    for text in TEXTS:
        ids = sp.encode(text)
        got = tok.encode(text).ids
        if got != ids:
            return f"ids differ on {text!r}: {got[:12]} != {ids[:12]}"
        try:
            want = sp.decode(ids)
        except UnicodeDecodeError:
            continue
        if tok.decode(ids) != want:
            return f"decode differs on {text!r}"
    return None


def _model_bytes(name: str) -> bytes:
    return lzma.decompress(MODELS[name].read_bytes())


def run_mutations(names, count: int, seed: int, tmp_path: Path) -> dict:
    """Over `count` seeded mutations of each model in `names`: how many were compared, how many
    sentencepiece loads, how many tokviz refuses by name, and the disagreements."""
    rng = random.Random(seed)
    report = {"compared": 0, "loaded": 0, "named": [], "problems": []}
    for name in names:
        data = _model_bytes(name)
        for k in range(count):
            mutated, desc = mutate(data, rng)
            path = tmp_path / f"{name}-{k}.model"
            diff = compare(mutated, path)
            path.unlink()
            report["compared"] += 1
            report["loaded"] += not isinstance(load_reference(mutated), str)
            if diff and diff.startswith("named: "):
                report["named"].append(f"{name}, {desc}: {diff}")
            elif diff:
                report["problems"].append(f"{name}, {desc}: {diff}")
    return report


@pytest.mark.slow
def test_mutated_models_follow_sentencepiece(tmp_path):
    report = run_mutations(["botchan_en_unigram_1000", "botchan_en_bpe_1000", "mistral-v7"], 60, 36, tmp_path)
    assert report["compared"] == 180
    assert 30 < report["loaded"] < 170  # both outcomes are exercised
    assert not report["problems"], "\n".join(report["problems"][:20])


# ---- the rules one by one -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def bpe_fields():
    return split(_model_bytes("botchan_en_bpe_1000"))


@pytest.fixture(scope="module")
def unigram_fields():
    return split(_model_bytes("botchan_en_unigram_1000"))


def _spec(fields, number):
    return next(v for n, w, v in fields if n == number and w == LEN)


def _with_spec(fields, number, body):
    return [(n, w, body if n == number and w == LEN else v) for n, w, v in fields]


def _check(data: bytes, tmp_path: Path, *, loads: bool) -> None:
    """sentencepiece loads (or refuses) `data` as the test says, and tokviz agrees with it."""
    try:
        spm.SentencePieceProcessor(model_proto=data)
        sp_loads = True
    except (RuntimeError, UnicodeDecodeError):
        sp_loads = False
    assert sp_loads == loads, "sentencepiece no longer does what this case expects"
    assert compare(data, tmp_path / "case.model") is None, compare(data, tmp_path / "case.model")


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("piece", [0, 5, 400])
def test_unigram_refuses_non_finite_scores(unigram_fields, tmp_path, score, piece):
    fields = list(unigram_fields)
    where = [i for i, f in enumerate(fields) if f[0] == 1][piece]
    body = [f for f in split(fields[where][2]) if f[0] != 2] + [(2, I32, f32(score))]
    fields[where] = (1, LEN, join(body))
    _check(join(fields), tmp_path, loads=False)
    with pytest.raises(TokvizError, match="NaN or infinite"):
        read_sentencepiece((tmp_path / "case.model"))


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("share", [0.02, 0.3, 1.0])
def test_bpe_loads_non_finite_scores(bpe_fields, tmp_path, score, share):
    """sentencepiece's BPE takes NaN and infinite scores; a NaN piece is merged before any
    other (see SentencePieceBPE.merge_scores)."""
    rng = random.Random(f"{score}-{share}")
    fields = []
    for n, w, v in bpe_fields:
        if n == 1 and rng.random() < share:
            v = join([f for f in split(v) if f[0] != 2] + [(2, I32, f32(rng.choice([score, -3.0]))) ])
        fields.append((n, w, v))
    data = join(fields)
    _check(data, tmp_path, loads=True)
    sp = spm.SentencePieceProcessor(model_proto=data)
    tok = read_sentencepiece(tmp_path / "case.model")
    text = lzma.decompress((REAL / "sentencepiece-suite" / "botchan.txt.xz").read_bytes()).decode()[5000:40000]
    for line in text.splitlines()[:300]:
        assert tok.encode(line).ids == sp.encode(line), line


def test_nan_ranks_above_infinity(tmp_path):
    """Three pieces that can each be merged first: the order sentencepiece picks shows how it
    ranks NaN (above +inf, two NaN equal, then the leftmost)."""
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    for scores in ([math.nan, math.inf, 0.0], [0.0, math.nan, math.inf], [math.inf, 0.0, math.nan],
                   [math.nan, math.nan, 1.0], [1.0, math.nan, math.nan], [-math.inf, math.nan, -1.0]):
        m = pb.ModelProto()
        for piece, score, kind in [("<unk>", 0.0, 2), ("a", 0, 1), ("b", 0, 1), ("c", 0, 1), ("d", 0, 1),
                                   ("ab", scores[0], 1), ("bc", scores[1], 1), ("cd", scores[2], 1)]:
            p = m.pieces.add()
            p.piece, p.score, p.type = piece, score, kind
        m.trainer_spec.model_type = 2
        m.normalizer_spec.add_dummy_prefix = False
        data = m.SerializeToString()
        _check(data, tmp_path, loads=True)
        tok = read_sentencepiece(tmp_path / "case.model")
        sp = spm.SentencePieceProcessor(model_proto=data)
        assert tok.encode("abcd").tokens == sp.encode_as_pieces("abcd"), scores


def test_second_spec_messages_are_merged(bpe_fields, unigram_fields, tmp_path):
    """A second normalizer_spec/trainer_spec/denormalizer_spec message is merged into the first:
    its fields override, the others stay."""
    cases = [
        (bpe_fields, [(3, LEN, field(3, VARINT, 0))]),  # add_dummy_prefix off, charsmap kept
        (bpe_fields, [(3, LEN, field(4, VARINT, 0)), (3, LEN, field(5, VARINT, 0))]),
        (bpe_fields, [(2, LEN, field(24, VARINT, 1))]),  # treat_whitespace_as_suffix
        (bpe_fields, [(2, LEN, field(44, LEN, b"<?>"))]),  # unk_surface
        (unigram_fields, [(2, LEN, field(3, VARINT, 2))]),  # a Unigram model made BPE by a second trainer_spec
        (unigram_fields, [(3, LEN, field(2, LEN, b""))]),  # an empty charsmap given later: the last wins
        (unigram_fields, [(5, LEN, field(2, LEN, dict((n, v) for n, _, v in split(_spec(unigram_fields, 3)))[2]))]),
    ]
    for fields, extra in cases:
        data = join(fields + extra)
        _check(data, tmp_path, loads=True)
    # a field given twice in one message: the last value wins
    for number, body in ((3, field(3, VARINT, 0) + field(3, VARINT, 1)), (3, field(3, VARINT, 1) + field(3, VARINT, 0)),
                         (2, field(3, VARINT, 1) + field(3, VARINT, 2))):
        data = join(_with_spec(bpe_fields, number, _spec(bpe_fields, number) + body))
        _check(data, tmp_path, loads=True)
    pieces = [i for i, f in enumerate(bpe_fields) if f[0] == 1]
    for score in (0.0, -1e9, 5.0):
        fields = list(bpe_fields)
        fields[pieces[500]] = (1, LEN, fields[pieces[500]][2] + field(2, I32, f32(score)))
        _check(join(fields), tmp_path, loads=True)


def test_spec_split_in_two(bpe_fields, tmp_path):
    body = split(_spec(bpe_fields, 2))
    for cut in (1, len(body) // 2, len(body) - 1):
        fields = _with_spec(bpe_fields, 2, join(body[:cut])) + [(2, LEN, join(body[cut:]))]
        _check(join(fields), tmp_path, loads=True)
    # pieces after the specs, and specs before the pieces
    pieces = [f for f in bpe_fields if f[0] == 1]
    rest = [f for f in bpe_fields if f[0] != 1]
    _check(join(rest + pieces), tmp_path, loads=True)
    _check(join(pieces[:300] + rest + pieces[300:]), tmp_path, loads=True)


@pytest.mark.parametrize("extra, loads", [
    (field(3, LEN, b"\x01"), True),  # model_type as bytes: an unknown field, BPE stays
    (field(3, I32, 1), True),
    (field(3, VARINT, 7), True),  # an unknown enum value is left aside: BPE stays
    (field(3, VARINT, (1 << 64) - 1), True),
    (field(3, VARINT, (1 << 32) + 1), True),  # cut to 32 bits: UNIGRAM
    (field(35, LEN, b"\x01"), True),
    (field(30, VARINT, 1), True),
    (field(999, GSTART) + field(1, VARINT, 5) + field(999, GEND), True),
    (field(3, GSTART) + field(3, GEND), True),
    (field(999, GSTART) + field(998, GEND), False),
    (field(999, GSTART), False),
    (field(999, GEND), False),
    (varint(999 << 3 | 6) + b"\x00", False),
    (varint(3 << 3) + b"\x80" * 9 + b"\x7f", True),  # a 10-byte varint, bits past 64 dropped
    (varint(3 << 3) + b"\x80" * 10 + b"\x00", False),
    (varint((1 << 32) | (77 << 3)) + b"\x01", True),  # a 5-byte tag cut to 32 bits
    (b"\x98\x80\x80\x80\x80\x00\x00", False),  # a 6-byte tag
    (b"\x80\x80\x80\x80\x00\x01", False),  # field number 0
])
def test_protobuf_rules_in_trainer_spec(bpe_fields, tmp_path, extra, loads):
    body = _spec(bpe_fields, 2)
    _check(join(_with_spec(bpe_fields, 2, body + extra)), tmp_path, loads=loads)


@pytest.mark.parametrize("piece, loads", [
    (field(1, LEN, b"zq") + field(3, VARINT, 9), True),  # unknown type: NORMAL
    (field(1, LEN, b"zq") + field(3, VARINT, 4) + field(3, VARINT, 9), True),  # USER_DEFINED kept
    (field(1, LEN, b"zq") + field(3, LEN, b"\x04"), True),  # type as bytes: unknown field
    (field(1, LEN, b"zq") + field(2, VARINT, 5), True),  # score as varint: unknown field, score 0
    (field(1, LEN, b"zz") + field(1, LEN, b"qq"), True),  # the last string wins
    (field(1, LEN, b"ing") + field(3, VARINT, 4), False),  # "ing" is a normal piece already
    (field(1, LEN, b"st.") + field(3, VARINT, 4), True),  # a user-defined piece given at the end
    (field(2, I32, 0), False),  # no string: an empty piece
    (field(1, LEN, b"a\x00b"), False),
    (field(1, LEN, b"q" * 8000), False),
    (field(1, LEN, b"q" * 7999), True),
    (field(1, LEN, b"a") + field(3, VARINT, 2), False),  # a second unknown piece
    (field(1, LEN, b"<0x41>") + field(3, VARINT, 6), False),  # a byte piece without byte_fallback
])
def test_protobuf_rules_in_pieces(bpe_fields, tmp_path, piece, loads):
    _check(join(bpe_fields + [(1, LEN, piece)]), tmp_path, loads=loads)


def test_missing_specs_take_defaults(bpe_fields, unigram_fields, tmp_path):
    """Without normalizer_spec the defaults apply (no charsmap); without trainer_spec the model
    is a Unigram model; a spec of the wrong wire type counts as missing."""
    for fields in (bpe_fields, unigram_fields):
        _check(join([f for f in fields if f[0] != 3]), tmp_path, loads=True)
        _check(join([f for f in fields if f[0] != 2]), tmp_path, loads=True)
        _check(join([(n, VARINT, 1) if n == 3 else (n, w, v) for n, w, v in fields]), tmp_path, loads=True)


def test_self_test_data_is_not_read(bpe_fields, tmp_path):
    """ModelProto field 4 (self-test samples) is not in the schema sentencepiece 0.2 reads with:
    garbage there, or a sample whose expected pieces are wrong, is skipped."""
    for extra in (b"\xff\xff\xff", field(1, LEN, field(1, LEN, b"hello") + field(2, LEN, b"wrong"))):
        _check(join(bpe_fields + [(4, LEN, extra)]), tmp_path, loads=True)
    _check(join(bpe_fields + [(4, VARINT, 5)]), tmp_path, loads=True)


def _charsmap_case(unigram_fields, change) -> bytes:
    body = split(_spec(unigram_fields, 3))
    blob = bytearray(dict((n, v) for n, _, v in body)[2])
    blob = change(blob)
    return join(_with_spec(unigram_fields, 3, join([(n, w, bytes(blob) if n == 2 else v) for n, w, v in body])))


def _units(blob):
    (trie,) = struct.unpack_from("<I", blob, 0)
    return trie


def _set_unit(blob, k, value):
    struct.pack_into("<I", blob, 4 + 4 * k, value)
    return blob


def _set_leaf(blob, offset):
    trie = _units(blob)
    k = next(k for k in range(trie // 4) if struct.unpack_from("<I", blob, 4 + 4 * k)[0] >> 31)
    return _set_unit(blob, k, 0x80000000 | (len(blob) - 4 - trie + offset))


@pytest.mark.parametrize("change, loads", [
    (lambda b: b[:3], False),
    (lambda b: b[:5], False),
    (lambda b: b[:-1], False),  # the strings lose their final NUL
    (lambda b: b[:4 + _units(b)] + b"\0", False),  # one empty string: the rules point past it
    (lambda b: b[:4 + _units(b)], False),  # no strings at all
    (lambda b: b[:-1] + b"a", False),
    (lambda b: b + b"a\0", True),
    (lambda b: struct.pack("<I", _units(b) - 4) + b[4 : 4 + _units(b) - 4] + b[4 + _units(b) :], False),
    (lambda b: struct.pack("<I", _units(b) - 1024) + b[4 : 4 + _units(b) - 1024] + b[4 + _units(b) :], False),
    (lambda b: struct.pack("<I", _units(b) + 1024) + b[4 : 4 + _units(b)] + bytes(1024) + b[4 + _units(b) :], True),
    (lambda b: _set_leaf(b, -1), True),
    (lambda b: _set_leaf(b, 0), False),  # a replacement starting past the strings
    (lambda b: _set_leaf(b, 1 << 20), False),
    (lambda b: _set_unit(b, 0, 0x80000000 | (0x200000 << 10)), False),  # a crafted root
    (lambda b: _set_unit(b, 0, 0), False),
])
def test_charsmap_checks(unigram_fields, tmp_path, change, loads):
    _check(_charsmap_case(unigram_fields, change), tmp_path, loads=loads)


def test_charsmap_refusal_names_the_field(unigram_fields, tmp_path):
    path = tmp_path / "bad.model"
    path.write_bytes(_charsmap_case(unigram_fields, lambda b: _set_leaf(b, 5)))
    with pytest.raises(TokvizError, match="normalizer_spec.precompiled_charsmap") as info:
        read_sentencepiece(path)
    assert str(path) in str(info.value)


def test_invalid_utf8_piece_is_refused_by_name(bpe_fields, tmp_path):
    """sentencepiece loads a piece that is not UTF-8 (its Python API then fails to decode it);
    tokviz takes only text pieces and says so."""
    data = join(bpe_fields + [(1, LEN, field(1, LEN, b"\xe2\x96\x81ab\xff"))])
    spm.SentencePieceProcessor(model_proto=data)
    path = tmp_path / "utf8.model"
    path.write_bytes(data)
    with pytest.raises(TokvizError, match="not valid UTF-8") as info:
        read_sentencepiece(path)
    assert str(path) in str(info.value)
