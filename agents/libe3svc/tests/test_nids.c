/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nids: hand-made overlapping matches, escapes and bad configs, then the Aho-Corasick scan
 * against a naive matcher over random texts and random overlapping patterns (fixed seed).
 */
#include <stdint.h>

#include "check.h"
#include "e3svc/svc.h"

extern const svc_type svc_nids;

typedef struct match {
    uint32_t id, offset;
} match;

static uint64_t rng = 0x2545F4914F6CDD1Dull; /* xorshift64 state, fixed seed */
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Scan `text` through the service; returns the listed matches (caller frees) and their count. */
static match *scan(svc_instance *s, const uint8_t *text, size_t len, size_t *n, uint32_t *total) {
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(svc_nids.handle(s, text, len, &r, err), SVC_OK);
    CHECK(r.len >= 8);
    *n = le32(r.data);
    *total = le32(r.data + 4);
    CHECK_EQ_INT(r.len, 8 + 8 * *n);
    match *m = malloc((*n + 1) * sizeof(*m));
    CHECK(m != NULL);
    for (size_t i = 0; i < *n; i++) m[i] = (match){le32(r.data + 8 + 8 * i), le32(r.data + 12 + 8 * i)};
    svc_buf_free(&r);
    return m;
}

static void hand_made(void) {
    char err[SVC_ERRBUF_LEN];
    svc_instance *s;
    size_t n;
    uint32_t total;
    /* "he","she","his","hers" (the Aho-Corasick paper's example) plus a comma, a NUL and a duplicate. */
    CHECK_EQ_INT(svc_nids.create("patterns=he,she,his,hers,a\\,b,\\x00\\x3b,he", NULL, &s, err), SVC_OK);
    const char *text = "ushers";
    match *m = scan(s, (const uint8_t *)text, 6, &n, &total);
    match want[] = {{1, 1}, {0, 2}, {6, 2}, {3, 2}}; /* she@1, he@2 (twice), hers@2 */
    /* sorted by offset then id: she@1, he(0)@2, hers(3)@2, he(6)@2 */
    match sorted[] = {want[0], want[1], want[3], want[2]};
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_INT(total, 4);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(m[i].id, sorted[i].id);
        CHECK_EQ_INT(m[i].offset, sorted[i].offset);
    }
    free(m);
    const uint8_t bin[] = {'x', 'a', ',', 'b', 0, ';'};
    m = scan(s, bin, sizeof(bin), &n, &total);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(m[0].id, 4);
    CHECK_EQ_INT(m[0].offset, 1);
    CHECK_EQ_INT(m[1].id, 5);
    CHECK_EQ_INT(m[1].offset, 4);
    free(m);
    m = scan(s, (const uint8_t *)"", 0, &n, &total);
    CHECK_EQ_INT(n, 0);
    free(m);
    svc_buf st = {0};
    CHECK_EQ_INT(svc_nids.export_state(s, &st, err), SVC_OK);
    CHECK_EQ_INT(st.len, 0);
    svc_nids.destroy(s);

    CHECK_EQ_INT(svc_nids.create("patterns=a,,b", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_nids.create("patterns=a\\q", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_nids.create("patterns=\\x4", NULL, &s, err), SVC_ERR);

    /* More matches than fit in a response: listed is capped, total is not. */
    CHECK_EQ_INT(svc_nids.create("patterns=a", NULL, &s, err), SVC_OK);
    uint8_t *many = malloc(10000);
    CHECK(many != NULL);
    memset(many, 'a', 10000);
    m = scan(s, many, 10000, &n, &total);
    CHECK_EQ_INT(n, 8191);
    CHECK_EQ_INT(total, 10000);
    CHECK_EQ_INT(m[8190].offset, 8190);
    free(m);
    free(many);
    svc_nids.destroy(s);
}

static int cmp_match(const void *a, const void *b) {
    const match *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

#define ROUNDS 40
#define MAXPAT 60
#define TEXTLEN 1500

int main(void) {
    hand_made();
    for (int round = 0; round < ROUNDS; round++) {
        /* Small alphabets make patterns overlap and nest; round 0..9 use 2 letters. */
        int alpha = round < 10 ? 2 : 2 + (int)(next_rand() % 6);
        int np = 1 + (int)(next_rand() % MAXPAT);
        char pats[MAXPAT][9];
        char cfg[MAXPAT * 10 + 16];
        size_t off = (size_t)snprintf(cfg, sizeof(cfg), "patterns=");
        for (int p = 0; p < np; p++) {
            int len = 1 + (int)(next_rand() % 8);
            for (int i = 0; i < len; i++) pats[p][i] = (char)('a' + next_rand() % (uint32_t)alpha);
            pats[p][len] = '\0';
            off += (size_t)snprintf(cfg + off, sizeof(cfg) - off, "%s%s", p ? "," : "", pats[p]);
        }
        uint8_t text[TEXTLEN];
        for (int i = 0; i < TEXTLEN; i++) text[i] = (uint8_t)('a' + next_rand() % (uint32_t)alpha);

        match *want = NULL;
        size_t nw = 0;
        for (int i = 0; i < TEXTLEN; i++) {
            for (int p = 0; p < np; p++) {
                size_t l = strlen(pats[p]);
                if ((size_t)i + l <= TEXTLEN && memcmp(text + i, pats[p], l) == 0) {
                    want = realloc(want, (nw + 1) * sizeof(*want));
                    CHECK(want != NULL);
                    want[nw++] = (match){(uint32_t)p, (uint32_t)i};
                }
            }
        }
        if (nw > 8191) nw = 8191; /* the response lists the first 8191 in (offset, id) order */
        qsort(want, nw, sizeof(*want), cmp_match);

        char err[SVC_ERRBUF_LEN];
        svc_instance *s;
        CHECK_EQ_INT(svc_nids.create(cfg, NULL, &s, err), SVC_OK);
        size_t n;
        uint32_t total;
        match *got = scan(s, text, TEXTLEN, &n, &total);
        CHECK_EQ_INT(n, nw);
        for (size_t i = 0; i < n; i++) {
            CHECK_EQ_INT(got[i].id, want[i].id);
            CHECK_EQ_INT(got[i].offset, want[i].offset);
        }
        free(got);
        free(want);
        svc_nids.destroy(s);
    }
    return 0;
}
