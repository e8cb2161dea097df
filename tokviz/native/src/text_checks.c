/* Checks of Python strings that the readers and check_text run on every text or file, in C:
 * where a text has a lone surrogate, and whether merge lines are well formed.  Each is the fast
 * form of a Python check (tokviz/errors.py check_text, tokviz/formats/_util.py
 * first_bad_merge_line) that stays the definition and names the problem when this one finds one. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "text_checks.h"

/* The index of the first lone surrogate (U+D800..U+DFFF) of a str, or -1: a text without one can be
 * encoded as UTF-8.  (Only strings of 2 or 4 bytes a character can hold one.) */
PyObject *tv_surrogate_at(PyObject *mod, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), i = 0;
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    if (kind == PyUnicode_2BYTE_KIND) {
        const uint16_t *p = data;
        for (; i + 16 <= n; i += 16) { /* (a loop the compiler turns into vector code) */
            unsigned any = 0;
            for (int k = 0; k < 16; k++) any |= (p[i + k] & 0xF800) == 0xD800;
            if (any) break;
        }
        for (; i < n; i++)
            if ((p[i] & 0xF800) == 0xD800) return PyLong_FromSsize_t(i);
    } else if (kind == PyUnicode_4BYTE_KIND) {
        const uint32_t *p = data;
        for (; i + 16 <= n; i += 16) {
            unsigned any = 0;
            for (int k = 0; k < 16; k++) any |= (p[i + k] & 0xFFFFF800u) == 0xD800;
            if (any) break;
        }
        for (; i < n; i++)
            if ((p[i] & 0xFFFFF800u) == 0xD800) return PyLong_FromSsize_t(i);
    }
    return PyLong_FromLong(-1);
}

/* Whether every "a b" merge line is two non-empty tokens joined by one space whose concatenation
 * is a key of vocab (a dict): formats/_util.first_bad_merge_line's checks in one C loop.  False
 * when any line fails (the caller then finds which, and why, in Python). */
PyObject *tv_merge_lines_ok(PyObject *mod, PyObject *args) {
    PyObject *vocab, *lines, *space = NULL, *empty = NULL;
    if (!PyArg_ParseTuple(args, "O!O!:merge_lines_ok", &PyDict_Type, &vocab, &PyList_Type, &lines)) return NULL;
    if (!(space = PyUnicode_FromString(" ")) || !(empty = PyUnicode_FromString(""))) goto fail;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lines); i++) {
        PyObject *line = PyList_GET_ITEM(lines, i);
        if (!PyUnicode_Check(line)) goto no;
        Py_ssize_t n = PyUnicode_GET_LENGTH(line);
        if (n < 3 || PyUnicode_READ_CHAR(line, 0) == ' ' || PyUnicode_READ_CHAR(line, n - 1) == ' ') goto no;
        Py_ssize_t count = PyUnicode_Count(line, space, 0, n);
        if (count != 1) {
            if (count < 0) goto fail;
            goto no;
        }
        PyObject *merged = PyUnicode_Replace(line, space, empty, 1);
        if (!merged) goto fail;
        int found = PyDict_Contains(vocab, merged);
        Py_DECREF(merged);
        if (found < 0) goto fail;
        if (!found) goto no;
    }
    Py_DECREF(space);
    Py_DECREF(empty);
    Py_RETURN_TRUE;
no:
    Py_DECREF(space);
    Py_DECREF(empty);
    Py_RETURN_FALSE;
fail:
    Py_XDECREF(space);
    Py_XDECREF(empty);
    return NULL;
}
