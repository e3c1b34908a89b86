/* SPDX-License-Identifier: Apache-2.0 */
/* stats: nearest-rank percentiles on known arrays, the summary in microseconds, growth. */
#include <stdint.h>

#include "check.h"
#include "stats.h"

static void test_percentile_known_arrays(void) {
    const uint64_t one[] = {7};
    CHECK_EQ_INT(lg_stats_percentile(one, 1, 500000), 7);
    CHECK_EQ_INT(lg_stats_percentile(one, 1, 999000), 7);

    /* 1..100: p50 is rank 50, p99 rank 99, p99.9 rank ceil(99.9) = 100, max rank 100. */
    uint64_t hundred[100];
    for (int i = 0; i < 100; i++) hundred[i] = (uint64_t)i + 1;
    CHECK_EQ_INT(lg_stats_percentile(hundred, 100, 500000), 50);
    CHECK_EQ_INT(lg_stats_percentile(hundred, 100, 990000), 99);
    CHECK_EQ_INT(lg_stats_percentile(hundred, 100, 999000), 100);
    CHECK_EQ_INT(lg_stats_percentile(hundred, 100, 1000000), 100);
    CHECK_EQ_INT(lg_stats_percentile(hundred, 100, 1), 1); /* never rank 0 */

    /* Four samples: the median is the 2nd (nearest rank, no interpolation). */
    const uint64_t four[] = {10, 20, 30, 40};
    CHECK_EQ_INT(lg_stats_percentile(four, 4, 500000), 20);
    CHECK_EQ_INT(lg_stats_percentile(four, 4, 750000), 30);
    CHECK_EQ_INT(lg_stats_percentile(four, 4, 750001), 40);

    /* 1000 samples: p99.9 is rank 999, not the max. */
    uint64_t thousand[1000];
    for (int i = 0; i < 1000; i++) thousand[i] = (uint64_t)i + 1;
    CHECK_EQ_INT(lg_stats_percentile(thousand, 1000, 999000), 999);
    CHECK_EQ_INT(lg_stats_percentile(thousand, 1000, 990000), 990);
}

static void test_summary(void) {
    lg_stats s;
    lg_stats_init(&s);
    lg_summary sum;
    lg_stats_summarize(&s, &sum);
    CHECK_EQ_INT(sum.count, 0);
    CHECK(sum.p99_us == 0 && sum.max_us == 0);

    /* 10000 samples added in reverse order, 1 us .. 10000 us: growth past the first block and
     * the in-place sort are both exercised. */
    for (uint64_t us = 10000; us >= 1; us--) CHECK_EQ_INT(lg_stats_add(&s, us * 1000), LG_STATS_OK);
    lg_stats_summarize(&s, &sum);
    CHECK_EQ_INT(sum.count, 10000);
    CHECK(sum.avg_us == 5000.5);
    CHECK(sum.p50_us == 5000.0);
    CHECK(sum.p99_us == 9900.0);
    CHECK(sum.p999_us == 9990.0);
    CHECK(sum.max_us == 10000.0);
    CHECK(sum.p50_us <= sum.p99_us && sum.p99_us <= sum.p999_us && sum.p999_us <= sum.max_us);
    lg_stats_free(&s);
    CHECK(s.n == 0 && s.ns == NULL);

    /* Sub-microsecond samples keep their fraction. */
    CHECK_EQ_INT(lg_stats_add(&s, 1500), LG_STATS_OK);
    lg_stats_summarize(&s, &sum);
    CHECK(sum.p50_us == 1.5 && sum.avg_us == 1.5);
    lg_stats_free(&s);
}

int main(void) {
    test_percentile_known_arrays();
    test_summary();
    return 0;
}
