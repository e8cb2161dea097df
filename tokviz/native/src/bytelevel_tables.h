#ifndef TOKVIZ_BYTELEVEL_TABLES_H
#define TOKVIZ_BYTELEVEL_TABLES_H
#include <Python.h>

/* byte_level_tables(vocab, ranks, by_line) -> (tokens, quads) or None; see bytelevel_tables.c */
PyObject *tv_byte_level_tables(PyObject *mod, PyObject *args);

/* tiktoken_table(data) -> (ranks, vocab) or None; see bytelevel_tables.c */
PyObject *tv_tiktoken_table(PyObject *mod, PyObject *arg);

#endif
