/* BERT's normalizer (BertNormalizer) and pre-tokenizer (BertPreTokenizer) in C, on raw text, with
 * the original span of every normalized character; see bert_pre.c.  Pure C: no Python calls, safe
 * to run without the GIL. */
#ifndef TOKVIZ_BERT_PRE_H
#define TOKVIZ_BERT_PRE_H

#include <stddef.h>
#include <stdint.h>

/* BertNormalizer's options (strip: strip_accents as resolved, None following lowercase). */
enum { BERT_CLEAN = 1, BERT_CHINESE = 2, BERT_STRIP = 4, BERT_LOWER = 8 };

enum {
    BERT_OK = 0,
    BERT_NOMEM = 1,
    BERT_SURROGATE = 2,      /* a lone surrogate in the text */
    BERT_NEEDS_REFERENCE = 3 /* left to the Python classes (today only texts of BERT_MAX_CHARS or more) */
};

/* The unicodedata version the tables were generated from ("14.0.0"): the Python side uses the C
 * path only when its own unicodedata is the same (the reference classes read it). */
extern const char *const bert_unicode_version;

/* Longer texts are left to the reference (BERT_NEEDS_REFERENCE). */
#define BERT_MAX_CHARS ((size_t)1 << 28)

/* Code points with, for each, the [start, end) it covers in the original text. */
typedef struct {
    uint32_t *cp;
    int32_t *start, *end;
    size_t n, cap;
} BertChars;

/* Buffers reused from text to text (one per thread). */
typedef struct {
    BertChars stage[3];
    uint32_t *words; /* begin/end index pairs into the normalized text */
    size_t n_words, words_cap;
} BertScratch;

/* The text (`n` characters of PyUnicode kind `kind` at `data`) normalized with `options`, in
 * s->stage[*which]; then its words (BertPreTokenizer: white space removed, punctuation isolated)
 * in s->words.  Returns a BERT_* code. */
int bert_pre_tokenize(int options, int kind, const void *data, size_t n, BertScratch *s, const BertChars **normalized);

void bert_scratch_free(BertScratch *s);

#endif
