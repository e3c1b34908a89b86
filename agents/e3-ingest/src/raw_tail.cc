// SPDX-License-Identifier: Apache-2.0
//
// The raw tail's rings (see raw_tail.h). A ring's slots grow (doubling, at most to per_node) until it is full,
// then each append overwrites the oldest slot: in the steady state an append allocates nothing.
#include "raw_tail.h"

#include <algorithm>
#include <utility>

namespace ingest {

void RawTail::append(const std::string &node_id, int64_t ts_ns, std::string &&json) {
    if (per_node_ == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    Ring &ring = rings_[node_id];
    std::vector<Item> &slots = ring.slots;
    if (slots.size() < per_node_) {
        if (slots.size() == slots.capacity()) slots.reserve(std::min(per_node_, std::max<size_t>(8, 2 * slots.size())));
        slots.push_back(Item{ts_ns, std::move(json)});
        return;
    }
    Item &slot = slots[ring.oldest];
    slot.ts_ns = ts_ns;
    slot.json.swap(json);
    ring.oldest = ring.oldest + 1 == slots.size() ? 0 : ring.oldest + 1;
}

bool RawTail::read(const std::string &node_id, int64_t since_ns, int64_t until_ns, uint32_t limit,
                   Read *out) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto found = rings_.find(node_id);
    if (found == rings_.end() || found->second.slots.empty()) return false;
    const Ring &ring = found->second;
    const size_t count = ring.slots.size();
    // Newest first, the matching ones until `limit` of them: the newest `limit` of RawTail.read's filter.
    std::vector<const std::string *> newest;
    for (size_t k = 0; k < count && (limit == 0 || newest.size() < limit); ++k) {
        const Item &item = ring.slots[(ring.oldest + count - 1 - k) % count];
        if (item.ts_ns > since_ns && (until_ns == 0 || item.ts_ns <= until_ns)) newest.push_back(&item.json);
    }
    out->holds_since_ns = ring.slots[ring.oldest].ts_ns;
    out->items.clear();
    out->items.reserve(newest.size());
    for (auto item = newest.rbegin(); item != newest.rend(); ++item) out->items.push_back(**item);
    return true;
}

void RawTail::forget(const std::string &node_id) {
    std::lock_guard<std::mutex> lock(mu_);
    rings_.erase(node_id);
}

size_t RawTail::nodes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return rings_.size();
}

} // namespace ingest
