""".tiktoken files with malformed lines, each read by tiktoken (load_tiktoken_bpe, then an
Encoding built on the ranks: the oracle) and by tokviz: where tiktoken refuses a file tokviz
refuses it too, naming the file; where it reads one, tokviz gives the same ids.  The cases one
by one (lines of spaces, empty lines, extra fields, base64 tiktoken reads leniently, ranks as
int() reads them, tokens or ranks given twice, gaps), then a seeded, bounded run of random
line edits of a real file (the first 3000 ranks of Whisper's GPT-2 file).
"""
from __future__ import annotations

import base64
import lzma
import random
import re
from pathlib import Path

import pytest

from tokviz.errors import TokvizError
from tokviz.formats.tiktoken_file import read_tiktoken

tiktoken = pytest.importorskip("tiktoken")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402
from tiktoken_ext.openai_public import r50k_pat_str  # noqa: E402

REAL = Path(__file__).parent / "data" / "real"
TEXTS = ["Hello world", "hello hello  there!", " the quick brown fox", "日本語 😀 ½", "aaaaaaaa bbbb",
         "It's 2024, ok?\n\n", "  spaces   \t", "x", "don't stop—now"]
# What tokviz refuses by name although tiktoken reads it: ranks of 2**31 and more (tokviz's ids
# are 32-bit signed), and ranks that lack a single byte (tiktoken panics on text needing it).
NAMED_REFUSALS = ("ids must be below 2**31", "out of range for a vocabulary", "of the 256 single bytes")


@pytest.fixture(autouse=True)
def no_tiktoken_cache(monkeypatch):
    """tiktoken caches what it reads by path: each case writes the same path anew."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    monkeypatch.setenv("RUST_BACKTRACE", "0")


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    data = lzma.decompress((REAL / "whisper-gpt2.tiktoken.xz").read_bytes())
    return data.split(b"\n")[:3000]


def reference(path: Path):
    """tiktoken's Encoding for the file, or why tiktoken refuses it."""
    try:
        ranks = load_tiktoken_bpe(str(path))
        return tiktoken.Encoding("case", pat_str=r50k_pat_str, mergeable_ranks=ranks, special_tokens={})
    except (ValueError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    except BaseException as exc:  # a Rust panic (pyo3's PanicException derives from BaseException)
        if type(exc).__name__ != "PanicException":
            raise
        return f"panic: {exc}"


def compare(data: bytes, path: Path) -> str | None:
    """None when tokviz reads `data` as tiktoken does; "named: ..." when tokviz refuses by name
    what it does not take; else what differs."""
    path.write_bytes(data)
    enc = reference(path)
    try:
        tok = read_tiktoken(path, r50k_pat_str)
    except TokvizError as exc:
        if str(path) not in str(exc):
            return f"the refusal does not name the file: {exc}"
        if isinstance(enc, str):
            return None
        if any(reason in exc.reason for reason in NAMED_REFUSALS):
            return f"named: {exc.reason}"
        return f"tokviz refuses ({exc.reason}), tiktoken reads it"
    if isinstance(enc, str):
        return f"tokviz reads it, tiktoken refuses: {enc}"
    for text in TEXTS:
        ids = enc.encode_ordinary(text)
        if tok.encode(text).ids != ids:
            return f"ids differ on {text!r}"
        if tok.decode(ids) != enc.decode(ids):
            return f"decode differs on {text!r}"
    return None


def b64(s: bytes) -> bytes:
    return base64.b64encode(s)


def _file(lines, extra=(), at=100) -> bytes:
    return b"\n".join(lines[:at] + list(extra) + lines[at:]) + b"\n"


@pytest.mark.parametrize("extra, reads", [
    ([b"   "], False),  # a line of spaces: tiktoken's line.split() gives no fields
    ([b"\t"], False),
    ([b"\x0b\x0c"], False),
    ([b""], True),  # an empty line is skipped
    ([b"", b""], True),
    ([b"\x1c"], False),  # not whitespace for bytes.split(): one field
    ([b"pw== 100 extra"], False),
    ([b"pw=="], False),
    ([b"aGk 5000"], False),  # padding missing
    ([b"aG-k= 5000"], True),  # b64decode drops characters outside the alphabet
    ([b"aGk=== 5000"], True),
    ([b"YQ=x= 5000"], True),
    ([b"!!!! 5000"], True),  # nothing left: the empty token
    ([b"= 5000"], True),
    ([b64(b"hello world") + b" 3000"], True),
    ([b64(b"hello world") + b" 1_0"], False),  # int() reads 10: a rank given twice
    ([b64(b"hello world") + b" 3_001"], True),
    ([b64(b"hello world") + b" +3001"], True),
    ([b64(b"hello world") + b" 0003001"], True),
    ([b64(b"hello world") + b" -3001"], False),
    ([b64(b"hello world") + b" 3001.0"], False),
    ([b64(b"hello world") + b" 4294967296"], False),
    ([b64(b"hello world") + b" 500"], False),  # rank 500 twice
    ([b64(b"hello world") + b" 9000"], True),  # a gap in the ranks
    ([b64(b"hello") + b" 4000", b64(b"hello") + b" 4001"], True),  # a token twice: the last rank wins
    ([b64(b"hello") + b" 4000", b64(b"hello") + b" 4000"], True),
    ([b64(b"hello") + b" 4000", b64(b"hello") + b" 4001", b64(b"world") + b" 4000"], True),
    ([b64(b"he") + b" 5000"], True),  # an existing token moved to a new rank
])
def test_malformed_lines(lines, tmp_path, extra, reads):
    path = tmp_path / "case.tiktoken"
    data = _file(lines, extra)
    path.write_bytes(data)
    assert isinstance(reference(path), tiktoken.Encoding) == reads, "tiktoken no longer does what this case expects"
    assert compare(data, path) is None, compare(data, path)


@pytest.mark.parametrize("change", ["crlf", "cr", "tabs", "double space", "no final newline", "leading space",
                                    "trailing spaces", "empty"])
def test_layouts(lines, tmp_path, change):
    data = _file(lines)
    data = {
        "crlf": data.replace(b"\n", b"\r\n"), "cr": data.replace(b"\n", b"\r"), "tabs": data.replace(b" ", b"\t"),
        "double space": data.replace(b" ", b"  "), "no final newline": data[:-1], "leading space": b" " + data,
        "trailing spaces": data.replace(b"\n", b"  \n"), "empty": b"\n\n",
    }[change]
    assert compare(data, tmp_path / "case.tiktoken") is None


def test_named_refusals(lines, tmp_path):
    """A rank tiktoken takes but tokviz's 32-bit signed ids cannot hold, and ranks without a
    single byte, are refused by name."""
    path = tmp_path / "case.tiktoken"
    for data, reason in ((_file(lines, [b64(b"hello world") + b" 4294967295"]), "below 2**31"),
                         (_file(lines[1:]), "0x21")):
        assert compare(data, path).startswith("named: ")
        with pytest.raises(TokvizError, match=re.escape(reason)):
            read_tiktoken(path, r50k_pat_str)


def test_line_of_spaces_is_refused_by_name(lines, tmp_path):
    path = tmp_path / "spaces.tiktoken"
    path.write_bytes(_file(lines, [b"    "]))
    with pytest.raises(TokvizError, match="line 101.*only spaces") as info:
        read_tiktoken(path, r50k_pat_str)
    assert str(path) in str(info.value)


# ---- random line edits --------------------------------------------------------------------------
def _edit(lines: list[bytes], rng: random.Random) -> tuple[list[bytes], str]:
    lines = list(lines)
    k = rng.randrange(len(lines))
    if len(lines[k].split()) != 2:  # a line an earlier edit broke
        return lines, "none"
    token, rank = lines[k].split()
    op = rng.choice(["spaces", "empty", "field", "drop_field", "token_char", "padding", "rank_form", "dup_token",
                     "dup_rank", "gap", "swap", "drop", "separator", "junk"])
    if op == "spaces":
        lines.insert(k, rng.choice([b" ", b"  ", b"\t", b" \t "]))
    elif op == "empty":
        lines.insert(k, b"")
    elif op == "field":
        lines[k] += rng.choice([b" x", b" 1", b" " + token])
    elif op == "drop_field":
        lines[k] = rng.choice([token, rank])
    elif op == "token_char":
        i = rng.randrange(len(token) + 1)
        lines[k] = token[:i] + bytes([rng.choice(b"-_.!=*~\x7f")]) + token[i:] + b" " + rank
    elif op == "padding":
        lines[k] = token.rstrip(b"=") + rng.choice([b"", b"=", b"==", b"==="]) + b" " + rank
    elif op == "rank_form":
        lines[k] = token + b" " + rng.choice([b"+", b"0", b"00", b"-", b""]) + rank + rng.choice([b"", b".0", b"_0"])
    elif op == "dup_token":
        lines.append(token + b" " + str(len(lines) + rng.randrange(3)).encode())
    elif op == "dup_rank":
        lines.append(b64(b"zz" + token) + b" " + rank)
    elif op == "gap":
        lines.append(b64(b"zz" + token) + b" " + str(rng.choice([5000, 70000, 10**7])).encode())
    elif op == "swap":
        j = rng.randrange(len(lines))
        if len(lines[j].split()) == 2:
            lines[k], lines[j] = token + b" " + lines[j].split()[1], lines[j].split()[0] + b" " + rank
    elif op == "drop":
        del lines[k]
    elif op == "separator":
        lines[k] = token + rng.choice([b"\t", b"  ", b"\x0b", b"\x0c", b"\x1c", b"\xa0"]) + rank
    else:
        lines[k] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 12)))
    return lines, f"line {k + 1}: {op}"


def run_edits(lines, count: int, seed: int, tmp_path: Path) -> dict:
    rng = random.Random(seed)
    report = {"compared": 0, "read": 0, "named": [], "problems": []}
    path = tmp_path / "edited.tiktoken"
    for _ in range(count):
        edited = list(lines[:3000])
        descs = []
        for _ in range(rng.randint(1, 3)):
            edited, desc = _edit(edited, rng)
            descs.append(desc)
        data = b"\n".join(edited) + rng.choice([b"\n", b"", b"\r\n"])
        diff = compare(data, path)
        report["compared"] += 1
        report["read"] += not isinstance(reference(path), str)
        if diff and diff.startswith("named: "):
            report["named"].append(f"{'; '.join(descs)}: {diff}")
        elif diff:
            report["problems"].append(f"{'; '.join(descs)}: {diff}")
    return report


def test_random_line_edits(lines, tmp_path):
    report = run_edits(lines, 120, 36, tmp_path)
    assert report["compared"] == 120
    assert 20 < report["read"] < 110  # both outcomes are exercised
    assert not report["problems"], "\n".join(report["problems"][:20])
