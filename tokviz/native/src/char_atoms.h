/* Characters a byte-level BPE merge may start from whole ("atoms"), and the places a piece of
 * them may be cut into parts that merge on their own.
 *
 * Merging a new piece of Chinese text from its bytes spends most of its merges re-forming each
 * character from its 2-3 bytes.  A character c that is a token may instead enter the merge as
 * that one token when, for the merges and vocabulary at hand:
 *   1. merging c's bytes alone makes c;
 *   2. every merge with c as an operand ranks after the merges that make c;
 *   3. no token covers part of c together with a byte next to it in this text ("fragments": a
 *      token ending in c's first byte or two after some bytes H, or starting with c's last byte
 *      or two followed by some bytes T; checked against the bytes around this occurrence).
 * By 3, no merge crosses c's edges before c is whole, so c's own merges commute with the others;
 * by 2, none with c as an operand can happen earlier than it would have: the merges made, and so
 * the tokens, are the same.  Two neighbouring atoms a, b whose bytes no token holds side by side
 * can never end up in one token: the piece is cut between them and each part merged alone.
 *
 * Only characters of 2 or 3 bytes (the BMP) are atoms.  tv_atoms_build reads the tables an
 * encoder has built; the lookups below are what the encoder calls per character.
 */
#ifndef TOKVIZ_CHAR_ATOMS_H
#define TOKVIZ_CHAR_ATOMS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* An atom: its token, and its fragment lists (0: none).  heads[k]: fragments that end in the
 * character's first k + 1 bytes; tails[k]: fragments that start with its last k + 1 bytes. */
typedef struct {
    int32_t id;
    uint16_t heads[2], tails[2];
} tv_atom;

/* Fragments sharing one part of a character: `near` has a bit for every byte some fragment puts
 * next to the character (the last byte of H, the first of T), so most places are cleared by one
 * bit test; the fragments' outside bytes are frags[first .. first + count). */
typedef struct {
    uint64_t near[4];
    uint32_t first, count;
} tv_frag_list;

typedef struct {
    uint32_t off, len; /* the bytes H or T in the encoder's token bytes */
} tv_frag;

typedef struct {
    uint16_t *index; /* code point (< 0x10000) -> atom number, 0: none.  NULL: no atoms at all */
    tv_atom *atoms;  /* atoms[0] unused */
    size_t n_atoms;
    tv_frag_list *lists; /* lists[0]: the empty list */
    size_t n_lists;
    tv_frag *frags;
    size_t n_frags;
    uint64_t *pairs; /* a one-hash bit filter of the character pairs (a << 21 | b) some token holds */
    int pair_shift;  /* 64 - log2(bits of the filter) */
    const uint8_t *blob;
} tv_atoms;

/* What tv_atoms_build reads: every token's bytes, the merges, and the encoder's pair lookup. */
typedef struct {
    const uint8_t *blob;
    const uint64_t *tok_off;
    const uint32_t *tok_len; /* UINT32_MAX: no token of that id */
    size_t n_ids;
    const int32_t *byte_id; /* the token of each byte */
    const int32_t *merged_of; /* the token a merge of rank r makes */
    const int32_t *merges; /* n_merges triples (left, right, rank) */
    size_t n_merges;
    int32_t (*pair_rank)(const void *ctx, int32_t left, int32_t right); /* -1: no such merge */
    const void *ctx;
} tv_atom_source;

/* Build the atoms of a vocabulary (a has no atoms when none qualify).  0, or -1 when out of
 * memory (a is then empty and valid). */
int tv_atoms_build(tv_atoms *a, const tv_atom_source *src);
void tv_atoms_free(tv_atoms *a);

/* The code point of the well-formed character of 2 or 3 bytes at b[i] (of b[0 .. n); its length in
 * *len), or 0 when another character or no well-formed one starts there. */
static inline uint32_t tv_atoms_char_at(const uint8_t *b, size_t i, size_t n, size_t *len) {
    uint8_t c = b[i];
    if (c < 0xC2 || c >= 0xF0) return 0;
    if (c < 0xE0) {
        if (i + 2 > n || (b[i + 1] & 0xC0) != 0x80) return 0;
        *len = 2;
        return (c & 0x1Fu) << 6 | (b[i + 1] & 0x3Fu);
    }
    if (i + 3 > n || (b[i + 1] & 0xC0) != 0x80 || (b[i + 2] & 0xC0) != 0x80) return 0;
    uint32_t cp = (c & 0x0Fu) << 12 | (b[i + 1] & 0x3Fu) << 6 | (b[i + 2] & 0x3Fu);
    if (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000)) return 0; /* overlong, or a surrogate */
    *len = 3;
    return cp;
}

static inline int tv_atoms_near(const uint64_t near[4], uint8_t byte) { return (near[byte >> 6] >> (byte & 63)) & 1; }

/* Whether a head of list l ends at b[i] (the bytes before the character at i). */
static inline int tv_atoms_head_at(const tv_atoms *a, uint16_t l, const uint8_t *b, size_t i) {
    const tv_frag_list *list = &a->lists[l];
    if (!i || !tv_atoms_near(list->near, b[i - 1])) return 0;
    for (uint32_t k = list->first; k < list->first + list->count; k++) {
        const tv_frag *f = &a->frags[k];
        if (f->len <= i && memcmp(b + i - f->len, a->blob + f->off, f->len) == 0) return 1;
    }
    return 0;
}

/* Whether a tail of list l starts at b[j] (the bytes after the character, up to n). */
static inline int tv_atoms_tail_at(const tv_atoms *a, uint16_t l, const uint8_t *b, size_t j, size_t n) {
    const tv_frag_list *list = &a->lists[l];
    if (j >= n || !tv_atoms_near(list->near, b[j])) return 0;
    for (uint32_t k = list->first; k < list->first + list->count; k++) {
        const tv_frag *f = &a->frags[k];
        if (f->len <= n - j && memcmp(b + j, a->blob + f->off, f->len) == 0) return 1;
    }
    return 0;
}

/* The token this occurrence of code point cp (bytes b[i .. i + len), a well-formed character of 2
 * or 3 bytes, in the piece b[0 .. n)) may enter the merge as, or -1. */
static inline int32_t tv_atom_at(const tv_atoms *a, const uint8_t *b, size_t n, size_t i, size_t len, uint32_t cp) {
    uint16_t k = a->index[cp];
    if (!k) return -1;
    const tv_atom *at = &a->atoms[k];
    size_t j = i + len;
    /* (a continuation byte after a whole character: not UTF-8, where the tails do not apply) */
    if (j < n && (b[j] & 0xC0) == 0x80) return -1;
    if ((at->heads[0] | at->heads[1] | at->tails[0] | at->tails[1]) &&
        (tv_atoms_head_at(a, at->heads[0], b, i) || tv_atoms_head_at(a, at->heads[1], b, i) ||
         tv_atoms_tail_at(a, at->tails[0], b, j, n) || tv_atoms_tail_at(a, at->tails[1], b, j, n)))
        return -1;
    return at->id;
}

static inline size_t tv_atoms_pair_bit(const tv_atoms *a, uint32_t first, uint32_t second) {
    return (size_t)((((uint64_t)first << 21 | second) * 0x9E3779B97F4A7C15ULL) >> a->pair_shift);
}

/* False when no token holds character `first` followed by `second` (true may be a false hit). */
static inline int tv_atoms_may_join(const tv_atoms *a, uint32_t first, uint32_t second) {
    size_t bit = tv_atoms_pair_bit(a, first, second);
    return (a->pairs[bit >> 6] >> (bit & 63)) & 1;
}

#endif
