"""Unigram training's steps 3-5 (seeds, EM, pruning) in plain Python: `ReferenceLattice`, the
definition the C lattice (tokviz._unigramtrain.Lattice) must match, used by the tests, by Learn (it
also tells what each step removed and why) and where the C module is missing.  See
tokviz/train/unigram.py for the algorithm."""
from __future__ import annotations

import math

FIXED_SCALE = 1048576.0  # expected counts are summed in units of 2^-20 (exact, thread-independent)
LINEAR_MAX_LEN = 30      # words up to this long: forward-backward in probabilities, else in logs
LINEAR_MIN_Z = 1e-290
DROP_BELOW = 0.5


def digamma(x: float) -> float:
    """The digamma function (recurrence up to 6, then the asymptotic series)."""
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    result += math.log(x) - 0.5 * inv - inv2 * (
        1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132))))
    )
    return result


def _to_fixed(x: float) -> int:
    return math.floor(x * FIXED_SCALE + 0.5)


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


class ReferenceLattice:
    """The trainer's core steps in plain Python: same interface and results as
    tokviz._unigramtrain.Lattice (slow; for small corpora, tests, and machines without C)."""

    def __init__(self, *, symbols, word_offsets, word_freqs, n_chars, char_class, char_digit, space_symbol,
                 max_piece_length, seed_size, min_count, split_digits, threads=1):
        symbols = [int(s) for s in symbols]
        offsets = [int(o) for o in word_offsets]
        self.words = [tuple(symbols[a:b]) for a, b in zip(offsets, offsets[1:])]
        self.freqs = [int(f) for f in word_freqs]
        self.n_chars = n_chars
        self.char_class = list(char_class)
        self.char_digit = list(char_digit)
        self.space = space_symbol
        self.max_len = max_piece_length
        self.seed_size = seed_size
        self.min_count = min_count
        self.split_digits = split_digits
        self.pieces_: list[tuple[int, ...]] = []
        self.scores: list[float] = []
        self._last: tuple = ("seed", [], [], [])

    @property
    def n_pieces(self) -> int:
        return len(self.pieces_)

    def valid(self, piece: tuple[int, ...]) -> bool:
        prev = -1
        for i, c in enumerate(piece):
            if c == self.space:
                if i > 0:
                    return False
                continue
            if self.split_digits and self.char_digit[c] and len(piece) > 1:
                return False
            cls = self.char_class[c]
            if cls >= 0:
                if prev >= 0 and prev != cls:
                    return False
                prev = cls
        return True

    def make_seeds(self) -> int:
        # count: substring -> [count, next symbol or None, followed by two different things]
        stats: dict[tuple[int, ...], list] = {}
        for word, f in zip(self.words, self.freqs):
            n = len(word)
            for i in range(n):
                for j in range(i + 2, min(n, i + self.max_len) + 1):
                    s = word[i:j]
                    nxt = word[j] if j < n else None
                    st = stats.get(s)
                    if st is None:
                        stats[s] = [f, nxt, nxt is None, 1]
                    else:
                        st[0] += f
                        st[3] += 1
                        # at a word end the separator differs from everything, even another end
                        if nxt is None or st[1] is None or nxt != st[1]:
                            st[2] = True
        cands = []
        for s, (count, _, branching, places) in stats.items():
            if count >= self.min_count and branching and self.valid(s):
                cands.append((-count * len(s), s))
        cands.sort()
        cands = cands[: max(0, self.seed_size - self.n_chars)]
        char_count = [0] * self.n_chars
        for word, f in zip(self.words, self.freqs):
            for c in word:
                char_count[c] += f
        self.pieces_ = [(c,) for c in range(self.n_chars)] + [s for _, s in cands]
        raw = [float(max(n, 1)) for n in char_count] + [float(-neg) for neg, _ in cands]
        total = 0.0
        for v in raw:
            total += v
        log_total = math.log(total)
        self.scores = [math.log(v) - log_total for v in raw]
        self._build_edges()
        return self.n_pieces

    def _build_edges(self) -> None:
        """Per word: (start, end, piece) sorted by (end, start)."""
        ids = {p: i for i, p in enumerate(self.pieces_)}
        self.edges = []
        for word in self.words:
            found = []
            for s in range(len(word)):
                for e in range(s + 1, min(len(word), s + self.max_len) + 1):
                    i = ids.get(word[s:e])
                    if i is not None:
                        found.append((e, s, i))
            found.sort()
            self.edges.append([(s, e, i) for e, s, i in found])

    def _keep(self, keep: list[bool]) -> None:
        new_id, k = {}, 0
        for i, flag in enumerate(keep):
            if flag:
                new_id[i] = k
                k += 1
        self.pieces_ = [p for p, f in zip(self.pieces_, keep) if f]
        self.scores = [s for s, f in zip(self.scores, keep) if f]
        self.edges = [[(s, e, new_id[i]) for s, e, i in edges if i in new_id] for edges in self.edges]

    def _expect_word(self, word, edges, f, prob, expected) -> int:
        n = len(word)
        if n <= LINEAR_MAX_LEN:
            alpha = [0.0] * (n + 1)
            beta = [0.0] * (n + 1)
            alpha[0] = beta[n] = 1.0
            for s, e, i in edges:
                alpha[e] += alpha[s] * prob[i]
            z = alpha[n]
            if z >= LINEAR_MIN_Z:
                for s, e, i in reversed(edges):
                    beta[s] += prob[i] * beta[e]
                for s, e, i in edges:
                    expected[i] += _to_fixed(alpha[s] * prob[i] * beta[e] / z * f)
                return _to_fixed(f * math.log(z))
        alpha = [-math.inf] * (n + 1)
        beta = [-math.inf] * (n + 1)
        alpha[0] = beta[n] = 0.0
        sc = self.scores
        for s, e, i in edges:
            alpha[e] = _log_add(alpha[e], alpha[s] + sc[i])
        for s, e, i in reversed(edges):
            beta[s] = _log_add(beta[s], sc[i] + beta[e])
        z = alpha[n]
        for s, e, i in edges:
            expected[i] += _to_fixed(math.exp(alpha[s] + sc[i] + beta[e] - z) * f)
        return _to_fixed(f * z)

    def em_step(self) -> tuple[float, int]:
        prob = [math.exp(s) for s in self.scores]
        expected = [0] * self.n_pieces
        objective = 0
        for word, edges, f in zip(self.words, self.edges, self.freqs):
            objective += self._expect_word(word, edges, f, prob, expected)
        keep = []
        total = 0.0
        for i, x in enumerate(expected):
            e = x / FIXED_SCALE
            keep.append(i < self.n_chars or e >= DROP_BELOW)
            if keep[-1]:
                total += e
        log_total = digamma(total)
        for i, x in enumerate(expected):
            if keep[i]:
                self.scores[i] = digamma(max(x / FIXED_SCALE, DROP_BELOW)) - log_total
        self._last = ("em", self.pieces_, keep, expected)
        self._keep(keep)
        return objective / FIXED_SCALE, self.n_pieces

    def _viterbi(self, edges, n, skip=None) -> list[int]:
        best = [-math.inf] * (n + 1)
        back: list = [None] * (n + 1)
        best[0] = 0.0
        for edge in edges:
            s, e, i = edge
            if edge == skip or best[s] == -math.inf:
                continue
            v = best[s] + self.scores[i]
            if v > best[e]:
                best[e], back[e] = v, edge
        if best[n] == -math.inf:
            return []
        path, at = [], n
        while at > 0:
            s, _, i = back[at]
            path.append(i)
            at = s
        path.reverse()
        self._last_best = best[n]
        return path

    def prune(self, target: int) -> int:
        freq = [0] * self.n_pieces
        in_words = [0] * self.n_pieces
        for word, edges, f in zip(self.words, self.edges, self.freqs):
            path = self._viterbi(edges, len(word))
            for i in path:
                freq[i] += f
            for i in set(path):
                in_words[i] += f
        occurrence = {}
        for w, edges in enumerate(self.edges):
            for s, e, i in edges:
                occurrence.setdefault(i, (w, s, e))
        total = 0.0
        for x in freq:
            total += float(x)
        log_total = math.log(total)
        vsum = float(sum(self.freqs))
        keep = [False] * self.n_pieces
        kept = 0
        cands = []
        for i in range(self.n_pieces):
            if i < self.n_chars:
                keep[i] = True
                kept += 1
                continue
            w, s, e = occurrence[i]
            inner = [(a - s, b - s, p) for a, b, p in self.edges[w] if a >= s and b <= e]
            alternatives = self._viterbi(inner, e - s, skip=(0, e - s, i))
            if not alternatives:
                if freq[i]:
                    keep[i] = True
                    kept += 1
                continue
            if freq[i] == 0 or self.scores[i] < self._last_best:
                continue
            f = float(freq[i])
            logprob_piece = math.log(f) - log_total
            log_total_alt = math.log(total + f * (len(alternatives) - 1))
            logprob_alt = 0.0
            for a in alternatives:
                logprob_alt += math.log(float(freq[a]) + f) - log_total_alt
            cands.append((-(in_words[i] / vsum * (logprob_piece - logprob_alt)), i))
        cands.sort()
        for _, i in cands:
            if kept >= target:
                break
            keep[i] = True
            kept += 1
        self._last = ("prune", self.pieces_, keep, cands)
        self._keep(keep)
        return self.n_pieces

    def pieces(self) -> list[tuple[tuple[int, ...], float]]:
        return list(zip(self.pieces_, self.scores))

    # what the last step did, for tokviz.train.learn (kept as the step left it: no cost to training)

    def last_removed(self) -> list[tuple[int, ...]]:
        """The pieces the last EM step (expected fewer than 0.5 times) or pruning removed."""
        _, before, keep, _ = self._last
        return [p for p, kept in zip(before, keep) if not kept]

    def last_expected(self) -> list[tuple[tuple[int, ...], float]]:
        """The last EM step's expected count of each piece it started with."""
        kind, before, _, expected = self._last
        if kind != "em":
            return []
        return [(p, x / FIXED_SCALE) for p, x in zip(before, expected)]

    def last_losses(self) -> list[tuple[tuple[int, ...], float]]:
        """The last pruning's pieces that could go and the likelihood each would cost, in the order
        they go: first those in no best segmentation (0.0), then the smallest losses."""
        kind, before, keep, cands = self._last
        if kind != "prune":
            return []
        weighed = {i for _, i in cands}
        unused = [(before[i], 0.0) for i, kept in enumerate(keep) if not kept and i not in weighed]
        return unused + [(before[i], -neg) for neg, i in reversed(cands)]

    def segment(self) -> list[list[int]]:
        """Each word's best segmentation (piece ids) under the current scores."""
        return [self._viterbi(edges, len(word)) for word, edges in zip(self.words, self.edges)]
