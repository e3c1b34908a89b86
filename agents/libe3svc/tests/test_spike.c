/* SPDX-License-Identifier: Apache-2.0 */
/* spike: Welford z-scores against a two-pass computation; spike flag; round trip. */
#include <math.h>
#include <stdio.h>

#include "svc_check.h"

extern const svc_type svc_spike;

int main(void) {
    const svc_type *t = &svc_spike;
    svc_instance *a = svc_check_create(t, "threshold=3", NULL);
    double xs[200];
    srand(42);
    for (int i = 0; i < 200; i++) xs[i] = 1000.0 + (double)(rand() % 1000) / 10.0;
    xs[150] = 5000.0; /* a spike */
    char req[64];
    for (int i = 0; i < 200; i++) {
        snprintf(req, sizeof(req), "ADD k %.17g", xs[i]);
        const char *r = svc_check_call(t, a, req);
        CHECK(r);
        double z;
        char verdict[16];
        CHECK(sscanf(r, "Z %lf %15s", &z, verdict) == 2);
        double want = 0.0;
        if (i >= 2) { /* two-pass mean and sample stddev of xs[0..i-1] */
            double mean = 0.0, ss = 0.0;
            for (int j = 0; j < i; j++) mean += xs[j];
            mean /= i;
            for (int j = 0; j < i; j++) ss += (xs[j] - mean) * (xs[j] - mean);
            want = (xs[i] - mean) / sqrt(ss / (i - 1));
        }
        CHECK(fabs(z - want) <= 1e-9 * (1.0 + fabs(want)));
        CHECK(strcmp(verdict, fabs(want) > 3.0 ? "SPIKE" : "NORMAL") == 0);
        if (i == 150) CHECK(strcmp(verdict, "SPIKE") == 0);
    }
    CHECK_RESP(t, a, "GET nope", "NOT_FOUND");
    CHECK(svc_check_call(t, a, "ADD k") == NULL);
    const char *g = svc_check_call(t, a, "GET k");
    CHECK(g && strncmp(g, "N 200 MEAN ", 11) == 0);
    char before[256];
    snprintf(before, sizeof(before), "%s", g);

    svc_instance *b = svc_check_migrate(t, a, "threshold=3", NULL);
    CHECK_RESP(t, b, "GET k", before);
    const char *ra = svc_check_call(t, a, "ADD k 1234.5");
    char za[128];
    snprintf(za, sizeof(za), "%s", ra);
    CHECK_RESP(t, b, "ADD k 1234.5", za);
    t->destroy(a);
    t->destroy(b);
    return 0;
}
