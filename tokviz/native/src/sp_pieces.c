/* sp_pieces(data, pos) -> (pieces, scores, types, vocab, end): the piece records of a
 * sentencepiece ModelProto read in C, for fast loading of .model files.  `types` is a bytes object
 * (one type code per piece), `vocab` maps each piece to the first index it has in this run.
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

static double read_f32_le(const uint8_t *p) {
    uint32_t bits = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

PyObject *tv_sp_pieces(PyObject *mod, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t pos;
    if (!PyArg_ParseTuple(args, "y*n", &buf, &pos)) return NULL;
    const uint8_t *data = (const uint8_t *)buf.buf;
    const Py_ssize_t end = buf.len;
    /* Presized for the usual record (about 45 bytes): growing a dict of 10k+ keys rehashes it often. */
    PyObject *pieces = PyList_New(0), *scores = PyList_New(0);
    PyObject *vocab = _PyDict_NewPresized(buf.len / 48);
    PyObject *types = NULL, *result = NULL;
    char *codes = NULL;
    Py_ssize_t count = 0;
    if (!pieces || !scores || !vocab) goto done;
    codes = PyMem_Malloc(end > 0 ? (size_t)end / 4 + 1 : 1); /* a record takes at least 4 bytes */
    if (!codes) {
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
        double score = 0.0;
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
        PyObject *piece = PyUnicode_DecodeUTF8((const char *)data + sub + 2, n, "strict");
        if (!piece) { /* not UTF-8: the Python reader reports it with the piece's index */
            PyErr_Clear();
            break;
        }
        PyObject *s = PyFloat_FromDouble(score), *id = PyLong_FromSsize_t(count);
        int bad = !s || !id || PyList_Append(pieces, piece) || PyList_Append(scores, s)
                  || !PyDict_SetDefault(vocab, piece, id);
        Py_DECREF(piece);
        Py_XDECREF(s);
        Py_XDECREF(id);
        if (bad) goto done;
        codes[count++] = (char)kind;
        pos = stop;
    }
    types = PyBytes_FromStringAndSize(codes, count);
    if (types) result = Py_BuildValue("(OOOOn)", pieces, scores, types, vocab, pos);
done:
    Py_XDECREF(pieces);
    Py_XDECREF(scores);
    Py_XDECREF(types);
    Py_XDECREF(vocab);
    PyMem_Free(codes);
    PyBuffer_Release(&buf);
    return result;
}
