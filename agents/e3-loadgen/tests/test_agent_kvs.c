/* SPDX-License-Identifier: Apache-2.0 */
/* Against the real thing: a kvs instance in e3-agent's engine behind its UDP node (chan.h), as
 * an agent deploys one. Checks that our framing is the agent's, that ok and error replies are
 * told apart, that a multi-line payload ("\n" lines) goes through, and that "{seq}" gives every
 * request its own number: as many keys as requests sent. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "chan.h"
#include "check.h"
#include "engine.h"
#include "loadgen.h"

static lg_result run(uint16_t port, const char *payload) {
    char err[LG_ERRBUF_LEN];
    lg_config c = {.mode = LG_MODE_CLOSED, .connections = 8, .duration_s = 0.5, .warmup_s = 0.1,
                   .payload = (const uint8_t *)payload, .payload_len = strlen(payload), .timeout_ms = 1000,
                   .instance_id = 1}; /* a bare engine knows no port -> instance map: name it */
    CHECK_EQ_INT(lg_resolve("127.0.0.1", port, &c.target, err), LG_OK);
    lg_result r;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    return r;
}

typedef struct answer {
    atomic_int done;
    int status;
    char text[64];
} answer;

static void on_answer(void *ctx, int status, const uint8_t *resp, size_t len) {
    answer *a = ctx;
    a->status = status;
    snprintf(a->text, sizeof(a->text), "%.*s", (int)len, (const char *)resp);
    atomic_store(&a->done, 1);
}

/* One request to instance 1 behind 127.0.0.1:port; its reply text into `a`. */
static void ask(uint16_t port, const char *req, answer *a) {
    char err[CHAN_ERRBUF_LEN];
    chan_udp_node *client = chan_udp_node_new("127.0.0.1", 0, NULL, NULL, err);
    CHECK(client);
    chan *c = chan_udp_open(client, "127.0.0.1", port, err);
    CHECK(c);
    CHECK_EQ_INT(chan_send(c, 1, (const uint8_t *)req, strlen(req), on_answer, a, err), CHAN_OK);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000 && !atomic_load(&a->done); i++) nanosleep(&ms, NULL);
    CHECK(atomic_load(&a->done));
    chan_close(c);
    chan_udp_node_free(client);
}

int main(void) {
    char err[CHAN_ERRBUF_LEN];
    eng *e = eng_new(2, 0, err);
    CHECK(e);
    CHECK_EQ_INT(eng_deploy(e, 1, "kvs", "", 0, err), ENG_OK);
    chan_udp_node *n = chan_udp_node_new("127.0.0.1", 0, chan_eng_deliver, e, err);
    CHECK(n);
    uint16_t port = chan_udp_node_port(n);

    lg_result r = run(port, "GET k");
    fprintf(stderr, "kvs GET, closed loop 8, 0.5 s: %llu completed, %.0f req/s, p50 %.1f us, p99 %.1f us\n",
            (unsigned long long)r.completed, r.throughput_rps, r.latency.p50_us, r.latency.p99_us);
    CHECK(r.completed > 0);
    CHECK_EQ_INT(r.errors, 0);
    CHECK_EQ_INT(r.timeouts, 0);
    CHECK(r.latency.p50_us > 0 && r.latency.p50_us <= r.latency.p99_us && r.latency.p99_us <= r.latency.max_us);

    /* A multi-line payload crosses intact. A bare engine has no pipeline (that is the agent's
     * commands layer), so kvs gets it whole and stores "1\nGET k" under k: still an ok reply. */
    r = run(port, "PUT k 1\nGET k");
    CHECK(r.completed > 0);
    CHECK_EQ_INT(r.errors, 0);

    /* "{seq}": every request writes its own key; warmup 0 and no loss on loopback, so the store
     * holds exactly as many as were sent and acknowledged */
    char err2[LG_ERRBUF_LEN];
    lg_config c = {.mode = LG_MODE_CLOSED, .connections = 8, .duration_s = 0.3, .warmup_s = 0,
                   .payload = (const uint8_t *)"PUT s{seq} x", .payload_len = 12, .timeout_ms = 1000,
                   .instance_id = 1};
    CHECK_EQ_INT(lg_resolve("127.0.0.1", port, &c.target, err2), LG_OK);
    CHECK_EQ_INT(lg_run(&c, &r, err2), LG_OK);
    CHECK(r.completed > 100);
    CHECK_EQ_INT(r.timeouts + r.errors + r.send_failures, 0);
    answer a = {0};
    ask(port, "COUNT s", &a);
    char want[64];
    snprintf(want, sizeof(want), "COUNT %llu", (unsigned long long)r.completed);
    fprintf(stderr, "PUT s{seq}: %llu sent, %llu completed; kvs says %s\n", (unsigned long long)r.sent,
            (unsigned long long)r.completed, a.text);
    CHECK_EQ_INT(a.status, CHAN_OK);
    CHECK(strcmp(a.text, want) == 0);
    CHECK_EQ_INT(r.sent, r.completed);
    CHECK(lg_seq_mark((const uint8_t *)"GET k", 5) == SIZE_MAX);

    r = run(port, "FOO k"); /* the service refuses it: every reply is an error frame */
    CHECK(r.errors > 0);
    CHECK_EQ_INT(r.completed, 0);
    CHECK_EQ_INT(r.latency.count, 0);

    chan_udp_node_free(n);
    eng_free(e);
    return 0;
}
