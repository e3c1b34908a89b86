/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report: turns the heartbeat module's records (engine ids, cumulative statistics) into the
 * contract's Heartbeat (controller instance ids, figures over the last period):
 *   requests_completed  completed since the previous record;
 *   exec_time_us        busy time / completed over the period (the engine's EMA when idle);
 *   exec_time_ema_us    the engine's EMA;
 *   cpu_share           busy time over the period / (period x online CPUs), 0..1;
 *   latency_*           the record's latency of the instance's requests answered OK in the period
 *                       (arrival -> reply, downstream calls included): count, mean, p99.
 * An instance seen for the first time counts from its deployment. Instances the id callback
 * does not know (removed meanwhile) are left out.
 */
#ifndef E3AGENT_REPORT_H
#define E3AGENT_REPORT_H

#include <stdint.h>

#include "e3rpc.h"
#include "heartbeat.h"

/* The controller id of engine instance `engine_id` into `out` (E3RPC_ID_LEN bytes); 1 if known. */
typedef int (*rep_id_fn)(void *ctx, uint32_t engine_id, char *out);

typedef struct rep_prev {
    uint32_t engine_id; /* instance */
    uint64_t completed; /* cumulative at the previous record */
    uint64_t busy_ns;   /* cumulative at the previous record */
} rep_prev;

/* What the previous record said; zero-initialise before the first rep_convert. One per stream
 * of records (one thread). */
typedef struct rep_state {
    uint64_t timestamp_ns;             /* of the previous record (0: none) */
    size_t n;                          /* entries in prev */
    rep_prev prev[HB_MAX_INSTANCES];   /* per instance */
    unsigned cpus;                     /* online CPUs (0: ask the system) */
} rep_state;

/* Fill `out` from `rec` for node `node_id`, naming instances through `id_of(ctx, ...)`. */
void rep_convert(rep_state *r, const hb_record *rec, const char *node_id, rep_id_fn id_of, void *ctx,
                 e3rpc_heartbeat *out);

#endif
