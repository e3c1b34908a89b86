/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heartbeat: the orchestrator agent's periodic node report (paper §3 "orchestrator agent",
 * §3.3: measurements piggybacked on node health reports). A timer thread builds one record
 * every period (default 50 ms) — node id, timestamp, queued requests, rx/tx traffic, per-
 * instance engine statistics, node CPU utilisation, power and its source — and hands batches of
 * records to a transport through the `hb_transport` vtable. The heartbeat knows nothing of how
 * records travel (the gRPC shim plugs in here later) nor where traffic counters come from (a
 * callback).
 */
#ifndef E3AGENT_HEARTBEAT_H
#define E3AGENT_HEARTBEAT_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "latency.h"
#include "power.h"

#define HB_OK 0
#define HB_ERR -1
#define HB_ERRBUF_LEN 256         /* size of the error buffers callers pass */
#define HB_DEFAULT_PERIOD_MS 50   /* ms between records */
#define HB_NODE_ID_LEN 64         /* bytes, including the NUL */
#define HB_MAX_INSTANCES 64       /* instances reported per record (the rest are counted only) */
#define HB_MAX_BATCH 64           /* records per batch */

/* Traffic counters, cumulative since the node started. */
typedef struct hb_net {
    uint64_t rx_bytes;   /* bytes received */
    uint64_t rx_packets; /* packets received */
    uint64_t tx_bytes;   /* bytes sent */
    uint64_t tx_packets; /* packets sent */
} hb_net;

/* Fills `out` with the node's current traffic counters; called on the timer thread. */
typedef void (*hb_net_fn)(void *ctx, hb_net *out);

/* Fills `out[i]` with engine instance `insts[i]`'s request latencies since the previous call (zero
 * when unknown), for i < n; called on the timer thread, once per record. */
typedef void (*hb_latency_fn)(void *ctx, const eng_inst_stats *insts, size_t n, lat_summary *out);

/* One heartbeat record. */
typedef struct hb_record {
    char node_id[HB_NODE_ID_LEN];   /* the node's name */
    uint64_t seq;                   /* 0, 1, 2, ... per agent */
    uint64_t timestamp_ns;          /* CLOCK_REALTIME, ns since the epoch */
    uint64_t queue_len;             /* requests queued (engine + ingress ring), not yet started */
    hb_net net;                     /* traffic counters (zero without a net callback) */
    double cpu_util;                /* node CPU utilisation over the last period, 0..1 */
    double power_w;                 /* node power, W (0 if !power_ok) */
    pwr_source power_source;        /* where power_w came from: the reading's source, not the
                                     * meter's set-up one (0 without a meter) */
    int power_ok;                   /* 1 if the meter produced power_w */
    size_t n_instances;             /* instances on the engine (may exceed HB_MAX_INSTANCES) */
    eng_inst_stats instances[HB_MAX_INSTANCES]; /* the first min(n, HB_MAX_INSTANCES) */
    lat_summary latency[HB_MAX_INSTANCES];      /* theirs over the period (zero without a callback) */
} hb_record;

/* The transport vtable. send_batch is called on the timer thread with `n` records (valid only
 * during the call); it returns HB_OK or HB_ERR (the batch is then dropped and counted). */
typedef struct hb_transport_ops {
    int (*send_batch)(void *ctx, const hb_record *recs, size_t n, char *err);
} hb_transport_ops;

typedef struct hb_transport {
    const hb_transport_ops *ops; /* the implementation */
    void *ctx;                   /* passed to every op */
} hb_transport;

typedef struct hb_config {
    const char *node_id;       /* required */
    uint32_t period_ms;        /* 0: HB_DEFAULT_PERIOD_MS */
    size_t batch_records;      /* records per batch, 1..HB_MAX_BATCH (0: 1) */
    eng *engine;               /* required: source of queue length and instance stats */
    pwr_meter *power;          /* may be NULL; the heartbeat thread becomes its only reader */
    hb_net_fn net;             /* may be NULL */
    void *net_ctx;             /* passed to net */
    hb_latency_fn latency;     /* may be NULL; called with net_ctx */
    const char *proc_stat;     /* NULL: "/proc/stat"; "" or unreadable: engine busy fraction */
    size_t (*ingress_len)(void *ctx);    /* may be NULL: packets waiting before the engine (an
                                          * emulated NIC's traffic-manager ring), added to
                                          * queue_len */
    double (*power_load)(void *ctx, eng *e, double cpu_util); /* may be NULL (the CPU utilisation): the
                                          * load 0..1 handed to the power model */
    void *hooks_ctx;                     /* passed to ingress_len and power_load */
    hb_transport transport;    /* required */
} hb_config;

typedef struct hb_agent hb_agent; /* opaque */

/* Counters of an agent. */
typedef struct hb_counters {
    uint64_t records;        /* records built */
    uint64_t batches_sent;   /* batches the transport accepted */
    uint64_t batches_failed; /* batches the transport refused (dropped) */
} hb_counters;

/* Write a formatted reason into `err` (HB_ERRBUF_LEN bytes, may be NULL); returns HB_ERR. */
int hb_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Start the timer thread. The engine, meter and transport must outlive the agent. Returns NULL
 * with `err` filled on failure. */
hb_agent *hb_start(const hb_config *cfg, char *err);

/* Stop the timer thread, hand any partial batch to the transport, free the agent. NULL is fine. */
void hb_stop(hb_agent *a);

/* Snapshot of the agent's counters. Any thread. */
void hb_get_counters(hb_agent *a, hb_counters *out);

#endif
