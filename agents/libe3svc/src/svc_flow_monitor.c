/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flow_monitor: per-flow packet/byte counting with a count-min sketch (paper Table 2; Cormode &
 * Muthukrishnan 2005). depth rows of width u64 counters live in one rc_array (row-major), plus
 * one trailing element holding the stream total N. Row r hashes a flow key with seed + r. An
 * estimate is the minimum over rows: it never undercounts, and with probability >= 1 - e^-depth
 * overcounts by at most eps*N, eps = e / width.
 *
 * Wire format (text; a flow key is any token, e.g. "10.0.0.1:80>10.0.0.2:5000/6"):
 *   "ADD <flow> [<count>]" -> "OK"              (count a decimal u64, default 1)
 *   "QUERY <flow>"         -> "ESTIMATE <n>"
 *   "TOTAL"                -> "TOTAL <N>"
 * Config: width=<counters per row> (default 2048), depth=<rows> (default 4, <= 32), seed=<u64> (0).
 * State export: section(params: width u64, depth u64, seed u64) + section(rc_array snapshot),
 * each section a u64 little-endian length then its bytes; import requires equal params.
 * Replication log: the counters' rc_array log records, as they are (a backup of another
 * width/depth refuses them: the array's shape differs; one of another seed would diverge).
 */
#include <stdlib.h>

#include "e3svc/rc.h"
#include "svc_util.h"

#define FM_MAX_DEPTH 32

struct svc_instance {
    rc_array *counters; /* depth*width u64 counters, then the total */
    uint64_t width;     /* counters per row */
    uint64_t depth;     /* rows */
    uint64_t seed;      /* base hash seed */
    svc_buf log;        /* the counters' replication-log records since the last drain */
};

static void fm_destroy(svc_instance *inst) {
    if (!inst) return;
    rc_array_free(inst->counters);
    svc_buf_free(&inst->log);
    free(inst);
}

static int fm_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    long width = svc_config_long(config, "width", 2048), depth = svc_config_long(config, "depth", 4);
    long seed = svc_config_long(config, "seed", 0);
    if (width < 1 || width > (1L << 28) || depth < 1 || depth > FM_MAX_DEPTH)
        return svc_set_error(err, "flow_monitor: need 1 <= width <= 2^28 and 1 <= depth <= %d", FM_MAX_DEPTH);
    svc_instance *inst = calloc(1, sizeof(*inst));
    if (!inst) goto err;
    inst->width = (uint64_t)width;
    inst->depth = (uint64_t)depth;
    inst->seed = (uint64_t)seed;
    inst->counters = rc_array_new((size_t)(width * depth) + 1, sizeof(uint64_t), svc_log_for(env, &inst->log));
    if (!inst->counters) goto err;
    *out = inst;
    return SVC_OK;
err:
    fm_destroy(inst);
    return svc_set_error(err, "flow_monitor: out of memory");
}

static uint64_t get_u64(const rc_array *a, size_t i) {
    uint64_t v;
    memcpy(&v, rc_array_get(a, i), sizeof(v));
    return v;
}

static int fm_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *cmd, *flow, *num;
    size_t cl, fl, nl;
    size_t total_idx = (size_t)(inst->width * inst->depth);
    int rc;
    if (!svc_next_token(&p, end, &cmd, &cl)) return svc_set_error(err, "flow_monitor: empty request");
    if (svc_tok_is(cmd, cl, "TOTAL")) {
        rc = svc_buf_printf(resp, "TOTAL %llu", (unsigned long long)get_u64(inst->counters, total_idx));
        return rc == SVC_OK ? SVC_OK : svc_set_error(err, "flow_monitor: out of memory");
    }
    int add = svc_tok_is(cmd, cl, "ADD");
    if (!add && !svc_tok_is(cmd, cl, "QUERY")) return svc_set_error(err, "flow_monitor: unknown command");
    if (!svc_next_token(&p, end, &flow, &fl)) return svc_set_error(err, "flow_monitor: missing flow key");
    uint64_t c = 1;
    if (add && svc_next_token(&p, end, &num, &nl) && svc_tok_u64(num, nl, &c) != SVC_OK)
        return svc_set_error(err, "flow_monitor: bad count");
    size_t idx[FM_MAX_DEPTH];
    uint64_t est = UINT64_MAX;
    for (uint64_t r = 0; r < inst->depth; r++) {
        idx[r] = (size_t)(r * inst->width + svc_hash64(flow, fl, inst->seed + r) % inst->width);
        uint64_t v = get_u64(inst->counters, idx[r]);
        if (v < est) est = v;
    }
    if (!add) {
        rc = svc_buf_printf(resp, "ESTIMATE %llu", (unsigned long long)est);
        return rc == SVC_OK ? SVC_OK : svc_set_error(err, "flow_monitor: out of memory");
    }
    for (uint64_t r = 0; r < inst->depth; r++) {
        uint64_t v = get_u64(inst->counters, idx[r]);
        v = v > UINT64_MAX - c ? UINT64_MAX : v + c; /* saturate */
        rc_array_set(inst->counters, idx[r], &v);
    }
    uint64_t t = get_u64(inst->counters, total_idx);
    t = t > UINT64_MAX - c ? UINT64_MAX : t + c;
    rc_array_set(inst->counters, total_idx, &t);
    return svc_buf_append(resp, "OK", 2) == SVC_OK ? SVC_OK : svc_set_error(err, "flow_monitor: out of memory");
}

static int fm_export(svc_instance *inst, svc_buf *out, char *err) {
    size_t start = out->len, mark;
    uint8_t params[24];
    svc_le64_put(params, inst->width);
    svc_le64_put(params + 8, inst->depth);
    svc_le64_put(params + 16, inst->seed);
    if (svc_section_begin(out, &mark) != SVC_OK || svc_buf_append(out, params, sizeof(params)) != SVC_OK) goto err;
    svc_section_end(out, mark);
    if (svc_section_begin(out, &mark) != SVC_OK || rc_array_snapshot(inst->counters, out) != SVC_OK) goto err;
    svc_section_end(out, mark);
    return SVC_OK;
err:
    out->len = start;
    return svc_set_error(err, "flow_monitor: out of memory");
}

static int fm_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    const uint8_t *p = state, *end = state + len, *params, *snap;
    size_t pl, sl;
    if (svc_section_next(&p, end, &params, &pl) != SVC_OK || pl != 24 ||
        svc_section_next(&p, end, &snap, &sl) != SVC_OK || p != end)
        return svc_set_error(err, "flow_monitor: malformed state");
    if (svc_le64_get(params) != inst->width || svc_le64_get(params + 8) != inst->depth ||
        svc_le64_get(params + 16) != inst->seed)
        return svc_set_error(err, "flow_monitor: state has other width/depth/seed");
    return rc_array_restore(inst->counters, snap, sl, err);
}

static int fm_drain_log(svc_instance *inst, svc_buf *out, char *err) {
    return svc_log_drain(&inst->log, out) == SVC_OK ? SVC_OK : svc_set_error(err, "flow_monitor: out of memory");
}

static int fm_apply_log(svc_instance *inst, const uint8_t *log, size_t len, char *err) {
    return rc_array_apply_log(inst->counters, log, len, err);
}

const svc_type svc_flow_monitor = {
    .name = "flow_monitor",
    .stateful = 1,
    .create = fm_create,
    .handle = fm_handle,
    .export_state = fm_export,
    .import_state = fm_import,
    .destroy = fm_destroy,
    .drain_log = fm_drain_log,
    .apply_log = fm_apply_log,
};
