/* SPDX-License-Identifier: Apache-2.0 */
/* knee: open-loop rate search (rules in knee.h). */
#include "knee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lg_knee_judge(const lg_result *first, const lg_result *step, char *why) {
    double offered = step->offered ? (double)step->offered : 1.0;
    double delivery = step->completed / offered, timeouts = step->timeouts / offered;
    if (step->completed == 0) {
        snprintf(why, LG_KNEE_WHY_LEN, "no request completed");
        return 0;
    }
    if (step->latency.p99_us > LG_KNEE_P99_FACTOR * first->latency.p99_us) {
        snprintf(why, LG_KNEE_WHY_LEN, "p99 %.1f us > %.0fx the first step's %.1f us", step->latency.p99_us,
                 LG_KNEE_P99_FACTOR, first->latency.p99_us);
        return 0;
    }
    if (delivery < LG_KNEE_MIN_DELIVERY) {
        snprintf(why, LG_KNEE_WHY_LEN, "completed/offered %.3f < %.2f", delivery, LG_KNEE_MIN_DELIVERY);
        return 0;
    }
    if (timeouts > LG_KNEE_MAX_TIMEOUTS) {
        snprintf(why, LG_KNEE_WHY_LEN, "timeouts %.2f%% > %.0f%%", 100 * timeouts, 100 * LG_KNEE_MAX_TIMEOUTS);
        return 0;
    }
    snprintf(why, LG_KNEE_WHY_LEN, "ok");
    return 1;
}

int lg_knee_run(const lg_config *base, lg_knee *out, lg_knee_progress_fn progress, void *ctx, char *err) {
    memset(out, 0, sizeof(*out));
    out->steps = calloc(LG_KNEE_MAX_STEPS, sizeof(*out->steps));
    if (!out->steps) {
        snprintf(err, LG_ERRBUF_LEN, "out of memory");
        return LG_ERR;
    }
    lg_config cfg = *base;
    cfg.mode = LG_MODE_OPEN;
    for (size_t i = 0; i < LG_KNEE_MAX_STEPS; i++, cfg.rate *= LG_KNEE_GROWTH) {
        lg_knee_step *st = &out->steps[i];
        st->rate_rps = cfg.rate;
        if (lg_run(&cfg, &st->r, err) != LG_OK) return LG_ERR;
        out->n = i + 1;
        st->good = lg_knee_judge(&out->steps[0].r, &st->r, st->why);
        if (progress) progress(ctx, st);
        if (!st->good) break;
        out->knee_rps = cfg.rate;
    }
    return LG_OK;
}

void lg_knee_free(lg_knee *k) {
    free(k->steps);
    memset(k, 0, sizeof(*k));
}
