// SPDX-License-Identifier: Apache-2.0
//
// The quick heartbeat check: heartbeat_intake's `ok = lo_ns < ts < hi_ns and NODE_CHECK and len(instances)
// <= _MAX_INSTANCES`, then per instance `0 < len(iid) <= _MAX_ID and INSTANCE_CHECK and iid.isprintable()`,
// with the generated bounds and field predicates of heartbeat_bounds.h. (Python's `iid in ids` only skips
// isprintable() for ids it has already accepted, so it changes no verdict.)
#include "heartbeat_check.h"

#include <limits>

#include "e3/agent/v1/agent.pb.h"
#include "heartbeat_bounds.h"

namespace ingest {
namespace {

namespace bounds = heartbeat_bounds;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// lo_ns < ts < hi_ns, lo_ns = wall_ns - QUICK_BEHIND_NS, hi_ns = wall_ns + QUICK_AHEAD_NS; each end clamped
// to int64 (Python's ints do not overflow): a clamped end is tighter by at most one value, never looser.
// And ts > 0, heartbeat_problem's first rule, which the window implies for any wall clock after 1970-01-02.
bool timestamp_ok(int64_t ts, int64_t wall_ns) {
    static_assert(bounds::QUICK_BEHIND_NS > 0 && bounds::QUICK_AHEAD_NS > 0, "an empty timestamp window");
    const int64_t lo = wall_ns < kInt64Min + bounds::QUICK_BEHIND_NS ? kInt64Min : wall_ns - bounds::QUICK_BEHIND_NS;
    const int64_t hi = wall_ns > kInt64Max - bounds::QUICK_AHEAD_NS ? kInt64Max : wall_ns + bounds::QUICK_AHEAD_NS;
    return ts > 0 && lo < ts && ts < hi;
}

} // namespace

bool instance_id_quick_ok(std::string_view id) {
    if (id.empty() || id.size() > static_cast<size_t>(bounds::MAX_ID_CHARS)) return false;
    for (const char c : id) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < bounds::ID_ASCII_PRINTABLE_FIRST || byte > bounds::ID_ASCII_PRINTABLE_LAST) return false;
    }
    return true;
}

bool heartbeat_quick_ok(const e3::agent::v1::Heartbeat &hb, int64_t wall_ns) {
    if (!timestamp_ok(hb.timestamp_unix_ns(), wall_ns) || !bounds::node::fields_ok(hb) ||
        hb.instances_size() > bounds::MAX_INSTANCES_PER_HEARTBEAT)
        return false;
    for (const auto &inst : hb.instances())
        if (!instance_id_quick_ok(inst.instance_id()) || !bounds::instance::fields_ok(inst)) return false;
    return true;
}

} // namespace ingest
