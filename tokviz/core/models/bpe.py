"""Byte-pair encoding: start from characters (or bytes), merge the best-ranked adjacent pair
until no pair can merge.

Two ways to rank a pair, one algorithm:
- by an explicit merge list (HF tokenizers, vocab.json + merges.txt, minbpe): rank of (a, b);
- by the rank of the merged token itself (tiktoken): rank of a + b, when no merge list is given.

Ties go to the leftmost pair, as in both reference implementations.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence

from .base import BoundedCache, Model, Token
from .merge_lines import MergeLines, MergePairs

_LONG_WORD = 48  # beyond this many symbols the heap version beats rescanning every pair


class BPE(Model):
    kind = "BPE"

    def __init__(
        self,
        vocab: dict[str, int],
        merges: list[tuple[str, str]] | None,
        *,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        merge_counts: list[int] | None = None,
        merge_lines: list[str] | None = None,
        end_of_word_symbol: str | None = None,
    ):
        """`merges` are (a, b) pairs in rank order; None ranks pairs by the merged token's id
        (tiktoken).  `merge_lines` may be given instead of `merges`: the "a b" strings of a
        tokenizer.json or merges.txt, used as they are (no token in them contains a space), which
        keeps loading a 300k-merge file fast (they are kept as one string: `MergeLines`).
        `end_of_word_symbol` ("</w>"): a symbol of its own after each word's last character, merged
        like any other (Sennrich et al.'s subword units; `end_of_word_suffix` instead glues the
        suffix to the last character, as HF tokenizers)."""
        super().__init__(vocab)
        self._merges = merges
        self.unk_token = unk_token
        self.prefix = continuing_subword_prefix or ""
        self.suffix = end_of_word_suffix or ""
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback
        self.ignore_merges = ignore_merges
        self.merge_counts = merge_counts  # count of each merge at training time, when known
        self.end_symbol = end_of_word_symbol or ""
        self._cache = BoundedCache()
        self._merge_lines = MergeLines(merge_lines) if merge_lines is not None else None
        self._ranks = None  # built on first use (the native encoder reads the merge list itself)
        if merge_lines is not None:
            self._rank_impl = BPE._rank_by_line
        elif merges is not None:
            self._rank_impl = BPE._rank_by_pair
        else:
            self._rank_impl = BPE._rank_by_token

    @property
    def ranks(self) -> dict | None:
        """{merge: rank} (the "a b" line or the (a, b) pair; a merge listed twice has its later
        rank), or None for a tiktoken-style ranking."""
        if self._ranks is None:
            merges = self._merge_lines if self._merge_lines is not None else self._merges
            if merges is not None:
                self._ranks = dict(zip(merges, range(len(merges))))
        return self._ranks

    @property
    def merges(self) -> Sequence[tuple[str, str]] | None:
        """The merges as (a, b) pairs in rank order (None for a tiktoken-style ranking); for a model
        read from merge lines, a sequence that makes each pair as it is read."""
        if self._merges is None and self._merge_lines is not None:
            return MergePairs(self._merge_lines)
        return self._merges

    def merge_lines(self) -> list[str] | None:
        """The "a b" lines the model was read from, as a new list (None when it was given pairs)."""
        return self._merge_lines.to_list() if self._merge_lines is not None else None

    @property
    def merge_count(self) -> int | None:
        """len(merges), without building the pairs (None for a tiktoken-style ranking)."""
        held = self._merges if self._merges is not None else self._merge_lines
        return None if held is None else len(held)

    @property
    def has_merge_list(self) -> bool:
        """Whether pairs are ranked by a merge list (False: tiktoken-style, by the merged token's
        id).  Unlike `merges is not None`, this does not build the list of pairs."""
        return self._merges is not None or self._merge_lines is not None

    # ---- ranking -------------------------------------------------------------------------
    def _merged(self, a: str, b: str) -> str:
        return a + b[len(self.prefix):] if self.prefix else a + b

    @property
    def _rank(self):
        """rank(a, b) for this model's kind of ranking.  (The choice is kept as a plain function:
        a bound method stored on the instance would make a reference cycle, and a dropped
        tokenizer would then wait for the cyclic collector instead of being freed at once.)"""
        return self._rank_impl.__get__(self, BPE)

    def rank_of(self, a: str, b: str) -> int | None:
        """The rank at which a and b merge (by the merge list, or tiktoken-style by the merged
        token's id), or None when they do not."""
        return self._rank_impl(self, a, b)

    def _rank_by_pair(self, a: str, b: str) -> int | None:
        return (self._ranks or self.ranks).get((a, b))

    def _rank_by_line(self, a: str, b: str) -> int | None:
        return (self._ranks or self.ranks).get(a + " " + b)

    def _rank_by_token(self, a: str, b: str) -> int | None:
        return self.vocab.get(a + b)

    # ---- encoding ------------------------------------------------------------------------
    def _initial_symbols(self, word: str) -> tuple[list[str], list[int]]:
        """Symbols of the word before any merge, and how many characters of `word` each covers."""
        vocab = self.vocab
        syms: list[str] = []
        lens: list[int] = []
        unk: list | None = None  # [symbol, chars] of a pending (possibly fused) unknown
        n = len(word)
        for i, c in enumerate(word):
            s = c
            if i and self.prefix:
                s = self.prefix + s
            if i == n - 1 and self.suffix:
                s = s + self.suffix
            if s in vocab:
                if unk is not None:
                    syms.append(unk[0])
                    lens.append(unk[1])
                    unk = None
                syms.append(s)
                lens.append(1)
                continue
            if self.byte_fallback:
                bs = [f"<0x{b:02X}>" for b in s.encode("utf-8")]
                if all(b in vocab for b in bs):
                    # Byte tokens of one character share it: the first carries the character.
                    syms.extend(bs)
                    lens.extend([1] + [0] * (len(bs) - 1))
                    continue
            if self.unk_token is not None:
                if unk is not None and self.fuse_unk:
                    unk[1] += 1
                else:
                    if unk is not None:
                        syms.append(unk[0])
                        lens.append(unk[1])
                    unk = [self.unk_token, 1]
        if unk is not None:
            syms.append(unk[0])
            lens.append(unk[1])
        if self.end_symbol and self.end_symbol in vocab:
            syms.append(self.end_symbol)  # covers no character: it belongs to the last one
            lens.append(0)
        return syms, lens

    def _merge_short(self, syms: list[str], lens: list[int]) -> None:
        rank = self._rank
        while len(syms) > 1:
            best = None
            best_rank = None
            for i in range(len(syms) - 1):
                r = rank(syms[i], syms[i + 1])
                if r is not None and (best_rank is None or r < best_rank):
                    best_rank, best = r, i
            if best is None:
                return
            syms[best : best + 2] = [self._merged(syms[best], syms[best + 1])]
            lens[best : best + 2] = [lens[best] + lens[best + 1]]

    def _merge_long(self, syms: list[str], lens: list[int]) -> None:
        """The same merges with a heap and a linked list: O(n log n) for very long pieces."""
        rank = self._rank
        n = len(syms)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        alive = [True] * n
        heap = []
        for i in range(n - 1):
            r = rank(syms[i], syms[i + 1])
            if r is not None:
                heap.append((r, i, syms[i], syms[i + 1]))
        heapq.heapify(heap)
        while heap:
            r, i, a, b = heapq.heappop(heap)
            j = nxt[i] if alive[i] else n
            if j >= n or syms[i] != a or syms[j] != b:
                continue  # stale entry: one side has changed since it was pushed
            syms[i] = self._merged(a, b)
            lens[i] += lens[j]
            alive[j] = False
            nxt[i] = nxt[j]
            if nxt[j] < n:
                prv[nxt[j]] = i
            p = prv[i]
            if p >= 0:
                rp = rank(syms[p], syms[i])
                if rp is not None:
                    heapq.heappush(heap, (rp, p, syms[p], syms[i]))
            q = nxt[i]
            if q < n:
                rq = rank(syms[i], syms[q])
                if rq is not None:
                    heapq.heappush(heap, (rq, i, syms[i], syms[q]))
        keep = [k for k in range(n) if alive[k]]
        syms[:] = [syms[k] for k in keep]
        lens[:] = [lens[k] for k in keep]

    def _word(self, word: str) -> list[tuple[str, int]]:
        """The word's symbols after all merges, each with how many characters of it it covers."""
        if self.ignore_merges and word in self.vocab:
            return [(word, len(word))]
        syms, lens = self._initial_symbols(word)
        if len(syms) > _LONG_WORD:
            self._merge_long(syms, lens)
        else:
            self._merge_short(syms, lens)
        return list(zip(syms, lens))

    def _word_ids(self, word: str) -> tuple[int, ...]:
        """`_word` as one flat tuple (id, chars, id, chars, ...), memoised.  (One object per word:
        the ids are the vocabulary's own int objects, so 100k cached words are ~200k small objects
        instead of a list, a tuple and a merged string per symbol.)"""
        cached = self._cache.get(word)
        if cached is None:
            vocab = self.vocab
            cached = tuple(v for sym, n in self._word(word) for v in (vocab[sym], n))
            self._cache.put(word, cached)
        return cached

    def tokenize(self, text: str) -> list[Token]:
        out: list[Token] = []
        pos = 0
        flat = self._word_ids(text)
        for k in range(0, len(flat), 2):
            i, n = flat[k], flat[k + 1]
            if n:
                out.append((i, pos, pos + n))
                pos += n
            else:  # a later byte of a byte-fallback character, or the end-of-word symbol alone:
                out.append((i, max(pos - 1, 0), pos))  # it belongs to the character before
        if pos < len(text):  # characters without a token were dropped (no unk token)
            return self._shifted_as_hf(text, flat)
        return out

    def _shifted_as_hf(self, text: str, flat: tuple[int, ...]) -> list[Token]:
        """Offsets as HF tokenizers gives them when it drops unknown characters: it counts each
        token's bytes from the word's start without the dropped ones, so later tokens sit earlier
        by those bytes and map onto the characters found there."""
        char_at_byte = [k for k, c in enumerate(text) for _ in range(len(c.encode("utf-8")))]
        kept = [c for k, c in enumerate(text) if self._has_symbol(text, k)]
        out: list[Token] = []
        pos = 0  # kept characters so far
        at = 0  # HF's byte position
        for k in range(0, len(flat), 2):
            i, n = flat[k], flat[k + 1]
            in_byte_run = n == 0 or (k + 3 < len(flat) and flat[k + 3] == 0)
            size = 1 if in_byte_run else len("".join(kept[pos:pos + n]).encode("utf-8"))
            pos += n
            out.append((i, char_at_byte[at], char_at_byte[at + size - 1] + 1))
            at += size
        return out

    def _has_symbol(self, word: str, k: int) -> bool:
        """Whether character k of `word` becomes a symbol (itself or its bytes) rather than being dropped."""
        s = word[k]
        if k and self.prefix:
            s = self.prefix + s
        if k == len(word) - 1 and self.suffix:
            s = s + self.suffix
        if s in self.vocab:
            return True
        return self.byte_fallback and all(f"<0x{b:02X}>" in self.vocab for b in s.encode("utf-8"))

    def describe(self) -> str:
        bits = ["BPE"]
        if not self.has_merge_list:
            bits.append("ranked by token")
        if self.byte_fallback:
            bits.append("byte fallback")
        if self.ignore_merges:
            bits.append("ignore_merges")
        if self.prefix:
            bits.append(f"prefix {self.prefix!r}")
        if self.suffix:
            bits.append(f"suffix {self.suffix!r}")
        if self.end_symbol:
            bits.append(f"end-of-word symbol {self.end_symbol!r}")
        return ", ".join(bits)
