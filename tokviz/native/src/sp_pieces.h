#ifndef TOKVIZ_SP_PIECES_H
#define TOKVIZ_SP_PIECES_H
#include <Python.h>

/* sp_pieces(data: bytes, pos: int) -> (pieces, scores, types, vocab, end); see sp_pieces.c */
PyObject *tv_sp_pieces(PyObject *mod, PyObject *args);

#endif
