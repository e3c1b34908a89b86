/* SPDX-License-Identifier: Apache-2.0 */
/* api_gateway: authentication; token bucket with an injected clock; round trip. */
#include "svc_check.h"

extern const svc_type svc_api_gateway;

static uint64_t fake_now(void *ctx) { return *(uint64_t *)ctx; }

int main(void) {
    const svc_type *t = &svc_api_gateway;
    uint64_t now = 1000000000ULL;
    svc_env env = {.now = fake_now, .clock_ctx = &now};
    const char *cfg = "keys=alpha-key,beta-key;rate=2;burst=3"; /* 2 tokens/s, burst 3 */
    svc_instance *a = svc_check_create(t, cfg, &env);
    CHECK_RESP(t, a, "wrong-key c1", "UNAUTHORIZED");
    CHECK_RESP(t, a, "alpha-ke c1", "UNAUTHORIZED");
    CHECK_RESP(t, a, "alpha-key2 c1", "UNAUTHORIZED");
    /* burst allowed, then refused */
    CHECK_RESP(t, a, "alpha-key c1", "ALLOW");
    CHECK_RESP(t, a, "beta-key c1", "ALLOW");
    CHECK_RESP(t, a, "alpha-key c1", "ALLOW");
    CHECK_RESP(t, a, "alpha-key c1", "RATE_LIMITED");
    CHECK_RESP(t, a, "alpha-key c2", "ALLOW"); /* buckets are per client */
    /* 0.4 s gives 0.8 token: still refused; 0.5 s in total gives 1 token */
    now += 400000000ULL;
    CHECK_RESP(t, a, "alpha-key c1", "RATE_LIMITED");
    now += 100000000ULL;
    CHECK_RESP(t, a, "alpha-key c1", "ALLOW");
    CHECK_RESP(t, a, "alpha-key c1", "RATE_LIMITED");
    /* a long pause refills only up to burst */
    now += 100ULL * 1000000000ULL;
    svc_instance *b = svc_check_migrate(t, a, cfg, &env);
    for (int i = 0; i < 3; i++) {
        CHECK_RESP(t, a, "alpha-key c1", "ALLOW");
        CHECK_RESP(t, b, "alpha-key c1", "ALLOW");
    }
    CHECK_RESP(t, a, "alpha-key c1", "RATE_LIMITED");
    CHECK_RESP(t, b, "alpha-key c1", "RATE_LIMITED");
    CHECK(svc_check_call(t, a, "alpha-key") == NULL);
    svc_instance *bad = NULL;
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(t->create("rate=1", &env, &bad, err), SVC_ERR); /* no keys */
    CHECK_EQ_INT(t->create("keys=k;rate=0", &env, &bad, err), SVC_ERR);
    t->destroy(a);
    t->destroy(b);
    return 0;
}
