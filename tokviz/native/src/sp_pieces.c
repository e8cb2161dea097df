/* sp_pieces(data, pos) -> (pieces, scores, types, vocab, end): the piece records of a
 * sentencepiece ModelProto read in C, for fast loading of .model files.  `scores` is a bytes
 * object of native-order float32 values (for array('f')), `types` a bytes object (one type code
 * per piece), `vocab` maps each piece to the first index it has in this run.
 *
 * Only the layout sentencepiece itself writes is read here: a run of field-1 records, each
 * `0A len 0A n <piece> [15 <float32>] [18 <type>]` with one-byte lengths and type.  Reading stops
 * at the first record that looks different (or whose piece is not UTF-8, or whose type is not one
 * of the six known ones) and `end` says where: the Python reader (tokviz/formats/sentencepiece.py)
 * takes over from there and reads that record field by field, or reports what is wrong with it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "sp_pieces.h"

static float read_f32_le(const uint8_t *p) {
    uint32_t bits = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The str of a short UTF-8 piece, decoded straight into a str of the right width (CPython's
 * general decoder grows a buffer, which costs more than the rest of reading a piece).  NULL
 * without an exception when the bytes are not strict UTF-8 (overlong forms, surrogates, > U+10FFFF). */
static PyObject *decode_piece(const uint8_t *s, Py_ssize_t n) {
    Py_UCS4 cps[128];
    Py_ssize_t len = 0, i = 0;
    Py_UCS4 maxchar = 0;
    while (i < n) {
        uint8_t b = s[i];
        Py_UCS4 c;
        int extra;
        if (b < 0x80) { c = b; extra = 0; }
        else if (b >= 0xC2 && b <= 0xDF) { c = b & 0x1F; extra = 1; }
        else if (b >= 0xE0 && b <= 0xEF) { c = b & 0x0F; extra = 2; }
        else if (b >= 0xF0 && b <= 0xF4) { c = b & 0x07; extra = 3; }
        else return NULL;
        if (i + extra >= n && extra) return NULL; /* cut short */
        for (int k = 1; k <= extra; k++) {
            uint8_t t = s[i + k];
            if ((t & 0xC0) != 0x80) return NULL;
            c = (c << 6) | (t & 0x3F);
        }
        if ((extra == 2 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) || (extra == 3 && (c < 0x10000 || c > 0x10FFFF)))
            return NULL;
        cps[len++] = c;
        if (c > maxchar) maxchar = c;
        i += extra + 1;
    }
    PyObject *str = PyUnicode_New(len, maxchar);
    if (!str) return NULL;
    int kind = PyUnicode_KIND(str);
    void *out = PyUnicode_DATA(str);
    for (Py_ssize_t k = 0; k < len; k++) PyUnicode_WRITE(kind, out, k, cps[k]);
    return str;
}

PyObject *tv_sp_pieces(PyObject *mod, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t pos;
    if (!PyArg_ParseTuple(args, "y*n", &buf, &pos)) return NULL;
    const uint8_t *data = (const uint8_t *)buf.buf;
    const Py_ssize_t end = buf.len;
    /* Presized for the usual record (about 45 bytes): growing a dict of 10k+ keys rehashes it often. */
    PyObject *pieces = PyList_New(0);
    PyObject *vocab = _PyDict_NewPresized(buf.len / 48);
    PyObject *types = NULL, *scores = NULL, *result = NULL;
    char *codes = NULL;
    float *values = NULL;
    Py_ssize_t count = 0;
    if (!pieces || !vocab) goto done;
    size_t most = end > 0 ? (size_t)end / 4 + 1 : 1; /* a record takes at least 4 bytes */
    codes = PyMem_Malloc(most);
    values = PyMem_Malloc(most * sizeof(float));
    if (!codes || !values) {
        PyErr_NoMemory();
        goto done;
    }
    if (pos < 0 || pos > end) {
        PyErr_SetString(PyExc_ValueError, "position outside the data");
        goto done;
    }
    while (pos + 1 < end && data[pos] == 0x0A) {
        Py_ssize_t size = data[pos + 1];
        Py_ssize_t sub = pos + 2, stop = sub + size;
        if (size >= 0x80 || size < 2 || stop > end || data[sub] != 0x0A) break;
        Py_ssize_t n = data[sub + 1];
        Py_ssize_t k = sub + 2 + n;
        if (n >= 0x80 || k > stop) break;
        float score = 0.0f;
        long kind = 1; /* NORMAL */
        if (k < stop && data[k] == 0x15) {
            if (k + 5 > stop) break;
            score = read_f32_le(data + k + 1);
            k += 5;
        }
        if (k < stop && data[k] == 0x18) {
            if (k + 2 > stop || data[k + 1] >= 0x80) break;
            kind = data[k + 1];
            k += 2;
        }
        if (k != stop || kind < 1 || kind > 6) break;
        PyObject *piece = decode_piece(data + sub + 2, n);
        if (!piece) {
            if (PyErr_Occurred()) goto done; /* out of memory */
            break; /* not UTF-8: the Python reader reports it with the piece's index */
        }
        PyObject *id = PyLong_FromSsize_t(count);
        int bad = !id || PyList_Append(pieces, piece) || !PyDict_SetDefault(vocab, piece, id);
        Py_DECREF(piece);
        Py_XDECREF(id);
        if (bad) goto done;
        values[count] = score;
        codes[count++] = (char)kind;
        pos = stop;
    }
    types = PyBytes_FromStringAndSize(codes, count);
    scores = PyBytes_FromStringAndSize((const char *)values, count * (Py_ssize_t)sizeof(float));
    if (types && scores) result = Py_BuildValue("(OOOOn)", pieces, scores, types, vocab, pos);
done:
    Py_XDECREF(pieces);
    Py_XDECREF(scores);
    Py_XDECREF(types);
    Py_XDECREF(vocab);
    PyMem_Free(codes);
    PyMem_Free(values);
    PyBuffer_Release(&buf);
    return result;
}
