"""Unigram training, as sentencepiece does it: seed pieces from frequent substrings, EM over each
word's lattice, pruning of the pieces whose loss costs least, until the vocabulary fits.

    >>> tok = train_unigram(["corpus.txt"], TrainOptions(vocab_size=8000, special_tokens=["<unk>", "<s>", "</s>"]))
    >>> tok.vocab_size, tok.model.pieces[3]
    (8000, ('▁the', -3.21...))

The steps:

1. Count words.  The text goes through the pipeline the trained tokenizer will run — NFKC (and,
   with `collapse_whitespace`, runs of white space to one space, stripped), spaces as '▁', a '▁'
   in front, a cut before every '▁' — so the model learns on exactly what `encode` will show it.
   Special tokens, reserved tokens and user-defined symbols are cut out of the text first.  Files
   are streamed (`read_corpus`) and counted in chunks cut before a space (`WordCounter`), so each
   file's words are those of the whole file: memory grows with the number of distinct words, not
   the text.  With `min_word_count`, the words seen fewer times go; beyond `max_symbols`
   characters of distinct words, the rarest words are left out.
2. The alphabet: characters by frequency, as many as `character_coverage` of the text (and
   `limit_alphabet`) allow, plus `initial_alphabet` and '▁'.  Words are cut at the characters
   left out: those become unknown (or bytes, with `byte_fallback`).
3. Seeds (`make_seeds`): every character, and the substrings of words followed by two different
   things somewhere (internal nodes of a suffix tree; or a word's tail that occurs at one place
   only), occurring `max(2, min_frequency)` times or more, valid as pieces (see below), the
   `seed_size` best by count x length; first scores log(count x length / total).
4. EM (`em_step`): expected counts of each piece over each word's lattice (forward-backward), then
   score = digamma(expected) - digamma(sum of expected), as sentencepiece's Bayesian M-step; pieces
   expected fewer than 0.5 times go.  Characters are never removed.
5. Pruning (`prune`): the Viterbi segmentation of every word gives each piece's count; a piece's
   best segmentation without itself gives the pieces that would take its place; the loss of
   removing it is the drop in likelihood of that substitution, weighted by the share of words it
   is in.  The pieces with the largest losses stay: `shrinking_factor` of them each round, never
   fewer than 1.1 x the target.  Steps 4-5 repeat until that many are left (`run_rounds`: its
   `observe` hook lets tokviz.train.learn show each step).
6. The vocabulary: special tokens, reserved tokens, user-defined symbols, with `byte_fallback` the
   256 byte pieces <0x00>..<0xFF>, then the characters and the best-scoring pieces, ordered by
   score; `pad_to_multiple_of` adds reserved tokens at the end.

A valid piece, as sentencepiece's defaults: '▁' only at its start, no mixing of Unicode scripts
(kana count as Han; white space such as a newline joins only white space), with `split_digits` a
digit only alone.

The heavy steps run in C (tokviz._unigramtrain, threads, GIL released).  `ReferenceLattice` (unigram_lattice.py)
does the same steps in plain Python, slowly (a few seconds per 100 KB of text): it is the
definition, the tests compare both, and it is used when the C module is missing.  Both sum
expected counts in fixed point, so the result does not depend on the number of threads.

TrainOptions honoured: vocab_size (exactly, including everything listed above), min_frequency
(seed substrings), min_word_count, special_tokens (the first whose name contains "unk" is the
unknown token; without one, "<unk>" is added first), user_defined_symbols (added tokens, never
split, not special), reserved_tokens, split_digits, max_token_length (characters per piece, '▁'
included; default 16), character_coverage, byte_fallback, initial_alphabet, limit_alphabet,
collapse_whitespace, pad_to_multiple_of.  Nothing is ignored.  The vocabulary has exactly
vocab_size tokens (before padding) unless the corpus is too small to offer that many pieces: it is
then smaller, and the last progress message says so.
"""
from __future__ import annotations

import math
import os
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

import regex

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.models import Unigram
from ..core.pre_tokenizers import fixed_script
from ..core.tokenizer import Source, Tokenizer
from ..core.unicode import is_numeric
from ..errors import TokvizError
from ..core.streaming import Cancelled
from ..messages import QT_TRANSLATE_NOOP, Message
from .options import CancelCheck, Progress, TrainOptions, read_corpus
from .unigram_lattice import ReferenceLattice

SPACE = "\u2581"
UNK = "<unk>"
DESIRED_MARGIN = 1.1     # EM/pruning stops at 1.1 x the pieces wanted, as sentencepiece


def train_unigram(
    corpus: Iterable[str | os.PathLike],
    options: TrainOptions,
    *,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    threads: int | None = None,
    max_piece_length: int = 16,
    shrinking_factor: float = 0.75,
    em_iterations: int = 2,
    seed_size: int = 1_000_000,
    max_symbols: int | None = 40_000_000,
    native: bool | None = None,
    count=None,
    observe: Callable[[RoundEvent], None] | None = None,
) -> Tokenizer:
    """Train a Unigram tokenizer (NFKC + Metaspace + Unigram) on `corpus`.

    `corpus`: file paths (os.PathLike, or a str naming an existing file) and texts (any other str).
    `threads`: for the C steps (default: all cores); the result is the same for any number.
    `max_piece_length`: longest piece in characters when options.max_token_length is None.
    `shrinking_factor`: share of pieces kept by each pruning round; `em_iterations`: EM steps per
    round; `seed_size`: the number of seed pieces.  `max_symbols`: a bound on the characters of the
    distinct words trained on (about 40 bytes each at the peak): beyond it the rarest words are
    left out, as sentencepiece samples sentences (None: no bound).  `native`: True to require the C core, False
    for the pure-Python reference, None (default) for C when built.  `count`: a drop-in for
    `count_words` (tokviz.cluster.count_words_on).  `observe(event)`: a RoundEvent after the seeds,
    each EM step and each pruning round (`run_rounds`; tokviz.train.learn steps through them).
    Progress goes to progress(fraction, message) all along; cancel() is checked between steps
    (and between chunks of text): when it returns True, Cancelled is raised.
    """
    if not 0.0 < shrinking_factor < 1.0:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "shrinking_factor must be in (0, 1), got {value}"),
                                  value=shrinking_factor))
    if em_iterations < 1:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "em_iterations must be at least 1, got {value}"),
                                  value=em_iterations))
    max_len = options.max_token_length or max_piece_length
    if not 1 <= max_len <= 250:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "pieces can be 1 to 250 characters long, not {value}"),
                                  value=max_len))
    report = _Reporter(progress)

    fixed, unk_id = _fixed_pieces(options)
    budget = options.vocab_size - len(fixed)  # characters + learned pieces
    if budget < 1:
        raise TokvizError(Message(
            QT_TRANSLATE_NOOP("train", "vocab_size {size} leaves no room for learned pieces after {fixed} special "
                                       "tokens, reserved tokens, user-defined symbols and byte pieces"),
            size=options.vocab_size, fixed=len(fixed)))

    words = (count or count_words)(corpus, options, report.part(0.0, 0.3), cancel)
    if not words:
        raise TokvizError(QT_TRANSLATE_NOOP("train", "the training corpus has no text"))
    check_cancel(cancel)
    report(0.3, Message(QT_TRANSLATE_NOOP("train", "{words} distinct words; choosing the alphabet"), words=len(words)))
    alphabet, symbols, offsets, freqs = encode_words(
        words, options, max_symbols, note=lambda message: report(0.31, message))
    del words
    if not len(freqs):
        raise TokvizError(QT_TRANSLATE_NOOP("train", "no text is left once the characters outside the alphabet are set "
                                                     "aside"))
    if len(alphabet) > budget:
        raise TokvizError(Message(
            QT_TRANSLATE_NOOP("train", "the alphabet has {chars} characters but vocab_size leaves room for {budget} "
                                       "pieces: raise vocab_size, or lower character_coverage / limit_alphabet"),
            chars=len(alphabet), budget=budget))
    char_class, char_digit = _char_properties(alphabet)
    lattice = _make_lattice(
        native,
        symbols=symbols, word_offsets=offsets, word_freqs=freqs, n_chars=len(alphabet),
        char_class=char_class, char_digit=char_digit, space_symbol=alphabet.index(SPACE),
        max_piece_length=max_len, seed_size=seed_size, min_count=max(2, options.min_frequency),
        split_digits=options.split_digits, threads=threads or os.cpu_count() or 1,
    )
    del symbols, offsets, freqs
    run_rounds(lattice, alphabet, budget, em_iterations=em_iterations, shrinking_factor=shrinking_factor,
               report=report, cancel=cancel, observe=observe)
    check_cancel(cancel)
    learned = _final_pieces(lattice.pieces(), alphabet, budget)
    tokenizer = build_tokenizer(fixed, unk_id, learned, options)
    missing = budget - len(learned)
    if missing:
        report(1.0, Message(QT_TRANSLATE_NOOP("train", "done: {tokens} tokens (the corpus offered {missing} pieces too "
                                                       "few for {vocab_size})"),
                            tokens=tokenizer.vocab_size, missing=missing, vocab_size=options.vocab_size))
    else:
        report(1.0, Message(QT_TRANSLATE_NOOP("train", "done: {tokens} tokens"), tokens=tokenizer.vocab_size))
    return tokenizer


# ---- progress and cancel -------------------------------------------------------------------

def check_cancel(cancel: CancelCheck | None, bytes_done: int = 0, total_bytes: int = 0) -> None:
    """Raise Cancelled when cancel() says so (with how much text had been read, when counting)."""
    if cancel is not None and cancel():
        raise Cancelled(bytes_done, total_bytes)


class _Reporter:
    """progress(fraction, message), with sub-ranges for the parts of the work; the fraction
    passed on never goes backwards (estimates of the work left may change)."""

    def __init__(self, progress: Progress | None, lo: float = 0.0, hi: float = 1.0, shared: list | None = None):
        self.progress, self.lo, self.hi = progress, lo, hi
        self.last = shared if shared is not None else [0.0]

    def __call__(self, fraction: float, message: str) -> None:
        if self.progress is not None:
            value = max(self.last[0], self.lo + (self.hi - self.lo) * min(1.0, max(0.0, fraction)))
            self.last[0] = value
            self.progress(value, message)

    def part(self, lo: float, hi: float) -> _Reporter:
        span = self.hi - self.lo
        return _Reporter(self.progress, self.lo + span * lo, self.lo + span * hi, self.last)


def _rounds(n_pieces: int, desired: int, shrinking_factor: float) -> int:
    """About how many rounds of EM + pruning are left from n_pieces to desired (for progress)."""
    if n_pieces <= desired:
        return 1
    return 1 + max(1, math.ceil(math.log(desired / n_pieces) / math.log(shrinking_factor)))


# ---- step 1: words -------------------------------------------------------------------------

def _is_file(item) -> bool:
    if isinstance(item, os.PathLike):
        return True
    return isinstance(item, str) and "\n" not in item and len(item) < 4096 and os.path.isfile(item)


def _file_size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "cannot read training file: {error}"),
                                  error=exc.strerror or str(exc)), path) from None


def _cut_tokens(options: TrainOptions) -> list[str]:
    return options.fixed_tokens() + list(options.user_defined_symbols)


def cut_tokens_pattern(options: TrainOptions):
    """The regex that finds the special tokens, reserved tokens and user-defined symbols cut out
    of the training text (longest first), or None when there are none."""
    cut = _cut_tokens(options)
    return regex.compile("|".join(regex.escape(t) for t in sorted(cut, key=len, reverse=True))) if cut else None


def text_normalizer(options: TrainOptions) -> norm.Normalizer:
    """NFKC, and with collapse_whitespace: white space runs to one space, stripped."""
    nfkc = norm.UnicodeForm("NFKC")
    if not options.collapse_whitespace:
        return nfkc
    return norm.Sequence([nfkc, norm.Replace(r"\s+", " ", is_regex=True), norm.Strip()])


def count_words(
    corpus: Iterable[str | os.PathLike],
    options: TrainOptions,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
) -> Counter:
    """Occurrences of each word (without its leading '▁'), texts read in chunks, in order of first
    appearance; the words seen fewer than options.min_word_count times are left out.  The words
    are what the tokenizer's pre-tokenizer will cut from each whole file or text: see the module
    doc and `WordCounter`."""
    items = [corpus] if isinstance(corpus, (str, os.PathLike)) else list(corpus)
    sizes = [_file_size(i) if _is_file(i) else len(i.encode("utf-8")) for i in items]
    total = max(1, sum(sizes))
    counter = WordCounter(options)
    done = 0
    for item, size in zip(items, sizes):
        chunks = read_corpus([item]) if _is_file(item) else [item]
        name = Path(item).name if _is_file(item) else "text"
        for chunk in chunks:
            check_cancel(cancel, done, total)
            counter.add(chunk)
            done += len(chunk.encode("utf-8"))
            if progress is not None:
                progress(done / total, Message(QT_TRANSLATE_NOOP("train", "counting words: {name}, {done:.1f} of "
                                                                           "{total:.1f} MB"),
                                                  name=name, done=done / 1e6, total=total / 1e6))
        counter.end_text()
    return counter.result(options.min_word_count)


_SPACES = regex.compile(r"\s+")


class WordCounter:
    """Counts the words of texts given in consecutive chunks, cut anywhere: the counts are those
    of each whole text.  A chunk is counted up to its last word start (`WordStarts`); the rest
    waits for the next chunk, or for `end_text`."""

    def __init__(self, options: TrainOptions):
        self.starts = WordStarts(options)
        self.cut_re = self.starts.cut_re
        self.collapse = options.collapse_whitespace
        self.words: Counter = Counter()
        self._carry = ""

    def add(self, chunk: str) -> None:
        text = self._carry + chunk if self._carry else chunk
        cut = self.starts.last(text)
        if cut <= 0:
            self._carry = text
            return
        self._count(text[:cut])
        self._carry = text[cut:]

    def end_text(self) -> None:
        """The text given so far is whole: count what was held back."""
        if self._carry:
            self._count(self._carry)
            self._carry = ""

    def result(self, min_count: int = 1) -> Counter:
        self.end_text()
        if min_count <= 1:
            return self.words
        return Counter({w: n for w, n in self.words.items() if n >= min_count})

    def _count(self, text: str) -> None:
        for segment in self.cut_re.split(text) if self.cut_re else (text,):
            _count_segment(segment, self.collapse, self.words)


def _count_segment(text: str, collapse: bool, words: Counter) -> None:
    text = unicodedata.normalize("NFKC", text)
    if collapse:
        text = _SPACES.sub(" ", text).strip()
    if not text:
        return
    text = text.replace(" ", SPACE)
    parts = text.split(SPACE)
    if parts[0]:
        words[parts[0]] += 1  # the '▁' the pre-tokenizer puts in front
    words.update(parts[1:])


class WordStarts:
    """Where a training text may be cut without changing its words: just before a space (U+0020)
    that no cut token covers.  The space starts a word either way (the part after it begins with
    an empty first word, which is not counted), and NFKC changes nothing across it (a space
    neither composes nor reorders).  A space is taken only when any cut token over it would be
    whole in the text seen."""

    def __init__(self, options: TrainOptions):
        self.cut_re = cut_tokens_pattern(options)
        self.longest = max(map(len, _cut_tokens(options)), default=0)

    def last(self, text: str) -> int:
        """The index of the last such space in `text`, or -1."""
        at = text.rfind(" ", 0, len(text) - self.longest + 1)
        while at > 0 and self._covered(text, at):
            at = text.rfind(" ", 0, at)
        return at

    def next(self, text: str, at: int) -> int:
        """The index of the first such space at or after `at` in `text`, or -1 (a cluster's range
        finder, tokviz.cluster.ranges)."""
        stop = len(text) - self.longest + 1
        at = text.find(" ", at, stop)
        while at >= 0 and self._covered(text, at):
            at = text.find(" ", at + 1, stop)
        return at

    def _covered(self, text: str, at: int) -> bool:
        if self.cut_re is None:
            return False
        for m in self.cut_re.finditer(text, max(0, at - self.longest), at + self.longest):
            if m.start() < at < m.end():
                return True
            if m.start() >= at:
                break
        return False


# ---- step 2: alphabet and symbols ----------------------------------------------------------

def choose_alphabet(char_counts: dict[str, int], options: TrainOptions) -> list[str]:
    """The characters kept, most frequent first (ties by code point): as many as cover
    character_coverage of the text (as sentencepiece: a character is taken while the share
    covered so far is below it), at most limit_alphabet, plus initial_alphabet and '▁'."""
    ranked = sorted(char_counts.items(), key=lambda kv: (-kv[1], kv[0]))
    total = sum(char_counts.values())
    kept: list[str] = []
    covered = 0
    for c, n in ranked:
        if total and covered / total >= options.character_coverage:
            break
        if options.limit_alphabet is not None and len(kept) >= options.limit_alphabet:
            break
        kept.append(c)
        covered += n
    chosen = set(kept)
    for c in [SPACE, *options.initial_alphabet]:
        if c not in chosen and len(c) == 1:
            chosen.add(c)
            kept.append(c)
    return sorted(chosen, key=lambda c: (-char_counts.get(c, 0), c))


def encode_words(words: Counter, options: TrainOptions, max_symbols: int | None = None, note=None):
    """(alphabet, symbols, word_offsets, word_freqs): each word as '▁' + its characters, mapped to
    alphabet ids; words are cut at characters outside the alphabet (they are never in a piece).
    With `max_symbols`, only the most frequent words (ties: first seen) that fit in that many
    characters are kept (the trainer's memory grows with the characters of the distinct words),
    and note(message) says how many."""
    import numpy as np

    keys = list(words)
    freqs = np.fromiter(words.values(), dtype=np.int64, count=len(keys))
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)) + 1
    if max_symbols is not None and int(lengths.sum()) > max_symbols:
        order = np.argsort(-freqs, kind="stable")
        fits = order[np.cumsum(lengths[order]) <= max_symbols]
        fits.sort()
        if note is not None:
            note(Message(QT_TRANSLATE_NOOP("train", "training on the {n} most frequent of {words} distinct words "
                                                   "(max_symbols {max_symbols})"),
                         n=len(fits), words=len(keys), max_symbols=max_symbols))
        keys = [keys[i] for i in fits.tolist()]
        freqs, lengths = freqs[fits], lengths[fits]
    starts = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    cps = np.full(int(starts[-1]), ord(SPACE), dtype=np.uint32)
    body = np.ones(len(cps), dtype=bool)
    body[starts[:-1]] = False
    cps[body] = np.frombuffer("".join(keys).encode("utf-32-le"), dtype="<u4")
    del body, keys
    # characters weighted by their words' counts, a slice of words at a time (bounded temporaries)
    counts = np.zeros(0x110000, dtype=np.float64)
    step = 1 << 20
    for a in range(0, len(freqs), step):
        b = min(len(freqs), a + step)
        part = cps[starts[a]:starts[b]]
        counts += np.bincount(part, weights=np.repeat(freqs[a:b], lengths[a:b]).astype(np.float64),
                              minlength=0x110000)
    present = np.flatnonzero(counts)
    char_counts = {chr(int(u)): int(counts[u]) for u in present}
    del counts
    alphabet = choose_alphabet(char_counts, options)
    table = np.full(0x110000, -1, dtype=np.int32)
    for i, c in enumerate(alphabet):
        table[ord(c)] = i
    symbols = table[cps]
    del cps, table
    if (symbols < 0).any():
        # cut words at the characters left out: a new word starts at every word start and after
        # every left-out character; the left-out characters go
        new_start = np.zeros(len(symbols), dtype=bool)
        new_start[starts[:-1]] = True
        new_start[1:] |= symbols[:-1] < 0
        keep = symbols >= 0
        word_of = np.repeat(np.arange(len(freqs)), lengths)[keep]
        segment = np.cumsum(new_start)[keep]
        symbols = symbols[keep]
        if len(symbols):
            first = np.concatenate(([True], segment[1:] != segment[:-1]))
            word_starts = np.flatnonzero(first)
        else:
            word_starts = np.zeros(0, dtype=np.int64)
        offsets = np.append(word_starts, len(symbols)).astype(np.int64)
        freqs = freqs[word_of[word_starts]]
    else:
        offsets = starts
    return alphabet, symbols.astype(np.int32, copy=False), offsets.astype(np.int64), freqs.astype(np.int64)


def _char_properties(alphabet: list[str]) -> tuple[list[int], list[int]]:
    """Per character: its script class (-1: joins any) and whether it is a digit."""
    classes: dict[str, int] = {}
    char_class = []
    for c in alphabet:
        script = "Any" if c == SPACE else ("Space" if c.isspace() else fixed_script(c))
        char_class.append(-1 if script == "Any" else classes.setdefault(script, len(classes)))
    return char_class, [int(is_numeric(c)) for c in alphabet]


def _make_lattice(native: bool | None, **kw):
    module = None
    if native is not False:
        try:
            from .. import _unigramtrain as module
        except ImportError:
            if native:
                raise TokvizError(QT_TRANSLATE_NOOP("train", "the C Unigram trainer (tokviz._unigramtrain) is not "
                                                             "built")) from None
    if module is None:
        return ReferenceLattice(**kw)
    import numpy as np

    return module.Lattice(
        np.ascontiguousarray(kw["symbols"], dtype=np.int32).tobytes(),
        np.ascontiguousarray(kw["word_offsets"], dtype=np.int64).tobytes(),
        np.ascontiguousarray(kw["word_freqs"], dtype=np.int64).tobytes(),
        kw["n_chars"],
        np.asarray(kw["char_class"], dtype=np.int32).tobytes(),
        np.asarray(kw["char_digit"], dtype=np.uint8).tobytes(),
        kw["space_symbol"], kw["max_piece_length"], kw["seed_size"], kw["min_count"],
        bool(kw["split_digits"]), kw["threads"],
    )


# ---- steps 3-5: the rounds ----------------------------------------------------------------

class RoundEvent(NamedTuple):
    """What `run_rounds`' observe sees after each step.  With a ReferenceLattice, its `last_*`
    methods tell the step's details (expected counts, losses, the pieces removed)."""

    kind: str                 # "seed", "em" or "prune"
    round: int                # the pruning round the step belongs to (1-based; 0 for the seeds)
    iteration: int            # the EM step within the round (1-based; 0 for seeds and pruning)
    n: int                    # pieces after the step
    objective: float | None   # EM: the objective of the step
    desired: int              # EM and pruning stop at this many pieces or fewer
    lattice: object           # the lattice after the step (ReferenceLattice or _unigramtrain.Lattice)
    alphabet: list[str]       # symbol id -> character


def run_rounds(lattice, alphabet: list[str], budget: int, *, em_iterations: int, shrinking_factor: float,
               report=None, cancel: CancelCheck | None = None,
               observe: Callable[[RoundEvent], None] | None = None) -> int:
    """Seed `lattice`, then EM steps and pruning rounds until it holds at most 1.1 x `budget`
    pieces (never fewer than the alphabet): the training loop of `train_unigram`.  Returns the
    number of pieces left.  `report`: a _Reporter; `observe(event)` after every step."""
    report = report if isinstance(report, _Reporter) else _Reporter(report)
    check_cancel(cancel)
    report(0.32, QT_TRANSLATE_NOOP("train", "finding seed pieces"))
    n = lattice.make_seeds()
    desired = max(len(alphabet), int(budget * DESIRED_MARGIN))

    def step(kind: str, round_: int, iteration: int, objective: float | None = None) -> None:
        if observe is not None:
            observe(RoundEvent(kind, round_, iteration, n, objective, desired, lattice, alphabet))

    report(0.4, Message(QT_TRANSLATE_NOOP("train", "{n} seed pieces"), n=n))
    step("seed", 0, 0)
    em_report = report.part(0.4, 0.98)
    done_rounds = 0
    while True:
        for k in range(em_iterations):
            check_cancel(cancel)
            objective, n = lattice.em_step()
            # rounds left are estimated again as pieces go (the first EM steps drop many)
            at = done_rounds + (k + 1) / (em_iterations + 1)
            em_report(at / (done_rounds + _rounds(n, desired, shrinking_factor)),
                      Message(QT_TRANSLATE_NOOP("train", "EM round {round}, step {step}: {n} pieces, objective "
                                                         "{objective:.4g}"),
                              round=done_rounds + 1, step=k + 1, n=n, objective=objective))
            step("em", done_rounds + 1, k + 1, objective)
        if n <= desired:
            return n
        check_cancel(cancel)
        n = lattice.prune(max(desired, int(n * shrinking_factor)))
        done_rounds += 1
        em_report(done_rounds / (done_rounds + _rounds(n, desired, shrinking_factor)),
                  Message(QT_TRANSLATE_NOOP("train", "pruned to {n} pieces"), n=n))
        step("prune", done_rounds, 0)


# ---- step 6: the vocabulary and the tokenizer ----------------------------------------------

def _fixed_pieces(options: TrainOptions) -> tuple[list[tuple[str, str]], int]:
    """(piece, kind) of everything before the learned pieces, and the unknown token's id.
    kind: "special", "user" or "byte"."""
    specials = list(options.special_tokens)
    unk = next((s for s in specials if "unk" in s.lower()), None)
    if unk is None:
        if UNK in options.user_defined_symbols:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "{unk} is a user-defined symbol; list it among the "
                                                             "special tokens instead"), unk=UNK))
        specials.insert(0, UNK)
        unk = UNK
    fixed = [(s, "special") for s in specials]
    fixed += [(s, "special") for s in options.reserved_names()]
    fixed += [(s, "user") for s in options.user_defined_symbols]
    if options.byte_fallback:
        taken = {p for p, _ in fixed}
        fixed += [(f"<0x{b:02X}>", "byte") for b in range(256) if f"<0x{b:02X}>" not in taken]
    return fixed, specials.index(unk)


def _final_pieces(pieces, alphabet: list[str], budget: int) -> list[tuple[str, float]]:
    """All characters, then the best-scoring pieces, up to `budget`; ordered by score (ties by
    piece).  Characters that never got a score of their own keep the one EM gave them."""
    chars = [(alphabet[s[0]], score) for s, score in pieces if len(s) == 1]
    multi = sorted(
        (("".join(alphabet[c] for c in s), score) for s, score in pieces if len(s) > 1),
        key=lambda ps: (-ps[1], ps[0]),
    )
    chosen = chars + multi[: max(0, budget - len(chars))]
    chosen.sort(key=lambda ps: (-ps[1], ps[0]))
    return chosen


def build_tokenizer(fixed: list[tuple[str, str]], unk_id: int, learned: list[tuple[str, float]],
                    options: TrainOptions) -> Tokenizer:
    """The trained tokenizer: NFKC (+ collapsing) -> Metaspace -> Unigram, the fixed pieces as
    added tokens (special tokens and reserved tokens special, user-defined symbols not)."""
    pieces = [(p, 0.0) for p, _ in fixed] + list(learned)
    seen = {p for p, _ in pieces}
    if len(seen) != len(pieces):
        clash = sorted({p for p, _ in fixed} & {p for p, _ in learned})
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "a learned piece equals a fixed token: {tokens}"),
                                  tokens=", ".join(clash)))
    padding = options.padding_names(len(pieces))
    pieces += [(p, 0.0) for p in padding]
    added = [
        AddedToken(p, i, special=kind == "special", normalized=kind == "user")
        for i, (p, kind) in enumerate(fixed)
        if kind != "byte"
    ]
    first_pad = len(pieces) - len(padding)
    added += [AddedToken(p, first_pad + k, special=True) for k, p in enumerate(padding)]
    model = Unigram(pieces, unk_id=unk_id, byte_fallback=options.byte_fallback)
    pre_tokenizer: pre.PreTokenizer = pre.Metaspace(SPACE, "always", True)
    if options.split_digits:
        pre_tokenizer = pre.Sequence([pre_tokenizer, pre.Digits(individual_digits=True)])
    decoder: dec.Decoder = dec.Metaspace(SPACE, "always")
    if options.byte_fallback:
        decoder = dec.Sequence([dec.ByteFallback(), decoder])
    return Tokenizer(
        model,
        normalizer=text_normalizer(options),
        pre_tokenizer=pre_tokenizer,
        decoder=decoder,
        added_tokens=added,
        special_in_text=True,
        space_marker=SPACE,
        source=Source("trained", None, "unigram", {"trainer": "unigram"}),
    )
