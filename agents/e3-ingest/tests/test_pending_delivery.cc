// SPDX-License-Identifier: Apache-2.0
//
// ingest::PendingDelivery and rejection_kind: a refusal's label as agent_hub.rejection_kind gives it; an
// accept's items counted with the youngest timestamp (from the batch), made into the live commands and moved into
// the raw tail, SmartNIC heartbeats copied whole, each node heard once; counts by label; stream ends and the
// flush; take() hands it all over and starts empty; a forgotten node's tail dropped; the rollup rows' fields. Live
// apart (the front writes Redis): the delivery carries no commands but still its items, youngest and nodes heard;
// take_live hands the commands (the same bytes) at its own pace.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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
    result.items.push_back(ingest::AcceptedHeartbeat{2, "c", "n0", "{\"a\": 2}"});
    result.items.push_back(ingest::AcceptedHeartbeat{0, "c", "n0", "{\"a\": 0}"});
    result.samples.push_back(ingest::DetectionSample{2, "n0", 0.0, 0, 0, 0, {}});

    ingest::RawTail tail(10);
    ingest::PendingDelivery pending(&tail);
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
    CHECK(delivery.items() == 2 && delivery.youngest_item_unix_ns() == 1002);
    CHECK(delivery.live_replies() == 2);
    CHECK(delivery.live_commands() ==
          "*4\r\n$4\r\nHSET\r\n$11\r\ne3:latest:c\r\n$2\r\nn0\r\n$8\r\n{\"a\": 0}\r\n"
          "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n$58\r\n"
          "{\"type\": \"heartbeats\", \"heartbeats\": [{\"a\": 2}, {\"a\": 0}]}\r\n");
    ingest::RawTail::Read held;
    CHECK(tail.read("n0", 0, 0, 0, &held) && held.holds_since_ns == 1002);
    CHECK(held.items == (std::vector<std::string>{"{\"a\": 2}", "{\"a\": 0}"}));
    CHECK(delivery.heard_node_ids_size() == 1 && delivery.heard_node_ids(0) == "n0");
    CHECK(delivery.rejected().at("out_of_order") == 2 && delivery.rejected().at("oversized") == 1001);
    CHECK(delivery.ended_size() == 2 && delivery.ended(0).token_id() == "t1" && delivery.ended(1).agent_id().empty());
    CHECK(delivery.flush());

    CHECK(!pending.has_news() && pending.items() == 0 && !pending.flush());
    const e3::internal::v1::Delivery empty = pending.take();
    CHECK(empty.heard_node_ids_size() == 0 && empty.items() == 0 && empty.youngest_item_unix_ns() == 0);
    CHECK(empty.live_commands().empty() && empty.live_replies() == 0);

    pending.forget("n0");
    CHECK(!tail.read("n0", 0, 0, 0, &held));
}

void live_apart() {
    e3::agent::v1::HeartbeatBatch batch;
    for (int i = 0; i < 2; ++i) batch.add_heartbeats()->set_timestamp_unix_ns(1000 + i);
    ingest::AcceptResult result;
    result.accepted = 2;
    result.items.push_back(ingest::AcceptedHeartbeat{1, "c", "n0", "{\"a\": 2}"});
    result.items.push_back(ingest::AcceptedHeartbeat{0, "c", "n0", "{\"a\": 0}"});
    ingest::PendingDelivery pending(nullptr, true);
    pending.add_accepted(result, batch);
    CHECK(pending.items() == 2 && pending.live_items() == 2 && pending.live_added() == 2);
    std::string commands;
    size_t items = 0;
    CHECK(pending.take_live(&commands, &items) == 2 && items == 2);
    CHECK(commands ==
          "*4\r\n$4\r\nHSET\r\n$11\r\ne3:latest:c\r\n$2\r\nn0\r\n$8\r\n{\"a\": 0}\r\n"
          "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n$58\r\n"
          "{\"type\": \"heartbeats\", \"heartbeats\": [{\"a\": 2}, {\"a\": 0}]}\r\n");
    CHECK(pending.items() == 2 && pending.live_items() == 0 && pending.has_news());
    const e3::internal::v1::Delivery delivery = pending.take();
    CHECK(delivery.items() == 2 && delivery.youngest_item_unix_ns() == 1001 && delivery.accepted() == 2);
    CHECK(delivery.live_commands().empty() && delivery.live_replies() == 0);
    CHECK(delivery.heard_node_ids_size() == 1 && delivery.heard_node_ids(0) == "n0");
    CHECK(pending.items() == 0 && !pending.has_news());
    commands.clear();
    CHECK(pending.take_live(&commands, &items) == 0 && items == 0 && commands.empty());
    CHECK(pending.live_added() == 2);
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
    live_apart();
    rows();
    return 0;
}
