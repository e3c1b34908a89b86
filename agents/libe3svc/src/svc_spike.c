/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spike: per-key spike detection (paper Table 2). Each key keeps a running count, mean and sum
 * of squared deviations (Welford) in an rc_hash. A new sample x is scored against the samples
 * before it: z = (x - mean) / s, s the sample standard deviation (n-1 denominator); with fewer
 * than 2 prior samples or s == 0, z = 0. |z| > threshold flags a spike. Then x is added.
 *
 * Wire format (text):
 *   "ADD <key> <x>" -> "Z <z> SPIKE" | "Z <z> NORMAL"          (%.17g)
 *   "GET <key>"     -> "N <n> MEAN <mean> STDDEV <s>" | "NOT_FOUND"
 * Config: threshold=<z> (default 3.0, > 0).
 * State export: the rc_hash snapshot.
 */
#include <math.h>
#include <stddef.h>

#include "e3svc/rc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

typedef struct spike_stats {
    uint64_t n;  /* samples */
    double mean; /* running mean, sample unit */
    double m2;   /* sum of squared deviations from the mean, sample unit^2 */
} spike_stats;

struct svc_instance {
    rc_hash *table;   /* key -> spike_stats */
    double threshold; /* |z| above which a sample is a spike */
};

static const svc_hashstate spike_state = {
    .name = "spike",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, table),
};

static void spike_destroy(svc_instance *inst) { svc_hashstate_destroy(&spike_state, inst); }

static int spike_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    double threshold = svc_config_double(config, "threshold", 3.0);
    if (!(threshold > 0.0)) return svc_set_error(err, "spike: threshold must be > 0");
    svc_instance *inst = svc_hashstate_create(&spike_state, env, err);
    if (!inst) return SVC_ERR;
    inst->threshold = threshold;
    *out = inst;
    return SVC_OK;
}

static double stats_stddev(const spike_stats *s) { return s->n < 2 ? 0.0 : sqrt(s->m2 / (double)(s->n - 1)); }

static int spike_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *cmd, *key, *num;
    size_t cl, kl, nl, vl;
    if (!svc_next_token(&p, end, &cmd, &cl) || !svc_next_token(&p, end, &key, &kl))
        return svc_set_error(err, "spike: expected \"ADD <key> <x>\" or \"GET <key>\"");
    spike_stats s = {0};
    const void *cur = rc_hash_get(inst->table, key, kl, &vl);
    if (cur && vl == sizeof(s)) memcpy(&s, cur, sizeof(s));
    else cur = NULL;
    if (svc_tok_is(cmd, cl, "GET")) {
        int rc = cur ? svc_buf_printf(resp, "N %llu MEAN %.17g STDDEV %.17g", (unsigned long long)s.n, s.mean,
                                      stats_stddev(&s))
                     : svc_buf_append(resp, "NOT_FOUND", 9);
        return rc == SVC_OK ? SVC_OK : svc_set_error(err, "spike: out of memory");
    }
    if (!svc_tok_is(cmd, cl, "ADD")) return svc_set_error(err, "spike: unknown command");
    double x;
    if (!svc_next_token(&p, end, &num, &nl) || svc_tok_double(num, nl, &x) != SVC_OK)
        return svc_set_error(err, "spike: ADD needs a finite number");
    double sd = stats_stddev(&s), z = sd > 0.0 ? (x - s.mean) / sd : 0.0;
    s.n++;
    double delta = x - s.mean;
    s.mean += delta / (double)s.n;
    s.m2 += delta * (x - s.mean);
    if (rc_hash_put(inst->table, key, kl, &s, sizeof(s)) != SVC_OK ||
        svc_buf_printf(resp, "Z %.17g %s", z, fabs(z) > inst->threshold ? "SPIKE" : "NORMAL") != SVC_OK)
        return svc_set_error(err, "spike: out of memory");
    return SVC_OK;
}

SVC_HASHSTATE_SNAPSHOT_OPS(spike, spike_state)

SVC_HASHSTATE_LOG_OPS(spike, spike_state)

const svc_type svc_spike = {
    .name = "spike",
    .stateful = 1,
    .create = spike_create,
    .handle = spike_handle,
    .export_state = spike_export,
    .import_state = spike_import,
    .destroy = spike_destroy,
    .drain_log = spike_drain_log,
    .apply_log = spike_apply_log,
};
