#ifndef TOKVIZ_TEXT_CHECKS_H
#define TOKVIZ_TEXT_CHECKS_H
#include <Python.h>

/* surrogate_at(text) -> index of the first lone surrogate, or -1; see text_checks.c */
PyObject *tv_surrogate_at(PyObject *mod, PyObject *arg);

/* merge_lines_ok(vocab, lines) -> bool; see text_checks.c */
PyObject *tv_merge_lines_ok(PyObject *mod, PyObject *args);

#endif
