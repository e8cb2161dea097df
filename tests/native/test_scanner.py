"""The native pre-tokenizer cuts exactly the pieces regex.finditer finds, for every pattern it knows,
and its Unicode classes are the regex module's."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core import patterns as P
from tokviz.core.patterns import compile_pattern

from _shared import CORPUS_FILES, EDGE_CASES, assigned_text, corpus_samples, examples

_native = pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")
NATIVE_SRC = Path(__file__).resolve().parents[2] / "tokviz" / "native" / "src"

# (name, pattern, dialect it is used with, native scanner)
CASES = [
    ("gpt2", P.GPT2_PATTERN, "onig", _native.PAT_GPT2),
    ("gpt2-rust", P.GPT2_PATTERN, "rust", _native.PAT_GPT2),
    ("r50k", P.R50K_PATTERN, "rust", _native.PAT_GPT2),
    ("r50k-onig", P.R50K_PATTERN, "onig", _native.PAT_GPT2),
    ("cl100k", P.CL100K_PATTERN, "rust", _native.PAT_CL100K),
    # (Oniguruma reads the literal \p{N}{1,3}+ as any run of digits: its spelling for HF is this)
    ("cl100k-onig", P.rust_to_onig(P.CL100K_PATTERN), "onig", _native.PAT_CL100K),
    ("o200k", P.O200K_PATTERN, "rust", _native.PAT_O200K),
    ("llama3", P.LLAMA3_PATTERN, "onig", _native.PAT_LLAMA3),
    ("qwen2", P.QWEN2_PATTERN, "onig", _native.PAT_QWEN2),
    ("tekken", P.TEKKEN_PATTERN, "rust", _native.PAT_TEKKEN),
    ("tekken-onig", P.rust_to_onig(P.TEKKEN_PATTERN), "onig", _native.PAT_TEKKEN),
    ("qwen35", P.QWEN35_PATTERN, "onig", _native.PAT_QWEN35),
]
IDS = [c[0] for c in CASES]

# Characters where the patterns differ: contraction letters in both cases (and U+017F, which
# (?i:s) matches), CR/LF and other white space, digits of several scripts, marks, letters of
# every case category (Lt, Lm, Lo), '/', punctuation, emoji.
TRICKY = (
    "aAbZ'sStTrReEvVmMlLdDſ \u00a0\u3000\u2028\u0085\t\x0b\x0c\x1c\r\n\r\n"
    "0123456789١٢٣²³½Ⅻ/.,!?-_#()\"中日本ひカ한ÉéßǅǈʰˇᴬΣσςΑ\u0301\u0308\u0903\u20dd😀🇯🇵"
)


def regex_spans(pattern: str, dialect: str, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in compile_pattern(pattern, dialect).finditer(text)]


def check(case, text: str) -> None:
    name, pattern, dialect, pid = case
    got = _native.pieces(pid, text)
    expected = regex_spans(pattern, dialect, text)
    assert got == expected, (name, text, [text[a:b] for a, b in got], [text[a:b] for a, b in expected])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_edge_cases(case):
    for text in EDGE_CASES:
        check(case, text)


@pytest.mark.shared
@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_corpus(case, corpus):
    for text in corpus_samples(corpus, 12, 2000, 6000):
        check(case, text)


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=examples(300), deadline=None)
@given(text=assigned_text(60))
def test_random_unicode(case, text):
    check(case, text)


@pytest.mark.first_cases(4)
@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=examples(1500), deadline=None)
@given(text=st.text(alphabet=st.sampled_from(TRICKY), max_size=24))
def test_tricky_alphabet(case, text):
    check(case, text)


# ASCII text is cut 16 bytes at a time (SSE2): long runs of each class, mixed.
ASCII_RUNS = st.lists(
    st.sampled_from(["a", "Z", "hello", "HELLO", "WoRd", "'s", "'LL", "0", "123456", " ", "  ", "\t",
                     "\n", "\r\n", "\x0b\x0c", "\x1c", "!", "...", "/", "-->", "x" * 20, " " * 19, "." * 17,
                     "AbCdEfGhIjKlMnOpQr", "camelCase", "HTTPServer", "don't", "DON'T", "x'sY", ".\n/", "/\r\n/x"]),
    max_size=30,
).map("".join)


@pytest.mark.first_cases(4)
@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=examples(600), deadline=None)
@given(text=ASCII_RUNS)
def test_ascii_text(case, text):
    check(case, text)


# ASCII text of the cl100k / llama3 / qwen2 patterns is cut from class bitmaps a 4,096-byte window
# at a time (scan_bits.h): long texts whose runs cross windows, and stretches without two adjacent
# letters (where a window is cut piece by piece).
LONG_ASCII = st.lists(st.tuples(ASCII_RUNS, st.integers(1, 400)), min_size=1, max_size=12).map(
    lambda parts: "".join(text * times for text, times in parts)
)


@pytest.mark.first_cases(4)
@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=examples(150), deadline=None)
@given(text=LONG_ASCII)
def test_long_ascii_text(case, text):
    check(case, text)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_ascii_windows(case):
    texts = [
        "1, 2; 3. " * 1500 + "and then words" * 3,  # no pair of letters for 13,500 bytes
        "word " * 800 + " " * 5000 + "x",  # white space across windows, to a word
        "a" * 4094 + "'s" + "'LL" * 3 + "b" * 10,  # contractions at a window's edge
        "ab\n" * 1364 + "   \n\n  \r\n  " * 400 + "end  ",  # CR/LF runs, the text ending in spaces
        "x" + "7" * 9000 + "y" + "\t" * 4100,  # digits and tabs longer than a window
        ("ok " * 1365 + "(\n\n  ") * 3 + "!!!\r\n",  # O runs taking CR/LF near window ends
    ]
    for text in texts:
        for start in (0, 1, 2, 3, 63, 64, 65):
            check(case, text[start:])


def test_ascii_classes_are_what_the_16_byte_scan_assumes():
    """scan.h's ASCII runs take \\p{L} = [A-Za-z], \\p{N} = [0-9], \\s = [\\t\\n\\v\\f\\r ] and the
    upper / lower classes as [A-Z] / [a-z]; the class table must say the same."""
    table = _native.class_table()
    L, N, S, UPPER, LOWER = 1, 2, 4, 8, 16
    for c in range(128):
        ch = chr(c)
        assert bool(table[c] & L) == ("A" <= ch <= "Z" or "a" <= ch <= "z"), hex(c)
        assert bool(table[c] & N) == ("0" <= ch <= "9"), hex(c)
        assert bool(table[c] & S) == (ch in "\t\n\x0b\x0c\r "), hex(c)
        assert bool(table[c] & UPPER) == ("A" <= ch <= "Z"), hex(c)
        assert bool(table[c] & LOWER) == ("a" <= ch <= "z"), hex(c)


def test_class_table_is_the_regex_modules():
    """The committed table (src/unicode_tables.h) agrees with the installed regex module on every
    code point.  If this fails after a regex upgrade, run tokviz/native/gen_unicode_tables.py."""
    from tokviz.native.gen_unicode_tables import class_bits

    expected = bytes(class_bits())
    got = _native.class_table()
    bad = [hex(cp) for cp in range(len(expected)) if expected[cp] != got[cp]]
    assert not bad, f"{len(bad)} code points differ, e.g. {bad[:10]}"


def test_unknown_pattern_id_is_refused():
    with pytest.raises(ValueError):
        _native.pieces(99, "x")
    with pytest.raises(TypeError):
        _native.pieces(_native.PAT_GPT2, b"bytes")


@pytest.mark.slow
def test_committed_header_is_what_the_generator_writes():
    """src/unicode_tables.h is generated: regenerate it (gen_unicode_tables.py) instead of editing it."""
    from pathlib import Path

    import tokviz.native
    from tokviz.native.gen_unicode_tables import render

    header = Path(tokviz.native.__file__).with_name("src") / "unicode_tables.h"
    if not header.exists():
        pytest.skip("the C sources are not installed with this copy of tokviz")
    committed = header.read_text(encoding="ascii").splitlines()[1:]  # line 1 names the regex version
    assert render().splitlines()[1:] == committed


def _compile(source: Path, out: Path) -> bool:
    """Compile a C test program against the extension's headers (with the sanitizers where the
    compiler has them); False when there is no C compiler."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return False
    base = [cc, "-O2", "-std=gnu11", "-Wall", "-Wno-unused-function", f"-I{NATIVE_SRC}", str(source), "-o", str(out)]
    for extra in (["-fsanitize=address,undefined", "-fno-sanitize-recover=all"], []):
        if subprocess.run(base + extra, capture_output=True).returncode == 0:
            return True
    raise AssertionError(subprocess.run(base, capture_output=True, text=True).stderr)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_bitmap_scanner_cuts_what_the_scanner_cuts(tmp_path, seed):
    """scan_bits.h against scan.h (itself checked against regex above) on 3,000 random ASCII texts
    per seed, up to 12,000 bytes long, for every pattern it covers, from several offsets, and in a
    prefix of each as an ASCII run of a longer text (open-ended windows)."""
    program = tmp_path / "scan_bits_fuzz"
    if not _compile(Path(__file__).parent / "c" / "scan_bits_fuzz.c", program):
        pytest.skip("no C compiler")
    run = subprocess.run([str(program), "3000", str(seed)], capture_output=True, text=True)
    assert run.returncode == 0 and "differ 0" in run.stdout, run.stdout + run.stderr
