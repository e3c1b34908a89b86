/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one-rc_hash service lifecycle (see svc_hashstate.h). The instance stays opaque here: its
 * table is reached through the byte offset the service gave in its svc_hashstate, its
 * replication log (an hs_log) sits after the service's struct in the same allocation.
 */
#include <stdalign.h>
#include <stdlib.h>

#include "svc_hashstate.h"
#include "svc_util.h"

typedef struct hs_log {
    svc_buf records; /* replication-log records since the last drain */
    int on;          /* 1 when the table records its changes into `records` */
} hs_log;

/* Where the hs_log starts: the service's struct, rounded up to hs_log's alignment. */
static size_t hs_log_off(const svc_hashstate *hs) {
    return (hs->inst_size + alignof(hs_log) - 1) / alignof(hs_log) * alignof(hs_log);
}

/* The address of the instance's table pointer. */
static rc_hash **hs_table(const svc_hashstate *hs, svc_instance *inst) {
    return (rc_hash **)(void *)((char *)inst + hs->table_off);
}

static hs_log *hs_log_of(const svc_hashstate *hs, svc_instance *inst) {
    return (hs_log *)(void *)((char *)inst + hs_log_off(hs));
}

/* The log a (new) table of this instance records into, or NULL. */
static svc_buf *hs_records(const svc_hashstate *hs, svc_instance *inst) {
    hs_log *l = hs_log_of(hs, inst);
    return l->on ? &l->records : NULL;
}

svc_instance *svc_hashstate_create(const svc_hashstate *hs, const svc_env *env, char *err) {
    svc_instance *inst = calloc(1, hs_log_off(hs) + sizeof(hs_log));
    if (!inst) goto err;
    hs_log_of(hs, inst)->on = env && env->replicate;
    *hs_table(hs, inst) = rc_hash_new(hs_records(hs, inst));
    if (!*hs_table(hs, inst)) goto err;
    return inst;
err:
    free(inst);
    svc_set_error(err, "%s: out of memory", hs->name);
    return NULL;
}

void svc_hashstate_destroy(const svc_hashstate *hs, svc_instance *inst) {
    if (!inst) return;
    rc_hash_free(*hs_table(hs, inst));
    svc_buf_free(&hs_log_of(hs, inst)->records);
    free(inst);
}

int svc_hashstate_export(const svc_hashstate *hs, svc_instance *inst, svc_buf *out, char *err) {
    if (rc_hash_snapshot(*hs_table(hs, inst), out) != SVC_OK) return svc_set_error(err, "%s: out of memory", hs->name);
    return SVC_OK;
}

typedef struct hs_check {
    const svc_hashstate *hs;  /* whose check to run */
    const svc_instance *inst; /* passed to it */
    int bad;                  /* set at the first refused entry or PUT */
} hs_check;

/* rc_hash_each / rc_hash_log_each_put callback: flag (in ctx) and stop at the first entry or
 * logged PUT the service refuses. */
static int hs_check_entry(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    hs_check *c = ctx;
    if (!c->hs->check(k, kl, v, vl, c->inst)) c->bad = 1;
    return c->bad;
}

int svc_hashstate_import(const svc_hashstate *hs, svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    rc_hash **table = hs_table(hs, inst);
    if (!hs->check) return rc_hash_restore(*table, state, len, err); /* all-or-nothing already */
    /* The new table records into the instance's log (its restore logs CLEAR + PUTs, which is
     * what a backup needs); a refused import takes those records back. */
    svc_buf *log = hs_records(hs, inst);
    size_t mark = log ? log->len : 0;
    rc_hash *h = rc_hash_new(log);
    if (!h) return svc_set_error(err, "%s: out of memory", hs->name);
    if (rc_hash_restore(h, state, len, err) != SVC_OK) goto err;
    hs_check c = {hs, inst, 0};
    rc_hash_each(h, hs_check_entry, &c);
    if (c.bad) {
        svc_set_error(err, "%s: %s", hs->name, hs->malformed);
        goto err;
    }
    rc_hash_free(*table);
    *table = h;
    return SVC_OK;
err:
    if (log) log->len = mark;
    rc_hash_free(h);
    return SVC_ERR;
}

int svc_hashstate_drain(const svc_hashstate *hs, svc_instance *inst, svc_buf *out, char *err) {
    if (svc_log_drain(&hs_log_of(hs, inst)->records, out) != SVC_OK)
        return svc_set_error(err, "%s: out of memory", hs->name);
    return SVC_OK;
}

int svc_hashstate_apply(const svc_hashstate *hs, svc_instance *inst, const uint8_t *log, size_t len, char *err) {
    hs_check c = {hs, inst, 0};
    if (rc_hash_log_each_put(log, len, hs->check ? hs_check_entry : NULL, &c, err) != SVC_OK) return SVC_ERR;
    if (c.bad) return svc_set_error(err, "%s: replication log refused (%s)", hs->name, hs->malformed);
    return rc_hash_apply_log(*hs_table(hs, inst), log, len, err);
}
