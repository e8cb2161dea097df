/* tokviz._native: byte-level BPE encoding in C, with the GIL released.
 *
 * An Encoder holds, built once from a tokviz BPE model:
 *   - the bytes of every token (id -> bytes) and a hash map bytes -> id;
 *   - a hash map (left id, right id) -> (rank, merged id): the merge list of an HF tokenizer, or
 *     for a tiktoken table every split a + b of a token into two tokens, ranked by the token;
 *   - a few bounded caches piece bytes -> ids, each behind its own lock (a call takes a free one and
 *     shares it with all its threads).
 * encode(text) cuts the text with a native scanner (scan.h), turns each piece into UTF-8 bytes,
 * merges them (lowest rank first, leftmost on ties, as tokviz/core/models/bpe.py does) and reports
 * each token's character span.  The Python pipeline in tokviz/core is the definition; the tests
 * in tests/native check that this agrees with it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "scan.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "scan_bits.h"
#include "sp_pieces.h"
#include "bytelevel_tables.h"
#include "text_checks.h"
#include "models.h"
#include "batch.h"
#include "piece_cache.h"
#include "char_atoms.h"
#include "id_ints.h"

#define NO_RANK INT32_MAX
#ifndef WIDE_PIECE
#define WIDE_PIECE 128 /* up to this many: rescanning 4 ranks at a time (merge_wide); beyond, the heap */
#endif
#ifndef SHORT_PIECE
#define SHORT_PIECE 16 /* up to this many symbols: merge by rescanning an array (merge_ranked) */
#endif
#ifndef CACHE_MAX_KEY
#define CACHE_MAX_KEY 128 /* longer pieces are not cached */
#endif
#ifndef CACHE_BITS
#define CACHE_BITS 17 /* 2**CACHE_BITS pieces per cache (see cache_put when it is full) */
#endif
#ifndef BLOOM_BITS
#define BLOOM_BITS 12 /* at least this many filter bits a key (up to twice): a few % false hits */
#endif
#define MAX_LISTED_LEN 256 /* token lengths the first-byte filter of whole-piece lookups covers */

/* ---- hashing ------------------------------------------------------------------------------ */

static inline uint64_t hash_pair(uint64_t key) {
    key *= 0x9E3779B97F4A7C15ULL;
    return key ^ (key >> 31);
}

/* Slots for an open-addressing table of `count` keys: at most two thirds full. */
static size_t table_size_for(size_t count) {
    size_t size = 16;
    while (size < count + count / 2 + 1) size <<= 1;
    return size;
}

/* A Bloom filter in front of a big hash table: most lookups while merging are of pairs (and whole
 * pieces) that are not there, and the filter, unlike the table, stays in the CPU cache.  Each key
 * sets two bits of one 64-bit word, chosen by hash bits the tables do not use for their slots. */
typedef struct {
    uint64_t *words; /* NULL: no filter (everything may be present) */
    size_t mask;
} Bloom;

static int bloom_init(Bloom *f, size_t count) {
    size_t words = 1;
    while (words * 64 < count * BLOOM_BITS) words <<= 1;
    f->words = calloc(words, sizeof(uint64_t));
    f->mask = words - 1;
    return f->words ? 0 : -1;
}

static inline uint64_t bloom_bits(uint64_t h) { return (1ULL << ((h >> 52) & 63)) | (1ULL << ((h >> 58) & 63)); }

static inline void bloom_add(Bloom *f, uint64_t h) { f->words[(h >> 24) & f->mask] |= bloom_bits(h); }

static inline int bloom_may_have(const Bloom *f, uint64_t h) {
    if (!f->words) return 1;
    uint64_t bits = bloom_bits(h);
    return (f->words[(h >> 24) & f->mask] & bits) == bits;
}

/* ---- the encoder ---------------------------------------------------------------------------- */


/* A slot of the table bytes -> token id.  A token of up to 8 bytes is recognised from its slot
 * alone (one memory access per probe); a longer one is compared with its remaining bytes. */
typedef struct {
    uint64_t head; /* the token's first 8 bytes (zero-padded: see bytes_head) */
    uint32_t id1;  /* id + 1 (0: an empty slot) */
    uint32_t len;
} TokSlot;

/* The first min(n, 8) bytes of p as a little-endian word, zero-padded, without a library call or a
 * read outside p[0 .. n) (n >= 1). */
static inline uint64_t bytes_head(const uint8_t *p, size_t n) {
    if (n >= 8) return tv_load64(p);
    if (n >= 4) return tv_load32(p) | tv_load32(p + n - 4) << ((n - 4) * 8);
    return (uint64_t)p[0] | (uint64_t)p[n >> 1] << ((n >> 1) * 8) | (uint64_t)p[n - 1] << ((n - 1) * 8);
}

typedef struct {
    PyObject_HEAD
    int ready; /* set once __init__ has succeeded */
    int pattern;
    int ignore_merges;
    int32_t byte_id[256];
    size_t n_ids;      /* ids are 0 .. n_ids - 1 */
    uint64_t *tok_off; /* offset of token id in blob, length in tok_len (UINT32_MAX: no such token) */
    uint32_t *tok_len;
    uint8_t *blob;
    TokSlot *bmap; /* bytes -> id: an open-addressing table */
    size_t bmap_mask;
    uint64_t *pmap; /* the merges: (left << id_bits | right) << rank_bits | rank; PAIR_EMPTY = empty */
    size_t pmap_mask;
    int id_bits, rank_bits;
    int32_t *merged_of; /* the token a merge of rank r makes */
    int merged_affine;  /* ... is always r + merged_offset (tiktoken ranks, most merge lists): the
                           merging reads no table for it */
    int32_t merged_offset;
    int32_t *byte_pairs; /* the rank of the pair of byte tokens (b1, b2) at [b1 << 8 | b2] (NO_RANK:
                            none): the first round of every piece without touching the big table */
    size_t max_tok_len;
    uint8_t *long_firsts;  /* bit (len - 2) * 256 + first byte: some token of that many bytes (up to
                              MAX_LISTED_LEN) starts with that byte; whole-piece lookups skip the rest */
    size_t n_pairs;
    int holds_id_ints; /* ids below n_ids are in tv_id_ints (id_ints.h) */
    Bloom pair_filter;  /* of pmap (empty while it is built) */
    Bloom token_filter; /* of bmap, for whole-piece lookups */
    CachePool caches; /* piece bytes -> ids */
    tv_atoms atoms;   /* characters merges may start from whole (char_atoms.h) */
    struct {
        PyObject *stops; /* a tuple of str (immutable: its check never goes stale) */
        int form;
        void *check;     /* its TextCheck, kept until the encoder goes */
    } checks[4];
    int n_checks;
} Encoder;

/* The id of the token with these bytes (h = hash_bytes(p, n)), or -1. */
static int32_t bytes_lookup_hashed(const Encoder *e, const uint8_t *p, size_t n, uint64_t h) {
    uint64_t head = bytes_head(p, n);
    for (size_t s = h & e->bmap_mask;; s = (s + 1) & e->bmap_mask) {
        const TokSlot *slot = &e->bmap[s];
        if (!slot->id1) return -1;
        if (slot->head != head || slot->len != n) continue;
        uint32_t id = slot->id1 - 1;
        if (n <= 8 || bytes_equal(e->blob + e->tok_off[id] + 8, p + 8, n - 8)) return (int32_t)id;
    }
}

static int32_t bytes_lookup(const Encoder *e, const uint8_t *p, size_t n) {
    return bytes_lookup_hashed(e, p, n, hash_bytes(p, n));
}

/* False when no token has n bytes and starts with p[0] (n >= 2): most long pieces of CJK text are
 * rejected here without a probe of the big table. */
static inline int may_be_token(const Encoder *e, const uint8_t *p, size_t n) {
    if (n > e->max_tok_len) return 0;
    if (n > MAX_LISTED_LEN) return 1;
    size_t bit = (n - 2) * 256 + p[0];
    return (e->long_firsts[bit >> 3] >> (bit & 7)) & 1;
}

#define PAIR_EMPTY UINT64_MAX

static inline uint64_t pair_key(const Encoder *e, int32_t a, int32_t b) {
    return (uint64_t)(uint32_t)a << e->id_bits | (uint32_t)b;
}

/* The rank of the merge of (a, b), or NO_RANK.  The slot is looked up from the key's hash
 * (hash_pair(key)); `pair_start` requests its cache line first, so that two lookups can overlap. */
static inline int32_t pair_rank_hashed(const Encoder *e, uint64_t key, uint64_t h) {
    if (!bloom_may_have(&e->pair_filter, h)) return NO_RANK;
    for (size_t s = h & e->pmap_mask;; s = (s + 1) & e->pmap_mask) {
        uint64_t v = e->pmap[s];
        if (v >> e->rank_bits == key) return (int32_t)(v & ((1ULL << e->rank_bits) - 1));
        if (v == PAIR_EMPTY) return NO_RANK;
    }
}

static inline uint64_t pair_start(const Encoder *e, uint64_t key) {
    uint64_t h = hash_pair(key);
    __builtin_prefetch(&e->pmap[h & e->pmap_mask]);
    return h;
}

static inline int32_t pair_rank(const Encoder *e, int32_t a, int32_t b) {
    uint64_t key = pair_key(e, a, b);
    return pair_rank_hashed(e, key, hash_pair(key));
}

/* Insert or overwrite (a later merge of the same pair wins, as in a Python dict). */
static void pair_insert(Encoder *e, int32_t a, int32_t b, int32_t rank) {
    uint64_t key = pair_key(e, a, b), v = key << e->rank_bits | (uint64_t)rank;
    for (size_t s = hash_pair(key) & e->pmap_mask;; s = (s + 1) & e->pmap_mask) {
        uint64_t old = e->pmap[s];
        if (old == PAIR_EMPTY || old >> e->rank_bits == key) {
            if (old == PAIR_EMPTY) e->n_pairs++;
            e->pmap[s] = v;
            return;
        }
    }
}

/* ---- merging -------------------------------------------------------------------------------- */

/* The token the merge of rank r makes. */
static inline int32_t merged_token(const Encoder *e, int32_t r) {
    return e->merged_affine ? r + e->merged_offset : e->merged_of[r];
}

typedef struct {
    uint64_t order; /* rank << 32 | position: the lowest rank first, then the leftmost */
    int32_t left, right;
} HeapItem;

static inline HeapItem heap_item(int32_t rank, int32_t pos, int32_t left, int32_t right) {
    return (HeapItem){(uint64_t)(uint32_t)rank << 32 | (uint32_t)pos, left, right};
}

static inline int heap_less(const HeapItem *x, const HeapItem *y) { return x->order < y->order; }

static void heap_push(HeapItem *h, size_t *n, HeapItem item) {
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(&item, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = item;
}

static HeapItem heap_pop(HeapItem *h, size_t *n) {
    HeapItem top = h[0], last = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= *n) break;
        size_t m = (l + 1 < *n && heap_less(&h[l + 1], &h[l])) ? l + 1 : l;
        if (!heap_less(&h[m], &last)) break;
        h[i] = h[m];
        i = m;
    }
    if (*n) h[i] = last;
    return top;
}

/* Per-thread scratch space, grown as needed. */
typedef struct {
    int32_t *sym, *rank, *next, *prev;
    HeapItem *heap;
    size_t cap;
    uint8_t *bytes;
    int32_t *char_of; /* character index (within the text) of each byte */
    size_t bytes_cap;
    CacheBlock block; /* this thread's free space in the cache of the call */
    uint8_t *run; /* an ASCII run of a text of 2- or 4-byte characters, as bytes */
    size_t run_cap;
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->sym);
    free(s->rank);
    free(s->next);
    free(s->prev);
    free(s->heap);
    free(s->bytes);
    free(s->char_of);
    free(s->run);
    memset(s, 0, sizeof(*s));
}

/* Room for n symbols and SCRATCH_PAST more: merge_wide reads and writes the ranks up to the next
 * multiple of four past the n - 1 pairs. */
#define SCRATCH_PAST 4

static int scratch_reserve(Scratch *s, size_t n) {
    n += SCRATCH_PAST;
    if (n <= s->cap) return 0;
    size_t cap = n < 64 ? 64 : n + n / 2;
    int32_t *a = realloc(s->sym, cap * sizeof(int32_t));
    if (a) s->sym = a;
    int32_t *b = realloc(s->rank, cap * sizeof(int32_t));
    if (b) s->rank = b;
    int32_t *d = realloc(s->next, cap * sizeof(int32_t));
    if (d) s->next = d;
    int32_t *f = realloc(s->prev, cap * sizeof(int32_t));
    if (f) s->prev = f;
    HeapItem *g = realloc(s->heap, 2 * cap * sizeof(HeapItem));
    if (g) s->heap = g;
    if (!a || !b || !d || !f || !g) return -1;
    s->cap = cap;
    return 0;
}

static int scratch_reserve_bytes(Scratch *s, size_t n) {
    if (n <= s->bytes_cap) return 0;
    size_t cap = n < 256 ? 256 : n + n / 2;
    uint8_t *a = realloc(s->bytes, cap);
    if (a) s->bytes = a;
    int32_t *b = realloc(s->char_of, cap * sizeof(int32_t));
    if (b) s->char_of = b;
    if (!a || !b) return -1;
    s->bytes_cap = cap;
    return 0;
}

/* memmove(a, a + 1, count * 4), without a library call: the symbols and ranks of a piece are few,
 * and the calls cost more than the copies (a quarter of the instructions of merging new English words). */
static inline void shift_down(int32_t *a, size_t count) {
    size_t k = 0;
#ifdef __SSE2__
    for (; k + 4 <= count; k += 4) _mm_storeu_si128((__m128i *)(a + k), _mm_loadu_si128((const __m128i *)(a + k + 1)));
#else
    for (; k + 4 <= count; k += 4) {
        int32_t x0 = a[k + 1], x1 = a[k + 2], x2 = a[k + 3], x3 = a[k + 4];
        a[k] = x0;
        a[k + 1] = x1;
        a[k + 2] = x2;
        a[k + 3] = x3;
    }
#endif
    if (k < count) a[k] = a[k + 1];
    if (k + 1 < count) a[k + 1] = a[k + 2];
    if (k + 2 < count) a[k + 2] = a[k + 3];
}

/* Make the merge of rank r of sym[best] and sym[best + 1] in sym[0 .. n), whose pairs' ranks are in
 * rank[]: the symbols and ranks after it move down one, and the pairs on both sides of the new
 * symbol are looked up (both lookups started before either is read).  Returns n - 1. */
static inline size_t merge_at(const Encoder *e, int32_t *sym, int32_t *rank, size_t n, size_t best, int32_t r) {
    sym[best] = merged_token(e, r);
    size_t tail = n - best - 2;
    shift_down(sym + best + 1, tail);
    shift_down(rank + best + 1, tail ? tail - 1 : 0);
    n--;
    int left = best > 0, right = best + 1 < n;
    uint64_t kl = left ? pair_key(e, sym[best - 1], sym[best]) : 0, kr = right ? pair_key(e, sym[best], sym[best + 1]) : 0;
    uint64_t hl = left ? pair_start(e, kl) : 0, hr = right ? pair_start(e, kr) : 0;
    if (left) rank[best - 1] = pair_rank_hashed(e, kl, hl);
    if (right) rank[best] = pair_rank_hashed(e, kr, hr);
    return n;
}

/* Merge the n symbols sym[0 .. n), where rank[k] is the rank of the pair (sym[k], sym[k + 1]), by
 * rescanning the ranks for the lowest; returns the number of tokens left in sym.  The token a merge
 * makes is only looked up for the merge that is made. */
static size_t merge_ranked(const Encoder *e, int32_t *sym, int32_t *rank, size_t n) {
    while (n > 1) {
        size_t best = 0;
        int32_t best_rank = NO_RANK;
        for (size_t k = 0; k + 1 < n; k++)
            if (rank[k] < best_rank) {
                best_rank = rank[k];
                best = k;
            }
        if (best_rank == NO_RANK) break;
        n = merge_at(e, sym, rank, n, best, best_rank);
    }
    return n;
}

/* Request the lines a lookup of the pair (a, b) reads: its Bloom word and first slot. */
static inline void pair_prefetch(const Encoder *e, int32_t a, int32_t b) {
    uint64_t h = hash_pair(pair_key(e, a, b));
    __builtin_prefetch(&e->pmap[h & e->pmap_mask]);
    if (e->pair_filter.words) __builtin_prefetch(&e->pair_filter.words[(h >> 24) & e->pair_filter.mask]);
}

/* The lowest of rank[0 .. m) (m a multiple of 4) and in *at the first place it is at; NO_RANK for
 * none.  Four ranks at a time: no branch on the ranks but the one that ends the search. */
static inline int32_t lowest_rank(const int32_t *rank, size_t m, size_t *at) {
#ifdef __SSE2__
    __m128i lo = _mm_set1_epi32(NO_RANK);
    for (size_t k = 0; k < m; k += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(rank + k)), lt = _mm_cmplt_epi32(v, lo);
        lo = _mm_or_si128(_mm_and_si128(lt, v), _mm_andnot_si128(lt, lo));
    }
    for (int turn = 0; turn < 2; turn++) { /* the lowest of the four lanes, in every lane */
        __m128i other = turn ? _mm_shuffle_epi32(lo, _MM_SHUFFLE(2, 3, 0, 1))
                             : _mm_shuffle_epi32(lo, _MM_SHUFFLE(1, 0, 3, 2));
        __m128i lt = _mm_cmplt_epi32(other, lo);
        lo = _mm_or_si128(_mm_and_si128(lt, other), _mm_andnot_si128(lt, lo));
    }
    int32_t best = _mm_cvtsi128_si32(lo);
    if (best == NO_RANK) return NO_RANK;
    for (size_t k = 0;; k += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(rank + k));
        int hit = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, lo)));
        if (hit) {
            *at = k + (size_t)__builtin_ctz((unsigned)hit);
            return best;
        }
    }
#else
    int32_t best = NO_RANK;
    for (size_t k = 0; k < m; k++)
        if (rank[k] < best) {
            best = rank[k];
            *at = k;
        }
    return best;
#endif
}

/* merge_ranked for SHORT_PIECE < n <= WIDE_PIECE symbols (rank[] has room for three past the
 * pairs, as the scratch arrays do): the lowest rank found four at a time, where the heap of
 * merge_long would take a branch the ranks decide at every level. */
static size_t merge_wide(const Encoder *e, int32_t *sym, int32_t *rank, size_t n) {
    for (size_t k = n - 1; k < ((n + 2) & ~(size_t)3); k++) rank[k] = NO_RANK; /* (to a multiple of 4) */
    while (n > 1) {
        size_t best = 0;
        int32_t r = lowest_rank(rank, (n + 2) & ~(size_t)3, &best);
        if (r == NO_RANK) break;
        n = merge_at(e, sym, rank, n, best, r);
        rank[n - 1] = NO_RANK; /* (the pair past the last symbol, read by the next search) */
    }
    return n;
}

/* Merge sym[0 .. n) (n <= WIDE_PIECE) from the ranks of its pairs in rank[]. */
static inline size_t merge_from_ranks(const Encoder *e, int32_t *sym, int32_t *rank, size_t n) {
    return n <= SHORT_PIECE ? merge_ranked(e, sym, rank, n) : merge_wide(e, sym, rank, n);
}

/* The same merges of sym[0 .. n) with a heap of candidate pairs and a linked list: O(n log n).  The
 * symbols are the bytes of `bytes`, or any tokens when bytes is NULL. */
static size_t merge_long(const Encoder *e, Scratch *s, int32_t *sym, const uint8_t *bytes, size_t n) {
    int32_t *next = s->next, *prev = s->prev;
    HeapItem *heap = s->heap;
    size_t hn = 0;
    for (size_t k = 0; k < n; k++) {
        next[k] = (int32_t)k + 1;
        prev[k] = (int32_t)k - 1;
    }
    for (size_t k = 0; k + 1 < n; k++) {
        int32_t r = bytes ? e->byte_pairs[(bytes[k] << 8) | bytes[k + 1]] : pair_rank(e, sym[k], sym[k + 1]);
        if (r != NO_RANK) heap_push(heap, &hn, heap_item(r, (int32_t)k, sym[k], sym[k + 1]));
    }
    /* Each merge removes a symbol and pushes at most two items: the heap never exceeds 2n. */
    while (hn) {
        HeapItem it = heap_pop(heap, &hn);
        int32_t i = (int32_t)(uint32_t)it.order, j = next[i];
        if (sym[i] < 0 || j >= (int32_t)n || sym[i] != it.left || sym[j] != it.right) continue; /* stale */
        sym[i] = merged_token(e, (int32_t)(it.order >> 32));
        sym[j] = -1;
        next[i] = next[j];
        if (next[j] < (int32_t)n) prev[next[j]] = i;
        /* the pairs on both sides of the new symbol: both lookups started before either is read */
        int32_t p = prev[i], q = next[i];
        int left = p >= 0, right = q < (int32_t)n;
        uint64_t kl = left ? pair_key(e, sym[p], sym[i]) : 0, kr = right ? pair_key(e, sym[i], sym[q]) : 0;
        uint64_t hl = left ? pair_start(e, kl) : 0, hr = right ? pair_start(e, kr) : 0;
        if (left) {
            int32_t r = pair_rank_hashed(e, kl, hl);
            if (r != NO_RANK) heap_push(heap, &hn, heap_item(r, p, sym[p], sym[i]));
        }
        if (right) {
            int32_t r = pair_rank_hashed(e, kr, hr);
            if (r != NO_RANK) heap_push(heap, &hn, heap_item(r, i, sym[i], sym[q]));
        }
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (sym[k] >= 0) sym[m++] = sym[k];
    return m;
}

/* Merge the n byte symbols of `bytes` in s->sym: the first ranks from the table of byte pairs, then
 * by rescanning (up to WIDE_PIECE) or with the heap.  Where the token a merge makes is known
 * without a table read, the pairs each first-round merge would form with its neighbours are
 * requested before the merging waits on any of them: in text not seen before those lines are
 * mostly out of the CPU cache, and one merge waits for the last. */
static size_t merge_bytes(const Encoder *e, Scratch *s, const uint8_t *bytes, size_t n) {
    int32_t *sym = s->sym, *rank = s->rank;
    if (n > WIDE_PIECE) return merge_long(e, s, sym, bytes, n);
    for (size_t k = 0; k + 1 < n; k++) rank[k] = e->byte_pairs[(bytes[k] << 8) | bytes[k + 1]];
    if (e->merged_affine)
        for (size_t k = 0; k + 1 < n; k++) {
            if (rank[k] == NO_RANK) continue;
            int32_t t = rank[k] + e->merged_offset;
            if (k > 0) pair_prefetch(e, sym[k - 1], t);
            if (k + 2 < n) pair_prefetch(e, t, sym[k + 2]);
        }
    return merge_from_ranks(e, sym, rank, n);
}

/* Merge any n symbols sym[0 .. n) (their first ranks looked up); returns the tokens left. */
static size_t merge_symbols(const Encoder *e, Scratch *s, int32_t *sym, size_t n) {
    if (n < 2) return n;
    if (n > WIDE_PIECE) return merge_long(e, s, sym, NULL, n);
    for (size_t k = 0; k + 1 < n; k++) s->rank[k] = pair_rank(e, sym[k], sym[k + 1]);
    return merge_from_ranks(e, sym, s->rank, n);
}

/* Merge the piece b[0 .. n) (UTF-8, with characters other than ASCII) starting from its atoms
 * (char_atoms.h): each character that may enter whole is one symbol, the others are their bytes,
 * and the piece is cut between two atoms no token holds side by side, each part merged alone.
 * The tokens are left in s->sym; returns their number, or 0 when the piece has no atom (the
 * bytes are then in s->sym, to be merged as usual).  *not_token is set when the piece holds two
 * characters no token holds side by side (it is then no token itself). */
static size_t merge_atoms(const Encoder *e, Scratch *s, const uint8_t *b, size_t n, int *not_token) {
    const tv_atoms *atoms = &e->atoms;
    int32_t *sym = s->sym;
    size_t out = 0, part = 0; /* the part being gathered starts at sym[part] */
    int found = 0, prev_atom = 0;
    uint32_t prev = 0; /* the code point of the character just before when it has 2-3 bytes, else 0 */
    for (size_t i = 0; i < n;) {
        size_t len;
        uint32_t cp = tv_atoms_char_at(b, i, n, &len);
        if (!cp) {
            sym[out++] = e->byte_id[b[i]];
            i++;
            prev = 0;
            prev_atom = 0;
            continue;
        }
        int joins = !prev || tv_atoms_may_join(atoms, prev, cp);
        if (!joins) *not_token = 1;
        int32_t id = tv_atom_at(atoms, b, n, i, len, cp);
        if (id >= 0) {
            if (prev_atom && !joins) {
                out = part + merge_symbols(e, s, sym + part, out - part);
                part = out;
            }
            sym[out++] = id;
            found = 1;
        } else {
            for (size_t k = 0; k < len; k++) sym[out++] = e->byte_id[b[i + k]];
        }
        prev = cp;
        prev_atom = id >= 0;
        i += len;
    }
    if (!found) return 0;
    return part + merge_symbols(e, s, sym + part, out - part);
}

/* ---- encoding a text ------------------------------------------------------------------------ */

typedef struct {
    int32_t *ids, *starts, *ends;
    size_t n, cap;
} Out;

static void out_free(Out *o) {
    free(o->ids);
    free(o->starts);
    free(o->ends);
    memset(o, 0, sizeof(*o));
}

static int out_reserve(Out *o, size_t extra, int offsets) {
    if (o->n + extra <= o->cap) return 0;
    size_t cap = o->cap ? o->cap : 64;
    while (cap < o->n + extra) cap *= 2;
    int32_t *a = realloc(o->ids, cap * sizeof(int32_t));
    if (!a) return -1;
    o->ids = a;
    if (offsets) {
        int32_t *b = realloc(o->starts, cap * sizeof(int32_t));
        if (!b) return -1;
        o->starts = b;
        int32_t *c = realloc(o->ends, cap * sizeof(int32_t));
        if (!c) return -1;
        o->ends = c;
    }
    o->cap = cap;
    return 0;
}

enum { ENC_OK = 0, ENC_NOMEM = 1, ENC_SURROGATE = 2, ENC_REJECTED = 3 /* the TextCheck failed */ };

/* Piece [a, b) of the text to UTF-8 in s->bytes from s->bytes[at] on, with each byte's character
 * in s->char_of (from the same place) when `offsets`. */
static int piece_bytes(const tv_text *t, ptrdiff_t a, ptrdiff_t b, Scratch *s, size_t at, size_t *len, int offsets) {
    if (scratch_reserve_bytes(s, at + (size_t)(b - a) * 4)) return ENC_NOMEM;
    uint8_t *p = s->bytes + at;
    size_t n = 0;
    if (!offsets) {
        for (ptrdiff_t i = a; i < b; i++) {
            uint32_t c = tv_cp(t, i);
            if (c < 0x80) {
                p[n++] = (uint8_t)c;
            } else if (c < 0x800) {
                p[n++] = (uint8_t)(0xC0 | (c >> 6));
                p[n++] = (uint8_t)(0x80 | (c & 0x3F));
            } else if (c < 0x10000) {
                if (c >= 0xD800 && c < 0xE000) return ENC_SURROGATE;
                p[n++] = (uint8_t)(0xE0 | (c >> 12));
                p[n++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
                p[n++] = (uint8_t)(0x80 | (c & 0x3F));
            } else {
                p[n++] = (uint8_t)(0xF0 | (c >> 18));
                p[n++] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
                p[n++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
                p[n++] = (uint8_t)(0x80 | (c & 0x3F));
            }
        }
        *len = n;
        return ENC_OK;
    }
    int32_t *co = s->char_of + at;
    for (ptrdiff_t i = a; i < b; i++) {
        uint32_t c = tv_cp(t, i);
        int32_t ci = (int32_t)i;
        size_t start = n;
        if (c < 0x80) {
            p[n++] = (uint8_t)c;
        } else if (c < 0x800) {
            p[n++] = (uint8_t)(0xC0 | (c >> 6));
            p[n++] = (uint8_t)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c < 0xE000) return ENC_SURROGATE;
            p[n++] = (uint8_t)(0xE0 | (c >> 12));
            p[n++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            p[n++] = (uint8_t)(0x80 | (c & 0x3F));
        } else {
            p[n++] = (uint8_t)(0xF0 | (c >> 18));
            p[n++] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            p[n++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            p[n++] = (uint8_t)(0x80 | (c & 0x3F));
        }
        while (start < n) co[start++] = ci;
    }
    *len = n;
    return ENC_OK;
}

/* Copy n ids (most cached pieces are one or two tokens: no library call, and no branch on which,
 * for those; dst has room for two and src two readable). */
static inline void copy_ids(int32_t *dst, const int32_t *src, size_t n) {
    if (n <= 2) {
        dst[0] = src[0];
        dst[1] = src[1];
    } else {
        memcpy(dst, src, n * sizeof(int32_t));
    }
}

/* The cache hash of a piece of 1 .. 16 bytes from its two words (bytes_head of its first 8 bytes
 * and of the rest, 0 for none): one multiply, no branch on the length. */
static inline uint64_t piece_words_hash(uint64_t first, uint64_t second, size_t len) {
    return tv_mix(first ^ len * 0x9E3779B97F4A7C15ULL, second) | 1;
}

/* piece_words_hash of a piece of 1 .. 8 bytes. */
static inline uint64_t short_piece_hash(uint64_t word, size_t len) { return piece_words_hash(word, 0, len); }

/* The masks of a piece's first and second 8 bytes by its length (up to 16; beyond, by length % 32). */
#define LOW_BYTES(n) ((n) >= 8 ? ~0ULL : (1ULL << (8 * (n))) - 1)
#define SECOND_WORD(n) ((n) <= 8 ? 0 : LOW_BYTES((n) - 8))
#define FOUR(f, a) f(a), f(a + 1), f(a + 2), f(a + 3)
static const uint64_t FIRST_WORD_MASK[32] = {FOUR(LOW_BYTES, 0),  FOUR(LOW_BYTES, 4),  FOUR(LOW_BYTES, 8),
                                             FOUR(LOW_BYTES, 12), FOUR(LOW_BYTES, 16), FOUR(LOW_BYTES, 20),
                                             FOUR(LOW_BYTES, 24), FOUR(LOW_BYTES, 28)};
static const uint64_t SECOND_WORD_MASK[32] = {FOUR(SECOND_WORD, 0),  FOUR(SECOND_WORD, 4),  FOUR(SECOND_WORD, 8),
                                              FOUR(SECOND_WORD, 12), FOUR(SECOND_WORD, 16), FOUR(SECOND_WORD, 20),
                                              FOUR(SECOND_WORD, 24), FOUR(SECOND_WORD, 28)};
#undef FOUR
#undef SECOND_WORD
#undef LOW_BYTES

/* The cache hash of a piece of 1 or more bytes (the pool's CacheKeyHash). */
static inline uint64_t piece_key_hash(const uint8_t *bytes, size_t len) {
    return len <= 8    ? short_piece_hash(bytes_head(bytes, len), len)
           : len <= 16 ? piece_words_hash(tv_load64(bytes), bytes_head(bytes + 8, len - 8), len)
                       : hash_bytes(bytes, len) | 1;
}

/* The hash of a piece the cache may hold (0 when the call has no cache or the piece is too long
 * for it), with the cache line its lookup starts at already requested. */
static inline uint64_t piece_hash(CacheUse use, const uint8_t *bytes, size_t len) {
    const Cache *cache = use.cache;
    if (!cache || len < 2 || len > cache->shape.max_key) return 0;
    uint64_t h = piece_key_hash(bytes, len);
    cache_prefetch(cache, h);
    return h; /* (never 0; the low bit only moves the lookup's first slot by one, rarely) */
}

/* The word of piece [i, i + len) of an ASCII text of n bytes (1 <= len <= 8): one load and a mask
 * where 8 bytes can be read. */
static inline uint64_t ascii_word(const uint8_t *text, ptrdiff_t i, size_t len, ptrdiff_t n) {
    return i + 8 <= n ? tv_load64(text + i) & (~0ULL >> (64 - 8 * len)) : bytes_head(text + i, len);
}

/* The cache hash of piece [i, i + len) of an ASCII text of n bytes, its line requested, and in
 * *word its word when it is looked up by it (`short_ok`: the cache takes keys of 8 bytes; a piece
 * of up to 8 bytes, one byte too, is then hashed by its word: that spares a branch the text cannot
 * predict, a third of the pieces of code being one byte), else 0. */
static inline uint64_t ascii_piece_hash(CacheUse cache, int short_ok, const uint8_t *text, ptrdiff_t i, size_t len,
                                        ptrdiff_t n, uint64_t *word) {
    *word = short_ok && len >= 1 && len <= 8 ? ascii_word(text, i, len, n) : 0;
    if (!*word) return piece_hash(cache, text + i, len);
    uint64_t h = short_piece_hash(*word, len);
    cache_prefetch(cache.cache, h);
    return h;
}

/* Tokens of a piece not in the call's cache, appended to out (room reserved): with ignore_merges,
 * a piece that is a token is that token; else its bytes are merged.  The result is cached (h: the
 * piece's piece_hash, 0 for none). */
static int encode_new_piece(const Encoder *e, CacheUse use, Scratch *s, const uint8_t *bytes, size_t len, uint64_t h,
                            int ascii, Out *out) {
    if (scratch_reserve(s, len)) return ENC_NOMEM;
    int not_token = 0;
    size_t m = !ascii && e->atoms.index ? merge_atoms(e, s, bytes, len, &not_token) : 0;
    /* A piece merged into one token, or with two characters no token holds side by side, is no
     * other token: the lookup is only made for the others. */
    int32_t whole = len == 1 ? e->byte_id[bytes[0]] : -1;
    if (e->ignore_merges && len > 1 && m != 1 && !not_token && may_be_token(e, bytes, len)) {
        uint64_t th = hash_bytes(bytes, len);
        if (bloom_may_have(&e->token_filter, th)) whole = bytes_lookup_hashed(e, bytes, len, th);
    }
    if (whole >= 0) {
        out->ids[out->n] = whole;
        m = 1;
    } else {
        if (!m) {
            for (size_t k = 0; k < len; k++) s->sym[k] = e->byte_id[bytes[k]];
            m = merge_bytes(e, s, bytes, len);
        }
        memcpy(out->ids + out->n, s->sym, m * sizeof(int32_t));
    }
    if (h) cache_put(use.cache, &s->block, bytes, len, h, out->ids + out->n, m, use.shared);
    out->n += m;
    return ENC_OK;
}

/* The character spans of the tokens out[first:] of the piece at character i (ASCII text: a byte
 * is a character) or of the piece whose bytes' characters are in s->char_of from `at` on. */
static void piece_offsets(const Encoder *e, const Scratch *s, Out *out, size_t first, ptrdiff_t i, int ascii, size_t at) {
    size_t pos = 0;
    for (size_t k = first; k < out->n; k++) {
        size_t tl = e->tok_len[out->ids[k]];
        if (ascii) {
            out->starts[k] = (int32_t)(i + pos);
            out->ends[k] = (int32_t)(i + pos + tl);
        } else {
            out->starts[k] = s->char_of[at + pos];
            out->ends[k] = s->char_of[at + pos + tl - 1] + 1;
        }
        pos += tl;
    }
}

/* The ids of the piece p[0 .. len) of ASCII text from the cache, else encode_new_piece (room
 * reserved; word: its word when it is looked up by it, h: its piece_hash). */
static inline int ascii_piece(Encoder *e, CacheUse cache, Scratch *s, const uint8_t *p, size_t len, uint64_t word,
                              uint64_t h, Out *out) {
    size_t n_ids;
    const int32_t *hit;
    if (h && (hit = word ? cache_get_word(cache.cache, word, len, h, &n_ids) : cache_get(cache.cache, p, len, h, &n_ids))) {
        copy_ids(out->ids + out->n, hit, n_ids);
        out->n += n_ids;
        return ENC_OK;
    }
    return encode_new_piece(e, cache, s, p, len, h, 1, out);
}

/* The pieces of ASCII text from i on that the start bits already tell and that the cache holds in
 * the first slot their words hash to, appended to out: the loop most text spends its time in, kept
 * free of everything else (a piece of up to 16 bytes is two masked loads, a multiply and one slot,
 * with no branch on its length).  It stops at the first piece it does not take (longer than 16
 * bytes, not there, more than two ids), whose end it gives in *end, or before a piece it has not
 * cut (the window's end, or 16 bytes from the text's end: *end = -1).  Returns where it stopped. */
static inline __attribute__((always_inline)) ptrdiff_t ascii_cached_pieces(tv_pieces *ps, const Cache *c,
                                                                          const uint8_t *text, ptrdiff_t n, ptrdiff_t i,
                                                                          Out *out, ptrdiff_t *end) {
    const CacheSlot *slots = c->slots;
    size_t mask = 2 * c->shape.entries - 1;
    ptrdiff_t stop = ps->limit < n - 16 ? ps->limit : n - 16, w0 = ps->w0;
    const uint64_t *starts = ps->starts;
    int32_t *ids = out->ids + out->n; /* (room for the window's bytes, and one) */
    uint64_t rest = ps->rest;
    size_t w = ps->word;
    ptrdiff_t base = w0 + (ptrdiff_t)(w * 64); /* the text position of bit 0 of starts[w] */
    *end = -1;
    while (i < stop) {
        while (!rest) {
            rest = starts[++w];
            base += 64;
        }
        ptrdiff_t j = base + __builtin_ctzll(rest);
        rest &= rest - 1;
        size_t len = (size_t)(j - i);
        /* (a piece over 16 bytes is not taken below: its masks only need to be in range) */
        uint64_t first = tv_load64(text + i) & FIRST_WORD_MASK[len & 31];
        uint64_t second = tv_load64(text + i + 8) & SECOND_WORD_MASK[len & 31];
        uint64_t h = piece_words_hash(first, second, len);
        const CacheSlot *slot = &slots[h & mask];
        uint32_t tag = atomic_load_explicit(&slot->tag, memory_order_acquire);
        /* Keys of up to 16 bytes are stored in their slot on zeroed bytes: the same length and words
         * are the same key, and a tag of 2 or more says the slot is written (its hash part, which
         * only spares comparing keys, is not needed). */
        if (len > 16 || tag < 2 || slot->key_len != len || tv_load64(slot->key.bytes) != first ||
            tv_load64(slot->key.bytes + 8) != second || slot->n_vals > CACHE_INLINE_VALS) {
            *end = j;
            break;
        }
        ids[0] = slot->vals.inl[0];
        ids[1] = slot->vals.inl[1];
        ids += slot->n_vals;
        i = j;
    }
    ps->rest = rest;
    ps->word = w;
    out->n = (size_t)(ids - out->ids);
    return i;
}

/* Encode the ASCII text t, whose UTF-8 bytes are its own data, each piece read in place.  Cut from
 * bitmaps, with a cache and no offsets to give: the cached pieces go through ascii_cached_pieces,
 * the others one at a time.  Else the next piece is cut (and its cache line requested) before the
 * current one is looked up, so that the lookup's memory access overlaps the scan.  `pattern` and
 * `open` are constants in each copy below: the pieces are cut by scan_bits.h for the patterns it
 * covers, else by scan.h's scanner inlined for 1-byte characters of that pattern.  `open`: t is an ASCII run of a longer text, of
 * which only the pieces the run decides are encoded (scan_bits.h); *done is where they end. */
static inline __attribute__((always_inline)) int encode_ascii_with(Encoder *e, const tv_text *t, CacheUse cache,
                                                                     Scratch *s, Out *out, int offsets, int pattern,
                                                                     int open, ptrdiff_t *done) {
    tv_text k = *t;
    k.kind = 1;
    k.ascii = 1;
    const uint8_t *text = (const uint8_t *)t->data;
    ptrdiff_t n = t->n, i = 0;
    int bits = tv_pieces_covers(pattern);
    tv_pieces ps;
    if (open) tv_pieces_init_open(&ps, text, n, pattern);
    else if (bits) tv_pieces_init(&ps, text, n, pattern);
#define NEXT_END(at) (open ? tv_pieces_trusted(&ps, at) : bits ? tv_pieces_next(&ps, at) : tv_scan_any(pattern, &k, at))
    if (bits && !offsets && cache.cache && cache.cache->shape.max_key >= 8) {
        /* The cached pieces the start bits tell go through ascii_cached_pieces; each other piece
         * is cut and looked up on its own. */
        while (i < n) {
            ptrdiff_t j = -1;
            if (i < ps.limit) {
                if (out_reserve(out, (size_t)(ps.limit - i) + 1, 0)) return ENC_NOMEM;
                i = ascii_cached_pieces(&ps, cache.cache, text, n, i, out, &j);
                if (i >= n) break;
            }
            if (j < 0) j = NEXT_END(i);
            if (j < 0) break; /* (open: the rest of the run is not decided by it) */
            size_t len = (size_t)(j - i);
            uint64_t word, h = ascii_piece_hash(cache, 1, text, i, len, n, &word);
            if (out_reserve(out, len + 1, 0)) return ENC_NOMEM;
            int rc = ascii_piece(e, cache, s, text + i, len, word, h, out);
            if (rc != ENC_OK) return rc;
            i = j;
        }
        *done = i;
        return ENC_OK;
    }
    ptrdiff_t j = n ? NEXT_END(0) : 0;
    *done = 0;
    if (j < 0) return ENC_OK;
    int short_ok = cache.cache && cache.cache->shape.max_key >= 8;
    size_t len = (size_t)j;
    uint64_t word, h = ascii_piece_hash(cache, short_ok, text, 0, len, n, &word);
    while (i < n) {
        ptrdiff_t next = j < n ? NEXT_END(j) : n;
#undef NEXT_END
        size_t next_len = open && next < 0 ? 0 : (size_t)(next - j);
        uint64_t next_word, h_next = ascii_piece_hash(cache, short_ok, text, j, next_len, n, &next_word);
        size_t first = out->n;
        /* (never more tokens than bytes; one more: copy_ids writes two ids for one) */
        if (out_reserve(out, len + 1, offsets)) return ENC_NOMEM;
        int rc = ascii_piece(e, cache, s, text + i, len, word, h, out);
        if (rc != ENC_OK) return rc;
        if (offsets) piece_offsets(e, s, out, first, i, 1, 0);
        i = j;
        *done = i;
        if (open && next < 0) break;
        j = next;
        len = next_len;
        word = next_word;
        h = h_next;
    }
    return ENC_OK;
}

static int encode_ascii(Encoder *e, const tv_text *t, CacheUse cache, Scratch *s, Out *out, int offsets) {
    ptrdiff_t done;
    switch (e->pattern) {
    case TV_PAT_GPT2: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_GPT2, 0, &done);
    case TV_PAT_CL100K: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_CL100K, 0, &done);
    case TV_PAT_O200K: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_O200K, 0, &done);
    case TV_PAT_LLAMA3: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_LLAMA3, 0, &done);
    case TV_PAT_QWEN2: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_QWEN2, 0, &done);
    case TV_PAT_TEKKEN: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_TEKKEN, 0, &done);
    case TV_PAT_QWEN35: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_QWEN35, 0, &done);
    default: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_NONE, 0, &done);
    }
}

/* encode_ascii of the ASCII run t of a longer text: the pieces the run decides (*done: where they
 * end, 0 for none; the pattern is one scan_bits.h covers). */
static int encode_ascii_run(Encoder *e, const tv_text *t, CacheUse cache, Scratch *s, Out *out, int offsets,
                            ptrdiff_t *done) {
    switch (e->pattern) {
    case TV_PAT_GPT2: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_GPT2, 1, done);
    case TV_PAT_CL100K: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_CL100K, 1, done);
    case TV_PAT_O200K: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_O200K, 1, done);
    case TV_PAT_LLAMA3: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_LLAMA3, 1, done);
    case TV_PAT_QWEN2: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_QWEN2, 1, done);
    case TV_PAT_TEKKEN: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_TEKKEN, 1, done);
    case TV_PAT_QWEN35: return encode_ascii_with(e, t, cache, s, out, offsets, TV_PAT_QWEN35, 1, done);
    default: *done = 0; return ENC_OK;
    }
}

#define PIECES_AHEAD 8
#define ASCII_RUN 64 /* ASCII runs at least this long in other text are encoded as ASCII text */

/* The end of the run of ASCII characters at i. */
static ptrdiff_t ascii_run_end(const tv_text *t, ptrdiff_t i) {
    ptrdiff_t n = t->n;
    if (t->kind == 1) {
        const uint8_t *p = t->data;
        while (i + 8 <= n && !(tv_load64(p + i) & 0x8080808080808080ULL)) i += 8;
        while (i < n && p[i] < 0x80) i++;
    } else if (t->kind == 2) {
        const uint16_t *p = t->data;
        while (i < n && p[i] < 0x80) i++;
    } else {
        const uint32_t *p = t->data;
        while (i < n && p[i] < 0x80) i++;
    }
    return i;
}

/* Encode the pieces the ASCII run [i, r) of t decides (encode_ascii_run); *done: where they end. */
static int encode_run(Encoder *e, const tv_text *t, ptrdiff_t i, ptrdiff_t r, CacheUse cache, Scratch *s, Out *out,
                      int offsets, ptrdiff_t *done) {
    const uint8_t *bytes;
    if (t->kind == 1) {
        bytes = (const uint8_t *)t->data + i;
    } else {
        size_t len = (size_t)(r - i);
        if (len > s->run_cap) {
            uint8_t *b = realloc(s->run, len + len / 2);
            if (!b) return ENC_NOMEM;
            s->run = b;
            s->run_cap = len + len / 2;
        }
        for (size_t k = 0; k < len; k++) s->run[k] = (uint8_t)tv_cp(t, i + (ptrdiff_t)k);
        bytes = s->run;
    }
    tv_text run = {bytes, 1, r - i, 1};
    size_t first = out->n;
    ptrdiff_t got = 0;
    int rc = r == t->n ? encode_ascii(e, &run, cache, s, out, offsets) : encode_ascii_run(e, &run, cache, s, out, offsets, &got);
    if (rc != ENC_OK) return rc;
    *done = r == t->n ? r - i : got;
    if (offsets)
        for (size_t k = first; k < out->n; k++) {
            out->starts[k] += (int32_t)i;
            out->ends[k] += (int32_t)i;
        }
    return ENC_OK;
}

/* Encode the whole text (no Python calls: runs without the GIL).  A text with other characters
 * than ASCII is cut on its code points, PIECES_AHEAD pieces at a time: each is turned into UTF-8
 * in s->bytes and its cache line requested, then they are looked up, so that each lookup's memory
 * access has overlapped the work on the pieces before it.  Its long ASCII runs are encoded as
 * ASCII text is, up to the pieces the rest of the text may change. */
static int encode_text(Encoder *e, const tv_text *t, CacheUse cache, Scratch *s, Out *out, int offsets) {
    if (t->ascii) return encode_ascii(e, t, cache, s, out, offsets);
    struct {
        ptrdiff_t i, j; /* characters */
        size_t at, len; /* UTF-8 bytes in s->bytes */
        uint64_t h;
    } ahead[PIECES_AHEAD];
    int runs = tv_pieces_covers(e->pattern);
    ptrdiff_t checked = 0; /* no ASCII run to take starts before this */
    for (ptrdiff_t i = 0; i < t->n;) {
        int count = 0, rc;
        size_t at = 0;
        ptrdiff_t run_end = -1; /* the end of the long ASCII run at i */
        while (count < PIECES_AHEAD && i < t->n) {
            if (runs && i >= checked && tv_cp(t, i) < 0x80) {
                ptrdiff_t r = ascii_run_end(t, i);
                if (r - i >= ASCII_RUN) {
                    run_end = r;
                    break;
                }
                checked = r;
            }
            ptrdiff_t j = tv_scan(e->pattern, t, i);
            size_t len;
            if ((rc = piece_bytes(t, i, j, s, at, &len, offsets)) != ENC_OK) return rc;
            ahead[count].i = i;
            ahead[count].j = j;
            ahead[count].at = at;
            ahead[count].len = len;
            ahead[count].h = piece_hash(cache, s->bytes + at, len);
            count++;
            at += len;
            i = j;
        }
        for (int k = 0; k < count; k++) {
            const uint8_t *bytes = s->bytes + ahead[k].at;
            size_t len = ahead[k].len, first = out->n, n_ids;
            uint64_t h = ahead[k].h;
            if (out_reserve(out, len, offsets)) return ENC_NOMEM;
            const int32_t *hit;
            if (len == 1) {
                out->ids[out->n++] = e->byte_id[bytes[0]];
            } else if (h && (hit = cache_get(cache.cache, bytes, len, h, &n_ids))) {
                copy_ids(out->ids + out->n, hit, n_ids);
                out->n += n_ids;
            } else if ((rc = encode_new_piece(e, cache, s, bytes, len, h, len == (size_t)(ahead[k].j - ahead[k].i),
                                              out)) != ENC_OK) {
                return rc;
            }
            if (offsets) piece_offsets(e, s, out, first, ahead[k].i, 0, ahead[k].at);
        }
        if (run_end >= 0) {
            ptrdiff_t done;
            if ((rc = encode_run(e, t, i, run_end, cache, s, out, offsets, &done)) != ENC_OK) return rc;
            checked = run_end; /* (the rest of the run, if any, is cut here: the run alone does not decide it) */
            i += done;
        }
    }
    return ENC_OK;
}

static int set_error(int rc) {
    if (rc == ENC_NOMEM)
        PyErr_NoMemory();
    else if (rc == ENC_SURROGATE)
        PyErr_SetString(PyExc_ValueError, "text has a lone surrogate: it cannot be encoded as UTF-8");
    return -1;
}

static int check_ready(const Encoder *e) {
    if (e->ready) return 0;
    PyErr_SetString(PyExc_RuntimeError, "Encoder is not initialised");
    return -1;
}

/* The TextCheck for (form, stops): one the encoder keeps for a tuple of stops it has seen (the
 * tokenizer passes the same tuple on every call: 256 special tokens are not read again each time),
 * else `tmp`, made now (*made set: the caller frees it).  NULL with a Python error. */
static const TextCheck *encoder_check(Encoder *e, int form, PyObject *stops, TextCheck *tmp, int *made) {
    *made = 0;
    int keep = stops && PyTuple_CheckExact(stops);
    for (int k = 0; keep && k < e->n_checks; k++)
        if (e->checks[k].stops == stops && e->checks[k].form == form) return e->checks[k].check;
    if (keep && e->n_checks < (int)(sizeof(e->checks) / sizeof(e->checks[0]))) {
        TextCheck *c = malloc(sizeof(TextCheck));
        if (!c) {
            PyErr_NoMemory();
            return NULL;
        }
        if (text_check_init(c, form, stops) || text_check_prepare(c)) {
            if (!PyErr_Occurred()) PyErr_NoMemory();
            text_check_free(c);
            free(c);
            return NULL;
        }
        int k = e->n_checks++;
        e->checks[k].stops = Py_NewRef(stops);
        e->checks[k].form = form;
        e->checks[k].check = c;
        return c;
    }
    if (text_check_init(tmp, form, stops)) return NULL;
    *made = 1;
    return tmp;
}

/* What encode() returns for the offsets (its `offsets` argument). */
enum { OFFSETS_NONE = 0, OFFSETS_TUPLES = 1, OFFSETS_PACKED = 2 };

/* ids; (ids, [(start, end)]); or (ids, bytes of native int32 start, end pairs): offsets + base. */
static PyObject *out_to_python(const Encoder *e, const Out *o, int offsets, Py_ssize_t base) {
    PyObject *ids = PyList_New((Py_ssize_t)o->n);
    if (!ids) return NULL;
    PyObject *const *ints = tv_id_ints;
    for (size_t k = 0; k < o->n; k++) {
        PyObject *v = ints[o->ids[k]]; /* every id the encoder emits is below n_ids */
        Py_INCREF(v);
        PyList_SET_ITEM(ids, (Py_ssize_t)k, v);
    }
    if (offsets == OFFSETS_NONE) return ids;
    if (offsets == OFFSETS_PACKED) {
        if (base < 0 || base > INT32_MAX - INT32_MAX / 4) { /* text lengths are below INT32_MAX / 4 */
            PyErr_SetString(PyExc_ValueError, "base out of range for packed offsets");
            goto fail;
        }
        PyObject *packed = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(o->n * 2 * sizeof(int32_t)));
        if (!packed) goto fail;
        int32_t *p = (int32_t *)PyBytes_AS_STRING(packed);
        for (size_t k = 0; k < o->n; k++) {
            p[2 * k] = (int32_t)(base + o->starts[k]);
            p[2 * k + 1] = (int32_t)(base + o->ends[k]);
        }
        PyObject *res = PyTuple_Pack(2, ids, packed);
        Py_DECREF(ids);
        Py_DECREF(packed);
        return res;
    }
    PyObject *offs = PyList_New((Py_ssize_t)o->n);
    if (!offs) goto fail;
    /* Tokens are mostly contiguous: the end of one is the start of the next, one int object. */
    PyObject *prev_end = NULL;
    Py_ssize_t prev_end_value = -1;
    for (size_t k = 0; k < o->n; k++) {
        Py_ssize_t a = base + o->starts[k], b = base + o->ends[k];
        PyObject *start;
        if (prev_end && a == prev_end_value) {
            start = prev_end;
            Py_INCREF(start);
        } else {
            start = PyLong_FromSsize_t(a);
        }
        PyObject *end = PyLong_FromSsize_t(b);
        PyObject *span = PyTuple_New(2);
        if (!start || !end || !span) {
            Py_XDECREF(start);
            Py_XDECREF(end);
            Py_XDECREF(span);
            Py_DECREF(offs);
            goto fail;
        }
        PyTuple_SET_ITEM(span, 0, start);
        PyTuple_SET_ITEM(span, 1, end);
        PyList_SET_ITEM(offs, (Py_ssize_t)k, span);
        prev_end = end; /* borrowed: the tuple keeps it alive */
        prev_end_value = b;
    }
    PyObject *res = PyTuple_Pack(2, ids, offs);
    Py_DECREF(ids);
    Py_DECREF(offs);
    return res;
fail:
    Py_DECREF(ids);
    return NULL;
}

static PyObject *Encoder_encode(Encoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"text", "base", "offsets", "form", "stops", NULL};
    PyObject *text, *stops = NULL;
    Py_ssize_t base = 0;
    int offsets = 1, form = TV_FORM_NONE;
    if (check_ready(self) ||
        !PyArg_ParseTupleAndKeywords(args, kw, "U|niiO:encode", kwlist, &text, &base, &offsets, &form, &stops))
        return NULL;
    if (offsets < OFFSETS_NONE || offsets > OFFSETS_PACKED) {
        PyErr_SetString(PyExc_ValueError, "offsets: 0 (none), 1 (tuples) or 2 (packed)");
        return NULL;
    }
    tv_text t;
    if (tv_text_of(text, &t)) return NULL;
    TextCheck tmp;
    int made;
    const TextCheck *check = encoder_check(self, form, stops, &tmp, &made);
    if (!check) return NULL;
    Scratch s = {0};
    Out o = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    if (text_check_active(check) && !text_check_passes(check, &t)) {
        rc = ENC_REJECTED;
    } else {
        CacheUse cache = {cache_take(&self->caches, (size_t)t.n), 0};
        rc = encode_text(self, &t, cache, &s, &o, offsets);
        cache_give(cache.cache);
    }
    Py_END_ALLOW_THREADS
    scratch_free(&s);
    if (made) text_check_free(&tmp);
    PyObject *res;
    if (rc == ENC_REJECTED)
        res = Py_NewRef(Py_None);
    else
        res = rc == ENC_OK ? out_to_python(self, &o, offsets, base) : (set_error(rc), NULL);
    out_free(&o);
    return res;
}

/* holds_none(text, stops): whether the text holds none of the strings (the check encode() makes
 * with form -1, without the encoding).  The tokenizer asks it of a raw text before it normalizes the
 * text itself. */
static PyObject *Encoder_holds_none(Encoder *self, PyObject *args) {
    PyObject *text, *stops;
    if (check_ready(self) || !PyArg_ParseTuple(args, "UO:holds_none", &text, &stops)) return NULL;
    tv_text t;
    if (tv_text_of(text, &t)) return NULL;
    TextCheck tmp;
    int made;
    const TextCheck *check = encoder_check(self, TV_FORM_NONE, stops, &tmp, &made);
    if (!check) return NULL;
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = !text_check_active(check) || text_check_passes(check, &t);
    Py_END_ALLOW_THREADS
    if (made) text_check_free(&tmp);
    return PyBool_FromLong(ok);
}

/* ---- encode_many: a list of texts on N threads (batch.h), sharing one piece cache ---------- */

typedef struct {
    Encoder *enc;
    tv_text *texts;
    Out *outs;
    int offsets, untracked;
    const TextCheck *check; /* NULL: encode every text as it is */
    CacheUse cache;         /* taken by the calling thread for all the batch's threads */
} Batch;

static int batch_encode(void *ctx, size_t k, void *scratch) {
    Batch *b = ctx;
    if (b->check && !text_check_passes(b->check, &b->texts[k])) return ENC_REJECTED;
    /* Into a local Out, stored when done: the threads write the counts of neighbouring texts'
       results on every token, and these must not share a cache line. */
    Out out = {0};
    int rc = encode_text(b->enc, &b->texts[k], b->cache, scratch, &out, b->offsets);
    b->outs[k] = out;
    return rc;
}

static PyObject *batch_result(void *ctx, size_t k, int rc) {
    Batch *b = ctx;
    PyObject *item;
    if (rc == ENC_REJECTED)
        item = Py_NewRef(Py_None);
    else
        item = rc == ENC_OK ? out_to_python(b->enc, &b->outs[k], b->offsets, 0) : (set_error(rc), NULL);
    out_free(&b->outs[k]);
    /* A list of ints cannot be part of a reference cycle: untracked, the collector never walks
       the batch's id lists (a whole pass over every id, on the GIL, after the batch). */
    if (item && rc == ENC_OK && b->untracked)
        PyObject_GC_UnTrack(b->offsets == OFFSETS_NONE ? item : PyTuple_GET_ITEM(item, 0));
    return item;
}

static void batch_scratch_free(void *scratch) { scratch_free(scratch); }

static void batch_ids(void *ctx, size_t k, const int32_t **ids, size_t *n) {
    const Batch *b = ctx;
    *ids = b->outs[k].ids;
    *n = b->outs[k].n;
}

static PyObject *Encoder_encode_many(Encoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"texts", "threads", "offsets", "form", "stops", "untracked", "flat", NULL};
    PyObject *seq, *stops = NULL;
    int threads = 1, offsets = 1, form = TV_FORM_NONE, untracked = 0, flat = 0;
    if (check_ready(self) || !PyArg_ParseTupleAndKeywords(args, kw, "O|iiiOpp:encode_many", kwlist, &seq, &threads,
                                                          &offsets, &form, &stops, &untracked, &flat))
        return NULL;
    if (flat) offsets = OFFSETS_NONE;
    if (offsets < OFFSETS_NONE || offsets > OFFSETS_PACKED) {
        PyErr_SetString(PyExc_ValueError, "offsets: 0 (none), 1 (tuples) or 2 (packed)");
        return NULL;
    }
    TextCheck tmp;
    int made;
    const TextCheck *check = encoder_check(self, form, stops, &tmp, &made);
    if (!check) return NULL;
    /* A private tuple: nothing can drop the texts while the threads read them. */
    PyObject *fast = PySequence_Tuple(seq);
    if (!fast) {
        if (made) text_check_free(&tmp);
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(fast);
    Batch b = {.enc = self, .offsets = offsets, .untracked = untracked};
    b.check = text_check_active(check) ? check : NULL;
    b.texts = calloc((size_t)n + 1, sizeof(tv_text));
    b.outs = calloc((size_t)n + 1, sizeof(Out));
    PyObject *result = NULL;
    if (!b.texts || !b.outs) {
        PyErr_NoMemory();
        goto done;
    }
    size_t total = 0; /* characters */
    for (Py_ssize_t k = 0; k < n; k++) {
        if (tv_text_of(PyTuple_GET_ITEM(fast, k), &b.texts[k])) goto done;
        total += (size_t)b.texts[k].n;
    }
    /* One cache for all the threads: each learns the pieces the others met (with a cache each,
       every thread would merge the common pieces of the batch once more). */
    b.cache.shared = threads > 1 && n > 1;
    Py_BEGIN_ALLOW_THREADS
    b.cache.cache = cache_take(&self->caches, total);
    Py_END_ALLOW_THREADS
    BatchJob job = {&b, (size_t)n, batch_encode, batch_result, sizeof(Scratch), batch_scratch_free};
    if (flat) {
        BatchFlat how = {batch_ids, ENC_REJECTED, set_error};
        result = batch_run_flat(&job, &how, threads);
    } else {
        result = batch_run(&job, threads);
    }
    cache_give(b.cache.cache);
done:
    if (b.outs)
        for (Py_ssize_t k = 0; k < n; k++) out_free(&b.outs[k]);
    free(b.texts);
    free(b.outs);
    Py_DECREF(fast);
    if (made) text_check_free(&tmp);
    return result;
}

/* ---- pre-tokenizing only (for the tests and the GUI) ---------------------------------------- */

static PyObject *scan_pieces(int pattern, PyObject *arg) {
    tv_text t;
    if (tv_text_of(arg, &t)) return NULL;
    PyObject *res = PyList_New(0);
    if (!res) return NULL;
    tv_pieces ps; /* (an ASCII text is cut as encode_ascii cuts it) */
    int bits = t.ascii && tv_pieces_covers(pattern);
    if (bits) tv_pieces_init(&ps, (const uint8_t *)t.data, t.n, pattern);
    for (ptrdiff_t i = 0; i < t.n;) {
        ptrdiff_t j = bits ? tv_pieces_next(&ps, i) : tv_scan(pattern, &t, i);
        PyObject *span = Py_BuildValue("(nn)", (Py_ssize_t)i, (Py_ssize_t)j);
        if (!span || PyList_Append(res, span)) {
            Py_XDECREF(span);
            Py_DECREF(res);
            return NULL;
        }
        Py_DECREF(span);
        i = j;
    }
    return res;
}

static PyObject *Encoder_pieces(Encoder *self, PyObject *arg) {
    if (check_ready(self)) return NULL;
    return scan_pieces(self->pattern, arg);
}

/* pieces(pattern, text): the spans the scanner for `pattern` cuts. */
static PyObject *mod_pieces(PyObject *mod, PyObject *args) {
    int pattern;
    PyObject *text;
    if (!PyArg_ParseTuple(args, "iU:pieces", &pattern, &text)) return NULL;
    if (pattern <= TV_PAT_NONE || pattern >= TV_PAT_COUNT) {
        PyErr_Format(PyExc_ValueError, "unknown pattern id %d", pattern);
        return NULL;
    }
    return scan_pieces(pattern, text);
}

/* ---- construction ----------------------------------------------------------------------------- */

static void Encoder_dealloc(Encoder *self) {
    free(self->tok_off);
    free(self->tok_len);
    free(self->blob);
    free(self->bmap);
    free(self->pmap);
    free(self->merged_of);
    free(self->byte_pairs);
    if (self->holds_id_ints) id_ints_release();
    free(self->pair_filter.words);
    free(self->token_filter.words);
    free(self->long_firsts);
    cache_pool_free(&self->caches);
    tv_atoms_free(&self->atoms);
    for (int k = 0; k < self->n_checks; k++) {
        text_check_free(self->checks[k].check);
        free(self->checks[k].check);
        Py_DECREF(self->checks[k].stops);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A big lookup table, on huge pages where the system offers them (fewer TLB misses: the pair
 * table is probed at random, several times per token). */
static void *table_alloc(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= (1u << 21)) {
        void *p = NULL;
        if (posix_memalign(&p, 1u << 21, bytes) != 0) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
        return p;
    }
#endif
    return malloc(bytes);
}

/* An empty pair table for `count` merges of ranks up to max_rank, and merged_of (all -1).  -1 with
 * a Python error when they do not fit. */
static int pmap_init(Encoder *self, size_t count, int32_t max_rank) {
    int id_bits = 1;
    while (((size_t)1 << id_bits) <= self->n_ids) id_bits++; /* (all ones is never an id: PAIR_EMPTY) */
    int rank_bits = 64 - 2 * id_bits;
    if (rank_bits < 8 || (uint64_t)max_rank + 1 >= (1ULL << (rank_bits < 62 ? rank_bits : 62))) {
        PyErr_SetString(PyExc_ValueError, "vocabulary and merge ranks too large for the native pair table");
        return -1;
    }
    self->id_bits = id_bits;
    self->rank_bits = rank_bits;
    self->merged_of = malloc(((size_t)max_rank + 1) * sizeof(int32_t));
    size_t size = table_size_for(count);
    self->pmap = table_alloc(size * sizeof(uint64_t));
    if (!self->merged_of || !self->pmap) {
        PyErr_NoMemory();
        return -1;
    }
    for (int32_t r = 0; r <= max_rank; r++) self->merged_of[r] = -1;
    memset(self->pmap, 0xFF, size * sizeof(uint64_t));
    self->pmap_mask = size - 1;
    self->n_pairs = 0;
    return 0;
}

/* Fill the pair table from `count` merges (left, right, rank, merged) in m: sized for them (at
 * most 2/3 full), with ids and ranks packed into one 64-bit slot.  -1 with a Python error when a
 * merge is not one of two tokens into a third, two merges of one rank make different tokens, or the
 * vocabulary and ranks are too large to pack. */
static int pmap_build(Encoder *self, const int32_t *m, size_t count) {
    int32_t max_rank = -1;
    for (size_t k = 0; k < count; k++) {
        int32_t a = m[4 * k], b = m[4 * k + 1], r = m[4 * k + 2], t = m[4 * k + 3];
        if (a < 0 || b < 0 || t < 0 || (size_t)a >= self->n_ids || (size_t)b >= self->n_ids ||
            (size_t)t >= self->n_ids || self->tok_len[a] == UINT32_MAX || self->tok_len[b] == UINT32_MAX ||
            self->tok_len[t] == UINT32_MAX || (uint64_t)self->tok_len[a] + self->tok_len[b] != self->tok_len[t] ||
            r < 0 || r == NO_RANK) {
            PyErr_Format(PyExc_ValueError, "merges[%zu]: (%d, %d) -> %d is not a merge of two tokens", k, a, b, t);
            return -1;
        }
        if (r > max_rank) max_rank = r;
    }
    if (pmap_init(self, count, max_rank)) return -1;
    for (size_t k = 0; k < count; k++) {
        int32_t r = m[4 * k + 2], t = m[4 * k + 3];
        if (self->merged_of[r] >= 0 && self->merged_of[r] != t) {
            PyErr_Format(PyExc_ValueError, "merges: rank %d makes both %d and %d", r, self->merged_of[r], t);
            return -1;
        }
        self->merged_of[r] = t;
        pair_insert(self, m[4 * k], m[4 * k + 1], r);
    }
    self->merged_affine = count > 0;
    self->merged_offset = count ? m[3] - m[2] : 0;
    for (int32_t r = 0; self->merged_affine && r <= max_rank; r++)
        if (self->merged_of[r] >= 0 && self->merged_of[r] != r + self->merged_offset) self->merged_affine = 0;
    return 0;
}

static int32_t atom_pair_rank(const void *ctx, int32_t left, int32_t right) {
    int32_t r = pair_rank(ctx, left, right);
    return r == NO_RANK ? -1 : r;
}

/* The encoder's atoms (char_atoms.h), from its tokens and pair table.  -1: out of memory. */
static int build_atoms(Encoder *self) {
    int32_t *merges = malloc((self->n_pairs ? self->n_pairs : 1) * 3 * sizeof(int32_t));
    if (!merges) return -1;
    size_t n = 0;
    uint64_t id_mask = (1ULL << self->id_bits) - 1, rank_mask = (1ULL << self->rank_bits) - 1;
    for (size_t k = 0; k <= self->pmap_mask; k++) {
        uint64_t v = self->pmap[k];
        if (v == PAIR_EMPTY) continue;
        uint64_t key = v >> self->rank_bits;
        merges[3 * n] = (int32_t)(key >> self->id_bits);
        merges[3 * n + 1] = (int32_t)(key & id_mask);
        merges[3 * n + 2] = (int32_t)(v & rank_mask);
        n++;
    }
    tv_atom_source src = {self->blob, self->tok_off, self->tok_len, self->n_ids, self->byte_id, self->merged_of,
                          merges, n, atom_pair_rank, self};
    int rc = tv_atoms_build(&self->atoms, &src);
    free(merges);
    return rc;
}

/* The pair table of tiktoken ranks (a token's id is its rank, and a pair of tokens whose bytes
 * make a token merges at that token's rank) holding only the pairs that merging can make: for each
 * token, in rank order, the last pair its own bytes merge into with the pairs found so far.
 *
 * That is the whole table's merging: when a merge makes token t over some bytes, no merge had crossed
 * their edges, so the merges inside them were those of t's bytes alone, in the same order, and the
 * pair merged last is the one found here.  A pair of lower rank than t is all t's bytes can merge
 * with before t is reached; so when they merge into two tokens with the pairs found so far, those
 * two are t's pair.  When they stop at three or more tokens, t is no merge's token, unless a pair
 * of two of them makes a token: then some token needs merges ranked after it, and 1 is returned
 * for the table of every pair instead.  0, 1, or -1 with a Python error. */
static int canonical_pairs(Encoder *self) {
    size_t n = self->n_ids;
    if (pmap_init(self, n, (int32_t)n - 1)) return -1;
    self->byte_pairs = malloc(65536 * sizeof(int32_t));
    if (!self->byte_pairs) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t k = 0; k < 65536; k++) self->byte_pairs[k] = NO_RANK;
    self->merged_affine = 1;
    self->merged_offset = 0;
    Scratch s = {0};
    int rc = 0;
    for (size_t t = 0; !rc && t < n; t++) {
        size_t len = self->tok_len[t];
        if (len == UINT32_MAX || len < 2) continue;
        const uint8_t *p = self->blob + self->tok_off[t];
        if (scratch_reserve(&s, len)) {
            PyErr_NoMemory();
            rc = -1;
            break;
        }
        for (size_t k = 0; k < len; k++) s.sym[k] = self->byte_id[p[k]];
        size_t m = merge_bytes(self, &s, p, len);
        if (m == 2) {
            pair_insert(self, s.sym[0], s.sym[1], (int32_t)t);
            self->merged_of[t] = (int32_t)t;
            if (len == 2) self->byte_pairs[p[0] << 8 | p[1]] = (int32_t)t;
            continue;
        }
        size_t off = 0;
        for (size_t k = 0; rc == 0 && k + 1 < m; k++) {
            size_t la = self->tok_len[s.sym[k]], lb = self->tok_len[s.sym[k + 1]];
            if (bytes_lookup(self, p + off, la + lb) >= 0) rc = 1;
            off += la;
        }
        if (m == 1) rc = 1; /* (not reached: t is not in the table yet) */
    }
    scratch_free(&s);
    if (rc == 1) { /* start again with every pair */
        free(self->pmap);
        free(self->merged_of);
        free(self->byte_pairs);
        self->pmap = NULL;
        self->merged_of = NULL;
        self->byte_pairs = NULL;
    }
    return rc;
}

static int Encoder_init(Encoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"tokens", "merges", "pattern", "ignore_merges", NULL};
    PyObject *tokens, *merges;
    int pattern, ignore = 0;
    if (self->blob) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder is already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!Oi|p:Encoder", kwlist, &PyList_Type, &tokens, &merges, &pattern,
                                     &ignore))
        return -1;
    if (pattern < 0 || pattern >= TV_PAT_COUNT) {
        PyErr_Format(PyExc_ValueError, "unknown pattern id %d", pattern);
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    if (n < 256 || n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "tokens: expected between 256 and 2**31 entries");
        return -1;
    }
    self->pattern = pattern;
    self->ignore_merges = ignore;
    self->n_ids = (size_t)n;
    size_t total = 0, present = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *b = PyList_GET_ITEM(tokens, k);
        if (b == Py_None) continue;
        if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) == 0 || PyBytes_GET_SIZE(b) >= UINT32_MAX) {
            PyErr_Format(PyExc_TypeError, "tokens[%zd]: expected non-empty bytes or None", k);
            return -1;
        }
        total += (size_t)PyBytes_GET_SIZE(b);
        present++;
    }
    self->tok_off = table_alloc((size_t)n * sizeof(uint64_t));
    self->tok_len = table_alloc((size_t)n * sizeof(uint32_t));
    self->blob = table_alloc(total + 1);
    size_t bsize = table_size_for(present);
    self->bmap = table_alloc(bsize * sizeof(TokSlot));
    if (self->bmap) memset(self->bmap, 0, bsize * sizeof(TokSlot));
    self->bmap_mask = bsize - 1;
    if (!self->tok_off || !self->tok_len || !self->blob || !self->bmap) {
        PyErr_NoMemory();
        return -1;
    }
    size_t pos = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *b = PyList_GET_ITEM(tokens, k);
        if (b == Py_None) {
            self->tok_len[k] = UINT32_MAX;
            self->tok_off[k] = 0;
            continue;
        }
        size_t len = (size_t)PyBytes_GET_SIZE(b);
        memcpy(self->blob + pos, PyBytes_AS_STRING(b), len);
        self->tok_off[k] = pos;
        self->tok_len[k] = (uint32_t)len;
        if (bytes_lookup(self, self->blob + pos, len) >= 0) {
            PyErr_Format(PyExc_ValueError, "tokens[%zd]: the same bytes appear under two ids", k);
            return -1;
        }
        uint64_t h = hash_bytes(self->blob + pos, len);
        size_t s = h & self->bmap_mask;
        while (self->bmap[s].id1) s = (s + 1) & self->bmap_mask;
        self->bmap[s] = (TokSlot){bytes_head(self->blob + pos, len), (uint32_t)k + 1, (uint32_t)len};
        pos += len;
    }
    self->long_firsts = calloc((MAX_LISTED_LEN - 1) * 256 / 8, 1);
    if (!self->long_firsts) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        size_t len = self->tok_len[k];
        if (len == UINT32_MAX || len < 2) continue;
        if (len > self->max_tok_len) self->max_tok_len = len;
        if (len <= MAX_LISTED_LEN) {
            size_t bit = (len - 2) * 256 + self->blob[self->tok_off[k]];
            self->long_firsts[bit >> 3] |= (uint8_t)(1u << (bit & 7));
        }
    }
    for (int c = 0; c < 256; c++) {
        uint8_t byte = (uint8_t)c;
        self->byte_id[c] = bytes_lookup(self, &byte, 1);
        if (self->byte_id[c] < 0) {
            PyErr_Format(PyExc_ValueError, "byte 0x%02x has no token: not a complete byte-level vocabulary", c);
            return -1;
        }
    }
    int canonical = merges == Py_None ? canonical_pairs(self) : 0;
    if (canonical < 0) return -1;
    if (merges == Py_None && canonical == 1) {
        /* Every way to write a token as two tokens merges into it, ranked by the token's id. */
        size_t count = 0, cap = 1024;
        int32_t *quads = malloc(cap * 4 * sizeof(int32_t));
        for (Py_ssize_t k = 0; quads && k < n; k++) {
            size_t len = self->tok_len[k];
            if (len == UINT32_MAX || len < 2) continue;
            const uint8_t *p = self->blob + self->tok_off[k];
            for (size_t cut = 1; quads && cut < len; cut++) {
                int32_t a = bytes_lookup(self, p, cut);
                if (a < 0) continue;
                int32_t b = bytes_lookup(self, p + cut, len - cut);
                if (b < 0) continue;
                if (count == cap) {
                    int32_t *more = realloc(quads, 2 * cap * 4 * sizeof(int32_t));
                    if (!more) free(quads);
                    quads = more;
                    cap *= 2;
                    if (!quads) break;
                }
                int32_t *q = quads + 4 * count++;
                q[0] = a;
                q[1] = b;
                q[2] = q[3] = (int32_t)k;
            }
        }
        if (!quads) {
            PyErr_NoMemory();
            return -1;
        }
        int rc = pmap_build(self, quads, count);
        free(quads);
        if (rc) return -1;
    } else if (merges != Py_None) {
        Py_buffer view;
        if (PyObject_GetBuffer(merges, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (view.itemsize != 4 || !view.format || (strcmp(view.format, "i") != 0 && strcmp(view.format, "=i") != 0 &&
                                                   strcmp(view.format, "<i") != 0 && strcmp(view.format, "l") != 0)) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_TypeError, "merges: expected a buffer of int32 (array('i'))");
            return -1;
        }
        size_t count = (size_t)view.len / 4;
        if (count % 4) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "merges: expected quadruples (left, right, rank, merged)");
            return -1;
        }
        int rc = pmap_build(self, view.buf, count / 4);
        if (rc) {
            PyBuffer_Release(&view);
            return -1;
        }
        PyBuffer_Release(&view);
    }
    Bloom pairs, known;
    if (bloom_init(&pairs, self->n_pairs) || bloom_init(&known, self->n_ids)) {
        free(pairs.words);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t k = 0; k <= self->pmap_mask; k++)
        if (self->pmap[k] != PAIR_EMPTY) bloom_add(&pairs, hash_pair(self->pmap[k] >> self->rank_bits));
    for (size_t k = 0; k < self->n_ids; k++)
        if (self->tok_len[k] != UINT32_MAX) bloom_add(&known, hash_bytes(self->blob + self->tok_off[k], self->tok_len[k]));
    self->pair_filter = pairs;
    self->token_filter = known;
    if (!self->byte_pairs) self->byte_pairs = malloc(65536 * sizeof(int32_t));
    if (!self->byte_pairs) {
        PyErr_NoMemory();
        return -1;
    }
    for (int b1 = 0; b1 < 256; b1++)
        for (int b2 = 0; b2 < 256; b2++) self->byte_pairs[b1 << 8 | b2] = pair_rank(self, self->byte_id[b1], self->byte_id[b2]);
    if (build_atoms(self)) {
        PyErr_NoMemory();
        return -1;
    }
    if (id_ints_acquire(self->n_ids)) return -1;
    self->holds_id_ints = 1;
    cache_pool_init(&self->caches, (CacheShape){.entries = (size_t)1 << CACHE_BITS, .key_bytes = 48, .vals = 16,
                                                .max_key = CACHE_MAX_KEY, .max_vals = CACHE_MAX_KEY},
                    piece_key_hash);
    self->ready = 1;
    return 0;
}

static PyObject *Encoder_clear_cache(Encoder *self, PyObject *unused) {
    if (check_ready(self)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    cache_pool_clear(&self->caches);
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
    if (check_ready(self)) return NULL;
    return pool_info_dict(&self->caches);
}

static PyObject *Encoder_get_pattern(Encoder *self, void *closure) { return PyLong_FromLong(self->pattern); }
static PyObject *Encoder_get_pairs(Encoder *self, void *closure) { return PyLong_FromSize_t(self->n_pairs); }

static PyObject *Encoder_get_atoms(Encoder *self, void *closure) { return PyLong_FromSize_t(self->atoms.n_atoms); }

static PyGetSetDef Encoder_getset[] = {
    {"pattern", (getter)Encoder_get_pattern, NULL, "id of the native pre-tokenizer (0: none)", NULL},
    {"atom_count", (getter)Encoder_get_atoms, NULL, "number of characters merges may start from whole", NULL},
    {"pair_count", (getter)Encoder_get_pairs, NULL, "number of mergeable pairs", NULL},
    {NULL},
};

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))Encoder_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(text, base=0, offsets=1, form=-1, stops=None) -> ids (offsets=0), (ids, [(start, end)]) (1) or "
     "(ids, packed int32 start/end pairs as bytes) (2); offsets are character positions + base.  Releases the "
     "GIL.  form (0-3: NFC, NFD, NFKC, NFKD) and stops (strings): None unless the text passes the normal form's "
     "quick check and holds none of the stops."},
    {"encode_many", (PyCFunction)(void (*)(void))Encoder_encode_many, METH_VARARGS | METH_KEYWORDS,
     "encode_many(texts, threads=1, offsets=1, form=-1, stops=None, untracked=False) -> a list of encode() "
     "results (None for a text the check rejects), computed on `threads` threads; untracked: the id lists are "
     "not tracked by the cyclic garbage collector.  flat=True: (ids, offsets, rejected) instead, all the ids in one "
     "bytearray of native int32, text k's at [offsets[k], offsets[k + 1]) of the int64 bytearray offsets, "
     "rejected the list of the texts the check rejects (no ids); no Python object per id."},
    {"holds_none", (PyCFunction)Encoder_holds_none, METH_VARARGS,
     "holds_none(text, stops) -> True when the text holds none of the strings `stops` (a tuple: the encoder keeps "
     "its check for the next call)."},
    {"pieces", (PyCFunction)Encoder_pieces, METH_O, "pieces(text) -> [(start, end)] cut by the native pre-tokenizer."},
    {"cache_info", (PyCFunction)Encoder_cache_info, METH_NOARGS,
     "cache_info() -> {caches, bytes, entries}: the caches with tables now, their bytes and the entries they hold."},
    {"clear_cache", (PyCFunction)Encoder_clear_cache, METH_NOARGS, "Forget the cached pieces and free their memory (benchmarks: a cold start)."},
    {NULL},
};

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz._native.Encoder",
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Byte-level BPE encoder: Encoder(tokens, merges, pattern, ignore_merges=False)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_methods = Encoder_methods,
    .tp_getset = Encoder_getset,
};

/* class_table() -> bytes: the character-class bits of every code point (for the tests). */
static PyObject *mod_class_table(PyObject *mod, PyObject *unused) {
    PyObject *res = PyBytes_FromStringAndSize(NULL, 0x110000);
    if (!res) return NULL;
    uint8_t *p = (uint8_t *)PyBytes_AS_STRING(res);
    for (uint32_t c = 0; c < 0x110000; c++) p[c] = (uint8_t)tv_class(c);
    return res;
}

static PyMethodDef module_methods[] = {
    {"merge_lines_ok", tv_merge_lines_ok, METH_VARARGS,
     "merge_lines_ok(vocab, lines) -> bool: every 'a b' line joins two non-empty tokens into a vocabulary key"},
    {"pieces", mod_pieces, METH_VARARGS, "pieces(pattern_id, text) -> [(start, end)]"},
    {"surrogate_at", tv_surrogate_at, METH_O, "surrogate_at(text) -> index of the first lone surrogate, or -1"},
    {"byte_level_tables", tv_byte_level_tables, METH_VARARGS,
     "byte_level_tables(vocab, merges, by_line) -> (tokens, quads) or None: an Encoder's input from a BPE model"},
    {"tiktoken_table", tv_tiktoken_table, METH_O,
     "tiktoken_table(data) -> ({bytes: rank}, {byte-level str: rank}) or None (a line not in the regular form)"},
    {"sp_pieces", tv_sp_pieces, METH_VARARGS,
     "sp_pieces(data, pos) -> (pieces, scores, types, vocab, end): sentencepiece piece records read in C"},
    {"norm_table", tv_norm_table, METH_NOARGS,
     "norm_table() -> bytes: uint16 per code point, combining class | quick-check Yes bit (8 + form)"},
    {"quick_check", tv_quick_check, METH_VARARGS,
     "quick_check(form, text, stops=None, prepared=False) -> bool: the text passes form's quick check and holds no stop"},
    {"class_table", mod_class_table, METH_NOARGS, "class_table() -> bytes: class bits (L=1 N=2 S=4 UPPER=8 LOWER=16) per code point"},
    {NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "tokviz._native", "Native byte-level BPE encoder for tokviz.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&EncoderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&EncoderType);
    if (PyModule_AddObject(m, "Encoder", (PyObject *)&EncoderType) < 0) {
        Py_DECREF(&EncoderType);
        Py_DECREF(m);
        return NULL;
    }
    if (tv_models_add(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "PAT_NONE", TV_PAT_NONE);
    PyModule_AddIntConstant(m, "PAT_GPT2", TV_PAT_GPT2);
    PyModule_AddIntConstant(m, "PAT_CL100K", TV_PAT_CL100K);
    PyModule_AddIntConstant(m, "PAT_O200K", TV_PAT_O200K);
    PyModule_AddIntConstant(m, "PAT_LLAMA3", TV_PAT_LLAMA3);
    PyModule_AddIntConstant(m, "PAT_QWEN2", TV_PAT_QWEN2);
    PyModule_AddIntConstant(m, "PAT_TEKKEN", TV_PAT_TEKKEN);
    PyModule_AddIntConstant(m, "PAT_QWEN35", TV_PAT_QWEN35);
    PyModule_AddStringConstant(m, "NORM_UNICODE_VERSION", tv_norm_unicode_version);
    return m;
}
