#ifndef TOKVIZ_MODELS_H
#define TOKVIZ_MODELS_H
#include <Python.h>

/* Adds the WordPieceModel and UnigramModel types (models.c) to the module; -1 on error. */
int tv_models_add(PyObject *module);

#endif
