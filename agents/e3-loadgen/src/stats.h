/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stats: latency samples and their summary. Every sample is kept (a growable array of
 * nanoseconds), so percentiles are exact, not estimated: at 8 bytes a sample, ten seconds at
 * 100,000 replies/s is 8 MB.
 *
 * Percentile definition (nearest rank): the q-quantile of n sorted samples is the sample of
 * rank ceil(q * n) (1-based), i.e. the smallest sample with at least a fraction q of the samples
 * at or below it. It is always one of the samples, never an interpolation. q is given in parts
 * per million so that ceil() is integer arithmetic (0.99 * 100 is not 99 in binary floating point).
 */
#ifndef E3LOADGEN_STATS_H
#define E3LOADGEN_STATS_H

#include <stddef.h>
#include <stdint.h>

#define LG_STATS_OK 0
#define LG_STATS_ERR -1

/* The samples. Zero-initialised (or lg_stats_init) is an empty set. */
typedef struct lg_stats {
    uint64_t *ns; /* samples, nanoseconds; sorted in place by lg_stats_summarize */
    size_t n;     /* samples held */
    size_t cap;   /* samples allocated */
} lg_stats;

/* What a report shows. Every figure is in microseconds; all zero when there are no samples. */
typedef struct lg_summary {
    uint64_t count; /* samples */
    double avg_us;  /* mean */
    double p50_us;  /* nearest-rank percentiles */
    double p99_us;
    double p999_us;
    double max_us; /* largest sample */
} lg_summary;

/* An empty set. */
void lg_stats_init(lg_stats *s);

/* Add one sample (ns). LG_STATS_ERR when out of memory (the set is unchanged). */
int lg_stats_add(lg_stats *s, uint64_t ns);

/* Release the samples; the set is empty again. */
void lg_stats_free(lg_stats *s);

/* The sample of nearest rank ceil(ppm * n / 1e6) in `sorted` (ascending, n > 0); ppm in
 * 1..1000000 (500000 = median, 990000 = p99, 999000 = p99.9, 1000000 = max). */
uint64_t lg_stats_percentile(const uint64_t *sorted, size_t n, uint32_t ppm);

/* Sort the samples (in place) and fill `out`. */
void lg_stats_summarize(lg_stats *s, lg_summary *out);

#endif
