"""Where the shared test data lives (../shared beside the project) and text samples from it."""
from __future__ import annotations

import functools
import lzma
import os
import random
import shutil
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
BUNDLED = Path(__file__).resolve().parent / "data" / "real"
# ../shared/tokenizers files that tests/data/real holds byte for byte (xz-compressed where marked)
BUNDLED_COPIES = {
    "qwen2.5/tokenizer.json": "qwen2.5/tokenizer.json.xz",
    "qwen2.5/tokenizer_config.json": "qwen2.5/tokenizer_config.json",
    "cl100k_base.tiktoken": "cl100k_base.tiktoken.xz",
    "bert-minilm/tokenizer.json": "bert-minilm/tokenizer.json.xz",
    "bert-minilm/vocab.txt": "bert-minilm/vocab.txt.xz",
    "bert-minilm/tokenizer_config.json": "bert-minilm/tokenizer_config.json",
}


def _bundled_tokenizers() -> Path:
    """Without ../shared (a fresh clone): a scratch folder laid out as ../shared/tokenizers with the
    files of it that tests/data/real holds (the same bytes, unpacked), so the tests of those
    tokenizers run; the others (Llama 3, the 8k sentencepiece models, Qwen's vocab.json and
    merges.txt) are missing there and their tests skip as before."""
    import atexit
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="tokviz-tests-tokenizers-")) / "tokenizers"
    atexit.register(shutil.rmtree, folder.parent, True)
    for rel, src in BUNDLED_COPIES.items():
        data = (BUNDLED / src).read_bytes()
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(lzma.decompress(data) if src.endswith(".xz") else data)
    return folder


TOKENIZERS = SHARED / "tokenizers" if (SHARED / "tokenizers").is_dir() else _bundled_tokenizers()
CORPUS = SHARED / "corpus"
CORPUS_FILES = ("en", "zh", "code", "multi")
# one file of each shared tokenizer, by a short name (tests skip those that are missing)
SHARED_TOKENIZER_FILES = {
    "qwen2.5": TOKENIZERS / "qwen2.5" / "tokenizer.json",
    "llama3": TOKENIZERS / "llama3" / "tokenizer.json",
    "cl100k": TOKENIZERS / "cl100k_base.tiktoken",
    "bert": TOKENIZERS / "bert-minilm" / "tokenizer.json",
    "sp-unigram": TOKENIZERS / "sentencepiece" / "unigram_8k.model",
    "sp-bpe": TOKENIZERS / "sentencepiece" / "bpe_8k.model",
}


slow = pytest.mark.slow  # left out of the README's command; `python3 -m pytest -m slow` runs it (CI does)
shared = pytest.mark.shared  # reads ../shared: skipped where it is absent


# Hypothesis campaigns: a fifth of each test's examples by default (at least 25), every example
# with TOKVIZ_ALL_EXAMPLES=1 (.ci/run sets it).
ALL_EXAMPLES = os.environ.get("TOKVIZ_ALL_EXAMPLES") == "1"


def examples(n: int) -> int:
    """The max_examples of a campaign of `n` examples in this run."""
    return n if ALL_EXAMPLES else max(min(n, 25), n // 5)


def sweep(values, fast, *marks):
    """Parameters for a sweep: the values in `fast` (a representative few) run by default, every
    other one is marked slow (CI runs them with -m slow).  `marks` go on all of them.  The test
    ids are those plain values give."""
    fast = list(fast)
    assert all(v in values for v in fast), fast
    return [pytest.param(*(v if isinstance(v, tuple) else (v,)), marks=[*marks] if v in fast else [slow, *marks])
            for v in values]


@functools.lru_cache(maxsize=8)
def reference(path) -> "tokviz.Tokenizer":
    """tokviz.load(path), loaded once per session (Qwen2.5's takes most of a second) for the tests
    that only encode with it, as the oracle of what the code under test shows.  Never hand it to
    the code under test, nor change it: a test that needs a tokenizer of its own loads it itself."""
    import tokviz

    return tokviz.load(path)


def need(path: Path) -> Path:
    """Skip the calling test when a shared file is missing (as on a user's machine)."""
    if not path.exists():
        pytest.skip(f"shared test data not found: {as_shared(path)} (../shared is absent)")
    return path


def as_shared(path: Path) -> Path:
    """`path` as it is named under ../shared (a file of the stand-in folder by its ../shared name)."""
    try:
        return SHARED / "tokenizers" / Path(path).relative_to(TOKENIZERS)
    except ValueError:
        return Path(path)


def corpus_samples(name: str, count: int, min_len: int = 300, max_len: int = 1500, seed: int = 0) -> list[str]:
    """`count` seeded random slices of ../shared/corpus/<name>.txt, cut at character boundaries."""
    text = need(CORPUS / f"{name}.txt").read_text(encoding="utf-8")
    rng = random.Random(f"{name}-{seed}")
    out = []
    for _ in range(count):
        n = rng.randint(min_len, max_len)
        start = rng.randrange(0, max(1, len(text) - n))
        out.append(text[start : start + n])
    return out


EDGE_CASES = [
    "",
    " ",
    "a",
    "Hello, world!",
    "👨‍👩‍👧‍👦 family, 👍🏽 thumbs, 🏳️‍🌈 flag, 🇯🇵🇺🇸 flags",
    "e\u0301 vs é, n\u0303, a\u0308\u0323 stacked marks, ﬁ ligature, Å",
    "line one\r\nline two\r\n\r\n",
    "    four spaces\t\ttwo tabs \t mixed  \n   \n\n\n",
    "1234567890 3.14159 1,000,000 0x1F 2024-11-21 ١٢٣ ²³",
    "<|endoftext|> inside <|endoftext|>text<|im_start|>user",
    "<s> and </s> and [CLS] [SEP] [MASK] <unk> <pad>",
    "zero\u200bwidth\u200cjoiner\u200dmarks\ufeffbom\u2060wj",
    "中文的分词：北京大学生前来应聘。乌鲁木齐",
    "日本語のテキスト、カタカナとひらがな。Русский текст. Deutsch: Größe, Straße.",
    "def f(x):\n    return x ** 2  # comment\n",
    "don't I'M we'll THEY'RE it's",
    "   leading and trailing   ",
    "ＡＢＣ１２３ full-width！",
    "\x00\x01\x1f\x7f control chars \x1c\x1d",
    "a" * 300,
    "🙂" * 40,
    "\u00a0nbsp\u3000ideographic\u2028sep",
]


def assigned_text(max_size: int):
    """Hypothesis strategy: random text of characters that every Unicode table involved agrees on.

    The reference libraries, Python's unicodedata and the `regex` module each carry their own
    Unicode version; a code point assigned in a newer version (a CJK extension J letter in Unicode
    17, a Znamenny mark in 14) is a letter or mark to one and unassigned to another, and no
    tokenizer can agree with all of them.  Characters already assigned in Unicode 3.2 are stable.
    Newer characters (emoji and others) are covered by the hand-written edge cases and corpora.
    """
    import unicodedata

    from hypothesis import strategies as st

    chars = st.characters(exclude_categories=("Cs", "Cn"))
    return st.text(alphabet=chars.filter(lambda c: unicodedata.ucd_3_2_0.category(c) != "Cn"), max_size=max_size)


def write_hf_cache(hub: Path, repo_id: str, files: dict[str, bytes], commit: str, refs=("main",)) -> Path:
    """One model revision written as huggingface_hub lays out its cache: each file a blob named by
    the SHA-256 of its bytes, the snapshot's files relative symbolic links to the blobs, and
    refs/<name> holding the commit.  Returns the snapshot folder."""
    import hashlib
    import os

    repo = hub / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    for name, data in files.items():
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = snapshot / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    for ref in refs:
        (repo / "refs" / ref).parent.mkdir(parents=True, exist_ok=True)
        (repo / "refs" / ref).write_text(commit)
    return snapshot


def without_permissions() -> list[str] | None:
    """A command prefix under which file permissions apply to the process it runs (root ignores
    them: it runs without the capabilities that bypass them), or None when that is not possible."""
    import os
    import shutil
    import subprocess

    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    drop = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    return drop if subprocess.run(drop + ["true"], capture_output=True).returncode == 0 else None


HANG_LIMIT_S = 30


@pytest.fixture
def no_hang():
    """Turn a blocked call into a failure: SIGALRM interrupts a blocking open() or read()."""
    import signal

    def blocked(*_):
        raise AssertionError(f"blocked for {HANG_LIMIT_S} s")

    old = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(HANG_LIMIT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def bundled_qwen_folder(folder: Path) -> Path:
    """`folder` holding the bundled Qwen2.5 tokenizer (tests/data/real): its tokenizer.json and its
    tokenizer_config.json with the chat template."""
    src = BUNDLED / "qwen2.5"
    (folder / "tokenizer.json").write_bytes(lzma.decompress((src / "tokenizer.json.xz").read_bytes()))
    shutil.copy(src / "tokenizer_config.json", folder / "tokenizer_config.json")
    return folder
