/* What the C models (models.c, sp_native.c) share: a hash table of code-point strings, the output
 * buffer of ids and offsets, running jobs on threads, and small conversions.  Header-only (static
 * functions): each extension module compiles its own copy.
 *
 * The table: open addressing, keys (uint32 code points) copied into one pool, FNV-1a hash over the
 * code points so that a caller walking a word can extend the hash one character at a time
 * (HSTEP) and probe every prefix without rehashing it. */
#ifndef TOKVIZ_MODELS_COMMON_H
#define TOKVIZ_MODELS_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define H0 0xcbf29ce484222325ULL
#define HSTEP(h, c) (((h) ^ (uint64_t)(c)) * 0x100000001b3ULL)

typedef struct {
    uint64_t h;
    size_t off;   /* key in the pool */
    uint32_t len; /* 0: empty slot */
    int32_t id;   /* -1: no token (only a prefix of some) */
    int32_t flags;
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;
    uint32_t *pool;
    size_t pool_len, pool_cap;
} Table;

static inline uint64_t hash_of(const uint32_t *key, size_t len) {
    uint64_t h = H0;
    for (size_t k = 0; k < len; k++) h = HSTEP(h, key[k]);
    return h;
}

static void table_free(Table *t) {
    free(t->slots);
    free(t->pool);
    memset(t, 0, sizeof *t);
}

static int table_init(Table *t, size_t count) {
    size_t size = 16;
    while (size < count * 2 + 1) size <<= 1;
    t->slots = calloc(size, sizeof(Slot));
    t->mask = size - 1;
    return t->slots ? 0 : -1;
}

static inline size_t slot_index(uint64_t h) { return (size_t)(h ^ (h >> 29) ^ (h >> 47)); }

/* The slot of key (h = hash_of(key, len)), or NULL (also for a table never initialised). */
static inline const Slot *table_find(const Table *t, const uint32_t *key, size_t len, uint64_t h) {
    if (!t->slots) return NULL;
    size_t i = slot_index(h) & t->mask;
    for (;;) {
        const Slot *s = &t->slots[i];
        if (!s->len) return NULL;
        if (s->h == h && s->len == len && memcmp(t->pool + s->off, key, len * sizeof(uint32_t)) == 0) return s;
        i = (i + 1) & t->mask;
    }
}

/* The id of key, or -1. */
static inline int32_t table_id(const Table *t, const uint32_t *key, size_t len) {
    const Slot *s = table_find(t, key, len, hash_of(key, len));
    return s ? s->id : -1;
}

/* Adds key (if new) with `id` and `flags`; for a key already there, flags are or-ed and the id is
 * kept unless it was -1 (the first id of a key wins).  -1 when out of memory.  The table must have
 * room (table_init with the number of keys). */
static int table_put(Table *t, const uint32_t *key, size_t len, int32_t id, int32_t flags) {
    uint64_t h = hash_of(key, len);
    size_t i = slot_index(h) & t->mask;
    for (;;) {
        Slot *s = &t->slots[i];
        if (!s->len) break;
        if (s->h == h && s->len == len && memcmp(t->pool + s->off, key, len * sizeof(uint32_t)) == 0) {
            if (s->id < 0) s->id = id;
            s->flags |= flags;
            return 0;
        }
        i = (i + 1) & t->mask;
    }
    if (t->pool_len + len > t->pool_cap) {
        size_t cap = t->pool_cap ? t->pool_cap * 2 : 4096;
        while (cap < t->pool_len + len) cap *= 2;
        uint32_t *p = realloc(t->pool, cap * sizeof(uint32_t));
        if (!p) return -1;
        t->pool = p;
        t->pool_cap = cap;
    }
    memcpy(t->pool + t->pool_len, key, len * sizeof(uint32_t));
    Slot *s = &t->slots[i];
    s->h = h;
    s->off = t->pool_len;
    s->len = (uint32_t)len;
    s->id = id;
    s->flags = flags;
    t->pool_len += len;
    return 0;
}

/* The code points of a str (malloc'ed; NULL with an exception set on error). */
static uint32_t *codepoints_of(PyObject *s, Py_ssize_t *len) {
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "expected str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    uint32_t *buf = malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!buf) {
        PyErr_NoMemory();
        return NULL;
    }
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t k = 0; k < n; k++) buf[k] = PyUnicode_READ(kind, data, k);
    *len = n;
    return buf;
}

static inline int is_surrogate(uint32_t c) { return c >= 0xD800 && c < 0xE000; }

/* The UTF-8 bytes of code point c in b (a surrogate gets its 3-byte form: callers that must
 * refuse surrogates check is_surrogate first); returns how many. */
static inline int utf8_of(uint32_t c, uint8_t *b) {
    if (c < 0x80) {
        b[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        b[0] = (uint8_t)(0xC0 | (c >> 6));
        b[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        b[0] = (uint8_t)(0xE0 | (c >> 12));
        b[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        b[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    b[0] = (uint8_t)(0xF0 | (c >> 18));
    b[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    b[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    b[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

/* ---- output: ids and start/end pairs --------------------------------------------------------- */

typedef struct {
    int32_t *ids;
    int32_t *offs; /* start/end pairs */
    size_t n, cap;
} Out;

/* 0, or -1 when out of memory. */
static int out_push(Out *o, int32_t id, int32_t a, int32_t b) {
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 256;
        int32_t *ids = realloc(o->ids, cap * sizeof(int32_t));
        if (!ids) return -1;
        o->ids = ids;
        int32_t *offs = realloc(o->offs, cap * 2 * sizeof(int32_t));
        if (!offs) return -1;
        o->offs = offs;
        o->cap = cap;
    }
    o->ids[o->n] = id;
    o->offs[2 * o->n] = a;
    o->offs[2 * o->n + 1] = b;
    o->n++;
    return 0;
}

static void out_free(Out *o) {
    free(o->ids);
    free(o->offs);
    memset(o, 0, sizeof *o);
}

/* ---- jobs on threads ------------------------------------------------------------------------ */

/* fn(job) for each of the n jobs of an array of `size`-byte items: jobs 1..n-1 on threads of their
 * own, job 0 on the calling thread, and a job whose thread could not be started here as well.
 * `tids` has room for n threads.  Call with the GIL released. */
static void run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n, pthread_t *tids) {
    int started = 0;
    for (int t = 1; t < n; t++) {
        if (pthread_create(&tids[t], NULL, fn, (char *)jobs + (size_t)t * size) != 0) break;
        started = t;
    }
    fn(jobs);
    for (int t = 1; t <= started; t++) pthread_join(tids[t], NULL);
    for (int t = started + 1; t < n; t++) fn((char *)jobs + (size_t)t * size);
}

#endif
