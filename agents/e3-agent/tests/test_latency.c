/* SPDX-License-Identifier: Apache-2.0 */
/*
 * latency: bucket boundaries (1 us up to 64 us, then 32 per doubling, each at most ~3% wide), a
 * take returns the period's count, mean and p99 and empties the histogram, the p99 of a known
 * distribution lands in the right bucket, values past the range land in the last bucket, and
 * samples recorded from several threads at once are all counted.
 */
#include <pthread.h>
#include <stdio.h>

#include "check.h"
#include "latency.h"

#define THREADS 4
#define PER_THREAD 100000

static lat_hist shared;

static void *record_many(void *arg) {
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++) lat_record(&shared, (uint64_t)(i % 1000));
    return NULL;
}

int main(void) {
    /* buckets: exact below 64 us, then contiguous and at most 1/32 wide */
    for (uint64_t us = 0; us < 64; us++) CHECK_EQ_INT(lat_bucket(us), us);
    CHECK_EQ_INT(lat_bucket(64), 64);
    CHECK_EQ_INT(lat_bucket(65), 64); /* 64..65 share a 2-us bucket */
    CHECK_EQ_INT(lat_bucket(66), 65);
    for (unsigned b = LAT_LINEAR; b + 1 < LAT_BUCKETS; b++) {
        uint64_t lo = lat_bucket_low(b), next = lat_bucket_low(b + 1);
        CHECK_EQ_INT(lat_bucket(lo), b);
        CHECK_EQ_INT(lat_bucket(next - 1), b);
        CHECK((double)(next - lo) <= (double)lo / 32.0 + 1e-9);
    }
    CHECK_EQ_INT(lat_bucket(UINT64_C(1) << 40), LAT_BUCKETS - 1);

    /* an empty take */
    lat_hist h;
    lat_init(&h);
    lat_summary s;
    lat_take(&h, &s);
    CHECK(s.count == 0 && s.avg_us == 0 && s.p99_us == 0);

    /* 1..1000 us once each: mean 500.5, p99 the 990th value (990 us, in a ~16-us bucket) */
    for (uint64_t us = 1; us <= 1000; us++) lat_record(&h, us);
    lat_take(&h, &s);
    fprintf(stderr, "1..1000 us: count %llu, mean %.1f, p99 %.1f\n", (unsigned long long)s.count, s.avg_us, s.p99_us);
    CHECK_EQ_INT(s.count, 1000);
    CHECK(s.avg_us > 500.49 && s.avg_us < 500.51);
    CHECK(s.p99_us >= 990 - 990 / 32.0 && s.p99_us <= 990 + 990 / 32.0);
    lat_take(&h, &s); /* the take emptied it */
    CHECK_EQ_INT(s.count, 0);

    /* 98 fast and 2 slow: the p99 is a slow one */
    for (int i = 0; i < 98; i++) lat_record(&h, 10);
    lat_record(&h, 20000);
    lat_record(&h, 20000);
    lat_take(&h, &s);
    CHECK(s.p99_us >= 20000 * (1 - 1 / 32.0) && s.p99_us <= 20000 * (1 + 1 / 32.0));

    /* many threads at once: nothing lost */
    lat_init(&shared);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK_EQ_INT(pthread_create(&t[i], NULL, record_many, NULL), 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    lat_take(&shared, &s);
    CHECK_EQ_INT(s.count, (uint64_t)THREADS * PER_THREAD);
    CHECK(s.avg_us > 499.4 && s.avg_us < 499.6); /* mean of 0..999 */
    return 0;
}
