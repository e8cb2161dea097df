"""The BPE training core shared by the BPE and WordPiece trainers: count pre-tokenized pieces,
then learn merges over words written as sequences of symbol ids.

    >>> pieces, counts = count_pieces(["low lower lowest"], "gpt2")
    >>> pieces, counts
    ([b'low', b' lower', b' lowest'], [1, 1, 1])
    >>> learn_merges(pieces, counts, 256, 3)               # the bytes are symbols 0-255
    [Merge(left=108, right=111, merged=256, count=3), Merge(left=256, right=119, merged=257, count=3),
     Merge(left=32, right=257, merged=258, count=2)]

('l' + 'o' -> 256, 256 + 'w' -> 257 "low", ' ' + 257 -> 258 " low".)

Both steps run in C (tokviz._bpetrain) when it is built, else in the pure-Python reference below,
which defines the results: the C code must give exactly the same ones.

Counting (`count_pieces`, `count_corpus`): each distinct piece's UTF-8 bytes and how often it
occurs, in order of first appearance in the corpus.  The C path splits the text over threads with
the GIL released; memory grows with the number of distinct pieces, not with the corpus (files are
streamed with `read_corpus`).  Texts are cut into chunks only where the cut cannot change the
pieces of the named patterns (between a non-space character and a space), so the counts of a file
and of the same text given as one str are the same.

Merge learning (`learn_merges`): repeatedly merge the best adjacent pair of symbols into one
symbol.  Pair counts are kept up to date after each merge by visiting only the words that hold the
merged pair; a priority queue with lazy invalidation finds the next best pair.

- score "count" (BPE): the pair's number of occurrences (summed over words, weighted by the
  word's count; overlapping occurrences such as a-a in "aaa" each count);
- score "wordpiece": count(ab) / (count(a) * count(b)), the symbol counts weighted the same way
  and kept up to date; compared exactly (integers, no floating point).

Ties on the score are broken by `tie_break`:

- "first-seen": the pair that appeared first: pairs are numbered when first seen, the initial ones
  in corpus order (word order of first appearance, then position in the word), those created by a
  merge after all existing ones, in the order the merge creates them (words in corpus order,
  positions left to right).  So with 潮 x6 and 长 x6 in one line, 潮潮 is merged before 长长.
- "hf" (HF tokenizers' BpeTrainer): the pair whose (rank of left, rank of right) is smallest, a
  symbol's rank being its id in the trained vocabulary: `ranks[s]` for the initial symbols, the
  symbol id itself for those merges make (they come after, in the order made).
- "minbpe" (Karpathy's minbpe, which recounts the pairs in text order before each merge and takes
  the first of the most frequent): the pair whose first occurrence in the corpus as it stands is
  earliest (word order of first appearance, then position in the word).  Pure Python only: a
  learn_merges with it runs the reference below.
"""
from __future__ import annotations

import heapq
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import NamedTuple

from ..core.patterns import NAMED_PATTERNS, compile_pattern, same_in_both_dialects

try:
    from ..errors import Cancelled  # what long work raises when cancelled (trainers, file encoding)
except ImportError:
    from ..core.streaming import Cancelled
from .options import CancelCheck, read_corpus

try:
    from .. import _bpetrain as _native
except ImportError as exc:  # not built: the Python reference does the work
    _native = None
    native_reason = f"tokviz._bpetrain is not importable: {exc}"
else:
    native_reason = ""

if _native is not None and os.environ.get("TOKVIZ_PURE_PYTHON", "") not in ("", "0"):
    _native = None
    native_reason = "disabled by TOKVIZ_PURE_PYTHON"

MODES = {"count": 0, "wordpiece": 1}
TIE_BREAKS = ("first-seen", "hf", "minbpe")

#: progress(fraction of the merges done, merges made so far, (left, right), count of that merge)
MergeProgress = Callable[[float, int, tuple[int, int], int], None]

CHUNK_CHARS = 1 << 18  # texts are counted in chunks of about this many characters
# Places where every supported pattern ends a piece whatever comes before or after them: after a
# non-space character followed by a space (no alternative matches such a pair; the next piece
# starts at the space), and after a newline between a non-space character and one that is
# neither white space nor "/" (which o200k lets follow newlines in a piece).
SAFE_CUT = re.compile(r"\S(?= )|\S\n(?=[^\s/])")


class Merge(NamedTuple):
    """One learned merge: symbols `left` + `right` became symbol `merged`, which occurred `count`
    times (its score's numerator) when the merge was made."""

    left: int
    right: int
    merged: int
    count: int


class MergeState:
    """What learn_merges' `observe` sees before a merge (and once more when it stops, `pair` None).
    The corpus and counts are the trainer's own, live: valid during the call only, not to be changed."""

    def __init__(self, words, counts, symbol_counts, pair, count, tied, merged, new, changed, rank, most_frequent):
        self.words: list[list[int]] = words           # each distinct word as its symbols now
        self.counts: list[int] = counts               # how often each word occurs
        self.symbol_counts = symbol_counts            # occurrences of each symbol (WordPiece's denominators)
        self.pair: tuple[int, int] | None = pair      # the pair about to be merged; None: training stops here
        self.count: int = count                       # its count (overlapping occurrences each count)
        self.tied: list[tuple[int, int]] = tied       # the other pairs of the same score, in the tie rule's order
        self.merged: int | None = merged              # the symbol the merge makes (an existing one if spelled alike)
        self.new: bool = new                          # whether `merged` is a new symbol
        self.changed: list[int] = changed             # the words that hold `pair` (some may no longer: skip those)
        self._rank = rank
        self._most_frequent = most_frequent

    def most_frequent(self) -> tuple[tuple[int, int], int] | None:
        """(the pair of the highest count (ties: the tie rule's first), what BPE would merge; its count)."""
        return self._most_frequent()

    def pair_counts(self, limit: int | None = None) -> tuple[list[tuple[int, int, int]], int]:
        """((left, right, count) of the pairs that may be merged, best first by score then tie rule,
        at most `limit` of them; how many there are in all)."""
        return self._rank(limit)


def native_available() -> bool:
    """True when the C core (tokviz._bpetrain) is in use."""
    return _native is not None


def cancelled_error(what: str = "training cancelled") -> Cancelled:
    """The Cancelled exception a trainer raises when its cancel check says stop."""
    try:
        return Cancelled(what)
    except TypeError:  # an older streaming.Cancelled(bytes_done, total_bytes): no bytes to report here
        return Cancelled(0, 0)


def raise_if_cancelled(cancel: CancelCheck | None) -> None:
    """Raise Cancelled (built by `cancelled_error`) when cancel() says stop."""
    if cancel is not None and cancel():
        raise cancelled_error()


def _use_native(use_native: bool | None) -> bool:
    if use_native and _native is None:
        raise RuntimeError(native_reason)
    return _native is not None if use_native is None else use_native


def default_threads() -> int:
    return max(1, min(os.cpu_count() or 1, 64))


# ---- counting pieces ---------------------------------------------------------------------------------


def _scanner_ids() -> dict[str, int]:
    """The patterns the C core has a hand-written scanner for (as tokviz.native's encoder)."""
    if _native is None:
        return {}
    from ..core import patterns as P

    return {
        P.GPT2_PATTERN: _native.PAT_GPT2,
        P.R50K_PATTERN: _native.PAT_GPT2,  # the possessive spelling cuts the same pieces
        P.CL100K_PATTERN: _native.PAT_CL100K,
        P.O200K_PATTERN: _native.PAT_O200K,
        P.LLAMA3_PATTERN: _native.PAT_LLAMA3,
        P.QWEN2_PATTERN: _native.PAT_QWEN2,
    }


SCANNER_IDS = _scanner_ids()


def resolve_pattern(pattern: str | None) -> tuple[str | None, int | None]:
    """(regex, C scanner id or None) for a pattern name ("gpt2", "cl100k", "o200k", "llama3",
    "qwen2"), a regex, or None (each text is one piece: scanner 0)."""
    if pattern is None:
        return None, 0
    regex = NAMED_PATTERNS.get(pattern, pattern)
    return regex, SCANNER_IDS.get(regex)


def cut_text(text: str, size: int = CHUNK_CHARS) -> Iterator[str]:
    """`text` in pieces of about `size` characters (longer when no place to cut is near), cut only
    where every pattern of tokviz.core.patterns ends a piece (see SAFE_CUT), so that the pieces
    are those of the whole text (for a custom regex: most likely)."""
    start, n = 0, len(text)
    while n - start > size + size // 2:
        m = SAFE_CUT.search(text, start + size, start + size + size // 2 + 1)  # (+1: the lookahead's)
        if m is None:
            m = SAFE_CUT.search(text, start + size + size // 2)
            if m is None:
                break
        yield text[start:m.end()]
        start = m.end()
    if start < n:
        yield text[start:]


def _last_safe_cut(text: str, within: int) -> int:
    """The last place among the final `within` characters where `cut_text` may cut, or -1."""
    n = len(text)
    span = 256
    while True:
        start = max(0, n - min(span, within))
        m = None
        for m in SAFE_CUT.finditer(text, start):
            pass
        if m is not None:
            return m.end()
        if span >= within or start == 0:
            return -1
        span *= 8


def rechunk(blocks: Iterable[str], size: int = CHUNK_CHARS) -> Iterator[str]:
    """The text of `blocks` (e.g. read_corpus's) re-cut by `cut_text` rules across block ends."""
    carry = ""
    for block in blocks:
        text = carry + block if carry else block
        carry = ""
        last = None
        for chunk in cut_text(text, size):
            if last is not None:
                yield last
            last = chunk
        if last is not None:
            cut = _last_safe_cut(last, size // 4)
            if 0 < cut < len(last):
                yield last[:cut]
                carry = last[cut:]
            else:
                carry = last
            if len(carry) > 4 * size:  # no safe place for long: give it up as it is
                yield carry
                carry = ""
    if carry:
        yield carry


_NUMBER = None


def _number_splitter():
    global _NUMBER
    if _NUMBER is None:
        import regex

        _NUMBER = regex.compile(r"(\p{N})")
    return _NUMBER


def _lines(text: str) -> list[str]:
    """`text` cut after each "\n" (only: not str.splitlines' other line ends)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return [line for line in lines if line]


def _pieces_python(text: str, compiled, split_digits: bool, split_lines: bool = False) -> Iterator[str]:
    if split_lines:
        for line in _lines(text):
            yield from _pieces_python(line, compiled, split_digits)
        return
    pieces = (m.group() for m in compiled.finditer(text)) if compiled is not None else (text,)
    if not split_digits:
        yield from pieces
        return
    number = _number_splitter()
    for piece in pieces:
        for part in number.split(piece):
            if part:
                yield part


class PieceCounts:
    """Counts pieces fed to it text by text; `result()` gives them in order of first appearance.

    On the C path the texts of each `add` are shared out among `threads` threads (the GIL
    released); on the Python path a Counter (insertion-ordered) does the same."""

    def __init__(self, pattern: str | None = "gpt2", *, split_digits: bool = False, split_lines: bool = False,
                 threads: int | None = None, use_native: bool | None = None, dialect: str = "onig"):
        self.regex, scanner = resolve_pattern(pattern)
        if pattern in NAMED_PATTERNS:
            dialect = "rust"  # the named patterns are tiktoken's spellings (core/patterns.py)
        elif scanner and dialect == "onig" and not same_in_both_dialects(self.regex):
            scanner = None  # Oniguruma reads this spelling otherwise than the scanner: the regex module cuts it
        self.split_digits = split_digits
        self.split_lines = split_lines
        self.threads = threads or default_threads()
        self.native = _use_native(use_native)
        self.chars = 0
        if self.native:
            # a pattern without a C scanner is cut by the regex module, the pieces counted in C
            self._compiled = compile_pattern(self.regex, dialect) if scanner is None else None
            self._counter = _native.PieceCounter(_native.PAT_NONE if scanner is None else scanner, split_digits,
                                                 split_lines)
        else:
            self._compiled = compile_pattern(self.regex, dialect) if self.regex is not None else None
            self._counter: Counter = Counter()

    def add(self, texts: Sequence[str]) -> None:
        """Count the pieces of each text (no piece spans two texts)."""
        self.chars += sum(map(len, texts))
        if not self.native:
            for text in texts:
                self._counter.update(
                    p.encode("utf-8") for p in _pieces_python(text, self._compiled, self.split_digits, self.split_lines)
                )
            return
        if self._compiled is not None:  # (each piece is a text of its own, lines already apart)
            for text in texts:
                lines = _lines(text) if self.split_lines else (text,)
                self._counter.add([m.group() for line in lines for m in self._compiled.finditer(line)], self.threads)
            return
        self._counter.add(list(texts), self.threads)

    def result(self) -> tuple[list[bytes], list[int]]:
        """(pieces as UTF-8 bytes, counts) in order of first appearance; the counter is emptied."""
        if self.native:
            return self._counter.result()
        pieces, counts = list(self._counter), list(self._counter.values())
        self._counter = Counter()
        return pieces, counts


def count_pieces(
    texts: Iterable[str],
    pattern: str | None = "gpt2",
    *,
    split_digits: bool = False,
    split_lines: bool = False,
    threads: int | None = None,
    cancel: CancelCheck | None = None,
    use_native: bool | None = None,
    dialect: str = "onig",
) -> tuple[list[bytes], list[int]]:
    """(distinct pieces as UTF-8 bytes, their counts), in order of first appearance.

    `pattern`: a name of tokviz.core.patterns.NAMED_PATTERNS, a regex (HF/Rust semantics; the
    known ones run on C scanners, others are cut by the `regex` module), or None (each text is
    one piece: for pieces already cut by the caller); `dialect`: how the `regex` module reads a
    pattern without a C scanner (tokviz.core.patterns.compile_pattern).  `split_digits`: each digit its own piece.
    `split_lines`: each line (up to and with its "\n") cut into pieces on its own, as HF's trainer
    does reading files.  Long texts are cut (see `cut_text`); pieces never span two texts."""
    return count_corpus(texts, pattern, split_digits=split_digits, split_lines=split_lines, threads=threads,
                        cancel=cancel, use_native=use_native, files=False, dialect=dialect)


def _size_or_zero(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _is_file(item) -> bool:
    if isinstance(item, os.PathLike):
        return True
    return isinstance(item, str) and 0 < len(item) < 4096 and "\n" not in item and os.path.isfile(item)


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _corpus_chunks(corpus: Iterable, files: bool | None, chunk: int) -> Iterator[tuple[str, int]]:
    """(chunk of text, UTF-8 bytes of the corpus read so far) for files and texts alike."""
    bytes_done = 0
    for item in corpus:
        if (files is None and _is_file(item)) or files:
            for text in rechunk(read_corpus([item], chunk_chars=chunk), chunk):
                bytes_done += _utf8_len(text)
                yield text, bytes_done
        else:
            if not isinstance(item, str):
                raise TypeError(f"a corpus item must be a str or a path, got {type(item).__name__}")
            for text in cut_text(item, chunk):
                bytes_done += _utf8_len(text)
                yield text, bytes_done


def count_corpus(
    corpus: Iterable,
    pattern: str | None = "gpt2",
    *,
    split_digits: bool = False,
    split_lines: bool = False,
    threads: int | None = None,
    progress: Callable[[float], None] | None = None,
    cancel: CancelCheck | None = None,
    use_native: bool | None = None,
    files: bool | None = None,
    chunk_chars: int = CHUNK_CHARS,
    dialect: str = "onig",
    normalize: Callable[[str], str] | None = None,
    min_count: int = 1,
) -> tuple[list[bytes], list[int]]:
    """`count_pieces` over a corpus of files and texts: an os.PathLike item, or a str naming an
    existing file (one line, no newline), is a file, streamed; any other str is text.
    (files=True / False: every item is a file / a text; a generator of texts is read once, in
    bounded memory.)  progress(fraction of the corpus counted; known when `corpus` is a list or
    tuple, else only 1.0 at the end) after each batch of chunks; cancel() is checked as often.
    `normalize`: applied to each chunk before it is cut into pieces (chunks end where `cut_text`
    cuts, so it must give the same text cut there or not: e.g. a BERT normalizer).  `min_count`:
    pieces counted fewer times are left out (`prune_counts`)."""
    counter = PieceCounts(pattern, split_digits=split_digits, split_lines=split_lines, threads=threads,
                          use_native=use_native, dialect=dialect)
    total = 0  # UTF-8 bytes of the corpus, when it is a list that can be looked at twice
    if isinstance(corpus, (list, tuple)):
        for item in corpus:
            if (files is None and _is_file(item)) or files:
                total += _size_or_zero(item)  # (a file that cannot be read: read_corpus says why)
            elif isinstance(item, str):
                total += _utf8_len(item)
    batch: list[str] = []
    batch_chars = 0
    limit = chunk_chars * max(2, 4 * counter.threads)
    # On the C path a batch is counted on a helper thread (the GIL released) while this one reads
    # and cuts the next: at most two batches in memory.
    pool = ThreadPoolExecutor(1, thread_name_prefix="tokviz-count") if counter.native else None
    pending = None
    try:
        for text, done in _corpus_chunks(corpus, files, chunk_chars):
            if normalize is not None:
                text = normalize(text)
            batch.append(text)
            batch_chars += len(text)
            if batch_chars < limit:
                continue
            if pending is not None:
                pending.result()
            if pool is not None:
                pending = pool.submit(counter.add, batch)
            else:
                counter.add(batch)
            batch, batch_chars = [], 0
            raise_if_cancelled(cancel)
            if progress is not None and total:
                progress(min(1.0, done / total))
        if pending is not None:
            pending.result()
            pending = None
        if batch:
            counter.add(batch)
            raise_if_cancelled(cancel)
    finally:
        if pool is not None:
            if pending is not None:
                pending.cancel()
            pool.shutdown(wait=True)
    if progress is not None:
        progress(1.0)
    return prune_counts(*counter.result(), min_count)


def prune_counts(pieces: list, counts: list[int], min_count: int) -> tuple[list, list[int]]:
    """The pieces counted `min_count` times or more, and their counts, in the same order."""
    if min_count <= 1:
        return pieces, counts
    kept = [i for i, n in enumerate(counts) if n >= min_count]
    return [pieces[i] for i in kept], [counts[i] for i in kept]


# ---- learning merges ---------------------------------------------------------------------------------


def learn_merges(
    words: Sequence,
    counts: Sequence[int],
    n_symbols: int,
    max_new_symbols: int,
    *,
    mode: str = "count",
    min_frequency: int = 0,
    max_token_length: int | None = None,
    lengths: Sequence[int] | None = None,
    symbol_bytes: Sequence[bytes] | None = None,
    progress: MergeProgress | None = None,
    progress_every: int = 100,
    cancel: CancelCheck | None = None,
    progress_spelled: bool = False,
    use_native: bool | None = None,
    tie_break: str = "first-seen",
    ranks: Sequence[int] | None = None,
    observe: Callable[[MergeState], None] | None = None,
) -> list[Merge]:
    """Merges learned over `words` (each a bytes object, whose bytes are the symbols, or a sequence
    of int symbol ids in [0, n_symbols)) occurring `counts` times.

    Stops after `max_new_symbols` new symbols, or when no pair can be merged: pairs counted fewer
    than `min_frequency` times are never merged (in "count" mode training then ends), nor pairs
    whose merged length (symbol lengths from `lengths`, 1 each by default) would exceed
    `max_token_length`.  A merge makes symbol n_symbols, n_symbols + 1, ...; with `symbol_bytes`
    (each symbol's spelling) a merge whose spelling is already a symbol's gives that symbol instead
    (as HF's trainer does) and does not count as new.  progress(...) every `progress_every` merges
    and after the last; cancel() as often (True: raise Cancelled).  ValueError for symbols out of
    range, negative counts, mismatched lengths, or more symbols x counts in all than the counts can
    hold (2**62; 2**42 in "wordpiece" mode, whose scores are compared exactly in 128 bits).
    `tie_break` and `ranks` (one per symbol, a permutation of range(n_symbols); default: the
    symbol ids): see the module doc.  `observe(state)`: a MergeState before each merge and once at
    the end (state.pair None), for stepping through training (tokviz.train.learn); it runs the
    reference, as the C core keeps no tables to show."""
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, got {tie_break!r}")
    if ranks is not None and sorted(ranks) != list(range(n_symbols)):
        raise ValueError("ranks must be a permutation of range(n_symbols)")
    if tie_break == "hf" and ranks is None:
        ranks = range(n_symbols)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if max_token_length is not None and max_token_length < 1:
        raise ValueError(f"max_token_length must be at least 1, got {max_token_length}")
    progress_every = max(1, int(progress_every))
    if tie_break != "minbpe" and observe is None and _use_native(use_native):
        raw = _native.learn_merges(
            words, counts, n_symbols, max_new_symbols, MODES[mode], min_frequency, max_token_length or 0,
            lengths, symbol_bytes, progress, progress_every, cancel, progress_spelled,
            list(ranks) if tie_break == "hf" else None,
        )
        return [Merge(*m) for m in raw]
    return learn_merges_reference(
        words, counts, n_symbols, max_new_symbols, mode=mode, min_frequency=min_frequency,
        max_token_length=max_token_length, lengths=lengths, symbol_bytes=symbol_bytes, progress=progress,
        progress_every=progress_every, cancel=cancel, progress_spelled=progress_spelled, tie_break=tie_break,
        ranks=ranks, observe=observe,
    )


def _validate(words, counts, n_symbols, max_new_symbols, lengths, symbol_bytes) -> list[list[int]]:
    if len(words) != len(counts):
        raise ValueError("words and counts differ in length")
    if n_symbols < 0 or max_new_symbols < 0 or n_symbols + max_new_symbols >= 2**30:
        raise ValueError("n_symbols and max_new_symbols must be >= 0 and their sum < 2**30")
    if lengths is not None and len(lengths) != n_symbols:
        raise ValueError("lengths must give one length per symbol")
    if lengths is not None and any(not 0 <= x <= 2**40 for x in lengths):
        raise ValueError("symbol lengths must be in [0, 2**40]")
    if symbol_bytes is not None:
        if len(symbol_bytes) != n_symbols:
            raise ValueError("symbol_bytes must give one spelling per symbol")
        if any(not isinstance(b, bytes) or not b for b in symbol_bytes):
            raise ValueError("each of symbol_bytes must be non-empty bytes")
    symbols = []
    for wi, (word, count) in enumerate(zip(words, counts)):
        if not 0 <= count <= 2**46:
            raise ValueError(f"word {wi}: count {count} out of range [0, 2**46]")
        syms = list(word)
        for s in syms:
            if not 0 <= s < n_symbols:
                raise ValueError(f"word {wi}: symbol id {s} out of range [0, {n_symbols})")
        symbols.append(syms)
    return symbols


def _check_total(symbols, counts, mode) -> None:
    total = sum(len(s) * c for s, c in zip(symbols, counts))
    limit = 42 if mode == "wordpiece" else 62
    if total >= 2**limit:
        raise ValueError(f"the words hold too many symbols counted with their counts (2**{limit} at most in this mode)")


def learn_merges_reference(
    words, counts, n_symbols, max_new_symbols, *, mode="count", min_frequency=0, max_token_length=None,
    lengths=None, symbol_bytes=None, progress=None, progress_every=100, cancel=None, progress_spelled=False,
    tie_break="first-seen", ranks=None, observe=None,
) -> list[Merge]:
    """The readable definition of `learn_merges` (same arguments), in pure Python."""
    symbols = _validate(words, counts, n_symbols, max_new_symbols, lengths, symbol_bytes)
    rank = list(ranks) if ranks is not None else list(range(n_symbols))
    _check_total(symbols, counts, mode)
    freqs = list(counts)
    length = list(lengths) if lengths is not None else [1] * n_symbols
    spelling = list(symbol_bytes) if symbol_bytes is not None else None
    spelled: dict[bytes, int] = {}
    for i, b in enumerate(spelling or ()):
        spelled.setdefault(b, i)

    def shown(pair):
        return (spelling[pair[0]], spelling[pair[1]]) if progress_spelled and spelling is not None else pair

    def allowed(pair) -> bool:
        return max_token_length is None or length[pair[0]] + length[pair[1]] <= max_token_length

    pair_count: Counter = Counter()
    first_seen: dict[tuple[int, int], int] = {}  # the tie-break: pairs numbered when first seen
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    symbol_count: Counter = Counter()
    for wi, syms in enumerate(symbols):
        for pair in zip(syms, syms[1:]):
            first_seen.setdefault(pair, len(first_seen))
            pair_count[pair] += freqs[wi]
            if allowed(pair):
                where[pair].add(wi)
        for s in syms:
            symbol_count[s] += freqs[wi]

    def tie(pair):
        """Smaller first among pairs of equal score (minbpe's order is looked at when popping)."""
        if tie_break == "hf":
            return (rank[pair[0]] if pair[0] < n_symbols else pair[0], rank[pair[1]] if pair[1] < n_symbols else pair[1])
        return first_seen[pair]

    def first_occurrence(pair):
        """(word, position) of the first place `pair` stands in the corpus now."""
        for wi in sorted(where.get(pair, ())):
            syms = symbols[wi]
            for k in range(len(syms) - 1):
                if syms[k] == pair[0] and syms[k + 1] == pair[1]:
                    return wi, k
        return len(symbols), 0

    heap = [(-c, tie(p), p) for p, c in pair_count.items() if c > 0 and allowed(p)]
    heapq.heapify(heap)

    def best_by_count():
        while heap:
            neg, _, pair = heapq.heappop(heap)
            count = pair_count.get(pair, 0)
            if count != -neg:
                if count > 0:
                    heapq.heappush(heap, (-count, tie(pair), pair))
                continue
            if count < min_frequency:
                return None
            if tie_break == "minbpe":
                pair = _first_in_corpus(pair, count)
            return pair
        return None

    def _first_in_corpus(pair, count):
        """Of the current pairs counted `count` times (`pair` and the others in the heap), the one
        that occurs first in the corpus; the others go back in the heap."""
        tied = [pair]
        while heap and -heap[0][0] == count:
            _, _, other = heapq.heappop(heap)
            if pair_count.get(other, 0) == count and other not in tied:
                tied.append(other)
            elif pair_count.get(other, 0) > 0 and pair_count.get(other, 0) != count:
                heapq.heappush(heap, (-pair_count[other], tie(other), other))
        best = min(tied, key=first_occurrence)
        for other in tied:
            if other != best:
                heapq.heappush(heap, (-count, tie(other), other))
        return best

    def best_by_wordpiece_score():
        best, best_key = None, None
        for pair, count in pair_count.items():
            if count <= 0 or count < min_frequency or not allowed(pair):
                continue
            order = tie(pair) if tie_break != "minbpe" else first_occurrence(pair)
            key = (Fraction(count, symbol_count[pair[0]] * symbol_count[pair[1]]), tuple(-x for x in _as_tuple(order)))
            if best_key is None or key > best_key:
                best, best_key = pair, key
        return best

    merges: list[Merge] = []
    n_new = 0
    next_id = n_symbols
    def sort_key(pair, count) -> float:
        """Best first: the score negated (a float: equal fractions give equal floats)."""
        return -count if mode == "count" else -count / (symbol_count[pair[0]] * symbol_count[pair[1]])

    def rule_order(pair):
        return _as_tuple(first_occurrence(pair) if tie_break == "minbpe" else tie(pair))

    def ranked(limit):
        live = [(sort_key(p, c), p, c) for p, c in pair_count.items() if allowed(p)]
        total = len(live)
        if limit is not None and total > limit:
            worst = heapq.nsmallest(limit, live)[-1][0]
            live = [item for item in live if item[0] <= worst]
        live.sort(key=lambda item: (item[0], rule_order(item[1])))
        return [(a, b, c) for _, (a, b), c in live[:limit]], total

    def state(pair, merged, new) -> MergeState:
        tied = []
        if pair is not None:
            count = pair_count[pair]
            if mode == "count":
                tied = [p for p, c in pair_count.items() if c == count and p != pair and allowed(p)]
            else:  # count(p) / (a(p) b(p)) == count / (a b), in integers
                sa, sb = symbol_count[pair[0]], symbol_count[pair[1]]
                tied = [p for p, c in pair_count.items() if p != pair and allowed(p)
                        and c * sa * sb == count * symbol_count[p[0]] * symbol_count[p[1]]]
            tied.sort(key=rule_order)
        changed = sorted(where.get(pair, ())) if pair is not None else []
        return MergeState(symbols, freqs, symbol_count, pair, pair_count[pair] if pair else 0, tied, merged, new,
                          changed, ranked, most_frequent)

    def most_frequent():
        live = [(c, p) for p, c in pair_count.items() if allowed(p)]
        if not live:
            return None
        top = max(c for c, _ in live)
        return min((p for c, p in live if c == top), key=rule_order), top

    while True:
        pair = None
        if n_new < max_new_symbols:
            pair = best_by_count() if mode == "count" else best_by_wordpiece_score()
        if pair is None:
            if observe is not None:
                observe(state(None, None, False))
            break
        count = pair_count[pair]
        left, right = pair
        merged = None
        if spelling is not None:
            merged = spelled.get(spelling[left] + spelling[right])
        if observe is not None:
            observe(state(pair, next_id if merged is None else merged, merged is None))
        is_new = merged is None
        if is_new:
            merged = next_id
            next_id += 1
            length.append(length[left] + length[right])
            if spelling is not None:
                spelling.append(spelling[left] + spelling[right])
                spelled[spelling[-1]] = merged
        merges.append(Merge(left, right, merged, count))
        changed: set[tuple[int, int]] = set()
        for wi in sorted(where.pop(pair, ())):
            syms, f = symbols[wi], freqs[wi]
            out: list[int] = []
            made_here: list[bool] = []  # which symbols of `out` this merge made
            i = 0
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == left and syms[i + 1] == right:
                    out.append(merged)
                    made_here.append(True)
                    i += 2
                else:
                    out.append(syms[i])
                    made_here.append(False)
                    i += 1
            sites = made_here.count(True)
            if not sites:
                continue
            for p in zip(syms, syms[1:]):
                pair_count[p] -= f
                changed.add(p)
            for k, p in enumerate(zip(out, out[1:])):
                pair_count[p] += f
                first_seen.setdefault(p, len(first_seen))
                if (made_here[k] or made_here[k + 1]) and allowed(p):
                    where[p].add(wi)
                changed.add(p)
            symbols[wi] = out
            symbol_count[left] -= f * sites
            symbol_count[right] -= f * sites
            symbol_count[merged] += f * sites
        pair_count[pair] = 0
        for p in changed | {pair}:
            c = pair_count.get(p, 0)
            if c <= 0:
                del pair_count[p]  # (a pair that is gone: pair_count holds the pairs that occur)
            elif mode == "count" and allowed(p):
                heapq.heappush(heap, (-c, tie(p), p))
        n_new += is_new
        if len(merges) % progress_every == 0:
            if progress is not None:
                progress(n_new / max_new_symbols if max_new_symbols else 1.0, len(merges), shown(pair), count)
            raise_if_cancelled(cancel)
    if merges and len(merges) % progress_every != 0 and progress is not None:
        m = merges[-1]
        progress(n_new / max_new_symbols if max_new_symbols else 1.0, len(merges), shown((m.left, m.right)), m.count)
    return merges


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)
