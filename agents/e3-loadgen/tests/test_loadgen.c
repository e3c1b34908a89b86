/* SPDX-License-Identifier: Apache-2.0 */
/* loadgen end to end against the echo service on loopback: the framing, a closed loop, an open
 * loop's rate, error replies, and a target that never answers. No timing is asserted beyond the
 * open loop's offered rate (±20%), which the generator's own schedule sets. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "silent_port.h"
#include "echo.h"
#include "loadgen.h"

static const uint8_t payload[] = "GET k";

static lg_config config(uint16_t port, lg_mode mode) {
    char err[LG_ERRBUF_LEN];
    lg_config c = {.mode = mode, .connections = 8, .rate = 1000, .duration_s = 1.0, .warmup_s = 0.2,
                   .payload = payload, .payload_len = sizeof(payload) - 1, .timeout_ms = 1000};
    CHECK_EQ_INT(lg_resolve("127.0.0.1", port, &c.target, err), LG_OK);
    return c;
}

static void check_latency_ordered(const lg_result *r) {
    const lg_summary *l = &r->latency;
    CHECK_EQ_INT(l->count, r->completed);
    CHECK(l->p50_us > 0);
    CHECK(l->avg_us > 0 && l->avg_us <= l->max_us);
    CHECK(l->p50_us <= l->p99_us && l->p99_us <= l->p999_us && l->p999_us <= l->max_us);
}

static void test_header_roundtrip(void) {
    uint8_t buf[LG_HDR_LEN];
    lg_hdr h = {.type = LG_TYPE_REPLY, .status = LG_STATUS_ERROR, .instance_id = 0x01020304,
                .request_id = 0x1122334455667788ull}, back;
    lg_hdr_encode(&h, buf);
    static const uint8_t want[LG_HDR_LEN] = {'E', '3', 'C', '1', 2, 1, 0, 0, 1, 2, 3, 4,
                                             0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    CHECK_MEM(buf, want, LG_HDR_LEN);
    CHECK_EQ_INT(lg_hdr_decode(buf, LG_HDR_LEN, &back), LG_OK);
    CHECK(back.type == 2 && back.status == 1 && back.instance_id == 0x01020304 && back.request_id == h.request_id);
    CHECK_EQ_INT(lg_hdr_decode(buf, LG_HDR_LEN - 1, &back), LG_ERR);
    buf[0] = 'X';
    CHECK_EQ_INT(lg_hdr_decode(buf, LG_HDR_LEN, &back), LG_ERR);
}

static void test_closed_loop(void) {
    char err[LG_ERRBUF_LEN];
    lg_echo *e = lg_echo_start("127.0.0.1", 0, 0, err);
    CHECK(e);
    lg_config c = config(lg_echo_port(e), LG_MODE_CLOSED);
    lg_result r;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    fprintf(stderr, "closed loop, 8 outstanding, 1 s: %llu completed, %.0f req/s, p50 %.1f us, p99 %.1f us\n",
            (unsigned long long)r.completed, r.throughput_rps, r.latency.p50_us, r.latency.p99_us);
    CHECK(r.completed > 0);
    CHECK_EQ_INT(r.errors, 0);
    CHECK_EQ_INT(r.timeouts, 0);
    CHECK_EQ_INT(r.completed, r.sent); /* loopback, nothing lost: every measured request answered */
    CHECK(r.answered >= r.completed);   /* warmup replies too */
    CHECK(lg_echo_answered(e) >= r.answered);
    CHECK(r.throughput_rps == r.completed / 1.0);
    check_latency_ordered(&r);
    lg_echo_stop(e);
}

static void test_open_loop_rate(void) {
    char err[LG_ERRBUF_LEN];
    lg_echo *e = lg_echo_start("127.0.0.1", 0, 0, err);
    CHECK(e);
    lg_config c = config(lg_echo_port(e), LG_MODE_OPEN);
    c.rate = 2000;
    lg_result r;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    fprintf(stderr, "open loop, 2000/s, 1 s: %llu offered, %llu completed, %.0f req/s, p99 %.1f us\n",
            (unsigned long long)r.offered, (unsigned long long)r.completed, r.throughput_rps, r.latency.p99_us);
    CHECK(r.offered >= 1999 && r.offered <= 2001); /* the schedule: one request every 500 us */
    CHECK(r.throughput_rps >= 0.8 * c.rate && r.throughput_rps <= 1.2 * c.rate);
    CHECK_EQ_INT(r.errors, 0);
    check_latency_ordered(&r);
    lg_echo_stop(e);
}

static void test_error_replies(void) {
    char err[LG_ERRBUF_LEN];
    lg_echo *e = lg_echo_start("127.0.0.1", 0, 4, err); /* every 4th request: an error frame */
    CHECK(e);
    lg_config c = config(lg_echo_port(e), LG_MODE_CLOSED);
    c.duration_s = 0.3;
    c.warmup_s = 0;
    lg_result r;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    CHECK(r.errors > 0 && r.completed > 0);
    CHECK_EQ_INT(r.completed + r.errors + r.timeouts, r.sent);
    CHECK(r.errors >= r.sent / 4 - 1 && r.errors <= r.sent / 4 + 1);
    CHECK_EQ_INT(r.latency.count, r.completed); /* error replies are not timed */
    lg_echo_stop(e);
}

/* A socket bound to a port that never reads: datagrams are accepted, nothing answers. */
static void test_never_answers(void) {
    char err[LG_ERRBUF_LEN];
    uint16_t port;
    int fd = silent_port_open(&port);

    lg_config c = config(port, LG_MODE_CLOSED);
    c.duration_s = 0.3;
    c.warmup_s = 0;
    c.timeout_ms = 100;
    lg_result r;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    CHECK_EQ_INT(r.answered, 0); /* the "never answers" outcome (exit 1 in e3-loadgen) */
    CHECK_EQ_INT(r.completed, 0);
    CHECK(r.timeouts >= 8); /* 8 outstanding, each replaced after 100 ms within 300 ms */
    CHECK_EQ_INT(r.timeouts, r.sent);
    CHECK(r.latency.count == 0 && r.latency.max_us == 0);

    /* Open loop too: every request sent times out. */
    c.mode = LG_MODE_OPEN;
    c.rate = 200;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    CHECK_EQ_INT(r.answered, 0);
    CHECK(r.sent > 0);
    CHECK_EQ_INT(r.timeouts, r.sent);
    close(fd);

    /* A closed port: ICMP "port unreachable" turns sends into failures or timeouts, never replies. */
    c.mode = LG_MODE_CLOSED;
    c.target = config(port, LG_MODE_CLOSED).target;
    CHECK_EQ_INT(lg_run(&c, &r, err), LG_OK);
    CHECK_EQ_INT(r.answered, 0);
    CHECK_EQ_INT(r.completed, 0);
}

int main(void) {
    test_header_roundtrip();
    test_closed_loop();
    test_open_loop_rate();
    test_error_replies();
    test_never_answers();
    return 0;
}
