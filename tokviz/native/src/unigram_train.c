/* Unigram trainer core (tokviz._unigramtrain): seed pieces, EM over the lattices, pruning.
 * tokviz/train/unigram.py holds the definition (its pure-Python `ReferenceLattice` does the same
 * steps the slow way) and everything around them: reading, normalizing, counting, the alphabet,
 * the final vocabulary.
 *
 *   Lattice(symbols, word_offsets, word_freqs, n_chars, char_class, char_digit, space_symbol,
 *           max_piece_length, seed_size, min_count, split_digits, threads)
 *       symbols: int32 bytes, the unique words' characters as alphabet ids (0 .. n_chars-1), one
 *       word after another; word_offsets: int64 bytes (n_words + 1); word_freqs: int64 bytes;
 *       char_class: int32 per character, its script (-1: joins any); char_digit: uint8 per character.
 *   make_seeds() -> number of pieces: the characters (ids 0 .. n_chars-1, never removed), then the
 *       most frequent valid substrings (count * length), found with a suffix array.
 *   em_step() -> (objective, pieces): expected counts over every word's lattice (forward-backward,
 *       on threads), then the Bayesian M-step (digamma); pieces expected less than 0.5 times go.
 *   prune(target) -> pieces: keeps the characters and the pieces whose removal would cost the
 *       likelihood most, `target` pieces in all.
 *   pieces() -> [(symbols tuple, score)] in id order.
 *
 * Every sum that several threads contribute to is kept in fixed point (int64, 2^-20 units) or in
 * integers: addition is then exact and the result is the same for any number of threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEP (-1)
#define FIXED_SCALE 1048576.0
#define LINEAR_MAX_LEN 30      /* longer words go through the log-domain forward-backward */
#define LINEAR_MIN_Z 1e-290    /* below this the linear domain may have lost precision: redo in logs */
#define DROP_BELOW 0.5         /* pieces expected fewer times than this leave after an M-step */
#define MAX_THREADS 64

typedef struct {
    int32_t piece;
    uint32_t start; /* global position in text */
} Edge;

typedef struct {
    PyObject_HEAD
    int32_t *text; /* each word's symbols followed by SEP */
    size_t n_text, n_words, max_word_len;
    size_t *word_start; /* n_words + 1: word k is text[word_start[k] .. word_start[k+1] - 1) */
    int64_t *word_freq;
    int64_t total_freq;
    int32_t n_chars, space_symbol;
    int32_t *char_class;
    uint8_t *char_digit;
    int max_len, split_digits, threads;
    int64_t min_count;
    size_t seed_size;
    /* pieces: chars first (id == symbol), then multi-character pieces */
    size_t n_pieces;
    uint8_t *piece_len;
    double *score;
    size_t *occ_edge; /* an edge of each piece: where its symbols are */
    /* the lattice: edges sorted by (end, start); word k owns word_edges[k] .. word_edges[k+1] */
    Edge *edges;
    size_t n_edges;
    size_t *word_edges;
    int seeded, busy;
} Lattice;

static inline uint32_t edge_end(const Lattice *L, const Edge *e) { return e->start + L->piece_len[e->piece]; }

static double digamma(double x) {
    double result = 0.0;
    while (x < 6.0) {
        result -= 1.0 / x;
        x += 1.0;
    }
    double inv = 1.0 / x, inv2 = inv * inv;
    result += log(x) - 0.5 * inv -
              inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132)))));
    return result;
}

static inline int64_t to_fixed(double x) { return (int64_t)floor(x * FIXED_SCALE + 0.5); }

static inline double log_add(double a, double b) {
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* ---- threads ------------------------------------------------------------------------------- */

typedef void (*JobFn)(void *);
typedef struct {
    JobFn fn;
    void *arg;
} Thunk;

static void *thunk_run(void *p) {
    Thunk *t = p;
    t->fn(t->arg);
    return NULL;
}

/* Runs fn(jobs[0]) .. fn(jobs[n-1]), each on its own thread (the first on this one). */
static void run_parallel(JobFn fn, void *jobs, size_t job_size, int n) {
    pthread_t tids[MAX_THREADS];
    Thunk thunks[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 1; t < n; t++) {
        thunks[t].fn = fn;
        thunks[t].arg = (char *)jobs + (size_t)t * job_size;
        started[t] = pthread_create(&tids[t], NULL, thunk_run, &thunks[t]) == 0;
    }
    fn(jobs);
    for (int t = 1; t < n; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            fn((char *)jobs + (size_t)t * job_size);
    }
}

/* Word ranges of about equal lattice size, one per thread. */
static int split_words(const Lattice *L, size_t *first, int threads) {
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (L->n_edges < 20000) threads = 1;
    size_t w = 0;
    first[0] = 0;
    for (int t = 1; t < threads; t++) {
        size_t goal = L->n_edges / (size_t)threads * (size_t)t;
        while (w < L->n_words && L->word_edges[w] < goal) w++;
        first[t] = w;
    }
    first[threads] = L->n_words;
    return threads;
}

/* ---- validity of a piece --------------------------------------------------------------------- */

/* As sentencepiece's defaults: the word marker only first, no mixing of scripts (kana count as
 * Han; characters of class -1 join anything), with split_digits a digit only alone. */
static int valid_piece(const Lattice *L, const int32_t *s, int len) {
    int32_t prev = -1;
    for (int i = 0; i < len; i++) {
        int32_t c = s[i];
        if (c == SEP) return 0;
        if (c == L->space_symbol) {
            if (i > 0) return 0;
            continue;
        }
        if (L->split_digits && L->char_digit[c] && len > 1) return 0;
        int32_t cls = L->char_class[c];
        if (cls >= 0) {
            if (prev >= 0 && prev != cls) return 0;
            prev = cls;
        }
    }
    return 1;
}

/* ---- seeds ------------------------------------------------------------------------------------ */

/* Stable counting sort of `in` (n positions) by key[pos] (0 .. n_keys-1) into `out`. */
static int counting_sort(const uint32_t *in, uint32_t *out, size_t n, const uint32_t *key, size_t n_keys) {
    size_t *count = calloc(n_keys + 1, sizeof(size_t));
    if (!count) return -1;
    for (size_t i = 0; i < n; i++) count[key[in[i]] + 1]++;
    for (size_t k = 0; k < n_keys; k++) count[k + 1] += count[k];
    for (size_t i = 0; i < n; i++) out[count[key[in[i]]]++] = in[i];
    free(count);
    return 0;
}

/* Positions sorted by their first `depth` symbols (SEP lowest); ties in position order. */
static uint32_t *sort_suffixes(const int32_t *text, size_t n, int32_t n_chars, int depth) {
    uint32_t *sa = malloc(n * sizeof(uint32_t)), *tmp = malloc(n * sizeof(uint32_t));
    uint32_t *rank = malloc(n * sizeof(uint32_t)), *next = malloc(n * sizeof(uint32_t));
    if (!sa || !tmp || !rank || !next) goto fail;
    for (size_t i = 0; i < n; i++) {
        rank[i] = (uint32_t)(text[i] + 1);
        tmp[i] = (uint32_t)i;
    }
    if (counting_sort(tmp, sa, n, rank, (size_t)n_chars + 1) < 0) goto fail;
    size_t n_ranks = (size_t)n_chars + 1;
    for (size_t h = 1; h < (size_t)depth; h <<= 1) {
        /* rank of the h symbols after each position (0 past the end) */
        for (size_t i = 0; i < n; i++) next[i] = i + h < n ? rank[i + h] + 1 : 0;
        for (size_t i = 0; i < n; i++) tmp[i] = (uint32_t)i;
        if (counting_sort(tmp, sa, n, next, n_ranks + 1) < 0) goto fail;
        if (counting_sort(sa, tmp, n, rank, n_ranks) < 0) goto fail;
        uint32_t r = 0;
        uint32_t *new_rank = sa; /* sa is free now: reuse it for the new ranks */
        for (size_t k = 0; k < n; k++) {
            if (k > 0 && (rank[tmp[k]] != rank[tmp[k - 1]] || next[tmp[k]] != next[tmp[k - 1]])) r++;
            new_rank[tmp[k]] = r;
        }
        memcpy(rank, new_rank, n * sizeof(uint32_t));
        memcpy(sa, tmp, n * sizeof(uint32_t));
        n_ranks = (size_t)r + 1;
        if (n_ranks == n) break;
    }
    free(tmp);
    free(rank);
    free(next);
    return sa;
fail:
    free(sa);
    free(tmp);
    free(rank);
    free(next);
    return NULL;
}

typedef struct {
    uint32_t lb, rb; /* suffix array interval (inclusive) */
    uint32_t depth;
    int64_t freq, score;
    const int32_t *sym;
} Cand;

static int cand_cmp(const void *pa, const void *pb) {
    const Cand *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    uint32_t n = a->depth < b->depth ? a->depth : b->depth;
    for (uint32_t i = 0; i < n; i++)
        if (a->sym[i] != b->sym[i]) return a->sym[i] < b->sym[i] ? -1 : 1;
    return a->depth < b->depth ? -1 : a->depth > b->depth ? 1 : 0;
}

static int cand_push(Cand **c, size_t *n, size_t *cap, Cand v) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 1 << 16;
        Cand *p = realloc(*c, nc * sizeof(Cand));
        if (!p) return -1;
        *c = p;
        *cap = nc;
    }
    (*c)[(*n)++] = v;
    return 0;
}

static int cmp_int64_desc(const void *pa, const void *pb) {
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a > b ? -1 : a < b ? 1 : 0;
}

/* The seeds and the first lattice.  Returns 0, or -1 when memory ran out. */
static int make_seeds(Lattice *L) {
    const size_t n = L->n_text;
    const int32_t *text = L->text;
    const int depth_cap = L->max_len + 1;
    int rc = -1;
    uint32_t *sa = NULL, *word_of = NULL;
    uint8_t *lcp = NULL;
    int64_t *wsum = NULL, *char_count = NULL, *scores_tmp = NULL;
    Cand *cands = NULL;
    size_t n_cands = 0, cap_cands = 0;
    size_t *bucket = NULL;

    sa = sort_suffixes(text, n, L->n_chars, depth_cap);
    word_of = malloc(n * sizeof(uint32_t));
    if (!sa || !word_of) goto done;
    for (size_t w = 0; w < L->n_words; w++)
        for (size_t p = L->word_start[w]; p < L->word_start[w + 1]; p++) word_of[p] = (uint32_t)w;
    /* the suffixes starting at a separator sort first: skip them */
    const uint32_t *suf = sa + L->n_words;
    const size_t m = n - L->n_words;
    lcp = malloc(m + 1);
    wsum = malloc((m + 1) * sizeof(int64_t));
    if (!lcp || !wsum) goto done;
    lcp[0] = 0;
    lcp[m] = 0;
    wsum[0] = 0;
    for (size_t k = 0; k < m; k++) {
        wsum[k + 1] = wsum[k] + L->word_freq[word_of[suf[k]]];
        if (k == 0) continue;
        const int32_t *a = text + suf[k - 1], *b = text + suf[k];
        int d = 0;
        while (d < depth_cap && a[d] != SEP && a[d] == b[d]) d++;
        lcp[k] = (uint8_t)d;
    }
    /* Internal nodes of the suffix tree (substrings followed by two different things), bottom-up
     * with a stack of (depth, left bound); and leaves: a word's tail found at one place only. */
    {
        uint32_t st_depth[260], st_lb[260];
        int top = 0;
        st_depth[0] = 0;
        st_lb[0] = 0;
        for (size_t k = 1; k <= m; k++) {
            uint32_t cur = k < m ? lcp[k] : 0;
            uint32_t lb = (uint32_t)(k - 1);
            while (cur < st_depth[top]) {
                uint32_t d = st_depth[top], l = st_lb[top];
                top--;
                lb = l;
                if (d >= 2 && d <= (uint32_t)L->max_len) {
                    int64_t freq = wsum[k] - wsum[l];
                    const int32_t *sym = text + suf[l];
                    if (freq >= L->min_count && valid_piece(L, sym, (int)d)) {
                        Cand c = {l, (uint32_t)(k - 1), d, freq, freq * (int64_t)d, sym};
                        if (cand_push(&cands, &n_cands, &cap_cands, c) < 0) goto done;
                    }
                }
            }
            if (cur > st_depth[top]) {
                top++;
                st_depth[top] = cur;
                st_lb[top] = lb;
            }
        }
        for (size_t k = 0; k < m; k++) {
            uint32_t p = suf[k];
            size_t w = word_of[p];
            uint32_t tail = (uint32_t)(L->word_start[w + 1] - 1 - p);
            uint32_t shared = lcp[k] > lcp[k + 1] ? lcp[k] : lcp[k + 1];
            if (tail < 2 || tail > (uint32_t)L->max_len || shared >= tail) continue;
            int64_t freq = L->word_freq[w];
            if (freq >= L->min_count && valid_piece(L, text + p, (int)tail)) {
                Cand c = {(uint32_t)k, (uint32_t)k, tail, freq, freq * (int64_t)tail, text + p};
                if (cand_push(&cands, &n_cands, &cap_cands, c) < 0) goto done;
            }
        }
    }
    /* the best seed_size - n_chars candidates: find the score threshold first, sort only those */
    size_t budget = L->seed_size > (size_t)L->n_chars ? L->seed_size - (size_t)L->n_chars : 0;
    if (n_cands > budget) {
        size_t keep = 0;
        if (budget > 0) {
            scores_tmp = malloc(n_cands * sizeof(int64_t));
            if (!scores_tmp) goto done;
            for (size_t i = 0; i < n_cands; i++) scores_tmp[i] = cands[i].score;
            qsort(scores_tmp, n_cands, sizeof(int64_t), cmp_int64_desc);
            int64_t threshold = scores_tmp[budget - 1];
            for (size_t i = 0; i < n_cands; i++)
                if (cands[i].score >= threshold) cands[keep++] = cands[i];
        }
        n_cands = keep;
    }
    qsort(cands, n_cands, sizeof(Cand), cand_cmp);
    if (n_cands > budget) n_cands = budget;
    free(lcp); /* not needed any more: room for the edges */
    free(wsum);
    free(word_of);
    lcp = NULL;
    wsum = NULL;
    word_of = NULL;

    /* pieces: characters, then the seeds; initial scores from counts (chars) and count * length */
    L->n_pieces = (size_t)L->n_chars + n_cands;
    L->piece_len = malloc(L->n_pieces);
    L->score = malloc(L->n_pieces * sizeof(double));
    L->occ_edge = malloc(L->n_pieces * sizeof(size_t));
    char_count = calloc((size_t)L->n_chars, sizeof(int64_t));
    if (!L->piece_len || !L->score || !L->occ_edge || !char_count) goto done;
    for (size_t w = 0; w < L->n_words; w++)
        for (size_t p = L->word_start[w]; p + 1 < L->word_start[w + 1]; p++) char_count[text[p]] += L->word_freq[w];
    double total = 0.0;
    for (int32_t c = 0; c < L->n_chars; c++) {
        L->piece_len[c] = 1;
        L->score[c] = (double)(char_count[c] > 0 ? char_count[c] : 1);
    }
    for (size_t i = 0; i < n_cands; i++) {
        L->piece_len[L->n_chars + i] = (uint8_t)cands[i].depth;
        L->score[L->n_chars + i] = (double)cands[i].score;
    }
    for (size_t i = 0; i < L->n_pieces; i++) total += L->score[i];
    double log_total = log(total);
    for (size_t i = 0; i < L->n_pieces; i++) L->score[i] = log(L->score[i]) - log_total;

    /* edges: every position's character, every occurrence of every seed; bucketed by end */
    bucket = calloc(n + 2, sizeof(size_t));
    if (!bucket) goto done;
    size_t n_edges = 0;
    for (size_t p = 0; p < n; p++)
        if (text[p] != SEP) bucket[p + 2]++, n_edges++;
    for (size_t i = 0; i < n_cands; i++)
        for (uint32_t k = cands[i].lb; k <= cands[i].rb; k++) bucket[suf[k] + cands[i].depth + 1]++, n_edges++;
    for (size_t e = 0; e <= n; e++) bucket[e + 1] += bucket[e];
    /* bucket[e] is now the first slot of the edges ending at e */
    L->edges = malloc((n_edges ? n_edges : 1) * sizeof(Edge));
    if (!L->edges) goto done;
    for (size_t p = 0; p < n; p++)
        if (text[p] != SEP) L->edges[bucket[p + 1]++] = (Edge){text[p], (uint32_t)p};
    for (size_t i = 0; i < n_cands; i++)
        for (uint32_t k = cands[i].lb; k <= cands[i].rb; k++)
            L->edges[bucket[suf[k] + cands[i].depth]++] = (Edge){(int32_t)(L->n_chars + i), suf[k]};
    L->n_edges = n_edges;
    /* bucket[e] is now one past the edges ending at e (the first of those ending at e + 1):
     * sort each end's edges by start */
    for (size_t e = 1; e <= n; e++) {
        size_t lo = bucket[e - 1], hi = bucket[e];
        for (size_t a = lo + 1; a < hi; a++) {
            Edge v = L->edges[a];
            size_t b = a;
            while (b > lo && L->edges[b - 1].start > v.start) {
                L->edges[b] = L->edges[b - 1];
                b--;
            }
            L->edges[b] = v;
        }
    }
    L->word_edges = malloc((L->n_words + 1) * sizeof(size_t));
    if (!L->word_edges) goto done;
    for (size_t w = 0; w <= L->n_words; w++) L->word_edges[w] = w < L->n_words ? bucket[L->word_start[w]] : n_edges;
    for (size_t i = 0; i < L->n_pieces; i++) L->occ_edge[i] = SIZE_MAX;
    for (size_t j = 0; j < n_edges; j++)
        if (L->occ_edge[L->edges[j].piece] == SIZE_MAX) L->occ_edge[L->edges[j].piece] = j;
    rc = 0;
done:
    free(sa);
    free(word_of);
    free(lcp);
    free(wsum);
    free(char_count);
    free(scores_tmp);
    free(cands);
    free(bucket);
    return rc;
}

/* ---- removing pieces -------------------------------------------------------------------------- */

/* Keeps the pieces with keep[i] (ids renumbered in order), their edges and scores. */
static int compact(Lattice *L, const uint8_t *keep) {
    int32_t *new_id = malloc(L->n_pieces * sizeof(int32_t));
    if (!new_id) return -1;
    size_t k = 0;
    for (size_t i = 0; i < L->n_pieces; i++) {
        new_id[i] = keep[i] ? (int32_t)k : -1;
        if (keep[i]) {
            L->piece_len[k] = L->piece_len[i];
            L->score[k] = L->score[i];
            L->occ_edge[k] = L->occ_edge[i];
            k++;
        }
    }
    size_t n_kept = k;
    size_t out = 0;
    size_t w = 0;
    for (size_t j = 0; j < L->n_edges; j++) {
        while (w < L->n_words && L->word_edges[w] == j) L->word_edges[w++] = out;
        int32_t p = new_id[L->edges[j].piece];
        if (p < 0) continue;
        if (L->occ_edge[p] == j) L->occ_edge[p] = out;
        L->edges[out].piece = p;
        L->edges[out].start = L->edges[j].start;
        out++;
    }
    while (w <= L->n_words) L->word_edges[w++] = out;
    L->n_edges = out;
    L->n_pieces = n_kept;
    free(new_id);
    return 0;
}

/* ---- E-step -------------------------------------------------------------------------------------- */

typedef struct {
    const Lattice *L;
    const double *prob;
    size_t first, last;
    int64_t *expected; /* fixed point */
    int64_t objective; /* fixed point */
    int rc;
} EJob;

static void e_word_log(const Lattice *L, size_t w, double *alpha, double *beta, int64_t *expected, int64_t *objective) {
    const size_t base = L->word_start[w], len = L->word_start[w + 1] - 1 - base;
    const Edge *e0 = L->edges + L->word_edges[w], *e1 = L->edges + L->word_edges[w + 1];
    const double f = (double)L->word_freq[w];
    for (size_t i = 0; i <= len; i++) alpha[i] = beta[i] = -INFINITY;
    alpha[0] = 0.0;
    beta[len] = 0.0;
    for (const Edge *e = e0; e < e1; e++) {
        size_t s = e->start - base, t = s + L->piece_len[e->piece];
        alpha[t] = log_add(alpha[t], alpha[s] + L->score[e->piece]);
    }
    for (const Edge *e = e1; e-- > e0;) {
        size_t s = e->start - base, t = s + L->piece_len[e->piece];
        beta[s] = log_add(beta[s], L->score[e->piece] + beta[t]);
    }
    const double z = alpha[len];
    for (const Edge *e = e0; e < e1; e++) {
        size_t s = e->start - base, t = s + L->piece_len[e->piece];
        double m = exp(alpha[s] + L->score[e->piece] + beta[t] - z);
        expected[e->piece] += to_fixed(m * f);
    }
    *objective += to_fixed(f * z);
}

static void e_job(void *arg) {
    EJob *j = arg;
    const Lattice *L = j->L;
    double *alpha = malloc((L->max_word_len + 1) * sizeof(double));
    double *beta = malloc((L->max_word_len + 1) * sizeof(double));
    j->expected = calloc(L->n_pieces, sizeof(int64_t));
    if (!alpha || !beta || !j->expected) {
        j->rc = -1;
        goto done;
    }
    for (size_t w = j->first; w < j->last; w++) {
        const size_t base = L->word_start[w], len = L->word_start[w + 1] - 1 - base;
        if (len > LINEAR_MAX_LEN) {
            e_word_log(L, w, alpha, beta, j->expected, &j->objective);
            continue;
        }
        const Edge *e0 = L->edges + L->word_edges[w], *e1 = L->edges + L->word_edges[w + 1];
        for (size_t i = 0; i <= len; i++) alpha[i] = beta[i] = 0.0;
        alpha[0] = 1.0;
        beta[len] = 1.0;
        for (const Edge *e = e0; e < e1; e++) {
            size_t s = e->start - base;
            alpha[s + L->piece_len[e->piece]] += alpha[s] * j->prob[e->piece];
        }
        const double z = alpha[len];
        if (!(z >= LINEAR_MIN_Z)) {
            e_word_log(L, w, alpha, beta, j->expected, &j->objective);
            continue;
        }
        for (const Edge *e = e1; e-- > e0;) {
            size_t s = e->start - base;
            beta[s] += j->prob[e->piece] * beta[s + L->piece_len[e->piece]];
        }
        const double f = (double)L->word_freq[w];
        for (const Edge *e = e0; e < e1; e++) {
            size_t s = e->start - base;
            double m = alpha[s] * j->prob[e->piece] * beta[s + L->piece_len[e->piece]] / z;
            j->expected[e->piece] += to_fixed(m * f);
        }
        j->objective += to_fixed(f * log(z));
    }
done:
    free(alpha);
    free(beta);
}

/* One EM iteration.  Returns 0, or -1 when memory ran out. */
static int em_step(Lattice *L, double *objective) {
    int rc = -1;
    size_t first[MAX_THREADS + 1];
    int threads = split_words(L, first, L->threads);
    EJob jobs[MAX_THREADS];
    double *prob = malloc(L->n_pieces * sizeof(double));
    uint8_t *keep = malloc(L->n_pieces);
    if (!prob || !keep) goto done;
    for (size_t i = 0; i < L->n_pieces; i++) prob[i] = exp(L->score[i]);
    memset(jobs, 0, sizeof jobs);
    for (int t = 0; t < threads; t++) jobs[t] = (EJob){L, prob, first[t], first[t + 1], NULL, 0, 0};
    run_parallel(e_job, jobs, sizeof(EJob), threads);
    int failed = 0;
    for (int t = 0; t < threads; t++) failed |= jobs[t].rc;
    if (failed) goto done;
    int64_t *expected = jobs[0].expected;
    int64_t obj = jobs[0].objective;
    for (int t = 1; t < threads; t++) {
        for (size_t i = 0; i < L->n_pieces; i++) expected[i] += jobs[t].expected[i];
        obj += jobs[t].objective;
    }
    *objective = (double)obj / FIXED_SCALE;
    /* M-step: the Bayesian update of sentencepiece (digamma of the expected counts) */
    double sum = 0.0;
    for (size_t i = 0; i < L->n_pieces; i++) {
        double e = (double)expected[i] / FIXED_SCALE;
        keep[i] = i < (size_t)L->n_chars || e >= DROP_BELOW;
        if (keep[i]) sum += e;
    }
    double log_sum = digamma(sum);
    for (size_t i = 0; i < L->n_pieces; i++) {
        double e = (double)expected[i] / FIXED_SCALE;
        if (keep[i]) L->score[i] = digamma(e < DROP_BELOW ? DROP_BELOW : e) - log_sum;
    }
    rc = compact(L, keep);
done:
    for (int t = 0; t < threads; t++) free(jobs[t].expected);
    free(prob);
    free(keep);
    return rc;
}

/* ---- pruning ------------------------------------------------------------------------------------ */

typedef struct {
    const Lattice *L;
    size_t first, last;
    int64_t *freq, *words, *stamp;
    int rc;
} VJob;

/* Best path of edges e0..e1 over positions base .. base + len, skipping edge `skip`; its edges
 * (last first) into path.  Returns the path length, -1 when there is none. */
static long viterbi(const Lattice *L, const Edge *e0, const Edge *e1, const Edge *skip, size_t base, size_t len,
                    double *best, const Edge **back, const Edge **path) {
    for (size_t i = 0; i <= len; i++) {
        best[i] = -INFINITY;
        back[i] = NULL;
    }
    best[0] = 0.0;
    for (const Edge *e = e0; e < e1; e++) {
        if (e == skip || e->start < base) continue;
        size_t s = e->start - base, t = s + L->piece_len[e->piece];
        if (t > len || best[s] == -INFINITY) continue;
        double v = best[s] + L->score[e->piece];
        if (v > best[t]) {
            best[t] = v;
            back[t] = e;
        }
    }
    if (best[len] == -INFINITY) return -1;
    long n = 0;
    for (size_t at = len; at > 0;) {
        const Edge *e = back[at];
        path[n++] = e;
        at = e->start - base;
    }
    return n;
}

static void v_job(void *arg) {
    VJob *j = arg;
    const Lattice *L = j->L;
    size_t cap = L->max_word_len + 1;
    double *best = malloc(cap * sizeof(double));
    const Edge **back = malloc(cap * sizeof(Edge *)), **path = malloc(cap * sizeof(Edge *));
    j->freq = calloc(L->n_pieces, sizeof(int64_t));
    j->words = calloc(L->n_pieces, sizeof(int64_t));
    j->stamp = malloc(L->n_pieces * sizeof(int64_t));
    if (!best || !back || !path || !j->freq || !j->words || !j->stamp) {
        j->rc = -1;
        goto done;
    }
    for (size_t i = 0; i < L->n_pieces; i++) j->stamp[i] = -1;
    for (size_t w = j->first; w < j->last; w++) {
        size_t base = L->word_start[w], len = L->word_start[w + 1] - 1 - base;
        long n = viterbi(L, L->edges + L->word_edges[w], L->edges + L->word_edges[w + 1], NULL, base, len, best, back,
                         path);
        for (long k = 0; k < n; k++) {
            int32_t p = path[k]->piece;
            j->freq[p] += L->word_freq[w];
            if (j->stamp[p] != (int64_t)w) {
                j->stamp[p] = (int64_t)w;
                j->words[p] += L->word_freq[w];
            }
        }
    }
done:
    free(best);
    free(back);
    free(path);
}

typedef struct {
    const Lattice *L;
    size_t first, last; /* pieces */
    int32_t *alt;       /* per piece: up to piece_len alternatives, -1 after the last */
    uint8_t *splits;    /* the piece's own best segmentation is not itself */
    int rc;
} AJob;

/* For each piece: its best segmentation without itself (the pieces that would take its place). */
static void alt_job(void *arg) {
    AJob *j = arg;
    const Lattice *L = j->L;
    size_t cap = (size_t)L->max_len + 1;
    double *best = malloc(cap * sizeof(double));
    const Edge **back = malloc(cap * sizeof(Edge *)), **path = malloc(cap * sizeof(Edge *));
    if (!best || !back || !path) {
        j->rc = -1;
        goto done;
    }
    for (size_t i = j->first; i < j->last; i++) {
        int32_t *alt = j->alt + i * (size_t)L->max_len;
        alt[0] = -1;
        if (L->piece_len[i] < 2) continue;
        const Edge *own = L->edges + L->occ_edge[i];
        size_t base = own->start, end = base + L->piece_len[i];
        /* the edges ending inside (base, end] sit just around the piece's own edge */
        const Edge *lo = own, *hi = own + 1;
        while (lo > L->edges && edge_end(L, lo - 1) > base) lo--;
        while (hi < L->edges + L->n_edges && edge_end(L, hi) == end) hi++;
        long n = viterbi(L, lo, hi, own, base, L->piece_len[i], best, back, path);
        if (n < 0) continue;
        j->splits[i] = L->score[i] < best[L->piece_len[i]];
        for (long k = 0; k < n; k++) alt[k] = path[n - 1 - k]->piece;
        if (n < L->max_len) alt[n] = -1;
    }
done:
    free(best);
    free(back);
    free(path);
}

typedef struct {
    double loss;
    size_t id;
} Loss;

static int loss_cmp(const void *pa, const void *pb) {
    const Loss *a = pa, *b = pb;
    if (a->loss != b->loss) return a->loss > b->loss ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id ? 1 : 0;
}

static int prune(Lattice *L, size_t target) {
    int rc = -1;
    size_t first[MAX_THREADS + 1];
    int threads = split_words(L, first, L->threads);
    VJob vjobs[MAX_THREADS];
    AJob ajobs[MAX_THREADS];
    memset(vjobs, 0, sizeof vjobs);
    memset(ajobs, 0, sizeof ajobs);
    int32_t *alt = malloc(L->n_pieces * (size_t)L->max_len * sizeof(int32_t));
    uint8_t *splits = calloc(L->n_pieces, 1), *keep = calloc(L->n_pieces, 1);
    Loss *cands = malloc(L->n_pieces * sizeof(Loss));
    if (!alt || !splits || !keep || !cands) goto done;
    for (int t = 0; t < threads; t++) vjobs[t] = (VJob){L, first[t], first[t + 1], NULL, NULL, NULL, 0};
    run_parallel(v_job, vjobs, sizeof(VJob), threads);
    int nt = L->threads < 1 ? 1 : L->threads > MAX_THREADS ? MAX_THREADS : L->threads;
    for (int t = 0; t < nt; t++) {
        size_t from = L->n_pieces * (size_t)t / (size_t)nt, to = L->n_pieces * (size_t)(t + 1) / (size_t)nt;
        ajobs[t] = (AJob){L, from, to, alt, splits, 0};
    }
    run_parallel(alt_job, ajobs, sizeof(AJob), nt);
    int failed = 0;
    for (int t = 0; t < threads; t++) failed |= vjobs[t].rc;
    for (int t = 0; t < nt; t++) failed |= ajobs[t].rc;
    if (failed) goto done;
    int64_t *freq = vjobs[0].freq, *words = vjobs[0].words;
    for (int t = 1; t < threads; t++)
        for (size_t i = 0; i < L->n_pieces; i++) {
            freq[i] += vjobs[t].freq[i];
            words[i] += vjobs[t].words[i];
        }
    double sum = 0.0;
    for (size_t i = 0; i < L->n_pieces; i++) sum += (double)freq[i];
    const double log_sum = log(sum), vsum = (double)L->total_freq;
    size_t n_cands = 0, kept = 0;
    for (size_t i = 0; i < L->n_pieces; i++) {
        if (i < (size_t)L->n_chars) {
            keep[i] = 1;
            kept++;
            continue;
        }
        if (freq[i] == 0 || splits[i]) continue;
        const int32_t *a = alt + i * (size_t)L->max_len;
        size_t n_alt = 0;
        while (n_alt < (size_t)L->max_len && a[n_alt] >= 0) n_alt++;
        if (n_alt == 0) { /* no other segmentation: cannot go */
            keep[i] = 1;
            kept++;
            continue;
        }
        double f = (double)freq[i];
        double logprob_piece = log(f) - log_sum;
        double log_sum_alt = log(sum + f * (double)(n_alt - 1));
        double logprob_alt = 0.0;
        for (size_t k = 0; k < n_alt; k++) logprob_alt += log((double)freq[a[k]] + f) - log_sum_alt;
        double share = (double)words[i] / vsum;
        cands[n_cands++] = (Loss){share * (logprob_piece - logprob_alt), i};
    }
    qsort(cands, n_cands, sizeof(Loss), loss_cmp);
    for (size_t k = 0; k < n_cands && kept < target; k++, kept++) keep[cands[k].id] = 1;
    rc = compact(L, keep);
done:
    for (int t = 0; t < MAX_THREADS; t++) {
        free(vjobs[t].freq);
        free(vjobs[t].words);
        free(vjobs[t].stamp);
    }
    free(alt);
    free(splits);
    free(keep);
    free(cands);
    return rc;
}

/* ---- the Python type ---------------------------------------------------------------------------- */

static void Lattice_dealloc(Lattice *self) {
    free(self->text);
    free(self->word_start);
    free(self->word_freq);
    free(self->char_class);
    free(self->char_digit);
    free(self->piece_len);
    free(self->score);
    free(self->occ_edge);
    free(self->edges);
    free(self->word_edges);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static void *copy_buffer(const Py_buffer *b, size_t item, size_t *count, const char *what) {
    if (b->len % (Py_ssize_t)item) {
        PyErr_Format(PyExc_ValueError, "%s: length is not a multiple of %zu", what, item);
        return NULL;
    }
    *count = (size_t)b->len / item;
    void *p = malloc(b->len ? (size_t)b->len : 1);
    if (!p) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(p, b->buf, (size_t)b->len);
    return p;
}

static int Lattice_init(Lattice *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"symbols", "word_offsets", "word_freqs", "n_chars", "char_class", "char_digit",
                            "space_symbol", "max_piece_length", "seed_size", "min_count", "split_digits",
                            "threads", NULL};
    Py_buffer sym = {0}, offs = {0}, freqs = {0}, cls = {0}, dig = {0};
    int n_chars, space, max_len, split_digits, threads;
    Py_ssize_t seed_size;
    long long min_count;
    int rc = -1;
    int32_t *symbols = NULL;
    int64_t *offsets = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*y*y*iy*y*iinLpi", names, &sym, &offs, &freqs, &n_chars, &cls, &dig,
                                     &space, &max_len, &seed_size, &min_count, &split_digits, &threads))
        return -1;
    if (self->text) {
        PyErr_SetString(PyExc_RuntimeError, "Lattice is already initialised");
        goto done;
    }
    if (max_len < 1 || max_len > 250) {
        PyErr_SetString(PyExc_ValueError, "max_piece_length must be in 1 .. 250");
        goto done;
    }
    size_t n_sym, n_off, n_freq, n_cls, n_dig;
    symbols = copy_buffer(&sym, 4, &n_sym, "symbols");
    if (!symbols) goto done;
    offsets = copy_buffer(&offs, 8, &n_off, "word_offsets");
    if (!offsets) goto done;
    self->word_freq = copy_buffer(&freqs, 8, &n_freq, "word_freqs");
    if (!self->word_freq) goto done;
    self->char_class = copy_buffer(&cls, 4, &n_cls, "char_class");
    if (!self->char_class) goto done;
    self->char_digit = copy_buffer(&dig, 1, &n_dig, "char_digit");
    if (!self->char_digit) goto done;
    if (n_off < 1 || n_freq != n_off - 1 || n_cls != (size_t)n_chars || n_dig != (size_t)n_chars ||
        offsets[0] != 0 || (size_t)offsets[n_off - 1] != n_sym) {
        PyErr_SetString(PyExc_ValueError, "inconsistent corpus arrays");
        goto done;
    }
    for (size_t i = 0; i < n_sym; i++)
        if (symbols[i] < 0 || symbols[i] >= n_chars) {
            PyErr_SetString(PyExc_ValueError, "symbol outside the alphabet");
            goto done;
        }
    self->n_words = n_off - 1;
    self->n_text = n_sym + self->n_words;
    if (self->n_text >= UINT32_MAX - 512) {
        PyErr_SetString(PyExc_ValueError, "corpus too large for the trainer (unique words over 4G characters)");
        goto done;
    }
    self->text = malloc((self->n_text ? self->n_text : 1) * sizeof(int32_t));
    self->word_start = malloc((self->n_words + 1) * sizeof(size_t));
    if (!self->text || !self->word_start) {
        PyErr_NoMemory();
        goto done;
    }
    self->max_word_len = 1;
    self->total_freq = 0;
    for (size_t w = 0; w < self->n_words; w++) {
        size_t a = (size_t)offsets[w], b = (size_t)offsets[w + 1];
        if (b < a || b > n_sym || self->word_freq[w] < 1) {
            PyErr_SetString(PyExc_ValueError, "bad word offsets or frequencies");
            goto done;
        }
        self->word_start[w] = a + w;
        memcpy(self->text + a + w, symbols + a, (b - a) * sizeof(int32_t));
        self->text[b + w] = SEP;
        if (b - a > self->max_word_len) self->max_word_len = b - a;
        self->total_freq += self->word_freq[w];
    }
    self->word_start[self->n_words] = self->n_text;
    self->n_chars = n_chars;
    self->space_symbol = space;
    self->max_len = max_len;
    self->seed_size = (size_t)seed_size;
    self->min_count = min_count;
    self->split_digits = split_digits;
    self->threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    rc = 0;
done:
    free(symbols);
    free(offsets);
    PyBuffer_Release(&sym);
    PyBuffer_Release(&offs);
    PyBuffer_Release(&freqs);
    PyBuffer_Release(&cls);
    PyBuffer_Release(&dig);
    return rc;
}

static int enter(Lattice *self, int need_seeds) {
    if (!self->text) {
        PyErr_SetString(PyExc_RuntimeError, "Lattice is not initialised");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Lattice is in use by another thread");
        return -1;
    }
    if (need_seeds && !self->seeded) {
        PyErr_SetString(PyExc_RuntimeError, "call make_seeds() first");
        return -1;
    }
    self->busy = 1;
    return 0;
}

static PyObject *Lattice_make_seeds(Lattice *self, PyObject *unused) {
    if (self->seeded) {
        PyErr_SetString(PyExc_RuntimeError, "seeds already made");
        return NULL;
    }
    if (enter(self, 0) < 0) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = make_seeds(self);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (rc < 0) return PyErr_NoMemory();
    self->seeded = 1;
    return PyLong_FromSize_t(self->n_pieces);
}

static PyObject *Lattice_em_step(Lattice *self, PyObject *unused) {
    if (enter(self, 1) < 0) return NULL;
    int rc;
    double objective = 0.0;
    Py_BEGIN_ALLOW_THREADS rc = em_step(self, &objective);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (rc < 0) return PyErr_NoMemory();
    return Py_BuildValue("(dn)", objective, (Py_ssize_t)self->n_pieces);
}

static PyObject *Lattice_prune(Lattice *self, PyObject *arg) {
    Py_ssize_t target = PyLong_AsSsize_t(arg);
    if (target < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "target must be 0 or more");
        return NULL;
    }
    if (enter(self, 1) < 0) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = prune(self, (size_t)target);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (rc < 0) return PyErr_NoMemory();
    return PyLong_FromSize_t(self->n_pieces);
}

static PyObject *Lattice_pieces(Lattice *self, PyObject *unused) {
    if (enter(self, 1) < 0) return NULL;
    self->busy = 0;
    PyObject *out = PyList_New((Py_ssize_t)self->n_pieces);
    if (!out) return NULL;
    for (size_t i = 0; i < self->n_pieces; i++) {
        PyObject *syms;
        if (i < (size_t)self->n_chars) {
            syms = Py_BuildValue("(i)", (int)i);
        } else {
            const Edge *e = self->edges + self->occ_edge[i];
            syms = PyTuple_New(self->piece_len[i]);
            for (int k = 0; syms && k < self->piece_len[i]; k++) {
                PyObject *v = PyLong_FromLong(self->text[e->start + (uint32_t)k]);
                if (!v) {
                    Py_CLEAR(syms);
                    break;
                }
                PyTuple_SET_ITEM(syms, k, v);
            }
        }
        PyObject *item = syms ? Py_BuildValue("(Nd)", syms, self->score[i]) : NULL;
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, item);
    }
    return out;
}

static PyObject *Lattice_get_n_pieces(Lattice *self, void *unused) { return PyLong_FromSize_t(self->n_pieces); }
static PyObject *Lattice_get_n_edges(Lattice *self, void *unused) { return PyLong_FromSize_t(self->n_edges); }

static PyMethodDef Lattice_methods[] = {
    {"make_seeds", (PyCFunction)Lattice_make_seeds, METH_NOARGS, "Seed pieces and the first lattice; returns their number."},
    {"em_step", (PyCFunction)Lattice_em_step, METH_NOARGS, "One EM iteration; returns (objective, pieces)."},
    {"prune", (PyCFunction)Lattice_prune, METH_O, "Keep the `target` pieces whose loss would cost most; returns pieces."},
    {"pieces", (PyCFunction)Lattice_pieces, METH_NOARGS, "[(symbols, score)] in id order."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Lattice_getset[] = {
    {"n_pieces", (getter)Lattice_get_n_pieces, NULL, "number of pieces", NULL},
    {"n_edges", (getter)Lattice_get_n_edges, NULL, "number of lattice edges", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject LatticeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz._unigramtrain.Lattice",
    .tp_basicsize = sizeof(Lattice),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The Unigram trainer's corpus, pieces and lattices (see tokviz/train/unigram.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Lattice_init,
    .tp_dealloc = (destructor)Lattice_dealloc,
    .tp_methods = Lattice_methods,
    .tp_getset = Lattice_getset,
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "tokviz._unigramtrain", "Native core of tokviz's Unigram trainer.", -1, NULL,
};

PyMODINIT_FUNC PyInit__unigramtrain(void) {
    if (PyType_Ready(&LatticeType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&LatticeType);
    if (PyModule_AddObject(m, "Lattice", (PyObject *)&LatticeType) < 0) {
        Py_DECREF(&LatticeType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
