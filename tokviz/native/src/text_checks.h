#ifndef TOKVIZ_TEXT_CHECKS_H
#define TOKVIZ_TEXT_CHECKS_H
#include <Python.h>

#include "scan.h"

/* surrogate_at(text) -> index of the first lone surrogate, or -1; see text_checks.c */
PyObject *tv_surrogate_at(PyObject *mod, PyObject *arg);

/* merge_lines_ok(vocab, lines) -> bool; see text_checks.c */
PyObject *tv_merge_lines_ok(PyObject *mod, PyObject *args);

/* A str's characters as a tv_text (-1 with a Python error). */
int tv_text_of(PyObject *obj, tv_text *t);

/* The encoder's TextCheck: a text in normal form `form` (by the quick check) that holds none of
 * the stop strings (the added tokens') may be encoded as it is; see text_checks.c. */
typedef struct {
    int form;         /* TV_FORM_NFC ... TV_FORM_NFKD, or TV_FORM_NONE */
    Py_ssize_t n_stops;
    uint32_t **stops; /* the code points of each string that must not occur */
    Py_ssize_t *stop_len;
    uint8_t first_ascii[16]; /* bit c: some stop string starts with ASCII character c */
    uint8_t firsts[4];       /* those characters when there are at most 4 (n_firsts), for ASCII text */
    int n_firsts;            /* (5: more) */
    int first_other;         /* some stop string starts with a non-ASCII character */
    uint8_t *pairs; /* bit (a & 255) << 8 | (b & 255): a stop string may start with characters a, b */
    uint64_t *simple; /* bit c (c < 0x10000): character c passes alone (Yes in the form, combining
                         class 0, no stop starts with it); NULL until text_check_prepare */
} TextCheck;

enum { TV_FORM_NONE = -1, TV_FORM_NFC = 0, TV_FORM_NFD = 1, TV_FORM_NFKC = 2, TV_FORM_NFKD = 3 };

int text_check_init(TextCheck *c, int form, PyObject *stops); /* form -1: none; stops: str or None */
void text_check_free(TextCheck *c);
int text_check_prepare(TextCheck *c); /* for a check kept for many texts: -1 with no memory */
int text_check_passes(const TextCheck *c, const tv_text *t);
static inline int text_check_active(const TextCheck *c) { return c && (c->form != TV_FORM_NONE || c->n_stops); }

extern const char tv_norm_unicode_version[]; /* the Unicode version of the normalization tables */

/* norm_table() -> bytes and quick_check(form, text, stops=None, prepared=False) -> bool, for the tests */
PyObject *tv_norm_table(PyObject *mod, PyObject *unused);
PyObject *tv_quick_check(PyObject *mod, PyObject *args);

#endif
