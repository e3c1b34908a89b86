/* SPDX-License-Identifier: Apache-2.0 */
/* knn: queries with known labels, vote ties, k capped at the point count, and bad input. */
#include "check.h"
#include "e3svc/svc.h"

extern const svc_type svc_knn;

static void expect(svc_instance *s, const char *req, const char *want) {
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(svc_knn.handle(s, (const uint8_t *)req, strlen(req), &r, err), SVC_OK);
    if (r.len != strlen(want) || memcmp(r.data, want, r.len) != 0) {
        fprintf(stderr, "request %s: got '%.*s' want '%s'\n", req, (int)r.len, (const char *)r.data, want);
        exit(1);
    }
    svc_buf_free(&r);
}

int main(void) {
    char err[SVC_ERRBUF_LEN];
    svc_instance *s;
    /* Two clusters: "cold" around (0,0), "hot" around (10,10), and one "hot" outlier at (1,1). */
    const char *cfg = "k=3;points=0,0:cold|0,1:cold|1,0:cold|1,1:hot|10,10:hot|10,11:hot|11,10:hot";
    CHECK_EQ_INT(svc_knn.stateful, 0);
    CHECK_EQ_INT(svc_knn.create(cfg, NULL, &s, err), SVC_OK);
    expect(s, "0.1,0.1", "cold\n");       /* neighbours (0,0) (0,1) (1,0): cold 3 */
    expect(s, "0.9 0.9\n", "cold\n");     /* (1,1) hot, then (0,1) (1,0) cold: cold 2-1 */
    expect(s, "10.2,10.4", "hot\n");
    expect(s, "6, 6", "hot\n");           /* d2: (10,10) 32, (10,11) 41, (11,10) 41; (1,1) 50 */
    expect(s, "-100,-100", "cold\n");
    svc_buf r = {0};
    CHECK_EQ_INT(svc_knn.handle(s, (const uint8_t *)"1", 1, &r, err), SVC_ERR);      /* wrong dimension */
    CHECK_EQ_INT(svc_knn.handle(s, (const uint8_t *)"1,x", 3, &r, err), SVC_ERR);    /* not a number */
    CHECK_EQ_INT(svc_knn.export_state(s, &r, err), SVC_OK);
    CHECK_EQ_INT(r.len, 0);
    svc_knn.destroy(s);

    /* k = 2 with one voter each: the label of the nearest wins; k = 4 with 2-2 likewise. */
    CHECK_EQ_INT(svc_knn.create("k=2;points=0:a|3:b|4:a|9:b", NULL, &s, err), SVC_OK);
    expect(s, "1", "a\n");   /* 0 (a, d 1), 3 (b, d 2): 1-1, a is nearer */
    expect(s, "2.9", "b\n"); /* 3 (b), 4 (a): 1-1, b is nearer */
    svc_knn.destroy(s);
    CHECK_EQ_INT(svc_knn.create("k=4;points=0:a|3:b|4:a|9:b", NULL, &s, err), SVC_OK);
    expect(s, "3.2", "b\n"); /* 3 b, 4 a, 0 a, 9 b: 2-2, b's member 3 is nearest */
    svc_knn.destroy(s);
    /* k larger than the point set: everyone votes. */
    CHECK_EQ_INT(svc_knn.create("k=50;points=0:a|1:b|2:b", NULL, &s, err), SVC_OK);
    expect(s, "0", "b\n");
    svc_knn.destroy(s);
    /* 3-D points, default k = 3. */
    CHECK_EQ_INT(svc_knn.create("points=0,0,0:x|0,0,1:x|5,5,5:y|5,5,6:y|5,6,5:y", NULL, &s, err), SVC_OK);
    expect(s, "4,4,4", "y\n");
    expect(s, "0,0,0.4", "x\n"); /* x, x, then a y: 2-1 */
    svc_knn.destroy(s);

    CHECK_EQ_INT(svc_knn.create("", NULL, &s, err), SVC_ERR);                    /* no points */
    CHECK_EQ_INT(svc_knn.create("points=1,2:a|3:b", NULL, &s, err), SVC_ERR);    /* mixed dimensions */
    CHECK_EQ_INT(svc_knn.create("points=1,2", NULL, &s, err), SVC_ERR);          /* no label */
    CHECK_EQ_INT(svc_knn.create("points=1,q:a", NULL, &s, err), SVC_ERR);        /* bad number */
    CHECK_EQ_INT(svc_knn.create("k=0;points=1:a", NULL, &s, err), SVC_ERR);
    return 0;
}
