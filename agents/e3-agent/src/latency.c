/* SPDX-License-Identifier: Apache-2.0 */
/* latency: log-linear histogram, taken per period (see latency.h). */
#include "latency.h"

#include <string.h>

unsigned lat_bucket(uint64_t us) {
    if (us < LAT_LINEAR) return (unsigned)us;
    unsigned top = 63u - (unsigned)__builtin_clzll(us); /* 2^top <= us: top >= 6 */
    unsigned octave = top - 6;                          /* 0 for 64..127 us */
    if (octave >= LAT_OCTAVES) return LAT_BUCKETS - 1;
    unsigned sub = (unsigned)((us >> (top - 5)) & (LAT_SUB - 1)); /* the 5 bits after the top one */
    return LAT_LINEAR + octave * LAT_SUB + sub;
}

uint64_t lat_bucket_low(unsigned b) {
    if (b < LAT_LINEAR) return b;
    unsigned octave = (b - LAT_LINEAR) / LAT_SUB, sub = (b - LAT_LINEAR) % LAT_SUB;
    return (uint64_t)(LAT_SUB + sub) << (octave + 1);
}

void lat_init(lat_hist *h) {
    for (unsigned b = 0; b < LAT_BUCKETS; b++) atomic_init(&h->bucket[b], 0);
    atomic_init(&h->sum_us, 0);
}

void lat_record(lat_hist *h, uint64_t us) {
    atomic_fetch_add_explicit(&h->bucket[lat_bucket(us)], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_us, us, memory_order_relaxed);
}

void lat_take(lat_hist *h, lat_summary *out) {
    uint64_t counts[LAT_BUCKETS], n = 0;
    memset(out, 0, sizeof(*out));
    uint64_t sum = atomic_exchange_explicit(&h->sum_us, 0, memory_order_relaxed);
    for (unsigned b = 0; b < LAT_BUCKETS; b++) {
        counts[b] = atomic_exchange_explicit(&h->bucket[b], 0, memory_order_relaxed);
        n += counts[b];
    }
    if (!n) return;
    out->count = n;
    out->avg_us = (double)sum / (double)n;
    uint64_t rank = (n * 99 + 99) / 100, seen = 0; /* ceil(0.99 n): the sample at the 99th percentile */
    for (unsigned b = 0; b < LAT_BUCKETS; b++) {
        seen += counts[b];
        if (seen < rank) continue;
        uint64_t lo = lat_bucket_low(b), hi = b + 1 < LAT_BUCKETS ? lat_bucket_low(b + 1) : lo * 2;
        out->p99_us = b < LAT_LINEAR ? (double)lo : ((double)lo + (double)hi) / 2.0;
        break;
    }
}
