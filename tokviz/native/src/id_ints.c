#include "id_ints.h"

#include <stdlib.h>
#include <string.h>

PyObject **tv_id_ints;
static size_t n_ints; /* tv_id_ints holds ids 0 .. n_ints - 1 */
static size_t holds;

int id_ints_acquire(size_t n) {
    if (n > n_ints) {
        PyObject **more = malloc(n * sizeof(PyObject *));
        if (!more) {
            PyErr_NoMemory();
            return -1;
        }
        if (n_ints) memcpy(more, tv_id_ints, n_ints * sizeof(PyObject *));
        for (size_t k = n_ints; k < n; k++) {
            if (!(more[k] = PyLong_FromSize_t(k))) {
                while (k-- > n_ints) Py_DECREF(more[k]);
                free(more);
                return -1;
            }
        }
        free(tv_id_ints);
        tv_id_ints = more;
        n_ints = n;
    }
    holds++;
    return 0;
}

void id_ints_release(void) {
    if (holds == 0 || --holds > 0) return;
    for (size_t k = 0; k < n_ints; k++) Py_DECREF(tv_id_ints[k]);
    free(tv_id_ints);
    tv_id_ints = NULL;
    n_ints = 0;
}
