/* SPDX-License-Identifier: Apache-2.0 */
/* report: hb_record -> e3rpc_heartbeat, with per-period deltas (see report.h). */
#include "report.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const rep_prev *rep_find(const rep_state *r, uint32_t engine_id) {
    for (size_t i = 0; i < r->n; i++)
        if (r->prev[i].engine_id == engine_id) return &r->prev[i];
    return NULL;
}

void rep_convert(rep_state *r, const hb_record *rec, const char *node_id, rep_id_fn id_of, void *ctx,
                 e3rpc_heartbeat *out) {
    if (!r->cpus) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        r->cpus = n > 0 ? (unsigned)n : 1;
    }
    memset(out, 0, sizeof(*out));
    snprintf(out->node_id, sizeof(out->node_id), "%s", node_id);
    out->timestamp_unix_ns = (int64_t)rec->timestamp_ns;
    out->queue_length = rec->queue_len > UINT32_MAX ? UINT32_MAX : (uint32_t)rec->queue_len;
    out->rx_bytes = rec->net.rx_bytes;
    out->tx_bytes = rec->net.tx_bytes;
    out->rx_packets = rec->net.rx_packets;
    out->tx_packets = rec->net.tx_packets;
    out->cpu_utilization = rec->cpu_util < 0 ? 0 : rec->cpu_util > 1 ? 1 : rec->cpu_util;
    out->power_watts = rec->power_ok && rec->power_w > 0 ? rec->power_w : 0;
    /* The controller refuses a heartbeat without a source; without a meter we say "model". */
    out->power_source = rec->power_source == PWR_SOURCE_RAPL ? E3RPC_POWER_RAPL : E3RPC_POWER_MODEL;

    uint64_t period_ns = r->timestamp_ns && rec->timestamp_ns > r->timestamp_ns ? rec->timestamp_ns - r->timestamp_ns : 0;
    size_t n = rec->n_instances < HB_MAX_INSTANCES ? rec->n_instances : HB_MAX_INSTANCES;
    rep_state next = {.timestamp_ns = rec->timestamp_ns, .cpus = r->cpus};
    for (size_t i = 0; i < n; i++) {
        const eng_inst_stats *st = &rec->instances[i];
        next.prev[next.n++] = (rep_prev){st->instance_id, st->completed, st->busy_ns};
        if (out->n_instances == E3RPC_MAX_INSTANCES) continue;
        e3rpc_instance_stats *o = &out->instances[out->n_instances];
        if (!id_of(ctx, st->instance_id, o->instance_id)) continue;
        const rep_prev *p = rep_find(r, st->instance_id);
        uint64_t done = st->completed - (p && p->completed <= st->completed ? p->completed : 0);
        uint64_t busy = st->busy_ns - (p && p->busy_ns <= st->busy_ns ? p->busy_ns : 0);
        o->requests_completed = done;
        o->exec_time_ema_us = st->ema_exec_us;
        o->exec_time_us = done ? (double)busy / (double)done / 1000.0 : st->ema_exec_us;
        double share = p && period_ns ? (double)busy / ((double)period_ns * r->cpus) : st->cpu_share / r->cpus;
        o->cpu_share = share < 0 ? 0 : share > 1 ? 1 : share;
        o->latency_count = rec->latency[i].count;
        o->latency_avg_us = rec->latency[i].avg_us;
        o->latency_p99_us = rec->latency[i].p99_us;
        out->n_instances++;
    }
    *r = next;
}
