// SPDX-License-Identifier: Apache-2.0
//
// ingest::PendingDelivery and rejection_kind: a refusal's label as agent_hub.rejection_kind gives it; an
// accept's items as columns (timestamps from the batch), SmartNIC heartbeats copied whole, each node heard once;
// counts by label; stream ends and the flush; take() hands it all over and starts empty; the rollup rows'
// fields.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pending_delivery.h"
#include "check.h"

namespace {

bool same(const char *a, const char *b) { return std::string(a) == b; }

void kinds() {
    CHECK(same(ingest::rejection_kind(ingest::kNotRegistered), "not_registered"));
    CHECK(same(ingest::rejection_kind(ingest::out_of_order(1500000)), "out_of_order"));
    CHECK(same(ingest::rejection_kind(ingest::stale_epoch(1, 2)), "stale_epoch"));
    CHECK(same(ingest::rejection_kind("timestamp is more than 300 s old"), "invalid"));
    CHECK(same(ingest::rejection_kind("node not registered by this agent!"), "invalid"));
}

void filling() {
    e3::agent::v1::HeartbeatBatch batch;
    for (int i = 0; i < 3; ++i) {
        e3::agent::v1::Heartbeat *heartbeat = batch.add_heartbeats();
        heartbeat->set_node_id("node-" + std::to_string(i));
        heartbeat->set_timestamp_unix_ns(1000 + i);
    }
    ingest::AcceptResult result;
    result.accepted = 2;
    result.items.push_back(ingest::AcceptedHeartbeat{0, "c", "n0", "{\"a\": 0}"});
    result.items.push_back(ingest::AcceptedHeartbeat{2, "c", "n0", "{\"a\": 2}"});
    result.samples.push_back(ingest::DetectionSample{2, "n0", 0.0, 0, 0, 0, {}});

    ingest::PendingDelivery pending;
    CHECK(!pending.has_news());
    pending.add_accepted(result, batch);
    pending.count_rejected("out_of_order");
    pending.count_rejected(ingest::kOversized, 1001);
    pending.count_rejected("out_of_order");
    CHECK(pending.items() == 2 && pending.has_news() && !pending.flush());
    pending.add_end("t1", "agent-1", false);
    CHECK(!pending.flush());
    pending.add_end("t2", "", true);
    CHECK(pending.flush());

    const e3::internal::v1::Delivery delivery = pending.take();
    CHECK(delivery.accepted() == 2);
    CHECK(delivery.item_node_ids_size() == 2 && delivery.item_cluster_ids(1) == "c");
    CHECK(delivery.item_ts_unix_ns(0) == 1000 && delivery.item_ts_unix_ns(1) == 1002);
    CHECK(delivery.item_json(1) == "{\"a\": 2}");
    CHECK(delivery.smartnic_node_ids_size() == 1 && delivery.smartnic_heartbeats(0).node_id() == "node-2");
    CHECK(delivery.heard_node_ids_size() == 1 && delivery.heard_node_ids(0) == "n0");
    CHECK(delivery.rejected().at("out_of_order") == 2 && delivery.rejected().at("oversized") == 1001);
    CHECK(delivery.ended_size() == 2 && delivery.ended(0).token_id() == "t1" && delivery.ended(1).agent_id().empty());
    CHECK(delivery.flush());

    CHECK(!pending.has_news() && pending.items() == 0 && !pending.flush());
    CHECK(pending.take().heard_node_ids_size() == 0);
}

void rows() {
    ingest::Rollups rollups;
    rollups.nodes.push_back(ingest::NodeRollup{"n", "c", 10, 1, 3, 0.5, 2.5, "rapl", 7.5, 3.0, 4, 2, 0.25, 0.125,
                                               100, 200, 3, 4, 5, 10.75});
    rollups.instances.push_back(ingest::InstanceRollup{"i", "n", "c", 10, 1, 3, 9, 1.5, 0.25, 6, 2.5, 3.5, 4.5});
    e3::internal::v1::Delivery delivery;
    ingest::add_rollups(rollups, &delivery);
    const e3::internal::v1::NodeRollupRow &node = delivery.node_rollups(0);
    CHECK(node.node_id() == "n" && node.cluster_id() == "c" && node.start() == 10 && node.step_s() == 1);
    CHECK(node.heartbeats() == 3 && node.seconds() == 0.5 && node.joules() == 2.5 && node.power_source() == "rapl");
    CHECK(node.power_watts_sum() == 7.5 && node.power_watts_max() == 3.0);
    CHECK(node.queue_len_sum() == 4 && node.queue_len_max() == 2);
    CHECK(node.cpu_util_sum() == 0.25 && node.cpu_util_max() == 0.125);
    CHECK(node.rx_bytes() == 100 && node.tx_bytes() == 200 && node.rx_packets() == 3 && node.tx_packets() == 4);
    CHECK(node.requests() == 5 && node.last_ts() == 10.75);
    const e3::internal::v1::InstanceRollupRow &instance = delivery.instance_rollups(0);
    CHECK(instance.instance_id() == "i" && instance.node_id() == "n" && instance.cluster_id() == "c");
    CHECK(instance.start() == 10 && instance.step_s() == 1 && instance.heartbeats() == 3 && instance.requests() == 9);
    CHECK(instance.exec_time_us_sum() == 1.5 && instance.cpu_seconds() == 0.25 && instance.latency_count() == 6);
    CHECK(instance.latency_us_sum() == 2.5 && instance.latency_p99_max() == 3.5);
    CHECK(instance.latency_p99_weighted_sum() == 4.5);
}

} // namespace

int main() {
    kinds();
    filling();
    rows();
    return 0;
}
