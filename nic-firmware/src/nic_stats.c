/* SPDX-License-Identifier: Apache-2.0 */
/* nic_stats: see nic_stats.h. */
#include "nic_stats.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct nic_stats_writer {
    char path[512];        /* the JSON file */
    nic_tm *tm;            /* whose counters */
    pthread_t thread;      /* the writer */
    pthread_mutex_t lock;  /* guards quit, with wake */
    pthread_cond_t wake;   /* signalled by stop */
    int quit;              /* 1: write once more and return */
};

void nic_stats_json(FILE *f, const nic_tm_counters *c) {
    fprintf(f, "{\"emulated\": true, \"wire_rx\": %llu, \"wire_tx\": %llu, \"wire_rx_port\": [",
            (unsigned long long)c->wire_rx, (unsigned long long)c->wire_tx);
    for (size_t w = 0; w < NIC_MAX_WIRE; w++)
        fprintf(f, "%s%llu", w ? ", " : "", (unsigned long long)c->wire_rx_port[w]);
    fprintf(f, "], \"host_rx\": %llu, \"host_tx\": %llu, \"to_workers\": %llu, \"arp_replies\": %llu, \"drops\": {",
            (unsigned long long)c->host_rx, (unsigned long long)c->host_tx, (unsigned long long)c->to_workers,
            (unsigned long long)c->arp_replies);
    for (int d = DP_DROP_NONE + 1; d < DP_DROP_COUNT; d++)
        fprintf(f, "%s\"%s\": %llu", d > 1 ? ", " : "", dp_drop_name((dp_drop)d), (unsigned long long)c->drops[d]);
    fprintf(f, "}}\n");
}

static int nic_stats_write(nic_stats_writer *w, char *err) {
    char tmp[sizeof(w->path) + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", w->path);
    FILE *f = fopen(tmp, "w");
    if (!f) return nic_set_error(err, "--stats %s: %s", w->path, strerror(errno));
    nic_tm_counters c;
    nic_tm_counters_get(w->tm, &c);
    nic_stats_json(f, &c);
    if (fclose(f) != 0 || rename(tmp, w->path) != 0) return nic_set_error(err, "--stats %s: %s", w->path, strerror(errno));
    return NIC_OK;
}

static void *nic_stats_main(void *arg) {
    nic_stats_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->quit) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
        pthread_mutex_unlock(&w->lock);
        nic_stats_write(w, NULL);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

nic_stats_writer *nic_stats_start(const char *path, nic_tm *tm, char *err) {
    nic_stats_writer *w = calloc(1, sizeof(*w));
    if (!w) {
        nic_set_error(err, "out of memory");
        return NULL;
    }
    if (snprintf(w->path, sizeof(w->path), "%s", path) >= (int)sizeof(w->path)) {
        nic_set_error(err, "--stats: path too long");
        free(w);
        return NULL;
    }
    w->tm = tm;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (nic_stats_write(w, err) != NIC_OK || pthread_create(&w->thread, NULL, nic_stats_main, w) != 0) {
        if (err && !err[0]) nic_set_error(err, "cannot start the stats thread");
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

void nic_stats_stop(nic_stats_writer *w) {
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    nic_stats_write(w, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
