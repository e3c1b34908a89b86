/* SPDX-License-Identifier: Apache-2.0 */
/* engine: kvs + ema deployed, thousands of requests from several threads, every reply arrives
 * and is correct; stats match; remove while idle; eng_free drains queued requests. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "check.h"
#include "engine.h"

#define N_THREADS 4
#define N_REQ 2000 /* per thread per service */
#define KVS_ID 1
#define EMA_ID 2

typedef struct expect {
    char want[64];       /* expected response */
    int want_status;     /* ENG_OK / ENG_ERR */
    atomic_int replies;  /* replies received */
    atomic_int ok;       /* 1 if the reply matched */
} expect;

static expect g_exp[3][N_THREADS][N_REQ]; /* [phase: put, get, ema][thread][i] */
static atomic_long g_replies;
static eng *g_eng;

static void on_reply(void *ctx, int status, const uint8_t *resp, size_t len) {
    expect *x = ctx;
    int match = status == x->want_status &&
                (status != ENG_OK || (len == strlen(x->want) && memcmp(resp, x->want, len) == 0));
    atomic_store(&x->ok, match);
    atomic_fetch_add(&x->replies, 1);
    atomic_fetch_add(&g_replies, 1);
}

static void submit_retry(uint32_t id, const char *req, expect *x) {
    char err[ENG_ERRBUF_LEN];
    int rc;
    while ((rc = eng_submit(g_eng, id, (const uint8_t *)req, strlen(req), on_reply, x, err)) == ENG_ERR_FULL)
        sched_yield();
    if (rc != ENG_OK) fprintf(stderr, "submit: %s\n", err);
    CHECK_EQ_INT(rc, ENG_OK);
}

static void wait_replies(long n) {
    while (atomic_load(&g_replies) < n) sched_yield();
}

typedef struct job { int t; int phase; } job;

static void *producer(void *arg) {
    job *j = arg;
    char req[96];
    double ema = 0;
    for (int i = 0; i < N_REQ; i++) {
        expect *x = &g_exp[j->phase][j->t][i];
        x->want_status = ENG_OK;
        if (j->phase == 0) {
            snprintf(req, sizeof(req), "PUT t%dk%d v%d", j->t, i, i * 7);
            snprintf(x->want, sizeof(x->want), "OK");
            submit_retry(KVS_ID, req, x);
        } else if (j->phase == 1) {
            snprintf(req, sizeof(req), "GET t%dk%d", j->t, i);
            snprintf(x->want, sizeof(x->want), "VALUE v%d", i * 7);
            submit_retry(KVS_ID, req, x);
        } else {
            double v = (double)(i % 16); /* small integers: exact halvings, %.17g prints short */
            ema = i == 0 ? v : 0.5 * v + 0.5 * ema;
            snprintf(req, sizeof(req), "UPDATE s%d %g", j->t, v);
            snprintf(x->want, sizeof(x->want), "EMA %.17g", ema);
            submit_retry(EMA_ID, req, x);
        }
    }
    return NULL;
}

static void run_phase(int phase) {
    pthread_t th[N_THREADS];
    job jobs[N_THREADS];
    for (int t = 0; t < N_THREADS; t++) {
        jobs[t] = (job){t, phase};
        CHECK(pthread_create(&th[t], NULL, producer, &jobs[t]) == 0);
    }
    for (int t = 0; t < N_THREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
}

static void check_phase(int phase) {
    for (int t = 0; t < N_THREADS; t++)
        for (int i = 0; i < N_REQ; i++) {
            CHECK_EQ_INT(atomic_load(&g_exp[phase][t][i].replies), 1);
            CHECK(atomic_load(&g_exp[phase][t][i].ok));
        }
}

int main(void) {
    char err[ENG_ERRBUF_LEN];
    CHECK(eng_new(0, 0, err) == NULL);
    g_eng = eng_new(3, 256, err); /* small inboxes: producers meet backpressure */
    CHECK(g_eng);
    CHECK_EQ_INT(eng_workers(g_eng), 3);
    CHECK_EQ_INT(eng_deploy(g_eng, KVS_ID, "kvs", "", 0, err), ENG_OK);          /* all workers */
    CHECK_EQ_INT(eng_deploy(g_eng, EMA_ID, "ema", "alpha=0.5", 1u << 1, err), ENG_OK); /* worker 1 */
    CHECK_EQ_INT(eng_deploy(g_eng, KVS_ID, "kvs", "", 0, err), ENG_ERR);          /* id taken */
    CHECK_EQ_INT(eng_deploy(g_eng, 9, "nope", "", 0, err), ENG_ERR);
    CHECK_EQ_INT(eng_deploy(g_eng, 9, "kvs", "", 1u << 5, err), ENG_ERR);          /* no worker 5 */
    CHECK_EQ_INT(eng_deploy(g_eng, 9, "ema", "alpha=7", 0, err), ENG_ERR);         /* bad config */
    CHECK_EQ_INT(eng_submit(g_eng, 9, (const uint8_t *)"x", 1, on_reply, NULL, err), ENG_ERR);

    /* puts, then ema updates (the puts' replies may still be running), then gets */
    run_phase(0);
    run_phase(2);
    wait_replies(2L * N_THREADS * N_REQ);
    check_phase(0);
    check_phase(2);
    run_phase(1);
    wait_replies(3L * N_THREADS * N_REQ);
    check_phase(1);

    /* a service error reaches the callback as ENG_ERR */
    expect bad = {.want_status = ENG_ERR};
    submit_retry(KVS_ID, "FOO k", &bad);
    wait_replies(3L * N_THREADS * N_REQ + 1);
    CHECK(atomic_load(&bad.ok));

    eng_inst_stats st;
    CHECK_EQ_INT(eng_stats(g_eng, KVS_ID, &st, err), ENG_OK);
    CHECK_EQ_INT(st.completed, 2L * N_THREADS * N_REQ + 1);
    CHECK_EQ_INT(st.errors, 1);
    CHECK_EQ_INT(st.inflight, 0);
    CHECK(strcmp(st.svc_type, "kvs") == 0);
    CHECK(st.avg_exec_us > 0 && st.ema_exec_us > 0);
    CHECK(st.cpu_share >= 0 && st.cpu_share <= 1);
    CHECK_EQ_INT(eng_stats(g_eng, EMA_ID, &st, err), ENG_OK);
    CHECK_EQ_INT(st.completed, (long)N_THREADS * N_REQ);
    CHECK_EQ_INT(st.errors, 0);
    eng_inst_stats all[4];
    CHECK_EQ_INT(eng_stats_all(g_eng, all, 4), 2);
    CHECK_EQ_INT(eng_stats(g_eng, 77, &st, err), ENG_ERR);
    CHECK(eng_busy_fraction(g_eng) >= 0 && eng_busy_fraction(g_eng) <= 1);
    CHECK_EQ_INT(eng_queue_len(g_eng), 0);

    /* remove while idle */
    CHECK_EQ_INT(eng_remove(g_eng, EMA_ID, err), ENG_OK);
    CHECK_EQ_INT(eng_remove(g_eng, EMA_ID, err), ENG_ERR);
    CHECK_EQ_INT(eng_submit(g_eng, EMA_ID, (const uint8_t *)"GET s0", 6, on_reply, NULL, err), ENG_ERR);
    CHECK_EQ_INT(eng_stats_all(g_eng, all, 4), 1);

    /* shutdown drains: queue a burst then free at once; every reply still arrives */
    long before = atomic_load(&g_replies);
    static expect burst[200];
    for (int i = 0; i < 200; i++) {
        burst[i].want_status = ENG_OK;
        snprintf(burst[i].want, sizeof(burst[i].want), "VALUE v%d", (i % N_REQ) * 7);
        char req[32];
        snprintf(req, sizeof(req), "GET t0k%d", i % N_REQ);
        submit_retry(KVS_ID, req, &burst[i]);
    }
    eng_free(g_eng);
    CHECK_EQ_INT(atomic_load(&g_replies) - before, 200);
    for (int i = 0; i < 200; i++) CHECK(atomic_load(&burst[i].ok));
    return 0;
}
