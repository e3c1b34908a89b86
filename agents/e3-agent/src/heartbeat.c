/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heartbeat: the timer thread. It sleeps on a condition variable bound to CLOCK_MONOTONIC until
 * the next absolute deadline (so hb_stop wakes it at once and periods do not drift), builds a
 * record, and sends a batch when it holds batch_records records.
 */
#include "heartbeat.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e3svc/errbuf.h"

struct hb_agent {
    hb_config cfg;                 /* copy of the caller's config */
    char node_id[HB_NODE_ID_LEN];  /* copy of cfg.node_id */
    char proc_stat[256];           /* copy of cfg.proc_stat ("" = none) */
    pthread_t thread;              /* the timer thread */
    pthread_mutex_t lock;          /* guards stop */
    pthread_cond_t cond;           /* signalled by hb_stop */
    bool stop;                     /* set by hb_stop */
    hb_record *batch;              /* batch_records records */
    size_t n_batch;                /* records in batch */
    uint64_t seq;                  /* next record's sequence number */
    uint64_t cpu_total, cpu_idle;  /* previous /proc/stat jiffies (0: none yet) */
    atomic_uint_fast64_t records, sent, failed; /* counters */
};

E3_DEFINE_SET_ERROR(hb_set_error, HB_ERRBUF_LEN, HB_ERR)

static uint64_t hb_clock_ns(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Node CPU utilisation since the previous call, from /proc/stat's aggregate "cpu" line; falls
 * back to the engine's busy fraction when the file is absent or on the first call. */
static double hb_cpu_util(hb_agent *a) {
    double fallback = eng_busy_fraction(a->cfg.engine);
    if (!a->proc_stat[0]) return fallback;
    FILE *f = fopen(a->proc_stat, "r");
    if (!f) return fallback;
    unsigned long long v[8] = {0};
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                     &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (got < 4) return fallback;
    uint64_t total = 0, idle = v[3] + v[4]; /* idle + iowait */
    for (int i = 0; i < 8; i++) total += v[i];
    double util = fallback;
    if (a->cpu_total && total > a->cpu_total) {
        double dt = (double)(total - a->cpu_total), di = (double)(idle - a->cpu_idle);
        util = 1.0 - di / dt;
        if (util < 0) util = 0;
        if (util > 1) util = 1;
    }
    a->cpu_total = total;
    a->cpu_idle = idle;
    return util;
}

static void hb_build(hb_agent *a, hb_record *r) {
    memset(r, 0, sizeof(*r));
    snprintf(r->node_id, sizeof(r->node_id), "%s", a->node_id);
    r->seq = a->seq++;
    r->timestamp_ns = hb_clock_ns(CLOCK_REALTIME);
    r->queue_len = eng_queue_len(a->cfg.engine);
    if (a->cfg.ingress_len) r->queue_len += a->cfg.ingress_len(a->cfg.hooks_ctx);
    if (a->cfg.net) a->cfg.net(a->cfg.net_ctx, &r->net);
    r->cpu_util = hb_cpu_util(a);
    if (a->cfg.power) {
        pwr_sample s;
        char err[PWR_ERRBUF_LEN];
        double load = a->cfg.power_load ? a->cfg.power_load(a->cfg.hooks_ctx, a->cfg.engine, r->cpu_util) : r->cpu_util;
        if (pwr_read(a->cfg.power, load, &s, err) == PWR_OK) {
            r->power_w = s.watts;
            r->power_source = s.source; /* the sample's: a RAPL meter may have fallen back to the model */
            r->power_ok = 1;
        }
    }
    r->n_instances = eng_stats_all(a->cfg.engine, r->instances, HB_MAX_INSTANCES);
    size_t n = r->n_instances < HB_MAX_INSTANCES ? r->n_instances : HB_MAX_INSTANCES;
    if (a->cfg.latency) a->cfg.latency(a->cfg.net_ctx, r->instances, n, r->latency);
    atomic_fetch_add(&a->records, 1);
}

static void hb_flush(hb_agent *a) {
    if (!a->n_batch) return;
    char err[HB_ERRBUF_LEN];
    const hb_transport *t = &a->cfg.transport;
    if (t->ops->send_batch(t->ctx, a->batch, a->n_batch, err) == HB_OK)
        atomic_fetch_add(&a->sent, 1);
    else
        atomic_fetch_add(&a->failed, 1);
    a->n_batch = 0;
}

static void *hb_main(void *arg) {
    hb_agent *a = arg;
    uint64_t period = (uint64_t)a->cfg.period_ms * 1000000ull;
    uint64_t next = hb_clock_ns(CLOCK_MONOTONIC) + period;
    pthread_mutex_lock(&a->lock);
    while (!a->stop) {
        struct timespec dl = {.tv_sec = (time_t)(next / 1000000000ull), .tv_nsec = (long)(next % 1000000000ull)};
        int rc = pthread_cond_timedwait(&a->cond, &a->lock, &dl);
        if (a->stop) break;
        if (rc == 0) continue; /* spurious: wait again for the same deadline */
        pthread_mutex_unlock(&a->lock);
        hb_build(a, &a->batch[a->n_batch++]);
        if (a->n_batch == a->cfg.batch_records) hb_flush(a);
        uint64_t now = hb_clock_ns(CLOCK_MONOTONIC);
        next += period;
        if (next <= now) next = now + period; /* overran: skip missed ticks instead of bursting */
        pthread_mutex_lock(&a->lock);
    }
    pthread_mutex_unlock(&a->lock);
    hb_flush(a);
    return NULL;
}

hb_agent *hb_start(const hb_config *cfg, char *err) {
    int lock_ok = 0, cond_ok = 0;
    pthread_condattr_t ca;
    if (!cfg || !cfg->node_id || !cfg->engine || !cfg->transport.ops || !cfg->transport.ops->send_batch) {
        hb_set_error(err, "heartbeat: node_id, engine and transport are required");
        return NULL;
    }
    if (cfg->batch_records > HB_MAX_BATCH) {
        hb_set_error(err, "heartbeat: batch_records must be at most %d", HB_MAX_BATCH);
        return NULL;
    }
    hb_agent *a = calloc(1, sizeof(*a));
    if (!a) {
        hb_set_error(err, "heartbeat: out of memory");
        return NULL;
    }
    a->cfg = *cfg;
    if (!a->cfg.period_ms) a->cfg.period_ms = HB_DEFAULT_PERIOD_MS;
    if (!a->cfg.batch_records) a->cfg.batch_records = 1;
    snprintf(a->node_id, sizeof(a->node_id), "%s", cfg->node_id);
    snprintf(a->proc_stat, sizeof(a->proc_stat), "%s", cfg->proc_stat ? cfg->proc_stat : "/proc/stat");
    a->cfg.node_id = a->node_id;
    a->cfg.proc_stat = a->proc_stat;
    a->batch = calloc(a->cfg.batch_records, sizeof(*a->batch));
    if (!a->batch) {
        hb_set_error(err, "heartbeat: out of memory");
        goto err;
    }
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        hb_set_error(err, "heartbeat: cannot create lock");
        goto err;
    }
    lock_ok = 1;
    if (pthread_condattr_init(&ca) != 0) {
        hb_set_error(err, "heartbeat: cannot create condition");
        goto err;
    }
    int crc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (crc == 0) crc = pthread_cond_init(&a->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (crc != 0) {
        hb_set_error(err, "heartbeat: cannot create condition");
        goto err;
    }
    cond_ok = 1;
    if (pthread_create(&a->thread, NULL, hb_main, a) != 0) {
        hb_set_error(err, "heartbeat: cannot start the timer thread");
        goto err;
    }
    return a;
err:
    if (cond_ok) pthread_cond_destroy(&a->cond);
    if (lock_ok) pthread_mutex_destroy(&a->lock);
    free(a->batch);
    free(a);
    return NULL;
}

void hb_stop(hb_agent *a) {
    if (!a) return;
    pthread_mutex_lock(&a->lock);
    a->stop = true;
    pthread_cond_signal(&a->cond);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    pthread_cond_destroy(&a->cond);
    pthread_mutex_destroy(&a->lock);
    free(a->batch);
    free(a);
}

void hb_get_counters(hb_agent *a, hb_counters *out) {
    out->records = atomic_load(&a->records);
    out->batches_sent = atomic_load(&a->sent);
    out->batches_failed = atomic_load(&a->failed);
}
