"""How a tokenizer does on a corpus: compression, fertility, unknowns, how much of the vocabulary is
used, and how evenly (Zipf, Rényi entropy, Gini).

    >>> stats = corpus_stats(tok, ["zh.txt"], progress=..., cancel=...)
    >>> round(stats.chars_per_token, 2), round(stats.renyi_efficiency, 3)
    (1.52, 0.583)

Files (or every *.txt / *.md / ... in a folder) are streamed with `core.streaming.encode_file`, piece
by piece: memory is one piece of text plus one counter per vocabulary id, whatever the corpus size.

Definitions (per corpus, all files together):
* bytes/token, chars/token: UTF-8 bytes and characters of the text over its tokens;
* fertility: tokens per word, words being runs of non-whitespace (so a Chinese sentence without
  spaces is one "word": use Han characters per token there);
* Han characters per token: Han characters over the tokens whose span starts on a Han character
  (the seed material's measure for Chinese, 1.5-1.6 for mainstream tokenizers);
* unknown rate: tokens that are the model's unknown token; byte-fallback rate: byte pieces <0xNN>;
* utilisation: share of the vocabulary used at least once; `never_used`: ids never seen (special
  tokens left out);
* Rényi entropy of order α (2.5 by default, as in Zouhar et al. 2023) of the token distribution, in
  bits, and its efficiency H_α / log2(vocabulary size); Shannon entropy likewise; Gini coefficient
  of the token counts (0: all tokens equally frequent, 1: one token does everything);
* throughput: MB of text encoded per second (wall time of the encode).
"""
from __future__ import annotations

import math
import os
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import regex

from ..paths import check_regular_file, distinct_files, folder_entries, is_regular_file, stat_path

TEXT_SUFFIXES = {".txt", ".md", ".rst", ".text", ".json", ".jsonl", ".csv", ".tsv", ".py", ".c", ".h", ".js",
                 ".ts", ".html", ".xml", ".tex", ".yaml", ".yml", ".toml", ".go", ".rs", ".java", ".cpp"}
_WORD = regex.compile(r"\S+")
_HAN = regex.compile(r"\p{Han}")


def corpus_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """The files of `paths`: files as given, folders searched for text files (sorted); each file
    once, at its first name (`distinct_files`: a file listed alone and inside a listed folder, or
    through a link, is counted once)."""
    out = []
    for given in paths:  # (checked as given: Path drops a separator at the end, "a.txt/")
        p = Path(given)
        if stat.S_ISDIR(stat_path(given).st_mode):
            folder_entries(given)  # (a folder that cannot be listed is named; rglob would skip it)
            out.extend(sorted(f for f in p.rglob("*") if f.suffix.lower() in TEXT_SUFFIXES and is_regular_file(f)))
        else:
            check_regular_file(given, "a text file")
            out.append(p)
    return distinct_files(out)


@dataclass
class CorpusStats:
    files: list[str]
    bytes: int = 0
    chars: int = 0
    words: int = 0
    tokens: int = 0
    han_chars: int = 0
    han_tokens: int = 0
    unknown: int = 0
    byte_fallback: int = 0
    seconds: float = 0.0
    vocab_size: int = 0
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)  # per id
    special_ids: frozenset = frozenset()
    alpha: float = 2.5

    # ---- ratios ---------------------------------------------------------------------------------
    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def fertility(self) -> float:
        return self.tokens / self.words if self.words else 0.0

    @property
    def han_chars_per_token(self) -> float:
        return self.han_chars / self.han_tokens if self.han_tokens else 0.0

    @property
    def unknown_rate(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0

    @property
    def byte_fallback_rate(self) -> float:
        return self.byte_fallback / self.tokens if self.tokens else 0.0

    @property
    def used(self) -> int:
        return int(np.count_nonzero(self.counts))

    @property
    def utilisation(self) -> float:
        return self.used / self.vocab_size if self.vocab_size else 0.0

    def never_used(self) -> list[int]:
        """Ids never produced (special tokens left out): candidates for under-trained tokens."""
        return [int(i) for i in np.flatnonzero(self.counts == 0) if int(i) not in self.special_ids]

    @property
    def mb_per_second(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0

    # ---- distribution ---------------------------------------------------------------------------
    def frequencies(self) -> np.ndarray:
        """Token counts, most frequent first, zeros left out (the Zipf plot's y values)."""
        c = self.counts[self.counts > 0]
        return np.sort(c)[::-1]

    @property
    def shannon_entropy(self) -> float:
        return shannon_entropy(self.counts)

    @property
    def renyi_entropy(self) -> float:
        return renyi_entropy(self.counts, self.alpha)

    @property
    def renyi_efficiency(self) -> float:
        return self.renyi_entropy / math.log2(self.vocab_size) if self.vocab_size > 1 else 0.0

    @property
    def shannon_efficiency(self) -> float:
        return self.shannon_entropy / math.log2(self.vocab_size) if self.vocab_size > 1 else 0.0

    @property
    def gini(self) -> float:
        return gini(self.counts)

    def as_dict(self) -> dict:
        return {
            "files": self.files,
            "bytes": self.bytes,
            "chars": self.chars,
            "words": self.words,
            "tokens": self.tokens,
            "bytes_per_token": self.bytes_per_token,
            "chars_per_token": self.chars_per_token,
            "fertility": self.fertility,
            "han_chars": self.han_chars,
            "han_chars_per_token": self.han_chars_per_token,
            "unknown_rate": self.unknown_rate,
            "byte_fallback_rate": self.byte_fallback_rate,
            "vocab_size": self.vocab_size,
            "used": self.used,
            "utilisation": self.utilisation,
            "never_used": len(self.never_used()),
            "shannon_entropy": self.shannon_entropy,
            "shannon_efficiency": self.shannon_efficiency,
            "renyi_alpha": self.alpha,
            "renyi_entropy": self.renyi_entropy,
            "renyi_efficiency": self.renyi_efficiency,
            "gini": self.gini,
            "seconds": self.seconds,
            "mb_per_second": self.mb_per_second,
        }


def shannon_entropy(counts: np.ndarray) -> float:
    """Shannon entropy in bits of the distribution `counts` (zeros ignored)."""
    c = counts[counts > 0].astype(np.float64)
    if not len(c):
        return 0.0
    p = c / c.sum()
    return float(-(p * np.log2(p)).sum())


def renyi_entropy(counts: np.ndarray, alpha: float = 2.5) -> float:
    """Rényi entropy of order `alpha` in bits: log2(sum p^alpha) / (1 - alpha) (Shannon at alpha 1)."""
    if alpha == 1:
        return shannon_entropy(counts)
    c = counts[counts > 0].astype(np.float64)
    if not len(c):
        return 0.0
    p = c / c.sum()
    return float(np.log2((p ** alpha).sum()) / (1 - alpha))


def gini(counts: np.ndarray) -> float:
    """Gini coefficient of `counts` (every id of the vocabulary, unused ones as zeros)."""
    c = np.sort(counts.astype(np.float64))
    n = len(c)
    total = c.sum()
    if n == 0 or total == 0:
        return 0.0
    ranks = np.arange(1, n + 1)
    return float((2 * (ranks * c).sum()) / (n * total) - (n + 1) / n)


class CorpusCounter:
    """Adds up the statistics of encoded pieces of text (see `corpus_stats`)."""

    def __init__(self, tokenizer, alpha: float = 2.5):
        self.tokenizer = tokenizer
        size = tokenizer.vocab_size
        self.stats = CorpusStats([], vocab_size=size, counts=np.zeros(size, np.int64),
                                 special_ids=frozenset(tokenizer.added.special_ids), alpha=alpha)
        model = tokenizer.model
        unk = getattr(model, "unk_id", None)
        if unk is None and getattr(model, "unk_token", None) is not None:
            unk = model.vocab.get(model.unk_token)
        self.unk_id = unk
        byte_ids = [i for t, i in model.vocab.items() if len(t) == 6 and regex.fullmatch(r"<0x[0-9A-F]{2}>", t)]
        self.byte_ids = np.array(sorted(byte_ids), np.int64)

    def add(self, text: str, encoding) -> None:
        from ..core.token_array import offsets_arrays

        s = self.stats
        ids = np.asarray(encoding.ids, dtype=np.int64)
        s.tokens += len(ids)
        s.chars += len(text)
        s.bytes += len(text.encode("utf-8", "surrogatepass"))
        s.words += len(_WORD.findall(text))
        if len(ids):
            inside = ids[(ids >= 0) & (ids < len(s.counts))]
            s.counts += np.bincount(inside, minlength=len(s.counts))
            if self.unk_id is not None:
                s.unknown += int(np.count_nonzero(ids == self.unk_id))
            if len(self.byte_ids):
                s.byte_fallback += int(np.isin(ids, self.byte_ids).sum())
        han = [m.start() for m in _HAN.finditer(text)]
        if han:
            s.han_chars += len(han)
            starts, _ = offsets_arrays(encoding)
            is_han = np.zeros(len(text) + 1, bool)
            is_han[han] = True
            s.han_tokens += int(is_han[np.clip(starts, 0, len(text))].sum())


class IdsOnly:
    """What CorpusCounter.add reads of the Encoding of a text without Han characters."""

    __slots__ = ("text", "ids")

    def __init__(self, text: str, ids):
        self.text, self.ids = text, ids


def counting_encoder(tokenizer, threads: int | None = None) -> Callable[[list[str]], list]:
    """pieces -> what CorpusCounter.add needs of each, encoded as two batches on `threads` threads
    (None: one per core): the ids alone as an array (no Python int per id) for the pieces without
    Han characters, the whole Encodings (Han tokens are counted by their offsets) for the rest."""

    def encode_many(pieces: list[str]) -> list:
        out: list = [None] * len(pieces)
        han, plain = [], []
        for k, piece in enumerate(pieces):
            (han if _HAN.search(piece) else plain).append(k)
        if plain:
            ids, offsets = tokenizer.encode_ids_batch([pieces[k] for k in plain], threads=threads, as_array=True)
            for j, k in enumerate(plain):
                out[k] = IdsOnly(pieces[k], ids[offsets[j]:offsets[j + 1]])
        if han:
            for k, enc in zip(han, tokenizer.encode_batch([pieces[k] for k in han], threads=threads), strict=True):
                out[k] = enc
        return out

    return encode_many


def corpus_stats(
    tokenizer,
    paths: Iterable[str | os.PathLike],
    *,
    progress: Callable[[int, int], None] | None = None,
    cancel=None,
    alpha: float = 2.5,
    threads: int | None = None,
) -> CorpusStats:
    """Statistics of `tokenizer` over files and folders (streamed; see the module docstring).
    progress(bytes_done, total_bytes); cancel: a callable or threading.Event (raises Cancelled);
    threads: the pieces of each read chunk are encoded on this many threads (None: one per core)."""
    from ..core.streaming import encode_file

    files = corpus_files(paths)
    counter = CorpusCounter(tokenizer, alpha)
    stats = counter.stats
    stats.files = [str(f) for f in files]
    total = sum(f.stat().st_size for f in files)
    done_before = 0
    t0 = time.perf_counter()
    for f in files:
        def file_progress(done: int, _total: int, base=done_before) -> None:
            if progress is not None:
                progress(base + done, total)

        encode_file(tokenizer, f, on_chunk=lambda chunk: counter.add(chunk.encoding.text, chunk.encoding),
                    keep_ids=False, progress=file_progress, cancel=cancel, piece_chars=64 * 1024,
                    encode_many=counting_encoder(tokenizer, threads))
        done_before += f.stat().st_size
    stats.seconds = time.perf_counter() - t0
    if progress is not None:
        progress(total, total)
    return stats


def text_stats(tokenizer, text: str, alpha: float = 2.5) -> CorpusStats:
    """The same statistics for one text in memory."""
    counter = CorpusCounter(tokenizer, alpha)
    t0 = time.perf_counter()
    enc = tokenizer.encode(text)
    counter.stats.seconds = time.perf_counter() - t0
    counter.add(text, enc)
    return counter.stats


# ---- comparing tokenizers ------------------------------------------------------------------------


def unique_name(name: str, taken) -> str:
    """`name`, or `name (2)`, `name (3)`... if it is taken already (two tokenizers of one name)."""
    if name not in taken:
        return name
    k = 2
    while f"{name} ({k})" in taken:
        k += 1
    return f"{name} ({k})"


def comparison_rows(tokenizers: dict[str, object], corpora: dict[str, list], *, progress=None, cancel=None,
                    measure=corpus_stats) -> list[dict]:
    """One row per tokenizer in the seed's layout: name, vocabulary size, and for each corpus
    (label -> files) its tokens, chars/token and time in seconds.  `measure`: corpus_stats or a
    drop-in for it (a Dask cluster's, see cli)."""
    rows = []
    for name, tok in tokenizers.items():
        row: dict[str, object] = {"tokenizer": name, "vocab size": tok.vocab_size}
        for label, paths in corpora.items():
            s = measure(tok, paths, progress=progress, cancel=cancel)
            row[f"{label} tokens"] = s.tokens
            row[f"{label} chars/token"] = round(s.chars_per_token, 3)
            if s.han_chars:
                row[f"{label} Han chars/token"] = round(s.han_chars_per_token, 3)
            row[f"{label} time (s)"] = round(s.seconds, 3)
        rows.append(row)
    return rows


def _columns(rows: list[dict]) -> list[str]:
    cols: list[str] = []
    for r in rows:
        cols.extend(k for k in r if k not in cols)
    return cols


def table_csv(rows: list[dict]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=_columns(rows), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def table_markdown(rows: list[dict]) -> str:
    cols = _columns(rows)

    def cell(v) -> str:
        if isinstance(v, float):
            return f"{v:.3f}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v if v is not None else "").replace("|", "\\|")

    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"
