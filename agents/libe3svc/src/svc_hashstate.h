/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private lifecycle for the services whose whole state is one rc_hash (kvs, ema, spike,
 * api_gateway, top_ranker, recommend, sql): create the instance with an empty table, free it,
 * export the table's snapshot, and import a snapshot by restoring it into a new table,
 * checking every entry with the service's callback, then swapping it in; and replication:
 * drain the table's log, apply a primary's log (checking every PUT with the same callback). A
 * service describes itself once in a `svc_hashstate` and calls these from its vtable functions.
 *
 * The replication log lives in the same allocation, just after the service's struct, so a
 * service keeps no field for it.
 */
#ifndef E3SVC_SVC_HASHSTATE_H
#define E3SVC_SVC_HASHSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "e3svc/rc.h"
#include "e3svc/svc.h"

/* Check one entry of an imported table against `inst` (whose own table is not yet replaced).
 * Returns 1 if the entry is acceptable, 0 if the import must be refused. */
typedef int (*svc_hashstate_check_fn)(const void *key, size_t klen, const void *val, size_t vlen,
                                      const svc_instance *inst);

typedef struct svc_hashstate {
    const char *name;             /* service name, prefixes error messages */
    size_t inst_size;             /* sizeof(struct svc_instance) */
    size_t table_off;             /* offsetof(struct svc_instance, <its rc_hash * field>) */
    svc_hashstate_check_fn check; /* NULL: every entry of a well-formed snapshot is accepted */
    const char *malformed;        /* error text (after "<name>: ") when check refuses an entry */
} svc_hashstate;

/* A zeroed instance of hs->inst_size bytes holding a new empty table (recording its changes
 * when env->replicate; env may be NULL), or NULL with "<name>: out of memory" written into
 * `err` (nothing leaked). */
svc_instance *svc_hashstate_create(const svc_hashstate *hs, const svc_env *env, char *err);
/* Free the instance's table and the instance itself; NULL is ignored. Free other heap fields
 * first. */
void svc_hashstate_destroy(const svc_hashstate *hs, svc_instance *inst);
/* Append the table's snapshot to `out`. SVC_OK, or SVC_ERR ("<name>: out of memory") with
 * `out` unchanged. */
int svc_hashstate_export(const svc_hashstate *hs, svc_instance *inst, svc_buf *out, char *err);
/* Replace the table with the snapshot in state[0..len). SVC_ERR with the table unchanged when
 * the snapshot is malformed, hs->check refuses an entry, or memory runs out. */
int svc_hashstate_import(const svc_hashstate *hs, svc_instance *inst, const uint8_t *state, size_t len, char *err);
/* drain_log: move the table's records into `out` (svc.h's contract). */
int svc_hashstate_drain(const svc_hashstate *hs, svc_instance *inst, svc_buf *out, char *err);
/* apply_log: validate the records and check every PUT with hs->check (SVC_ERR, table unchanged,
 * on a malformed log or a refused entry), then apply them (svc.h's contract). */
int svc_hashstate_apply(const svc_hashstate *hs, svc_instance *inst, const uint8_t *log, size_t len, char *err);

/* svc_type's entries take no context, so each service binds its svc_hashstate `hs` in static
 * functions; these macros write them. SNAPSHOT: <p>_export and <p>_import (the rc_hash snapshot);
 * LOG: <p>_drain_log and <p>_apply_log (the table's replication log). */
#define SVC_HASHSTATE_SNAPSHOT_OPS(p, hs)                                                          \
    static int p##_export(svc_instance *inst, svc_buf *out, char *err) {                           \
        return svc_hashstate_export(&(hs), inst, out, err);                                        \
    }                                                                                              \
    static int p##_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {       \
        return svc_hashstate_import(&(hs), inst, state, len, err);                                 \
    }

#define SVC_HASHSTATE_LOG_OPS(p, hs)                                                               \
    static int p##_drain_log(svc_instance *inst, svc_buf *out, char *err) {                        \
        return svc_hashstate_drain(&(hs), inst, out, err);                                         \
    }                                                                                              \
    static int p##_apply_log(svc_instance *inst, const uint8_t *log, size_t len, char *err) {      \
        return svc_hashstate_apply(&(hs), inst, log, len, err);                                    \
    }

#endif
