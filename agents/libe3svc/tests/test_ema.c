/* SPDX-License-Identifier: Apache-2.0 */
/* ema: against a hand-computed sequence; export -> import round trip. */
#include "svc_check.h"

extern const svc_type svc_ema;

int main(void) {
    const svc_type *t = &svc_ema;
    svc_instance *a = svc_check_create(t, "alpha=0.5", NULL);
    /* x = 10, 20, 0, 4 with alpha 0.5: 10, 15, 7.5, 5.75 (all exact in binary) */
    CHECK_RESP(t, a, "UPDATE s 10", "EMA 10");
    CHECK_RESP(t, a, "UPDATE s 20", "EMA 15");
    CHECK_RESP(t, a, "UPDATE s 0", "EMA 7.5");
    CHECK_RESP(t, a, "UPDATE s 4", "EMA 5.75");
    CHECK_RESP(t, a, "GET s", "EMA 5.75 N 4");
    CHECK_RESP(t, a, "GET other", "NOT_FOUND");
    CHECK_RESP(t, a, "UPDATE other -2", "EMA -2");
    CHECK(svc_check_call(t, a, "UPDATE s abc") == NULL);
    CHECK(svc_check_call(t, a, "UPDATE s nan") == NULL);
    svc_instance *bad = NULL;
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(t->create("alpha=0", NULL, &bad, err), SVC_ERR);
    CHECK_EQ_INT(t->create("alpha=1.5", NULL, &bad, err), SVC_ERR);

    svc_instance *q = svc_check_create(t, "alpha=0.25", NULL);
    /* alpha 0.25: 8, then 0.25*16 + 0.75*8 = 10, then 0.25*0 + 0.75*10 = 7.5 */
    CHECK_RESP(t, q, "UPDATE k 8", "EMA 8");
    CHECK_RESP(t, q, "UPDATE k 16", "EMA 10");
    CHECK_RESP(t, q, "UPDATE k 0", "EMA 7.5");

    svc_instance *b = svc_check_migrate(t, a, "alpha=0.5", NULL);
    CHECK_RESP(t, b, "GET s", "EMA 5.75 N 4");
    CHECK_RESP(t, b, "GET other", "EMA -2 N 1");
    CHECK_RESP(t, a, "UPDATE s 1.75", "EMA 3.75");
    CHECK_RESP(t, b, "UPDATE s 1.75", "EMA 3.75");
    t->destroy(a);
    t->destroy(b);
    t->destroy(q);
    return 0;
}
