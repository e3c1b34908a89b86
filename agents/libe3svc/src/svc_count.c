/* SPDX-License-Identifier: Apache-2.0 */
/*
 * count: bitmap counting of distinct items (paper Table 2), by linear counting
 * (Whang et al., 1990). Each item id is hashed to one bit of an m-bit bitmap held in an rc_array
 * of 64-bit words; with z zero bits the number of distinct items is estimated as
 * n = -m * ln(z / m) (standard error about sqrt(m(e^t - t - 1))/n with t = n/m). Repeated items
 * set the same bit and are not counted again.
 *
 * Wire format (text):
 *   "ADD <item>"  -> "NEW" (its bit was clear) | "SEEN" (already set: seen or a collision)
 *   "TEST <item>" -> "1" | "0"
 *   "COUNT"       -> "COUNT <estimate>" (rounded), or "COUNT <m> SATURATED" when no bit is clear
 * Config: bits=<m> (a multiple of 64, default 65536).
 * State export: the rc_array snapshot (the bitmap, m/64 little-endian-host u64 words).
 * Replication log: the bitmap's rc_array log records, as they are.
 */
#include <math.h>
#include <stdlib.h>

#include "e3svc/rc.h"
#include "svc_util.h"

#define COUNT_SEED 0xc0417ULL

struct svc_instance {
    rc_array *bitmap; /* m/64 words of uint64_t */
    uint64_t bits;    /* m, bits in the bitmap */
    svc_buf log;      /* the bitmap's replication-log records since the last drain */
};

static void count_destroy(svc_instance *inst) {
    if (!inst) return;
    rc_array_free(inst->bitmap);
    svc_buf_free(&inst->log);
    free(inst);
}

static int count_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    long bits = svc_config_long(config, "bits", 65536);
    if (bits < 64 || bits % 64 != 0 || bits > (1L << 34))
        return svc_set_error(err, "count: bits must be a multiple of 64 in 64..2^34");
    svc_instance *inst = calloc(1, sizeof(*inst));
    if (!inst) goto err;
    inst->bits = (uint64_t)bits;
    inst->bitmap = rc_array_new((size_t)bits / 64, sizeof(uint64_t), svc_log_for(env, &inst->log));
    if (!inst->bitmap) goto err;
    *out = inst;
    return SVC_OK;
err:
    count_destroy(inst);
    return svc_set_error(err, "count: out of memory");
}

static int count_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *cmd, *item;
    size_t cl, il;
    if (!svc_next_token(&p, end, &cmd, &cl)) return svc_set_error(err, "count: empty request");
    int rc;
    if (svc_tok_is(cmd, cl, "COUNT")) {
        uint64_t zeros = 0;
        for (size_t i = 0; i < rc_array_count(inst->bitmap); i++) {
            uint64_t w;
            memcpy(&w, rc_array_get(inst->bitmap, i), sizeof(w));
            zeros += 64 - (uint64_t)__builtin_popcountll(w);
        }
        if (zeros == 0) {
            rc = svc_buf_printf(resp, "COUNT %llu SATURATED", (unsigned long long)inst->bits);
        } else {
            double m = (double)inst->bits, n = zeros == inst->bits ? 0.0 : -m * log((double)zeros / m);
            rc = svc_buf_printf(resp, "COUNT %.0f", n);
        }
        return rc == SVC_OK ? SVC_OK : svc_set_error(err, "count: out of memory");
    }
    int add = svc_tok_is(cmd, cl, "ADD");
    if (!add && !svc_tok_is(cmd, cl, "TEST")) return svc_set_error(err, "count: unknown command");
    if (!svc_next_token(&p, end, &item, &il)) return svc_set_error(err, "count: missing item");
    uint64_t bit = svc_hash64(item, il, COUNT_SEED) % inst->bits, w;
    memcpy(&w, rc_array_get(inst->bitmap, (size_t)(bit / 64)), sizeof(w));
    int was_set = (int)((w >> (bit % 64)) & 1);
    if (!add) {
        rc = svc_buf_append(resp, was_set ? "1" : "0", 1);
    } else {
        if (!was_set) {
            w |= 1ULL << (bit % 64);
            if (rc_array_set(inst->bitmap, (size_t)(bit / 64), &w) != SVC_OK)
                return svc_set_error(err, "count: out of memory");
        }
        rc = svc_buf_append(resp, was_set ? "SEEN" : "NEW", was_set ? 4 : 3);
    }
    return rc == SVC_OK ? SVC_OK : svc_set_error(err, "count: out of memory");
}

static int count_export(svc_instance *inst, svc_buf *out, char *err) {
    return rc_array_snapshot(inst->bitmap, out) == SVC_OK ? SVC_OK : svc_set_error(err, "count: out of memory");
}

static int count_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    return rc_array_restore(inst->bitmap, state, len, err);
}

static int count_drain_log(svc_instance *inst, svc_buf *out, char *err) {
    return svc_log_drain(&inst->log, out) == SVC_OK ? SVC_OK : svc_set_error(err, "count: out of memory");
}

static int count_apply_log(svc_instance *inst, const uint8_t *log, size_t len, char *err) {
    return rc_array_apply_log(inst->bitmap, log, len, err);
}

const svc_type svc_count = {
    .name = "count",
    .stateful = 1,
    .create = count_create,
    .handle = count_handle,
    .export_state = count_export,
    .import_state = count_import,
    .destroy = count_destroy,
    .drain_log = count_drain_log,
    .apply_log = count_apply_log,
};
