// SPDX-License-Identifier: Apache-2.0
//
// What the front took since its previous delivery to the controller: front.proto's Delivery being filled from
// the intake's outcomes (front_intake.h) and the heartbeat streams' ends, then handed over whole; and the labels
// a refused heartbeat is counted under (AgentHub.rejected's). Not thread-safe: the caller's lock guards it with
// the intake, so items enter it in the order they were accepted.
#ifndef E3_INGEST_PENDING_DELIVERY_H
#define E3_INGEST_PENDING_DELIVERY_H

#include <cstdint>
#include <string>
#include <unordered_set>

#include "e3/internal/v1/front.pb.h"
#include "front_intake.h"

namespace ingest {

// AgentHub.rejected's labels counted where the refusal is decided: a batch too long, another credential's node.
inline constexpr const char kOversized[] = "oversized";
inline constexpr const char kForbidden[] = "forbidden";

// agent_hub.rejection_kind: a refusal's reason as its label (not_registered | out_of_order | stale_epoch |
// invalid).
const char *rejection_kind(const std::string &reason);

class PendingDelivery {
public:
    // An accept's heartbeats of `batch`: one item each (cluster, node, timestamp, live JSON: moved out of
    // `result`), the SmartNIC ones' heartbeats for detection, their nodes heard.
    void add_accepted(AcceptResult &result, const e3::agent::v1::HeartbeatBatch &batch);
    void count_rejected(const std::string &kind, uint64_t heartbeats = 1);
    // A heartbeat stream ended; with `flush`, the controller answers once every rollup row delivered is written.
    void add_end(const std::string &token_id, const std::string &agent_id, bool flush);

    int items() const { return delivery_.item_node_ids_size(); }
    bool flush() const { return delivery_.flush(); }
    // Whether it holds anything: counts, items, ended streams or a flush.
    bool has_news() const;
    // The delivery so far (with the nodes heard), leaving an empty one.
    e3::internal::v1::Delivery take();

private:
    e3::internal::v1::Delivery delivery_;
    std::unordered_set<std::string> heard_; // node ids with a heartbeat accepted
};

// A take of the intake's rollups as a delivery's rows (every field).
void add_rollups(const Rollups &rows, e3::internal::v1::Delivery *out);

} // namespace ingest

#endif
