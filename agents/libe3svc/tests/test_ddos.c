/* SPDX-License-Identifier: Apache-2.0 */
/* ddos: entropy of known distributions; attack flag; sliding window; round trip. */
#include <math.h>
#include <stdio.h>

#include "svc_check.h"

extern const svc_type svc_ddos;

static double entropy_of(const char *r, char *verdict) {
    double h = -1;
    CHECK(r && sscanf(r, "ENTROPY %lf %15s", &h, verdict) == 2);
    return h;
}

int main(void) {
    const svc_type *t = &svc_ddos;
    char req[64], verdict[16];
    /* uniform over 2^k sources -> k bits, for k = 0..8 */
    for (int k = 0; k <= 8; k++) {
        int w = 1 << 10;
        snprintf(req, sizeof(req), "window=%d;threshold=2.5", w);
        svc_instance *a = svc_check_create(t, req, NULL);
        const char *r = NULL;
        for (int i = 0; i < w; i++) {
            int s = i % (1 << k);
            snprintf(req, sizeof(req), "PKT 10.0.%d.%d", s / 256, s % 256);
            r = svc_check_call(t, a, req);
        }
        double h = entropy_of(r, verdict);
        CHECK(fabs(h - k) < 1e-9);
        CHECK(strcmp(verdict, k < 3 ? "ATTACK" : "NORMAL") == 0);
        t->destroy(a);
    }
    /* the window slides: a flood from one source replaces a uniform mix */
    svc_instance *a = svc_check_create(t, "window=256;threshold=2", NULL);
    for (int i = 0; i < 255; i++) {
        snprintf(req, sizeof(req), "PKT 192.168.%d.%d", i / 16, i % 16);
        CHECK(svc_check_call(t, a, req));
    }
    entropy_of(svc_check_call(t, a, "QUERY"), verdict);
    CHECK(strcmp(verdict, "NORMAL") == 0); /* window not yet full */
    double h = entropy_of(svc_check_call(t, a, "PKT 192.168.15.15"), verdict);
    CHECK(fabs(h - 8.0) < 1e-9);
    CHECK(strcmp(verdict, "NORMAL") == 0);
    svc_instance *mid = NULL;
    for (int i = 0; i < 256; i++) {
        h = entropy_of(svc_check_call(t, a, "PKT 6.6.6.6"), verdict);
        if (i == 100) mid = svc_check_migrate(t, a, "window=256;threshold=2", NULL);
    }
    CHECK(fabs(h) < 1e-9); /* single source -> 0 */
    CHECK(strcmp(verdict, "ATTACK") == 0);
    CHECK(svc_check_call(t, a, "PKT 1.2.3") == NULL);
    CHECK(svc_check_call(t, a, "PKT 1.2.3.256") == NULL);

    /* the migrated instance continues identically */
    svc_instance *b = svc_check_migrate(t, a, "window=256;threshold=2", NULL);
    char ra[128];
    snprintf(ra, sizeof(ra), "%s", svc_check_call(t, a, "PKT 7.7.7.7"));
    CHECK_RESP(t, b, "PKT 7.7.7.7", ra);
    for (int i = 101; i < 256; i++) CHECK(svc_check_call(t, mid, "PKT 6.6.6.6"));
    snprintf(ra, sizeof(ra), "%s", svc_check_call(t, mid, "PKT 7.7.7.7"));
    CHECK_RESP(t, b, "QUERY", ra);
    t->destroy(a);
    t->destroy(b);
    t->destroy(mid);
    return 0;
}
