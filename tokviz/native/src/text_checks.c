/* Checks of Python strings in C.  Where a text has a lone surrogate, and whether merge lines are
 * well formed: each the fast form of a Python check (tokviz/errors.py check_text,
 * tokviz/formats/_util.py first_bad_merge_line) that stays the definition and names the problem
 * when this one finds one.  And the encoder's TextCheck: may a text be encoded as it is? */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "nfc_tables.h"
#include "text_checks.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* A str's characters as a tv_text (-1 with a Python error: not a str, or too long). */
int tv_text_of(PyObject *obj, tv_text *t) {
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(obj)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(obj) < 0) return -1;
#endif
    if (PyUnicode_GET_LENGTH(obj) >= INT32_MAX / 4) {
        PyErr_SetString(PyExc_ValueError, "text too long for the native encoder (2**29 characters at most)");
        return -1;
    }
    t->data = PyUnicode_DATA(obj);
    t->kind = PyUnicode_KIND(obj);
    t->n = PyUnicode_GET_LENGTH(obj);
    t->ascii = PyUnicode_IS_ASCII(obj);
    return 0;
}

/* ---- the text check ----------------------------------------------------------------------------
 * A tokenizer that normalizes (NFC, NFKC...) and matches added tokens hands the C encoder its raw
 * texts with a TextCheck: a text already in the normal form (the quick check's Yes answer) that
 * holds none of the added tokens' strings is encoded as it is, on the worker threads; any other
 * text is rejected and the Python pipeline prepares it. */

void text_check_free(TextCheck *c) {
    for (Py_ssize_t k = 0; k < c->n_stops; k++) free(c->stops[k]);
    free(c->pairs);
    free(c->simple);
    free(c->stops);
    free(c->stop_len);
    memset(c, 0, sizeof(*c));
    c->form = TV_FORM_NONE;
}

/* A TextCheck from Python arguments: form (-1: none) and a sequence of str (or None). */
int text_check_init(TextCheck *c, int form, PyObject *stops) {
    memset(c, 0, sizeof(*c));
    c->form = TV_FORM_NONE;
    if (form < TV_FORM_NONE || form > TV_FORM_NFKD) {
        PyErr_Format(PyExc_ValueError, "unknown normal form %d", form);
        return -1;
    }
    c->form = form;
    if (stops == NULL || stops == Py_None) return 0;
    PyObject *fast = PySequence_Fast(stops, "stops: expected a sequence of str");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    c->stops = calloc((size_t)n + 1, sizeof(uint32_t *));
    c->stop_len = calloc((size_t)n + 1, sizeof(Py_ssize_t));
    c->pairs = calloc(65536 / 8, 1);
    if (!c->stops || !c->stop_len || !c->pairs) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *s = PySequence_Fast_GET_ITEM(fast, k);
        tv_text t;
        if (tv_text_of(s, &t)) goto fail;
        if (t.n == 0) continue; /* an empty string cannot be matched */
        uint32_t *cps = malloc((size_t)t.n * sizeof(uint32_t));
        if (!cps) {
            PyErr_NoMemory();
            goto fail;
        }
        for (ptrdiff_t i = 0; i < t.n; i++) cps[i] = tv_cp(&t, i);
        c->stops[c->n_stops] = cps;
        c->stop_len[c->n_stops++] = t.n;
        if (cps[0] < 128) {
            int known = (c->first_ascii[cps[0] >> 3] >> (cps[0] & 7)) & 1;
            c->first_ascii[cps[0] >> 3] |= (uint8_t)(1u << (cps[0] & 7));
            if (!known && c->n_firsts < 5) {
                if (c->n_firsts < 4) c->firsts[c->n_firsts] = (uint8_t)cps[0];
                c->n_firsts++;
            }
        } else
            c->first_other = 1;
        for (uint32_t b = 0; b < 256; b++) /* (a one-character string: any character may follow) */
            if (t.n == 1 || (cps[1] & 255) == b) {
                uint32_t bit = (cps[0] & 255) << 8 | b;
                c->pairs[bit >> 3] |= (uint8_t)(1u << (bit & 7));
            }
    }
    Py_DECREF(fast);
    return 0;
fail:
    Py_DECREF(fast);
    text_check_free(c);
    return -1;
}

/* Whether one of the stop strings starts at character i. */
static int stop_at(const TextCheck *c, const tv_text *t, ptrdiff_t i) {
    if (i + 1 < t->n) { /* most places fail on the first two characters: many stops share a first */
        uint32_t bit = (tv_cp(t, i) & 255) << 8 | (tv_cp(t, i + 1) & 255);
        if (!((c->pairs[bit >> 3] >> (bit & 7)) & 1)) return 0;
    }
    for (Py_ssize_t k = 0; k < c->n_stops; k++) {
        Py_ssize_t len = c->stop_len[k];
        if (len > t->n - i) continue;
        const uint32_t *s = c->stops[k];
        Py_ssize_t j = 0;
        while (j < len && tv_cp(t, i + j) == s[j]) j++;
        if (j == len) return 1;
    }
    return 0;
}

static inline uint32_t cp_of_kind(const void *data, int kind, ptrdiff_t i) {
    return kind == 1 ? ((const uint8_t *)data)[i] : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
}

/* The table of the characters of the Basic Multilingual Plane that pass the check alone, for a
 * check kept for many texts (most characters of most text: one bit each, instead of the
 * normalization tables and a branch on ASCII). */
int text_check_prepare(TextCheck *c) {
    if (c->simple) return 0;
    c->simple = calloc(0x10000 / 64, sizeof(uint64_t));
    if (!c->simple) return -1;
    uint32_t yes = c->form == TV_FORM_NONE ? 0 : TV_NORM_YES(c->form);
    for (uint32_t cp = 0; cp < 0x10000; cp++) {
        uint32_t props = cp < 128 || !yes ? 0 : tv_norm_props(cp);
        if (cp < 128 || !yes || ((props & yes) && !(props & TV_NORM_CCC_MASK))) c->simple[cp >> 6] |= 1ULL << (cp & 63);
    }
    for (Py_ssize_t k = 0; k < c->n_stops; k++) {
        uint32_t first = c->stops[k][0];
        if (first < 0x10000) c->simple[first >> 6] &= ~(1ULL << (first & 63));
    }
    return 0;
}

/* text_check_passes for one string kind (a constant once inlined: one tight loop per kind). */
static inline __attribute__((always_inline)) int check_kind(const TextCheck *c, const tv_text *t, int kind) {
    uint32_t yes = c->form == TV_FORM_NONE ? 0 : TV_NORM_YES(c->form);
    int stops = c->n_stops != 0, other_stops = c->first_other;
    unsigned last_ccc = 0;
    const uint64_t *simple = kind <= 2 ? c->simple : NULL;
    for (ptrdiff_t i = 0, n = t->n; i < n; i++) {
        uint32_t cp = cp_of_kind(t->data, kind, i);
        if (simple && (simple[cp >> 6] >> (cp & 63)) & 1) {
            last_ccc = 0;
            continue;
        }
        if (cp < 128) {
            last_ccc = 0; /* ASCII is in every normal form */
            if (stops && (c->first_ascii[cp >> 3] >> (cp & 7)) & 1 && stop_at(c, t, i)) return 0;
            continue;
        }
        if (yes) {
            if (cp >= 0x110000) return 0;
            uint32_t props = tv_norm_props(cp);
            unsigned ccc = props & TV_NORM_CCC_MASK;
            if (!(props & yes) || (ccc && last_ccc > ccc)) return 0;
            last_ccc = ccc;
        }
        if (other_stops && stop_at(c, t, i)) return 0;
    }
    return 1;
}

/* check_kind where only stop strings that start with an ASCII character matter: ASCII text (in
 * every normal form, and other characters cannot start a match in it), or text of 1- or 2-byte
 * characters with no normal form to check and no stop that starts with another character.  Where
 * there are at most 4 such first characters, the places they occur are found 16 bytes at a time. */
static int check_first_ascii(const TextCheck *c, const tv_text *t) {
    if (!c->n_firsts) return 1;
    ptrdiff_t i = 0, n = t->n;
#ifdef __SSE2__
    if (c->n_firsts <= 4) {
        int wide = t->kind == 2; /* (a 2-byte character is one of them only when its high byte is 0) */
        __m128i f[4];
        for (int k = 0; k < 4; k++) {
            uint8_t first = c->firsts[k < c->n_firsts ? k : 0];
            f[k] = wide ? _mm_set1_epi16((short)first) : _mm_set1_epi8((char)first);
        }
        ptrdiff_t step = wide ? 8 : 16;
        for (; i + step <= n; i += step) {
            __m128i v = _mm_loadu_si128((const __m128i *)((const uint8_t *)t->data + i * t->kind));
            __m128i hit = wide ? _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(v, f[0]), _mm_cmpeq_epi16(v, f[1])),
                                              _mm_or_si128(_mm_cmpeq_epi16(v, f[2]), _mm_cmpeq_epi16(v, f[3])))
                               : _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, f[0]), _mm_cmpeq_epi8(v, f[1])),
                                              _mm_or_si128(_mm_cmpeq_epi8(v, f[2]), _mm_cmpeq_epi8(v, f[3])));
            unsigned m = (unsigned)_mm_movemask_epi8(hit);
            if (wide) m &= 0x5555; /* (one bit per character) */
            for (; m; m &= m - 1)
                if (stop_at(c, t, i + (__builtin_ctz(m) >> wide))) return 0;
        }
    }
#endif
    for (; i < n; i++) {
        uint32_t cp = tv_cp(t, i);
        if (cp < 128 && (c->first_ascii[cp >> 3] >> (cp & 7)) & 1 && stop_at(c, t, i)) return 0;
    }
    return 1;
}

/* True when the text is in the normal form by the quick check (every character's property Yes,
 * non-zero combining classes in order) and holds no stop string. */
int text_check_passes(const TextCheck *c, const tv_text *t) {
    if (t->ascii || (t->kind <= 2 && c->form == TV_FORM_NONE && !c->first_other)) return check_first_ascii(c, t);
    switch (t->kind) {
    case 1: return check_kind(c, t, 1);
    case 2: return check_kind(c, t, 2);
    default: return check_kind(c, t, 4);
    }
}

const char tv_norm_unicode_version[] = TV_NORM_UNICODE_VERSION;

/* norm_table() -> bytes: the normalization properties (uint16: combining class, quick-check Yes bits
 * 8 + form) of every code point (for the tests). */
PyObject *tv_norm_table(PyObject *mod, PyObject *unused) {
    PyObject *res = PyBytes_FromStringAndSize(NULL, 0x110000 * sizeof(uint16_t));
    if (!res) return NULL;
    uint16_t *p = (uint16_t *)PyBytes_AS_STRING(res);
    for (uint32_t c = 0; c < 0x110000; c++) p[c] = tv_norm_props(c);
    return res;
}

/* quick_check(form, text, stops=None, prepared=False) -> bool: whether encode(..., form, stops)
 * takes the text; `prepared`: with the table a check kept by the encoder has. */
PyObject *tv_quick_check(PyObject *mod, PyObject *args) {
    int form, prepared = 0;
    PyObject *text, *stops = NULL;
    if (!PyArg_ParseTuple(args, "iU|Op:quick_check", &form, &text, &stops, &prepared)) return NULL;
    tv_text t;
    TextCheck check;
    if (tv_text_of(text, &t) || text_check_init(&check, form, stops)) return NULL;
    if (prepared && text_check_prepare(&check)) {
        text_check_free(&check);
        return PyErr_NoMemory();
    }
    int ok = text_check_passes(&check, &t);
    text_check_free(&check);
    return PyBool_FromLong(ok);
}
