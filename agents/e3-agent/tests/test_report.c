/* SPDX-License-Identifier: Apache-2.0 */
/* report: heartbeat records become contract heartbeats: controller ids, per-period deltas,
 * unknown instances left out, a power source always set. */
#include "check.h"
#include "report.h"

static int id_of(void *ctx, uint32_t engine_id, char *out) {
    (void)ctx;
    if (engine_id == 99) return 0; /* removed meanwhile */
    snprintf(out, E3RPC_ID_LEN, "inst-%u", engine_id);
    return 1;
}

int main(void) {
    static hb_record rec;
    static e3rpc_heartbeat hb;
    rep_state r = {.cpus = 2};
    rec.timestamp_ns = 1000000000ull;
    rec.queue_len = 7;
    rec.net = (hb_net){.rx_bytes = 100, .rx_packets = 2, .tx_bytes = 50, .tx_packets = 1};
    rec.cpu_util = 0.25;
    rec.power_w = 120.5;
    rec.power_ok = 1;
    rec.power_source = PWR_SOURCE_MODEL;
    rec.n_instances = 2;
    rec.instances[0] = (eng_inst_stats){.instance_id = 1, .completed = 10, .busy_ns = 20000, .ema_exec_us = 1.5,
                                        .cpu_share = 0.5};
    rec.instances[1] = (eng_inst_stats){.instance_id = 99, .completed = 3};
    rep_convert(&r, &rec, "node-1", id_of, NULL, &hb);
    CHECK(strcmp(hb.node_id, "node-1") == 0);
    CHECK_EQ_INT(hb.timestamp_unix_ns, 1000000000);
    CHECK_EQ_INT(hb.queue_length, 7);
    CHECK(hb.rx_bytes == 100 && hb.tx_packets == 1);
    CHECK(hb.power_watts == 120.5 && hb.power_source == E3RPC_POWER_MODEL);
    CHECK_EQ_INT(hb.n_instances, 1); /* 99 is unknown */
    CHECK(strcmp(hb.instances[0].instance_id, "inst-1") == 0);
    CHECK_EQ_INT(hb.instances[0].requests_completed, 10); /* first sight: since deployment */
    CHECK(hb.instances[0].exec_time_us == 2.0);            /* 20 µs / 10 */

    /* 50 ms later: 5 more requests, 10 ms of busy time on 2 CPUs */
    rec.timestamp_ns += 50000000ull;
    rec.instances[0].completed = 15;
    rec.instances[0].busy_ns = 20000 + 10000000;
    rec.power_ok = 0;
    rec.power_source = 0; /* no meter: still a valid source */
    rep_convert(&r, &rec, "node-1", id_of, NULL, &hb);
    CHECK_EQ_INT(hb.instances[0].requests_completed, 5);
    CHECK(hb.instances[0].exec_time_us == 2000.0);
    CHECK(hb.instances[0].cpu_share > 0.099 && hb.instances[0].cpu_share < 0.101);
    CHECK(hb.power_watts == 0 && hb.power_source == E3RPC_POWER_MODEL);

    /* idle period: no requests, the EMA stands in for the average */
    rec.timestamp_ns += 50000000ull;
    rep_convert(&r, &rec, "node-1", id_of, NULL, &hb);
    CHECK_EQ_INT(hb.instances[0].requests_completed, 0);
    CHECK(hb.instances[0].exec_time_us == 1.5 && hb.instances[0].cpu_share == 0);

    /* the source is the record's (the reading's): rapl, then model when a RAPL meter fell back */
    rec.timestamp_ns += 50000000ull;
    rec.power_ok = 1;
    rec.power_w = 80.0;
    rec.power_source = PWR_SOURCE_RAPL;
    rep_convert(&r, &rec, "node-1", id_of, NULL, &hb);
    CHECK(hb.power_watts == 80.0 && hb.power_source == E3RPC_POWER_RAPL);
    rec.timestamp_ns += 50000000ull;
    rec.power_w = 130.0;
    rec.power_source = PWR_SOURCE_MODEL;
    rep_convert(&r, &rec, "node-1", id_of, NULL, &hb);
    CHECK(hb.power_watts == 130.0 && hb.power_source == E3RPC_POWER_MODEL);
    return 0;
}
