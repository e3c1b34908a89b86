// SPDX-License-Identifier: Apache-2.0
//
// What the front took since its previous delivery to the controller: front.proto's Delivery being filled from
// the intake's outcomes (front_intake.h) and the heartbeat streams' ends, then handed over whole; and the labels
// a refused heartbeat is counted under (AgentHub.rejected's). An accepted heartbeat's live item goes into the
// delivery's Redis commands as it comes (live_commands.h), then into the raw tail (raw_tail.h): the delivery
// carries only their count and the youngest one's timestamp. Not thread-safe: the caller's lock guards it with
// the intake, so items enter it in the order they were accepted (the raw tail has its own lock, for its readers).
// When the front writes Redis itself (redis_link.h), the live commands are taken apart (take_live, by the Redis
// writer, at its own pace) and the delivery carries none: only the items' count, the youngest's timestamp and the
// nodes heard, per delivery as ever.
#ifndef E3_INGEST_PENDING_DELIVERY_H
#define E3_INGEST_PENDING_DELIVERY_H

#include <cstdint>
#include <string>

#include "e3/internal/v1/front.pb.h"
#include "front_intake.h"
#include "live_commands.h"
#include "raw_tail.h"

namespace ingest {

// AgentHub.rejected's labels counted where the refusal is decided: a batch too long, another credential's node.
inline constexpr const char kOversized[] = "oversized";
inline constexpr const char kForbidden[] = "forbidden";

// agent_hub.rejection_kind: a refusal's reason as its label (not_registered | out_of_order | stale_epoch |
// invalid).
const char *rejection_kind(const std::string &reason);

class PendingDelivery {
public:
    // Accepted items go to `tail` (null: kept nowhere) once in the live commands; it outlives this.
    // `live_apart`: the live commands are taken by take_live(), not put in the delivery.
    explicit PendingDelivery(RawTail *tail = nullptr, bool live_apart = false)
        : tail_(tail), live_(live_apart), live_apart_(live_apart) {}

    // An accept's heartbeats of `batch`: one live item each (into the live commands, then moved out of `result`
    // into the raw tail, with its heartbeat's timestamp).
    void add_accepted(AcceptResult &result, const e3::agent::v1::HeartbeatBatch &batch);
    void count_rejected(const std::string &kind, uint64_t heartbeats = 1);
    // A heartbeat stream ended; with `flush`, the controller answers once every rollup row delivered is written.
    void add_end(const std::string &token_id, const std::string &agent_id, bool flush);
    // The node table removed the node: what is kept of it goes (its raw tail now, in the live commands once
    // they no longer hold its item).
    void forget(const std::string &node_id);

    size_t items() const { return items_; } // items in the delivery being filled
    size_t live_items() const { return live_.items(); } // items in the live commands being built
    uint64_t live_added() const { return live_added_; } // items ever added to the live commands
    bool flush() const { return delivery_.flush(); }
    // Whether it holds anything: counts, items, ended streams or a flush.
    bool has_news() const;
    // The delivery so far (its items' count, youngest timestamp and Redis commands, the nodes heard: those with
    // an item), leaving an empty one.
    e3::internal::v1::Delivery take();
    // Live apart: the live commands of the items added since the previous take_live, appended to `commands`;
    // `items` set to their count. Returns the replies Redis gives them (0 without items).
    uint32_t take_live(std::string *commands, size_t *items);

private:
    RawTail *const tail_;
    e3::internal::v1::Delivery delivery_;
    LiveCommands live_;
    const bool live_apart_;
    size_t items_ = 0;        // items since the previous take
    uint64_t live_added_ = 0;
    int64_t youngest_ns_ = 0; // the largest item timestamp since the previous take (0: none)
};

// A take of the intake's rollups as a delivery's rows (every field).
void add_rollups(const Rollups &rows, e3::internal::v1::Delivery *out);

} // namespace ingest

#endif
