/* A bounded cache key bytes -> int32 values that the threads of one call share without locks, and
 * the pool of such caches an encoder keeps between calls.  Header-only (static functions): each
 * extension module that caches compiles its own copy (_native.c: piece bytes -> ids; sp_native.c:
 * a word's code points -> its tokens as (id, start, end) triples).
 *
 * A call (encode, or encode_many with all its threads) takes a free cache of the pool and holds its
 * lock while it uses it.  The call's threads share the cache: a thread reserves room for
 * CACHE_BLOCK entries at a time with atomic counters, writes an entry there, then publishes it by
 * setting its slot (release; readers load slots with acquire).  A shared cache is only cleared by
 * its holder while no thread encodes with it (cache_take); when it fills up meanwhile it stops
 * taking entries.  So with two threads each learns the words the other met, instead of both
 * merging every new word. */
#ifndef TOKVIZ_PIECE_CACHE_H
#define TOKVIZ_PIECE_CACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_BLOCK 64 /* a thread reserves room for this many entries at a time */
#define CACHE_POOL 8   /* caches per encoder: a call uses whichever is free */

static inline uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL ^ (n * 0x9E3779B97F4A7C15ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    while (n--) h = (h ^ *p++) * 0x100000001b3ULL;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

/* How big a cache is: `entries` keys (a power of two), room for `key_bytes` key bytes and `vals`
 * values per entry on average, and the longest key and value list it takes (each must fit in one
 * block: max_key <= CACHE_BLOCK * key_bytes, max_vals <= CACHE_BLOCK * vals, both < 65536). */
typedef struct {
    size_t entries, key_bytes, vals, max_key, max_vals;
} CacheShape;

typedef struct {
    uint64_t hash;
    uint32_t key_off, vals_off;
    uint16_t key_len, n_vals;
} CacheEntry;

/* Aligned to its own cache lines: threads using neighbouring caches must not share one. */
typedef struct {
    _Alignas(64) pthread_mutex_t lock;
    CacheShape shape;
    _Atomic uint64_t *slots; /* hash tag << 32 | entry index + 1; 0 = empty; 2 * entries of them */
    CacheEntry *entries;
    uint8_t *keys;
    int32_t *vals;
    _Atomic size_t n_entries, keys_used, vals_used; /* (reserved: may run past the capacity) */
    char pad[64];
} Cache;

/* The caches of an encoder (n = 0: none; it then encodes without). */
typedef struct {
    Cache *caches;
    int n;
} CachePool;

/* The cache a call encodes with (NULL: none), and whether other threads use it meanwhile. */
typedef struct {
    Cache *cache;
    int shared;
} CacheUse;

/* The room a thread has reserved in a cache and not used yet (all zero: none). */
typedef struct {
    size_t entry, entry_end, key, key_end, val, val_end;
} CacheBlock;

static void cache_release_tables(Cache *c) {
    free((void *)c->slots);
    free(c->entries);
    free(c->keys);
    free(c->vals);
    c->slots = NULL;
    c->entries = NULL;
    c->keys = NULL;
    c->vals = NULL;
}

/* The tables are allocated by the first call that uses the cache (most encoders use one). */
static int cache_alloc(Cache *c) {
    if (c->slots) return 0;
    const CacheShape *s = &c->shape;
    c->slots = calloc(2 * s->entries, sizeof(*c->slots));
    c->entries = malloc(s->entries * sizeof(CacheEntry));
    c->keys = malloc(s->entries * s->key_bytes);
    c->vals = malloc(s->entries * s->vals * sizeof(int32_t));
    if (!c->slots || !c->entries || !c->keys || !c->vals) {
        cache_release_tables(c);
        return -1;
    }
    return 0;
}

/* Only while no other thread uses the cache. */
static void cache_clear(Cache *c) {
    memset((void *)c->slots, 0, 2 * c->shape.entries * sizeof(*c->slots));
    atomic_store_explicit(&c->n_entries, 0, memory_order_relaxed);
    atomic_store_explicit(&c->keys_used, 0, memory_order_relaxed);
    atomic_store_explicit(&c->vals_used, 0, memory_order_relaxed);
}

/* Whether more than `num` / 4 of any of the cache's room is used. */
static int cache_used_over(const Cache *c, size_t num) {
    const CacheShape *s = &c->shape;
    return atomic_load_explicit(&c->n_entries, memory_order_relaxed) > s->entries / 4 * num ||
           atomic_load_explicit(&c->keys_used, memory_order_relaxed) > s->entries * s->key_bytes / 4 * num ||
           atomic_load_explicit(&c->vals_used, memory_order_relaxed) > s->entries * s->vals / 4 * num;
}

/* The cached values of a key (count in *n_vals), or NULL. */
static inline const int32_t *cache_get(const Cache *c, const void *key, size_t len, uint64_t h, size_t *n_vals) {
    size_t mask = 2 * c->shape.entries - 1;
    uint64_t tag = h & 0xFFFFFFFF00000000ULL;
    for (size_t s = h & mask;; s = (s + 1) & mask) {
        uint64_t e = atomic_load_explicit(&c->slots[s], memory_order_acquire);
        if (!e) return NULL;
        if ((e & 0xFFFFFFFF00000000ULL) != tag) continue; /* another key: no need to look at it */
        const CacheEntry *ent = &c->entries[(uint32_t)e - 1];
        if (ent->hash == h && ent->key_len == len && memcmp(c->keys + ent->key_off, key, len) == 0) {
            *n_vals = ent->n_vals;
            return c->vals + ent->vals_off;
        }
    }
}

/* Reserve the next block of the cache for a thread; false when the cache is full. */
static int cache_reserve(Cache *c, CacheBlock *b) {
    const CacheShape *s = &c->shape;
    size_t keys = CACHE_BLOCK * s->key_bytes, vals = CACHE_BLOCK * s->vals;
    memset(b, 0, sizeof(*b));
    if (atomic_load_explicit(&c->n_entries, memory_order_relaxed) + CACHE_BLOCK > s->entries ||
        atomic_load_explicit(&c->keys_used, memory_order_relaxed) + keys > s->entries * s->key_bytes ||
        atomic_load_explicit(&c->vals_used, memory_order_relaxed) + vals > s->entries * s->vals)
        return 0;
    size_t e = atomic_fetch_add_explicit(&c->n_entries, CACHE_BLOCK, memory_order_relaxed);
    size_t k = atomic_fetch_add_explicit(&c->keys_used, keys, memory_order_relaxed);
    size_t v = atomic_fetch_add_explicit(&c->vals_used, vals, memory_order_relaxed);
    if (e + CACHE_BLOCK > s->entries || k + keys > s->entries * s->key_bytes || v + vals > s->entries * s->vals)
        return 0; /* (another thread took the last block) */
    *b = (CacheBlock){e, e + CACHE_BLOCK, k, k + keys, v, v + vals};
    return 1;
}

/* Add a key and its values, in the thread's block `b`.  `shared`: other threads may use the cache
 * meanwhile (a full cache then takes no more entries; else it is emptied first).  Keys or value
 * lists longer than the shape's maxima are not cached. */
static void cache_put(Cache *c, CacheBlock *b, const void *key, size_t len, uint64_t h, const int32_t *vals,
                      size_t n_vals, int shared) {
    if (len > c->shape.max_key || n_vals > c->shape.max_vals) return;
    if (b->entry == b->entry_end || b->key + len > b->key_end || b->val + n_vals > b->val_end) {
        if (!cache_reserve(c, b)) {
            if (shared) return;
            cache_clear(c);
            if (!cache_reserve(c, b)) return;
        }
    }
    size_t index = b->entry++;
    CacheEntry *ent = &c->entries[index];
    ent->hash = h;
    ent->key_off = (uint32_t)b->key;
    ent->key_len = (uint16_t)len;
    ent->vals_off = (uint32_t)b->val;
    ent->n_vals = (uint16_t)n_vals;
    memcpy(c->keys + b->key, key, len);
    memcpy(c->vals + b->val, vals, n_vals * sizeof(int32_t));
    b->key += len;
    b->val += n_vals;
    uint64_t value = (h & 0xFFFFFFFF00000000ULL) | (uint32_t)(index + 1);
    size_t mask = 2 * c->shape.entries - 1;
    /* At most `entries` of the 2 * `entries` slots are ever set: a free one is found. */
    for (size_t s = h & mask;; s = (s + 1) & mask) {
        uint64_t expected = 0;
        if (atomic_load_explicit(&c->slots[s], memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&c->slots[s], &expected, value, memory_order_release,
                                                    memory_order_relaxed))
            return;
    }
}

/* CACHE_POOL caches of this shape (their tables allocated on first use); with no memory, fewer or
 * none, and calls encode without. */
static void cache_pool_init(CachePool *p, CacheShape shape) {
    p->n = 0;
    p->caches = aligned_alloc(64, CACHE_POOL * sizeof(Cache));
    for (int k = 0; p->caches && k < CACHE_POOL; k++) {
        Cache *c = &p->caches[k];
        memset(c, 0, sizeof(*c));
        if (pthread_mutex_init(&c->lock, NULL) != 0) break;
        c->shape = shape;
        p->n = k + 1;
    }
}

static void cache_pool_free(CachePool *p) {
    for (int k = 0; k < p->n; k++) {
        cache_release_tables(&p->caches[k]);
        pthread_mutex_destroy(&p->caches[k].lock);
    }
    free(p->caches);
    p->caches = NULL;
    p->n = 0;
}

/* A free cache for a call (the first one first: a cache that stays with one caller stays in the
 * memory caches).  NULL when all are busy or out of memory (encode without one).  A cache that its
 * last user (shared) left nearly full is emptied now, while nobody else uses it. */
static Cache *cache_take(CachePool *p) {
    for (int k = 0; k < p->n; k++) {
        Cache *c = &p->caches[k];
        if (pthread_mutex_trylock(&c->lock) != 0) continue;
        if (cache_alloc(c) == 0) {
            if (cache_used_over(c, 3)) cache_clear(c);
            return c;
        }
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    return NULL;
}

static void cache_give(Cache *c) {
    if (c) pthread_mutex_unlock(&c->lock);
}

/* The bytes one cache's tables take once allocated. */
static size_t cache_table_bytes(const CacheShape *s) {
    return 2 * s->entries * sizeof(uint64_t) + s->entries * (sizeof(CacheEntry) + s->key_bytes + s->vals * sizeof(int32_t));
}

/* How many of the pool's caches have tables, their bytes and the entries they hold, without
 * waiting: a cache a call holds now is counted as allocated (a call only holds one that is). */
static void cache_pool_info(CachePool *p, size_t *caches, size_t *bytes, size_t *entries) {
    *caches = *bytes = *entries = 0;
    for (int k = 0; k < p->n; k++) {
        Cache *c = &p->caches[k];
        int held = pthread_mutex_trylock(&c->lock) != 0;
        int allocated = held || c->slots != NULL;
        if (!held) pthread_mutex_unlock(&c->lock);
        if (!allocated) continue;
        size_t used = atomic_load_explicit(&c->n_entries, memory_order_relaxed);
        *caches += 1;
        *bytes += cache_table_bytes(&c->shape);
        *entries += used < c->shape.entries ? used : c->shape.entries;
    }
}

/* Forget everything cached and give the tables' memory back (they are allocated again when next
 * used), waiting for calls that use a cache (call without the GIL). */
static void cache_pool_clear(CachePool *p) {
    for (int k = 0; k < p->n; k++) {
        Cache *c = &p->caches[k];
        pthread_mutex_lock(&c->lock);
        cache_release_tables(c);
        atomic_store_explicit(&c->n_entries, 0, memory_order_relaxed);
        atomic_store_explicit(&c->keys_used, 0, memory_order_relaxed);
        atomic_store_explicit(&c->vals_used, 0, memory_order_relaxed);
        pthread_mutex_unlock(&c->lock);
    }
}

#endif
