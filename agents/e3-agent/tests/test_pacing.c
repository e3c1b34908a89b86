/* SPDX-License-Identifier: Apache-2.0 */
/* engine pacing (the emulated SmartNIC's slower cores): an instance whose type the pacer slows by
 * f holds its worker f times as long as the same requests take unpaced; the pacer is asked per
 * deployed type; an unpaced type is untouched. */
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"
#include "engine.h"

#define N_REQ 300
#define FACTOR 40.0

static atomic_int g_done;
static char g_asked[4][32];
static int g_n_asked;

static void on_reply(void *ctx, int status, const uint8_t *resp, size_t len) {
    (void)ctx, (void)resp, (void)len;
    CHECK_EQ_INT(status, ENG_OK);
    atomic_fetch_add(&g_done, 1);
}

static double pacer(void *ctx, const char *svc_type) {
    (void)ctx;
    snprintf(g_asked[g_n_asked++ % 4], sizeof(g_asked[0]), "%s", svc_type);
    return strcmp(svc_type, "bm25") == 0 ? FACTOR : 0.5; /* below 1: unpaced */
}

/* Average execution time (us) of N_REQ sequential requests to `id`. */
static double run(eng *e, uint32_t id, const char *req) {
    char err[ENG_ERRBUF_LEN];
    eng_inst_stats before, after;
    CHECK_EQ_INT(eng_stats(e, id, &before, err), ENG_OK);
    atomic_store(&g_done, 0);
    for (int i = 0; i < N_REQ; i++) {
        CHECK_EQ_INT(eng_submit(e, id, (const uint8_t *)req, strlen(req), on_reply, NULL, err), ENG_OK);
        while (atomic_load(&g_done) <= i) sched_yield();
    }
    CHECK_EQ_INT(eng_stats(e, id, &after, err), ENG_OK);
    CHECK_EQ_INT(after.completed - before.completed, N_REQ);
    return (double)(after.busy_ns - before.busy_ns) / N_REQ / 1000.0;
}

int main(void) {
    char err[ENG_ERRBUF_LEN];
    const char *query = "QUERY energy efficient microservices on smartnic servers";
    eng *plain = eng_new(1, 0, err), *paced = eng_new(1, 0, err);
    CHECK(plain && paced);
    eng_set_pacer(paced, pacer, NULL);
    CHECK_EQ_INT(eng_deploy(plain, 1, "bm25", "", 0, err), ENG_OK);
    CHECK_EQ_INT(eng_deploy(paced, 1, "bm25", "", 0, err), ENG_OK);
    CHECK_EQ_INT(eng_deploy(paced, 2, "ema", "", 0, err), ENG_OK);
    CHECK_EQ_INT(g_n_asked, 2);
    CHECK(strcmp(g_asked[0], "bm25") == 0 && strcmp(g_asked[1], "ema") == 0);

    run(plain, 1, query); /* warm caches */
    double base = run(plain, 1, query);
    double slow = run(paced, 1, query);
    printf("bm25: %.2f us unpaced, %.2f us paced (factor %.0f, ratio %.1f)\n", base, slow, FACTOR, slow / base);
    /* Paced time is never below FACTOR x the request's own handle time; the margin absorbs the
     * unpaced run being measured separately on a noisy machine. */
    CHECK(slow >= 0.3 * FACTOR * base);
    double ema = run(paced, 2, "UPDATE s 1.5");
    CHECK(ema < 0.3 * FACTOR * base); /* factor 0.5 means unpaced, not faster */
    eng_free(plain);
    eng_free(paced);
    return 0;
}
