/* tokviz._spnative: sentencepiece .model encoding in C, end to end (normalizer, model, unknowns).
 *
 * tokviz/core/sentencepiece.py is the definition and this file follows it step by step:
 *
 *   normalize()       SentencePieceNormalizer.normalize_spans: user-defined symbols kept whole, the
 *                     longest rule of the precompiled charsmap (a darts-clone double array walked
 *                     over UTF-8, tokviz/core/charsmap.py), whitespace rules, each output character
 *                     keeping the [start, end) of the original text it came from.
 *   unigram_encode()  SentencePieceUnigram.viterbi, with its single-precision path scores and the
 *                     re-basing at +-100000.
 *   bpe_merge()       SentencePieceBPE.merge + _resegment, word by word when the Python model's
 *                     `by_word` says so (then with a word cache shared by the call's threads and kept
 *                     between calls, piece_cache.h).
 *   finish()          _finish: byte fallback, or one fused unknown per run.
 *
 *   SentencePieceEncoder(kind, match, scores, unk_id, unk_score, byte_ids, normalizer_symbols,
 *                        model_symbols, charsmap, add_dummy_prefix, remove_extra_whitespaces,
 *                        escape_whitespaces, treat_whitespace_as_suffix, reserved, unused, by_word)
 *   .encode(text, base=0, mode=1)   mode 0: ids; 1: (ids, [(start, end)]); 2: (ids, int32 pairs)
 *   .encode_many(texts, threads=1, mode=2)   a list of what encode gives, on `threads` threads
 *   .encode_many(texts, threads, flat=True)  (ids, offsets, []): all the ids in one int32 buffer
 *   .normalize(text) -> (normalized, starts, ends)
 *
 * Offsets are character offsets into the text given, plus `base`.  All the work runs with the GIL
 * released; the texts are read in place (str objects are immutable; references are held).
 *
 * The constructor refuses (ValueError) what it cannot reproduce exactly, and the Python glue
 * (tokviz/native/sentencepiece.py) then leaves the tokenizer on the Python path: a charsmap whose
 * replacement strings are not valid UTF-8, Unigram scores that are not single-precision numbers
 * (every .model stores floats), ids out of range.  Every read of the charsmap blob is bounds-checked.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models_common.h"
#include "batch.h"
#include "piece_cache.h"
#include "id_ints.h"

#define SPACE_MARK 0x2581u /* '▁' */
#define SCORE_RESET 100000.0
#define MAX_LEN (INT32_MAX / 2)  /* longest text, and longest normalized text, handled */
#define CACHE_WORDS (1u << 17)   /* words kept by a BPE word cache */
#define CACHE_LONGEST 256        /* longer words (code points) are not cached */

enum { RC_OK = 0, RC_NOMEM = 1, RC_SURROGATE = 2, RC_TOOLONG = 3, RC_INTERNAL = 4 };
enum { KIND_UNIGRAM = 0, KIND_BPE = 1 };

/* ---- a trie of code-point strings (the Unigram lattice walks it one character at a time) ------- */

/* An edge and what is known of the node it leads to, in one place: one memory access per step.
 * A node is known by the slot of the edge that leads to it (the root: -1). */
typedef struct {
    uint64_t key; /* (parent node + 2) << 32 | code point; 0: empty slot */
    int32_t info; /* the node's piece id * 2 (-1 * 2: only a prefix), + 1 when some piece goes on */
    float score;  /* the piece's score (single precision, as all sentencepiece scores are) */
} Edge;

typedef struct {
    Edge *edges;
    unsigned shift; /* 64 - log2(edge slots) */
    size_t mask;
} Trie;

static void trie_free(Trie *t) {
    free(t->edges);
    memset(t, 0, sizeof *t);
}

static inline size_t edge_slot(const Trie *t, uint64_t key) { return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> t->shift); }

static inline uint64_t edge_key(int32_t node, uint32_t c) { return ((uint64_t)(node + 2) << 32) | c; }

/* The edge from `node` by character c, or NULL. */
static inline const Edge *trie_child(const Trie *t, int32_t node, uint32_t c) {
    uint64_t key = edge_key(node, c);
    for (size_t i = edge_slot(t, key);; i = (i + 1) & t->mask) {
        const Edge *e = &t->edges[i];
        if (e->key == key) return e;
        if (!e->key) return NULL;
    }
}

/* Room for `max_nodes` nodes (the root included); -1 on no memory. */
static int trie_init(Trie *t, size_t max_nodes) {
    size_t slots = 16;
    unsigned bits = 4;
    while (slots < max_nodes * 2) slots <<= 1, bits++;
    t->edges = calloc(slots, sizeof(Edge));
    if (!t->edges) return -1;
    t->mask = slots - 1;
    t->shift = 64 - bits;
    return 0;
}

/* Adds key with `id` and its score (an existing id is kept, as the first id of a piece wins). */
static void trie_put(Trie *t, const uint32_t *key, size_t len, int32_t id, float score) {
    int32_t node = -1;
    Edge *last = NULL;
    for (size_t k = 0; k < len; k++) {
        uint64_t ek = edge_key(node, key[k]);
        size_t i = edge_slot(t, ek);
        while (t->edges[i].key && t->edges[i].key != ek) i = (i + 1) & t->mask;
        Edge *e = &t->edges[i];
        if (!e->key) { /* (the caller sized the trie for every character of every key) */
            e->key = ek;
            e->info = -2;
            e->score = 0.0f;
            if (last) last->info |= 1;
        }
        node = (int32_t)i;
        last = e;
    }
    if (last && (last->info >> 1) < 0) {
        last->info = id * 2 + (last->info & 1);
        last->score = score;
    }
}

/* ---- UTF-8 ------------------------------------------------------------------------------------ */

/* Length of the strictly valid UTF-8 character at s[0:n] (as Python's decoder accepts it), 0 if
 * none, and its code point in *cp. */
static size_t utf8_char(const uint8_t *s, size_t n, uint32_t *cp) {
    uint8_t b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t len;
    uint32_t c, min;
    if (b >= 0xC2 && b <= 0xDF) len = 2, c = b & 0x1F, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF) len = 3, c = b & 0x0F, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4) len = 4, c = b & 0x07, min = 0x10000;
    else return 0;
    if (len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || is_surrogate(c)) return 0;
    *cp = c;
    return len;
}

/* ---- the precompiled charsmap ------------------------------------------------------------------ */

#define DEAD UINT32_MAX

typedef struct {
    uint32_t *units;
    size_t n_units; /* 0: no charsmap */
    uint8_t *strings;
    size_t n_strings;
    /* Per BMP character: the walk's position after its bytes (DEAD: no rule goes on) and the
     * value of the rule that is exactly that character (DEAD: none). */
    uint32_t *first_pos, *first_value;
} CharsMap;

static inline size_t unit_offset(uint32_t unit) { return ((size_t)(unit >> 10)) << ((unit & (1u << 9)) >> 6); }

/* Feeds one byte to a trie walk at *pos; 0 when the walk ends, else 1 with *leaf set when a rule
 * ends after this byte (its value in *value). */
static inline int trie_step(const CharsMap *cm, size_t *pos, uint8_t c, int *leaf, uint32_t *value) {
    if (c == 0) return 0;
    size_t p = *pos ^ c;
    if (p >= cm->n_units) return 0;
    uint32_t unit = cm->units[p];
    if ((unit & (0x80000000u | 0xFFu)) != c) return 0;
    p ^= unit_offset(unit);
    if (p >= cm->n_units) return 0;
    *leaf = (unit >> 8) & 1;
    if (*leaf) *value = cm->units[p] & 0x7FFFFFFFu;
    *pos = p;
    return 1;
}

/* Whether some rule begins with character c (CharsMap.may_start). */
static int charsmap_may_start(const CharsMap *cm, uint32_t c) {
    if (!cm->n_units) return 0;
    uint8_t b[4];
    int nb = utf8_of(c, b);
    size_t pos = unit_offset(cm->units[0]);
    for (int k = 0; k < nb; k++) {
        int leaf = 0;
        uint32_t value;
        if (!trie_step(cm, &pos, b[k], &leaf, &value)) return 0;
        if (leaf) return 1;
    }
    return 1; /* the walk is still alive */
}

/* Reads code points of a text in place, or of a buffer. */
typedef struct {
    int kind; /* 1, 2, 4: a str's storage; 0: `cps` */
    const void *data;
    const uint32_t *cps;
    size_t n;
} Text;

static inline uint32_t text_at(const Text *t, size_t i) {
    switch (t->kind) {
    case 1: return ((const uint8_t *)t->data)[i];
    case 2: return ((const uint16_t *)t->data)[i];
    case 4: return ((const uint32_t *)t->data)[i];
    default: return t->cps[i];
    }
}

/* The longest rule matching the UTF-8 of text[i:] (SentencePieceNormalizer._rule): 1 with the
 * characters it covers and its value, or 0 for none (also when the longest one ends inside a
 * character, as the Python reference decides). */
static int charsmap_longest(const CharsMap *cm, const Text *t, size_t i, size_t *nchars, uint32_t *value) {
    size_t pos = unit_offset(cm->units[0]);
    int found = 0, at_boundary = 0;
    size_t chars = 0;
    uint32_t val = 0;
    size_t k = i;
    uint32_t c = text_at(t, i);
    if (c < 0x10000 && cm->first_pos) { /* the first character's walk, done in advance */
        if (cm->first_value[c] != DEAD) {
            found = at_boundary = 1;
            val = cm->first_value[c];
            chars = 1;
        }
        if (cm->first_pos[c] == DEAD) goto done;
        pos = cm->first_pos[c];
        k++;
    }
    for (; k < t->n; k++) {
        uint8_t b[4];
        int nb = utf8_of(text_at(t, k), b);
        for (int j = 0; j < nb; j++) {
            int leaf = 0;
            uint32_t v;
            if (!trie_step(cm, &pos, b[j], &leaf, &v)) goto done;
            if (leaf) {
                found = 1;
                val = v;
                at_boundary = j == nb - 1;
                chars = k - i + 1;
            }
        }
    }
done:
    if (!found || !at_boundary) return 0;
    *nchars = chars;
    *value = val;
    return 1;
}

/* ---- growable buffers ---------------------------------------------------------------------- */

typedef struct {
    uint32_t *cps;
    int32_t *starts, *ends;
    size_t n, cap;
} Norm;

static int norm_reserve(Norm *o, size_t more) {
    if (o->n + more <= o->cap) return 0;
    if (o->n + more > MAX_LEN) return RC_TOOLONG;
    size_t cap = o->cap ? o->cap : 256;
    while (cap < o->n + more) cap *= 2;
    uint32_t *c = realloc(o->cps, cap * sizeof(uint32_t));
    if (c) o->cps = c;
    int32_t *s = realloc(o->starts, cap * sizeof(int32_t));
    if (s) o->starts = s;
    int32_t *e = realloc(o->ends, cap * sizeof(int32_t));
    if (e) o->ends = e;
    if (!c || !s || !e) return RC_NOMEM;
    o->cap = cap;
    return 0;
}

static inline void norm_push(Norm *o, uint32_t c, int32_t a, int32_t b) {
    o->cps[o->n] = c;
    o->starts[o->n] = a;
    o->ends[o->n] = b;
    o->n++;
}

static void norm_free(Norm *o) {
    free(o->cps);
    free(o->starts);
    free(o->ends);
    memset(o, 0, sizeof *o);
}

/* ---- user-defined symbols -------------------------------------------------------------------- */

/* Symbols sorted by first code point, longest first within one (PrefixMatcher). */
typedef struct {
    uint32_t *pool;
    size_t *off, *len;
    size_t count;
} Symbols;

static void symbols_free(Symbols *s) {
    free(s->pool);
    free(s->off);
    free(s->len);
    memset(s, 0, sizeof *s);
}

static const Symbols *sort_target;

static int symbol_order(const void *pa, const void *pb) {
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const Symbols *s = sort_target;
    uint32_t fa = s->pool[s->off[a]], fb = s->pool[s->off[b]];
    if (fa != fb) return fa < fb ? -1 : 1;
    if (s->len[a] != s->len[b]) return s->len[a] > s->len[b] ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Reads a list of str (empty ones dropped); -1 with an exception on error. */
static int symbols_from_list(Symbols *out, PyObject *list) {
    PyObject *seq = PySequence_Fast(list, "symbols must be a sequence of str");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Symbols raw = {0};
    size_t total = 0, *order = NULL;
    int rc = -1;
    raw.off = calloc((size_t)n + 1, sizeof(size_t));
    raw.len = calloc((size_t)n + 1, sizeof(size_t));
    out->off = calloc((size_t)n + 1, sizeof(size_t));
    out->len = calloc((size_t)n + 1, sizeof(size_t));
    order = calloc((size_t)n + 1, sizeof(size_t));
    if (!raw.off || !raw.len || !out->off || !out->len || !order) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, k);
        if (!PyUnicode_Check(s)) {
            PyErr_SetString(PyExc_TypeError, "symbols must be str");
            goto done;
        }
        total += (size_t)PyUnicode_GET_LENGTH(s);
    }
    raw.pool = malloc((total + 1) * sizeof(uint32_t));
    out->pool = malloc((total + 1) * sizeof(uint32_t));
    if (!raw.pool || !out->pool) {
        PyErr_NoMemory();
        goto done;
    }
    size_t pos = 0, kept = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, k);
        Py_ssize_t len = PyUnicode_GET_LENGTH(s);
        if (len == 0) continue;
        int kind = PyUnicode_KIND(s);
        const void *data = PyUnicode_DATA(s);
        for (Py_ssize_t i = 0; i < len; i++) raw.pool[pos + (size_t)i] = PyUnicode_READ(kind, data, i);
        raw.off[kept] = pos;
        raw.len[kept] = (size_t)len;
        order[kept] = kept;
        kept++;
        pos += (size_t)len;
    }
    raw.count = kept;
    sort_target = &raw; /* (under the GIL: no other thread sorts at the same time) */
    qsort(order, kept, sizeof(size_t), symbol_order);
    pos = 0;
    for (size_t k = 0; k < kept; k++) {
        size_t s = order[k];
        memcpy(out->pool + pos, raw.pool + raw.off[s], raw.len[s] * sizeof(uint32_t));
        out->off[out->count] = pos;
        out->len[out->count] = raw.len[s];
        out->count++;
        pos += raw.len[s];
    }
    rc = 0;
done:
    symbols_free(&raw);
    free(order);
    Py_DECREF(seq);
    return rc;
}

/* Index of the first symbol starting with c, or count. */
static size_t symbols_first(const Symbols *s, uint32_t c) {
    size_t lo = 0, hi = s->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->pool[s->off[mid]] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The longest symbol at text[i:], as its index, or -1. */
static long symbols_match(const Symbols *s, const Text *t, size_t i) {
    if (!s->count) return -1;
    uint32_t c = text_at(t, i);
    for (size_t k = symbols_first(s, c); k < s->count && s->pool[s->off[k]] == c; k++) {
        size_t len = s->len[k];
        if (len > t->n - i) continue;
        const uint32_t *sym = s->pool + s->off[k];
        size_t j = 1;
        while (j < len && text_at(t, i + j) == sym[j]) j++;
        if (j == len) return (long)k;
    }
    return -1;
}

/* ---- the encoder object ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    int ready;
    int kind;
    Table match;    /* BPE: every normal piece */
    Trie lattice;   /* Unigram: the matchable pieces */
    Table reserved; /* BPE: control, unknown and byte pieces (PieceTable.piece_to_id looks here first) */
    double *scores; /* per id (Unigram: with the user-defined symbols' scores) */
    uint8_t *unused; /* per id: an unused piece (BPE) */
    size_t n_ids;
    int32_t unk_id;
    double unk_score;
    int byte_fallback;
    int32_t byte_ids[256];
    size_t longest; /* Unigram: longest matchable piece, in characters */
    Symbols norm_symbols, model_symbols;
    CharsMap charsmap;
    uint8_t *plain; /* bit per BMP character: neither a symbol nor a charsmap rule can start at it */
    uint8_t *symbol_first; /* bit per BMP character: a user-defined symbol starts with it */
    int32_t *root_edge;    /* Unigram: per BMP character, its edge from the trie's root (-1: none) */
    int holds_id_ints; /* ids below n_ids are in tv_id_ints (id_ints.h): results are lists of them */
    int add_dummy_prefix, remove_extra, escape, suffix, by_word, has_unused;
    CachePool word_caches; /* BPE by word: a word's code points -> its (id, start, end) triples */
} Encoder;

/* Whether no user-defined symbol and no charsmap rule starts at text[i] = c (BMP), found from c's
 * walk done in advance and at most one more byte: true for most of the characters that only
 * begin longer rules ('e' of 'e' + U+0301). */
static inline int stays_as_is(const Encoder *e, const Text *t, size_t i, uint32_t c) {
    const CharsMap *cm = &e->charsmap;
    if (c >= 0x10000 || !cm->first_pos || ((e->symbol_first[c >> 3] >> (c & 7)) & 1) || cm->first_value[c] != DEAD)
        return 0;
    size_t pos = cm->first_pos[c];
    if (pos == DEAD || i + 1 >= t->n) return 1;
    uint32_t d = text_at(t, i + 1);
    if (d >= 0x80) return 0;
    int leaf;
    uint32_t value;
    return !trie_step(cm, &pos, (uint8_t)d, &leaf, &value);
}

static inline int is_plain(const Encoder *e, uint32_t c) {
    if (c < 0x10000) return (e->plain[c >> 3] >> (c & 7)) & 1;
    if (e->norm_symbols.count) {
        size_t k = symbols_first(&e->norm_symbols, c);
        if (k < e->norm_symbols.count && e->norm_symbols.pool[e->norm_symbols.off[k]] == c) return 0;
    }
    return !charsmap_may_start(&e->charsmap, c);
}

/* ---- per-thread scratch ---------------------------------------------------------------------- */

typedef struct {
    double score;
    int32_t left, right, size;
} Pair;


typedef struct {
    Norm norm;
    uint32_t *rep; /* a decoded charsmap replacement */
    size_t rep_cap;
    /* Unigram lattice */
    float *best;
    int32_t *best_start, *best_id;
    size_t lattice_cap;
    /* BPE */
    int32_t *sym_start, *sym_end, *prev, *next;
    uint8_t *frozen;
    size_t sym_cap;
    Pair *heap;
    size_t heap_n, heap_cap;
    int32_t *rev_left; /* per id: length of the left part an unused piece was formed from (0: none) */
    int32_t *touched;
    size_t touched_n, touched_cap;
    int32_t *stack;
    size_t stack_cap;
    CacheUse cache;   /* BPE: the word cache of the call (set by the caller) */
    CacheBlock block; /* this thread's free room in it */
    Out raw; /* (id, start, end) in normalized characters, before finish() */
} Scratch;

static void scratch_free(Scratch *s) {
    norm_free(&s->norm);
    free(s->rep);
    free(s->best);
    free(s->best_start);
    free(s->best_id);
    free(s->sym_start);
    free(s->sym_end);
    free(s->prev);
    free(s->next);
    free(s->frozen);
    free(s->heap);
    free(s->rev_left);
    free(s->touched);
    free(s->stack);
    out_free(&s->raw);
    memset(s, 0, sizeof *s);
}

static int grow(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * item);
    if (!q) return RC_NOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* ---- normalizer -------------------------------------------------------------------------------- */

/* The piece of input at i (SentencePieceNormalizer._prefix): sets *end and the replacement. */
static int prefix_at(const Encoder *e, const Text *t, size_t i, Scratch *s, size_t *end, const uint32_t **rep,
                     size_t *rep_len, uint32_t *single) {
    uint32_t c = text_at(t, i);
    *single = c;
    *end = i + 1;
    *rep = single;
    *rep_len = 1;
    if (is_plain(e, c)) return RC_OK;
    long sym = symbols_match(&e->norm_symbols, t, i);
    if (sym >= 0) {
        *end = i + e->norm_symbols.len[sym];
        *rep = e->norm_symbols.pool + e->norm_symbols.off[sym];
        *rep_len = e->norm_symbols.len[sym];
        return RC_OK;
    }
    if (!e->charsmap.n_units) return RC_OK;
    size_t nchars;
    uint32_t value;
    if (!charsmap_longest(&e->charsmap, t, i, &nchars, &value)) return RC_OK;
    *end = i + nchars;
    /* The replacement: bytes up to a NUL, decoded as Python does with errors="replace".  The
     * constructor checked that every NUL-ended string is valid UTF-8, so only a value pointing
     * inside a character can meet invalid bytes: continuation bytes, one U+FFFD each. */
    const CharsMap *cm = &e->charsmap;
    size_t k = value, n = 0;
    size_t stop = k;
    while (stop < cm->n_strings && cm->strings[stop]) stop++;
    if (grow((void **)&s->rep, &s->rep_cap, stop - k + 1, sizeof(uint32_t))) return RC_NOMEM;
    while (k < stop) {
        uint32_t cp;
        size_t len = utf8_char(cm->strings + k, stop - k, &cp);
        if (!len) {
            cp = 0xFFFD;
            len = 1;
        }
        s->rep[n++] = cp;
        k += len;
    }
    *rep = s->rep;
    *rep_len = n;
    return RC_OK;
}

/* normalize_spans: the normalized text in s->norm with, per character, its original span. */
static int normalize(const Encoder *e, const Text *t, Scratch *s) {
    Norm *o = &s->norm;
    o->n = 0;
    size_t n = t->n, i = 0, end, rep_len;
    const uint32_t *rep;
    uint32_t single;
    int rc;
    if (e->remove_extra) {
        while (i < n) {
            if ((rc = prefix_at(e, t, i, s, &end, &rep, &rep_len, &single))) return rc;
            if (!(rep_len == 1 && rep[0] == ' ')) break;
            i = end;
        }
    }
    if (i >= n) return RC_OK;
    uint32_t space = e->escape ? SPACE_MARK : ' ';
    if ((rc = norm_reserve(o, n - i + 2))) return rc;
    if (e->add_dummy_prefix && !e->suffix) norm_push(o, space, (int32_t)i, (int32_t)i);
    int is_prev_space = e->remove_extra;
    while (i < n) {
        uint32_t c = text_at(t, i);
        if (is_plain(e, c) || stays_as_is(e, t, i, c)) { /* the replacement is c itself */
            if (o->n == o->cap && (rc = norm_reserve(o, 1))) return rc;
            if (c != ' ') {
                norm_push(o, c, (int32_t)i, (int32_t)(i + 1));
                is_prev_space = 0;
            } else if (!is_prev_space) {
                norm_push(o, space, (int32_t)i, (int32_t)(i + 1));
                is_prev_space = e->remove_extra;
            }
            i++;
            continue;
        }
        if ((rc = prefix_at(e, t, i, s, &end, &rep, &rep_len, &single))) return rc;
        size_t k = 0;
        if (rep_len == 1 && rep[0] == c && c != ' ') {
            is_prev_space = 0;
        } else if (is_prev_space) {
            while (k < rep_len && rep[k] == ' ') k++;
        }
        if (k < rep_len) {
            if ((rc = norm_reserve(o, rep_len - k))) return rc;
            for (; k < rep_len; k++) norm_push(o, e->escape && rep[k] == ' ' ? SPACE_MARK : rep[k], (int32_t)i, (int32_t)end);
            is_prev_space = rep[rep_len - 1] == ' ';
        }
        if (!e->remove_extra) is_prev_space = 0;
        i = end;
    }
    int32_t consumed = (int32_t)n;
    if (e->remove_extra) {
        while (o->n && o->cps[o->n - 1] == space) {
            consumed = o->starts[o->n - 1];
            o->n--;
        }
    }
    if (e->add_dummy_prefix && e->suffix) {
        if ((rc = norm_reserve(o, 1))) return rc;
        norm_push(o, space, consumed, consumed);
    }
    return RC_OK;
}

/* ---- Unigram ----------------------------------------------------------------------------------- */

/* SentencePieceUnigram.viterbi over norm[0:m]; the path goes to s->raw (id, start, end). */
static int unigram_encode(const Encoder *e, Scratch *s) {
    const uint32_t *w = s->norm.cps;
    size_t m = s->norm.n;
    if (m == 0) return RC_OK;
    size_t cap = s->lattice_cap;
    if (grow((void **)&s->best, &cap, m + 1, sizeof(float))) return RC_NOMEM;
    cap = s->lattice_cap;
    if (grow((void **)&s->best_start, &cap, m + 1, sizeof(int32_t))) return RC_NOMEM;
    cap = s->lattice_cap;
    if (grow((void **)&s->best_id, &cap, m + 1, sizeof(int32_t))) return RC_NOMEM;
    s->lattice_cap = cap;
    float *best = s->best;
    int32_t *best_start = s->best_start, *best_id = s->best_id;
    for (size_t k = 0; k <= m; k++) {
        best[k] = 0.0f;
        best_start[k] = -1;
        best_id[k] = -1;
    }
    const Trie *trie = &e->lattice;
    size_t reach = e->longest + 1;
    for (size_t start = 0; start < m; start++) {
        double base = best[start];
        if (base < -SCORE_RESET || base > SCORE_RESET) {
            /* sentencepiece makes this the new zero: shift what is still in play (re-rounded) */
            size_t last = start + reach < m ? start + reach : m;
            for (size_t i = start; i <= last; i++)
                if (i == start || best_start[i] >= 0) best[i] = (float)((double)best[i] - base);
            base = 0.0;
        }
        int has_single = 0;
        int32_t node = -1;
        for (size_t end = start + 1; end <= m; end++) {
            uint32_t c = w[end - 1];
            const Edge *edge;
            if (end == start + 1 && c < 0x10000) /* the first step: from a table */
                edge = e->root_edge[c] >= 0 ? trie->edges + e->root_edge[c] : NULL;
            else
                edge = trie_child(trie, node, c);
            if (!edge) break;
            node = (int32_t)(edge - trie->edges);
            int32_t id = edge->info >> 1;
            if (id >= 0) {
                float score = (float)(base + (double)edge->score);
                if (best_start[end] < 0 || score > best[end]) {
                    best[end] = score;
                    best_start[end] = (int32_t)start;
                    best_id[end] = id;
                }
                if (end == start + 1) has_single = 1;
            }
            if (!(edge->info & 1)) break; /* not a prefix of a longer piece */
        }
        if (!has_single) {
            float score = (float)(base + e->unk_score);
            if (best_start[start + 1] < 0 || score > best[start + 1]) {
                best[start + 1] = score;
                best_start[start + 1] = (int32_t)start;
                best_id[start + 1] = e->unk_id;
            }
        }
    }
    /* The path from the end, then reversed. */
    Out *raw = &s->raw;
    size_t mark = raw->n;
    for (size_t end = m; end > 0;) {
        int32_t start = best_start[end];
        if (start < 0 || (size_t)start >= end) return RC_INTERNAL;
        if (out_push(raw, best_id[end], start, (int32_t)end)) return RC_NOMEM;
        end = (size_t)start;
    }
    for (size_t i = mark, j = raw->n - 1; i < j; i++, j--) {
        int32_t tmp = raw->ids[i];
        raw->ids[i] = raw->ids[j];
        raw->ids[j] = tmp;
        int32_t *pa = raw->offs + 2 * i, *pb = raw->offs + 2 * j, a0 = pa[0], a1 = pa[1];
        pa[0] = pb[0];
        pa[1] = pb[1];
        pb[0] = a0;
        pb[1] = a1;
    }
    return RC_OK;
}

/* ---- BPE ----------------------------------------------------------------------------------------- */

/* heapq's order on (-score, left, right, size): a before b. */
static inline int pair_before(const Pair *a, const Pair *b) {
    if (a->score != b->score) return a->score > b->score;
    if (a->left != b->left) return a->left < b->left;
    if (a->right != b->right) return a->right < b->right;
    return a->size < b->size;
}

static int heap_push(Scratch *s, Pair p) {
    if (grow((void **)&s->heap, &s->heap_cap, s->heap_n + 1, sizeof(Pair))) return RC_NOMEM;
    size_t i = s->heap_n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!pair_before(&p, &s->heap[parent])) break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = p;
    return RC_OK;
}

static Pair heap_pop(Scratch *s) {
    Pair top = s->heap[0];
    Pair last = s->heap[--s->heap_n];
    size_t n = s->heap_n, i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && pair_before(&s->heap[child + 1], &s->heap[child])) child++;
        if (!pair_before(&s->heap[child], &last)) break;
        s->heap[i] = s->heap[child];
        i = child;
    }
    if (n) s->heap[i] = last;
    return top;
}

static int bpe_add_pair(const Encoder *e, Scratch *s, const uint32_t *w, int32_t left, int32_t right) {
    if (s->frozen[left] || s->frozen[right]) return RC_OK;
    int32_t a = s->sym_start[left], b = s->sym_end[right];
    int32_t id = table_id(&e->match, w + a, (size_t)(b - a));
    if (id < 0) return RC_OK;
    Pair p = {e->scores[id], left, right, b - a};
    if (heap_push(s, p)) return RC_NOMEM;
    if (e->unused[id]) { /* remember how it was formed, to undo it at the end (last one wins) */
        if (!s->rev_left[id]) {
            if (grow((void **)&s->touched, &s->touched_cap, s->touched_n + 1, sizeof(int32_t))) return RC_NOMEM;
            s->touched[s->touched_n++] = id;
        }
        s->rev_left[id] = s->sym_end[left] - a;
    }
    return RC_OK;
}

/* SentencePieceBPE._resegment of the piece w[a:b] into s->raw, with an explicit stack. */
static int bpe_resegment(const Encoder *e, Scratch *s, const uint32_t *w, int32_t a, int32_t b) {
    size_t top = 0;
    if (grow((void **)&s->stack, &s->stack_cap, 2, sizeof(int32_t))) return RC_NOMEM;
    s->stack[top++] = a;
    s->stack[top++] = b;
    while (top) {
        int32_t y = s->stack[--top], x = s->stack[--top];
        /* A piece left reserved (CONTROL, BYTE) or unused and not split comes out as unknown. */
        int32_t id = e->reserved.slots ? table_id(&e->reserved, w + x, (size_t)(y - x)) : -1;
        int32_t split = 0;
        if (id >= 0) {
            id = e->unk_id;
        } else {
            id = table_id(&e->match, w + x, (size_t)(y - x));
            if (id < 0) {
                id = e->unk_id;
            } else if (e->unused[id]) {
                split = s->rev_left[id];
                if (!(split > 0 && split < y - x)) id = e->unk_id;
            }
        }
        if (split > 0 && split < y - x) {
            if (grow((void **)&s->stack, &s->stack_cap, top + 4, sizeof(int32_t))) return RC_NOMEM;
            s->stack[top++] = x + split; /* right part, done after the left one */
            s->stack[top++] = y;
            s->stack[top++] = x;
            s->stack[top++] = x + split;
            continue;
        }
        if (out_push(&s->raw, id, x, y)) return RC_NOMEM;
    }
    return RC_OK;
}

/* SentencePieceBPE.merge of w[p:q] (positions in the normalized text), tokens appended to s->raw. */
static int bpe_merge(const Encoder *e, Scratch *s, const uint32_t *w, size_t p, size_t q) {
    size_t n = q - p;
    if (!n) return RC_OK;
    size_t cap = s->sym_cap;
    int32_t **arrays[] = {&s->sym_start, &s->sym_end, &s->prev, &s->next};
    for (int k = 0; k < 4; k++) {
        cap = s->sym_cap;
        if (grow((void **)arrays[k], &cap, n, sizeof(int32_t))) return RC_NOMEM;
    }
    cap = s->sym_cap;
    if (grow((void **)&s->frozen, &cap, n, 1)) return RC_NOMEM;
    s->sym_cap = cap;
    /* Initial symbols: user-defined symbols whole (and frozen), else single characters. */
    Text word = {0, NULL, w + p, n};
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        long sym = symbols_match(&e->model_symbols, &word, i);
        size_t j = sym >= 0 ? i + e->model_symbols.len[sym] : i + 1;
        s->sym_start[m] = (int32_t)(p + i);
        s->sym_end[m] = (int32_t)(p + j);
        s->frozen[m] = sym >= 0;
        s->prev[m] = (int32_t)m - 1;
        s->next[m] = (int32_t)m + 1;
        m++;
        i = j;
    }
    s->next[m - 1] = -1;
    s->heap_n = 0;
    int rc;
    for (size_t k = 1; k < m; k++)
        if ((rc = bpe_add_pair(e, s, w, (int32_t)k - 1, (int32_t)k))) goto reset;
    while (s->heap_n) {
        Pair top = heap_pop(s);
        int32_t left = top.left, right = top.right;
        if (s->sym_start[left] < 0 || s->sym_start[right] < 0 || s->sym_end[right] - s->sym_start[left] != top.size)
            continue; /* stale: one side has changed since this pair was queued */
        s->sym_end[left] = s->sym_end[right];
        s->sym_start[right] = -1;
        int32_t after = s->next[right];
        s->next[left] = after;
        if (after >= 0) s->prev[after] = left;
        if (s->prev[left] >= 0 && (rc = bpe_add_pair(e, s, w, s->prev[left], left))) goto reset;
        if (after >= 0 && (rc = bpe_add_pair(e, s, w, left, after))) goto reset;
    }
    rc = RC_OK;
    for (int32_t k = 0; k >= 0 && rc == RC_OK; k = s->next[k]) rc = bpe_resegment(e, s, w, s->sym_start[k], s->sym_end[k]);
reset:
    for (size_t k = 0; k < s->touched_n; k++) s->rev_left[s->touched[k]] = 0;
    s->touched_n = 0;
    return rc;
}

/* The word cache's hash of a word (its code points' bytes). */
static uint64_t word_cache_hash(const uint8_t *key, size_t len) { return hash_bytes(key, len); }

/* The tokens of the word w[p:q] from the call's word cache, or merged (and then cached). */
static int bpe_word(const Encoder *e, Scratch *s, const uint32_t *w, size_t p, size_t q) {
    Cache *c = s->cache.cache;
    size_t len = q - p, bytes = len * sizeof(uint32_t);
    if (!c || len > CACHE_LONGEST) return bpe_merge(e, s, w, p, q);
    uint64_t h = word_cache_hash((const uint8_t *)(w + p), bytes);
    size_t n_vals;
    const int32_t *tok = cache_get(c, w + p, bytes, h, &n_vals);
    if (tok) {
        for (size_t k = 0; k < n_vals; k += 3)
            if (out_push(&s->raw, tok[k], tok[k + 1] + (int32_t)p, tok[k + 2] + (int32_t)p)) return RC_NOMEM;
        return RC_OK;
    }
    size_t mark = s->raw.n;
    int rc = bpe_merge(e, s, w, p, q);
    size_t ntoks = s->raw.n - mark;
    if (rc || ntoks > CACHE_LONGEST) return rc;
    int32_t toks[3 * CACHE_LONGEST]; /* (id, start, end) relative to the word */
    for (size_t k = 0; k < ntoks; k++) {
        toks[3 * k] = s->raw.ids[mark + k];
        toks[3 * k + 1] = s->raw.offs[2 * (mark + k)] - (int32_t)p;
        toks[3 * k + 2] = s->raw.offs[2 * (mark + k) + 1] - (int32_t)p;
    }
    cache_put(c, &s->block, w + p, bytes, h, toks, 3 * ntoks, s->cache.shared);
    return RC_OK;
}

/* SentencePieceBPE.tokenize before _finish: word by word (cut before each '▁' that follows
 * another character, after it in suffix mode) when by_word, else the whole text at once. */
static int bpe_encode(const Encoder *e, Scratch *s) {
    const uint32_t *w = s->norm.cps;
    size_t m = s->norm.n;
    if (e->has_unused && !s->rev_left && !(s->rev_left = calloc(e->n_ids, sizeof(int32_t)))) return RC_NOMEM;
    if (!e->by_word) return bpe_merge(e, s, w, 0, m);
    size_t i = 0;
    while (i < m) {
        size_t j = i;
        if (e->suffix) {
            while (j < m && w[j] != SPACE_MARK) j++;
            while (j < m && w[j] == SPACE_MARK) j++;
        } else {
            while (j < m && w[j] == SPACE_MARK) j++;
            while (j < m && w[j] != SPACE_MARK) j++;
        }
        int rc = bpe_word(e, s, w, i, j);
        if (rc) return rc;
        i = j;
    }
    return RC_OK;
}

/* ---- the whole encode ----------------------------------------------------------------------------- */

/* Original [start, end) of the normalized characters [a, b): (min starts, max ends). */
static inline void original_span(const Norm *o, int32_t a, int32_t b, int32_t base, int32_t *lo, int32_t *hi) {
    int32_t x = o->starts[a], y = o->ends[a];
    for (int32_t k = a + 1; k < b; k++) {
        if (o->starts[k] < x) x = o->starts[k];
        if (o->ends[k] > y) y = o->ends[k];
    }
    *lo = x + base;
    *hi = y + base;
}

/* _finish: unknowns as byte pieces (byte fallback) or one fused unknown per run, offsets mapped
 * to the original text. */
static int finish(const Encoder *e, Scratch *s, int32_t base, Out *out) {
    const Norm *o = &s->norm;
    const Out *raw = &s->raw;
    int32_t unk = e->unk_id, last_unk_end = -1;
    for (size_t t = 0; t < raw->n; t++) {
        int32_t id = raw->ids[t], a = raw->offs[2 * t], b = raw->offs[2 * t + 1], lo, hi;
        if (id != unk) {
            original_span(o, a, b, base, &lo, &hi);
            if (out_push(out, id, lo, hi)) return RC_NOMEM;
            last_unk_end = -1;
        } else if (e->byte_fallback) {
            for (int32_t k = a; k < b; k++) {
                uint8_t bytes[4];
                int nb = utf8_of(o->cps[k], bytes);
                for (int j = 0; j < nb; j++)
                    if (out_push(out, e->byte_ids[bytes[j]], o->starts[k] + base, o->ends[k] + base)) return RC_NOMEM;
            }
        } else {
            original_span(o, a, b, base, &lo, &hi);
            if (last_unk_end == a) { /* (the output's last token is that unknown) */
                int32_t *prev = out->offs + 2 * (out->n - 1);
                if (lo < prev[0]) prev[0] = lo;
                if (hi > prev[1]) prev[1] = hi;
            } else if (out_push(out, unk, lo, hi)) {
                return RC_NOMEM;
            }
            last_unk_end = b;
        }
    }
    return RC_OK;
}

static int check_surrogates(const Text *t) {
    if (t->kind == 1) return RC_OK;
    for (size_t i = 0; i < t->n; i++)
        if (is_surrogate(text_at(t, i))) return RC_SURROGATE;
    return RC_OK;
}

static int encode_text(const Encoder *e, const Text *t, int32_t base, Scratch *s, Out *out) {
    int rc = check_surrogates(t);
    if (rc) return rc;
    if (t->n > MAX_LEN) return RC_TOOLONG;
    if ((rc = normalize(e, t, s))) return rc;
    s->raw.n = 0;
    rc = e->kind == KIND_UNIGRAM ? unigram_encode(e, s) : bpe_encode(e, s);
    if (rc) return rc;
    return finish(e, s, base, out);
}

/* ---- Python interface -------------------------------------------------------------------------- */

static int set_error(int rc) {
    switch (rc) {
    case RC_NOMEM: PyErr_NoMemory(); break;
    case RC_SURROGATE: PyErr_SetString(PyExc_ValueError, "a lone surrogate cannot be encoded as UTF-8"); break;
    case RC_TOOLONG: PyErr_SetString(PyExc_ValueError, "text too long for the native sentencepiece encoder"); break;
    default: PyErr_SetString(PyExc_SystemError, "internal error in the native sentencepiece encoder"); break;
    }
    return -1;
}

static Text text_of(PyObject *s) {
    Text t = {PyUnicode_KIND(s), PyUnicode_DATA(s), NULL, (size_t)PyUnicode_GET_LENGTH(s)};
    return t;
}

static PyObject *result_of(const Encoder *e, const Out *o, int mode) {
    PyObject *ids = PyList_New((Py_ssize_t)o->n);
    if (!ids) return NULL;
    PyObject *const *ints = tv_id_ints;
    for (size_t i = 0; i < o->n; i++) {
        PyObject *v = ints[o->ids[i]]; /* (every id produced is < n_ids) */
        Py_INCREF(v);
        PyList_SET_ITEM(ids, (Py_ssize_t)i, v);
    }
    /* Only ints: no reference cycle can go through it, and the collector need not walk it (a
       batch's lists hold millions of items: walking them was a serial pass after every batch). */
    PyObject_GC_UnTrack(ids);
    if (mode == 0) return ids;
    PyObject *offs;
    if (mode == 2) {
        offs = PyBytes_FromStringAndSize(o->n ? (const char *)o->offs : "", (Py_ssize_t)(o->n * 2 * sizeof(int32_t)));
    } else {
        offs = PyList_New((Py_ssize_t)o->n);
        for (size_t i = 0; offs && i < o->n; i++) {
            PyObject *pair = Py_BuildValue("(ii)", o->offs[2 * i], o->offs[2 * i + 1]);
            if (!pair) {
                Py_CLEAR(offs);
                break;
            }
            PyList_SET_ITEM(offs, (Py_ssize_t)i, pair);
        }
    }
    if (!offs) {
        Py_DECREF(ids);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, ids, offs);
    Py_DECREF(ids);
    Py_DECREF(offs);
    return r;
}

static int check_ready(Encoder *self) {
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "encoder not initialized");
        return -1;
    }
    return 0;
}

static PyObject *Encoder_encode(Encoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"text", "base", "mode", NULL};
    PyObject *text;
    Py_ssize_t base = 0;
    int mode = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "U|ni:encode", kwlist, &text, &base, &mode)) return NULL;
    if (check_ready(self)) return NULL;
    if (base < 0 || base > MAX_LEN || PyUnicode_GET_LENGTH(text) > MAX_LEN - base) {
        PyErr_SetString(PyExc_ValueError, "text or base too large");
        return NULL;
    }
    Text t = text_of(text);
    Scratch s = {0};
    Out out = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    s.cache.cache = cache_take(&self->word_caches, (size_t)t.n);
    rc = encode_text(self, &t, (int32_t)base, &s, &out);
    cache_give(s.cache.cache);
    scratch_free(&s);
    Py_END_ALLOW_THREADS
    PyObject *r = rc ? (set_error(rc), NULL) : result_of(self, &out, mode);
    out_free(&out);
    return r;
}

/* encode_many: the texts on `threads` threads (batch.h), with one word cache for all of them. */
typedef struct {
    const Encoder *e;
    CacheUse cache;
    const Text *texts;
    Out *outs;
    int mode;
} SpBatch;

static int sp_batch_encode(void *ctx, size_t k, void *scratch) {
    SpBatch *b = ctx;
    Scratch *s = scratch;
    s->cache = b->cache;
    Out out = {0}; /* local while it grows: neighbouring results must not share cache lines */
    int rc = encode_text(b->e, &b->texts[k], 0, s, &out);
    b->outs[k] = out;
    return rc;
}

static PyObject *sp_batch_result(void *ctx, size_t k, int rc) {
    SpBatch *b = ctx;
    PyObject *r = rc ? (set_error(rc), NULL) : result_of(b->e, &b->outs[k], b->mode);
    out_free(&b->outs[k]);
    return r;
}

static void sp_batch_scratch_free(void *scratch) { scratch_free(scratch); }

static void sp_batch_ids(void *ctx, size_t k, const int32_t **ids, size_t *n) {
    const SpBatch *b = ctx;
    *ids = b->outs[k].ids;
    *n = b->outs[k].n;
}

static PyObject *Encoder_encode_many(Encoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"texts", "threads", "mode", "flat", NULL};
    PyObject *seq;
    int threads = 1, mode = 2, flat = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iip:encode_many", kwlist, &seq, &threads, &mode, &flat))
        return NULL;
    if (check_ready(self)) return NULL;
    PyObject *items = PySequence_Fast(seq, "texts must be a sequence of str");
    if (!items) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject *result = NULL;
    Text *texts = calloc((size_t)n + 1, sizeof(Text));
    Out *outs = calloc((size_t)n + 1, sizeof(Out));
    /* Own references to the texts: while the GIL is released another thread may change the list. */
    PyObject **held = calloc((size_t)n + 1, sizeof(PyObject *));
    size_t total = 0;
    if (!texts || !outs || !held) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *s = PySequence_Fast_GET_ITEM(items, k);
        if (!PyUnicode_Check(s)) {
            PyErr_SetString(PyExc_TypeError, "texts must be str");
            goto done;
        }
        if (PyUnicode_GET_LENGTH(s) > MAX_LEN) {
            PyErr_SetString(PyExc_ValueError, "text too long for the native sentencepiece encoder");
            goto done;
        }
        if (PyUnicode_READY(s) < 0) goto done;
        Py_INCREF(s);
        held[k] = s;
        texts[k] = text_of(s);
        total += texts[k].n;
    }
    if (total < 4096) threads = 1; /* not worth a thread */
    SpBatch b = {.e = self, .texts = texts, .outs = outs, .mode = mode};
    /* One word cache for all the threads: each learns the words the others met. */
    b.cache.shared = threads > 1 && n > 1;
    Py_BEGIN_ALLOW_THREADS
    b.cache.cache = cache_take(&self->word_caches, total);
    Py_END_ALLOW_THREADS
    BatchJob job = {&b, (size_t)n, sp_batch_encode, sp_batch_result, sizeof(Scratch), sp_batch_scratch_free};
    if (flat) {
        BatchFlat how = {sp_batch_ids, -1, set_error};
        result = batch_run_flat(&job, &how, threads);
    } else {
        result = batch_run(&job, threads);
    }
    cache_give(b.cache.cache);
done:
    if (outs)
        for (Py_ssize_t i = 0; i < n; i++) out_free(&outs[i]);
    free(outs);
    free(texts);
    if (held)
        for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(held[i]);
    free(held);
    Py_DECREF(items);
    return result;
}

static PyObject *Encoder_normalize(Encoder *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U:normalize", &text)) return NULL;
    if (check_ready(self)) return NULL;
    if (PyUnicode_GET_LENGTH(text) > MAX_LEN) return set_error(RC_TOOLONG), NULL;
    Text t = text_of(text);
    Scratch s = {0};
    int rc = check_surrogates(&t);
    if (!rc) rc = normalize(self, &t, &s);
    PyObject *r = NULL;
    if (rc) {
        set_error(rc);
    } else {
        PyObject *str = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s.norm.n ? s.norm.cps : (uint32_t *)"\0\0\0", (Py_ssize_t)s.norm.n);
        PyObject *starts = PyList_New((Py_ssize_t)s.norm.n), *ends = PyList_New((Py_ssize_t)s.norm.n);
        if (str && starts && ends) {
            for (size_t i = 0; i < s.norm.n; i++) {
                PyList_SET_ITEM(starts, (Py_ssize_t)i, PyLong_FromLong(s.norm.starts[i]));
                PyList_SET_ITEM(ends, (Py_ssize_t)i, PyLong_FromLong(s.norm.ends[i]));
            }
            r = PyTuple_Pack(3, str, starts, ends);
        }
        Py_XDECREF(str);
        Py_XDECREF(starts);
        Py_XDECREF(ends);
    }
    scratch_free(&s);
    return r;
}

static PyObject *Encoder_clear_cache(Encoder *self, PyObject *unused) {
    Py_BEGIN_ALLOW_THREADS
    cache_pool_clear(&self->word_caches);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *pool_info_dict(CachePool *p) {
    size_t caches, bytes, entries;
    cache_pool_info(p, &caches, &bytes, &entries);
    return Py_BuildValue("{s:n,s:n,s:n}", "caches", (Py_ssize_t)caches, "bytes", (Py_ssize_t)bytes, "entries",
                         (Py_ssize_t)entries);
}

static PyObject *Encoder_cache_info(Encoder *self, PyObject *unused) {
    return pool_info_dict(&self->word_caches);
}

/* ---- construction ------------------------------------------------------------------------------ */

static void Encoder_free_tables(Encoder *self) {
    table_free(&self->match);
    trie_free(&self->lattice);
    table_free(&self->reserved);
    free(self->scores);
    free(self->unused);
    symbols_free(&self->norm_symbols);
    symbols_free(&self->model_symbols);
    free(self->charsmap.units);
    free(self->charsmap.strings);
    free(self->charsmap.first_pos);
    free(self->charsmap.first_value);
    self->charsmap.first_pos = self->charsmap.first_value = NULL;
    if (self->holds_id_ints) id_ints_release();
    self->holds_id_ints = 0;
    free(self->plain);
    free(self->symbol_first);
    free(self->root_edge);
    self->symbol_first = NULL;
    self->root_edge = NULL;
    self->scores = NULL;
    self->unused = NULL;
    self->charsmap.units = NULL;
    self->charsmap.strings = NULL;
    self->plain = NULL;
    cache_pool_free(&self->word_caches);
    self->ready = 0;
}

static void Encoder_dealloc(Encoder *self) {
    Encoder_free_tables(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* An id from a Python int, checked against the vocabulary size; -1 with an exception. */
static int id_of(PyObject *v, size_t n_ids, int32_t *out) {
    long id = PyLong_AsLong(v);
    if (id == -1 && PyErr_Occurred()) return -1;
    if (id < 0 || (size_t)id >= n_ids) {
        PyErr_Format(PyExc_ValueError, "piece id %ld out of range (vocabulary of %zu)", id, n_ids);
        return -1;
    }
    *out = (int32_t)id;
    return 0;
}

/* Fills a table from a dict str -> id. */
static int table_from_dict(Table *t, PyObject *dict, size_t n_ids) {
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict str -> id");
        return -1;
    }
    /* Room for every key (the table never grows). */
    size_t count = 1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "piece must be str");
            return -1;
        }
        count++;
    }
    if (table_init(t, count)) {
        PyErr_NoMemory();
        return -1;
    }
    pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        int32_t id;
        if (id_of(value, n_ids, &id)) return -1;
        Py_ssize_t len;
        uint32_t *cps = codepoints_of(key, &len);
        if (!cps) return -1;
        int rc = 0;
        if (len >= (1 << 20)) {
            free(cps);
            PyErr_SetString(PyExc_ValueError, "a piece longer than 2**20 characters");
            return -1;
        }
        if (len > 0) {
            rc = table_put(t, cps, (size_t)len, id, 0);
        }
        free(cps);
        if (rc) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* Fills a trie from a dict str -> id; -1 with an exception on error. */
static int trie_from_dict(Trie *t, PyObject *dict, const double *scores, size_t n_ids, size_t *longest) {
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict str -> id");
        return -1;
    }
    size_t nodes = 1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "piece must be str");
            return -1;
        }
        nodes += (size_t)PyUnicode_GET_LENGTH(key);
    }
    if (nodes > INT32_MAX / 8) {
        PyErr_SetString(PyExc_ValueError, "too many characters in the pieces");
        return -1;
    }
    if (trie_init(t, nodes)) {
        PyErr_NoMemory();
        return -1;
    }
    pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        int32_t id;
        if (id_of(value, n_ids, &id)) return -1;
        Py_ssize_t len;
        uint32_t *cps = codepoints_of(key, &len);
        if (!cps) return -1;
        if ((size_t)len > *longest) *longest = (size_t)len;
        float score = (float)scores[id];
        if ((double)score != scores[id]) {
            free(cps);
            PyErr_Format(PyExc_ValueError, "the score of piece %d is not a single-precision number", (int)id);
            return -1;
        }
        trie_put(t, cps, (size_t)len, id, score);
        free(cps);
    }
    return 0;
}

/* The charsmap blob (see tokviz/core/charsmap.py), every bound checked; -1 with an exception. */
static int charsmap_load(CharsMap *cm, const uint8_t *blob, size_t size) {
    memset(cm, 0, sizeof *cm);
    if (size == 0) return 0;
    if (size < 4) {
        PyErr_SetString(PyExc_ValueError, "precompiled charsmap is shorter than its 4-byte header");
        return -1;
    }
    uint32_t trie_size = (uint32_t)blob[0] | (uint32_t)blob[1] << 8 | (uint32_t)blob[2] << 16 | (uint32_t)blob[3] << 24;
    if (trie_size % 4 || (size_t)trie_size > size - 4) {
        PyErr_Format(PyExc_ValueError, "precompiled charsmap declares a trie of %u bytes in a %zu-byte blob", trie_size, size);
        return -1;
    }
    size_t n_units = trie_size / 4;
    if (n_units == 0) return 0; /* an empty trie: no charsmap (as CharsMap.is_empty) */
    cm->units = malloc(n_units * sizeof(uint32_t));
    cm->n_strings = size - 4 - trie_size;
    cm->strings = malloc(cm->n_strings + 1);
    if (!cm->units || !cm->strings) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t k = 0; k < n_units; k++) {
        const uint8_t *u = blob + 4 + 4 * k;
        cm->units[k] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
    }
    memcpy(cm->strings, blob + 4 + trie_size, cm->n_strings);
    cm->n_units = n_units;
    /* Every NUL-ended replacement must be valid UTF-8 (see prefix_at); real maps always are. */
    for (size_t k = 0; k < cm->n_strings;) {
        if (!cm->strings[k]) {
            k++;
            continue;
        }
        size_t stop = k;
        while (stop < cm->n_strings && cm->strings[stop]) stop++;
        while (k < stop) {
            uint32_t cp;
            size_t len = utf8_char(cm->strings + k, stop - k, &cp);
            if (!len) {
                PyErr_Format(PyExc_ValueError, "precompiled charsmap replacement at byte %zu is not valid UTF-8", k);
                return -1;
            }
            k += len;
        }
    }
    return 0;
}

/* CharsMap.first_pos / first_value for every BMP character; -1 with an exception. */
static int charsmap_first_steps(CharsMap *cm) {
    if (!cm->n_units) return 0;
    cm->first_pos = malloc(0x10000 * sizeof(uint32_t));
    cm->first_value = malloc(0x10000 * sizeof(uint32_t));
    if (!cm->first_pos || !cm->first_value) {
        PyErr_NoMemory();
        return -1;
    }
    for (uint32_t c = 0; c < 0x10000; c++) {
        uint8_t b[4];
        int nb = utf8_of(c, b), alive = 1, leaf = 0;
        size_t pos = unit_offset(cm->units[0]);
        uint32_t value = DEAD, v;
        for (int k = 0; k < nb && alive; k++) {
            leaf = 0;
            alive = trie_step(cm, &pos, b[k], &leaf, &v);
            if (alive && leaf && k == nb - 1) value = v;
        }
        /* (a rule ending inside the character is never the one used: see charsmap_longest) */
        cm->first_pos[c] = alive && pos < DEAD ? (uint32_t)pos : DEAD;
        cm->first_value[c] = value;
    }
    return 0;
}

static PyObject *Encoder_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"kind", "match", "scores", "unk_id", "unk_score", "byte_ids", "normalizer_symbols",
                             "model_symbols", "charsmap", "add_dummy_prefix", "remove_extra_whitespaces",
                             "escape_whitespaces", "treat_whitespace_as_suffix", "reserved", "unused", "by_word", NULL};
    int kind, unk_id, add_dummy, remove_extra, escape, suffix, by_word;
    double unk_score;
    PyObject *match, *scores, *byte_ids, *norm_symbols, *model_symbols, *reserved, *unused;
    Py_buffer charsmap;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iOOidOOOy*ppppOOp:SentencePieceEncoder", kwlist, &kind, &match,
                                     &scores, &unk_id, &unk_score, &byte_ids, &norm_symbols, &model_symbols, &charsmap,
                                     &add_dummy, &remove_extra, &escape, &suffix, &reserved, &unused, &by_word))
        return NULL;
    Encoder *self = (Encoder *)type->tp_alloc(type, 0);
    if (!self) {
        PyBuffer_Release(&charsmap);
        return NULL;
    }
    PyObject *seq = NULL;
    if (kind != KIND_UNIGRAM && kind != KIND_BPE) {
        PyErr_SetString(PyExc_ValueError, "kind must be 0 (unigram) or 1 (bpe)");
        goto fail;
    }
    self->kind = kind;
    self->add_dummy_prefix = add_dummy;
    self->remove_extra = remove_extra;
    self->escape = escape;
    self->suffix = suffix;
    self->by_word = by_word;
    self->unk_score = unk_score;
    /* scores: one per id, which also fixes the vocabulary size */
    if (!(seq = PySequence_Fast(scores, "scores must be a sequence of float"))) goto fail;
    self->n_ids = (size_t)PySequence_Fast_GET_SIZE(seq);
    if (self->n_ids == 0 || self->n_ids > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "the vocabulary must have between 1 and 2**30 pieces");
        goto fail;
    }
    self->scores = malloc(self->n_ids * sizeof(double));
    self->unused = calloc(self->n_ids, 1);
    if (!self->scores || !self->unused) {
        PyErr_NoMemory();
        goto fail;
    }
    for (size_t k = 0; k < self->n_ids; k++) {
        self->scores[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)k));
        if (self->scores[k] == -1.0 && PyErr_Occurred()) goto fail;
    }
    Py_CLEAR(seq);
    if (id_ints_acquire(self->n_ids)) goto fail;
    self->holds_id_ints = 1;
    if (unk_id < 0 || (size_t)unk_id >= self->n_ids) {
        PyErr_SetString(PyExc_ValueError, "unk_id out of range");
        goto fail;
    }
    self->unk_id = unk_id;
    if (byte_ids != Py_None) {
        if (!(seq = PySequence_Fast(byte_ids, "byte_ids must be a sequence of 256 ids"))) goto fail;
        if (PySequence_Fast_GET_SIZE(seq) != 256) {
            PyErr_SetString(PyExc_ValueError, "byte_ids must hold 256 ids");
            goto fail;
        }
        for (int b = 0; b < 256; b++)
            if (id_of(PySequence_Fast_GET_ITEM(seq, b), self->n_ids, &self->byte_ids[b])) goto fail;
        Py_CLEAR(seq);
        self->byte_fallback = 1;
    }
    if (!(seq = PySequence_Fast(unused, "unused must be a sequence of ids"))) goto fail;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        int32_t id;
        if (id_of(PySequence_Fast_GET_ITEM(seq, k), self->n_ids, &id)) goto fail;
        self->unused[id] = 1;
        self->has_unused = 1;
    }
    Py_CLEAR(seq);
    self->longest = 0;
    if (kind == KIND_UNIGRAM ? trie_from_dict(&self->lattice, match, self->scores, self->n_ids, &self->longest)
                             : table_from_dict(&self->match, match, self->n_ids))
        goto fail;
    if (self->longest == 0) self->longest = 1;
    if (PyDict_Check(reserved) && PyDict_Size(reserved) > 0) {
        if (table_from_dict(&self->reserved, reserved, self->n_ids)) goto fail;
    } else if (!PyDict_Check(reserved)) {
        PyErr_SetString(PyExc_TypeError, "reserved must be a dict str -> id");
        goto fail;
    }
    if (symbols_from_list(&self->norm_symbols, norm_symbols) || symbols_from_list(&self->model_symbols, model_symbols))
        goto fail;
    if (charsmap_load(&self->charsmap, charsmap.buf, (size_t)charsmap.len)) goto fail;
    /* The plain-character bitmap of the BMP. */
    self->plain = calloc(0x10000 / 8, 1);
    if (!self->plain) {
        PyErr_NoMemory();
        goto fail;
    }
    for (uint32_t c = 0; c < 0x10000; c++)
        if (!charsmap_may_start(&self->charsmap, c)) self->plain[c >> 3] |= (uint8_t)(1u << (c & 7));
    if (charsmap_first_steps(&self->charsmap)) goto fail;
    self->symbol_first = calloc(0x10000 / 8, 1);
    if (!self->symbol_first) {
        PyErr_NoMemory();
        goto fail;
    }
    for (size_t k = 0; k < self->norm_symbols.count; k++) {
        uint32_t c = self->norm_symbols.pool[self->norm_symbols.off[k]];
        if (c < 0x10000) {
            self->plain[c >> 3] &= (uint8_t)~(1u << (c & 7));
            self->symbol_first[c >> 3] |= (uint8_t)(1u << (c & 7));
        }
    }
    if (kind == KIND_UNIGRAM) {
        self->root_edge = malloc(0x10000 * sizeof(int32_t));
        if (!self->root_edge) {
            PyErr_NoMemory();
            goto fail;
        }
        for (uint32_t c = 0; c < 0x10000; c++) {
            const Edge *edge = trie_child(&self->lattice, -1, c);
            self->root_edge[c] = edge ? (int32_t)(edge - self->lattice.edges) : -1;
        }
    }
    if (kind == KIND_BPE && self->by_word)
        cache_pool_init(&self->word_caches,
                        (CacheShape){.entries = CACHE_WORDS, .key_bytes = 48, .vals = 24,
                                     .max_key = CACHE_LONGEST * sizeof(uint32_t), .max_vals = 3 * CACHE_LONGEST},
                        word_cache_hash);
    PyBuffer_Release(&charsmap);
    self->ready = 1;
    return (PyObject *)self;
fail:
    Py_XDECREF(seq);
    PyBuffer_Release(&charsmap);
    Py_DECREF(self);
    return NULL;
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))Encoder_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(text, base=0, mode=1): ids (mode 0), (ids, [(start, end)]) (mode 1) or (ids, int32 start/end "
     "pairs as bytes) (mode 2); offsets are character offsets into text, plus base."},
    {"encode_many", (PyCFunction)(void (*)(void))Encoder_encode_many, METH_VARARGS | METH_KEYWORDS,
     "encode_many(texts, threads=1, mode=2, flat=False): encode() of each text, on up to `threads` threads; "
     "flat=True: (ids, offsets, []) instead, all the ids in one bytearray of native int32, text k's at "
     "[offsets[k], offsets[k + 1]) of the int64 bytearray offsets; no Python object per id."},
    {"normalize", (PyCFunction)Encoder_normalize, METH_VARARGS,
     "normalize(text) -> (normalized, starts, ends): the normalizer alone, with each character's original span."},
    {"cache_info", (PyCFunction)Encoder_cache_info, METH_NOARGS,
     "cache_info() -> {caches, bytes, entries}: the caches with tables now, their bytes and the entries they hold."},
    {"clear_cache", (PyCFunction)Encoder_clear_cache, METH_NOARGS, "Forget the cached words of the BPE word caches and free their memory (benchmarks: a cold start)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz._spnative.SentencePieceEncoder",
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A sentencepiece .model encoder (normalizer, Unigram or BPE, byte fallback) in C.",
    .tp_new = Encoder_new,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_methods = Encoder_methods,
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "tokviz._spnative", "Native sentencepiece encoder for tokviz.", -1, NULL,
};

PyMODINIT_FUNC PyInit__spnative(void) {
    if (PyType_Ready(&EncoderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&EncoderType);
    if (PyModule_AddObject(m, "SentencePieceEncoder", (PyObject *)&EncoderType) < 0) {
        Py_DECREF(&EncoderType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "UNIGRAM", KIND_UNIGRAM);
    PyModule_AddIntConstant(m, "BPE", KIND_BPE);
    return m;
}
