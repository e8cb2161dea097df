/* tokviz._bpetrain: the C core of BPE training.
 *
 * PieceCounter  counts pre-tokenized pieces (their UTF-8 bytes) over many texts on several
 *               threads, remembering where each piece first appeared so that the result comes
 *               out in order of first appearance whatever the number of threads.
 * learn_merges  learns merges over words given as sequences of symbol ids, keeping pair counts
 *               up to date after each merge (only the words holding the merged pair are
 *               visited) with a lazily invalidated priority queue.
 *
 * tokviz/train/bpe_core.py holds the Python reference both must agree with exactly, and the
 * documentation of the API.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

#define MAX_THREADS 64

/* ---- hashing ----------------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0x100000001b3ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return mix64(h);
}

/* ---- pieces table (one per thread) ------------------------------------------------------- */

typedef struct {
    uint64_t hash;
    uint64_t first; /* (text number << 32) | character offset of the first occurrence */
    uint64_t count; /* 0: empty slot */
    uint64_t offset; /* of the bytes in the arena */
    uint32_t len;
} PieceSlot;

typedef struct {
    PieceSlot *slots;
    size_t cap, used; /* cap: a power of two */
    uint8_t *arena;
    size_t arena_len, arena_cap;
    uint8_t *scratch; /* UTF-8 of the current piece */
    size_t scratch_cap;
    int error; /* 0, 1: out of memory, 2: lone surrogate */
} PieceTable;

enum { PT_OK = 0, PT_NOMEM = 1, PT_SURROGATE = 2 };

static void table_free(PieceTable *t) {
    free(t->slots);
    free(t->arena);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}

static int table_grow(PieceTable *t) {
    size_t cap = t->cap ? t->cap * 2 : 1024;
    PieceSlot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        PieceSlot *s = &t->slots[i];
        if (!s->count) continue;
        size_t j = s->hash & (cap - 1);
        while (slots[j].count) j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* Add `count` occurrences of piece p[0..n) first seen at `first`. */
static int table_add(PieceTable *t, const uint8_t *p, size_t n, uint64_t hash, uint64_t count, uint64_t first) {
    if ((t->used + 1) * 4 >= t->cap * 3 && table_grow(t)) return -1;
    size_t mask = t->cap - 1;
    size_t j = hash & mask;
    for (;;) {
        PieceSlot *s = &t->slots[j];
        if (!s->count) break;
        if (s->hash == hash && s->len == n && memcmp(t->arena + s->offset, p, n) == 0) {
            s->count += count;
            if (first < s->first) s->first = first;
            return 0;
        }
        j = (j + 1) & mask;
    }
    if (t->arena_len + n > t->arena_cap) {
        size_t cap = t->arena_cap ? t->arena_cap * 2 : 1 << 16;
        while (cap < t->arena_len + n) cap *= 2;
        uint8_t *a = realloc(t->arena, cap);
        if (!a) return -1;
        t->arena = a;
        t->arena_cap = cap;
    }
    memcpy(t->arena + t->arena_len, p, n);
    PieceSlot *s = &t->slots[j];
    s->hash = hash;
    s->first = first;
    s->count = count;
    s->offset = t->arena_len;
    s->len = (uint32_t)n;
    t->arena_len += n;
    t->used++;
    return 0;
}

/* UTF-8 of characters [a, b) of `x` into t->scratch; PT_* code. */
static int piece_utf8(PieceTable *t, const tv_text *x, ptrdiff_t a, ptrdiff_t b, size_t *len) {
    size_t need = (size_t)(b - a) * 4;
    if (need > t->scratch_cap) {
        size_t cap = t->scratch_cap ? t->scratch_cap : 256;
        while (cap < need) cap *= 2;
        uint8_t *s = realloc(t->scratch, cap);
        if (!s) return PT_NOMEM;
        t->scratch = s;
        t->scratch_cap = cap;
    }
    uint8_t *o = t->scratch;
    size_t n = 0;
    for (ptrdiff_t i = a; i < b; i++) {
        uint32_t c = tv_cp(x, i);
        if (c < 0x80) {
            o[n++] = (uint8_t)c;
        } else if (c < 0x800) {
            o[n++] = (uint8_t)(0xC0 | (c >> 6));
            o[n++] = (uint8_t)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c < 0xE000) return PT_SURROGATE;
            o[n++] = (uint8_t)(0xE0 | (c >> 12));
            o[n++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            o[n++] = (uint8_t)(0x80 | (c & 0x3F));
        } else {
            o[n++] = (uint8_t)(0xF0 | (c >> 18));
            o[n++] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            o[n++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            o[n++] = (uint8_t)(0x80 | (c & 0x3F));
        }
    }
    *len = n;
    return PT_OK;
}

static int count_piece(PieceTable *t, const tv_text *x, ptrdiff_t a, ptrdiff_t b, uint64_t text_no) {
    size_t n;
    int rc = piece_utf8(t, x, a, b, &n);
    if (rc) return rc;
    uint64_t first = (text_no << 32) | (uint64_t)a;
    return table_add(t, t->scratch, n, hash_bytes(t->scratch, n), 1, first) ? PT_NOMEM : PT_OK;
}

/* Count the pieces of characters [start, x->n) of a text: the scanner's pieces, each digit apart
 * when split_digits.  (The scanners look only forward, so a shortened view is a text of its own.) */
static int count_span(PieceTable *t, const tv_text *x, ptrdiff_t start, uint64_t text_no, int pattern, int split_digits) {
    ptrdiff_t i = start, n = x->n;
    while (i < n) {
        ptrdiff_t j = pattern == TV_PAT_NONE ? n : tv_scan(pattern, x, i);
        if (!split_digits) {
            int rc = count_piece(t, x, i, j, text_no);
            if (rc) return rc;
        } else {
            ptrdiff_t a = i;
            for (ptrdiff_t k = i; k < j; k++) {
                if (!TV_IS(tv_cp(x, k), TV_N)) continue;
                int rc;
                if (k > a && (rc = count_piece(t, x, a, k, text_no))) return rc;
                if ((rc = count_piece(t, x, k, k + 1, text_no))) return rc;
                a = k + 1;
            }
            if (j > a) {
                int rc = count_piece(t, x, a, j, text_no);
                if (rc) return rc;
            }
        }
        i = j;
    }
    return PT_OK;
}

/* Count the pieces of one text; split_lines: of each line (up to and with its "\n") apart. */
static int count_text(PieceTable *t, const tv_text *x, uint64_t text_no, int pattern, int split_digits, int split_lines) {
    if (!split_lines) return count_span(t, x, 0, text_no, pattern, split_digits);
    ptrdiff_t start = 0;
    while (start < x->n) {
        ptrdiff_t end = start;
        while (end < x->n && tv_cp(x, end) != '\n') end++;
        if (end < x->n) end++;
        tv_text line = {x->data, x->kind, end};
        int rc = count_span(t, &line, start, text_no, pattern, split_digits);
        if (rc) return rc;
        start = end;
    }
    return PT_OK;
}

/* ---- PieceCounter ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    int pattern;
    int split_digits;
    int split_lines;
    uint64_t texts; /* texts counted so far: the next one's number */
    uint64_t chars;
    PieceTable tables[MAX_THREADS];
    int n_tables;
    int busy; /* an add() or result() is running (the GIL released): no other call may start */
} PieceCounter;

typedef struct {
    PieceCounter *counter;
    tv_text *texts;
    Py_ssize_t n;
    atomic_long next;
} CountJob;

typedef struct {
    CountJob *job;
    int tid;
} CountWorker;

static void *count_worker(void *arg) {
    CountWorker *w = arg;
    CountJob *job = w->job;
    PieceTable *t = &job->counter->tables[w->tid];
    for (;;) {
        long k = atomic_fetch_add(&job->next, 1);
        if (k >= job->n || t->error) break;
        int rc = count_text(t, &job->texts[k], job->counter->texts + (uint64_t)k, job->counter->pattern,
                            job->counter->split_digits, job->counter->split_lines);
        if (rc) {
            t->error = rc;
            break;
        }
    }
    return NULL;
}

static int PieceCounter_init(PieceCounter *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"pattern", "split_digits", "split_lines", NULL};
    int pattern = TV_PAT_GPT2, split_digits = 0, split_lines = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ipp", kwlist, &pattern, &split_digits, &split_lines)) return -1;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "PieceCounter is in use by another thread");
        return -1;
    }
    if (pattern < 0 || pattern >= TV_PAT_COUNT) {
        PyErr_Format(PyExc_ValueError, "unknown pattern id %d", pattern);
        return -1;
    }
    for (int i = 0; i < self->n_tables; i++) table_free(&self->tables[i]);
    self->n_tables = 0;
    self->pattern = pattern;
    self->split_digits = split_digits;
    self->split_lines = split_lines;
    self->texts = 0;
    self->chars = 0;
    return 0;
}

static void PieceCounter_dealloc(PieceCounter *self) {
    for (int i = 0; i < self->n_tables; i++) table_free(&self->tables[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *PieceCounter_add(PieceCounter *self, PyObject *args) {
    PyObject *seq;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "O|i:add", &seq, &threads)) return NULL;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "PieceCounter is in use by another thread");
        return NULL;
    }
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    PyObject *fast = PySequence_Fast(seq, "add() takes a sequence of str");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    tv_text *texts = calloc((size_t)n + 1, sizeof *texts);
    if (!texts) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    uint64_t chars = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "add() takes str items, got %.80s", Py_TYPE(s)->tp_name);
            goto fail;
        }
        if (PyUnicode_GET_LENGTH(s) >= ((Py_ssize_t)1 << 32) - 1) {
            PyErr_SetString(PyExc_ValueError, "a text of 2**32 characters or more: cut it into smaller texts");
            goto fail;
        }
        texts[i].data = PyUnicode_DATA(s);
        texts[i].kind = PyUnicode_KIND(s);
        texts[i].n = PyUnicode_GET_LENGTH(s);
        chars += (uint64_t)texts[i].n;
    }
    if ((Py_ssize_t)threads > n) threads = n > 0 ? (int)n : 1;
    while (self->n_tables < threads) memset(&self->tables[self->n_tables++], 0, sizeof(PieceTable));

    CountJob job = {.counter = self, .texts = texts, .n = n};
    self->busy = 1;
    atomic_init(&job.next, 0);
    CountWorker workers[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int k = 0; k < threads; k++) workers[k] = (CountWorker){&job, k};
    for (int k = 1; k < threads; k++) started[k] = pthread_create(&tids[k], NULL, count_worker, &workers[k]) == 0;
    count_worker(&workers[0]); /* the calling thread works too (and does all if no thread started) */
    for (int k = 1; k < threads; k++)
        if (started[k]) pthread_join(tids[k], NULL);
    Py_END_ALLOW_THREADS
    self->busy = 0;

    int error = 0;
    for (int k = 0; k < self->n_tables; k++)
        if (self->tables[k].error) error = self->tables[k].error;
    if (error) {
        for (int k = 0; k < self->n_tables; k++) table_free(&self->tables[k]);
        self->n_tables = 0;
        if (error == PT_SURROGATE)
            PyErr_SetString(PyExc_ValueError, "a text holds a lone surrogate, which has no UTF-8 form");
        else
            PyErr_NoMemory();
        goto fail;
    }
    self->texts += (uint64_t)n;
    self->chars += chars;
    free(texts);
    Py_DECREF(fast);
    Py_RETURN_NONE;
fail:
    free(texts);
    Py_DECREF(fast);
    return NULL;
}

static int by_first(const void *a, const void *b) {
    uint64_t x = (*(PieceSlot *const *)a)->first, y = (*(PieceSlot *const *)b)->first;
    return x < y ? -1 : x > y;
}

/* (pieces as bytes, counts) in order of first appearance; empties the counter. */
static PyObject *PieceCounter_result(PieceCounter *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *pieces = NULL, *counts = NULL, *out = NULL;
    PieceSlot **order = NULL;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "PieceCounter is in use by another thread");
        return NULL;
    }
    if (self->n_tables == 0) return Py_BuildValue("([],[])");
    self->busy = 1;
    PieceTable *main = &self->tables[0];
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int k = 1; k < self->n_tables && !failed; k++) {
        PieceTable *t = &self->tables[k];
        for (size_t i = 0; i < t->cap && !failed; i++) {
            PieceSlot *s = &t->slots[i];
            if (s->count && table_add(main, t->arena + s->offset, s->len, s->hash, s->count, s->first)) failed = 1;
        }
        table_free(t);
    }
    if (!failed) {
        order = malloc((main->used + 1) * sizeof *order);
        if (!order) {
            failed = 1;
        } else {
            size_t m = 0;
            for (size_t i = 0; i < main->cap; i++)
                if (main->slots[i].count) order[m++] = &main->slots[i];
            qsort(order, m, sizeof *order, by_first);
        }
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    self->n_tables = 1;
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t m = (Py_ssize_t)main->used;
    pieces = PyList_New(m);
    counts = PyList_New(m);
    if (!pieces || !counts) goto done;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *b = PyBytes_FromStringAndSize((const char *)main->arena + order[i]->offset, order[i]->len);
        PyObject *c = PyLong_FromUnsignedLongLong(order[i]->count);
        if (!b || !c) {
            Py_XDECREF(b);
            Py_XDECREF(c);
            goto done;
        }
        PyList_SET_ITEM(pieces, i, b);
        PyList_SET_ITEM(counts, i, c);
    }
    out = PyTuple_Pack(2, pieces, counts);
done:
    free(order);
    Py_XDECREF(pieces);
    Py_XDECREF(counts);
    for (int k = 0; k < self->n_tables; k++) table_free(&self->tables[k]);
    self->n_tables = 0;
    self->texts = 0;
    return out;
}

static PyObject *PieceCounter_distinct(PieceCounter *self, void *Py_UNUSED(closure)) {
    size_t total = 0;
    for (int k = 0; k < self->n_tables; k++) total += self->tables[k].used;
    return PyLong_FromSize_t(total);
}

static PyObject *PieceCounter_chars(PieceCounter *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong(self->chars);
}

static PyMethodDef PieceCounter_methods[] = {
    {"add", (PyCFunction)PieceCounter_add, METH_VARARGS,
     "add(texts, threads=1): count the pieces of each str in `texts`, on up to `threads` threads."},
    {"result", (PyCFunction)PieceCounter_result, METH_NOARGS,
     "result() -> (pieces as bytes, counts), in order of first appearance; empties the counter."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef PieceCounter_getset[] = {
    {"distinct", (getter)PieceCounter_distinct, NULL,
     "distinct pieces held (an upper bound: a piece met on two threads is held twice until result())", NULL},
    {"chars", (getter)PieceCounter_chars, NULL, "characters counted so far", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PieceCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokviz._bpetrain.PieceCounter",
    .tp_doc = "PieceCounter(pattern=PAT_GPT2, split_digits=False, split_lines=False): counts pre-tokenized pieces.",
    .tp_basicsize = sizeof(PieceCounter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PieceCounter_init,
    .tp_dealloc = (destructor)PieceCounter_dealloc,
    .tp_methods = PieceCounter_methods,
    .tp_getset = PieceCounter_getset,
};

/* ---- merge learning ---------------------------------------------------------------------- */

typedef struct {
    int32_t *v;
    int32_t n, cap;
} IVec;

static int ivec_push(IVec *a, int32_t x) {
    if (a->n == a->cap) {
        int32_t cap = a->cap ? a->cap * 2 : 4;
        int32_t *v = realloc(a->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

typedef struct {
    int32_t left, right;
    int64_t count;
    IVec words;     /* words that hold (or held) the pair; may be unsorted, with repeats */
    uint32_t stamp; /* merge number when last marked as changed */
    uint8_t eligible; /* merged length within max_token_length */
} Pair;

typedef struct {
    int64_t count, left_count, right_count; /* the pair's counts when pushed */
    int32_t pair;
} HeapEntry;

enum { MODE_COUNT = 0, MODE_WORDPIECE = 1 };

typedef struct {
    int mode;
    int64_t min_frequency;
    int64_t max_len; /* 0: none */
    /* words */
    int32_t *syms;
    int64_t *word_start;
    int32_t *word_len;
    int64_t *word_freq;
    Py_ssize_t n_words;
    int32_t longest;
    uint8_t *covered, *merged_here; /* scratch of `longest` flags */
    /* symbols */
    int32_t n_syms, cap_syms;
    int64_t *sym_len;
    int64_t *sym_count; /* wordpiece: occurrences weighted by word frequency */
    IVec *sym_pairs;    /* wordpiece: pairs each symbol belongs to */
    /* symbol bytes, to give a merge that spells an existing symbol that symbol's id */
    int with_bytes;
    uint8_t *bytes;
    int64_t *bytes_at; /* start of symbol i's bytes; bytes_at[n_syms]: end */
    int64_t bytes_len, bytes_cap;
    int32_t *spell_slots; /* open addressing: symbol id + 1, 0 empty */
    size_t spell_cap, spell_used;
    /* pairs */
    Pair *pairs;
    int32_t n_pairs, cap_pairs;
    uint64_t *pair_keys;
    int32_t *pair_ids; /* -1: empty */
    size_t pair_cap;
    /* queue */
    HeapEntry *heap;
    size_t heap_n, heap_cap;
    int32_t *changed;
    size_t n_changed, cap_changed;
    uint32_t stamp;
    /* tie-break: NULL, the pair created first; else the pair whose (rank of left, rank of right)
     * is smallest, a symbol's rank being ranks[s] (in [0, n_ranked)) for the first n_ranked
     * symbols, else s (symbols made by merges rank after all given ones, in the order made) */
    int64_t *ranks;
    int32_t n_ranked;
} Learner;

static void learner_free(Learner *L) {
    free(L->syms);
    free(L->word_start);
    free(L->word_len);
    free(L->word_freq);
    free(L->covered);
    free(L->merged_here);
    free(L->sym_len);
    free(L->sym_count);
    if (L->sym_pairs)
        for (int32_t i = 0; i < L->cap_syms; i++) free(L->sym_pairs[i].v);
    free(L->sym_pairs);
    free(L->bytes);
    free(L->bytes_at);
    free(L->spell_slots);
    for (int32_t i = 0; i < L->n_pairs; i++) free(L->pairs[i].words.v);
    free(L->pairs);
    free(L->pair_keys);
    free(L->pair_ids);
    free(L->heap);
    free(L->changed);
    free(L->ranks);
}

/* -- symbol spellings -- */

static uint64_t spell_hash(Learner *L, int32_t s) {
    return hash_bytes(L->bytes + L->bytes_at[s], (size_t)(L->bytes_at[s + 1] - L->bytes_at[s]));
}

static int spell_insert(Learner *L, int32_t s) {
    if ((L->spell_used + 1) * 2 >= L->spell_cap) {
        size_t cap = L->spell_cap ? L->spell_cap * 2 : 1024;
        int32_t *slots = calloc(cap, sizeof *slots);
        if (!slots) return -1;
        for (size_t i = 0; i < L->spell_cap; i++) {
            int32_t k = L->spell_slots[i] - 1;
            if (k < 0) continue;
            size_t j = spell_hash(L, k) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = k + 1;
        }
        free(L->spell_slots);
        L->spell_slots = slots;
        L->spell_cap = cap;
    }
    size_t mask = L->spell_cap - 1, j = spell_hash(L, s) & mask;
    int64_t n = L->bytes_at[s + 1] - L->bytes_at[s];
    while (L->spell_slots[j]) {
        int32_t k = L->spell_slots[j] - 1;
        if (L->bytes_at[k + 1] - L->bytes_at[k] == n && memcmp(L->bytes + L->bytes_at[k], L->bytes + L->bytes_at[s], (size_t)n) == 0)
            return 0; /* two symbols spelled alike: the first keeps the spelling */
        j = (j + 1) & mask;
    }
    L->spell_slots[j] = s + 1;
    L->spell_used++;
    return 0;
}

/* Id of the symbol spelled like left + right, or -1; leaves the spelling at bytes[bytes_len..]. */
static int spell_find_concat(Learner *L, int32_t a, int32_t b, int64_t *n_out) {
    int64_t na = L->bytes_at[a + 1] - L->bytes_at[a], nb = L->bytes_at[b + 1] - L->bytes_at[b];
    int64_t n = na + nb;
    if (L->bytes_len + n > L->bytes_cap) {
        int64_t cap = L->bytes_cap * 2 + n + 1024;
        uint8_t *p = realloc(L->bytes, (size_t)cap);
        if (!p) return -2;
        L->bytes = p;
        L->bytes_cap = cap;
    }
    uint8_t *dst = L->bytes + L->bytes_len;
    memcpy(dst, L->bytes + L->bytes_at[a], (size_t)na);
    memcpy(dst + na, L->bytes + L->bytes_at[b], (size_t)nb);
    *n_out = n;
    if (!L->spell_cap) return -1;
    size_t mask = L->spell_cap - 1, j = hash_bytes(dst, (size_t)n) & mask;
    while (L->spell_slots[j]) {
        int32_t k = L->spell_slots[j] - 1;
        if (L->bytes_at[k + 1] - L->bytes_at[k] == n && memcmp(L->bytes + L->bytes_at[k], dst, (size_t)n) == 0) return k;
        j = (j + 1) & mask;
    }
    return -1;
}

/* -- symbols -- */

static int symbols_reserve(Learner *L, int32_t n) {
    if (n <= L->cap_syms) return 0;
    int32_t cap = L->cap_syms ? L->cap_syms : 256;
    while (cap < n) cap *= 2;
    int64_t *len = realloc(L->sym_len, (size_t)cap * sizeof *len);
    if (!len) return -1;
    L->sym_len = len;
    if (L->mode == MODE_WORDPIECE) {
        int64_t *cnt = realloc(L->sym_count, (size_t)cap * sizeof *cnt);
        if (!cnt) return -1;
        L->sym_count = cnt;
        IVec *sp = realloc(L->sym_pairs, (size_t)cap * sizeof *sp);
        if (!sp) return -1;
        L->sym_pairs = sp;
        memset(sp + L->cap_syms, 0, (size_t)(cap - L->cap_syms) * sizeof *sp);
        memset(cnt + L->cap_syms, 0, (size_t)(cap - L->cap_syms) * sizeof *cnt);
    }
    if (L->with_bytes) {
        int64_t *at = realloc(L->bytes_at, ((size_t)cap + 1) * sizeof *at);
        if (!at) return -1;
        L->bytes_at = at;
    }
    L->cap_syms = cap;
    return 0;
}

/* -- pairs -- */

static inline uint64_t pair_key(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

static int pairs_rehash(Learner *L) {
    size_t cap = L->pair_cap ? L->pair_cap * 2 : 4096;
    uint64_t *keys = malloc(cap * sizeof *keys);
    int32_t *ids = malloc(cap * sizeof *ids);
    if (!keys || !ids) {
        free(keys);
        free(ids);
        return -1;
    }
    memset(ids, 0xFF, cap * sizeof *ids);
    for (int32_t p = 0; p < L->n_pairs; p++) {
        uint64_t key = pair_key(L->pairs[p].left, L->pairs[p].right);
        size_t j = mix64(key) & (cap - 1);
        while (ids[j] >= 0) j = (j + 1) & (cap - 1);
        keys[j] = key;
        ids[j] = p;
    }
    free(L->pair_keys);
    free(L->pair_ids);
    L->pair_keys = keys;
    L->pair_ids = ids;
    L->pair_cap = cap;
    return 0;
}

/* The pair (a, b), created (and numbered: its number is its place in creation order) if new;
 * -1 when out of memory. */
static int32_t pair_get(Learner *L, int32_t a, int32_t b) {
    uint64_t key = pair_key(a, b);
    size_t mask = L->pair_cap - 1, j = mix64(key) & mask;
    while (L->pair_ids[j] >= 0) {
        if (L->pair_keys[j] == key) return L->pair_ids[j];
        j = (j + 1) & mask;
    }
    if ((size_t)(L->n_pairs + 1) * 2 >= L->pair_cap) {
        if (pairs_rehash(L)) return -1;
        mask = L->pair_cap - 1;
        j = mix64(key) & mask;
        while (L->pair_ids[j] >= 0) j = (j + 1) & mask;
    }
    if (L->n_pairs == L->cap_pairs) {
        if (L->cap_pairs >= INT32_MAX / 2) return -1;
        int32_t cap = L->cap_pairs ? L->cap_pairs * 2 : 4096;
        Pair *p = realloc(L->pairs, (size_t)cap * sizeof *p);
        if (!p) return -1;
        L->pairs = p;
        L->cap_pairs = cap;
    }
    int32_t id = L->n_pairs++;
    Pair *p = &L->pairs[id];
    memset(p, 0, sizeof *p);
    p->left = a;
    p->right = b;
    p->eligible = L->max_len == 0 || L->sym_len[a] + L->sym_len[b] <= L->max_len;
    L->pair_keys[j] = key;
    L->pair_ids[j] = id;
    if (L->mode == MODE_WORDPIECE) {
        if (ivec_push(&L->sym_pairs[a], id)) return -1;
        if (a != b && ivec_push(&L->sym_pairs[b], id)) return -1;
    }
    return id;
}

/* -- queue: best score first, then the pair created first -- */

static inline int64_t symbol_rank(const Learner *L, int32_t s) {
    return s < L->n_ranked ? L->ranks[s] : (int64_t)s;
}

static inline int entry_better(const Learner *L, const HeapEntry *x, const HeapEntry *y) {
    if (L->mode == MODE_WORDPIECE) {
        /* x.count / (x.l * x.r) vs y.count / (y.l * y.r), exactly */
        unsigned __int128 lx = (unsigned __int128)(uint64_t)x->count * (uint64_t)y->left_count * (uint64_t)y->right_count;
        unsigned __int128 ly = (unsigned __int128)(uint64_t)y->count * (uint64_t)x->left_count * (uint64_t)x->right_count;
        if (lx != ly) return lx > ly;
    } else if (x->count != y->count) {
        return x->count > y->count;
    }
    if (L->ranks) {
        const Pair *px = &L->pairs[x->pair], *py = &L->pairs[y->pair];
        int64_t xl = symbol_rank(L, px->left), yl = symbol_rank(L, py->left);
        if (xl != yl) return xl < yl;
        return symbol_rank(L, px->right) < symbol_rank(L, py->right);
    }
    return x->pair < y->pair;
}

static int heap_push(Learner *L, int32_t pid) {
    if (L->heap_n == L->heap_cap) {
        size_t cap = L->heap_cap ? L->heap_cap * 2 : 4096;
        HeapEntry *h = realloc(L->heap, cap * sizeof *h);
        if (!h) return -1;
        L->heap = h;
        L->heap_cap = cap;
    }
    Pair *p = &L->pairs[pid];
    HeapEntry e = {p->count, 0, 0, pid};
    if (L->mode == MODE_WORDPIECE) {
        e.left_count = L->sym_count[p->left];
        e.right_count = L->sym_count[p->right];
    }
    size_t i = L->heap_n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!entry_better(L, &e, &L->heap[up])) break;
        L->heap[i] = L->heap[up];
        i = up;
    }
    L->heap[i] = e;
    return 0;
}

static HeapEntry heap_pop(Learner *L) {
    HeapEntry top = L->heap[0];
    HeapEntry last = L->heap[--L->heap_n];
    size_t i = 0, n = L->heap_n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && entry_better(L, &L->heap[c + 1], &L->heap[c])) c++;
        if (!entry_better(L, &L->heap[c], &last)) break;
        L->heap[i] = L->heap[c];
        i = c;
    }
    if (n) L->heap[i] = last;
    return top;
}

static inline int pair_queueable(const Learner *L, const Pair *p) { return p->count > 0 && p->eligible; }

/* Throw away the stale entries: one entry per pair that can still be merged. */
static int heap_rebuild(Learner *L) {
    L->heap_n = 0;
    for (int32_t p = 0; p < L->n_pairs; p++)
        if (pair_queueable(L, &L->pairs[p]) && heap_push(L, p)) return -1;
    return 0;
}

static inline int entry_current(const Learner *L, const HeapEntry *e) {
    const Pair *p = &L->pairs[e->pair];
    if (e->count != p->count) return 0;
    if (L->mode == MODE_WORDPIECE)
        return e->left_count == L->sym_count[p->left] && e->right_count == L->sym_count[p->right];
    return 1;
}

static int mark_changed(Learner *L, int32_t pid) {
    Pair *p = &L->pairs[pid];
    if (p->stamp == L->stamp) return 0;
    p->stamp = L->stamp;
    if (L->n_changed == L->cap_changed) {
        size_t cap = L->cap_changed ? L->cap_changed * 2 : 1024;
        int32_t *c = realloc(L->changed, cap * sizeof *c);
        if (!c) return -1;
        L->changed = c;
        L->cap_changed = cap;
    }
    L->changed[L->n_changed++] = pid;
    return 0;
}

/* Count the pair (a, b) `delta` more times; `in_word`: word w now holds it (list w under it). */
static int pair_add(Learner *L, int32_t a, int32_t b, int64_t delta, int32_t w, int in_word) {
    int32_t pid = pair_get(L, a, b);
    if (pid < 0) return -1;
    Pair *p = &L->pairs[pid];
    p->count += delta;
    if (in_word && p->eligible && (p->words.n == 0 || p->words.v[p->words.n - 1] != w))
        if (ivec_push(&p->words, w)) return -1;
    return L->stamp ? mark_changed(L, pid) : 0;
}

/* Replace every (left, right) in word w (left to right, without overlaps) by `merged`, and
 * update the counts of the pairs around each place (and the symbol counts in wordpiece mode). */
static int merge_word(Learner *L, int32_t w, int32_t left, int32_t right, int32_t merged) {
    int32_t *s = L->syms + L->word_start[w];
    int32_t n = L->word_len[w];
    int64_t f = L->word_freq[w];
    uint8_t *cov = L->covered, *here = L->merged_here;
    int sites = 0;
    for (int32_t i = 0; i < n; i++) cov[i] = 0;
    for (int32_t i = 0; i + 1 < n;) {
        if (s[i] == left && s[i + 1] == right) {
            cov[i] = cov[i + 1] = 1;
            sites++;
            i += 2;
        } else {
            i++;
        }
    }
    if (!sites) return 0;
    for (int32_t j = 0; j + 1 < n; j++)
        if ((cov[j] || cov[j + 1]) && pair_add(L, s[j], s[j + 1], -f, w, 0)) return -1;
    int32_t k = 0;
    for (int32_t i = 0; i < n;) {
        if (cov[i] && i + 1 < n && s[i] == left && s[i + 1] == right && cov[i + 1]) {
            s[k] = merged;
            here[k++] = 1;
            i += 2;
        } else {
            s[k] = s[i];
            here[k++] = 0;
            i++;
        }
    }
    L->word_len[w] = k;
    for (int32_t j = 0; j + 1 < k; j++)
        if ((here[j] || here[j + 1]) && pair_add(L, s[j], s[j + 1], f, w, 1)) return -1;
    if (L->mode == MODE_WORDPIECE) {
        L->sym_count[left] -= f * sites;
        L->sym_count[right] -= f * sites;
        L->sym_count[merged] += f * sites;
    }
    return 0;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted, without repeats. */
static void ivec_sort_unique(IVec *a) {
    int sorted = 1;
    for (int32_t i = 1; i < a->n && sorted; i++) sorted = a->v[i - 1] < a->v[i];
    if (sorted) return;
    qsort(a->v, (size_t)a->n, sizeof(int32_t), cmp_i32);
    int32_t k = 0;
    for (int32_t i = 0; i < a->n; i++)
        if (k == 0 || a->v[k - 1] != a->v[i]) a->v[k++] = a->v[i];
    a->n = k;
}

/* -- reading the arguments -- */

static int read_word(PyObject *item, Learner *L, Py_ssize_t w, int64_t *at, int64_t *cap) {
    Py_buffer view;
    const uint8_t *bytes = NULL;
    const int32_t *ints = NULL;
    PyObject *fast = NULL;
    Py_ssize_t n = 0;
    int have_view = 0;
    if (PyBytes_Check(item)) {
        bytes = (const uint8_t *)PyBytes_AS_STRING(item);
        n = PyBytes_GET_SIZE(item);
    } else if (PyObject_CheckBuffer(item)) {
        /* int32 arrays and byte buffers are read as they are; other buffers as sequences */
        if (PyObject_GetBuffer(item, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0) {
            const char *f = view.format ? view.format : "B";
            if (view.itemsize == 4 && (strcmp(f, "i") == 0 || strcmp(f, "=i") == 0)) {
                ints = view.buf;
                n = view.len / 4;
                have_view = 1;
            } else if (view.itemsize == 1 && strcmp(f, "B") == 0) {
                bytes = view.buf;
                n = view.len;
                have_view = 1;
            } else {
                PyBuffer_Release(&view);
            }
        } else {
            PyErr_Clear();
        }
    }
    if (!bytes && !ints) {
        fast = PySequence_Fast(item, "each word must be bytes or a sequence of int symbol ids");
        if (!fast) return -1;
        n = PySequence_Fast_GET_SIZE(fast);
    }
    if (n > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "a word is too long");
        goto fail;
    }
    if (*at + n > *cap) {
        int64_t c = *cap * 2 + n + 1024;
        int32_t *s = realloc(L->syms, (size_t)c * sizeof *s);
        if (!s) {
            PyErr_NoMemory();
            goto fail;
        }
        L->syms = s;
        *cap = c;
    }
    int32_t *dst = L->syms + *at;
    for (Py_ssize_t i = 0; i < n; i++) {
        long v;
        if (bytes) {
            v = bytes[i];
        } else if (ints) {
            v = ints[i];
        } else {
            v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
            if (v == -1 && PyErr_Occurred()) goto fail;
        }
        if (v < 0 || v >= L->n_syms) {
            PyErr_Format(PyExc_ValueError, "word %zd: symbol id %ld out of range [0, %d)", w, v, (int)L->n_syms);
            goto fail;
        }
        dst[i] = (int32_t)v;
    }
    L->word_start[w] = *at;
    L->word_len[w] = (int32_t)n;
    if ((int32_t)n > L->longest) L->longest = (int32_t)n;
    *at += n;
    if (have_view) PyBuffer_Release(&view);
    Py_XDECREF(fast);
    return 0;
fail:
    if (have_view) PyBuffer_Release(&view);
    Py_XDECREF(fast);
    return -1;
}

/* Set the Cancelled error that tokviz.train.bpe_core.cancelled_error() builds. */
static void raise_cancelled(void) {
    PyObject *mod = PyImport_ImportModule("tokviz.train.bpe_core");
    if (!mod) return;
    PyObject *err = PyObject_CallMethod(mod, "cancelled_error", NULL);
    Py_DECREF(mod);
    if (!err) return;
    PyErr_SetObject((PyObject *)Py_TYPE(err), err);
    Py_DECREF(err);
}

/* progress(fraction, merges made, (left, right), count) and cancel(); -1 with an exception set
 * to stop.  Called with the GIL held. */
static int report(Learner *L, PyObject *progress, PyObject *cancel, int spelled, double fraction, Py_ssize_t merges,
                  int32_t left, int32_t right, int64_t count) {
    if (progress && progress != Py_None) {
        PyObject *r;
        if (spelled && L->with_bytes) {
            const char *b = (const char *)L->bytes;
            r = PyObject_CallFunction(progress, "dn(y#y#)L", fraction, merges, b + L->bytes_at[left],
                                      (Py_ssize_t)(L->bytes_at[left + 1] - L->bytes_at[left]), b + L->bytes_at[right],
                                      (Py_ssize_t)(L->bytes_at[right + 1] - L->bytes_at[right]), (long long)count);
        } else {
            r = PyObject_CallFunction(progress, "dn(ii)L", fraction, merges, (int)left, (int)right, (long long)count);
        }
        if (!r) return -1;
        Py_DECREF(r);
    }
    if (cancel && cancel != Py_None) {
        PyObject *r = PyObject_CallNoArgs(cancel);
        if (!r) return -1;
        int stop = PyObject_IsTrue(r);
        Py_DECREF(r);
        if (stop < 0) return -1;
        if (stop) {
            raise_cancelled();
            return -1;
        }
    }
    return 0;
}

typedef struct {
    int32_t left, right, merged;
    int64_t count;
} MergeRecord;

static PyObject *learn_merges(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"words",  "counts",        "n_symbols", "max_new_symbols", "mode",   "min_frequency",
                             "max_token_length", "lengths", "symbol_bytes", "progress", "progress_every", "cancel",
                             "progress_spelled", "ranks", NULL};
    PyObject *words_obj, *counts_obj, *lengths_obj = Py_None, *bytes_obj = Py_None, *ranks_obj = Py_None;
    PyObject *progress = Py_None, *cancel = Py_None;
    Py_ssize_t n_symbols, max_new, progress_every = 100;
    long long min_frequency = 0, max_token_length = 0;
    int mode = MODE_COUNT, progress_spelled = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOnn|iLLOOOnOpO:learn_merges", kwlist, &words_obj, &counts_obj,
                                     &n_symbols, &max_new, &mode, &min_frequency, &max_token_length, &lengths_obj,
                                     &bytes_obj, &progress, &progress_every, &cancel, &progress_spelled, &ranks_obj))
        return NULL;
    if (mode != MODE_COUNT && mode != MODE_WORDPIECE) return PyErr_Format(PyExc_ValueError, "unknown mode %d", mode);
    if (n_symbols < 0 || max_new < 0 || n_symbols + max_new >= INT32_MAX / 2)
        return PyErr_Format(PyExc_ValueError, "n_symbols and max_new_symbols must be >= 0 and their sum < 2**30");
    if (max_token_length < 0) return PyErr_Format(PyExc_ValueError, "max_token_length must be >= 0 (0: no limit)");
    if (progress_every < 1) progress_every = 1;

    Learner L;
    memset(&L, 0, sizeof L);
    L.mode = mode;
    L.min_frequency = min_frequency;
    L.max_len = max_token_length;
    L.with_bytes = bytes_obj != Py_None;
    L.n_syms = (int32_t)n_symbols;
    MergeRecord *records = NULL;
    Py_ssize_t n_records = 0;
    size_t cap_records = 0;
    PyObject *words = NULL, *counts = NULL, *result = NULL;

    words = PySequence_Fast(words_obj, "words must be a sequence");
    if (!words) goto done;
    counts = PySequence_Fast(counts_obj, "counts must be a sequence of int");
    if (!counts) goto done;
    Py_ssize_t n_words = PySequence_Fast_GET_SIZE(words);
    if (n_words >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many words (2**31 - 1 at most)");
        goto done;
    }
    if (PySequence_Fast_GET_SIZE(counts) != n_words) {
        PyErr_SetString(PyExc_ValueError, "words and counts differ in length");
        goto done;
    }
    if (symbols_reserve(&L, (int32_t)n_symbols + 1)) goto nomem;
    if (ranks_obj != Py_None) {
        PyObject *rk = PySequence_Fast(ranks_obj, "ranks must be a sequence of int");
        if (!rk) goto done;
        if (PySequence_Fast_GET_SIZE(rk) != n_symbols) {
            Py_DECREF(rk);
            PyErr_SetString(PyExc_ValueError, "ranks must give one rank per symbol");
            goto done;
        }
        L.ranks = malloc(((size_t)n_symbols + 1) * sizeof *L.ranks);
        if (!L.ranks) {
            Py_DECREF(rk);
            goto nomem;
        }
        L.n_ranked = (int32_t)n_symbols;
        for (Py_ssize_t s = 0; s < n_symbols; s++) {
            long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(rk, s));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(rk);
                goto done;
            }
            if (v < 0 || v >= n_symbols) {
                Py_DECREF(rk);
                PyErr_Format(PyExc_ValueError, "symbol %zd: rank %lld out of range [0, n_symbols)", s, v);
                goto done;
            }
            L.ranks[s] = v;
        }
        Py_DECREF(rk);
    }
    for (int32_t s = 0; s < L.n_syms; s++) L.sym_len[s] = 1;
    if (lengths_obj != Py_None) {
        PyObject *lens = PySequence_Fast(lengths_obj, "lengths must be a sequence of int");
        if (!lens) goto done;
        if (PySequence_Fast_GET_SIZE(lens) != n_symbols) {
            Py_DECREF(lens);
            PyErr_SetString(PyExc_ValueError, "lengths must give one length per symbol");
            goto done;
        }
        for (Py_ssize_t s = 0; s < n_symbols; s++) {
            long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(lens, s));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(lens);
                goto done;
            }
            if (v < 0 || v > (1LL << 40)) {
                Py_DECREF(lens);
                PyErr_Format(PyExc_ValueError, "symbol %zd: length %lld out of range", s, v);
                goto done;
            }
            L.sym_len[s] = v;
        }
        Py_DECREF(lens);
    }
    if (L.with_bytes) {
        PyObject *sb = PySequence_Fast(bytes_obj, "symbol_bytes must be a sequence of bytes");
        if (!sb) goto done;
        if (PySequence_Fast_GET_SIZE(sb) != n_symbols) {
            Py_DECREF(sb);
            PyErr_SetString(PyExc_ValueError, "symbol_bytes must give one spelling per symbol");
            goto done;
        }
        L.bytes_at[0] = 0;
        for (Py_ssize_t s = 0; s < n_symbols; s++) {
            PyObject *b = PySequence_Fast_GET_ITEM(sb, s);
            if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) == 0) {
                Py_DECREF(sb);
                PyErr_Format(PyExc_ValueError, "symbol_bytes[%zd] must be non-empty bytes", s);
                goto done;
            }
            int64_t n = PyBytes_GET_SIZE(b);
            if (L.bytes_len + n > L.bytes_cap) {
                int64_t cap = L.bytes_cap * 2 + n + 4096;
                uint8_t *p = realloc(L.bytes, (size_t)cap);
                if (!p) {
                    Py_DECREF(sb);
                    goto nomem;
                }
                L.bytes = p;
                L.bytes_cap = cap;
            }
            memcpy(L.bytes + L.bytes_len, PyBytes_AS_STRING(b), (size_t)n);
            L.bytes_len += n;
            L.bytes_at[s + 1] = L.bytes_len;
        }
        Py_DECREF(sb);
        for (int32_t s = 0; s < L.n_syms; s++)
            if (spell_insert(&L, s)) goto nomem;
    }

    L.n_words = n_words;
    L.word_start = malloc(((size_t)n_words + 1) * sizeof *L.word_start);
    L.word_len = malloc(((size_t)n_words + 1) * sizeof *L.word_len);
    L.word_freq = malloc(((size_t)n_words + 1) * sizeof *L.word_freq);
    if (!L.word_start || !L.word_len || !L.word_freq) goto nomem;
    int64_t at = 0, cap = 0;
    unsigned __int128 total = 0;
    for (Py_ssize_t w = 0; w < n_words; w++) {
        long long f = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(counts, w));
        if (f == -1 && PyErr_Occurred()) goto done;
        if (f < 0 || f > (1LL << 46)) {
            PyErr_Format(PyExc_ValueError, "word %zd: count %lld out of range [0, 2**46]", w, f);
            goto done;
        }
        L.word_freq[w] = f;
        if (read_word(PySequence_Fast_GET_ITEM(words, w), &L, w, &at, &cap)) goto done;
        total += (unsigned __int128)(uint64_t)f * (uint64_t)L.word_len[w];
    }
    /* every count is at most `total`: keep the sums in int64 and wordpiece's products in 128 bits */
    if (total >= ((unsigned __int128)1 << (mode == MODE_WORDPIECE ? 42 : 62))) {
        PyErr_Format(PyExc_ValueError, "the words hold too many symbols counted with their counts "
                                       "(2**%d at most in this mode)", mode == MODE_WORDPIECE ? 42 : 62);
        goto done;
    }
    L.covered = malloc((size_t)L.longest + 1);
    L.merged_here = malloc((size_t)L.longest + 1);
    cap_records = (size_t)max_new + 1;
    records = malloc(cap_records * sizeof *records);
    if (!L.covered || !L.merged_here || !records) goto nomem;
    if (pairs_rehash(&L)) goto nomem;

    int failed = 0; /* 1: out of memory, 2: a callback raised */
    Py_ssize_t n_new = 0;
    Py_BEGIN_ALLOW_THREADS
    /* Count every pair, numbering them in order of first appearance. */
    for (Py_ssize_t w = 0; w < n_words && !failed; w++) {
        const int32_t *s = L.syms + L.word_start[w];
        int64_t f = L.word_freq[w];
        for (int32_t j = 0; j + 1 < L.word_len[w]; j++)
            if (pair_add(&L, s[j], s[j + 1], f, (int32_t)w, 1)) {
                failed = 1;
                break;
            }
        if (mode == MODE_WORDPIECE)
            for (int32_t j = 0; j < L.word_len[w]; j++) L.sym_count[s[j]] += f;
    }
    if (!failed && heap_rebuild(&L)) failed = 1;

    while (!failed && n_new < max_new) {
        int32_t best = -1;
        while (L.heap_n > 0) {
            HeapEntry e = heap_pop(&L);
            Pair *p = &L.pairs[e.pair];
            if (!pair_queueable(&L, p)) continue;
            if (!entry_current(&L, &e)) {
                if (heap_push(&L, e.pair)) failed = 1;
                if (failed) break;
                continue;
            }
            if (p->count < L.min_frequency) {
                if (mode == MODE_COUNT) {
                    L.heap_n = 0; /* every other pair is counted as often or less */
                    break;
                }
                continue; /* its count can only fall: it will not be pushed again unless it changes */
            }
            best = e.pair;
            break;
        }
        if (best < 0 || failed) break;
        int32_t left = L.pairs[best].left, right = L.pairs[best].right;
        int64_t count = L.pairs[best].count;
        int32_t merged = -1;
        int64_t spelled = 0;
        if (L.with_bytes) {
            merged = spell_find_concat(&L, left, right, &spelled);
            if (merged == -2) {
                failed = 1;
                break;
            }
        }
        int is_new = merged < 0;
        if (is_new) {
            if (symbols_reserve(&L, L.n_syms + 1)) {
                failed = 1;
                break;
            }
            merged = L.n_syms++;
            L.sym_len[merged] = L.sym_len[left] + L.sym_len[right];
            if (L.with_bytes) {
                L.bytes_len += spelled;
                L.bytes_at[merged + 1] = L.bytes_len;
                if (spell_insert(&L, merged)) {
                    failed = 1;
                    break;
                }
            }
        }
        if ((size_t)n_records == cap_records) {
            size_t cap_r = cap_records * 2 + 256;
            MergeRecord *r = realloc(records, cap_r * sizeof *r);
            if (!r) {
                failed = 1;
                break;
            }
            records = r;
            cap_records = cap_r;
        }
        records[n_records++] = (MergeRecord){left, right, merged, count};
        L.stamp++;
        L.n_changed = 0;
        IVec where = L.pairs[best].words;
        memset(&L.pairs[best].words, 0, sizeof(IVec));
        ivec_sort_unique(&where);
        for (int32_t k = 0; k < where.n && !failed; k++)
            if (merge_word(&L, where.v[k], left, right, merged)) failed = 1;
        free(where.v);
        if (failed) break;
        L.pairs[best].count = 0;
        for (size_t k = 0; k < L.n_changed && !failed; k++) {
            Pair *p = &L.pairs[L.changed[k]];
            if (pair_queueable(&L, p) && heap_push(&L, L.changed[k])) failed = 1;
        }
        if (mode == MODE_WORDPIECE) {
            /* every pair holding a symbol whose count moved has a new score */
            int32_t moved[3] = {left, right, merged};
            for (int m = 0; m < 3 && !failed; m++) {
                IVec *ps = &L.sym_pairs[moved[m]];
                for (int32_t k = 0; k < ps->n && !failed; k++) {
                    int32_t pid = ps->v[k];
                    Pair *p = &L.pairs[pid];
                    if (p->stamp == L.stamp || !pair_queueable(&L, p)) continue;
                    p->stamp = L.stamp;
                    if (heap_push(&L, pid)) failed = 1;
                }
            }
        }
        if (!failed && L.heap_n > 4 * (size_t)L.n_pairs + 65536 && heap_rebuild(&L)) failed = 1;
        n_new += is_new;
        if (!failed && (n_records % progress_every == 0) &&
            ((progress != Py_None) || (cancel != Py_None))) {
            Py_BLOCK_THREADS
            if (report(&L, progress, cancel, progress_spelled, max_new ? (double)n_new / (double)max_new : 1.0, n_records, left, right, count))
                failed = 2;
            Py_UNBLOCK_THREADS
        }
    }
    Py_END_ALLOW_THREADS
    if (failed == 1) goto nomem;
    if (failed == 2) goto done;
    if (n_records % progress_every != 0 && n_records > 0) {
        MergeRecord *r = &records[n_records - 1];
        if (report(&L, progress, Py_None, progress_spelled, max_new ? (double)n_new / (double)max_new : 1.0, n_records, r->left, r->right, r->count))
            goto done;
    }
    result = PyList_New(n_records);
    if (!result) goto done;
    for (Py_ssize_t k = 0; k < n_records; k++) {
        PyObject *t = Py_BuildValue("(iiiL)", records[k].left, records[k].right, records[k].merged, (long long)records[k].count);
        if (!t) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, k, t);
    }
    goto done;
nomem:
    PyErr_NoMemory();
done:
    learner_free(&L);
    free(records);
    Py_XDECREF(words);
    Py_XDECREF(counts);
    return result;
}

static PyMethodDef module_methods[] = {
    {"learn_merges", (PyCFunction)(void (*)(void))learn_merges, METH_VARARGS | METH_KEYWORDS,
     "learn_merges(words, counts, n_symbols, max_new_symbols, mode=0, min_frequency=0, max_token_length=0,\n"
     "             lengths=None, symbol_bytes=None, progress=None, progress_every=100, cancel=None,\n"
     "             progress_spelled=False, ranks=None)\n"
     "-> [(left, right, merged id, count)]: see tokviz.train.bpe_core.learn_merges."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "tokviz._bpetrain", "The C core of BPE training (see tokviz.train.bpe_core).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__bpetrain(void) {
    if (PyType_Ready(&PieceCounterType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&PieceCounterType);
    if (PyModule_AddObject(m, "PieceCounter", (PyObject *)&PieceCounterType) < 0) {
        Py_DECREF(&PieceCounterType);
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
    PyModule_AddIntConstant(m, "MODE_COUNT", MODE_COUNT);
    PyModule_AddIntConstant(m, "MODE_WORDPIECE", MODE_WORDPIECE);
    return m;
}
