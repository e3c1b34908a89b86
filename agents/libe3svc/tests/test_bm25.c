/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bm25 against a hand-computed example (k1 = 1.2, b = 0.75).
 *
 * Corpus: d1 "the cat sat" (|D| = 3), d2 "the dog sat on the mat" (6), d3 "cat cat dog" (3);
 * N = 3, avgdl = 12 / 3 = 4.
 *   idf(cat) = idf(dog) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6 = 0.4700036292
 *   idf(mat)            = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(8/3) = 0.9808292530
 *   length factor K(|D|) = k1 * (1 - b + b * |D| / avgdl):
 *     K(3) = 1.2 * (0.25 + 0.5625) = 0.975;   K(6) = 1.2 * (0.25 + 1.125) = 1.65
 *   "cat":     d1 = 0.4700036 * 1 * 2.2 / (1 + 0.975) = 0.4700036 * 1.1139241 = 0.523548
 *              d3 = 0.4700036 * 2 * 2.2 / (2 + 0.975) = 0.4700036 * 1.4789916 = 0.695131
 *   "cat dog": d3 = 0.4700036 * (1.4789916 + 1.1139241)           = 1.218680
 *              d1 = 0.523548 (cat only)
 *              d2 = 0.4700036 * 2.2 / (1 + 1.65) = 0.4700036 * 0.8301887 = 0.390192
 *   "mat":     d2 = 0.9808293 * 0.8301887 = 0.814273
 */
#include "check.h"
#include "e3svc/svc.h"

extern const svc_type svc_bm25;

static void expect(svc_instance *s, const char *req, const char *want) {
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(svc_bm25.handle(s, (const uint8_t *)req, strlen(req), &r, err), SVC_OK);
    if (r.len != strlen(want) || (r.len && memcmp(r.data, want, r.len) != 0)) {
        fprintf(stderr, "request %s: got '%.*s' want '%s'\n", req, (int)r.len, (const char *)r.data, want);
        exit(1);
    }
    svc_buf_free(&r);
}

static void expect_err(svc_instance *s, const char *req) {
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN] = "";
    CHECK_EQ_INT(svc_bm25.handle(s, (const uint8_t *)req, strlen(req), &r, err), SVC_ERR);
    CHECK(err[0] != '\0');
    svc_buf_free(&r);
}

int main(void) {
    char err[SVC_ERRBUF_LEN];
    svc_instance *s = NULL;
    CHECK_EQ_INT(svc_bm25.stateful, 0);
    /* Two documents from config, the third by ADD; parameters spelled out at their defaults. */
    CHECK_EQ_INT(svc_bm25.create("k1=1.2;b=0.75;docs=d1:The cat sat|d2:the dog, sat on THE mat", NULL, &s, err),
                 SVC_OK);
    expect(s, "ADD d3 cat cat dog\n", "OK\n");
    expect(s, "QUERY cat", "d3 0.695131\nd1 0.523548\n");
    expect(s, "QUERY cat dog\n", "d3 1.218680\nd1 0.523548\nd2 0.390192\n");
    expect(s, "QUERY cat DOG cat", "d3 1.218680\nd1 0.523548\nd2 0.390192\n"); /* repeats count once */
    expect(s, "QUERY mat", "d2 0.814273\n");
    expect(s, "QUERY zebra", "");
    expect(s, "QUERY", "");
    expect_err(s, "FIND cat");
    expect_err(s, "ADD");
    expect_err(s, "");

    /* Stateless: export writes nothing; import accepts only nothing. */
    svc_buf st = {0};
    CHECK_EQ_INT(svc_bm25.export_state(s, &st, err), SVC_OK);
    CHECK_EQ_INT(st.len, 0);
    CHECK_EQ_INT(svc_bm25.import_state(s, (const uint8_t *)"", 0, err), SVC_OK);
    CHECK_EQ_INT(svc_bm25.import_state(s, (const uint8_t *)"x", 1, err), SVC_ERR);

    /* ADD replaces a document by id: d3 without "cat" leaves d1 alone (N = 3 still, n(cat) = 1). */
    expect(s, "ADD d3 dog dog dog", "OK\n");
    expect(s, "QUERY cat", "d1 1.092569\n"); /* ln(8/3) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 4)) */
    svc_bm25.destroy(s);

    /* top bounds the result count. */
    CHECK_EQ_INT(svc_bm25.create("top=1;docs=a:x y|b:x", NULL, &s, err), SVC_OK);
    svc_buf r = {0};
    CHECK_EQ_INT(svc_bm25.handle(s, (const uint8_t *)"QUERY x", 7, &r, err), SVC_OK);
    CHECK(r.len > 0 && memchr(r.data, '\n', r.len) == r.data + r.len - 1);
    CHECK_MEM(r.data, "b ", 2); /* the shorter document ranks first */
    svc_buf_free(&r);
    svc_bm25.destroy(s);

    /* Bad configs. */
    CHECK_EQ_INT(svc_bm25.create("docs=nocolon", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bm25.create("b=2", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bm25.create("k1=abc", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bm25.create("top=0", NULL, &s, err), SVC_ERR);
    CHECK_EQ_INT(svc_bm25.create(NULL, NULL, &s, err), SVC_OK);
    expect(s, "QUERY x", "");
    svc_bm25.destroy(s);
    return 0;
}
