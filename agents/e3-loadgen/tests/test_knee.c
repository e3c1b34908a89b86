/* SPDX-License-Identifier: Apache-2.0 */
/* knee: the stop rules on made-up results, then a search against a silent port (stops at the
 * first step, knee 0) and against the echo service (rates grow by 1.5, the knee is the last good
 * step's rate). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "silent_port.h"
#include "echo.h"
#include "knee.h"

static lg_result made_up(uint64_t offered, uint64_t completed, uint64_t timeouts, double p99_us) {
    lg_result r = {.offered = offered, .sent = offered, .completed = completed, .timeouts = timeouts};
    r.latency.p99_us = p99_us;
    return r;
}

static void test_judge(void) {
    char why[LG_KNEE_WHY_LEN];
    lg_result first = made_up(1000, 1000, 0, 100);
    CHECK_EQ_INT(lg_knee_judge(&first, &first, why), 1);
    CHECK(strcmp(why, "ok") == 0);

    lg_result r = made_up(1500, 1500, 0, 300); /* exactly 3x: still good */
    CHECK_EQ_INT(lg_knee_judge(&first, &r, why), 1);
    r = made_up(1500, 1500, 0, 300.1);
    CHECK_EQ_INT(lg_knee_judge(&first, &r, why), 0);
    CHECK(strstr(why, "p99") != NULL);

    r = made_up(1000, 950, 0, 100); /* 0.95 delivered: good */
    CHECK_EQ_INT(lg_knee_judge(&first, &r, why), 1);
    r = made_up(1000, 949, 0, 100);
    CHECK_EQ_INT(lg_knee_judge(&first, &r, why), 0);
    CHECK(strstr(why, "completed/offered") != NULL);

    r = made_up(10000, 9980, 10, 100); /* 0.1% timeouts: good */
    CHECK_EQ_INT(lg_knee_judge(&first, &r, why), 1);
    r = made_up(10000, 9980, 101, 100); /* 1.01%: bad, even though 99.8% completed */
    r.completed = 9800;
    CHECK_EQ_INT(lg_knee_judge(&first, &r, why), 0);
    CHECK(strstr(why, "timeouts") != NULL);

    r = made_up(1000, 0, 1000, 0);
    CHECK_EQ_INT(lg_knee_judge(&r, &r, why), 0);
    CHECK(strstr(why, "no request completed") != NULL);
}

static lg_config config(uint16_t port, double rate) {
    char err[LG_ERRBUF_LEN];
    static const uint8_t payload[] = "GET k";
    lg_config c = {.mode = LG_MODE_OPEN, .rate = rate, .duration_s = 0.2, .warmup_s = 0.05,
                   .payload = payload, .payload_len = sizeof(payload) - 1, .timeout_ms = 200};
    CHECK_EQ_INT(lg_resolve("127.0.0.1", port, &c.target, err), LG_OK);
    return c;
}

static void test_search_silent(void) {
    char err[LG_ERRBUF_LEN];
    uint16_t port;
    int fd = silent_port_open(&port);
    lg_config c = config(port, 500);
    lg_knee k;
    CHECK_EQ_INT(lg_knee_run(&c, &k, NULL, NULL, err), LG_OK);
    CHECK_EQ_INT(k.n, 1);
    CHECK_EQ_INT(k.steps[0].good, 0);
    CHECK(k.knee_rps == 0);
    lg_knee_free(&k);
    close(fd);
}

static void print_step(void *ctx, const lg_knee_step *st) {
    (void)ctx;
    fprintf(stderr, "step %.0f/s: %llu/%llu completed, p99 %.1f us: %s\n", st->rate_rps,
            (unsigned long long)st->r.completed, (unsigned long long)st->r.offered, st->r.latency.p99_us, st->why);
}

static void test_search_echo(void) {
    char err[LG_ERRBUF_LEN];
    lg_echo *e = lg_echo_start("127.0.0.1", 0, 0, err);
    CHECK(e);
    lg_config c = config(lg_echo_port(e), 2000);
    lg_knee k;
    CHECK_EQ_INT(lg_knee_run(&c, &k, print_step, NULL, err), LG_OK);
    CHECK(k.n >= 1 && k.n <= LG_KNEE_MAX_STEPS);
    for (size_t i = 1; i < k.n; i++) {
        CHECK(k.steps[i].rate_rps > 1.49 * k.steps[i - 1].rate_rps && k.steps[i].rate_rps < 1.51 * k.steps[i - 1].rate_rps);
        CHECK(k.steps[i - 1].good); /* only the last step may be bad */
    }
    if (k.steps[k.n - 1].good) CHECK_EQ_INT(k.n, LG_KNEE_MAX_STEPS);
    double want = k.n >= 2 ? k.steps[k.n - 2].rate_rps : 0;
    if (k.steps[k.n - 1].good) want = k.steps[k.n - 1].rate_rps;
    CHECK(k.knee_rps == want);
    lg_knee_free(&k);
    lg_echo_stop(e);
}

int main(void) {
    test_judge();
    test_search_silent();
    test_search_echo();
    return 0;
}
