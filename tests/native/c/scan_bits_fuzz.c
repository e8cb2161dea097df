/* Differential fuzzing of scan_bits.h against scan.h: random ASCII texts built from pieces that
 * stress the rules (contractions, case changes, CR/LF and '/' after punctuation, long runs across
 * the 4 KB windows), cut by both for every pattern scan_bits.h covers, whole and from every
 * offset of the first 70 bytes; and the pieces scan_bits.h trusts in a prefix of a text as if the
 * rest were unknown (tv_pieces_init_open).  Prints the first differences and "texts N differ D".
 * usage: scan_bits_fuzz TEXTS SEED */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_bits.h"

static unsigned long long state;
static unsigned next_rand(void) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(state >> 33);
}

static const char *ATOMS[] = {
    "a", "Z", "hello", "HELLO", "Hello", "camelCase", "HTTPServer", "aBC", "'s", "'S", "'LL", "'re", "'ve", "'",
    "''", "'d'", "don't", "DON'T", "x'sY", "'sam", "0", "12", "123456", "1a", "a1", " ", "  ", "\t", "\n", "\r\n",
    "\r", "\x0b\x0c", "\x1c", "\x00", "!", "...", "/", "//", "a/b", ".\n/", "/\n/x", "./\n.", "-->", "(", " (", "x",
    "  \n  ", "\n\n", " \n", " 5", "\t(", "\x7f",
};

static int differs(const uint8_t *buf, ptrdiff_t n, int pattern, long *shown) {
    tv_text t = {buf, 1, n, 1};
    tv_pieces ps;
    tv_pieces_init(&ps, buf, n, pattern);
    for (ptrdiff_t i = 0; i < n;) {
        ptrdiff_t want = tv_scan_any(pattern, &t, i), got = tv_pieces_next(&ps, i);
        if (want != got) {
            if ((*shown)++ < 5) printf("pattern %d, %ld bytes, piece at %ld: scan.h ends it at %ld, scan_bits.h at %ld\n",
                                       pattern, (long)n, (long)i, (long)want, (long)got);
            return 1;
        }
        i = want;
    }
    return 0;
}

/* The pieces tv_pieces_trusted gives for the first m bytes of the text, as the rest were unknown,
 * against scan.h's on the whole text. */
static int open_differs(const uint8_t *buf, ptrdiff_t n, ptrdiff_t m, int pattern, long *shown) {
    tv_text t = {buf, 1, n, 1};
    tv_pieces ps;
    tv_pieces_init_open(&ps, buf, m, pattern);
    for (ptrdiff_t i = 0; i < m;) {
        ptrdiff_t got = tv_pieces_trusted(&ps, i);
        if (got < 0) return 0;
        ptrdiff_t want = tv_scan_any(pattern, &t, i);
        if (want != got) {
            if ((*shown)++ < 5) printf("pattern %d, first %ld of %ld bytes, piece at %ld: scan.h ends it at %ld, "
                                       "scan_bits.h (open) at %ld\n", pattern, (long)m, (long)n, (long)i, (long)want,
                                       (long)got);
            return 1;
        }
        i = want;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    long texts = atol(argv[1]), failures = 0, shown = 0;
    state = (unsigned long long)atol(argv[2]);
    static const int patterns[] = {TV_PAT_GPT2, TV_PAT_CL100K, TV_PAT_O200K, TV_PAT_LLAMA3, TV_PAT_QWEN2, TV_PAT_TEKKEN,
                                   TV_PAT_QWEN35};
    size_t n_atoms = sizeof(ATOMS) / sizeof(*ATOMS);
    enum { CAP = 20000 };
    static uint8_t buf[CAP];
    for (long it = 0; it < texts; it++) {
        ptrdiff_t len = 0, target = next_rand() % 3 == 0 ? next_rand() % 12000 : next_rand() % 80;
        while (len < target) {
            const char *a = ATOMS[next_rand() % n_atoms];
            size_t alen = a[0] ? strlen(a) : 1; /* ("\x00" is one NUL byte) */
            unsigned reps = next_rand() % 8 == 0 ? next_rand() % 300 : 1;
            for (unsigned r = 0; r < reps && len + (ptrdiff_t)alen < CAP; r++, len += (ptrdiff_t)alen) memcpy(buf + len, a, alen);
            if (len + 8 >= CAP) break;
        }
        for (size_t p = 0; p < sizeof(patterns) / sizeof(*patterns); p++)
            for (ptrdiff_t off = 0; off < (len < 70 ? len : 70); off += 1 + (ptrdiff_t)(next_rand() % 23))
                failures += differs(buf + off, len - off, patterns[p], &shown);
        for (size_t p = 0; len > 1 && p < sizeof(patterns) / sizeof(*patterns); p++)
            failures += open_differs(buf, len, 1 + (ptrdiff_t)(next_rand() % (unsigned)(len - 1)), patterns[p], &shown);
    }
    printf("texts %ld differ %ld\n", texts, failures);
    return failures != 0;
}
