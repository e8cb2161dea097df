/* Building the atoms of a byte-level BPE vocabulary: see char_atoms.h for what they are and why
 * merging from them gives the same tokens. */
#include "char_atoms.h"

#include <stdlib.h>

#define MAX_ATOMS 65535 /* atom numbers are 16-bit */
#define MAX_LISTS 65535

static inline int is_cont(uint8_t c) { return (c & 0xC0) == 0x80; }

/* The length of the UTF-8 sequence lead byte c starts (0: not a lead byte). */
static inline size_t seq_len(uint8_t c) {
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c < 0xE0) return 2;
    if (c < 0xF0) return 3;
    if (c < 0xF5) return 4;
    return 0;
}

/* The highest rank of the merges that make token `id` from its 2 or 3 bytes alone, or -1 when
 * merging those bytes does not end in that one token. */
static int32_t forming_rank(const tv_atom_source *src, const uint8_t *p, size_t len, int32_t id) {
    const void *ctx = src->ctx;
    int32_t b0 = src->byte_id[p[0]], b1 = src->byte_id[p[1]];
    if (len == 2) {
        int32_t r = src->pair_rank(ctx, b0, b1);
        return r >= 0 && src->merged_of[r] == id ? r : -1;
    }
    int32_t b2 = src->byte_id[p[2]];
    int32_t r01 = src->pair_rank(ctx, b0, b1), r12 = src->pair_rank(ctx, b1, b2), first, second;
    if (r01 < 0 && r12 < 0) return -1;
    if (r01 >= 0 && (r12 < 0 || r01 <= r12)) { /* the lowest rank first, the leftmost on ties */
        first = r01;
        second = src->pair_rank(ctx, src->merged_of[r01], b2);
    } else {
        first = r12;
        second = src->pair_rank(ctx, b0, src->merged_of[r12]);
    }
    if (second < 0 || src->merged_of[second] != id) return -1;
    return first > second ? first : second;
}

/* The fragments of every token, gathered by the part of a character they hold.  A head ends in a
 * character's first 1 or 2 bytes (key: those bytes, as 1 + byte or 257 + 256 * b0 + b1) after
 * some bytes H; a tail starts with a character's last 1 or 2 bytes (the same keys) followed by
 * some bytes T.  Two passes: count per key, then place. */
#define N_KEYS (257 + 65536)

static size_t part_key(const uint8_t *p, size_t len) { return len == 1 ? (size_t)1 + p[0] : (size_t)257 + ((size_t)p[0] << 8 | p[1]); }

typedef struct {
    size_t key;     /* 0: not a fragment */
    uint32_t inner; /* bytes of the character part */
} FragShape;

static FragShape head_shape(const uint8_t *t, size_t len) {
    size_t j = len, tail = 0;
    while (j > 0 && tail < 3 && is_cont(t[j - 1])) {
        j--;
        tail++;
    }
    if (j < 2) return (FragShape){0, 0}; /* no lead byte before the continuation bytes, or no H */
    j--;
    size_t need = seq_len(t[j]);
    if (need < 2 || need > 3 || tail + 1 >= need) return (FragShape){0, 0}; /* complete, or not the BMP */
    return (FragShape){part_key(t + j, tail + 1), (uint32_t)(tail + 1)};
}

static FragShape tail_shape(const uint8_t *t, size_t len) {
    size_t k = 0;
    while (k < len && k < 3 && is_cont(t[k])) k++;
    if (k == 0 || k > 2 || k == len) return (FragShape){0, 0};
    return (FragShape){part_key(t, k), (uint32_t)k};
}

typedef struct {
    uint32_t *count; /* per key, then the next free place */
    uint16_t *list;  /* per key: its list number */
} FragIndex;

void tv_atoms_free(tv_atoms *a) {
    free(a->index);
    free(a->atoms);
    free(a->lists);
    free(a->frags);
    free(a->pairs);
    memset(a, 0, sizeof(*a));
}

/* Heads and tails into lists, numbered from 1 in a->lists (0: the empty list). */
static int build_fragments(tv_atoms *a, const tv_atom_source *src, FragIndex *heads, FragIndex *tails) {
    size_t total = 0;
    for (size_t id = 0; id < src->n_ids; id++) {
        size_t len = src->tok_len[id];
        if (len == UINT32_MAX || len < 2) continue;
        const uint8_t *t = src->blob + src->tok_off[id];
        FragShape h = head_shape(t, len), s = tail_shape(t, len);
        if (h.key) heads->count[h.key]++, total++;
        if (s.key) tails->count[s.key]++, total++;
    }
    size_t n_lists = 1;
    for (int side = 0; side < 2; side++) {
        FragIndex *x = side ? tails : heads;
        for (size_t key = 0; key < N_KEYS; key++)
            if (x->count[key]) n_lists++;
    }
    a->lists = calloc(n_lists, sizeof(tv_frag_list));
    a->frags = malloc((total ? total : 1) * sizeof(tv_frag));
    if (!a->lists || !a->frags) return -1;
    size_t n = 1, place = 0;
    for (int side = 0; side < 2; side++) {
        FragIndex *x = side ? tails : heads;
        for (size_t key = 0; key < N_KEYS; key++) {
            if (!x->count[key]) continue;
            /* (past MAX_LISTS, the characters of a key get no atom: see build_atoms) */
            x->list[key] = n <= MAX_LISTS ? (uint16_t)n : 0;
            a->lists[n].first = (uint32_t)place;
            place += x->count[key];
            x->count[key] = a->lists[n].first;
            n++;
        }
    }
    a->n_lists = n;
    a->n_frags = total;
    for (size_t id = 0; id < src->n_ids; id++) {
        size_t len = src->tok_len[id];
        if (len == UINT32_MAX || len < 2) continue;
        const uint8_t *t = src->blob + src->tok_off[id];
        uint32_t off = (uint32_t)src->tok_off[id];
        FragShape h = head_shape(t, len), s = tail_shape(t, len);
        if (h.key) {
            uint32_t outside = (uint32_t)len - h.inner;
            size_t l = heads->list[h.key];
            a->frags[heads->count[h.key]++] = (tv_frag){off, outside};
            if (l) {
                a->lists[l].count++;
                uint8_t near = t[outside - 1];
                a->lists[l].near[near >> 6] |= 1ULL << (near & 63);
            }
        }
        if (s.key) {
            size_t l = tails->list[s.key];
            a->frags[tails->count[s.key]++] = (tv_frag){off + s.inner, (uint32_t)len - s.inner};
            if (l) {
                a->lists[l].count++;
                uint8_t near = t[s.inner];
                a->lists[l].near[near >> 6] |= 1ULL << (near & 63);
            }
        }
    }
    return 0;
}

/* The filter of character pairs: every two neighbouring whole characters of 2-3 bytes in a token. */
static int build_pairs(tv_atoms *a, const tv_atom_source *src) {
    for (int pass = 0; pass < 2; pass++) {
        size_t found = 0;
        for (size_t id = 0; id < src->n_ids; id++) {
            size_t len = src->tok_len[id];
            if (len == UINT32_MAX || len < 4) continue;
            const uint8_t *t = src->blob + src->tok_off[id];
            int32_t prev = -1;
            for (size_t i = 0; i < len;) {
                size_t l;
                int32_t cp = (int32_t)tv_atoms_char_at(t, i, len, &l);
                if (!cp) {
                    prev = -1;
                    i++;
                    continue;
                }
                if (prev >= 0) {
                    found++;
                    if (pass) {
                        size_t bit = tv_atoms_pair_bit(a, (uint32_t)prev, (uint32_t)cp);
                        a->pairs[bit >> 6] |= 1ULL << (bit & 63);
                    }
                }
                prev = cp;
                i += l;
            }
        }
        if (!pass) {
            int log2 = 12;
            while (((size_t)1 << log2) < found * 16 && log2 < 26) log2++; /* ~6% false hits */
            a->pair_shift = 64 - log2;
            a->pairs = calloc(((size_t)1 << log2) / 64, sizeof(uint64_t));
            if (!a->pairs) return -1;
        }
    }
    return 0;
}

/* The atoms: conditions 1 and 2 of char_atoms.h, with each atom's fragment lists (condition 3 is
 * checked per occurrence). */
static int build_atoms(tv_atoms *a, const tv_atom_source *src, const FragIndex *heads, const FragIndex *tails) {
    int32_t *forming = malloc(src->n_ids * sizeof(int32_t));
    if (!forming) return -1;
    for (size_t id = 0; id < src->n_ids; id++) {
        size_t len = src->tok_len[id];
        const uint8_t *t = src->blob + src->tok_off[id];
        size_t l = 0;
        int whole_char = len >= 2 && len <= 3 && tv_atoms_char_at(t, 0, len, &l) && l == len;
        forming[id] = whole_char ? forming_rank(src, t, len, (int32_t)id) : -1;
    }
    for (size_t k = 0; k < src->n_merges; k++) {
        const int32_t *m = src->merges + 3 * k;
        for (int side = 0; side < 2; side++)
            if (forming[m[side]] >= 0 && m[2] <= forming[m[side]]) forming[m[side]] = -1;
    }
    size_t count = 0;
    for (size_t id = 0; id < src->n_ids; id++) count += forming[id] >= 0;
    a->index = calloc(0x10000, sizeof(uint16_t));
    a->atoms = calloc((count < MAX_ATOMS ? count : MAX_ATOMS) + 1, sizeof(tv_atom));
    if (!a->index || !a->atoms) {
        free(forming);
        return -1;
    }
    size_t n = 1;
    for (size_t id = 0; id < src->n_ids && n <= MAX_ATOMS; id++) {
        if (forming[id] < 0) continue;
        size_t len = src->tok_len[id];
        const uint8_t *t = src->blob + src->tok_off[id];
        size_t keys[4] = {part_key(t, 1), len == 3 ? part_key(t, 2) : 0, part_key(t + len - 1, 1),
                          len == 3 ? part_key(t + 1, 2) : 0};
        tv_atom at = {(int32_t)id, {0, 0}, {0, 0}};
        int dropped = 0; /* a list past MAX_LISTS: no atom */
        for (int q = 0; q < 4; q++) {
            const FragIndex *x = q < 2 ? heads : tails;
            if (!keys[q] || !x->count[keys[q]]) continue; /* no fragments hold that part */
            uint16_t l = x->list[keys[q]];
            if (!l) dropped = 1;
            if (q < 2) at.heads[q] = l;
            else at.tails[q - 2] = l;
        }
        if (dropped) continue;
        a->atoms[n] = at;
        size_t l;
        a->index[tv_atoms_char_at(t, 0, len, &l)] = (uint16_t)n;
        n++;
    }
    a->n_atoms = n - 1;
    free(forming);
    return 0;
}

int tv_atoms_build(tv_atoms *a, const tv_atom_source *src) {
    memset(a, 0, sizeof(*a));
    a->blob = src->blob;
    FragIndex heads = {calloc(N_KEYS, sizeof(uint32_t)), calloc(N_KEYS, sizeof(uint16_t))};
    FragIndex tails = {calloc(N_KEYS, sizeof(uint32_t)), calloc(N_KEYS, sizeof(uint16_t))};
    int rc = -1;
    if (heads.count && heads.list && tails.count && tails.list && build_fragments(a, src, &heads, &tails) == 0 &&
        build_pairs(a, src) == 0) {
        /* (count[key] is now the end of key's fragments: 0 only for a key without any) */
        rc = build_atoms(a, src, &heads, &tails);
    }
    free(heads.count);
    free(heads.list);
    free(tails.count);
    free(tails.list);
    if (rc || !a->n_atoms) {
        const uint8_t *blob = a->blob;
        tv_atoms_free(a);
        a->blob = blob;
        return rc;
    }
    return 0;
}
