/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ema: per-key exponential moving average (paper Table 2), state in one rc_hash
 * (key -> double ema, u64 samples).
 *
 * The first sample of a key sets ema = x; each later one sets ema = alpha*x + (1-alpha)*ema.
 * Wire format (text):
 *   "UPDATE <key> <x>" -> "EMA <ema>"                (x a finite decimal; %.17g output)
 *   "GET <key>"        -> "EMA <ema> N <samples>" | "NOT_FOUND"
 * Config: alpha=<0<alpha<=1> (default 0.5). The injected clock is not used.
 * State export: the rc_hash snapshot (values are host-order doubles, little-endian hosts).
 */
#include <stddef.h>

#include "e3svc/rc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

typedef struct ema_value {
    double ema;       /* current average, in the samples' unit */
    uint64_t samples; /* samples seen */
} ema_value;

struct svc_instance {
    rc_hash *table; /* key -> ema_value */
    double alpha;   /* weight of the newest sample, (0, 1] */
};

static const svc_hashstate ema_state = {
    .name = "ema",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, table),
};

static void ema_destroy(svc_instance *inst) { svc_hashstate_destroy(&ema_state, inst); }

static int ema_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    double alpha = svc_config_double(config, "alpha", 0.5);
    if (!(alpha > 0.0 && alpha <= 1.0)) return svc_set_error(err, "ema: alpha must be in (0, 1]");
    svc_instance *inst = svc_hashstate_create(&ema_state, env, err);
    if (!inst) return SVC_ERR;
    inst->alpha = alpha;
    *out = inst;
    return SVC_OK;
}

static int ema_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *cmd, *key, *num;
    size_t cl, kl, nl, vl;
    if (!svc_next_token(&p, end, &cmd, &cl) || !svc_next_token(&p, end, &key, &kl))
        return svc_set_error(err, "ema: expected \"UPDATE <key> <x>\" or \"GET <key>\"");
    ema_value v = {0};
    const void *cur = rc_hash_get(inst->table, key, kl, &vl);
    if (cur && vl == sizeof(v)) memcpy(&v, cur, sizeof(v));
    else cur = NULL;
    if (svc_tok_is(cmd, cl, "GET")) {
        int rc = cur ? svc_buf_printf(resp, "EMA %.17g N %llu", v.ema, (unsigned long long)v.samples)
                     : svc_buf_append(resp, "NOT_FOUND", 9);
        return rc == SVC_OK ? SVC_OK : svc_set_error(err, "ema: out of memory");
    }
    if (!svc_tok_is(cmd, cl, "UPDATE")) return svc_set_error(err, "ema: unknown command");
    double x;
    if (!svc_next_token(&p, end, &num, &nl) || svc_tok_double(num, nl, &x) != SVC_OK)
        return svc_set_error(err, "ema: UPDATE needs a finite number");
    v.ema = cur ? inst->alpha * x + (1.0 - inst->alpha) * v.ema : x;
    v.samples++;
    if (rc_hash_put(inst->table, key, kl, &v, sizeof(v)) != SVC_OK ||
        svc_buf_printf(resp, "EMA %.17g", v.ema) != SVC_OK)
        return svc_set_error(err, "ema: out of memory");
    return SVC_OK;
}

SVC_HASHSTATE_SNAPSHOT_OPS(ema, ema_state)

SVC_HASHSTATE_LOG_OPS(ema, ema_state)

const svc_type svc_ema = {
    .name = "ema",
    .stateful = 1,
    .create = ema_create,
    .handle = ema_handle,
    .export_state = ema_export,
    .import_state = ema_import,
    .destroy = ema_destroy,
    .drain_log = ema_drain_log,
    .apply_log = ema_apply_log,
};
