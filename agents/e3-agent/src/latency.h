/* SPDX-License-Identifier: Apache-2.0 */
/*
 * latency: a lock-free histogram of request latencies, taken (read and reset) once per period.
 *
 * Log-linear buckets of microseconds: 1 us wide below 64 us, then 32 per doubling (each at most
 * ~3% wide) up to 2^26 us (67 s; longer ones fall in the last bucket). Any thread records; one
 * thread takes. A take reads and zeroes bucket by bucket, so a sample recorded during a take lands
 * in this period or the next one, never in both and never lost.
 */
#ifndef E3AGENT_LATENCY_H
#define E3AGENT_LATENCY_H

#include <stdatomic.h>
#include <stdint.h>

#define LAT_LINEAR 64   /* 1-us buckets for 0..63 us */
#define LAT_SUB 32      /* buckets per doubling above */
#define LAT_OCTAVES 21  /* doublings above 64 us: up to 2^26 us */
#define LAT_BUCKETS (LAT_LINEAR + LAT_SUB * LAT_OCTAVES)

typedef struct lat_hist {
    atomic_uint_fast64_t bucket[LAT_BUCKETS];
    atomic_uint_fast64_t sum_us; /* of the samples in the buckets */
} lat_hist;

/* One period's latencies. */
typedef struct lat_summary {
    uint64_t count; /* samples */
    double avg_us;  /* their mean (0 without samples) */
    double p99_us;  /* their 99th percentile, to the bucket's middle (0 without samples) */
} lat_summary;

/* Zero `h` (memory from calloc is zeroed already). */
void lat_init(lat_hist *h);

/* Record one latency of `us` microseconds. Any thread. */
void lat_record(lat_hist *h, uint64_t us);

/* The samples since the previous take, then none: into `out`. One taker at a time per histogram. */
void lat_take(lat_hist *h, lat_summary *out);

/* The bucket of `us`, and the smallest value of bucket `b` (pure; for tests). */
unsigned lat_bucket(uint64_t us);
uint64_t lat_bucket_low(unsigned b);

#endif
