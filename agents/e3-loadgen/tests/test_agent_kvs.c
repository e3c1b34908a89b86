/* SPDX-License-Identifier: Apache-2.0 */
/* Against the real thing: a kvs instance in e3-agent's engine behind its UDP node (chan.h), as
 * an agent deploys one. Checks that our framing is the agent's, that ok and error replies are
 * told apart, and that a multi-line payload ("\n" lines) goes through. */
#include <stdio.h>

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

    r = run(port, "FOO k"); /* the service refuses it: every reply is an error frame */
    CHECK(r.errors > 0);
    CHECK_EQ_INT(r.completed, 0);
    CHECK_EQ_INT(r.latency.count, 0);

    chan_udp_node_free(n);
    eng_free(e);
    return 0;
}
