/* SPDX-License-Identifier: Apache-2.0 */
/* flow_monitor: count-min error bound over a seeded random stream; round trip. */
#include <math.h>
#include <stdio.h>

#include "svc_check.h"

extern const svc_type svc_flow_monitor;

#define FLOWS 2000
#define PACKETS 100000

static uint64_t rng_state = 12345;
static uint64_t rng(void) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static unsigned long long estimate(svc_instance *inst, int flow) {
    char req[64];
    unsigned long long e = 0;
    snprintf(req, sizeof(req), "QUERY 10.0.%d.%d:80>10.1.0.1:443/6", flow / 256, flow % 256);
    const char *r = svc_check_call(&svc_flow_monitor, inst, req);
    CHECK(r && sscanf(r, "ESTIMATE %llu", &e) == 1);
    return e;
}

int main(void) {
    const svc_type *t = &svc_flow_monitor;
    const char *cfg = "width=272;depth=5;seed=7"; /* eps = e/272 ~ 0.01, delta = e^-5 */
    svc_instance *a = svc_check_create(t, cfg, NULL);
    static unsigned long long truth[FLOWS];
    char req[96];
    for (int i = 0; i < PACKETS; i++) {
        /* skewed: half the packets go to the first 20 flows */
        int f = (rng() & 1) ? (int)(rng() % 20) : (int)(rng() % FLOWS);
        truth[f]++;
        snprintf(req, sizeof(req), "ADD 10.0.%d.%d:80>10.1.0.1:443/6", f / 256, f % 256);
        CHECK_RESP(t, a, req, "OK");
    }
    CHECK_RESP(t, a, "ADD bulk 1000", "OK");
    snprintf(req, sizeof(req), "TOTAL %d", PACKETS + 1000);
    CHECK_RESP(t, a, "TOTAL", req);
    double bound = exp(1.0) / 272.0 * (PACKETS + 1000);
    for (int f = 0; f < FLOWS; f++) {
        unsigned long long e = estimate(a, f);
        CHECK(e >= truth[f]);
        CHECK((double)(e - truth[f]) <= bound);
    }
    CHECK(svc_check_call(t, a, "ADD k notanumber") == NULL);
    CHECK(svc_check_call(t, a, "QUERY") == NULL);

    svc_instance *b = svc_check_migrate(t, a, cfg, NULL);
    for (int f = 0; f < FLOWS; f += 7) CHECK_EQ_INT(estimate(b, f), estimate(a, f));
    snprintf(req, sizeof(req), "TOTAL %d", PACKETS + 1000);
    CHECK_RESP(t, b, "TOTAL", req);
    /* state of a differently seeded sketch is refused */
    svc_buf st = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(t->export_state(a, &st, err), SVC_OK);
    svc_instance *other = svc_check_create(t, "width=272;depth=5;seed=8", NULL);
    CHECK_EQ_INT(t->import_state(other, st.data, st.len, err), SVC_ERR);
    svc_buf_free(&st);
    t->destroy(a);
    t->destroy(b);
    t->destroy(other);
    return 0;
}
