/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine: worker threads, per-worker MPSC inboxes, the instance table and statistics.
 *
 * Wake-up: each inbox has a counting semaphore posted once per successful push. A worker waits
 * on it, then pops; a NULL pop after a post only means the producer at the head has claimed its
 * slot but not published yet, so the worker retries. Shutdown sets `stopping`, waits until no
 * eng_submit is between its check and its push (`submitting` == 0), sets `quiesced` and posts
 * every semaphore: a worker that then finds its inbox empty exits, so every queued request runs.
 *
 * Instance lifetime: eng_submit counts the request into `inflight` under the table's read lock;
 * eng_remove refuses under the write lock while `inflight` > 0, so a queued request never
 * points at a freed instance.
 */
#include "engine.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "e3svc/errbuf.h"
#include "e3svc/svc.h"
#include "mpsc.h"

typedef struct eng_inst {
    uint32_t id;                       /* instance id */
    const svc_type *type;              /* service vtable */
    svc_instance *svc;                 /* the service's instance */
    pthread_mutex_t lock;              /* one worker inside handle() at a time */
    size_t workers[ENG_MAX_WORKERS];   /* indices of the workers running it */
    size_t n_workers;                  /* entries used in workers[] */
    atomic_uint_fast64_t rr;           /* round-robin cursor */
    atomic_uint_fast64_t inflight;     /* submitted, reply not yet delivered */
    atomic_uint_fast64_t completed;    /* requests handled */
    atomic_uint_fast64_t errors;       /* requests answered with SVC_ERR */
    atomic_uint_fast64_t busy_ns;      /* time inside handle(), ns */
    atomic_uint_fast64_t ema_ns;       /* EMA of execution time, ns (written under lock) */
    uint64_t deployed_ns;              /* CLOCK_MONOTONIC at deploy, ns */
    double pace;                       /* pacing factor (1: unpaced) */
    eng_log_fn on_log;                 /* replication hook, or NULL (not a primary) */
    void *log_ctx;                     /* passed to on_log */
} eng_inst;

typedef struct eng_req {
    eng_inst *inst;     /* target instance (kept alive by inst->inflight) */
    eng_op_fn op;       /* NULL: a request for handle(); else an op */
    void *op_ctx;       /* passed to op */
    eng_reply_fn reply; /* caller's callback */
    void *ctx;          /* passed to reply */
    size_t len;         /* request bytes */
    uint8_t data[];     /* the request */
} eng_req;

typedef struct eng_worker {
    eng *e;                     /* owning engine */
    size_t index;               /* 0..n_workers-1 */
    pthread_t thread;           /* the worker thread */
    int started;                /* 1 once thread is running */
    mpsc_queue *inbox;          /* requests for this worker */
    sem_t wake;                 /* posted once per pushed request, and at shutdown */
    int sem_ok;                 /* 1 once wake is initialised */
    svc_buf resp;               /* response buffer reused across requests */
    svc_buf log;                /* replication records drained after a request, reused */
    atomic_uint_fast64_t busy_ns; /* time inside handle(), ns */
    int fine_timers;            /* 1 once this thread's timer slack is 1 us (for pacing) */
} eng_worker;

struct eng {
    size_t n_workers;            /* worker threads */
    eng_worker *workers;         /* n_workers entries */
    pthread_rwlock_t lock;       /* guards insts / n_insts / cap_insts */
    eng_inst **insts;            /* deployed instances */
    size_t n_insts;              /* entries used */
    size_t cap_insts;            /* entries allocated */
    atomic_bool stopping;        /* set by eng_free: submissions refused */
    atomic_size_t submitting;    /* eng_submit calls between their check and their push */
    atomic_bool quiesced;        /* no push can happen any more: empty inbox means exit */
    uint64_t start_ns;           /* CLOCK_MONOTONIC at eng_new, ns */
    eng_pace_fn pace;            /* pacer, or NULL */
    void *pace_ctx;              /* passed to pace */
};

static uint64_t eng_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

E3_DEFINE_SET_ERROR(eng_set_error, ENG_ERRBUF_LEN, ENG_ERR)

/* A primary's records since the last drain go to its hook (instance entered). If drain_log runs
 * out of memory the records stay in the instance and leave with the next drain. */
static void eng_drain(eng_worker *w, eng_inst *in) {
    char err[SVC_ERRBUF_LEN];
    svc_buf_reset(&w->log);
    if (in->type->drain_log(in->svc, &w->log, err) == SVC_OK && w->log.len) in->on_log(in->log_ctx, w->log.data, w->log.len);
}

/* Run one op to completion on worker `w` (not counted in the instance's statistics). */
static void eng_run_op(eng_worker *w, eng_req *r) {
    eng_inst *in = r->inst;
    char err[ENG_ERRBUF_LEN];
    err[0] = '\0';
    svc_buf_reset(&w->resp);
    pthread_mutex_lock(&in->lock);
    uint64_t t0 = eng_now_ns();
    int rc = r->op(r->op_ctx, in->type, in->svc, r->data, r->len, &w->resp, err);
    if (in->on_log) eng_drain(w, in);
    atomic_fetch_add_explicit(&w->busy_ns, eng_now_ns() - t0, memory_order_relaxed);
    pthread_mutex_unlock(&in->lock);
    if (rc == ENG_OK)
        r->reply(r->ctx, ENG_OK, w->resp.data, w->resp.len);
    else
        r->reply(r->ctx, ENG_ERR, (const uint8_t *)err, strlen(err));
    atomic_fetch_sub_explicit(&in->inflight, 1, memory_order_release);
    free(r);
}

/* Hold worker `w` until `factor` x `dt` ns have passed since `t0` (an emulated slower core).
 * Sleeps most of the wait with a 1 us timer slack, spins the last few microseconds. Returns the
 * paced duration, ns. */
static uint64_t eng_pace(eng_worker *w, uint64_t t0, uint64_t dt, double factor) {
    if (factor <= 1.0) return dt;
    if (!w->fine_timers) {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        w->fine_timers = 1;
    }
    uint64_t until = t0 + (uint64_t)((double)dt * factor);
    for (uint64_t now = eng_now_ns(); now < until; now = eng_now_ns()) {
        uint64_t left = until - now;
        if (left > 20000) {
            struct timespec ts = {.tv_sec = (time_t)((left - 10000) / 1000000000ull),
                                  .tv_nsec = (long)((left - 10000) % 1000000000ull)};
            nanosleep(&ts, NULL);
        }
    }
    return eng_now_ns() - t0;
}

/* Run one request to completion on worker `w`. */
static void eng_run(eng_worker *w, eng_req *r) {
    if (r->op) {
        eng_run_op(w, r);
        return;
    }
    eng_inst *in = r->inst;
    char err[SVC_ERRBUF_LEN];
    err[0] = '\0';
    svc_buf_reset(&w->resp);
    pthread_mutex_lock(&in->lock);
    uint64_t t0 = eng_now_ns();
    int rc = in->type->handle(in->svc, r->data, r->len, &w->resp, err);
    uint64_t dt = eng_pace(w, t0, eng_now_ns() - t0, in->pace);
    if (in->on_log) eng_drain(w, in); /* before the reply, still inside: changes leave in order */
    uint64_t n = atomic_load_explicit(&in->completed, memory_order_relaxed);
    uint64_t ema = atomic_load_explicit(&in->ema_ns, memory_order_relaxed);
    ema = n == 0 ? dt : (uint64_t)(ENG_EMA_ALPHA * (double)dt + (1.0 - ENG_EMA_ALPHA) * (double)ema);
    atomic_store_explicit(&in->ema_ns, ema, memory_order_relaxed);
    atomic_fetch_add_explicit(&in->busy_ns, dt, memory_order_relaxed);
    if (rc != SVC_OK) atomic_fetch_add_explicit(&in->errors, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&in->completed, 1, memory_order_release);
    pthread_mutex_unlock(&in->lock);
    atomic_fetch_add_explicit(&w->busy_ns, dt, memory_order_relaxed);
    if (rc == SVC_OK)
        r->reply(r->ctx, ENG_OK, w->resp.data, w->resp.len);
    else
        r->reply(r->ctx, ENG_ERR, (const uint8_t *)err, strlen(err));
    atomic_fetch_sub_explicit(&in->inflight, 1, memory_order_release);
    free(r);
}

static void *eng_worker_main(void *arg) {
    eng_worker *w = arg;
    for (;;) {
        while (sem_wait(&w->wake) != 0) {} /* EINTR */
        eng_req *r;
        while ((r = mpsc_pop(w->inbox)) == NULL) {
            if (atomic_load(&w->e->quiesced)) return NULL;
            sched_yield(); /* a producer is publishing the head slot */
        }
        eng_run(w, r);
    }
}

void eng_set_pacer(eng *e, eng_pace_fn pace, void *ctx) {
    e->pace_ctx = ctx;
    e->pace = pace;
}

/* Look up `id`; caller holds e->lock. */
static eng_inst *eng_find(eng *e, uint32_t id, size_t *pos) {
    for (size_t i = 0; i < e->n_insts; i++)
        if (e->insts[i]->id == id) {
            if (pos) *pos = i;
            return e->insts[i];
        }
    return NULL;
}

static void eng_inst_destroy(eng_inst *in) {
    if (!in) return;
    if (in->svc) in->type->destroy(in->svc);
    pthread_mutex_destroy(&in->lock);
    free(in);
}

eng *eng_new(size_t n_workers, size_t queue_depth, char *err) {
    if (n_workers == 0 || n_workers > ENG_MAX_WORKERS) {
        eng_set_error(err, "engine: n_workers must be in 1..%d", ENG_MAX_WORKERS);
        return NULL;
    }
    if (queue_depth == 0) queue_depth = ENG_DEFAULT_QUEUE;
    int lock_ok = 0;
    eng *e = calloc(1, sizeof(*e));
    if (!e) goto oom;
    e->n_workers = n_workers;
    e->start_ns = eng_now_ns();
    atomic_init(&e->stopping, false);
    atomic_init(&e->submitting, 0);
    atomic_init(&e->quiesced, false);
    if (pthread_rwlock_init(&e->lock, NULL) != 0) goto oom;
    lock_ok = 1;
    e->workers = calloc(n_workers, sizeof(*e->workers));
    if (!e->workers) goto oom;
    for (size_t i = 0; i < n_workers; i++) {
        eng_worker *w = &e->workers[i];
        w->e = e;
        w->index = i;
        atomic_init(&w->busy_ns, 0);
        w->inbox = mpsc_new(queue_depth);
        if (!w->inbox) goto oom;
        if (sem_init(&w->wake, 0, 0) != 0) goto oom;
        w->sem_ok = 1;
    }
    for (size_t i = 0; i < n_workers; i++) {
        if (pthread_create(&e->workers[i].thread, NULL, eng_worker_main, &e->workers[i]) != 0) {
            eng_set_error(err, "engine: cannot start worker %zu", i);
            goto err;
        }
        e->workers[i].started = 1;
    }
    return e;
oom:
    eng_set_error(err, "engine: out of memory");
err:
    if (e && e->workers) {
        atomic_store(&e->quiesced, true);
        for (size_t i = 0; i < n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->started) {
                sem_post(&w->wake);
                pthread_join(w->thread, NULL);
            }
            if (w->sem_ok) sem_destroy(&w->wake);
            mpsc_free(w->inbox);
        }
        free(e->workers);
    }
    if (lock_ok) pthread_rwlock_destroy(&e->lock);
    free(e);
    return NULL;
}

void eng_free(eng *e) {
    if (!e) return;
    atomic_store(&e->stopping, true);
    while (atomic_load(&e->submitting) != 0) sched_yield();
    atomic_store(&e->quiesced, true);
    for (size_t i = 0; i < e->n_workers; i++) sem_post(&e->workers[i].wake);
    for (size_t i = 0; i < e->n_workers; i++) {
        eng_worker *w = &e->workers[i];
        pthread_join(w->thread, NULL);
        sem_destroy(&w->wake);
        mpsc_free(w->inbox);
        svc_buf_free(&w->resp);
        svc_buf_free(&w->log);
    }
    for (size_t i = 0; i < e->n_insts; i++) eng_inst_destroy(e->insts[i]);
    free(e->insts);
    free(e->workers);
    pthread_rwlock_destroy(&e->lock);
    free(e);
}

size_t eng_workers(const eng *e) {
    return e->n_workers;
}

int eng_deploy(eng *e, uint32_t instance_id, const char *type_name, const char *config,
               uint64_t worker_mask, char *err) {
    return eng_deploy_replicated(e, instance_id, type_name, config, worker_mask, NULL, NULL, err);
}

int eng_deploy_replicated(eng *e, uint32_t instance_id, const char *type_name, const char *config,
                          uint64_t worker_mask, eng_log_fn on_log, void *log_ctx, char *err) {
    char serr[SVC_ERRBUF_LEN];
    int locked = 0;
    const svc_type *t = svc_find(type_name ? type_name : "");
    if (!t) return eng_set_error(err, "engine: unknown service type \"%s\"", type_name ? type_name : "");
    if (on_log && !t->drain_log)
        return eng_set_error(err, "engine: %s is stateless: it has nothing to replicate", t->name);
    eng_inst *in = calloc(1, sizeof(*in));
    if (!in) return eng_set_error(err, "engine: out of memory");
    if (pthread_mutex_init(&in->lock, NULL) != 0) {
        free(in);
        return eng_set_error(err, "engine: cannot create instance lock");
    }
    in->id = instance_id;
    in->type = t;
    in->pace = e->pace ? e->pace(e->pace_ctx, t->name) : 1.0;
    for (size_t i = 0; i < e->n_workers; i++)
        if (worker_mask == 0 || (worker_mask >> i) & 1u) in->workers[in->n_workers++] = i;
    if (in->n_workers == 0) {
        eng_set_error(err, "engine: worker mask 0x%llx names no worker", (unsigned long long)worker_mask);
        goto err;
    }
    in->on_log = on_log;
    in->log_ctx = log_ctx;
    svc_env env = {.replicate = on_log != NULL};
    if (t->create(config, &env, &in->svc, serr) != SVC_OK) {
        in->svc = NULL;
        eng_set_error(err, "engine: %s", serr);
        goto err;
    }
    in->deployed_ns = eng_now_ns();
    pthread_rwlock_wrlock(&e->lock);
    locked = 1;
    if (eng_find(e, instance_id, NULL)) {
        eng_set_error(err, "engine: instance %u already deployed", instance_id);
        goto err;
    }
    if (e->n_insts == e->cap_insts) {
        size_t cap = e->cap_insts ? 2 * e->cap_insts : 16;
        eng_inst **v = realloc(e->insts, cap * sizeof(*v));
        if (!v) {
            eng_set_error(err, "engine: out of memory");
            goto err;
        }
        e->insts = v;
        e->cap_insts = cap;
    }
    e->insts[e->n_insts++] = in;
    pthread_rwlock_unlock(&e->lock);
    return ENG_OK;
err:
    if (locked) pthread_rwlock_unlock(&e->lock);
    eng_inst_destroy(in);
    return ENG_ERR;
}

int eng_remove(eng *e, uint32_t instance_id, char *err) {
    size_t pos = 0;
    pthread_rwlock_wrlock(&e->lock);
    eng_inst *in = eng_find(e, instance_id, &pos);
    if (!in) {
        pthread_rwlock_unlock(&e->lock);
        return eng_set_error(err, "engine: no instance %u", instance_id);
    }
    uint64_t busy = atomic_load_explicit(&in->inflight, memory_order_acquire);
    if (busy) {
        pthread_rwlock_unlock(&e->lock);
        return eng_set_error(err, "engine: instance %u has %llu requests in flight", instance_id,
                             (unsigned long long)busy);
    }
    e->insts[pos] = e->insts[--e->n_insts];
    pthread_rwlock_unlock(&e->lock);
    eng_inst_destroy(in);
    return ENG_OK;
}

/* eng_submit and eng_submit_op: a request (op NULL, round-robin) or an op (first worker). */
static int eng_enqueue(eng *e, uint32_t instance_id, eng_op_fn op, void *op_ctx, const uint8_t *req, size_t len,
                       eng_reply_fn reply, void *ctx, char *err) {
    int rc = ENG_ERR;
    eng_req *r = NULL;
    eng_inst *in = NULL;
    atomic_fetch_add(&e->submitting, 1);
    if (atomic_load(&e->stopping)) {
        eng_set_error(err, "engine: shutting down");
        goto err;
    }
    pthread_rwlock_rdlock(&e->lock);
    in = eng_find(e, instance_id, NULL);
    if (in) atomic_fetch_add_explicit(&in->inflight, 1, memory_order_relaxed);
    pthread_rwlock_unlock(&e->lock);
    if (!in) {
        eng_set_error(err, "engine: no instance %u", instance_id);
        goto err;
    }
    r = malloc(sizeof(*r) + len);
    if (!r) {
        eng_set_error(err, "engine: out of memory");
        goto err;
    }
    r->inst = in;
    r->op = op;
    r->op_ctx = op_ctx;
    r->reply = reply;
    r->ctx = ctx;
    r->len = len;
    if (len) memcpy(r->data, req, len);
    uint64_t start = op ? 0 : atomic_fetch_add_explicit(&in->rr, 1, memory_order_relaxed);
    for (size_t k = 0; k < (op ? 1 : in->n_workers); k++) {
        eng_worker *w = &e->workers[in->workers[(start + k) % in->n_workers]];
        if (mpsc_push(w->inbox, r) == MPSC_OK) {
            sem_post(&w->wake);
            atomic_fetch_sub(&e->submitting, 1);
            return ENG_OK;
        }
    }
    rc = ENG_ERR_FULL;
    eng_set_error(err, "engine: inboxes of instance %u are full", instance_id);
err:
    if (in) atomic_fetch_sub_explicit(&in->inflight, 1, memory_order_relaxed);
    free(r);
    atomic_fetch_sub(&e->submitting, 1);
    return rc;
}

int eng_submit(eng *e, uint32_t instance_id, const uint8_t *req, size_t len, eng_reply_fn reply,
               void *ctx, char *err) {
    return eng_enqueue(e, instance_id, NULL, NULL, req, len, reply, ctx, err);
}

int eng_submit_op(eng *e, uint32_t instance_id, eng_op_fn op, void *op_ctx, const uint8_t *data, size_t len,
                  eng_reply_fn reply, void *ctx, char *err) {
    return eng_enqueue(e, instance_id, op, op_ctx, data, len, reply, ctx, err);
}

static void eng_snapshot(eng_inst *in, uint64_t now, eng_inst_stats *out) {
    memset(out, 0, sizeof(*out));
    out->instance_id = in->id;
    snprintf(out->svc_type, sizeof(out->svc_type), "%s", in->type->name);
    out->completed = atomic_load_explicit(&in->completed, memory_order_acquire);
    out->errors = atomic_load_explicit(&in->errors, memory_order_relaxed);
    out->busy_ns = atomic_load_explicit(&in->busy_ns, memory_order_relaxed);
    out->inflight = atomic_load_explicit(&in->inflight, memory_order_relaxed);
    out->avg_exec_us = out->completed ? (double)out->busy_ns / (double)out->completed / 1e3 : 0.0;
    out->ema_exec_us = (double)atomic_load_explicit(&in->ema_ns, memory_order_relaxed) / 1e3;
    double wall = (double)(now - in->deployed_ns) * (double)in->n_workers;
    out->cpu_share = wall > 0 ? (double)out->busy_ns / wall : 0.0;
    if (out->cpu_share > 1.0) out->cpu_share = 1.0;
}

int eng_stats(eng *e, uint32_t instance_id, eng_inst_stats *out, char *err) {
    uint64_t now = eng_now_ns();
    pthread_rwlock_rdlock(&e->lock);
    eng_inst *in = eng_find(e, instance_id, NULL);
    if (in) eng_snapshot(in, now, out);
    pthread_rwlock_unlock(&e->lock);
    return in ? ENG_OK : eng_set_error(err, "engine: no instance %u", instance_id);
}

size_t eng_stats_all(eng *e, eng_inst_stats *out, size_t max) {
    uint64_t now = eng_now_ns();
    pthread_rwlock_rdlock(&e->lock);
    size_t n = e->n_insts;
    for (size_t i = 0; i < n && i < max; i++) eng_snapshot(e->insts[i], now, &out[i]);
    pthread_rwlock_unlock(&e->lock);
    return n;
}

size_t eng_queue_len(eng *e) {
    size_t n = 0;
    for (size_t i = 0; i < e->n_workers; i++) n += mpsc_len(e->workers[i].inbox);
    return n;
}

double eng_busy_fraction(eng *e) {
    uint64_t busy = 0;
    for (size_t i = 0; i < e->n_workers; i++)
        busy += atomic_load_explicit(&e->workers[i].busy_ns, memory_order_relaxed);
    double wall = (double)(eng_now_ns() - e->start_ns) * (double)e->n_workers;
    double f = wall > 0 ? (double)busy / wall : 0.0;
    return f > 1.0 ? 1.0 : f;
}
