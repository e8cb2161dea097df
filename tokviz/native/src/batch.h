/* encode_many's engine, shared by the encoders (_native.c, models.c, sp_native.c): a list of texts
 * on N threads.  The calling thread and N - 1 workers take the texts one at a time (their costs
 * differ a lot), without the GIL.  The calling thread also turns the finished ones into Python
 * objects, in order, and encodes a text itself whenever the next one to convert is not ready yet:
 * N threads stay busy, never N + 1.  Header-only (static functions). */
#ifndef TOKVIZ_BATCH_H
#define TOKVIZ_BATCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_MAX_THREADS 256

/* What a batch does with text k:
 *   encode(ctx, k, scratch): without the GIL, on any thread; stores its result where result() finds
 *     it and returns a code (0: done; other codes are handed to result());
 *   result(ctx, k, code): with the GIL, in order of k: the Python object for text k (NULL with an
 *     exception: the batch stops).
 * Each thread has a scratch of scratch_size bytes, zeroed at first, freed by scratch_free (its
 * contents; may be NULL) when the thread is done. */
typedef struct {
    void *ctx;
    size_t n;
    int (*encode)(void *ctx, size_t k, void *scratch);
    PyObject *(*result)(void *ctx, size_t k, int code);
    size_t scratch_size;
    void (*scratch_free)(void *scratch);
} BatchJob;

typedef struct {
    const BatchJob *job;
    int *codes;
    char *done;
    size_t next; /* next text to take */
    int cancel;  /* the caller gave up (an error): take no more texts */
    pthread_mutex_t lock;
    pthread_cond_t finished;
    pthread_t *tids; /* the workers started (`started` of them) */
    void *scratch;   /* the calling thread's */
    int sync_ready, started;
} BatchRun;

/* Take the next text nobody has taken and encode it; false when none is left. */
static int batch_step(BatchRun *r, void *scratch) {
    pthread_mutex_lock(&r->lock);
    size_t k = r->cancel ? r->job->n : r->next;
    if (k < r->job->n) r->next++;
    pthread_mutex_unlock(&r->lock);
    if (k >= r->job->n) return 0;
    int code = r->job->encode(r->job->ctx, k, scratch);
    pthread_mutex_lock(&r->lock);
    r->codes[k] = code;
    r->done[k] = 1;
    pthread_cond_broadcast(&r->finished);
    pthread_mutex_unlock(&r->lock);
    return 1;
}

static void batch_drop_scratch(const BatchJob *job, void *scratch) {
    if (scratch && job->scratch_free) job->scratch_free(scratch);
    free(scratch);
}

static void *batch_worker(void *arg) {
    BatchRun *r = arg;
    void *scratch = calloc(1, r->job->scratch_size);
    if (scratch)
        while (batch_step(r, scratch)) {
        }
    batch_drop_scratch(r->job, scratch);
    return NULL;
}

/* Set `r` up for `job` on `threads` threads: its tables, its lock, the calling thread's scratch
 * and up to threads - 1 workers started (if some cannot start, the others do the work).  -1 when
 * out of memory; batch_end(r) in either case.  Call with the GIL. */
static int batch_begin(BatchRun *r, const BatchJob *job, int threads) {
    size_t n = job->n;
    if (threads < 1) threads = 1;
    if (threads > BATCH_MAX_THREADS) threads = BATCH_MAX_THREADS;
    if ((size_t)threads > n) threads = n > 0 ? (int)n : 1;
    memset(r, 0, sizeof(*r));
    r->job = job;
    r->codes = calloc(n + 1, sizeof(int));
    r->done = calloc(n + 1, 1);
    r->tids = calloc((size_t)threads, sizeof(pthread_t));
    r->scratch = calloc(1, job->scratch_size);
    if (!r->codes || !r->done || !r->tids || !r->scratch) return -1;
    if (pthread_mutex_init(&r->lock, NULL) != 0) return -1;
    if (pthread_cond_init(&r->finished, NULL) != 0) {
        pthread_mutex_destroy(&r->lock);
        return -1;
    }
    r->sync_ready = 1;
    for (int t = 0; t < threads - 1; t++) {
        if (pthread_create(&r->tids[t], NULL, batch_worker, r) != 0) break;
        r->started = t + 1;
    }
    return 0;
}

/* Stop the workers still running (they take no more texts), wait for them and free what
 * batch_begin made.  Call with the GIL. */
static void batch_end(BatchRun *r) {
    if (r->sync_ready) {
        pthread_mutex_lock(&r->lock);
        r->cancel = 1;
        pthread_mutex_unlock(&r->lock);
        Py_BEGIN_ALLOW_THREADS
        for (int t = 0; t < r->started; t++) pthread_join(r->tids[t], NULL);
        Py_END_ALLOW_THREADS
        pthread_cond_destroy(&r->finished);
        pthread_mutex_destroy(&r->lock);
    }
    batch_drop_scratch(r->job, r->scratch);
    free(r->codes);
    free(r->done);
    free(r->tids);
}

/* The list [result(ctx, k, code) for k in range(n)], the texts encoded on `threads` threads; NULL
 * with an exception.  Call with the GIL. */
static PyObject *batch_run(const BatchJob *job, int threads) {
    size_t n = job->n;
    BatchRun r;
    PyObject *result = NULL;
    if (batch_begin(&r, job, threads) < 0 || !(result = PyList_New((Py_ssize_t)n))) goto nomem;
    for (size_t k = 0; k < n; k++) {
        int code, ready;
        for (;;) {
            pthread_mutex_lock(&r.lock);
            ready = r.done[k];
            code = r.codes[k];
            pthread_mutex_unlock(&r.lock);
            if (ready) break;
            Py_BEGIN_ALLOW_THREADS
            if (!batch_step(&r, r.scratch)) { /* every text is taken: text k is being encoded */
                pthread_mutex_lock(&r.lock);
                while (!r.done[k]) pthread_cond_wait(&r.finished, &r.lock);
                pthread_mutex_unlock(&r.lock);
            }
            Py_END_ALLOW_THREADS
        }
        PyObject *item = job->result(job->ctx, k, code);
        if (!item) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)k, item);
    }
    goto done;
nomem:
    Py_CLEAR(result);
    PyErr_NoMemory();
done:
    batch_end(&r);
    return result;
}

/* ---- all the ids in one buffer (encode_many(..., flat=True)) -------------------------------- */

/* How batch_run_flat reads the texts a BatchJob encoded. */
typedef struct {
    /* text k's ids, after encode returned 0 (read without the GIL) */
    void (*ids)(void *ctx, size_t k, const int32_t **ids, size_t *n);
    int skip_code;          /* a code that leaves text k without ids and lists k in `skipped` (-1: none) */
    int (*error)(int code); /* sets the Python exception for any other non-zero code */
} BatchFlat;

/* Every text of `job` encoded on `threads` threads (the calling thread one of them) without the
 * GIL, then their ids copied, still without it, into one buffer: (ids, offsets, skipped) with ids a
 * bytearray of native int32, offsets a bytearray of n + 1 native int64 (text k's ids are
 * ids[offsets[k]:offsets[k + 1]], counted in ids) and skipped the list of the k whose code was
 * flat->skip_code.  No Python object per id.  job->result is not called.  NULL with an exception
 * (the first failing text's, in order).  Call with the GIL. */
static PyObject *batch_run_flat(const BatchJob *job, const BatchFlat *flat, int threads) {
    size_t n = job->n;
    if (n >= (size_t)PY_SSIZE_T_MAX / sizeof(int64_t) - 1) return PyErr_NoMemory();
    BatchRun r;
    PyObject *ids = NULL, *offsets = NULL, *skipped = NULL, *result = NULL;
    if (batch_begin(&r, job, threads) < 0) goto nomem;
    Py_BEGIN_ALLOW_THREADS
    while (batch_step(&r, r.scratch)) {
    }
    /* every text is taken; a worker returns once its last one is done */
    for (int t = 0; t < r.started; t++) pthread_join(r.tids[t], NULL);
    r.started = 0;
    Py_END_ALLOW_THREADS
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        int code = r.codes[k];
        if (code == 0) {
            const int32_t *p;
            size_t m;
            flat->ids(job->ctx, k, &p, &m);
            if (m > (size_t)PY_SSIZE_T_MAX / sizeof(int32_t) - total) goto nomem;
            total += m;
        } else if (code != flat->skip_code) {
            flat->error(code);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "the native encoder failed");
            goto done;
        }
    }
    ids = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(total * sizeof(int32_t)));
    offsets = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((n + 1) * sizeof(int64_t)));
    skipped = PyList_New(0);
    if (!ids || !offsets || !skipped) goto done;
    int64_t *at = (int64_t *)(void *)PyByteArray_AS_STRING(offsets);
    at[0] = 0;
    for (size_t k = 0; k < n; k++) {
        size_t m = 0;
        if (r.codes[k] == 0) {
            const int32_t *p;
            flat->ids(job->ctx, k, &p, &m);
        } else {
            PyObject *index = PyLong_FromSize_t(k);
            int failed = !index || PyList_Append(skipped, index);
            Py_XDECREF(index);
            if (failed) goto done;
        }
        at[k + 1] = at[k] + (int64_t)m;
    }
    /* (the two bytearrays are not shared yet: nothing can move their buffers) */
    char *dest = PyByteArray_AS_STRING(ids);
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < n; k++) {
        if (r.codes[k] != 0) continue;
        const int32_t *p;
        size_t m;
        flat->ids(job->ctx, k, &p, &m);
        if (m) memcpy(dest + (size_t)at[k] * sizeof(int32_t), p, m * sizeof(int32_t));
    }
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(3, ids, offsets, skipped);
    goto done;
nomem:
    PyErr_NoMemory();
done:
    batch_end(&r);
    Py_XDECREF(ids);
    Py_XDECREF(offsets);
    Py_XDECREF(skipped);
    return result;
}

#endif
