// SPDX-License-Identifier: Apache-2.0
//
// The front's raw tail: each node's last heartbeats as the live channel publishes them (their live item's JSON),
// kept in memory for `GET /nodes/{id}/telemetry` (docs/controller-scale-out.md, sections 1 and 8), read through
// e3.internal.v1.TelemetryTail (tail_service.h). The port of backend/e3/controller/raw_tail.py's RawTail, which the
// controller keeps when it runs without its front: per node a ring of at most `per_node` (timestamp, JSON) items,
// the oldest overwritten; read() answers as RawTail.read does. Memory is bounded by `per_node` a node, and nodes
// are those the caller keeps (it forgets a node its node table removes). Thread-safe: its own mutex, held for an
// append, a forget, or a read's copy of the matching items only.
#ifndef E3_INGEST_RAW_TAIL_H
#define E3_INGEST_RAW_TAIL_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ingest {

class RawTail {
public:
    // At most `per_node` items a node; 0: the tail is off (append keeps nothing, read finds nothing).
    explicit RawTail(size_t per_node) : per_node_(per_node) {}
    RawTail(const RawTail &) = delete;
    RawTail &operator=(const RawTail &) = delete;

    size_t per_node() const { return per_node_; }

    // The node's newest item, `json` moved in (a full ring's oldest slot is reused: its string is swapped out
    // into `json`, the caller's to free or reuse).
    void append(const std::string &node_id, int64_t ts_ns, std::string &&json);

    struct Read {
        std::vector<std::string> items; // JSON heartbeats, oldest first
        int64_t holds_since_ns = 0;     // the oldest item held for the node (whether it matched or not)
    };
    // RawTail.read: the node's items with `since_ns` < timestamp <= `until_ns` (`until_ns` 0: unbounded), the
    // newest `limit` of them (0: all), oldest first, into `out`. False (`out` untouched) when none is held for the
    // node; true, perhaps with no items, when some are.
    bool read(const std::string &node_id, int64_t since_ns, int64_t until_ns, uint32_t limit, Read *out) const;

    // Drops the node's items (its node table removed it).
    void forget(const std::string &node_id);

    size_t nodes() const; // nodes with items held

private:
    struct Item {
        int64_t ts_ns = 0;
        std::string json;
    };
    struct Ring {
        std::vector<Item> slots; // grows to per_node_, then each append overwrites the oldest
        size_t oldest = 0;       // slots[oldest] is the oldest item once the ring is full (else 0)
    };

    const size_t per_node_;
    mutable std::mutex mu_;
    std::unordered_map<std::string, Ring> rings_;
};

} // namespace ingest

#endif
