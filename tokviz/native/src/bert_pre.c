/* BertNormalizer and BertPreTokenizer on raw text, as tokviz/core/normalizers.py and
 * pre_tokenizers.py define them (the tables come from the same functions: gen_bert_tables.py).
 * The stages of the reference, each over an array of (code point, original start, end):
 *
 *   1. clean_text (drop NUL, U+FFFD and control characters, white space -> ' ') and
 *      handle_chinese_chars (' ' c ' ' for a CJK ideograph); each character keeps its own span;
 *   2. strip_accents: NFD -- unless the text is already in NFD, where the reference keeps it as it
 *      is -- each character aligned with the original one it replaces, as HF tokenizers aligns it;
 *   3. strip_accents: drop the non-spacing marks; lowercase: each character on its own, as HF's
 *      tables say (Rust's char::to_lowercase: a capital sigma is always a small sigma);
 *   4. words: runs of characters that are neither white space nor punctuation, and each
 *      punctuation character alone.
 *
 * Spans stay sorted through all stages (stage 2 hands them out in order), so the span of
 * characters [a, b) is (start[a], end[b - 1]).
 */
#include "bert_pre.h"

#include <stdlib.h>
#include <string.h>

#include "bert_tables.h"

const char *const bert_unicode_version = BT_UNICODE_VERSION;

enum { HANGUL_COUNT = 11172, JAMO_V_COUNT = 21, JAMO_T_COUNT = 28 };

static int reserve(BertChars *b, size_t more) {
    if (b->n + more <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + more) cap *= 2;
    uint32_t *cp = realloc(b->cp, cap * sizeof(uint32_t));
    if (cp) b->cp = cp;
    int32_t *st = realloc(b->start, cap * sizeof(int32_t));
    if (st) b->start = st;
    int32_t *en = realloc(b->end, cap * sizeof(int32_t));
    if (en) b->end = en;
    if (!cp || !st || !en) return -1;
    b->cap = cap;
    return 0;
}

/* Appends without a capacity check: callers reserve first. */
static inline void put(BertChars *b, uint32_t cp, int32_t start, int32_t end) {
    b->cp[b->n] = cp;
    b->start[b->n] = start;
    b->end[b->n] = end;
    b->n++;
}

static inline uint32_t read_char(int kind, const void *data, size_t i) {
    if (kind == 1) return ((const uint8_t *)data)[i];
    if (kind == 2) return ((const uint16_t *)data)[i];
    return ((const uint32_t *)data)[i];
}

/* Stage 1 into `out`; *is_nfd tells whether the result is in NFD (unicodedata.is_normalized) and
 * *seen is the union of the flags of its characters. */
static inline int clean_and_pad(int options, int kind, const void *data, size_t n, BertChars *out, int *is_nfd,
                                unsigned *seen) {
    if (reserve(out, n + 3)) return BERT_NOMEM;
    const BertProps *space = bt_props(' ');
    unsigned last_ccc = 0, flags_seen = 0;
    int nfd = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = read_char(kind, data, i);
        if (c - 0xD800u < 0x800u) return BERT_SURROGATE;
        const BertProps *p = bt_props(c);
        if (options & BERT_CLEAN) {
            if (p->flags & BT_REMOVE) continue;
            if (p->flags & BT_SPACE) {
                c = ' ';
                p = space;
            }
        }
        if (out->n + 3 > out->cap && reserve(out, 3 + (n - i))) return BERT_NOMEM;
        int32_t a = (int32_t)i, b = (int32_t)i + 1;
        if ((options & BERT_CHINESE) && (p->flags & BT_CJK)) {
            put(out, ' ', a, b);
            put(out, c, a, b);
            put(out, ' ', a, b);
            if (p->nfd_len) nfd = 0; /* (CJK ideographs have combining class 0) */
            last_ccc = 0;
            flags_seen |= p->flags | space->flags;
            continue;
        }
        put(out, c, a, b);
        if (p->ccc && last_ccc > p->ccc) nfd = 0;
        if (p->nfd_len || (p->flags & BT_HANGUL)) nfd = 0;
        last_ccc = p->ccc;
        flags_seen |= p->flags;
    }
    *is_nfd = nfd;
    *seen = flags_seen;
    return BERT_OK;
}

static int clean_and_pad_any(int options, int kind, const void *data, size_t n, BertChars *out, int *is_nfd,
                             unsigned *seen) {
    /* One copy of the loop per string kind, the reads specialised. */
    if (kind == 1) return clean_and_pad(options, 1, data, n, out, is_nfd, seen);
    if (kind == 2) return clean_and_pad(options, 2, data, n, out, is_nfd, seen);
    return clean_and_pad(options, 4, data, n, out, is_nfd, seen);
}

/* Appends the NFD of c with the span [a, b). */
static inline void put_nfd(BertChars *out, uint32_t c, int32_t a, int32_t b) {
    const BertProps *p = bt_props(c);
    if (p->flags & BT_HANGUL) {
        uint32_t s = c - BT_HANGUL_FIRST;
        put(out, 0x1100 + s / (JAMO_V_COUNT * JAMO_T_COUNT), a, b);
        put(out, 0x1161 + (s % (JAMO_V_COUNT * JAMO_T_COUNT)) / JAMO_T_COUNT, a, b);
        if (s % JAMO_T_COUNT) put(out, 0x11A7 + s % JAMO_T_COUNT, a, b);
    } else if (p->nfd_len) {
        for (unsigned k = 0; k < p->nfd_len; k++) put(out, bt_pool[p->nfd + k], a, b);
    } else {
        put(out, c, a, b);
    }
}

/* Canonical ordering of cp[0:n): a stable sort by combining class of every run of non-starters,
 * tag[] moving with its character. */
static void canonical_order(uint32_t *cp, int32_t *tag, size_t n) {
    for (size_t i = 1; i < n; i++) {
        uint32_t c = cp[i];
        int32_t t = tag[i];
        unsigned ccc = bt_props(c)->ccc;
        if (!ccc) continue;
        size_t j = i;
        while (j > 0) {
            unsigned prev = bt_props(cp[j - 1])->ccc;
            if (prev <= ccc) break; /* (a starter, ccc 0, stops the run) */
            cp[j] = cp[j - 1];
            tag[j] = tag[j - 1];
            j--;
        }
        cp[j] = c;
        tag[j] = t;
    }
}

/* Stage 2: NFD with the spans HF tokenizers gives (NormalizedString.unicode_normalize): the first
 * character of each decomposition replaces an input character and the others are inserted;
 * after canonical ordering, which moves characters with that tag, the characters that replace
 * take the input characters' spans in order, and an inserted one takes the span of the input
 * character taken last. */
static int decompose(const BertChars *in, BertChars *out) {
    /* A character decomposes into 4 at most (3 for a Hangul syllable). */
    if (reserve(out, 4 * in->n + 4)) return BERT_NOMEM;
    for (size_t k = 0; k < in->n; k++) {
        size_t first = out->n;
        put_nfd(out, in->cp[k], 0, 0);
        for (size_t j = first + 1; j < out->n; j++) out->start[j] = 1; /* start: the inserted tag */
    }
    canonical_order(out->cp, out->start, out->n);
    size_t taken = 0;
    for (size_t j = 0; j < out->n; j++) {
        if (!out->start[j]) {
            out->start[j] = in->start[taken];
            out->end[j] = in->end[taken];
            taken++;
        } else if (taken) {
            out->start[j] = in->start[taken - 1];
            out->end[j] = in->end[taken - 1];
        } else {
            out->start[j] = out->end[j] = 0;
        }
    }
    return BERT_OK;
}

/* Stage 3: strip the Mn characters and/or lowercase. */
static int strip_and_lower(int options, const BertChars *in, BertChars *out) {
    /* Lowercasing lengthens a character to 2 at most (U+0130); the generator would say otherwise. */
    if (reserve(out, 2 * in->n + 2)) return BERT_NOMEM;
    int strip = options & BERT_STRIP, lower = options & BERT_LOWER;
    for (size_t k = 0; k < in->n; k++) {
        uint32_t c = in->cp[k];
        const BertProps *p = bt_props(c);
        if (strip && (p->flags & BT_MN)) continue;
        int32_t a = in->start[k], b = in->end[k];
        if (!lower || !p->lower_len) {
            put(out, c, a, b);
        } else if (p->lower_len == 1) {
            put(out, (uint32_t)((int32_t)c + p->lower), a, b);
        } else {
            if (reserve(out, p->lower_len)) return BERT_NOMEM;
            for (unsigned j = 0; j < p->lower_len; j++) put(out, bt_pool[p->lower + j], a, b);
        }
    }
    return BERT_OK;
}

static int add_word(BertScratch *s, size_t a, size_t b) {
    if (s->n_words == s->words_cap) {
        size_t cap = s->words_cap ? s->words_cap * 2 : 256;
        uint32_t *w = realloc(s->words, cap * 2 * sizeof(uint32_t));
        if (!w) return -1;
        s->words = w;
        s->words_cap = cap;
    }
    s->words[2 * s->n_words] = (uint32_t)a;
    s->words[2 * s->n_words + 1] = (uint32_t)b;
    s->n_words++;
    return 0;
}

/* Stage 4: BertPreTokenizer's words. */
static int split_words(const BertChars *t, BertScratch *s) {
    s->n_words = 0;
    size_t begin = 0;
    for (size_t k = 0; k < t->n; k++) {
        unsigned f = bt_props(t->cp[k])->flags;
        if (!(f & (BT_SPACE | BT_PUNCT))) continue;
        if (k > begin && add_word(s, begin, k)) return BERT_NOMEM;
        if ((f & BT_PUNCT) && !(f & BT_SPACE) && add_word(s, k, k + 1)) return BERT_NOMEM;
        begin = k + 1;
    }
    if (t->n > begin && add_word(s, begin, t->n)) return BERT_NOMEM;
    return BERT_OK;
}

int bert_pre_tokenize(int options, int kind, const void *data, size_t n, BertScratch *s, const BertChars **normalized) {
    if (n >= BERT_MAX_CHARS) return BERT_NEEDS_REFERENCE; /* (int32 positions, 3 characters a CJK one) */
    BertChars *cur = &s->stage[0];
    for (int k = 0; k < 3; k++) s->stage[k].n = 0;
    s->n_words = 0;
    int is_nfd, rc;
    unsigned seen;
    rc = clean_and_pad_any(options, kind, data, n, cur, &is_nfd, &seen);
    if (rc) return rc;
    if ((options & BERT_STRIP) && !is_nfd) {
        rc = decompose(cur, &s->stage[1]);
        if (rc) return rc;
        cur = &s->stage[1];
    }
    int strips = (options & BERT_STRIP) && (seen & BT_MN || !is_nfd);
    if (strips || (options & BERT_LOWER)) {
        rc = strip_and_lower(options, cur, &s->stage[2]);
        if (rc) return rc;
        cur = &s->stage[2];
    }
    *normalized = cur;
    return split_words(cur, s);
}

void bert_scratch_free(BertScratch *s) {
    for (int k = 0; k < 3; k++) {
        free(s->stage[k].cp);
        free(s->stage[k].start);
        free(s->stage[k].end);
    }
    free(s->words);
    memset(s, 0, sizeof *s);
}
