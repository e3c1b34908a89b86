/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reliable collections (paper §3.4, after Service Fabric): the containers that hold a stateful
 * service's state. Every mutation is appended to a replication log that a backup replica
 * applies (rc_*_apply_log), and the whole collection can be snapshotted and restored, which is
 * how state moves in a migration.
 */
#ifndef E3SVC_RC_H
#define E3SVC_RC_H

#include <stddef.h>
#include <stdint.h>

#include "e3svc/svc.h"

/* --- hashtable: byte-string keys to byte-string values ------------------------------------- */
typedef struct rc_hash rc_hash;

/* Create an empty table; `log` (may be NULL) receives one record per mutation. */
rc_hash *rc_hash_new(svc_buf *log);
void rc_hash_free(rc_hash *h);
/* Insert or replace. Returns SVC_OK, or SVC_ERR when memory runs out (nothing changed). */
int rc_hash_put(rc_hash *h, const void *key, size_t klen, const void *val, size_t vlen);
/* Remove; returns 1 if the key was present, 0 if not. */
int rc_hash_del(rc_hash *h, const void *key, size_t klen);
/* The value of `key` (valid until the next mutation) and its length, or NULL. */
const void *rc_hash_get(const rc_hash *h, const void *key, size_t klen, size_t *vlen);
size_t rc_hash_count(const rc_hash *h);
/* Call fn for every entry (order unspecified); stop early when it returns nonzero. */
void rc_hash_each(const rc_hash *h, int (*fn)(const void *k, size_t kl, const void *v, size_t vl, void *ctx),
                  void *ctx);
/* Append a snapshot of the whole table to `out`. */
int rc_hash_snapshot(const rc_hash *h, svc_buf *out);
/* Replace the contents with a snapshot. SVC_ERR (and unchanged) on a malformed snapshot. */
int rc_hash_restore(rc_hash *h, const uint8_t *snap, size_t len, char *err);
/* Apply replication-log records (as written to `log` by a primary). The whole log is validated
 * first: SVC_ERR and unchanged on a malformed log; SVC_ERR with the records before the failure
 * applied only when memory runs out. */
int rc_hash_apply_log(rc_hash *h, const uint8_t *log, size_t len, char *err);
/* Validate replication-log records without applying them, then call fn (may be NULL) for the
 * key and value of every PUT record, in order, stopping when it returns nonzero (what it saw is
 * the caller's to record in ctx). SVC_ERR with a reason on a malformed log (fn never called). */
int rc_hash_log_each_put(const uint8_t *log, size_t len,
                         int (*fn)(const void *k, size_t kl, const void *v, size_t vl, void *ctx), void *ctx,
                         char *err);

/* --- array: a fixed number of fixed-size elements ---------------------------------------- */
typedef struct rc_array rc_array;

rc_array *rc_array_new(size_t count, size_t elem_size, svc_buf *log); /* zero-filled */
void rc_array_free(rc_array *a);
size_t rc_array_count(const rc_array *a);
size_t rc_array_elem_size(const rc_array *a);
/* Pointer to element i for reading (NULL if out of range). */
const void *rc_array_get(const rc_array *a, size_t i);
/* Overwrite element i (logged). SVC_ERR if out of range. */
int rc_array_set(rc_array *a, size_t i, const void *elem);
int rc_array_snapshot(const rc_array *a, svc_buf *out);
int rc_array_restore(rc_array *a, const uint8_t *snap, size_t len, char *err);
/* Apply log records; validated first (SVC_ERR, unchanged, if malformed or of another shape). */
int rc_array_apply_log(rc_array *a, const uint8_t *log, size_t len, char *err);
/* Validate log records against `a`'s shape without applying them; SVC_ERR with a reason if not. */
int rc_array_log_check(const rc_array *a, const uint8_t *log, size_t len, char *err);

#endif
