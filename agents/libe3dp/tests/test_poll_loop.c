/* SPDX-License-Identifier: Apache-2.0 */
/* poll_loop: an adaptive loop with nothing to do backs off (its sleeps double up to
 * DP_IDLE_SLEEP_MAX_US), so an idle emulated device polls a few thousand times a second, not
 * tens of thousands; a busy loop never sleeps. The bounds are upper bounds on the number of
 * passes in a span of wall time: a slow, shared machine only makes the passes fewer. */
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "e3dp/poll.h"

#define SPAN_NS 100000000ull /* 100 ms */

typedef struct idle_ctx {
    atomic_int quit;
    unsigned long passes;
    unsigned long long start_ns;
} idle_ctx;

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Never any work; ends the loop once SPAN_NS has passed since the first pass. */
static size_t poll_nothing(void *arg) {
    idle_ctx *c = arg;
    unsigned long long t = now_ns();
    if (c->passes++ == 0) c->start_ns = t;
    if (t - c->start_ns >= SPAN_NS) atomic_store(&c->quit, 1);
    return 0;
}

int main(void) {
    idle_ctx adaptive = {0};
    dp_poll_loop(poll_nothing, &adaptive, &adaptive.quit, 0);
    /* The spins, the first sleeps (50, 100 us), then at most one pass per DP_IDLE_SLEEP_MAX_US. */
    unsigned long most = DP_IDLE_SPINS + 3 + SPAN_NS / 1000 / DP_IDLE_SLEEP_MAX_US;
    fprintf(stderr, "adaptive: %lu passes in 100 ms (at most %lu)\n", adaptive.passes, most);
    CHECK(adaptive.passes <= most);
    CHECK(adaptive.passes > DP_IDLE_SPINS); /* it did spin before sleeping */

    idle_ctx busy = {0};
    dp_poll_loop(poll_nothing, &busy, &busy.quit, 1);
    fprintf(stderr, "busy: %lu passes in 100 ms\n", busy.passes);
    CHECK(busy.passes > 4 * most); /* a busy loop never sleeps: far more passes than any adaptive one */
    return 0;
}
