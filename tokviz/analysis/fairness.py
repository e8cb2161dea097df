"""Fairness across languages (after Petrov et al. 2023, "Language model tokenizers introduce
unfairness between languages"): the same content in several languages, and what each costs in
tokens.

    >>> files = parallel_files(["resources/parallel"])   # language -> file, from the file names
    >>> result = fairness({"qwen": qwen, "cl100k": cl100k}, read_parallel(files), pivot="en")
    >>> round(result.figures["qwen"]["ru"].premium, 2), round(result.figures["cl100k"]["ru"].premium, 2)
    (1.4, 1.73)

For each tokenizer and language:

* tokens, and the **premium**: tokens over the pivot language's tokens for the same content, by
  the same tokenizer (the pivot's premium is 1.0);
* characters and UTF-8 bytes per token;
* unknown share (the model's unknown token) and byte-fallback share (sentencepiece <0xNN> pieces),
  both over tokens; split-character share: characters whose UTF-8 bytes are spread over several
  tokens (byte-level BPE or byte fallback cutting a character), over characters;
* **STRR**, the single-token word rate: the share of words (occurrences) lying inside one token
  that is not the unknown token, in running text.  A *word* is a maximal run of word characters
  (``\\w``: letters, marks, digits, underscore) outside the scripts written without spaces (Han,
  Hiragana, Katakana, Thai, Lao, Khmer, Myanmar): there a run of word characters is a phrase or a
  sentence, not a word, so those characters are not counted as words at all.  A language most of
  whose word characters are in such scripts (`UNSPACED_LIMIT`) gets no STRR (None, "n/a"): the few
  words left (option names, Latin terms) do not describe the language.  Its `unspaced_share` says
  how much of it that is.

Language of a file: its stem (``de.txt`` -> de), or the last dotted part of the stem when that looks
like a language tag (``whatis.pt_BR.txt`` -> pt_BR, ``notes.zh-Hans.txt`` -> zh-Hans); a folder
gives its ``*.txt`` files.  Texts are encoded in pieces cut where tokenization provably does not
depend on what follows (`core.streaming.safe_cuts`): the counts equal those of the whole text, and
`cancel` is checked between pieces (a tokenizer that cannot be cut, e.g. a sentencepiece model
keeping extra white space, encodes each text whole).  Plain data, no Qt: the Fairness view and `tokviz fairness`
show it.
"""
from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import regex

from ..errors import Cancelled, TokvizError
from ..formats._util import other_unicode_message, unicode_bom
from ..messages import QT_TRANSLATE_NOOP, Joined, Message
from ..paths import check_regular_file, folder_entries, is_regular_file, read_limited, stat_path

UNSPACED_SCRIPTS = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar")
_UNSPACED_SET = "".join(rf"\p{{scx={s}}}" for s in UNSPACED_SCRIPTS)
WORD = regex.compile(rf"(?V1)[\w--[{_UNSPACED_SET}]]+")
_WORD_RUN = regex.compile(r"\w+")
_UNSPACED_RUN = regex.compile(rf"(?V1)[\w&&[{_UNSPACED_SET}]]+")
_LANGUAGE_TAG = regex.compile(r"[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*")
_BYTE_PIECE = regex.compile(r"<0x[0-9A-F]{2}>")
UNSPACED_LIMIT = 0.5  # above this share of word characters in unspaced scripts, STRR is n/a
PIECE_CHARS = 16 * 1024
# "not parallel?" warnings: a language's lines or bytes this far from the pivot's
LINE_RATIO = 2.0
BYTE_RATIO = 4.0  # (UTF-8 makes Cyrillic ~2x and Indic or Thai text ~3x the bytes of English)


# ---- the files -------------------------------------------------------------------------------------


def language_of(path: str | os.PathLike) -> str:
    """The language a parallel file is in, from its name (see the module docstring)."""
    stem = Path(path).stem
    last = stem.rsplit(".", 1)[-1]
    return last if "." in stem and _LANGUAGE_TAG.fullmatch(last) else stem

# A parallel file holds one language's sample, read whole: megabytes, not gigabytes.
MAX_PARALLEL_FILE = 256 << 20


def _key(language: str) -> str:
    """Language names compared without case and with '-' = '_' (pt-BR is pt_BR)."""
    return language.lower().replace("-", "_")


def parallel_files(paths: Iterable[str | os.PathLike]) -> dict[str, Path]:
    """Language -> file for files and folders (a folder: its *.txt files), in the order given
    (a folder's files sorted).  TokvizError for a missing path, an empty folder, or two files of
    one language."""
    found: list[Path] = []
    for p in paths:
        p = Path(p)
        if stat.S_ISDIR(stat_path(p).st_mode):
            txt = [f for f in folder_entries(p) if f.suffix.lower() == ".txt" and is_regular_file(f)]
            if not txt:
                raise TokvizError("the folder has no .txt files (one file per language, e.g. de.txt)", p)
            found.extend(txt)
        else:
            check_regular_file(p, "a text file")
            found.append(p)
    files: dict[str, Path] = {}
    seen: dict[str, str] = {}
    for f in found:
        language = language_of(f)
        if _key(language) in seen:
            other = files[seen[_key(language)]]
            if other.resolve() == f.resolve():
                continue
            raise TokvizError(f"two files for the language {language!r}: {other} and {f.name}", f)
        seen[_key(language)] = language
        files[language] = f
    if not files:
        raise TokvizError("no parallel files given (one file per language, e.g. en.txt de.txt)")
    return files


def read_parallel(files: dict[str, str | os.PathLike]) -> dict[str, str]:
    """Language -> text.  TokvizError naming the file when it cannot be read, is not UTF-8 or is
    empty (white space only counts as empty).  A UTF-8 byte-order mark is dropped."""
    texts = {}
    for language, path in files.items():
        data = read_limited(path, MAX_PARALLEL_FILE, "a text file")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            encoding = unicode_bom(data[:4])
            if encoding is not None:
                raise TokvizError(other_unicode_message(encoding), path) from None
            raise TokvizError(f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})",
                              path) from None
        if not text.strip():
            raise TokvizError("the file is empty: a parallel file needs the text in its language", path)
        texts[language] = text
    return texts


def find_pivot(languages: Iterable[str], pivot: str) -> str:
    """`pivot` as spelled among `languages` (case and '-'/'_' ignored), else a TokvizError."""
    languages = list(languages)
    for language in languages:
        if _key(language) == _key(pivot):
            return language
    raise TokvizError(f"the pivot language {pivot!r} is not among the files' languages: {', '.join(languages)}")


# ---- the figures -----------------------------------------------------------------------------------


@dataclass
class TextFacts:
    """What a text is, whatever the tokenizer."""

    chars: int
    bytes: int
    lines: int  # lines that are not blank
    words: int  # see the module docstring
    word_chars: int  # characters matching \w, in any script
    unspaced_chars: int  # of them, in scripts written without spaces

    @property
    def unspaced_share(self) -> float:
        return self.unspaced_chars / self.word_chars if self.word_chars else 0.0

    @property
    def has_words(self) -> bool:
        """Whether STRR describes this text (most of its word characters are in spaced scripts)."""
        return self.words > 0 and self.unspaced_share <= UNSPACED_LIMIT


@dataclass
class Figures:
    """One tokenizer on one language's text."""

    tokens: int
    facts: TextFacts = field(repr=False)
    single_token_words: int = 0
    unknown: int = 0
    byte_fallback: int = 0
    split_chars: int = 0
    seconds: float = 0.0
    premium: float = 1.0
    common_fallback: list[tuple[str, int]] = field(default_factory=list)  # most frequent byte pieces, count

    @property
    def chars_per_token(self) -> float:
        return self.facts.chars / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.facts.bytes / self.tokens if self.tokens else 0.0

    @property
    def strr(self) -> float | None:
        """Single-token word rate; None where the text is mostly in scripts without spaces."""
        return self.single_token_words / self.facts.words if self.facts.has_words else None

    @property
    def unknown_share(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0

    @property
    def byte_fallback_share(self) -> float:
        return self.byte_fallback / self.tokens if self.tokens else 0.0

    @property
    def fallback_share(self) -> float:
        """Unknown and byte-fallback tokens together, over tokens."""
        return (self.unknown + self.byte_fallback) / self.tokens if self.tokens else 0.0

    @property
    def split_char_share(self) -> float:
        return self.split_chars / self.facts.chars if self.facts.chars else 0.0

    def as_dict(self) -> dict:
        return {"tokens": self.tokens, "premium": self.premium, "chars_per_token": self.chars_per_token,
                "bytes_per_token": self.bytes_per_token, "words": self.facts.words,
                "single_token_words": self.single_token_words, "strr": self.strr,
                "unknown": self.unknown, "unknown_share": self.unknown_share,
                "byte_fallback": self.byte_fallback, "byte_fallback_share": self.byte_fallback_share,
                "split_chars": self.split_chars, "split_char_share": self.split_char_share,
                "common_fallback": [{"piece": t, "count": n} for t, n in self.common_fallback],
                "seconds": self.seconds}


@dataclass
class FairnessResult:
    tokenizers: list[str]
    languages: list[str]  # in display order, the pivot first
    pivot: str
    facts: dict[str, TextFacts]  # language -> its text's facts
    figures: dict[str, dict[str, Figures]]  # tokenizer -> language -> figures
    files: dict[str, str] = field(default_factory=dict)  # language -> path (when read from files)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def premiums(self, tokenizer: str) -> list[float]:
        """Premium per language (in `languages` order) for one tokenizer: the bar chart."""
        return [self.figures[tokenizer][lang].premium for lang in self.languages]

    def rows(self) -> list[dict]:
        """The table across tokenizers: one row per language; for each tokenizer its premium,
        STRR ("n/a" where the language is written mostly without spaces) and unknown +
        byte-fallback share."""
        out = []
        for lang in self.languages:
            row: dict[str, object] = {"language": lang}
            for name in self.tokenizers:
                f = self.figures[name][lang]
                row[f"{name} premium"] = round(f.premium, 3)
                row[f"{name} STRR"] = "n/a" if f.strr is None else round(f.strr, 3)
                row[f"{name} unk/byte"] = round(f.fallback_share, 4)
            out.append(row)
        return out

    def long_rows(self) -> list[dict]:
        """Every figure: one row per tokenizer and language."""
        out = []
        for name in self.tokenizers:
            for lang in self.languages:
                f = self.figures[name][lang]
                out.append({"tokenizer": name, "language": lang, "tokens": f.tokens, "premium": round(f.premium, 3),
                            "chars/token": round(f.chars_per_token, 3), "bytes/token": round(f.bytes_per_token, 3),
                            "words": f.facts.words, "STRR": "n/a" if f.strr is None else round(f.strr, 3),
                            "unknown": f.unknown, "byte fallback": f.byte_fallback,
                            "split chars": f.split_chars})
        return out

    def as_dict(self) -> dict:
        return {
            "pivot": self.pivot,
            "tokenizers": self.tokenizers,
            "languages": [{"language": lang, "file": self.files.get(lang), "chars": fa.chars, "bytes": fa.bytes,
                           "lines": fa.lines, "words": fa.words, "unspaced_share": fa.unspaced_share,
                           "strr_defined": fa.has_words}
                          for lang, fa in ((lang, self.facts[lang]) for lang in self.languages)],
            "figures": {name: {lang: self.figures[name][lang].as_dict() for lang in self.languages}
                        for name in self.tokenizers},
            "word_definition": WORD_DEFINITION,
            "warnings": self.warnings,
            "notes": self.notes,
        }


WORD_DEFINITION = (f"a word is a maximal run of \\w characters outside scripts written without spaces "
                   f"({', '.join(UNSPACED_SCRIPTS)}); STRR is the share of word occurrences lying inside one "
                   f"token that is not the unknown token; a language whose word characters are more than "
                   f"{UNSPACED_LIMIT:.0%} in those scripts has no STRR (n/a)")


def text_facts(text: str) -> tuple[TextFacts, np.ndarray]:
    """The facts of `text` and its words' character spans (n x 2)."""
    spans = np.array([m.span() for m in WORD.finditer(text)], np.int64).reshape(-1, 2)
    facts = TextFacts(chars=len(text), bytes=len(text.encode("utf-8", "surrogatepass")),
                      lines=sum(1 for line in text.splitlines() if line.strip()), words=len(spans),
                      word_chars=_run_chars(_WORD_RUN, text), unspaced_chars=_run_chars(_UNSPACED_RUN, text))
    return facts, spans


def _run_chars(pattern, text: str) -> int:
    """Characters in the matches of `pattern` (runs: far fewer objects than one per character)."""
    return sum(map(len, pattern.findall(text, concurrent=True)))  # (lets the UI thread run meanwhile)


def _unknown_and_byte_ids(tokenizer) -> tuple[int | None, np.ndarray]:
    model = tokenizer.model
    unk = getattr(model, "unk_id", None)
    if unk is None and getattr(model, "unk_token", None) is not None:
        unk = model.vocab.get(model.unk_token)
    byte_ids: list[int] = []
    if getattr(model, "byte_fallback", False):
        byte_ids = [i for t, i in model.vocab.items() if len(t) == 6 and _BYTE_PIECE.fullmatch(t)]
    return unk, np.array(sorted(byte_ids), np.int64)


def _check(cancel) -> None:
    if cancel is not None and (cancel.is_set() if hasattr(cancel, "is_set") else cancel()):
        raise Cancelled("fairness analysis cancelled")


def _pieces(tokenizer, text: str, piece_chars: int) -> list[tuple[int, int]]:
    from ..core.streaming import safe_cuts

    cuts = [0, *safe_cuts(tokenizer, text, piece_chars), len(text)] if len(text) > piece_chars else [0, len(text)]
    return list(zip(cuts[:-1], cuts[1:]))


def measure(tokenizer, text: str, facts: TextFacts | None = None, spans: np.ndarray | None = None, *,
            piece_chars: int = PIECE_CHARS, progress: Callable[[int], None] | None = None, cancel=None) -> Figures:
    """The figures of one tokenizer on one text (premium left at 1.0).  progress(chars_done)."""
    from ..core.token_array import offsets_arrays

    if facts is None or spans is None:
        facts, spans = text_facts(text)
    unk, byte_ids = _unknown_and_byte_ids(tokenizer)
    ids_parts, start_parts, end_parts = [], [], []
    seconds = 0.0
    for a, b in _pieces(tokenizer, text, piece_chars):
        _check(cancel)
        t0 = time.perf_counter()
        enc = tokenizer.encode(text[a:b])
        seconds += time.perf_counter() - t0
        starts, ends = offsets_arrays(enc)
        ids_parts.append(np.asarray(enc.ids, np.int64))
        start_parts.append(np.asarray(starts, np.int64) + a)
        end_parts.append(np.asarray(ends, np.int64) + a)
        if progress is not None:
            progress(b)
    ids = np.concatenate(ids_parts) if ids_parts else np.zeros(0, np.int64)
    starts = np.maximum.accumulate(np.concatenate(start_parts)) if start_parts else np.zeros(0, np.int64)
    ends = np.maximum.accumulate(np.concatenate(end_parts)) if end_parts else np.zeros(0, np.int64)
    is_unk = (ids == unk) if unk is not None else np.zeros(len(ids), bool)
    fig = Figures(tokens=len(ids), facts=facts, seconds=seconds, unknown=int(is_unk.sum()),
                  byte_fallback=int(np.isin(ids, byte_ids).sum()) if len(byte_ids) else 0)
    if fig.byte_fallback:
        found, counts = np.unique(ids[np.isin(ids, byte_ids)], return_counts=True)
        fig.common_fallback = [(tokenizer.id_to_token(int(found[k])), int(counts[k])) for k in np.argsort(-counts)[:3]]
    # a character is split when the next token starts before the previous one ends (inside it)
    split = np.zeros(len(text) + 1, np.int32)
    overlap = np.flatnonzero(starts[1:] < ends[:-1])
    if len(overlap):
        lo, hi = starts[overlap + 1], ends[overlap]
        np.add.at(split, lo, 1)
        np.add.at(split, hi, -1)
    fig.split_chars = int(np.count_nonzero(np.cumsum(split)[:-1] > 0))
    if len(spans) and len(ids):
        a, b = spans[:, 0], spans[:, 1]
        first = np.searchsorted(ends, a, side="right")  # the first token ending after the word's start
        last = np.searchsorted(starts, b, side="left")  # past the last token starting before its end
        one = (last - first) == 1
        one[one] &= ~is_unk[first[one]]
        fig.single_token_words = int(one.sum())
    return fig


def fairness(tokenizers: dict, texts: dict[str, str], pivot: str, *, files: dict | None = None,
             progress: Callable[[int, int], None] | None = None, cancel=None,
             piece_chars: int = PIECE_CHARS) -> FairnessResult:
    """Measure `tokenizers` (name -> Tokenizer, display order) on parallel `texts` (language -> text).
    progress(chars_done, chars_total) over all tokenizers; cancel: a threading.Event or callable
    (raises Cancelled)."""
    if not tokenizers:
        raise TokvizError("no tokenizers to compare")
    if not texts:
        raise TokvizError("no parallel texts")
    pivot = find_pivot(texts, pivot)
    languages = [pivot, *(lang for lang in texts if lang != pivot)]
    facts, spans = {}, {}
    for lang in languages:
        _check(cancel)
        facts[lang], spans[lang] = text_facts(texts[lang])
    total = sum(len(texts[lang]) for lang in languages) * len(tokenizers)
    done = 0
    figures: dict[str, dict[str, Figures]] = {}
    for name, tok in tokenizers.items():
        per: dict[str, Figures] = {}
        for lang in languages:
            def report(chars: int, base=done) -> None:
                if progress is not None:
                    progress(base + chars, total)

            per[lang] = measure(tok, texts[lang], facts[lang], spans[lang], piece_chars=piece_chars,
                                progress=report, cancel=cancel)
            done += len(texts[lang])
        base = per[pivot].tokens
        for f in per.values():
            f.premium = f.tokens / base if base else float("nan")
        figures[name] = per
    result = FairnessResult(list(tokenizers), languages, pivot, facts, figures,
                            files={k: os.fspath(v) for k, v in (files or {}).items()})
    result.warnings = parallel_warnings(facts, pivot)
    result.notes = _notes(facts, languages)
    for name, per in figures.items():
        f = per[pivot]
        if f.byte_fallback:
            common = Joined(QT_TRANSLATE_NOOP("fairness", ", "),
                            [Message(QT_TRANSLATE_NOOP("fairness", "{piece} ({what}) {count:,}"), piece=t,
                                     what=_byte_char(t), count=n) for t, n in f.common_fallback])
            result.notes.append(Message(QT_TRANSLATE_NOOP("fairness", "{name}: {share:.1%} of the pivot's tokens are "
                                                                      "byte-fallback pieces too, characters its "
                                                                      "vocabulary lacks: {common}"),
                                        name=name, share=f.byte_fallback_share, common=common))
    if progress is not None:
        progress(total, total)
    return result


def fairness_files(tokenizers: dict, paths: Iterable[str | os.PathLike], pivot: str, **kwargs) -> FairnessResult:
    """`fairness` on parallel files and folders (see `parallel_files`)."""
    files = parallel_files(paths)
    find_pivot(files, pivot)  # (before reading: the error names what is there)
    return fairness(tokenizers, read_parallel(files), pivot, files=files, **kwargs)


def parallel_warnings(facts: dict[str, TextFacts], pivot: str) -> list[str]:
    """Languages whose text is much longer or shorter than the pivot's: maybe not the same content."""
    out = []
    p = facts[pivot]
    for lang, f in facts.items():
        if lang == pivot:
            continue
        lines = bool(p.lines and f.lines and not 1 / LINE_RATIO <= f.lines / p.lines <= LINE_RATIO)
        size = bool(p.bytes and not 1 / BYTE_RATIO <= f.bytes / p.bytes <= BYTE_RATIO)
        figures = dict(lang=lang, pivot=pivot, lines=f.lines, pivot_lines=p.lines, bytes=f.bytes, pivot_bytes=p.bytes)
        if lines and size:
            out.append(Message(QT_TRANSLATE_NOOP("fairness", "{lang}: {lines:,} non-blank lines against {pivot_lines:,} "
                                                             "and {bytes:,} bytes against {pivot_bytes:,} of the pivot "
                                                             "{pivot}: is it the same content (parallel)?"), **figures))
        elif lines:
            out.append(Message(QT_TRANSLATE_NOOP("fairness", "{lang}: {lines:,} non-blank lines against {pivot_lines:,} "
                                                             "of the pivot {pivot}: is it the same content (parallel)?"),
                               **figures))
        elif size:
            out.append(Message(QT_TRANSLATE_NOOP("fairness", "{lang}: {bytes:,} bytes against {pivot_bytes:,} of the "
                                                             "pivot {pivot}: is it the same content (parallel)?"),
                               **figures))
    return out


def _byte_char(piece: str) -> str:
    """<0x0A> -> '\\n' (what an ASCII byte piece stands for), else the piece's UTF-8 role."""
    b = int(piece[3:5], 16)
    return repr(chr(b)) if b < 0x80 else QT_TRANSLATE_NOOP("fairness", "part of a character")


def _notes(facts: dict[str, TextFacts], languages: list[str]) -> list[str]:
    out = []
    for lang in languages:
        f = facts[lang]
        if not f.has_words:
            out.append(Message(QT_TRANSLATE_NOOP("fairness", "{lang}: {share:.0%} of its word characters are in "
                                                             "scripts written without spaces; STRR is n/a (its {words:,} "
                                                             "other words are not the language's words)"),
                               lang=lang, share=f.unspaced_share, words=f.words))
        elif f.unspaced_chars:
            out.append(Message(QT_TRANSLATE_NOOP("fairness", "{lang}: {share:.0%} of its word characters are in "
                                                             "scripts written without spaces and are left out of its "
                                                             "words"), lang=lang, share=f.unspaced_share))
    return out
