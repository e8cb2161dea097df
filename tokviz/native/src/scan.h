/* Pre-tokenizer scanners: one hand-written matcher per family of split patterns.
 *
 * Each scanner takes the text (code points) and a position i < n and returns the end of the
 * piece that `regex.finditer(pattern, text)` finds at i.  All the supported patterns match at
 * every position (every character is a letter, a number, white space or "other"), so the pieces
 * tile the text and a scanner is only ever asked where the current piece ends.
 *
 * The alternatives are tried in the pattern's order, with the backtracking the regex engine would
 * do written out by hand.  tokviz/core/patterns.py holds the patterns themselves; the tests in
 * tests/native compare every scanner with regex.finditer on random and real text.
 */
#ifndef TOKVIZ_SCAN_H
#define TOKVIZ_SCAN_H

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "unicode_tables.h"

enum {
    TV_PAT_NONE = 0, /* the whole segment is one piece (a Python pre-tokenizer split it already) */
    TV_PAT_GPT2 = 1, /* GPT-2 / r50k / p50k */
    TV_PAT_CL100K = 2,
    TV_PAT_O200K = 3,
    TV_PAT_LLAMA3 = 4,
    TV_PAT_QWEN2 = 5,  /* llama3 with one digit per piece */
    TV_PAT_TEKKEN = 6, /* o200k without contractions, one digit per piece (Mistral's tekken) */
    TV_PAT_QWEN35 = 7, /* qwen2 with marks in the words (Qwen3.5) */
    TV_PAT_COUNT = 8
};

typedef struct {
    const void *data; /* PyUnicode data: 1, 2 or 4 bytes per code point */
    int kind;
    ptrdiff_t n;
    int ascii; /* every code point < 128 (then the data are also the text's UTF-8) */
} tv_text;

#define TV_INLINE static inline __attribute__((always_inline))

TV_INLINE uint32_t tv_cp(const tv_text *t, ptrdiff_t i) {
    switch (t->kind) {
    case 1: return ((const uint8_t *)t->data)[i];
    case 2: return ((const uint16_t *)t->data)[i];
    default: return ((const uint32_t *)t->data)[i];
    }
}

TV_INLINE unsigned tv_class(uint32_t c) {
    if (c < 256) return tv_stage2[c]; /* (block 0 of the table is the first one) */
    if (c >= 0x110000) return 0;
    return tv_stage2[((size_t)tv_stage1[c >> TV_BLOCK_SHIFT] << TV_BLOCK_SHIFT) | (c & ((1u << TV_BLOCK_SHIFT) - 1))];
}

#define TV_IS(c, mask) ((tv_class(c) & (mask)) != 0)
/* [^\s\p{L}\p{N}] */
#define TV_OTHER(c) ((tv_class(c) & (TV_L | TV_N | TV_S)) == 0)
/* [^\r\n\p{L}\p{N}] */
#define TV_PREFIX(c) ((c) != '\r' && (c) != '\n' && (tv_class(c) & (TV_L | TV_N)) == 0)
#define TV_CRLF(c) ((c) == '\r' || (c) == '\n')
/* [\p{L}\p{M}]: the marks are the characters of the cased classes that are no letters */
#define TV_LM (TV_L | TV_UPPER | TV_LOWER)
/* [^\s\p{L}\p{M}\p{N}] */
#define TV_OTHER_LM(c) ((tv_class(c) & (TV_LM | TV_N | TV_S)) == 0)

#ifdef __SSE2__
/* Runs in an ASCII text, 16 bytes at a time.  There \p{L} is [A-Za-z], the upper and lower classes
 * [A-Z] and [a-z], \p{N} [0-9] and \s [\t\n\v\f\r ] (tests/native/test_scanner.py checks this
 * against the class table). */
enum { TV_ASCII_LETTER, TV_ASCII_LOWER, TV_ASCII_UPPER, TV_ASCII_SPACE, TV_ASCII_OTHER };

/* 0xFF in each byte of v of the ASCII class `cls`. */
TV_INLINE __m128i tv_ascii_class16(__m128i v, int cls) {
    __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('z' + 1), lower));
    switch (cls) {
    case TV_ASCII_LETTER: return letter;
    case TV_ASCII_LOWER: return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('a' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('z' + 1), v));
    case TV_ASCII_UPPER: return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('A' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('Z' + 1), v));
    default: break;
    }
    __m128i space = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(8)), _mm_cmpgt_epi8(_mm_set1_epi8(14), v)),
                                 _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
    if (cls == TV_ASCII_SPACE) return space;
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), v));
    return _mm_andnot_si128(_mm_or_si128(_mm_or_si128(letter, digit), space), _mm_set1_epi8(-1));
}

/* The end of the run of class `cls` at i (the tail byte by byte, with the class table). */
TV_INLINE ptrdiff_t tv_ascii_run(const tv_text *t, ptrdiff_t i, int cls, unsigned mask) {
    const uint8_t *p = (const uint8_t *)t->data;
    ptrdiff_t n = t->n;
    for (; i + 16 <= n; i += 16) {
        __m128i in = tv_ascii_class16(_mm_loadu_si128((const __m128i *)(p + i)), cls);
        unsigned out = ~(unsigned)_mm_movemask_epi8(in) & 0xFFFF;
        if (out) return i + __builtin_ctz(out);
    }
    if (cls == TV_ASCII_OTHER)
        while (i < n && TV_OTHER(p[i])) i++;
    else
        while (i < n && TV_IS(p[i], mask)) i++;
    return i;
}
#endif

TV_INLINE ptrdiff_t tv_run(const tv_text *t, ptrdiff_t i, unsigned mask) {
#ifdef __SSE2__
    if (t->ascii) {
        if (mask == TV_L) return tv_ascii_run(t, i, TV_ASCII_LETTER, mask);
        if (mask == TV_LOWER) return tv_ascii_run(t, i, TV_ASCII_LOWER, mask);
        if (mask == TV_UPPER) return tv_ascii_run(t, i, TV_ASCII_UPPER, mask);
        if (mask == TV_S) return tv_ascii_run(t, i, TV_ASCII_SPACE, mask);
    }
#endif
    while (i < t->n && TV_IS(tv_cp(t, i), mask)) i++;
    return i;
}

TV_INLINE ptrdiff_t tv_run_other(const tv_text *t, ptrdiff_t i) {
#ifdef __SSE2__
    if (t->ascii) return tv_ascii_run(t, i, TV_ASCII_OTHER, 0);
#endif
    while (i < t->n && TV_OTHER(tv_cp(t, i))) i++;
    return i;
}

TV_INLINE int tv_ci_in(uint32_t c, const uint32_t *set) {
    for (; *set; set++)
        if (*set == c) return 1;
    return 0;
}

/* Length of the contraction at i ('s 't 're 've 'm 'll 'd), 0 if none.  `ci`: case-insensitive,
 * as (?i:...) in the regex module (which also lets U+017F LONG S match s). */
TV_INLINE ptrdiff_t tv_contraction(const tv_text *t, ptrdiff_t i, int ci) {
    if (i + 1 >= t->n || tv_cp(t, i) != '\'') return 0;
    uint32_t a = tv_cp(t, i + 1);
    uint32_t b = i + 2 < t->n ? tv_cp(t, i + 2) : 0;
    if (!ci) {
        if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
        return 0;
    }
    if (tv_ci_in(a, tv_ci_s) || tv_ci_in(a, tv_ci_t) || tv_ci_in(a, tv_ci_m) || tv_ci_in(a, tv_ci_d)) return 2;
    if (!b) return 0;
    if ((tv_ci_in(a, tv_ci_r) && tv_ci_in(b, tv_ci_e)) || (tv_ci_in(a, tv_ci_v) && tv_ci_in(b, tv_ci_e)) ||
        (tv_ci_in(a, tv_ci_l) && tv_ci_in(b, tv_ci_l)))
        return 3;
    return 0;
}

/* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * (and tiktoken's possessive spelling of it, which cuts the same pieces) */
TV_INLINE ptrdiff_t tv_scan_gpt2(const tv_text *t, ptrdiff_t i) {
    ptrdiff_t n = t->n, k;
    uint32_t c = tv_cp(t, i);
    if (c == '\'' && (k = tv_contraction(t, i, 0))) return i + k;
    ptrdiff_t s = i;
    uint32_t d = c;
    if (c == ' ' && i + 1 < n) {
        uint32_t c1 = tv_cp(t, i + 1);
        if (!TV_IS(c1, TV_S)) { /* ' ?' takes the space when the class that follows matches */
            s = i + 1;
            d = c1;
        }
    }
    if (TV_IS(d, TV_L)) return tv_run(t, s + 1, TV_L);
    if (TV_IS(d, TV_N)) return tv_run(t, s + 1, TV_N);
    if (TV_OTHER(d)) return tv_run_other(t, s + 1);
    /* white space (c itself: a space followed by white space) */
    ptrdiff_t j = tv_run(t, i, TV_S);
    if (j == n) return n;          /* \s+(?!\S) at the end */
    if (j - i >= 2) return j - 1;  /* \s+(?!\S): leave the last one to the next word */
    return j;                      /* \s+ */
}

/* The letter and digit alternatives shared by cl100k, llama3 and qwen2:
 * [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,max_digits} | ' ?[^\s\p{L}\p{N}]+[\r\n]*'.  -1: none matched. */
TV_INLINE ptrdiff_t tv_scan_words(const tv_text *t, ptrdiff_t i, int max_digits) {
    ptrdiff_t n = t->n;
    uint32_t c = tv_cp(t, i);
    unsigned cc = tv_class(c);
    if (cc & TV_L) return tv_run(t, i + 1, TV_L);
    uint32_t c1 = i + 1 < n ? tv_cp(t, i + 1) : 0;
    if (i + 1 < n && TV_PREFIX(c) && TV_IS(c1, TV_L)) return tv_run(t, i + 2, TV_L);
    if (cc & TV_N) {
        ptrdiff_t j = i + 1;
        while (j < n && j - i < max_digits && TV_IS(tv_cp(t, j), TV_N)) j++;
        return j;
    }
    ptrdiff_t s = -1;
    if (c == ' ' && i + 1 < n && TV_OTHER(c1))
        s = i + 1;
    else if (TV_OTHER(c))
        s = i;
    if (s >= 0) {
        ptrdiff_t j = tv_run_other(t, s + 1);
        while (j < n && TV_CRLF(tv_cp(t, j))) j++;
        return j;
    }
    return -1;
}

/* Last \r or \n in [i, j), or -1. */
TV_INLINE ptrdiff_t tv_last_crlf(const tv_text *t, ptrdiff_t i, ptrdiff_t j) {
    for (ptrdiff_t m = j - 1; m >= i; m--)
        if (TV_CRLF(tv_cp(t, m))) return m;
    return -1;
}

/* '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s */
TV_INLINE ptrdiff_t tv_scan_cl100k(const tv_text *t, ptrdiff_t i) {
    ptrdiff_t n = t->n, k;
    if (tv_cp(t, i) == '\'' && (k = tv_contraction(t, i, 1))) return i + k;
    ptrdiff_t j = tv_scan_words(t, i, 3);
    if (j >= 0) return j;
    j = tv_run(t, i, TV_S);
    if (j == n) return n; /* \s++$ */
    ptrdiff_t m = tv_last_crlf(t, i, j);
    if (m >= 0) return m + 1; /* \s*[\r\n] */
    if (j - i >= 2) return j - 1;
    return i + 1;
}

/* (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 * qwen2: the same with \p{N} (one digit per piece) */
TV_INLINE ptrdiff_t tv_scan_llama3(const tv_text *t, ptrdiff_t i, int max_digits) {
    ptrdiff_t n = t->n, k;
    if (tv_cp(t, i) == '\'' && (k = tv_contraction(t, i, 1))) return i + k;
    ptrdiff_t j = tv_scan_words(t, i, max_digits);
    if (j >= 0) return j;
    j = tv_run(t, i, TV_S);
    ptrdiff_t m = tv_last_crlf(t, i, j);
    if (m >= 0) return m + 1; /* \s*[\r\n]+ */
    if (j == n) return n;
    if (j - i >= 2) return j - 1;
    return j;
}

/* (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+
 * |\s+(?!\S)|\s+  (a mark as the optional prefix cuts the piece the word alone would cut) */
TV_INLINE ptrdiff_t tv_scan_qwen35(const tv_text *t, ptrdiff_t i) {
    ptrdiff_t n = t->n, k;
    uint32_t c = tv_cp(t, i);
    if (c == '\'' && (k = tv_contraction(t, i, 1))) return i + k;
    unsigned word = t->ascii ? TV_L : TV_LM; /* (ASCII has no marks: then the 16-byte letter runs) */
    unsigned cc = tv_class(c);
    if (cc & TV_LM) return tv_run(t, i + 1, word);
    uint32_t c1 = i + 1 < n ? tv_cp(t, i + 1) : 0;
    if (i + 1 < n && TV_PREFIX(c) && TV_IS(c1, TV_LM)) return tv_run(t, i + 2, word);
    if (cc & TV_N) return i + 1;
    ptrdiff_t s = -1, j;
    if (c == ' ' && i + 1 < n && TV_OTHER_LM(c1))
        s = i + 1;
    else if (TV_OTHER_LM(c))
        s = i;
    if (s >= 0) {
        if (t->ascii)
            j = tv_run_other(t, s + 1);
        else
            for (j = s + 1; j < n && TV_OTHER_LM(tv_cp(t, j));) j++;
        while (j < n && TV_CRLF(tv_cp(t, j))) j++;
        return j;
    }
    j = tv_run(t, i, TV_S);
    ptrdiff_t m = tv_last_crlf(t, i, j);
    if (m >= 0) return m + 1; /* \s*[\r\n]+ */
    if (j == n) return n;
    if (j - i >= 2) return j - 1;
    return j;
}

/* o200k's cased word without its prefix, from s: [Upper]*[Lower]+ with the backtracking of the
 * greedy [Upper]* (Lm, Lo and marks are in both classes).  -1: no match. */
TV_INLINE ptrdiff_t tv_o200k_a(const tv_text *t, ptrdiff_t s) {
    if (s >= t->n) return -1;
    ptrdiff_t u = tv_run(t, s, TV_UPPER);
    if (u < t->n && TV_IS(tv_cp(t, u), TV_LOWER)) return tv_run(t, u + 1, TV_LOWER);
    for (ptrdiff_t m = u - 1; m >= s; m--)
        if (TV_IS(tv_cp(t, m), TV_LOWER)) return m + 1;
    return -1;
}

/* [Upper]+[Lower]* from s.  -1: no match. */
TV_INLINE ptrdiff_t tv_o200k_b(const tv_text *t, ptrdiff_t s) {
    if (s >= t->n || !TV_IS(tv_cp(t, s), TV_UPPER)) return -1;
    ptrdiff_t u = tv_run(t, s + 1, TV_UPPER);
    return tv_run(t, u, TV_LOWER);
}

/* [^\r\n\p{L}\p{N}]?[Upper]*[Lower]+(?i:'s|...)?|[^\r\n\p{L}\p{N}]?[Upper]+[Lower]*(?i:'s|...)?|\p{N}{1,3}
 * | ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
 * tekken: the same without the contractions (`contractions` 0) and with \p{N} (`max_digits` 1) */
TV_INLINE ptrdiff_t tv_scan_o200k(const tv_text *t, ptrdiff_t i, int contractions, int max_digits) {
    ptrdiff_t n = t->n, j = -1;
    uint32_t c = tv_cp(t, i);
    int prefix = TV_PREFIX(c);
    if (prefix) j = tv_o200k_a(t, i + 1);
    if (j < 0) j = tv_o200k_a(t, i);
    if (j < 0 && prefix) j = tv_o200k_b(t, i + 1);
    if (j < 0) j = tv_o200k_b(t, i);
    if (j >= 0) return contractions ? j + tv_contraction(t, j, 1) : j;
    if (TV_IS(c, TV_N)) {
        j = i + 1;
        while (j < n && j - i < max_digits && TV_IS(tv_cp(t, j), TV_N)) j++;
        return j;
    }
    ptrdiff_t s = -1;
    if (c == ' ' && i + 1 < n && TV_OTHER(tv_cp(t, i + 1)))
        s = i + 1;
    else if (TV_OTHER(c))
        s = i;
    if (s >= 0) {
        j = tv_run_other(t, s + 1);
        while (j < n) {
            uint32_t d = tv_cp(t, j);
            if (!TV_CRLF(d) && d != '/') break;
            j++;
        }
        return j;
    }
    j = tv_run(t, i, TV_S);
    ptrdiff_t m = tv_last_crlf(t, i, j);
    if (m >= 0) return m + 1;
    if (j == n) return n;
    if (j - i >= 2) return j - 1;
    return j > i ? j : i + 1;
}

/* End of the piece starting at i (i < n), any kind of text. */
TV_INLINE ptrdiff_t tv_scan_any(int pattern, const tv_text *t, ptrdiff_t i) {
    ptrdiff_t j;
    switch (pattern) {
    case TV_PAT_GPT2: j = tv_scan_gpt2(t, i); break;
    case TV_PAT_CL100K: j = tv_scan_cl100k(t, i); break;
    case TV_PAT_O200K: j = tv_scan_o200k(t, i, 1, 3); break;
    case TV_PAT_LLAMA3: j = tv_scan_llama3(t, i, 3); break;
    case TV_PAT_QWEN2: j = tv_scan_llama3(t, i, 1); break;
    case TV_PAT_TEKKEN: j = tv_scan_o200k(t, i, 0, 1); break;
    case TV_PAT_QWEN35: j = tv_scan_qwen35(t, i); break;
    default: return t->n;
    }
    return j > i ? j : i + 1; /* never stall, whatever the text */
}

/* One copy of the scanners per string kind: with the kind a constant, a code point is read
 * without a switch. */
static ptrdiff_t tv_scan_kind1(int pattern, const tv_text *t, ptrdiff_t i) {
    tv_text k = *t;
    k.kind = 1;
    return tv_scan_any(pattern, &k, i);
}

static ptrdiff_t tv_scan_kind2(int pattern, const tv_text *t, ptrdiff_t i) {
    tv_text k = *t;
    k.kind = 2;
    return tv_scan_any(pattern, &k, i);
}

static ptrdiff_t tv_scan_kind4(int pattern, const tv_text *t, ptrdiff_t i) {
    tv_text k = *t;
    k.kind = 4;
    return tv_scan_any(pattern, &k, i);
}

/* End of the piece starting at i (i < n). */
static inline ptrdiff_t tv_scan(int pattern, const tv_text *t, ptrdiff_t i) {
    switch (t->kind) {
    case 1: return tv_scan_kind1(pattern, t, i);
    case 2: return tv_scan_kind2(pattern, t, i);
    default: return tv_scan_kind4(pattern, t, i);
    }
}

#endif
