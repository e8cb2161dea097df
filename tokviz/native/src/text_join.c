/* tokviz._textjoin.join(pieces): "".join(pieces) with the characters copied without the GIL.
 *
 * Joining the pieces of a big file (tens of MB, often widened to 4 bytes a character by a single
 * emoji) is one ~100 ms copy; a worker thread doing it with "".join holds the GIL all that time
 * and the GUI's event loop stalls.  Here the new string is allocated with the GIL, filled
 * without it (no other thread can see it yet), and returned. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const void *data;
    int kind;
    Py_ssize_t n;
} Piece;

static void widen(void *dst, int dkind, Py_ssize_t at, const Piece *p) {
    if (dkind == p->kind) {
        memcpy((char *)dst + at * dkind, p->data, (size_t)p->n * (size_t)dkind);
        return;
    }
    if (dkind == PyUnicode_2BYTE_KIND) { /* from 1 byte */
        Py_UCS2 *d = (Py_UCS2 *)dst + at;
        const Py_UCS1 *s = p->data;
        for (Py_ssize_t i = 0; i < p->n; i++) d[i] = s[i];
        return;
    }
    Py_UCS4 *d = (Py_UCS4 *)dst + at; /* 4 bytes, from 1 or 2 */
    if (p->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *s = p->data;
        for (Py_ssize_t i = 0; i < p->n; i++) d[i] = s[i];
    } else {
        const Py_UCS2 *s = p->data;
        for (Py_ssize_t i = 0; i < p->n; i++) d[i] = s[i];
    }
}

static PyObject *join(PyObject *mod, PyObject *arg) {
    PyObject *items = PySequence_Tuple(arg); /* a private tuple keeps the pieces alive */
    if (!items) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(items), total = 0;
    Py_UCS4 maxchar = 0;
    Piece *pieces = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(Piece));
    PyObject *result = NULL;
    if (!pieces) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *s = PyTuple_GET_ITEM(items, k);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "join() takes str pieces, got %.80s", Py_TYPE(s)->tp_name);
            goto done;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(s) < 0) goto done;
#endif
        pieces[k].data = PyUnicode_DATA(s);
        pieces[k].kind = PyUnicode_KIND(s);
        pieces[k].n = PyUnicode_GET_LENGTH(s);
        if (pieces[k].n > PY_SSIZE_T_MAX - total) {
            PyErr_SetString(PyExc_OverflowError, "joined text too long");
            goto done;
        }
        total += pieces[k].n;
        Py_UCS4 m = PyUnicode_MAX_CHAR_VALUE(s);
        if (m > maxchar) maxchar = m;
    }
    result = PyUnicode_New(total, maxchar);
    if (!result) goto done;
    void *dst = PyUnicode_DATA(result);
    int dkind = PyUnicode_KIND(result);
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        widen(dst, dkind, at, &pieces[k]);
        at += pieces[k].n;
    }
    Py_END_ALLOW_THREADS
done:
    PyMem_Free(pieces);
    Py_DECREF(items);
    return result;
}

static PyMethodDef methods[] = {
    {"join", join, METH_O, "join(pieces) -> str: ''.join(pieces), the characters copied without the GIL."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "tokviz._textjoin",
                                       "Joining big texts without holding the GIL.", -1, methods};

PyMODINIT_FUNC PyInit__textjoin(void) { return PyModule_Create(&moduledef); }
