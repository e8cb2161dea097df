/* byte_level_tables(vocab, merges, by_line): what the byte-level BPE Encoder is built from, read
 * from a tokviz BPE model's vocabulary and merge ranks in C (a Python loop over 150 k tokens and
 * merges took most of a load's time).  The definition is tokviz/native/__init__.py's
 * _tables_python; tests/native check that both give the same tables.
 *
 * vocab: {token string: id}, the strings in the GPT-2 byte-to-character alphabet
 *        (tokviz/core/bytelevel.py); a token with a character outside it has no bytes (None).
 * merges: None (tiktoken: pairs ranked by the merged token), or the list of merges in rank order,
 *        each the line "a b" (by_line) or the tuple (a, b).
 * Returns (tokens, quads): tokens[id] = the token's bytes or None; quads = array('i') of
 * (left, right, rank, merged) for every merge of two tokens with bytes, or None without merges (a
 * merge listed twice: both are there, the later one last, as the Encoder keeps the later rank).
 * Returns None when the Python model could make a symbol the C encoder cannot (two tokens share an
 * id, or a merge of two byte-level tokens makes a string outside the vocabulary). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytelevel_tables.h"
#include "piece_cache.h"

#define ALPHABET_END 0x144 /* the byte-level alphabet's characters are all below U+0144 */

/* byte_of[c]: the byte the alphabet's character c stands for, or -1. */
static void alphabet(int16_t *byte_of) {
    for (int c = 0; c < ALPHABET_END; c++) byte_of[c] = -1;
    int shifted = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        byte_of[printable ? b : 256 + shifted++] = (int16_t)b;
    }
}

/* The bytes of s[start:end) in the alphabet, written to out (room for end - start); its length,
 * or -1 when a character is outside the alphabet. */
static Py_ssize_t decode_span(const int16_t *byte_of, PyObject *s, Py_ssize_t start, Py_ssize_t end, uint8_t *out) {
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= ALPHABET_END || byte_of[c] < 0) return -1;
        out[i - start] = (uint8_t)byte_of[c];
    }
    return end - start;
}

/* An open-addressing map token bytes -> id over the tokens found so far. */
typedef struct {
    uint64_t *slots; /* hash tag << 32 | id + 1; 0 = empty */
    size_t mask;
    const uint8_t *blob;
    const size_t *off, *len;
} ByteMap;

static int32_t bytemap_get(const ByteMap *m, const uint8_t *p, size_t n) {
    uint64_t h = hash_bytes(p, n), tag = h & 0xFFFFFFFF00000000ULL;
    for (size_t s = h & m->mask;; s = (s + 1) & m->mask) {
        uint64_t v = m->slots[s];
        if (!v) return -1;
        uint32_t id = (uint32_t)v - 1;
        if ((v & 0xFFFFFFFF00000000ULL) == tag && m->len[id] == n && memcmp(m->blob + m->off[id], p, n) == 0)
            return (int32_t)id;
    }
}

static void bytemap_put(ByteMap *m, const uint8_t *p, size_t n, uint32_t id) {
    uint64_t h = hash_bytes(p, n);
    size_t s = h & m->mask;
    while (m->slots[s]) s = (s + 1) & m->mask;
    m->slots[s] = (h & 0xFFFFFFFF00000000ULL) | (id + 1);
}

/* The two halves of a merge key: "a b" split at its first space, or the tuple (a, b). */
static int merge_halves(PyObject *key, int by_line, PyObject **a, Py_ssize_t *a0, Py_ssize_t *a1, PyObject **b,
                        Py_ssize_t *b0, Py_ssize_t *b1) {
    if (by_line) {
        if (!PyUnicode_Check(key)) return -1;
        Py_ssize_t space = PyUnicode_FindChar(key, ' ', 0, PyUnicode_GET_LENGTH(key), 1);
        if (space < 0) return -1;
        *a = *b = key;
        *a0 = 0;
        *a1 = space;
        *b0 = space + 1;
        *b1 = PyUnicode_GET_LENGTH(key);
        return 0;
    }
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) return -1;
    *a = PyTuple_GET_ITEM(key, 0);
    *b = PyTuple_GET_ITEM(key, 1);
    if (!PyUnicode_Check(*a) || !PyUnicode_Check(*b)) return -1;
    *a0 = *b0 = 0;
    *a1 = PyUnicode_GET_LENGTH(*a);
    *b1 = PyUnicode_GET_LENGTH(*b);
    return 0;
}

PyObject *tv_byte_level_tables(PyObject *mod, PyObject *args) {
    PyObject *vocab, *merges;
    int by_line;
    if (!PyArg_ParseTuple(args, "O!Op:byte_level_tables", &PyDict_Type, &vocab, &merges, &by_line)) return NULL;
    if (merges != Py_None && !PyList_Check(merges)) {
        PyErr_SetString(PyExc_TypeError, "merges: expected a list or None");
        return NULL;
    }
    int16_t byte_of[ALPHABET_END];
    alphabet(byte_of);
    PyObject *result = NULL, *tokens = NULL, *quads = NULL;
    uint8_t *blob = NULL, *buf = NULL;
    size_t *off = NULL, *len = NULL;
    ByteMap map = {0};

    /* ids and total length first */
    Py_ssize_t pos = 0, count = PyDict_GET_SIZE(vocab), max_chars = 0;
    long max_id = -1;
    size_t total = 0;
    PyObject *key, *value;
    while (PyDict_Next(vocab, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyLong_Check(value)) {
            PyErr_SetString(PyExc_TypeError, "vocab: expected {str: int}");
            return NULL;
        }
        long id = PyLong_AsLong(value);
        if (id < 0 || id >= INT32_MAX) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "vocab: id %ld out of range", id);
            return NULL;
        }
        if (id > max_id) max_id = id;
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        total += (size_t)n;
        if (n > max_chars) max_chars = n;
    }
    size_t size = (size_t)(max_id + 1);
    blob = malloc(total + 1);
    off = malloc((size + 1) * sizeof(size_t));
    len = malloc((size + 1) * sizeof(size_t));
    buf = malloc(2 * (size_t)max_chars + 2);
    size_t slots = 16;
    while (slots < 2 * (size_t)count + 1) slots <<= 1;
    map.slots = calloc(slots, sizeof(uint64_t));
    map.mask = slots - 1;
    map.blob = blob;
    map.off = off;
    map.len = len;
    if (!blob || !off || !len || !buf || !map.slots) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < size; i++) {
        len[i] = SIZE_MAX; /* no token (yet) */
        off[i] = 0;
    }
    size_t at = 0;
    pos = 0;
    while (PyDict_Next(vocab, &pos, &key, &value)) {
        size_t id = (size_t)PyLong_AsLong(value);
        if (len[id] != SIZE_MAX || off[id] == SIZE_MAX - 1) {
            result = Py_NewRef(Py_None); /* two tokens share an id */
            goto done;
        }
        Py_ssize_t n = decode_span(byte_of, key, 0, PyUnicode_GET_LENGTH(key), blob + at);
        if (n <= 0) {
            off[id] = SIZE_MAX - 1; /* the id is taken, by a token without bytes */
            continue;
        }
        if (bytemap_get(&map, blob + at, (size_t)n) >= 0) {
            result = Py_NewRef(Py_None); /* two strings of one id's bytes: cannot happen in the alphabet */
            goto done;
        }
        off[id] = at;
        len[id] = (size_t)n;
        bytemap_put(&map, blob + at, (size_t)n, (uint32_t)id);
        at += (size_t)n;
    }
    tokens = PyList_New((Py_ssize_t)size);
    if (!tokens) goto done;
    for (size_t i = 0; i < size; i++) {
        PyObject *b = len[i] == SIZE_MAX ? Py_NewRef(Py_None) : PyBytes_FromStringAndSize((const char *)blob + off[i], (Py_ssize_t)len[i]);
        if (!b) goto done;
        PyList_SET_ITEM(tokens, (Py_ssize_t)i, b);
    }
    if (merges == Py_None) {
        result = PyTuple_Pack(2, tokens, Py_None);
        goto done;
    }

    /* merges: (left, right, rank, merged) as int32, in the dict's order */
    Py_ssize_t n_merges = PyList_GET_SIZE(merges);
    size_t n_quads = 0;
    int32_t *q = malloc(((size_t)n_merges + 1) * 4 * sizeof(int32_t));
    if (!q) {
        PyErr_NoMemory();
        goto done;
    }
    if (n_merges >= INT32_MAX) {
        free(q);
        PyErr_SetString(PyExc_ValueError, "merges: too many");
        goto done;
    }
    for (Py_ssize_t rank = 0; rank < n_merges; rank++) {
        key = PyList_GET_ITEM(merges, rank);
        PyObject *a, *b;
        Py_ssize_t a0, a1, b0, b1;
        if (merge_halves(key, by_line, &a, &a0, &a1, &b, &b0, &b1) < 0) {
            free(q);
            PyErr_SetString(PyExc_TypeError, by_line ? "merges: expected \"a b\" lines" : "merges: expected (a, b) pairs");
            goto done;
        }
        if (a1 - a0 + b1 - b0 > 2 * max_chars) continue; /* longer than any token: the halves are not tokens */
        Py_ssize_t na = decode_span(byte_of, a, a0, a1, buf);
        Py_ssize_t nb = na > 0 ? decode_span(byte_of, b, b0, b1, buf + na) : -1;
        if (na <= 0 || nb <= 0) continue; /* a half is not a token with bytes: never formed */
        int32_t ia = bytemap_get(&map, buf, (size_t)na), ib = bytemap_get(&map, buf + na, (size_t)nb);
        if (ia < 0 || ib < 0) continue;
        int32_t im = bytemap_get(&map, buf, (size_t)(na + nb));
        if (im < 0) {
            free(q);
            result = Py_NewRef(Py_None); /* Python would make a symbol outside the vocabulary */
            goto done;
        }
        int32_t *quad = q + 4 * n_quads++;
        quad[0] = ia;
        quad[1] = ib;
        quad[2] = (int32_t)rank;
        quad[3] = im;
    }
    PyObject *raw = PyBytes_FromStringAndSize((const char *)q, (Py_ssize_t)(n_quads * 4 * sizeof(int32_t)));
    free(q);
    if (!raw) goto done;
    PyObject *array_mod = PyImport_ImportModule("array");
    if (array_mod) {
        quads = PyObject_CallMethod(array_mod, "array", "sO", "i", raw);
        Py_DECREF(array_mod);
    }
    Py_DECREF(raw);
    if (quads) result = PyTuple_Pack(2, tokens, quads);
done:
    Py_XDECREF(tokens);
    Py_XDECREF(quads);
    free(blob);
    free(off);
    free(len);
    free(buf);
    free(map.slots);
    return result;
}

/* ---- .tiktoken files ------------------------------------------------------------------------ */

static int8_t base64_value(uint8_t c) {
    if (c >= 'A' && c <= 'Z') return (int8_t)(c - 'A');
    if (c >= 'a' && c <= 'z') return (int8_t)(c - 'a' + 26);
    if (c >= '0' && c <= '9') return (int8_t)(c - '0' + 52);
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* The bytes of a canonical base64 field (length a multiple of 4, '=' only as its last one or two
 * characters, nothing else outside the alphabet) into out; their number, or -1.  A field of '='
 * alone is the empty token (as tiktoken reads openai-whisper's "= 50256"). */
static Py_ssize_t base64_field(const uint8_t *p, size_t n, uint8_t *out) {
    size_t k = 0;
    while (k < n && p[k] == '=') k++;
    if (k == n) return 0;
    if (n % 4) return -1;
    size_t pad = p[n - 1] == '=' ? (p[n - 2] == '=' ? 2 : 1) : 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i += 4) {
        int last = i + 4 == n;
        int8_t v[4];
        for (int j = 0; j < 4; j++) {
            v[j] = last && j >= 4 - (int)pad ? 0 : base64_value(p[i + j]);
            if (v[j] < 0) return -1;
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[m++] = (uint8_t)(w >> 16);
        if (!last || pad < 2) out[m++] = (uint8_t)(w >> 8);
        if (!last || pad < 1) out[m++] = (uint8_t)w;
    }
    return (Py_ssize_t)m;
}

/* An empty dict with room for `n` keys where CPython offers it (no rehash while filling it). */
static PyObject *new_dict(size_t n) {
#if PY_VERSION_HEX < 0x030D0000 && !defined(Py_LIMITED_API)
    return _PyDict_NewPresized((Py_ssize_t)n);
#else
    (void)n;
    return PyDict_New();
#endif
}

/* tiktoken_table(data) -> (ranks, vocab) or None.
 * data: a .tiktoken file's bytes, every line "base64 rank" (one space, '\n' or "\r\n" line ends).
 * ranks: {token bytes: rank}; vocab: {token as byte-level text: rank}.  None when any line is not
 * in that regular form or a token appears twice: the Python reader then reads the file line by line
 * and names what is wrong (tokviz/formats/tiktoken_file.py). */
PyObject *tv_tiktoken_table(PyObject *mod, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const uint8_t *p = view.buf, *end = p + view.len;
    size_t lines = 0;
    for (const uint8_t *q = p; q < end && (q = memchr(q, '\n', (size_t)(end - q))); q++) lines++;
    PyObject *ranks = new_dict(lines + 1), *vocab = new_dict(lines + 1), *result = NULL;
    Py_ssize_t entries = 0;
    uint8_t *token = malloc((size_t)view.len + 1);
    Py_UCS4 *text = malloc(((size_t)view.len + 1) * sizeof(Py_UCS4));
    Py_UCS4 char_of[256];
    int16_t byte_of[ALPHABET_END];
    alphabet(byte_of);
    for (int c = 0; c < ALPHABET_END; c++)
        if (byte_of[c] >= 0) char_of[byte_of[c]] = (Py_UCS4)c;
    if (!ranks || !vocab || !token || !text) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int regular = p < end;
    while (regular && p < end) {
        const uint8_t *space = memchr(p, ' ', (size_t)(end - p));
        const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const uint8_t *stop = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        if (!space || space >= stop || space == p || space + 1 == stop || stop - (space + 1) > 10) {
            regular = 0;
            break;
        }
        long long rank = 0;
        for (const uint8_t *d = space + 1; d < stop; d++) {
            if (*d < '0' || *d > '9') {
                regular = 0;
                break;
            }
            rank = rank * 10 + (*d - '0');
        }
        Py_ssize_t n = regular ? base64_field(p, (size_t)(space - p), token) : -1;
        if (n < 0 || rank > INT32_MAX) {
            regular = 0;
            break;
        }
        for (Py_ssize_t i = 0; i < n; i++) text[i] = char_of[token[i]];
        PyObject *key = PyBytes_FromStringAndSize((const char *)token, n);
        PyObject *str = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, text, n);
        PyObject *value = PyLong_FromLongLong(rank);
        int ok = key && str && value && PyDict_SetItem(ranks, key, value) == 0 && PyDict_SetItem(vocab, str, value) == 0;
        Py_XDECREF(key);
        Py_XDECREF(str);
        Py_XDECREF(value);
        if (!ok) goto done;
        entries++;
        p = eol < end ? eol + 1 : end;
    }
    if (regular && PyDict_GET_SIZE(ranks) != entries) regular = 0; /* a token listed twice */
    result = regular ? PyTuple_Pack(2, ranks, vocab) : Py_NewRef(Py_None);
done:
    Py_XDECREF(ranks);
    Py_XDECREF(vocab);
    free(token);
    free(text);
    PyBuffer_Release(&view);
    return result;
}
