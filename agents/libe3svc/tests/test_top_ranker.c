/* SPDX-License-Identifier: Apache-2.0 */
/*
 * top_ranker: TOP k against a full sort of random data (fixed seed, many equal scores), replace
 * and delete, response truncation, bad requests, and an export -> import round trip.
 */
#include <stdint.h>

#include "svc_check.h"

extern const svc_type svc_top_ranker;
#define T (&svc_top_ranker)

#define NITEMS 1500

typedef struct ref_item {
    char name[16]; /* "i<number>" */
    int tenths;    /* score * 10 */
    int live;      /* 1 unless deleted */
} ref_item;

static uint64_t rng = 0xD1B54A32D192ED03ull; /* xorshift64 state, fixed seed */
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static int cmp_ref(const void *a, const void *b) {
    const ref_item *x = a, *y = b;
    if (x->tenths != y->tenths) return x->tenths > y->tenths ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The expected "TOP k" response, from a full qsort of the live items. */
static char *expected_top(const ref_item *items, size_t n, size_t k) {
    ref_item *s = malloc(n * sizeof(*s));
    char *out = malloc(SVC_MAX_RESPONSE + 1);
    CHECK(s && out);
    size_t m = 0, len = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].live) s[m++] = items[i];
    qsort(s, m, sizeof(*s), cmp_ref);
    out[0] = '\0';
    for (size_t i = 0; i < m && i < k; i++) {
        char line[64], num[32];
        /* shortest round-trip form, as the service prints it */
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(num, sizeof(num), "%.*g", prec, s[i].tenths / 10.0);
            if (strtod(num, NULL) == s[i].tenths / 10.0) break;
        }
        int l = snprintf(line, sizeof(line), "%s %s\n", s[i].name, num);
        CHECK(len + (size_t)l <= SVC_MAX_RESPONSE);
        memcpy(out + len, line, (size_t)l + 1);
        len += (size_t)l;
    }
    free(s);
    return out;
}

static void check_tops(svc_instance *s, const ref_item *items, size_t n) {
    const size_t ks[] = {0, 1, 2, 7, 50, 333, NITEMS - 1, NITEMS, NITEMS * 3};
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
        char req[32];
        snprintf(req, sizeof(req), "TOP %zu", ks[i]);
        char *want = expected_top(items, n, ks[i]);
        CHECK_RESP(T, s, req, want);
        free(want);
    }
}

int main(void) {
    static ref_item items[NITEMS];
    svc_instance *s = svc_check_create(T, "", NULL);
    CHECK_EQ_INT(T->stateful, 1);
    CHECK_RESP(T, s, "TOP 5", ""); /* empty ranker */
    char req[64];
    for (int i = 0; i < NITEMS; i++) {
        snprintf(items[i].name, sizeof(items[i].name), "i%u", next_rand() % 1000000);
        for (int j = 0; j < i; j++) /* names are unique */
            if (strcmp(items[j].name, items[i].name) == 0) {
                snprintf(items[i].name, sizeof(items[i].name), "u%d", i);
                break;
            }
        items[i].tenths = (int)(next_rand() % 400) - 100; /* -10.0 .. 29.9: many ties */
        items[i].live = 1;
        CHECK((size_t)snprintf(req, sizeof(req), "ADD %s %.1f\n", items[i].name, items[i].tenths / 10.0) < sizeof(req));
        CHECK_RESP(T, s, req, "OK\n");
    }
    check_tops(s, items, NITEMS);

    /* Replace some scores, delete others. */
    for (int i = 0; i < NITEMS; i += 7) {
        items[i].tenths = (int)(next_rand() % 50) * 10;
        CHECK((size_t)snprintf(req, sizeof(req), "ADD %s %d", items[i].name, items[i].tenths / 10) < sizeof(req));
        CHECK_RESP(T, s, req, "OK\n");
    }
    for (int i = 3; i < NITEMS; i += 11) {
        items[i].live = 0;
        snprintf(req, sizeof(req), "DEL %s", items[i].name);
        CHECK_RESP(T, s, req, "OK\n");
    }
    CHECK_RESP(T, s, "DEL nosuch", "NOT_FOUND\n");
    check_tops(s, items, NITEMS);

    /* Round trip: a fresh instance that imports the state answers identically, also after more updates. */
    svc_instance *m = svc_check_migrate(T, s, "", NULL);
    check_tops(m, items, NITEMS);
    CHECK_RESP(T, m, "ADD zz 1000", "OK\n");
    CHECK_RESP(T, s, "ADD zz 1000", "OK\n");
    CHECK_RESP(T, m, "TOP 1", "zz 1000\n");
    char *a = strdup(svc_check_call(T, s, "TOP 40"));
    CHECK_RESP(T, m, "TOP 40", a);
    free(a);
    /* A corrupt state is refused and leaves the instance as it was. */
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(T->import_state(m, (const uint8_t *)"garbage", 7, err), SVC_ERR);
    CHECK_RESP(T, m, "TOP 1", "zz 1000\n");
    T->destroy(m);
    T->destroy(s);

    /* Exact scores print back exactly; long responses stop at a whole line. */
    s = svc_check_create(T, NULL, NULL);
    CHECK_RESP(T, s, "ADD a 0.1", "OK\n");
    CHECK_RESP(T, s, "ADD b 1e300", "OK\n");
    CHECK_RESP(T, s, "ADD c -2.5", "OK\n");
    CHECK_RESP(T, s, "TOP 3", "b 1e+300\na 0.1\nc -2.5\n");
    char name[256];
    memset(name, 'x', 250);
    for (int i = 0; i < 400; i++) {
        snprintf(name + 250, 6, "%05u", (unsigned)i % 100000u);
        char big[300];
        snprintf(big, sizeof(big), "ADD %s %d", name, i);
        CHECK_RESP(T, s, big, "OK\n");
    }
    const char *r = svc_check_call(T, s, "TOP 400");
    CHECK(r != NULL);
    size_t rl = strlen(r);
    CHECK(rl <= SVC_MAX_RESPONSE && rl > SVC_MAX_RESPONSE - 300 && r[rl - 1] == '\n');
    /* Bad requests. */
    CHECK(svc_check_call(T, s, "ADD x") == NULL);
    CHECK(svc_check_call(T, s, "ADD x nan") == NULL);
    CHECK(svc_check_call(T, s, "ADD x 1 2") == NULL);
    CHECK(svc_check_call(T, s, "TOP -1") == NULL);
    CHECK(svc_check_call(T, s, "TOP") == NULL);
    CHECK(svc_check_call(T, s, "SORT 3") == NULL);
    CHECK(svc_check_call(T, s, "") == NULL);
    T->destroy(s);
    return 0;
}
