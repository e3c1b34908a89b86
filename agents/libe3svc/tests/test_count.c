/* SPDX-License-Identifier: Apache-2.0 */
/* count: linear-counting estimate of distinct items; duplicates; round trip. */
#include <stdio.h>

#include "svc_check.h"

extern const svc_type svc_count;

static long count_of(svc_instance *inst) {
    const char *r = svc_check_call(&svc_count, inst, "COUNT");
    long n = -1;
    CHECK(r && sscanf(r, "COUNT %ld", &n) == 1);
    return n;
}

int main(void) {
    const svc_type *t = &svc_count;
    svc_instance *a = svc_check_create(t, "bits=65536", NULL);
    CHECK_RESP(t, a, "COUNT", "COUNT 0");
    CHECK_RESP(t, a, "TEST item-1", "0");
    CHECK_RESP(t, a, "ADD item-1", "NEW");
    CHECK_RESP(t, a, "ADD item-1", "SEEN");
    CHECK_RESP(t, a, "TEST item-1", "1");
    CHECK_RESP(t, a, "COUNT", "COUNT 1");
    char req[64];
    for (int i = 2; i <= 5000; i++) {
        snprintf(req, sizeof(req), "ADD item-%d", i);
        CHECK(svc_check_call(t, a, req));
    }
    for (int i = 1; i <= 5000; i += 2) { /* duplicates do not count */
        snprintf(req, sizeof(req), "ADD item-%d", i);
        CHECK_RESP(t, a, req, "SEEN");
    }
    long n = count_of(a);
    CHECK(n > 4900 && n < 5100); /* standard error ~0.3% at t = 0.08 */

    svc_instance *tiny = svc_check_create(t, "bits=64", NULL);
    for (int i = 0; i < 2000; i++) {
        snprintf(req, sizeof(req), "ADD x%d", i);
        CHECK(svc_check_call(t, tiny, req));
    }
    CHECK_RESP(t, tiny, "COUNT", "COUNT 64 SATURATED");
    svc_instance *bad = NULL;
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(t->create("bits=100", NULL, &bad, err), SVC_ERR);

    svc_instance *b = svc_check_migrate(t, a, "bits=65536", NULL);
    CHECK_EQ_INT(count_of(b), n);
    CHECK_RESP(t, b, "TEST item-4999", "1");
    svc_buf st = {0};
    CHECK_EQ_INT(t->export_state(a, &st, err), SVC_OK);
    svc_instance *other = svc_check_create(t, "bits=128", NULL);
    CHECK_EQ_INT(t->import_state(other, st.data, st.len, err), SVC_ERR); /* other shape */
    svc_buf_free(&st);
    t->destroy(a);
    t->destroy(b);
    t->destroy(tiny);
    t->destroy(other);
    return 0;
}
