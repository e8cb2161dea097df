/* A bounded cache key bytes -> int32 values that the threads of one call share without locks, and
 * the pool of such caches an encoder keeps between calls.  Header-only (static functions): each
 * extension module that caches compiles its own copy (_native.c: piece bytes -> ids; sp_native.c:
 * a word's code points -> its tokens as (id, start, end) triples).
 *
 * A call (encode, or encode_many with all its threads) takes a free cache of the pool and holds its
 * lock while it uses it.  The call's threads share the cache: a thread reserves room for
 * CACHE_BLOCK entries at a time with atomic counters, claims a free slot, writes the entry there
 * (a short key and its values in the slot itself, longer ones in the arenas), then publishes it by
 * setting the slot's tag (release; readers load tags with acquire).  A shared cache is only cleared by
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
#ifdef __linux__
#include <sys/mman.h>
#endif

#define CACHE_BLOCK 64 /* a thread reserves room for this many entries at a time */
#define CACHE_POOL 8   /* caches per encoder: a call uses whichever is free */
#define CACHE_INLINE_KEY 16 /* keys up to this many bytes live in their slot */
#define CACHE_INLINE_VALS 2 /* and up to this many values */

static inline uint64_t tv_load64(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint64_t tv_load32(const uint8_t *p) {
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* The two halves of a 64 x 64 -> 128-bit product, folded (a fast mixer with good low bits). */
static inline uint64_t tv_mix(uint64_t a, uint64_t b) {
    __uint128_t m = (__uint128_t)(a ^ 0x2d358dccaa6c78a5ULL) * (b ^ 0x8bb84b93962eacc9ULL);
    return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* A 64-bit hash of n bytes.  Keys up to 16 bytes (most pieces) take two overlapping loads and one
 * multiply; nothing is read outside p[0 .. n). */
static inline uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t seed = n * 0x9E3779B97F4A7C15ULL, a, b;
    if (n <= 16) {
        if (n >= 8) {
            a = tv_load64(p);
            b = tv_load64(p + n - 8);
        } else if (n >= 4) {
            a = tv_load32(p);
            b = tv_load32(p + n - 4);
        } else if (n) {
            a = (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        size_t i = 0;
        for (; i + 16 < n; i += 16) seed = tv_mix(tv_load64(p + i) ^ seed, tv_load64(p + i + 8) ^ seed);
        a = tv_load64(p + n - 16);
        b = tv_load64(p + n - 8);
    }
    return tv_mix(a ^ seed, b ^ (seed >> 17));
}

/* Whether a[0 .. n) == b[0 .. n), without a library call for short keys. */
static inline int bytes_equal(const uint8_t *a, const uint8_t *b, size_t n) {
    if (n >= 8 && n <= 16)
        return ((tv_load64(a) ^ tv_load64(b)) | (tv_load64(a + n - 8) ^ tv_load64(b + n - 8))) == 0;
    if (n >= 4 && n < 8) return ((tv_load32(a) ^ tv_load32(b)) | (tv_load32(a + n - 4) ^ tv_load32(b + n - 4))) == 0;
    if (n < 4) {
        for (size_t k = 0; k < n; k++)
            if (a[k] != b[k]) return 0;
        return 1;
    }
    return memcmp(a, b, n) == 0;
}

/* How big a cache is: at most `entries` keys (a power of two; the table has twice as many slots),
 * room for `key_bytes` bytes of keys longer than CACHE_INLINE_KEY and `vals` values of lists
 * longer than CACHE_INLINE_VALS per entry on average, and the longest key and value list it takes
 * (each must fit in one block: max_key <= CACHE_BLOCK * key_bytes, max_vals <= CACHE_BLOCK * vals,
 * both < 65536).  A pool is given the largest shape; its caches start at CACHE_FIRST_ENTRIES
 * entries and grow to it (cache_take). */
typedef struct {
    size_t entries, key_bytes, vals, max_key, max_vals;
} CacheShape;

/* Entries of a cache when first allocated, and how many times more when it first grows (keeping
 * what it holds); the second time it takes the largest shape.  A cache used on short texts (typing
 * in the app) then stays at ~0.4 MB instead of the largest shape's 23, and one that fills up is at
 * its largest after two growths (each moves every entry and zeroes a bigger table: 4 ms for the
 * last one of cl100k's). */
#define CACHE_FIRST_ENTRIES ((size_t)1 << 11)
#define CACHE_GROWTH 4
/* A call on a long text takes a cache of about one entry per this many characters from its start
 * (English has about 15,000 different pieces in 1 MB). */
#define CACHE_TEXT_PER_ENTRY 64

/* One slot of the open-addressing table: a short key and its values are read from this one
 * 32-byte slot (half a cache line); longer ones from the key and value arenas. */
typedef struct {
    _Atomic uint32_t tag; /* 0: empty; 1: being written; else cache_tag(hash of the key) */
    uint16_t key_len, n_vals;
    union {
        uint8_t bytes[CACHE_INLINE_KEY];
        uint32_t off; /* in keys, when key_len > CACHE_INLINE_KEY */
    } key;
    union {
        int32_t inl[CACHE_INLINE_VALS];
        uint32_t off; /* in vals, when n_vals > CACHE_INLINE_VALS */
    } vals;
} CacheSlot;

/* The room a thread has reserved in a cache and not used yet (all zero: none). */
typedef struct {
    size_t entry, entry_end, key, key_end, val, val_end;
} CacheBlock;

/* The hash a cache's users look a key up by (cache_get, cache_put): the cache computes it again to
 * move its entries when it grows. */
typedef uint64_t (*CacheKeyHash)(const uint8_t *key, size_t len);

/* Aligned to its own cache lines: threads using neighbouring caches must not share one. */
typedef struct {
    _Alignas(64) pthread_mutex_t lock;
    CacheShape shape;
    CacheSlot *slots; /* 2 * entries of them */
    uint8_t *keys;
    int32_t *vals;
    _Atomic size_t n_entries, keys_used, vals_used; /* (reserved: may run past the capacity) */
    _Atomic int filled; /* a call found it full since it last grew */
    size_t max_entries; /* it grows up to this many entries */
    CacheKeyHash key_hash; /* the hash its users look keys up by (to move them when it grows) */
    CacheBlock own; /* the room reserved for the holder's calls that do not share the cache */
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

static inline uint32_t cache_tag(uint64_t h) {
    uint32_t t = (uint32_t)(h >> 32);
    return t < 2 ? t + 2 : t;
}

static void cache_release_tables(Cache *c) {
    free(c->slots);
    free(c->keys);
    free(c->vals);
    c->slots = NULL;
    c->keys = NULL;
    c->vals = NULL;
}

static size_t cache_slots_bytes(const CacheShape *s) { return 2 * s->entries * sizeof(CacheSlot); }

/* The slot table: on huge pages where the system offers them (a lookup is a random access into
 * megabytes: with 4 KB pages most would also miss the TLB). */
static void *cache_table_alloc(size_t bytes) {
    void *p = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= (1u << 21)) {
        if (posix_memalign(&p, 1u << 21, bytes) != 0) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
        return p;
    }
#endif
    if (posix_memalign(&p, 64, bytes) != 0) return NULL;
    return p;
}

/* The tables are allocated by the first call that uses the cache (most encoders use one). */
static int cache_alloc(Cache *c) {
    if (c->slots) return 0;
    const CacheShape *s = &c->shape;
    c->slots = cache_table_alloc(cache_slots_bytes(s));
    c->keys = malloc(s->entries * s->key_bytes + 1);
    c->vals = malloc((s->entries * s->vals + 1) * sizeof(int32_t));
    if (!c->slots || !c->keys || !c->vals) {
        cache_release_tables(c);
        return -1;
    }
    memset(c->slots, 0, cache_slots_bytes(s));
    return 0;
}

/* Only while no other thread uses the cache. */
static void cache_clear(Cache *c) {
    memset(c->slots, 0, cache_slots_bytes(&c->shape));
    atomic_store_explicit(&c->n_entries, 0, memory_order_relaxed);
    atomic_store_explicit(&c->keys_used, 0, memory_order_relaxed);
    atomic_store_explicit(&c->vals_used, 0, memory_order_relaxed);
    memset(&c->own, 0, sizeof(c->own));
}

/* Whether more than `num` / 4 of any of the cache's room is used. */
static int cache_used_over(const Cache *c, size_t num) {
    const CacheShape *s = &c->shape;
    return atomic_load_explicit(&c->n_entries, memory_order_relaxed) > s->entries / 4 * num ||
           atomic_load_explicit(&c->keys_used, memory_order_relaxed) > s->entries * s->key_bytes / 4 * num ||
           atomic_load_explicit(&c->vals_used, memory_order_relaxed) > s->entries * s->vals / 4 * num;
}

/* The slot a lookup of hash h starts at. */
static inline size_t cache_slot_of(const Cache *c, uint64_t h) { return h & (2 * c->shape.entries - 1); }

/* Request the cache line a lookup of hash h starts at. */
static inline void cache_prefetch(const Cache *c, uint64_t h) { __builtin_prefetch(&c->slots[cache_slot_of(c, h)]); }

/* The published slot of a key, or NULL: the key given by its bytes, or (`by_word`, a constant in
 * each caller) a key of 1 .. 8 bytes by its word: its bytes, little-endian, zero-padded (keys that
 * short are stored in their slot on zeroed bytes, so one comparison of words tells). */
static inline __attribute__((always_inline)) const CacheSlot *cache_find(const Cache *c, const void *key, uint64_t word,
                                                                       size_t len, uint64_t h, int by_word) {
    size_t mask = 2 * c->shape.entries - 1;
    uint32_t tag = cache_tag(h);
    for (size_t s = h & mask;; s = (s + 1) & mask) {
        const CacheSlot *slot = &c->slots[s];
        uint32_t t = atomic_load_explicit(&slot->tag, memory_order_acquire);
        if (!t) return NULL;
        if (by_word) {
            if ((t == tag) & (slot->key_len == len) & (tv_load64(slot->key.bytes) == word)) return slot;
            continue;
        }
        if (t != tag || slot->key_len != len) continue; /* another key (or one being written) */
        const uint8_t *k = len <= CACHE_INLINE_KEY ? slot->key.bytes : c->keys + slot->key.off;
        if (bytes_equal(k, key, len)) return slot;
    }
}

/* The values of a found slot (count in *n_vals), or NULL for no slot. */
static inline const int32_t *cache_vals(const Cache *c, const CacheSlot *slot, size_t *n_vals) {
    if (!slot) return NULL;
    *n_vals = slot->n_vals;
    return slot->n_vals <= CACHE_INLINE_VALS ? slot->vals.inl : c->vals + slot->vals.off;
}

/* The cached values of a key (count in *n_vals), or NULL. */
static inline const int32_t *cache_get(const Cache *c, const void *key, size_t len, uint64_t h, size_t *n_vals) {
    return cache_vals(c, cache_find(c, key, 0, len, h, 0), n_vals);
}

/* cache_get for a key of 1 .. 8 bytes given as its word (see cache_find). */
static inline const int32_t *cache_get_word(const Cache *c, uint64_t word, size_t len, uint64_t h, size_t *n_vals) {
    return cache_vals(c, cache_find(c, NULL, word, len, h, 1), n_vals);
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

static void cache_resize(Cache *c, size_t entries);
static size_t cache_grown(const Cache *c, size_t entries);

/* Add a key and its values, in the thread's block `b`.  `shared`: other threads may use the cache
 * meanwhile (a full cache then takes no more entries; else it grows, its entries moved, and at its
 * largest it is emptied).  A call that does not share the cache puts in the cache's own block
 * instead, which outlives the call: a thousand short calls that each add one key then take a
 * thousand entries, not a thousand blocks.  Keys or value
 * lists longer than the shape's maxima are not cached.  A slot is claimed (tag 1), written, then
 * published with its tag (release; readers load tags with acquire). */
static void cache_put(Cache *c, CacheBlock *b, const void *key, size_t len, uint64_t h, const int32_t *vals,
                      size_t n_vals, int shared) {
    if (!len || len > c->shape.max_key || n_vals > c->shape.max_vals) return;
    if (!shared) b = &c->own;
    size_t key_room = len > CACHE_INLINE_KEY ? len : 0, val_room = n_vals > CACHE_INLINE_VALS ? n_vals : 0;
    if (b->entry == b->entry_end || b->key + key_room > b->key_end || b->val + val_room > b->val_end) {
        if (!cache_reserve(c, b)) {
            atomic_store_explicit(&c->filled, 1, memory_order_relaxed);
            if (shared) return;
            if (c->shape.entries < c->max_entries) cache_resize(c, cache_grown(c, c->shape.entries));
            if (!cache_reserve(c, b)) { /* (at its largest, or no memory to grow) */
                cache_clear(c);
                if (!cache_reserve(c, b)) return;
            }
        }
    }
    b->entry++;
    size_t mask = 2 * c->shape.entries - 1;
    /* At most `entries` of the 2 * `entries` slots are ever claimed: a free one is found. */
    for (size_t s = cache_slot_of(c, h);; s = (s + 1) & mask) {
        CacheSlot *slot = &c->slots[s];
        uint32_t expected = 0;
        if (atomic_load_explicit(&slot->tag, memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong_explicit(&slot->tag, &expected, 1, memory_order_relaxed,
                                                     memory_order_relaxed))
            continue;
        slot->key_len = (uint16_t)len;
        slot->n_vals = (uint16_t)n_vals;
        if (key_room) {
            memcpy(c->keys + b->key, key, len);
            slot->key.off = (uint32_t)b->key;
            b->key += len;
        } else {
            memcpy(slot->key.bytes, key, len);
        }
        if (val_room) {
            memcpy(c->vals + b->val, vals, n_vals * sizeof(int32_t));
            slot->vals.off = (uint32_t)b->val;
            b->val += n_vals;
        } else {
            memcpy(slot->vals.inl, vals, n_vals * sizeof(int32_t));
        }
        atomic_store_explicit(&slot->tag, cache_tag(h), memory_order_release);
        return;
    }
}

/* A cache's first shape (again when emptied by cache_pool_clear): CACHE_FIRST_ENTRIES entries, or fewer. */
static void cache_reset_shape(Cache *c) {
    c->shape.entries = c->max_entries < CACHE_FIRST_ENTRIES ? c->max_entries : CACHE_FIRST_ENTRIES;
    atomic_store_explicit(&c->filled, 0, memory_order_relaxed);
}

/* CACHE_POOL caches that grow up to this shape (their tables allocated on first use); with no
 * memory, fewer or none, and calls encode without. */
static void cache_pool_init(CachePool *p, CacheShape shape, CacheKeyHash key_hash) {
    p->n = 0;
    p->caches = aligned_alloc(64, CACHE_POOL * sizeof(Cache));
    for (int k = 0; p->caches && k < CACHE_POOL; k++) {
        Cache *c = &p->caches[k];
        memset(c, 0, sizeof(*c));
        if (pthread_mutex_init(&c->lock, NULL) != 0) break;
        c->shape = shape;
        c->max_entries = shape.entries;
        c->key_hash = key_hash;
        cache_reset_shape(c);
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

/* Move the cache's entries into new tables of `entries` entries (at most its largest shape; they
 * all fit); with no memory for the new tables it stays as it is.  Only while no other thread uses it. */
static void cache_resize(Cache *c, size_t entries) {
    if (entries > c->max_entries) entries = c->max_entries;
    if (entries <= c->shape.entries) return;
    if (!c->slots) {
        c->shape.entries = entries; /* (allocated at that size by cache_alloc) */
        return;
    }
    CacheShape old_shape = c->shape;
    CacheSlot *old_slots = c->slots;
    uint8_t *old_keys = c->keys;
    int32_t *old_vals = c->vals;
    atomic_store_explicit(&c->filled, 0, memory_order_relaxed);
    c->shape.entries = entries;
    c->slots = NULL;
    if (cache_alloc(c) != 0) { /* (it frees what it got; the old tables stay) */
        c->shape = old_shape;
        c->slots = old_slots;
        c->keys = old_keys;
        c->vals = old_vals;
        return;
    }
    atomic_store_explicit(&c->n_entries, 0, memory_order_relaxed);
    atomic_store_explicit(&c->keys_used, 0, memory_order_relaxed);
    atomic_store_explicit(&c->vals_used, 0, memory_order_relaxed);
    memset(&c->own, 0, sizeof(c->own));
    for (size_t s = 0; s < 2 * old_shape.entries; s++) {
        const CacheSlot *slot = &old_slots[s];
        if (atomic_load_explicit(&slot->tag, memory_order_relaxed) < 2) continue; /* empty, or never finished */
        const uint8_t *key = slot->key_len <= CACHE_INLINE_KEY ? slot->key.bytes : old_keys + slot->key.off;
        const int32_t *vals = slot->n_vals <= CACHE_INLINE_VALS ? slot->vals.inl : old_vals + slot->vals.off;
        cache_put(c, &c->own, key, slot->key_len, c->key_hash(key, slot->key_len), vals, slot->n_vals, 0);
    }
    free(old_slots);
    free(old_keys);
    free(old_vals);
}

/* The size a cache of `entries` entries grows to: CACHE_GROWTH times its first shape, then its largest. */
static size_t cache_grown(const Cache *c, size_t entries) {
    return entries > CACHE_FIRST_ENTRIES ? c->max_entries : entries * CACHE_GROWTH;
}

/* Make a cache that calls have filled up, or nearly (three quarters), bigger, its entries moved (a
 * cache emptied at each step would lose what the first megabytes of a text taught it). */
static void cache_grow_if_full(Cache *c) {
    if (!c->slots || c->shape.entries >= c->max_entries) return;
    if (!atomic_load_explicit(&c->filled, memory_order_relaxed) && !cache_used_over(c, 3)) return;
    cache_resize(c, cache_grown(c, c->shape.entries));
}

/* Make a cache big enough, from the start, for a call on `size` characters of text: about one entry
 * per CACHE_TEXT_PER_ENTRY characters, in the steps it grows by.  (A call that shares the cache
 * among threads cannot grow it midway; one that does not grows it when it fills, but each growth
 * moves every entry.) */
static void cache_fit(Cache *c, size_t size) {
    size_t want = size / CACHE_TEXT_PER_ENTRY, entries = c->shape.entries;
    while (entries < want && entries < c->max_entries) entries = cache_grown(c, entries);
    if (entries > c->shape.entries) cache_resize(c, entries);
}

/* A free cache for a call on `size` characters of text (the first one first: a cache that stays
 * with one caller stays in the memory caches).  NULL when all are busy or out of memory (encode
 * without one).  A cache that its last users filled grows now, one too small for the call too; one
 * left nearly full at its largest is emptied, while nobody else uses it. */
static Cache *cache_take(CachePool *p, size_t size) {
    for (int k = 0; k < p->n; k++) {
        Cache *c = &p->caches[k];
        if (pthread_mutex_trylock(&c->lock) != 0) continue;
        cache_grow_if_full(c);
        cache_fit(c, size);
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
    return cache_slots_bytes(s) + s->entries * (s->key_bytes + s->vals * sizeof(int32_t));
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

/* Forget everything cached and give the tables' memory back (they are allocated again, at the first
 * size, when next used), waiting for calls that use a cache (call without the GIL). */
static void cache_pool_clear(CachePool *p) {
    for (int k = 0; k < p->n; k++) {
        Cache *c = &p->caches[k];
        pthread_mutex_lock(&c->lock);
        cache_release_tables(c);
        cache_reset_shape(c);
        atomic_store_explicit(&c->n_entries, 0, memory_order_relaxed);
        atomic_store_explicit(&c->keys_used, 0, memory_order_relaxed);
        atomic_store_explicit(&c->vals_used, 0, memory_order_relaxed);
        memset(&c->own, 0, sizeof(c->own));
        pthread_mutex_unlock(&c->lock);
    }
}

#endif
