/* The pieces of an ASCII text for the GPT-2 (r50k, p50k), cl100k, o200k, llama3, qwen2, qwen35 and
 * tekken patterns, all found at once from class bitmaps.
 *
 * scan.h's scanners find one piece at a time: on prose that is a few class tests and branches per
 * piece of ~4 bytes, and the branches (letter? space? punctuation?) are what costs.  Here a window
 * of the text is classified 64 bytes at a time into one bit per byte for each class, and the bytes
 * where a piece starts are derived from those words with shifts and masks, the pattern's rules
 * written as set operations (below); the encoder then walks the start bits.
 *
 * ASCII classes as scan.h's 16-byte runs take them (the tests check them against the class table):
 * L = [A-Za-z], N = [0-9], S = [\t\n\v\f\r ], C = [\r\n], O = everything else; SP = ' '.
 *
 * A piece starts at (regex semantics of `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|
 * \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`, cl100k's `\s++$` and qwen2's one
 * digit per piece):
 * - a run of letters: one byte before it when that byte is a prefix (white space but CR/LF, or an
 *   O that is a run of its own not preceded by a space), else its first letter;
 * - a run of O: the space before it, if any, else its first byte (its piece then takes the CR/LF
 *   that follow it);
 * - a run of digits: every third digit from its first (every digit for qwen2);
 * - a run of white space (without the CR/LF an O run took): its first byte; after its last CR/LF;
 *   and its last byte when that is not CR/LF (\s+(?!\S) leaves it to what follows); at the end of
 *   the text, cl100k takes the whole run (\s++$) and llama3 cuts only after the last CR/LF;
 * - then each apostrophe that starts a piece and begins a contraction ends that piece after it.
 * o200k differs: a run of letters is also cut before each upper-case letter that follows a
 * lower-case one; an O run's piece also takes '/' after its CR/LF ([\r\n/]*); and a contraction
 * belongs to the word before it (a piece of letters ends after the contraction that follows it,
 * unless those letters were themselves a contraction's).  tekken is o200k without the contractions
 * and with one digit per piece; qwen35 differs from qwen2 only in marks, which ASCII has none of.
 * GPT-2's simpler rules: tv_gpt2_starts.
 * A window's starts are only trusted up to its last pair of adjacent letters: nothing after such a
 * pair changes a piece that starts before it.  tests/native/test_scanner.py compares the pieces
 * with the regex module's, on random and real text and across windows. */
#ifndef TOKVIZ_SCAN_BITS_H
#define TOKVIZ_SCAN_BITS_H

#include <string.h>

#include "scan.h"

#ifdef __SSE2__
#define TV_BITS_WINDOW 4096 /* bytes classified at a time */
#define TV_BITS_WORDS (TV_BITS_WINDOW / 64)

/* The piece starts of the window [w0, w1) of an ASCII text: bit k of word w is byte w0 + 64w + k;
 * pieces that start before `limit` are known (they end at the next start, at most at `limit`). */
typedef struct {
    const uint8_t *p;
    ptrdiff_t n, w0, w1, limit;
    ptrdiff_t scalar_until; /* cut pieces with scan.h up to here (windows that told too little) */
    int open_end;           /* more text (not ASCII) follows p[n - 1]: no window is the last */
    uint64_t rest;          /* the start bits of word `word` after the last piece returned */
    size_t word;
    int pattern;
    uint64_t starts[TV_BITS_WORDS + 1];
} tv_pieces;

/* The class bits of 16 bytes. */
typedef struct {
    unsigned letter, digit, space, crlf, sp, ap, upper, slash;
} tv_class16;

TV_INLINE tv_class16 tv_classify16(__m128i v) {
    __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i l = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('z' + 1), lower));
    __m128i d = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), v));
    __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
    __m128i s = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(8)), _mm_cmpgt_epi8(_mm_set1_epi8(14), v)), sp);
    __m128i c = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
    __m128i a = _mm_cmpeq_epi8(v, _mm_set1_epi8('\''));
    __m128i u = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('A' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('Z' + 1), v));
    __m128i sl = _mm_cmpeq_epi8(v, _mm_set1_epi8('/'));
    return (tv_class16){(unsigned)_mm_movemask_epi8(l),  (unsigned)_mm_movemask_epi8(d), (unsigned)_mm_movemask_epi8(s),
                        (unsigned)_mm_movemask_epi8(c),  (unsigned)_mm_movemask_epi8(sp), (unsigned)_mm_movemask_epi8(a),
                        (unsigned)_mm_movemask_epi8(u), (unsigned)_mm_movemask_epi8(sl)};
}

/* Bit k of the result: bit k - d of the bit string x (word w; 0 < d < 64). */
#define TV_PREV_BY(x, w, d) (((x)[w] << (d)) | ((w) ? (x)[(w) - 1] >> (64 - (d)) : 0))
/* "The byte before is in x". */
#define TV_PREV(x, w) TV_PREV_BY(x, w, 1)
/* Bit k of the result: bit k + 1 of x, "the byte after is in x" (x has a zero word at the end). */
#define TV_NEXT(x, w) (((x)[w] >> 1) | ((x)[(w) + 1] << 63))

/* Position of the first set bit of x at or after k (x has a zero word past `words`), or -1. */
static inline ptrdiff_t tv_bits_first(const uint64_t *x, ptrdiff_t k, size_t words) {
    size_t w = (size_t)k >> 6;
    if (w >= words) return -1;
    uint64_t v = x[w] & (~0ULL << (k & 63));
    while (!v) {
        if (++w >= words) return -1;
        v = x[w];
    }
    return (ptrdiff_t)(w * 64 + (size_t)__builtin_ctzll(v));
}

/* The end of the run of set bits of x from k (x has a zero word past its bits). */
static inline ptrdiff_t tv_bits_run(const uint64_t *x, ptrdiff_t k) {
    size_t w = (size_t)k >> 6;
    uint64_t v = ~x[w] & (~0ULL << (k & 63));
    while (!v) v = ~x[++w];
    return (ptrdiff_t)(w * 64 + (size_t)__builtin_ctzll(v));
}

static inline void tv_bit_set(uint64_t *x, ptrdiff_t k) { x[k >> 6] |= 1ULL << (k & 63); }
static inline void tv_bit_clear(uint64_t *x, ptrdiff_t k) { x[k >> 6] &= ~(1ULL << (k & 63)); }
static inline int tv_bit_get(const uint64_t *x, ptrdiff_t k) { return (int)((x[k >> 6] >> (k & 63)) & 1); }

/* GPT-2's (and r50k's) starts: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|
 * \s+(?!\S)|\s+`: each run of letters, digits or O at its first byte, or at the space before it;
 * each run of white space at its first byte and, when longer than one, at its last (the caller
 * takes that out at the end of the text, and cuts contractions). */
static void tv_gpt2_starts(uint64_t *st, const uint64_t *L, const uint64_t *N, const uint64_t *S, const uint64_t *O,
                           const uint64_t *SP, size_t words) {
    enum { W = TV_BITS_WORDS + 1 };
    uint64_t R[W] = {0};
    for (size_t w = 0; w < words; w++)
        R[w] = (L[w] & ~TV_PREV(L, w)) | (N[w] & ~TV_PREV(N, w)) | (O[w] & ~TV_PREV(O, w));
    for (size_t w = 0; w < words; w++)
        st[w] = (TV_NEXT(R, w) & SP[w]) | (R[w] & ~TV_PREV(SP, w)) | (S[w] & ~TV_PREV(S, w)) |
                (S[w] & ~TV_NEXT(S, w) & TV_PREV(S, w));
}

/* Classify the window from w0 and derive its piece starts and limit. */
static void tv_pieces_fill(tv_pieces *ps, ptrdiff_t w0) {
    enum { W = TV_BITS_WORDS + 1 };
    uint64_t L[W], N[W], S[W], C[W], O[W], SP[W], AP[W], UP[W], SL[W], T[W] = {0}, PF[W] = {0}, S2[W] = {0},
        CS[W] = {0}, X[W] = {0}, N4[W] = {0}, WS[W] = {0};
    /* (o200k: also tekken, its cased words and O runs) */
    int o200k = ps->pattern == TV_PAT_O200K || ps->pattern == TV_PAT_TEKKEN;
    int one_digit = ps->pattern == TV_PAT_QWEN2 || ps->pattern == TV_PAT_TEKKEN;
    ptrdiff_t n = ps->n, w1 = n - w0 > TV_BITS_WINDOW ? w0 + TV_BITS_WINDOW : n, len = w1 - w0;
    int at_end = w1 == n && !ps->open_end;
    size_t words = (size_t)(len + 63) / 64;
    for (size_t w = 0; w < W; w++) L[w] = N[w] = S[w] = C[w] = O[w] = SP[w] = AP[w] = UP[w] = SL[w] = 0;
    for (size_t w = 0; w < words; w++) {
        const uint8_t *q = ps->p + w0 + 64 * (ptrdiff_t)w;
        ptrdiff_t avail = len - 64 * (ptrdiff_t)w;
        uint8_t tail[64];
        if (avail < 64) {
            memset(tail, 0, sizeof(tail));
            memcpy(tail, q, (size_t)avail);
            q = tail;
        }
        for (int k = 0; k < 4; k++) {
            tv_class16 c = tv_classify16(_mm_loadu_si128((const __m128i *)(q + 16 * k)));
            L[w] |= (uint64_t)c.letter << (16 * k);
            N[w] |= (uint64_t)c.digit << (16 * k);
            S[w] |= (uint64_t)c.space << (16 * k);
            C[w] |= (uint64_t)c.crlf << (16 * k);
            SP[w] |= (uint64_t)c.sp << (16 * k);
            AP[w] |= (uint64_t)c.ap << (16 * k);
            UP[w] |= (uint64_t)c.upper << (16 * k);
            SL[w] |= (uint64_t)c.slash << (16 * k);
        }
        uint64_t valid = avail < 64 ? (1ULL << avail) - 1 : ~0ULL;
        O[w] = ~(L[w] | N[w] | S[w]) & valid;
    }
    uint64_t *st = ps->starts;
    if (ps->pattern == TV_PAT_GPT2) {
        tv_gpt2_starts(st, L, N, S, O, SP, words);
        if (at_end && len >= 2 && tv_bit_get(S, len - 1) && tv_bit_get(S, len - 2)) tv_bit_clear(st, len - 1);
        for (ptrdiff_t k = tv_bits_first(AP, 0, words); k >= 0; k = tv_bits_first(AP, k + 1, words)) {
            tv_text t = {ps->p, 1, n, 1};
            ptrdiff_t m = tv_bit_get(st, k) ? tv_contraction(&t, w0 + k, 0) : 0;
            for (ptrdiff_t q = k + 1; q < k + m && q < len; q++) tv_bit_clear(st, q);
            if (m && k + m < len) tv_bit_set(st, k + m);
        }
    } else {
        /* T: what an O run's piece takes after it, CR/LF ([\r\n]*; o200k: [\r\n/]*).  The runs of
         * CR/LF that start right after an O are found with a carry through each run; o200k's, where a
         * '/' (itself an O) may come between, one at a time. */
        if (!o200k) {
            unsigned carry = 0;
            for (size_t w = 0; w < words; w++) {
                uint64_t first = C[w] & ~TV_PREV(C, w) & TV_PREV(O, w);
                uint64_t sum = C[w] + first, sum2 = sum + carry;
                carry = (sum < C[w]) | (sum2 < sum);
                T[w] = (sum2 ^ C[w]) & C[w];
            }
        } else {
            uint64_t M[W] = {0}, FIRST[W] = {0};
            for (size_t w = 0; w < words; w++) {
                M[w] = C[w] | SL[w];
                FIRST[w] = C[w] & TV_PREV(O, w);
            }
            for (ptrdiff_t k = tv_bits_first(FIRST, 0, words); k >= 0; k = tv_bits_first(FIRST, k + 1, words)) {
                if (tv_bit_get(T, k)) continue;
                for (ptrdiff_t e = tv_bits_run(M, k), q = k; q < e; q++) tv_bit_set(T, q);
            }
        }
        for (size_t w = 0; w < words; w++) {
            S2[w] = S[w] & ~T[w];
            CS[w] = C[w] & S2[w];
            O[w] &= ~T[w]; /* (o200k: a '/' taken is not part of the O run after it) */
        }
        for (size_t w = 0; w < words; w++) /* a prefix: white space but CR/LF, or an O that is a run of
                                              its own, not after a space */
            PF[w] = ((S[w] & ~C[w]) | (O[w] & ~TV_PREV(O, w) & ~TV_NEXT(O, w) & ~TV_PREV(SP, w))) & ~T[w];
        for (size_t w = 0; w < words; w++) {
            uint64_t ls = L[w] & ~TV_PREV(L, w), os = O[w] & ~TV_PREV(O, w), os_next = TV_NEXT(O, w) & ~O[w];
            uint64_t s = (PF[w] & TV_NEXT(L, w)) | (ls & ~TV_PREV(PF, w));
            s |= (os_next & SP[w]) | (os & ~TV_PREV(SP, w));
            s |= one_digit ? N[w] : N[w] & ~TV_PREV(N, w);
            uint64_t in_ws = S2[w] & TV_PREV(S2, w);  /* white space that is not its run's first byte */
            s |= S2[w] & ~TV_PREV(S2, w);             /* a run's first byte */
            s |= S2[w] & ~TV_NEXT(S2, w) & in_ws & ~C[w]; /* its last byte, when not CR/LF (the end of the
                                                             text is taken out below) */
            if (o200k) s |= L[w] & UP[w] & TV_PREV(L, w) & ~TV_PREV(UP, w); /* lower -> upper case */
            s = (s & ~T[w]) | (TV_PREV(T, w) & ~T[w]); /* a piece starts after what an O run took */
            X[w] = S2[w] & ~C[w] & TV_PREV(CS, w);   /* just after a CR/LF run: a start if the last one */
            WS[w] = S2[w] & ~C[w];
            N4[w] = N[w] & TV_PREV(N, w) & TV_PREV_BY(N, w, 2) & TV_PREV_BY(N, w, 3); /* 4th digit of a run on */
            st[w] = s;
        }
        st[0] |= 1; /* the window starts at a piece's start */
        if (!one_digit) /* a run of more than three digits: every third one */
            for (ptrdiff_t k = tv_bits_first(N4, 0, words); k >= 0; k = tv_bits_first(N4, k + 1, words))
                if (tv_bit_get(st, k - 3)) tv_bit_set(st, k);
        /* White space at the end of the text: \s+(?!\S) and \s++$ take its last byte too. */
        if (at_end && len >= 2 && tv_bit_get(S2, len - 1) && tv_bit_get(S2, len - 2)) tv_bit_clear(st, len - 1);
        /* After the last CR/LF of a run of white space (cl100k: not in the run that ends the text). */
        for (ptrdiff_t k = tv_bits_first(X, 0, words); k >= 0; k = tv_bits_first(X, k + 1, words)) {
            ptrdiff_t e = tv_bits_run(WS, k); /* (at most len: WS is 0 past the window) */
            if (e < len && tv_bit_get(S2, e)) continue; /* another CR/LF follows in the run */
            if (e == len && at_end && ps->pattern == TV_PAT_CL100K) continue;
            tv_bit_set(st, k);
        }
        /* Contractions: an apostrophe that starts a piece and begins one ends that piece after it;
         * o200k: one right after the letters of a word ends the word's piece after it (not after the
         * letters of such a contraction: there a piece starts). */
        ptrdiff_t after = -1; /* the end of the last contraction */
        ptrdiff_t first_ap = ps->pattern == TV_PAT_TEKKEN ? -1 : tv_bits_first(AP, 0, words); /* (tekken: none) */
        for (ptrdiff_t k = first_ap; k >= 0; k = tv_bits_first(AP, k + 1, words)) {
            if (o200k ? k == 0 || k == after || !tv_bit_get(L, k - 1) : !tv_bit_get(st, k)) continue;
            tv_text t = {ps->p, 1, n, 1};
            ptrdiff_t m = tv_contraction(&t, w0 + k, 1);
            if (!m) continue;
            for (ptrdiff_t q = o200k ? k : k + 1; q < k + m && q < len; q++) tv_bit_clear(st, q);
            if (k + m < len) tv_bit_set(st, k + m);
            after = k + m;
        }
    }
    for (size_t w = words; w <= TV_BITS_WORDS; w++) st[w] = 0;
    if (words && len % 64) st[words - 1] &= (1ULL << (len % 64)) - 1;
    ps->w0 = w0;
    ps->w1 = w1;
    ps->word = 0;
    ps->rest = st[0] & ~1ULL;
    if (at_end) {
        tv_bit_set(st, len); /* the end of the text ends the last piece */
        if (len < 64) ps->rest = st[0] & ~1ULL;
        ps->limit = n;
        return;
    }
    /* Trust the starts before the last pair of letters (b - 1, b) of the window. */
    ptrdiff_t b = -1;
    for (ptrdiff_t w = (ptrdiff_t)words - 1; w >= 0 && b < 0; w--) {
        uint64_t pair = L[w] & TV_PREV(L, w);
        if (pair) b = 64 * w + 63 - __builtin_clzll(pair);
    }
    ptrdiff_t last = -1;
    if (b > 0)
        for (ptrdiff_t w = (b - 1) >> 6; w >= 0 && last < 0; w--) {
            uint64_t x = st[w];
            ptrdiff_t hi = b - 64 * w;
            if (hi < 64) x &= (1ULL << hi) - 1;
            if (x) last = 64 * w + 63 - __builtin_clzll(x);
        }
    ps->limit = last > 0 ? w0 + last : w0; /* (w0: no piece known, the caller cuts one itself) */
}

static inline void tv_pieces_init(tv_pieces *ps, const uint8_t *p, ptrdiff_t n, int pattern) {
    ps->p = p;
    ps->n = n;
    ps->pattern = pattern == TV_PAT_QWEN35 ? TV_PAT_QWEN2 : pattern; /* (the same cut without marks) */
    ps->w0 = ps->w1 = ps->limit = ps->scalar_until = 0;
    ps->open_end = 0;
}

/* The pieces of the ASCII run p[0 .. n) of a longer text that goes on with other characters: only
 * those the run alone decides are given (tv_pieces_trusted). */
static inline void tv_pieces_init_open(tv_pieces *ps, const uint8_t *p, ptrdiff_t n, int pattern) {
    tv_pieces_init(ps, p, n, pattern);
    ps->open_end = 1;
}

/* The end of the piece at i as tv_pieces_next, or -1 when the bitmaps do not tell it (the text
 * from i on must be cut otherwise). */
TV_INLINE ptrdiff_t tv_pieces_trusted(tv_pieces *ps, ptrdiff_t i) {
    if (i >= ps->limit) {
        if (i >= ps->n) return -1;
        tv_pieces_fill(ps, i);
        if (i >= ps->limit) return -1;
    }
    uint64_t r = ps->rest;
    while (!r) r = ps->starts[++ps->word];
    ps->rest = r & (r - 1);
    return ps->w0 + (ptrdiff_t)(ps->word * 64) + __builtin_ctzll(r);
}

/* The end of the piece at i (0 <= i < n; the i of successive calls are the previous ends: the
 * start bits are walked in order, a piece's end does not wait for a load at its start). */
TV_INLINE ptrdiff_t tv_pieces_next(tv_pieces *ps, ptrdiff_t i) {
    if (i >= ps->limit) {
        if (i >= ps->scalar_until) {
            tv_pieces_fill(ps, i);
            /* A window whose trusted part is short (few pairs of letters: numbers, symbols) would
             * be classified again and again: its text is cut one piece at a time instead. */
            if (ps->limit - i < TV_BITS_WINDOW / 4 && ps->limit < ps->n) {
                ps->scalar_until = ps->w1;
                ps->limit = i;
            }
        }
        if (i >= ps->limit) {
            tv_text t = {ps->p, 1, ps->n, 1};
            return tv_scan_any(ps->pattern, &t, i);
        }
    }
    uint64_t r = ps->rest;
    while (!r) r = ps->starts[++ps->word];
    ps->rest = r & (r - 1);
    return ps->w0 + (ptrdiff_t)(ps->word * 64) + __builtin_ctzll(r);
}

TV_INLINE int tv_pieces_covers(int pattern) {
    return pattern == TV_PAT_GPT2 || pattern == TV_PAT_CL100K || pattern == TV_PAT_O200K || pattern == TV_PAT_LLAMA3 ||
           pattern == TV_PAT_QWEN2 || pattern == TV_PAT_TEKKEN || pattern == TV_PAT_QWEN35;
}
#else
/* Without SSE2: scan.h's scanner, one piece at a time. */
typedef struct {
    tv_text t;
    int pattern;
} tv_pieces;

static inline void tv_pieces_init(tv_pieces *ps, const uint8_t *p, ptrdiff_t n, int pattern) {
    ps->t = (tv_text){p, 1, n, 1};
    ps->pattern = pattern;
}

TV_INLINE ptrdiff_t tv_pieces_next(tv_pieces *ps, ptrdiff_t i) { return tv_scan_any(ps->pattern, &ps->t, i); }

static inline void tv_pieces_init_open(tv_pieces *ps, const uint8_t *p, ptrdiff_t n, int pattern) {
    tv_pieces_init(ps, p, n, pattern);
}

TV_INLINE ptrdiff_t tv_pieces_trusted(tv_pieces *ps, ptrdiff_t i) { return -1; }

TV_INLINE int tv_pieces_covers(int pattern) { return 0; }
#endif

#endif
