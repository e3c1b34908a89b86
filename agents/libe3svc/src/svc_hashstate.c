/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one-rc_hash service lifecycle (see svc_hashstate.h). The instance stays opaque here: its
 * table is reached through the byte offset the service gave in its svc_hashstate.
 */
#include <stdlib.h>

#include "svc_hashstate.h"

/* The address of the instance's table pointer. */
static rc_hash **hs_table(const svc_hashstate *hs, svc_instance *inst) {
    return (rc_hash **)(void *)((char *)inst + hs->table_off);
}

svc_instance *svc_hashstate_create(const svc_hashstate *hs, char *err) {
    svc_instance *inst = calloc(1, hs->inst_size);
    if (!inst) goto err;
    *hs_table(hs, inst) = rc_hash_new(NULL);
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
    free(inst);
}

int svc_hashstate_export(const svc_hashstate *hs, svc_instance *inst, svc_buf *out, char *err) {
    if (rc_hash_snapshot(*hs_table(hs, inst), out) != SVC_OK) return svc_set_error(err, "%s: out of memory", hs->name);
    return SVC_OK;
}

typedef struct hs_check {
    const svc_hashstate *hs;  /* whose check to run */
    const svc_instance *inst; /* passed to it */
    int bad;                  /* set at the first refused entry */
} hs_check;

/* rc_hash_each callback: flag (in ctx) and stop at the first entry the service refuses. */
static int hs_check_entry(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    hs_check *c = ctx;
    if (!c->hs->check(k, kl, v, vl, c->inst)) c->bad = 1;
    return c->bad;
}

int svc_hashstate_import(const svc_hashstate *hs, svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    rc_hash **table = hs_table(hs, inst);
    if (!hs->check) return rc_hash_restore(*table, state, len, err); /* all-or-nothing already */
    rc_hash *h = rc_hash_new(NULL);
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
    rc_hash_free(h);
    return SVC_ERR;
}
