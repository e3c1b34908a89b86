/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine: the execution engine (paper §3). One worker thread per core, each with its own MPSC
 * inbox; microservice instances (libe3svc service types) are deployed onto a set of workers and
 * eng_submit steers each request round-robin across that set. A worker runs one request to
 * completion (handle + reply callback), then takes the next.
 *
 * An instance deployed on several workers is entered by one worker at a time (a per-instance
 * mutex): libe3svc instances are not thread-safe. Deploy an instance on one worker for strict
 * run-to-completion without contention; on several to spread the surrounding work.
 *
 * Shutdown (eng_free) DRAINS: it refuses new submissions, lets the workers execute every
 * request already queued and deliver its reply, then joins them.
 *
 * Replication: an instance deployed with eng_deploy_replicated records its state changes and,
 * right after each request (or op) that made some, hands the drained records to its log hook,
 * still inside the instance, so hooks see the changes in the order they happened. Ops
 * (eng_submit_op) run a caller's function on an instance in place of a request: how a backup's
 * agent applies a primary's records without ever entering the instance from a second thread.
 *
 * Pacing (the emulated SmartNIC, docs/emulation.md): with a pacer set, an instance of a service
 * the pacer gives a factor f > 1 holds its worker, still inside the instance, until f x the time
 * handle() took has passed (sleeping the rest): a slower core, run to completion. Statistics
 * count the paced time.
 *
 * The engine knows nothing of transports: replies leave through the caller's callback.
 */
#ifndef E3AGENT_ENGINE_H
#define E3AGENT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "e3svc/svc.h"

#define ENG_OK 0
#define ENG_ERR -1
#define ENG_ERR_FULL -2          /* eng_submit: every inbox of the instance is full (retry later) */
#define ENG_ERRBUF_LEN 256       /* size of the error buffers callers pass */
#define ENG_MAX_WORKERS 64       /* workers per engine */
#define ENG_DEFAULT_QUEUE 4096   /* requests per worker inbox */
#define ENG_SVC_NAME_LEN 32      /* bytes, including the NUL */
#define ENG_EMA_ALPHA 0.125      /* weight of the newest sample in the execution-time EMA */

typedef struct eng eng; /* opaque */

/* Reply to one request, called exactly once on a worker thread. `status` is ENG_OK with the
 * service's response, or ENG_ERR with the service's error text as `resp`. `resp` is valid only
 * during the call. */
typedef void (*eng_reply_fn)(void *ctx, int status, const uint8_t *resp, size_t len);

/* Log hook of a replicated instance: `records` (valid during the call only) are what the
 * service's drain_log produced after one request or op, never empty. Called on the worker with
 * the instance entered (no other request or op runs on it), before the request's reply: calls
 * for one instance come one at a time, in the order of the changes. Must not block and must not
 * submit to the engine and wait. */
typedef void (*eng_log_fn)(void *ctx, const uint8_t *records, size_t len);

/* An op: run on the instance (entered, on a worker) in place of a request, with the bytes given
 * to eng_submit_op. Return ENG_OK with the answer appended to `resp` (reset by the engine), or
 * ENG_ERR with a reason in `err` (ENG_ERRBUF_LEN bytes); the reply callback gets either. */
typedef int (*eng_op_fn)(void *op_ctx, const svc_type *type, svc_instance *inst, const uint8_t *data, size_t len,
                         svc_buf *resp, char *err);

/* A snapshot of one instance's statistics (read while the workers run). */
typedef struct eng_inst_stats {
    uint32_t instance_id;             /* as deployed */
    char svc_type[ENG_SVC_NAME_LEN];  /* service type name, e.g. "kvs" */
    uint64_t completed;               /* requests handled (including service errors) */
    uint64_t errors;                  /* requests the service answered with SVC_ERR */
    uint64_t busy_ns;                 /* total time inside handle(), ns */
    double avg_exec_us;               /* busy_ns / completed, microseconds */
    double ema_exec_us;               /* EMA (ENG_EMA_ALPHA) of execution time, microseconds */
    double cpu_share;                 /* busy_ns / (wall time since deploy x its workers), 0..1 */
    uint64_t inflight;                /* submitted, reply not yet delivered */
} eng_inst_stats;

/* The pacing factor for instances of `svc_type` (>= 1; anything below 1 counts as 1). */
typedef double (*eng_pace_fn)(void *ctx, const char *svc_type);

/* Write a formatted reason into `err` (ENG_ERRBUF_LEN bytes, may be NULL); returns ENG_ERR. */
int eng_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Start an engine with `n_workers` worker threads (1..ENG_MAX_WORKERS), each with an inbox of
 * `queue_depth` requests (0: ENG_DEFAULT_QUEUE). Returns NULL with `err` filled on failure. */
eng *eng_new(size_t n_workers, size_t queue_depth, char *err);

/* Drain and stop: new submissions fail, queued requests are executed and replied, workers are
 * joined, remaining instances destroyed. NULL is fine. No eng_* call may race with it. */
void eng_free(eng *e);

/* Pace the instances deployed from now on by `pace(ctx, type)` (NULL: unpaced, the default).
 * Call before deploying. */
void eng_set_pacer(eng *e, eng_pace_fn pace, void *ctx);

/* Number of worker threads. */
size_t eng_workers(const eng *e);

/* Create an instance of service type `type_name` (libe3svc catalogue name) from `config` and
 * deploy it as `instance_id` on the workers whose bits are set in `worker_mask` (bit i = worker
 * i; 0 = all workers). Fails if the id is taken, the type unknown, the mask names no existing
 * worker, or the service refuses the config. Any thread. */
int eng_deploy(eng *e, uint32_t instance_id, const char *type_name, const char *config,
               uint64_t worker_mask, char *err);

/* eng_deploy for a replication primary: the instance is created with svc_env.replicate and,
 * after every request or op that changed its state, `on_log(log_ctx, records, len)` gets the
 * records (see eng_log_fn). Fails like eng_deploy, and if the type has no drain_log (stateless). */
int eng_deploy_replicated(eng *e, uint32_t instance_id, const char *type_name, const char *config,
                          uint64_t worker_mask, eng_log_fn on_log, void *log_ctx, char *err);

/* Remove and destroy instance `instance_id`. Fails (changing nothing) if it is unknown or has
 * requests in flight: remove while idle. Any thread. */
int eng_remove(eng *e, uint32_t instance_id, char *err);

/* Queue a request (`len` bytes, copied) for `instance_id` on the next of its workers in
 * round-robin order (skipping full inboxes). On ENG_OK `reply` will be called exactly once.
 * Returns ENG_ERR (unknown instance, shutting down, out of memory) or ENG_ERR_FULL (all its
 * inboxes full); then `reply` is never called. Any thread, including a worker's reply callback. */
int eng_submit(eng *e, uint32_t instance_id, const uint8_t *req, size_t len, eng_reply_fn reply,
               void *ctx, char *err);

/* Queue an op (`len` bytes of `data`, copied) for `instance_id`. Ops always run on the
 * instance's first worker, so the ops one thread submits run in the order submitted. They do not
 * count as requests in the instance's statistics (the worker's busy time includes them). Same
 * return values and reply contract as eng_submit. Any thread. */
int eng_submit_op(eng *e, uint32_t instance_id, eng_op_fn op, void *op_ctx, const uint8_t *data, size_t len,
                  eng_reply_fn reply, void *ctx, char *err);

/* Statistics of `instance_id` into `out`. Returns ENG_ERR if unknown. Any thread. */
int eng_stats(eng *e, uint32_t instance_id, eng_inst_stats *out, char *err);

/* Statistics of up to `max` instances into `out`; returns how many instances exist (which may
 * exceed `max`: only the first `max` are written). Any thread. */
size_t eng_stats_all(eng *e, eng_inst_stats *out, size_t max);

/* Requests queued across all inboxes, not yet started (approximate). Any thread. */
size_t eng_queue_len(eng *e);

/* Fraction of worker time spent handling requests since the engine started, 0..1. */
double eng_busy_fraction(eng *e);

#endif
