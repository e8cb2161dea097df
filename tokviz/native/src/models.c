/* Native WordPiece and (HF) Unigram models: the model stage only, for words already normalized and
 * pre-tokenized in Python.  tokviz/core/models/wordpiece.py and unigram.py are the definition.
 *
 *   WordPieceModel(initial: dict, continuing: dict, unk_id, max_input_chars, max_token_chars)
 *       `initial` maps tokens to ids, `continuing` maps the tokens that start with the continuing
 *       prefix ("##") to ids, the prefix removed.
 *   UnigramModel(match: dict, prefixes: list, scores: list, unk_id, unk_score, fuse_unk, byte_ids)
 *       `match` maps the matchable pieces to their (first) id, `prefixes` are their proper
 *       prefixes, `scores[id]` the log-probabilities (doubles, as in HF), `byte_ids` the ids of the
 *       256 <0xNN> pieces for byte fallback (or None), unk_id -1 for none.
 *
 * encode_words(words, threads=1, bases=None, spans=None) -> (ids, counts, offsets): the tokens of all
 * words in order (a list of ints), the number of tokens of each word (bytes, int32 each), and each
 * token's character span in its word as int32 start/end pairs (bytes), plus bases[k] when
 * bases[k] >= 0, or mapped through spans[k] = (starts, ends) (see map_spans) when it is not None.
 * The words are copied to UTF-32 and matched with the GIL released, on up to `threads` threads.
 * Keys are hashed over code points (FNV-1a, extended one character at a time).
 *
 *   BertEncoder(model, clean_text, handle_chinese_chars, strip_accents, lowercase)
 *       BERT end to end over a WordPieceModel: raw texts in, ids and offsets into them out, the
 *       normalizer and pre-tokenizer in bert_pre.c (see the BertEncoder section below).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "bert_pre.h"
#include "models_common.h"
#include "models.h"
#include "id_ints.h"

#define MAX_THREADS 256
enum { RC_OK = 0, RC_NOMEM = 1, RC_NOUNK = 2, RC_SURROGATE = 3, RC_REFERENCE = 4 /* (BertEncoder) */ };
enum { F_PREFIX = 1 };

/* Adds a key (str) to the table; -1 with an exception on error. */
static int table_put_str(Table *t, PyObject *key, int32_t id, int32_t flags) {
    Py_ssize_t n;
    uint32_t *cps = codepoints_of(key, &n);
    if (!cps) return -1;
    int rc = 0;
    if (n > 0 && n <= UINT32_MAX && table_put(t, cps, (size_t)n, id, flags)) {
        PyErr_NoMemory();
        rc = -1;
    }
    free(cps);
    return rc;
}

static int table_from_dict(Table *t, PyObject *dict, size_t extra) {
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict str -> id");
        return -1;
    }
    if (table_init(t, (size_t)PyDict_Size(dict) + extra)) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        long id = PyLong_AsLong(value);
        if (id == -1 && PyErr_Occurred()) return -1;
        if (id < 0 || id > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "token id out of range");
            return -1;
        }
        if (table_put_str(t, key, (int32_t)id, 0)) return -1;
    }
    return 0;
}

typedef struct {
    double *score;
    int32_t *start, *id;
    uint64_t *hashes;
    size_t cap, hcap;
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->score);
    free(s->start);
    free(s->id);
    free(s->hashes);
    memset(s, 0, sizeof *s);
}

/* ---- the models -------------------------------------------------------------------------------- */

enum { KIND_WORDPIECE = 1, KIND_UNIGRAM = 2 };

typedef struct {
    PyObject_HEAD
    int kind;
    int ready;
    int busy; /* encode_words calls running without the GIL: __init__ must not free the tables */
    unsigned generation; /* counts the __init__ calls (a BertEncoder rebuilds what it derived) */
    Table initial;    /* WordPiece: all tokens; Unigram: pieces and their prefixes */
    Table continuing; /* WordPiece: tokens after the prefix */
    int32_t unk_id;   /* -1: none */
    Py_ssize_t max_input_chars;
    size_t max_token_chars;
    double *scores;
    size_t n_scores;
    double unk_score;
    int fuse_unk;
    int byte_fallback;
    int32_t byte_ids[256];
} Model;

static int wordpiece_word(const Model *m, const uint32_t *w, size_t n, Scratch *s, Out *o) {
    size_t mark = o->n;
    if ((Py_ssize_t)n > m->max_input_chars) goto unknown;
    if (s->hcap < m->max_token_chars + 1) {
        uint64_t *h = realloc(s->hashes, (m->max_token_chars + 1) * sizeof(uint64_t));
        if (!h) return RC_NOMEM;
        s->hashes = h;
        s->hcap = m->max_token_chars + 1;
    }
    size_t start = 0;
    while (start < n) {
        size_t end = n - start < m->max_token_chars ? n : start + m->max_token_chars;
        uint64_t h = H0;
        for (size_t e = start; e < end; e++) s->hashes[e - start] = h = HSTEP(h, w[e]);
        const Table *t = start ? &m->continuing : &m->initial;
        int32_t found = -1;
        for (; end > start; end--) {
            const Slot *slot = table_find(t, w + start, end - start, s->hashes[end - start - 1]);
            if (slot && slot->id >= 0) {
                found = slot->id;
                break;
            }
        }
        if (found < 0) goto unknown;
        if (out_push(o, found, (int32_t)start, (int32_t)end)) return RC_NOMEM;
        start = end;
    }
    return RC_OK;
unknown:
    o->n = mark;
    if (m->unk_id < 0) return RC_NOUNK;
    return out_push(o, m->unk_id, 0, (int32_t)n) ? RC_NOMEM : RC_OK;
}

static int unigram_word(const Model *m, const uint32_t *w, size_t n, Scratch *s, Out *o) {
    if (n == 0) return RC_OK;
    if (s->cap < n + 1) {
        double *sc = realloc(s->score, (n + 1) * sizeof(double));
        if (sc) s->score = sc;
        int32_t *st = realloc(s->start, (n + 1) * sizeof(int32_t));
        if (st) s->start = st;
        int32_t *id = realloc(s->id, (n + 1) * sizeof(int32_t));
        if (id) s->id = id;
        if (!sc || !st || !id) return RC_NOMEM;
        s->cap = n + 1;
    }
    double *best_score = s->score;
    int32_t *best_start = s->start, *best_id = s->id;
    for (size_t k = 0; k <= n; k++) {
        best_score[k] = 0.0;
        best_start[k] = -1;
        best_id[k] = -1;
    }
    const Table *t = &m->initial;
    for (size_t start = 0; start < n; start++) {
        if (start && best_start[start] < 0) continue;
        double base = best_score[start];
        int has_single = 0;
        uint64_t h = H0;
        for (size_t end = start + 1; end <= n; end++) {
            h = HSTEP(h, w[end - 1]);
            const Slot *slot = table_find(t, w + start, end - start, h);
            if (!slot) break;
            if (slot->id >= 0) {
                double score = base + m->scores[slot->id];
                if (best_start[end] < 0 || score > best_score[end]) {
                    best_score[end] = score;
                    best_start[end] = (int32_t)start;
                    best_id[end] = slot->id;
                }
                if (end == start + 1) has_single = 1;
            }
            if (!(slot->flags & F_PREFIX)) break;
        }
        if (!has_single) {
            double score = base + m->unk_score;
            if (best_start[start + 1] < 0 || score > best_score[start + 1]) {
                best_score[start + 1] = score;
                best_start[start + 1] = (int32_t)start;
                best_id[start + 1] = -1;
            }
        }
    }
    /* The path, from the end: reverse it in the output afterwards. */
    size_t mark = o->n;
    for (size_t end = n; end > 0;) {
        size_t start = (size_t)best_start[end];
        if (out_push(o, best_id[end], (int32_t)start, (int32_t)end)) return RC_NOMEM;
        end = start;
    }
    size_t count = o->n - mark;
    for (size_t i = 0, j = count - 1; i < j; i++, j--) {
        int32_t *a = o->ids + mark + i, *b = o->ids + mark + j, tmp = *a;
        *a = *b;
        *b = tmp;
        int32_t *pa = o->offs + 2 * (mark + i), *pb = o->offs + 2 * (mark + j), t0 = pa[0], t1 = pa[1];
        pa[0] = pb[0];
        pa[1] = pb[1];
        pb[0] = t0;
        pb[1] = t1;
    }
    if (m->byte_fallback || m->unk_id < 0 || m->fuse_unk) {
        /* Rewrite the unknowns in place (the output only grows with byte fallback: use a copy).  As
         * HF tokenizers: with fuse_unk, a run of unknown characters and pieces whose id is the
         * unknown token's becomes the piece the run spells, else its bytes (each with the run's
         * span) or the unknown token. */
        int fuse = m->fuse_unk && m->unk_id >= 0;
        int has_unknown = 0;
        for (size_t i = mark; i < o->n; i++) has_unknown |= o->ids[i] < 0 || (fuse && o->ids[i] == m->unk_id);
        if (!has_unknown) return RC_OK;
        if (m->unk_id < 0) {
            o->n = mark;
            return RC_NOUNK; /* (an unknown character: HF fails even with byte fallback) */
        }
        size_t bytes = count * 3 * sizeof(int32_t);
        int32_t *path = malloc(bytes);
        if (!path) return RC_NOMEM;
        for (size_t i = 0; i < count; i++) {
            path[3 * i] = o->ids[mark + i];
            path[3 * i + 1] = o->offs[2 * (mark + i)];
            path[3 * i + 2] = o->offs[2 * (mark + i) + 1];
        }
        o->n = mark;
        int rc = RC_OK;
        for (size_t i = 0; i < count && rc == RC_OK; i++) {
            int32_t id = path[3 * i], a = path[3 * i + 1], b = path[3 * i + 2];
            if (id >= 0 && !(fuse && id == m->unk_id)) {
                if (out_push(o, id, a, b)) rc = RC_NOMEM;
                continue;
            }
            if (fuse) {
                while (i + 1 < count && (path[3 * (i + 1)] < 0 || path[3 * (i + 1)] == m->unk_id)) {
                    i++;
                    b = path[3 * i + 2];
                }
                const Slot *known = table_find(t, w + a, (size_t)(b - a), hash_of(w + a, (size_t)(b - a)));
                if (known && known->id >= 0) {
                    if (out_push(o, known->id, a, b)) rc = RC_NOMEM;
                    continue;
                }
            } else if (id >= 0) {
                if (out_push(o, id, a, b)) rc = RC_NOMEM;
                continue;
            }
            if (m->byte_fallback) {
                for (int32_t k = a; k < b && rc == RC_OK; k++) {
                    uint8_t u[4];
                    int nb = is_surrogate(w[k]) ? 0 : utf8_of(w[k], u);
                    if (nb == 0) rc = RC_SURROGATE;
                    for (int j = 0; j < nb && rc == RC_OK; j++)
                        if (out_push(o, m->byte_ids[u[j]], a, b)) rc = RC_NOMEM;
                }
            } else if (out_push(o, m->unk_id, a, b)) {
                rc = RC_NOMEM;
            }
        }
        free(path);
        return rc;
    }
    for (size_t i = mark; i < o->n; i++)
        if (o->ids[i] < 0) o->ids[i] = m->unk_id;
    return RC_OK;
}

/* ---- encode_words ---------------------------------------------------------------------------- */

typedef struct {
    const Model *m;
    const uint32_t *cps;
    const size_t *starts; /* word k is cps[starts[k]:starts[k+1]] */
    const Py_ssize_t *bases;
    int32_t *counts;
    size_t first, last; /* words [first, last) */
    Out out;
    int rc;
} Job;

static void *run_job(void *arg) {
    Job *j = arg;
    Scratch s = {0};
    /* A local Out and rc, stored at the end: the jobs sit side by side in one array, and a
       thread writing its count on every token must not share a cache line with the others. */
    Out out = j->out;
    int rc = RC_OK;
    for (size_t k = j->first; k < j->last && rc == RC_OK; k++) {
        size_t before = out.n;
        const uint32_t *w = j->cps + j->starts[k];
        size_t n = j->starts[k + 1] - j->starts[k];
        rc = j->m->kind == KIND_WORDPIECE ? wordpiece_word(j->m, w, n, &s, &out) : unigram_word(j->m, w, n, &s, &out);
        j->counts[k] = (int32_t)(out.n - before);
        if (j->bases && j->bases[k] > 0) {
            int32_t base = (int32_t)j->bases[k];
            for (size_t i = 2 * before; i < 2 * out.n; i++) out.offs[i] += base;
        }
    }
    j->out = out;
    j->rc = rc;
    scratch_free(&s);
    return NULL;
}

/* Reads starts[i] (a list of ints) as an int32; -1 with an exception on error. */
static int span_item(PyObject *list, Py_ssize_t i, int32_t *out) {
    Py_ssize_t v = PyLong_AsSsize_t(PyList_GET_ITEM(list, i));
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "span out of range");
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* Maps the token spans of each word k with spans[k] = (starts, ends) (lists of the original start
 * and end of each character of the word, as NormalizedString keeps them) to the original text:
 * (min(starts[a:b]), max(ends[a:b])), as NormalizedString.original_span does. */
static int map_spans(PyObject *spans_obj, PyObject **words, Py_ssize_t n, const int32_t *counts, int32_t *offs) {
    PyObject *spans = PySequence_Fast(spans_obj, "spans must be a sequence");
    if (!spans) return -1;
    int rc = -1;
    if (PySequence_Fast_GET_SIZE(spans) != n) {
        PyErr_SetString(PyExc_ValueError, "spans and words differ in length");
        goto out;
    }
    size_t tok = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *sp = PySequence_Fast_GET_ITEM(spans, k);
        size_t first = tok;
        tok += (size_t)counts[k];
        if (sp == Py_None) continue;
        Py_ssize_t len = PyUnicode_GET_LENGTH(words[k]);
        PyObject *starts, *ends;
        if (!PyTuple_Check(sp) || PyTuple_GET_SIZE(sp) != 2 || !PyList_Check(starts = PyTuple_GET_ITEM(sp, 0))
            || !PyList_Check(ends = PyTuple_GET_ITEM(sp, 1)) || PyList_GET_SIZE(starts) < len
            || PyList_GET_SIZE(ends) < len) {
            PyErr_SetString(PyExc_ValueError, "spans[k] must be (starts, ends), lists as long as the word");
            goto out;
        }
        for (size_t t = first; t < tok; t++) {
            int32_t a = offs[2 * t], b = offs[2 * t + 1], lo, hi, v;
            if (a < 0 || b > len || a >= b) { /* (tokens are never empty) */
                PyErr_SetString(PyExc_SystemError, "unexpected token span");
                goto out;
            }
            if (span_item(starts, a, &lo) || span_item(ends, a, &hi)) goto out;
            for (int32_t i = a + 1; i < b; i++) {
                if (span_item(starts, i, &v)) goto out;
                if (v < lo) lo = v;
                if (span_item(ends, i, &v)) goto out;
                if (v > hi) hi = v;
            }
            offs[2 * t] = lo;
            offs[2 * t + 1] = hi;
        }
    }
    rc = 0;
out:
    Py_DECREF(spans);
    return rc;
}

static PyObject *Model_encode_words(Model *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"words", "threads", "bases", "spans", "flat", NULL};
    PyObject *seq, *bases_obj = Py_None, *spans_obj = Py_None;
    int threads = 1, flat = 0;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "model not initialized");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOOp:encode_words", kwlist, &seq, &threads, &bases_obj, &spans_obj,
                                     &flat))
        return NULL;
    PyObject *words = PySequence_Fast(seq, "words must be a sequence of str");
    if (!words) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(words);
    PyObject **items = PySequence_Fast_ITEMS(words);
    PyObject *result = NULL, *ids = NULL, *counts_b = NULL, *offs_b = NULL;
    uint32_t *cps = NULL;
    size_t *starts = calloc((size_t)n + 1, sizeof(size_t));
    Py_ssize_t *bases = NULL;
    int32_t *counts = calloc((size_t)n + 1, sizeof(int32_t));
    Job *jobs = NULL;
    pthread_t *tids = NULL;
    int n_jobs = 0;
    if (!starts || !counts) goto nomem;
    size_t total = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!PyUnicode_Check(items[k])) {
            PyErr_SetString(PyExc_TypeError, "words must be str");
            goto done;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(items[k]);
        if (len >= INT32_MAX - 1) {
            PyErr_SetString(PyExc_ValueError, "word too long");
            goto done;
        }
        starts[k] = total;
        total += (size_t)len;
    }
    starts[n] = total;
    if (bases_obj != Py_None) {
        PyObject *fb = PySequence_Fast(bases_obj, "bases must be a sequence of int");
        if (!fb) goto done;
        if (PySequence_Fast_GET_SIZE(fb) != n) {
            Py_DECREF(fb);
            PyErr_SetString(PyExc_ValueError, "bases and words differ in length");
            goto done;
        }
        bases = calloc((size_t)n + 1, sizeof(Py_ssize_t));
        if (!bases) {
            Py_DECREF(fb);
            goto nomem;
        }
        for (Py_ssize_t k = 0; k < n; k++) {
            bases[k] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fb, k));
            if (bases[k] == -1 && PyErr_Occurred()) {
                Py_DECREF(fb);
                goto done;
            }
            if (bases[k] > INT32_MAX / 2) {
                Py_DECREF(fb);
                PyErr_SetString(PyExc_ValueError, "base too large");
                goto done;
            }
        }
        Py_DECREF(fb);
    }
    if (bases && spans_obj != Py_None) { /* a word with spans is mapped by them alone */
        PyObject *fs = PySequence_Fast(spans_obj, "spans must be a sequence");
        if (!fs) goto done;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(fs);
        for (Py_ssize_t k = 0; k < n && k < m; k++)
            if (PySequence_Fast_GET_ITEM(fs, k) != Py_None) bases[k] = -1;
        Py_DECREF(fs);
    }
    cps = malloc((total + 1) * sizeof(uint32_t));
    if (!cps) goto nomem;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *w = items[k];
        int kind = PyUnicode_KIND(w);
        const void *data = PyUnicode_DATA(w);
        uint32_t *dst = cps + starts[k];
        Py_ssize_t len = (Py_ssize_t)(starts[k + 1] - starts[k]);
        for (Py_ssize_t i = 0; i < len; i++) dst[i] = PyUnicode_READ(kind, data, i);
    }
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if ((Py_ssize_t)threads > n) threads = n > 0 ? (int)n : 1;
    if (total < 4096) threads = 1; /* not worth a thread */
    jobs = calloc((size_t)threads, sizeof(Job));
    tids = calloc((size_t)threads, sizeof(pthread_t));
    if (!jobs || !tids) goto nomem;
    /* Contiguous runs of words of about equal size. */
    size_t word = 0;
    for (int t = 0; t < threads; t++) {
        size_t goal = t == threads - 1 ? total : total / (size_t)threads * (size_t)(t + 1);
        size_t first = word;
        while (word < (size_t)n && (t == threads - 1 || starts[word] < goal)) word++;
        Job *j = &jobs[t];
        j->m = self;
        j->cps = cps;
        j->starts = starts;
        j->bases = bases;
        j->counts = counts;
        j->first = first;
        j->last = word;
        n_jobs = t + 1;
    }
    self->busy++;
    Py_BEGIN_ALLOW_THREADS
    run_jobs(run_job, jobs, sizeof(Job), n_jobs, tids);
    Py_END_ALLOW_THREADS
    self->busy--;
    size_t n_tokens = 0;
    for (int t = 0; t < n_jobs; t++) {
        int rc = jobs[t].rc;
        if (rc == RC_NOMEM) goto nomem;
        if (rc == RC_NOUNK) {
            PyErr_SetString(PyExc_ValueError, "no unknown token for a word that needs one");
            goto done;
        }
        if (rc == RC_SURROGATE) {
            PyErr_SetString(PyExc_ValueError, "a lone surrogate cannot be encoded as bytes");
            goto done;
        }
        n_tokens += jobs[t].out.n;
    }
    if (n_tokens > (size_t)PY_SSIZE_T_MAX / (2 * sizeof(int32_t))) goto nomem;
    ids = flat ? PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n_tokens * sizeof(int32_t)))
               : PyList_New((Py_ssize_t)n_tokens);
    counts_b = PyBytes_FromStringAndSize((const char *)counts, (Py_ssize_t)n * (Py_ssize_t)sizeof(int32_t));
    offs_b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_tokens * 2 * sizeof(int32_t)));
    if (!ids || !counts_b || !offs_b) goto done;
    char *op = PyBytes_AS_STRING(offs_b);
    Py_ssize_t pos = 0;
    for (int t = 0; t < n_jobs; t++) {
        Out *o = &jobs[t].out;
        if (flat && o->n) {
            memcpy(PyByteArray_AS_STRING(ids) + pos * sizeof(int32_t), o->ids, o->n * sizeof(int32_t));
        } else {
            for (size_t i = 0; i < o->n; i++) {
                PyObject *v = PyLong_FromLong(o->ids[i]);
                if (!v) goto done;
                PyList_SET_ITEM(ids, pos + (Py_ssize_t)i, v);
            }
        }
        if (o->n) memcpy(op + pos * 2 * sizeof(int32_t), o->offs, o->n * 2 * sizeof(int32_t));
        pos += (Py_ssize_t)o->n;
    }
    if (spans_obj != Py_None && map_spans(spans_obj, items, n, counts, (int32_t *)op)) goto done;
    result = PyTuple_Pack(3, ids, counts_b, offs_b);
    goto done;
nomem:
    PyErr_NoMemory();
done:
    if (jobs)
        for (int t = 0; t < n_jobs; t++) out_free(&jobs[t].out);
    Py_XDECREF(ids);
    Py_XDECREF(counts_b);
    Py_XDECREF(offs_b);
    free(jobs);
    free(tids);
    free(cps);
    free(starts);
    free(bases);
    free(counts);
    Py_DECREF(words);
    return result;
}

static void Model_clear(Model *self) {
    table_free(&self->initial);
    table_free(&self->continuing);
    free(self->scores);
    self->scores = NULL;
    self->ready = 0;
}

static void Model_dealloc(Model *self) {
    Model_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_idle(Model *self) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the model is encoding in another thread");
        return -1;
    }
    return 0;
}

static int WordPiece_init(Model *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"initial", "continuing", "unk_id", "max_input_chars", "max_token_chars", NULL};
    PyObject *initial, *continuing;
    int unk_id;
    Py_ssize_t max_input, max_token;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOinn:WordPieceModel", kwlist, &initial, &continuing, &unk_id,
                                     &max_input, &max_token))
        return -1;
    if (check_idle(self)) return -1;
    Model_clear(self);
    self->generation++;
    self->kind = KIND_WORDPIECE;
    self->unk_id = unk_id < 0 ? -1 : unk_id;
    self->max_input_chars = max_input;
    self->max_token_chars = max_token < 1 ? 1 : (size_t)max_token;
    if (self->max_token_chars > (1 << 20)) {
        PyErr_SetString(PyExc_ValueError, "max_token_chars too large");
        return -1;
    }
    if (table_from_dict(&self->initial, initial, 0) || table_from_dict(&self->continuing, continuing, 0)) {
        Model_clear(self);
        return -1;
    }
    self->ready = 1;
    return 0;
}

static int Unigram_init(Model *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"match", "prefixes", "scores", "unk_id", "unk_score", "fuse_unk", "byte_ids", NULL};
    PyObject *match, *prefixes, *scores, *byte_ids;
    int unk_id, fuse_unk;
    double unk_score;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOidpO:UnigramModel", kwlist, &match, &prefixes, &scores, &unk_id,
                                     &unk_score, &fuse_unk, &byte_ids))
        return -1;
    if (check_idle(self)) return -1;
    Model_clear(self);
    self->kind = KIND_UNIGRAM;
    self->unk_id = unk_id < 0 ? -1 : unk_id;
    self->unk_score = unk_score;
    self->fuse_unk = fuse_unk;
    PyObject *fs = PySequence_Fast(scores, "scores must be a sequence of float");
    PyObject *fp = fs ? PySequence_Fast(prefixes, "prefixes must be a sequence of str") : NULL;
    if (!fs || !fp) goto fail;
    Py_ssize_t n_scores = PySequence_Fast_GET_SIZE(fs);
    self->scores = malloc(((size_t)n_scores + 1) * sizeof(double));
    if (!self->scores) {
        PyErr_NoMemory();
        goto fail;
    }
    self->n_scores = (size_t)n_scores;
    for (Py_ssize_t k = 0; k < n_scores; k++) {
        self->scores[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fs, k));
        if (self->scores[k] == -1.0 && PyErr_Occurred()) goto fail;
    }
    Py_ssize_t n_prefixes = PySequence_Fast_GET_SIZE(fp);
    if (table_from_dict(&self->initial, match, (size_t)n_prefixes)) goto fail;
    for (Py_ssize_t k = 0; k < n_prefixes; k++)
        if (table_put_str(&self->initial, PySequence_Fast_GET_ITEM(fp, k), -1, F_PREFIX)) goto fail;
    /* Every matchable id must have a score. */
    for (size_t i = 0; i <= self->initial.mask; i++) {
        const Slot *s = &self->initial.slots[i];
        if (s->len && s->id >= 0 && (size_t)s->id >= self->n_scores) {
            PyErr_SetString(PyExc_ValueError, "a piece id has no score");
            goto fail;
        }
    }
    if (self->unk_id >= 0 && (size_t)self->unk_id >= self->n_scores) {
        PyErr_SetString(PyExc_ValueError, "unk_id out of range");
        goto fail;
    }
    if (byte_ids != Py_None) {
        PyObject *fb = PySequence_Fast(byte_ids, "byte_ids must be a sequence of 256 ints");
        if (!fb) goto fail;
        if (PySequence_Fast_GET_SIZE(fb) != 256) {
            Py_DECREF(fb);
            PyErr_SetString(PyExc_ValueError, "byte_ids must have 256 ids");
            goto fail;
        }
        for (int b = 0; b < 256; b++) {
            long id = PyLong_AsLong(PySequence_Fast_GET_ITEM(fb, b));
            if ((id == -1 && PyErr_Occurred()) || id < 0 || id > INT32_MAX) {
                Py_DECREF(fb);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "byte id out of range");
                goto fail;
            }
            self->byte_ids[b] = (int32_t)id;
        }
        Py_DECREF(fb);
        self->byte_fallback = 1;
    } else {
        self->byte_fallback = 0;
    }
    Py_DECREF(fs);
    Py_DECREF(fp);
    self->ready = 1;
    return 0;
fail:
    Py_XDECREF(fs);
    Py_XDECREF(fp);
    Model_clear(self);
    return -1;
}

static PyMethodDef Model_methods[] = {
    {"encode_words", (PyCFunction)(void (*)(void))Model_encode_words, METH_VARARGS | METH_KEYWORDS,
     "encode_words(words, threads=1, bases=None, spans=None, flat=False) -> (ids, counts, offsets): all tokens of "
     "the words (a list; flat=True: a bytearray of native int32), tokens per word (int32 bytes) and their spans in the word (+ bases[k] when >= 0, or mapped by "
     "spans[k] = (starts, ends) when not None) as int32 start/end pairs. "
     "Releases the GIL."},
    {NULL},
};

static PyTypeObject WordPieceType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz._native.WordPieceModel",
    .tp_basicsize = sizeof(Model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WordPieceModel(initial, continuing, unk_id, max_input_chars, max_token_chars): greedy longest match",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordPiece_init,
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
};

static PyTypeObject UnigramType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz._native.UnigramModel",
    .tp_basicsize = sizeof(Model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "UnigramModel(match, prefixes, scores, unk_id, unk_score, fuse_unk, byte_ids): HF Unigram Viterbi",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Unigram_init,
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
};

/* ---- BertEncoder: BERT's normalizer, pre-tokenizer and WordPiece on raw texts ---------------
 *
 *   BertEncoder(model, clean_text, handle_chinese_chars, strip_accents, lowercase)
 *       over a WordPieceModel; strip_accents already resolved (None follows lowercase).
 *   encode(text, base=0, offsets=2) -> (ids, offsets as packed int32 start/end pairs + base), or
 *       the ids alone with offsets=0; None for a text left to the Python reference (bert_pre.c
 *       takes every rule of the reference; only texts of 2**28 characters or more).  Offsets are
 *       into the raw text.
 *   encode_many(texts, threads=1, offsets=2) -> [encode(text) for each text] (base 0), on
 *       `threads` threads without the GIL.
 *   normalize(text) -> (normalized text, starts, ends) or None: BertNormalizer alone (tests).
 *
 * A word's candidate pieces are first looked up in a Bloom filter of the model's keys (a few bits
 * per key in 64-bit words, small enough for the L2 cache): most of WordPiece's longest-first
 * probes are misses, which then cost no visit to the large hash table. */
#define ID_OBJECTS_MAX (1 << 22) /* ids below this get a shared int object */

typedef struct {
    uint64_t *words;
    size_t mask;
} Bloom;

static inline uint64_t bloom_mix(uint64_t h) {
    h ^= h >> 31;
    return h * 0x9E3779B97F4A7C15ULL;
}

static inline uint64_t bloom_bits(uint64_t m) { return (1ULL << (m & 63)) | (1ULL << ((m >> 6) & 63)); }

static inline int bloom_may_have(const Bloom *b, uint64_t h) {
    uint64_t m = bloom_mix(h), bits = bloom_bits(m);
    return (b->words[(m >> 40) & b->mask] & bits) == bits;
}

/* A filter of every key of t (by its hash); -1 when out of memory. */
static int bloom_build(Bloom *b, const Table *t) {
    size_t keys = 0;
    if (t->slots)
        for (size_t i = 0; i <= t->mask; i++) keys += t->slots[i].len != 0;
    size_t n = 64;
    while (n < keys / 2 && n < ((size_t)1 << 24)) n <<= 1; /* about 32 bits per key */
    uint64_t *words = calloc(n, sizeof(uint64_t));
    if (!words) return -1;
    if (t->slots)
        for (size_t i = 0; i <= t->mask; i++) {
            if (!t->slots[i].len) continue;
            uint64_t m = bloom_mix(t->slots[i].h);
            words[(m >> 40) & (n - 1)] |= bloom_bits(m);
        }
    free(b->words);
    b->words = words;
    b->mask = n - 1;
    return 0;
}

typedef struct {
    PyObject_HEAD
    Model *model;
    int options;            /* BERT_* */
    int prepared;
    unsigned generation;    /* of the model when the filters were built */
    Bloom initial, continuing;
    size_t n_id_objects;    /* ids below it are in tv_id_ints (id_ints.h), held while nonzero */
} BertEncoder;

typedef struct {
    BertScratch pre;
    uint64_t *hashes;
    size_t hcap;
} BertThreadScratch;

static void bert_thread_scratch_free(BertThreadScratch *s) {
    bert_scratch_free(&s->pre);
    free(s->hashes);
    memset(s, 0, sizeof *s);
}

/* WordPiece on word w[0:n) of the normalized text, each token with its span in the raw text
 * (st/en: the spans of the word's characters). */
static int bert_word(const BertEncoder *e, const uint32_t *w, size_t n, const int32_t *st, const int32_t *en,
                     uint64_t *hashes, Out *o) {
    const Model *m = e->model;
    size_t mark = o->n;
    if ((Py_ssize_t)n > m->max_input_chars) goto unknown;
    size_t start = 0;
    while (start < n) {
        size_t end = n - start < m->max_token_chars ? n : start + m->max_token_chars;
        uint64_t h = H0;
        for (size_t k = start; k < end; k++) hashes[k - start] = h = HSTEP(h, w[k]);
        const Table *t = start ? &m->continuing : &m->initial;
        const Bloom *b = start ? &e->continuing : &e->initial;
        int32_t found = -1;
        for (; end > start; end--) {
            uint64_t hk = hashes[end - start - 1];
            if (!bloom_may_have(b, hk)) continue;
            const Slot *slot = table_find(t, w + start, end - start, hk);
            if (slot && slot->id >= 0) {
                found = slot->id;
                break;
            }
        }
        if (found < 0) goto unknown;
        if (out_push(o, found, st[start], en[end - 1])) return RC_NOMEM;
        start = end;
    }
    return RC_OK;
unknown:
    o->n = mark;
    if (m->unk_id < 0) return RC_NOUNK;
    return out_push(o, m->unk_id, st[0], en[n - 1]) ? RC_NOMEM : RC_OK;
}

typedef struct {
    int kind;
    const void *data;
    size_t n;
} BertText;

/* The tokens of one raw text into o (o->n = 0 first); an RC_* code. */
static int bert_encode_text(const BertEncoder *e, const BertText *text, BertThreadScratch *s, Out *o) {
    o->n = 0;
    if (s->hcap < e->model->max_token_chars + 1) {
        uint64_t *h = realloc(s->hashes, (e->model->max_token_chars + 1) * sizeof(uint64_t));
        if (!h) return RC_NOMEM;
        s->hashes = h;
        s->hcap = e->model->max_token_chars + 1;
    }
    const BertChars *t;
    int rc = bert_pre_tokenize(e->options, text->kind, text->data, text->n, &s->pre, &t);
    if (rc == BERT_NOMEM) return RC_NOMEM;
    if (rc == BERT_SURROGATE) return RC_SURROGATE;
    if (rc == BERT_NEEDS_REFERENCE) return RC_REFERENCE;
    const uint32_t *words = s->pre.words;
    for (size_t k = 0; k < s->pre.n_words; k++) {
        size_t a = words[2 * k], b = words[2 * k + 1];
        rc = bert_word(e, t->cp + a, b - a, t->start + a, t->end + a, s->hashes, o);
        if (rc) return rc;
    }
    return RC_OK;
}

static void bert_set_error(int rc) {
    if (rc == RC_NOMEM)
        PyErr_NoMemory();
    else if (rc == RC_NOUNK)
        PyErr_SetString(PyExc_ValueError, "no unknown token for a word that needs one");
    else if (rc == RC_SURROGATE)
        PyErr_SetString(PyExc_ValueError, "a lone surrogate cannot be encoded");
    else
        PyErr_SetString(PyExc_SystemError, "unexpected BertEncoder error");
}

static void bert_free_ids(BertEncoder *self) {
    if (self->n_id_objects) id_ints_release();
    self->n_id_objects = 0;
}

/* Builds the filters and id objects for the model as it is now (again after a model __init__);
 * -1 with an exception on error. */
static int bert_prepare(BertEncoder *self) {
    Model *m = self->model;
    if (!m || !m->ready || m->kind != KIND_WORDPIECE) {
        PyErr_SetString(PyExc_RuntimeError, "BertEncoder: the WordPiece model is not initialized");
        return -1;
    }
    if (self->prepared && self->generation == m->generation) return 0;
    self->prepared = 0;
    if (bloom_build(&self->initial, &m->initial) || bloom_build(&self->continuing, &m->continuing)) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t max_id = m->unk_id;
    const Table *tables[2] = {&m->initial, &m->continuing};
    for (int k = 0; k < 2; k++)
        if (tables[k]->slots)
            for (size_t i = 0; i <= tables[k]->mask; i++)
                if (tables[k]->slots[i].len && tables[k]->slots[i].id > max_id) max_id = tables[k]->slots[i].id;
    bert_free_ids(self);
    size_t n = max_id < 0 ? 0 : (size_t)max_id + 1;
    if (n > ID_OBJECTS_MAX) n = ID_OBJECTS_MAX;
    if (n && id_ints_acquire(n)) return -1;
    self->n_id_objects = n;
    self->generation = m->generation;
    self->prepared = 1;
    return 0;
}

static PyObject *bert_id(const BertEncoder *e, int32_t id) {
    if (id >= 0 && (size_t)id < e->n_id_objects) {
        Py_INCREF(tv_id_ints[id]);
        return tv_id_ints[id];
    }
    return PyLong_FromLong(id);
}

/* ids, or (ids, packed offsets + base); None for RC_REFERENCE; NULL with an exception. */
static PyObject *bert_result(const BertEncoder *e, int rc, const Out *o, int offsets, Py_ssize_t base) {
    if (rc == RC_REFERENCE) Py_RETURN_NONE;
    if (rc != RC_OK) {
        bert_set_error(rc);
        return NULL;
    }
    PyObject *ids = PyList_New((Py_ssize_t)o->n);
    if (!ids) return NULL;
    for (size_t k = 0; k < o->n; k++) {
        PyObject *v = bert_id(e, o->ids[k]);
        if (!v) {
            Py_DECREF(ids);
            return NULL;
        }
        PyList_SET_ITEM(ids, (Py_ssize_t)k, v);
    }
    /* Only ints: no cycle can go through the list, and the cyclic collector need not walk its
       items (the first collection after a batch walked all of them: 8% of the batch's time). */
    PyObject_GC_UnTrack(ids);
    if (!offsets) return ids;
    PyObject *packed = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(o->n * 2 * sizeof(int32_t)));
    if (!packed) {
        Py_DECREF(ids);
        return NULL;
    }
    int32_t *p = (int32_t *)PyBytes_AS_STRING(packed);
    for (size_t k = 0; k < 2 * o->n; k++) p[k] = (int32_t)(o->offs[k] + base);
    PyObject *res = PyTuple_Pack(2, ids, packed);
    Py_DECREF(ids);
    Py_DECREF(packed);
    return res;
}

/* The text of a str argument; -1 with an exception. */
static int bert_text_of(PyObject *obj, BertText *t) {
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(obj)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(obj) < 0) return -1;
#endif
    t->kind = PyUnicode_KIND(obj);
    t->data = PyUnicode_DATA(obj);
    t->n = (size_t)PyUnicode_GET_LENGTH(obj);
    return 0;
}

static int check_offsets_mode(int offsets) {
    if (offsets == 0 || offsets == 2) return 0;
    PyErr_SetString(PyExc_ValueError, "offsets: 0 (none) or 2 (packed)");
    return -1;
}

static PyObject *BertEncoder_encode(BertEncoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"text", "base", "offsets", NULL};
    PyObject *text;
    Py_ssize_t base = 0;
    int offsets = 2;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "U|ni:encode", kwlist, &text, &base, &offsets)) return NULL;
    if (check_offsets_mode(offsets) || bert_prepare(self)) return NULL;
    if (base < 0 || base > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "base out of range");
        return NULL;
    }
    BertText t;
    if (bert_text_of(text, &t)) return NULL;
    BertThreadScratch s = {0};
    Out o = {0};
    int rc;
    self->model->busy++;
    Py_BEGIN_ALLOW_THREADS
    rc = bert_encode_text(self, &t, &s, &o);
    Py_END_ALLOW_THREADS
    self->model->busy--;
    bert_thread_scratch_free(&s);
    PyObject *res = bert_result(self, rc, &o, offsets, base);
    out_free(&o);
    return res;
}

/* ---- encode_many: the texts on N threads (batch.h) ---------------------------------------------- */

typedef struct {
    BertEncoder *enc;
    const BertText *texts;
    Out *outs;
    int offsets;
} BertBatch;

static int bert_batch_encode(void *ctx, size_t k, void *scratch) {
    BertBatch *b = ctx;
    /* A local Out, stored when the text is done: neighbouring texts' Outs share cache lines. */
    Out out = {0};
    int rc = bert_encode_text(b->enc, &b->texts[k], scratch, &out);
    b->outs[k] = out;
    return rc;
}

static PyObject *bert_batch_result(void *ctx, size_t k, int rc) {
    BertBatch *b = ctx;
    PyObject *item = bert_result(b->enc, rc, &b->outs[k], b->offsets, 0);
    out_free(&b->outs[k]);
    return item;
}

static void bert_batch_scratch_free(void *scratch) { bert_thread_scratch_free(scratch); }

static void bert_batch_ids(void *ctx, size_t k, const int32_t **ids, size_t *n) {
    const BertBatch *b = ctx;
    *ids = b->outs[k].ids;
    *n = b->outs[k].n;
}

static int bert_batch_error(int rc) {
    bert_set_error(rc);
    return -1;
}

static PyObject *BertEncoder_encode_many(BertEncoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"texts", "threads", "offsets", "flat", NULL};
    PyObject *seq;
    int threads = 1, offsets = 2, flat = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iip:encode_many", kwlist, &seq, &threads, &offsets, &flat))
        return NULL;
    if (flat) offsets = 0;
    if (check_offsets_mode(offsets) || bert_prepare(self)) return NULL;
    /* A private tuple: nothing can drop the texts while the threads read them. */
    PyObject *fast = PySequence_Tuple(seq);
    if (!fast) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(fast);
    BertText *texts = calloc((size_t)n + 1, sizeof(BertText));
    BertBatch b = {.enc = self, .texts = texts, .outs = calloc((size_t)n + 1, sizeof(Out)), .offsets = offsets};
    PyObject *result = NULL;
    if (!texts || !b.outs) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (bert_text_of(PyTuple_GET_ITEM(fast, k), &texts[k])) goto done;
    self->model->busy++;
    BatchJob job = {&b, (size_t)n, bert_batch_encode, bert_batch_result, sizeof(BertThreadScratch),
                    bert_batch_scratch_free};
    if (flat) {
        BatchFlat how = {bert_batch_ids, RC_REFERENCE, bert_batch_error};
        result = batch_run_flat(&job, &how, threads);
    } else {
        result = batch_run(&job, threads);
    }
    self->model->busy--;
done:
    if (b.outs)
        for (Py_ssize_t k = 0; k < n; k++) out_free(&b.outs[k]);
    free(texts);
    free(b.outs);
    Py_DECREF(fast);
    return result;
}

static PyObject *BertEncoder_normalize(BertEncoder *self, PyObject *arg) {
    BertText t;
    if (bert_text_of(arg, &t)) return NULL;
    BertScratch s = {0};
    const BertChars *c = NULL;
    int rc = bert_pre_tokenize(self->options, t.kind, t.data, t.n, &s, &c);
    PyObject *res = NULL;
    if (rc == BERT_NEEDS_REFERENCE) {
        res = Py_None;
        Py_INCREF(res);
    } else if (rc != BERT_OK) {
        bert_set_error(rc == BERT_NOMEM ? RC_NOMEM : RC_SURROGATE);
    } else {
        PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, c->cp, (Py_ssize_t)c->n);
        PyObject *starts = PyList_New((Py_ssize_t)c->n), *ends = PyList_New((Py_ssize_t)c->n);
        int ok = text && starts && ends;
        for (size_t k = 0; ok && k < c->n; k++) {
            PyObject *a = PyLong_FromLong(c->start[k]), *b = PyLong_FromLong(c->end[k]);
            if (a) PyList_SET_ITEM(starts, (Py_ssize_t)k, a);
            if (b) PyList_SET_ITEM(ends, (Py_ssize_t)k, b);
            ok = a && b;
        }
        if (ok) res = PyTuple_Pack(3, text, starts, ends);
        Py_XDECREF(text);
        Py_XDECREF(starts);
        Py_XDECREF(ends);
    }
    bert_scratch_free(&s);
    return res;
}

static int BertEncoder_init(BertEncoder *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"model", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase", NULL};
    PyObject *model;
    int clean, chinese, strip, lower;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!pppp:BertEncoder", kwlist, &WordPieceType, &model, &clean, &chinese,
                                     &strip, &lower))
        return -1;
    if (self->model && self->model->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the encoder is running in another thread");
        return -1;
    }
    Py_INCREF(model);
    Py_XSETREF(self->model, (Model *)model);
    self->options = (clean ? BERT_CLEAN : 0) | (chinese ? BERT_CHINESE : 0) | (strip ? BERT_STRIP : 0)
                    | (lower ? BERT_LOWER : 0);
    self->prepared = 0;
    return bert_prepare(self);
}

static void BertEncoder_dealloc(BertEncoder *self) {
    free(self->initial.words);
    free(self->continuing.words);
    bert_free_ids(self);
    Py_XDECREF(self->model);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef BertEncoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))BertEncoder_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(text, base=0, offsets=2) -> (ids, packed int32 start/end pairs + base) into the raw text, ids "
     "alone with offsets=0, or None when the text needs the Python reference. Releases the GIL."},
    {"encode_many", (PyCFunction)(void (*)(void))BertEncoder_encode_many, METH_VARARGS | METH_KEYWORDS,
     "encode_many(texts, threads=1, offsets=2, flat=False) -> a list of encode() results, computed on `threads` "
     "threads; flat=True: (ids, offsets, skipped), every id in one int32 bytearray (batch.h's batch_run_flat), "
     "skipped the texts that need the reference pre-tokenizer."},
    {"normalize", (PyCFunction)BertEncoder_normalize, METH_O,
     "normalize(text) -> (normalized text, starts, ends) or None: BertNormalizer alone."},
    {NULL},
};

static PyTypeObject BertEncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz._native.BertEncoder",
    .tp_basicsize = sizeof(BertEncoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BertEncoder(model, clean_text, handle_chinese_chars, strip_accents, lowercase): BERT's normalizer, "
              "pre-tokenizer and a WordPieceModel on raw text",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BertEncoder_init,
    .tp_dealloc = (destructor)BertEncoder_dealloc,
    .tp_methods = BertEncoder_methods,
};

int tv_models_add(PyObject *m) {
    if (PyModule_AddStringConstant(m, "BERT_UNICODE_VERSION", bert_unicode_version) < 0) return -1;
    PyTypeObject *types[] = {&WordPieceType, &UnigramType, &BertEncoderType};
    const char *names[] = {"WordPieceModel", "UnigramModel", "BertEncoder"};
    for (int k = 0; k < 3; k++) {
        if (PyType_Ready(types[k]) < 0) return -1;
        Py_INCREF(types[k]);
        if (PyModule_AddObject(m, names[k], (PyObject *)types[k]) < 0) {
            Py_DECREF(types[k]);
            return -1;
        }
    }
    return 0;
}
