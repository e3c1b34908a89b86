// SPDX-License-Identifier: Apache-2.0
//
// The delivery being filled (see pending_delivery.h), and the intake's rollup rows copied into it field by field.
#include "pending_delivery.h"

#include <utility>

namespace ingest {

const char *rejection_kind(const std::string &reason) {
    if (reason == kNotRegistered) return "not_registered";
    if (reason.rfind("out of order", 0) == 0) return "out_of_order"; // heartbeat_intake.OUT_OF_ORDER
    if (reason.rfind("stale lease epoch", 0) == 0) return "stale_epoch"; // heartbeat_intake.STALE_EPOCH
    return "invalid";
}

void PendingDelivery::add_accepted(AcceptResult &result, const e3::agent::v1::HeartbeatBatch &batch) {
    delivery_.set_accepted(delivery_.accepted() + static_cast<uint64_t>(result.accepted));
    for (AcceptedHeartbeat &item : result.items) {
        const int64_t ts_ns = batch.heartbeats(item.index).timestamp_unix_ns();
        if (ts_ns > youngest_ns_) youngest_ns_ = ts_ns;
        live_.add(item.cluster_id, item.node_id, item.live);
        ++items_;
        ++live_added_;
        if (tail_ != nullptr) tail_->append(item.node_id, ts_ns, std::move(item.live));
    }
}

void PendingDelivery::count_rejected(const std::string &kind, uint64_t heartbeats) {
    (*delivery_.mutable_rejected())[kind] += heartbeats;
}

void PendingDelivery::add_end(const std::string &token_id, const std::string &agent_id, bool flush) {
    e3::internal::v1::StreamEnd *end = delivery_.add_ended();
    end->set_token_id(token_id);
    end->set_agent_id(agent_id);
    if (flush) delivery_.set_flush(true);
}

void PendingDelivery::forget(const std::string &node_id) {
    live_.forget(node_id);
    if (tail_ != nullptr) tail_->forget(node_id);
}

bool PendingDelivery::has_news() const {
    return delivery_.accepted() > 0 || !delivery_.rejected().empty() || items_ > 0 ||
           delivery_.ended_size() > 0 || delivery_.flush();
}

e3::internal::v1::Delivery PendingDelivery::take() {
    e3::internal::v1::Delivery out = std::move(delivery_);
    delivery_.Clear();
    out.set_items(items_);
    items_ = 0;
    out.set_youngest_item_unix_ns(youngest_ns_);
    youngest_ns_ = 0;
    if (live_apart_)
        live_.take_heard(out.mutable_heard_node_ids());
    else
        out.set_live_replies(live_.take(out.mutable_live_commands(), out.mutable_heard_node_ids()));
    return out;
}

uint32_t PendingDelivery::take_live(std::string *commands, size_t *items) {
    *items = live_.items();
    return live_.take(commands);
}

void add_rollups(const Rollups &rows, e3::internal::v1::Delivery *out) {
    for (const NodeRollup &r : rows.nodes) {
        e3::internal::v1::NodeRollupRow *row = out->add_node_rollups();
        row->set_node_id(r.node_id);
        row->set_cluster_id(r.cluster_id);
        row->set_start(r.start);
        row->set_step_s(r.step_s);
        row->set_heartbeats(r.heartbeats);
        row->set_seconds(r.seconds);
        row->set_joules(r.joules);
        row->set_power_source(r.power_source);
        row->set_power_watts_sum(r.power_watts_sum);
        row->set_power_watts_max(r.power_watts_max);
        row->set_queue_len_sum(r.queue_len_sum);
        row->set_queue_len_max(r.queue_len_max);
        row->set_cpu_util_sum(r.cpu_util_sum);
        row->set_cpu_util_max(r.cpu_util_max);
        row->set_rx_bytes(r.rx_bytes);
        row->set_tx_bytes(r.tx_bytes);
        row->set_rx_packets(r.rx_packets);
        row->set_tx_packets(r.tx_packets);
        row->set_requests(r.requests);
        row->set_last_ts(r.last_ts);
    }
    for (const InstanceRollup &r : rows.instances) {
        e3::internal::v1::InstanceRollupRow *row = out->add_instance_rollups();
        row->set_instance_id(r.instance_id);
        row->set_node_id(r.node_id);
        row->set_cluster_id(r.cluster_id);
        row->set_start(r.start);
        row->set_step_s(r.step_s);
        row->set_heartbeats(r.heartbeats);
        row->set_requests(r.requests);
        row->set_exec_time_us_sum(r.exec_time_us_sum);
        row->set_cpu_seconds(r.cpu_seconds);
        row->set_latency_count(r.latency_count);
        row->set_latency_us_sum(r.latency_us_sum);
        row->set_latency_p99_max(r.latency_p99_max);
        row->set_latency_p99_weighted_sum(r.latency_p99_weighted_sum);
    }
}

} // namespace ingest
