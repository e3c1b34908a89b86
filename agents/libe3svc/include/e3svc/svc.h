/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libe3svc: the paper's 16 microservices (Table 2) behind one interface.
 *
 * A service type is a vtable (`svc_type`); an instance is created from a config string,
 * handles requests run-to-completion (request bytes in, response bytes out), and exports /
 * imports its state so a migration target can take over. A stateful service also drains the
 * records of its state changes (drain_log) so a backup replica can follow it (apply_log). The
 * transport and the execution engine know nothing of what a service does: they only call this
 * vtable.
 */
#ifndef E3SVC_SVC_H
#define E3SVC_SVC_H

#include <stddef.h>
#include <stdint.h>

#define SVC_OK 0
#define SVC_ERR -1
#define SVC_ERRBUF_LEN 256 /* size of the error buffer callers pass */
#define SVC_MAX_RESPONSE 65536 /* bytes; a response never exceeds this */

/* A growable byte buffer owned by its user: responses and exported state are written here. */
typedef struct svc_buf {
    uint8_t *data; /* heap memory, or NULL when empty */
    size_t len;    /* bytes used */
    size_t cap;    /* bytes allocated */
} svc_buf;

/* Append `n` bytes to `b`, growing it. Returns SVC_OK, or SVC_ERR when memory runs out. */
int svc_buf_append(svc_buf *b, const void *bytes, size_t n);
/* Empty `b` without freeing its memory. */
void svc_buf_reset(svc_buf *b);
/* Free `b`'s memory; it may be reused after. */
void svc_buf_free(svc_buf *b);

/* Clock injected into services that depend on time (api_gateway's token bucket, ema). */
typedef uint64_t (*svc_clock_fn)(void *ctx); /* nanoseconds, monotonic */

typedef struct svc_env {
    svc_clock_fn now; /* NULL: CLOCK_MONOTONIC */
    void *clock_ctx;  /* passed to now() */
    int replicate;    /* nonzero: record every state change for drain_log (a replication primary).
                       * Zero (and a NULL env): nothing is recorded, drain_log yields nothing. */
} svc_env;

typedef struct svc_instance svc_instance; /* opaque: one instance of one service type */

/* One microservice type. Every function returns SVC_OK or SVC_ERR; on SVC_ERR it has written a
 * reason into `err` (SVC_ERRBUF_LEN bytes) through svc_set_error and changed nothing. */
typedef struct svc_type {
    const char *name; /* catalogue name, e.g. "kvs" */
    int stateful;     /* 1 if its state lives in reliable collections (paper Table 2) */
    /* Create an instance from `config` (key=value pairs separated by ';', may be NULL or ""). */
    int (*create)(const char *config, const svc_env *env, svc_instance **out, char *err);
    /* Handle one request; append the response to `resp` (which the caller reset). */
    int (*handle)(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err);
    /* Serialise the whole state into `out` (appended). Stateless services export nothing. */
    int (*export_state)(svc_instance *inst, svc_buf *out, char *err);
    /* Replace the state with one exported by the same service type. */
    int (*import_state)(svc_instance *inst, const uint8_t *state, size_t len, char *err);
    /* Free the instance. */
    void (*destroy)(svc_instance *inst);
    /* Replication (docs/agents.md, "Replication"). NULL for stateless services (stateful == 0);
     * every stateful service implements both.
     *
     * drain_log: move the replication-log records recorded since the last drain (every change
     * of the reliable collections, import_state included) into `out`, appended, and forget
     * them: a second drain with no request in between appends nothing. Appends nothing when
     * nothing changed or the instance was created without env->replicate. SVC_ERR only when
     * memory runs out (`out` unchanged, the records kept for the next drain). */
    int (*drain_log)(svc_instance *inst, svc_buf *out, char *err);
    /* apply_log: apply records drained from a primary of the same type and config, in the
     * order they were drained (several drains may be concatenated). The whole log is checked
     * first, framing and the values the service would refuse in an import: SVC_ERR with the
     * state unchanged on a malformed log. Running out of memory part-way is the one case that
     * leaves the records before the failure applied (SVC_ERR, "out of memory"). An instance
     * created with env->replicate records what it applies, so a backup can feed a further
     * backup. */
    int (*apply_log)(svc_instance *inst, const uint8_t *log, size_t len, char *err);
} svc_type;

/* The registered service types, in catalogue order; `*count` receives how many. */
const svc_type *const *svc_types(size_t *count);
/* The service type called `name`, or NULL. */
const svc_type *svc_find(const char *name);

/* Write a formatted reason into `err` (SVC_ERRBUF_LEN bytes); returns SVC_ERR for `return svc_set_error(...)`. */
int svc_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read integer/float/string values from a config string "k1=v1;k2=v2". Missing keys give `dflt`. */
long svc_config_long(const char *config, const char *key, long dflt);
double svc_config_double(const char *config, const char *key, double dflt);
/* Copy the value of `key` into `out` (size `n`); returns 1 if found, else 0 (out = ""). */
int svc_config_str(const char *config, const char *key, char *out, size_t n);

#endif
