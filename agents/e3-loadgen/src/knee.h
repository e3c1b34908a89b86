/* SPDX-License-Identifier: Apache-2.0 */
/*
 * knee: the open-loop rate search. Step i offers rate_0 * 1.5^i requests/s for one full run
 * (warmup + duration). A step is good while, against the first step:
 *   - p99 latency <= 3 x the first step's p99,
 *   - completed / offered >= 0.95 (error replies and refused sends count as not completed),
 *   - timeouts <= 1% of offered.
 * The search stops at the first bad step (or after LG_KNEE_MAX_STEPS); the knee is the rate of
 * the last good step, 0 if the first step is already bad.
 */
#ifndef E3LOADGEN_KNEE_H
#define E3LOADGEN_KNEE_H

#include <stddef.h>

#include "loadgen.h"

#define LG_KNEE_GROWTH 1.5        /* rate factor between steps */
#define LG_KNEE_P99_FACTOR 3.0    /* p99 may grow this much over the first step's */
#define LG_KNEE_MIN_DELIVERY 0.95 /* completed / offered at least */
#define LG_KNEE_MAX_TIMEOUTS 0.01 /* timeouts / offered at most */
#define LG_KNEE_MAX_STEPS 40      /* 1.5^40 ~ 11 million times the first rate: a safety stop */
#define LG_KNEE_WHY_LEN 128       /* bytes of a step's verdict text */

typedef struct lg_knee_step {
    double rate_rps;           /* offered rate */
    lg_result r;               /* what the step measured */
    int good;                  /* 1 if within the limits above */
    char why[LG_KNEE_WHY_LEN]; /* "ok" or the limit it broke */
} lg_knee_step;

typedef struct lg_knee {
    lg_knee_step *steps; /* in order, the bad one last (malloc'd) */
    size_t n;            /* steps run */
    double knee_rps;     /* last good rate, 0 if none */
} lg_knee;

/* Judge `step` against the search's first step `first` (the same pointer for the first step):
 * returns 1 if good, 0 if not, with the verdict ("ok" or the limit broken) in `why`
 * (LG_KNEE_WHY_LEN bytes). Pure: no I/O. */
int lg_knee_judge(const lg_result *first, const lg_result *step, char *why);

/* Called after each step (e.g. to print progress); may be NULL. */
typedef void (*lg_knee_progress_fn)(void *ctx, const lg_knee_step *step);

/* Run the search with `base` (mode forced to open; base->rate is the first rate). LG_ERR with
 * `err` if a run fails to start; `out` then holds the steps done so far (free it either way). */
int lg_knee_run(const lg_config *base, lg_knee *out, lg_knee_progress_fn progress, void *ctx, char *err);

/* Free the steps. */
void lg_knee_free(lg_knee *k);

#endif
