/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvs: an in-memory key-value store (paper Table 2), state in one rc_hash.
 *
 * Wire format (text; tokens separated by one or more spaces):
 *   "GET <key>"          -> "VALUE <value>" | "NOT_FOUND"
 *   "PUT <key> <value>"  -> "OK"    (value = every byte after the single space following key)
 *   "DEL <key>"          -> "DELETED" | "NOT_FOUND"
 *   "COUNT <prefix>"     -> "COUNT <n>": keys that start with <prefix> ("COUNT *": every key)
 * Config: max_value=<bytes> (default 65000, at most SVC_MAX_RESPONSE - 6).
 * State export: the rc_hash snapshot.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "e3svc/rc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

struct svc_instance {
    rc_hash *table;   /* key -> value */
    size_t max_value; /* bytes */
};

static const svc_hashstate kvs_state = {
    .name = "kvs",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, table),
};

static void kvs_destroy(svc_instance *inst) { svc_hashstate_destroy(&kvs_state, inst); }

static int kvs_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    long max_value = svc_config_long(config, "max_value", 65000);
    if (max_value <= 0 || max_value > SVC_MAX_RESPONSE - 6)
        return svc_set_error(err, "kvs: max_value must be in 1..%d", SVC_MAX_RESPONSE - 6);
    svc_instance *inst = svc_hashstate_create(&kvs_state, env, err);
    if (!inst) return SVC_ERR;
    inst->max_value = (size_t)max_value;
    *out = inst;
    return SVC_OK;
}

typedef struct kvs_prefix {
    const uint8_t *prefix; /* NULL: every key */
    size_t len;            /* bytes */
    size_t n;              /* keys that matched */
} kvs_prefix;

static int kvs_count_key(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    kvs_prefix *c = ctx;
    (void)v, (void)vl;
    if (!c->prefix || (kl >= c->len && memcmp(k, c->prefix, c->len) == 0)) c->n++;
    return 0;
}

/* "COUNT <n>" of the keys starting with `prefix` (`*` alone: all of them). */
static int kvs_count(const svc_instance *inst, const uint8_t *prefix, size_t pl, svc_buf *resp, char *err) {
    kvs_prefix c = {.prefix = pl == 1 && prefix[0] == '*' ? NULL : prefix, .len = pl};
    if (c.prefix) rc_hash_each(inst->table, kvs_count_key, &c);
    else c.n = rc_hash_count(inst->table);
    char out[32];
    int n = snprintf(out, sizeof(out), "COUNT %zu", c.n);
    return svc_buf_append(resp, out, (size_t)n) == SVC_OK ? SVC_OK : svc_set_error(err, "kvs: out of memory");
}

static int kvs_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *cmd, *key;
    size_t cl, kl, vl;
    if (!svc_next_token(&p, end, &cmd, &cl) || !svc_next_token(&p, end, &key, &kl))
        return svc_set_error(err, "kvs: expected \"<GET|PUT|DEL> <key> [value]\" or \"COUNT <prefix>\"");
    if (svc_tok_is(cmd, cl, "GET")) {
        const void *v = rc_hash_get(inst->table, key, kl, &vl);
        if (!v) return svc_buf_append(resp, "NOT_FOUND", 9) == SVC_OK ? SVC_OK : svc_set_error(err, "kvs: oom");
        if (svc_buf_append(resp, "VALUE ", 6) != SVC_OK || svc_buf_append(resp, v, vl) != SVC_OK)
            return svc_set_error(err, "kvs: out of memory");
        return SVC_OK;
    }
    if (svc_tok_is(cmd, cl, "PUT")) {
        if (p >= end) return svc_set_error(err, "kvs: PUT needs a value");
        p++; /* the single separator after the key */
        vl = (size_t)(end - p);
        if (vl > inst->max_value) return svc_set_error(err, "kvs: value of %zu bytes exceeds max_value", vl);
        if (rc_hash_put(inst->table, key, kl, p, vl) != SVC_OK) return svc_set_error(err, "kvs: out of memory");
        return svc_buf_append(resp, "OK", 2) == SVC_OK ? SVC_OK : svc_set_error(err, "kvs: out of memory");
    }
    if (svc_tok_is(cmd, cl, "COUNT")) return kvs_count(inst, key, kl, resp, err);
    if (svc_tok_is(cmd, cl, "DEL")) {
        const char *r = rc_hash_del(inst->table, key, kl) ? "DELETED" : "NOT_FOUND";
        return svc_buf_append(resp, r, strlen(r)) == SVC_OK ? SVC_OK : svc_set_error(err, "kvs: out of memory");
    }
    return svc_set_error(err, "kvs: unknown command \"%.*s\"", (int)(cl > 16 ? 16 : cl), (const char *)cmd);
}

SVC_HASHSTATE_SNAPSHOT_OPS(kvs, kvs_state)

SVC_HASHSTATE_LOG_OPS(kvs, kvs_state)

const svc_type svc_kvs = {
    .name = "kvs",
    .stateful = 1,
    .create = kvs_create,
    .handle = kvs_handle,
    .export_state = kvs_export,
    .import_state = kvs_import,
    .destroy = kvs_destroy,
    .drain_log = kvs_drain_log,
    .apply_log = kvs_apply_log,
};
