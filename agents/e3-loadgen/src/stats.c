/* SPDX-License-Identifier: Apache-2.0 */
/* stats: exact latency percentiles over every sample (see stats.h for the definition). */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

void lg_stats_init(lg_stats *s) { memset(s, 0, sizeof(*s)); }

int lg_stats_add(lg_stats *s, uint64_t ns) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        uint64_t *p = realloc(s->ns, cap * sizeof(*p));
        if (!p) return LG_STATS_ERR;
        s->ns = p;
        s->cap = cap;
    }
    s->ns[s->n++] = ns;
    return LG_STATS_OK;
}

void lg_stats_free(lg_stats *s) {
    free(s->ns);
    lg_stats_init(s);
}

uint64_t lg_stats_percentile(const uint64_t *sorted, size_t n, uint32_t ppm) {
    /* rank = ceil(ppm * n / 1e6), at least 1: ppm * n fits in 64 bits for any n we can hold. */
    uint64_t rank = ((uint64_t)ppm * n + 999999u) / 1000000u;
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void lg_stats_summarize(lg_stats *s, lg_summary *out) {
    memset(out, 0, sizeof(*out));
    if (s->n == 0) return;
    qsort(s->ns, s->n, sizeof(*s->ns), cmp_u64);
    long double sum = 0; /* long double: a sum of millions of ns values keeps its units digit */
    for (size_t i = 0; i < s->n; i++) sum += s->ns[i];
    out->count = s->n;
    out->avg_us = (double)(sum / s->n / 1000.0L);
    out->p50_us = lg_stats_percentile(s->ns, s->n, 500000) / 1000.0;
    out->p99_us = lg_stats_percentile(s->ns, s->n, 990000) / 1000.0;
    out->p999_us = lg_stats_percentile(s->ns, s->n, 999000) / 1000.0;
    out->max_us = s->ns[s->n - 1] / 1000.0;
}
