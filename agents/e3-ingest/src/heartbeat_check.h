// SPDX-License-Identifier: Apache-2.0
//
// The controller's quick heartbeat check in C++ (backend/e3/controller/heartbeat_intake.py, `accept`): what
// the front may accept without asking Python. Its bounds are heartbeat_bounds.h's, generated from
// backend/e3/heartbeat_record.py and services/agents.py, never written here. Like Python's, it is strictly
// tighter than the rules (agents.heartbeat_problem): a heartbeat it doubts goes to Python, which accepts it or
// names the reason; one it passes, Python's quick check passes too, so heartbeat_problem accepts it.
// tests/test_heartbeat_check.cc holds it to Python's verdicts (tests/golden/heartbeats.txt).
#ifndef E3_INGEST_HEARTBEAT_CHECK_H
#define E3_INGEST_HEARTBEAT_CHECK_H

#include <cstdint>
#include <string_view>

namespace e3::agent::v1 {
class Heartbeat;
}

namespace ingest {

// True only when Python's quick check would pass `hb` at wall clock `wall_ns` (ns since the Unix epoch):
// timestamp in (wall_ns - MAX_AGE_S s + 1 ms, wall_ns + MAX_CLOCK_AHEAD_S s - 1 ms), every node field within
// its bounds, at most MAX_INSTANCES_PER_HEARTBEAT instances, each with a good id (instance_id_quick_ok) and
// every field within its bounds. Where it is stricter than Python's quick check (it doubts, never accepts
// more): an instance id with any non-ASCII character; a timestamp <= 0 (heartbeat_problem refuses it, but
// Python's window lets it through for a wall clock before 1970-01-02); and an end of the window beyond int64
// (wall_ns within a day of int64's limits), clamped to the limit.
bool heartbeat_quick_ok(const e3::agent::v1::Heartbeat &hb, int64_t wall_ns);

// An instance id the quick check passes: 1 to MAX_ID_CHARS characters, all printable as Python's
// str.isprintable() says. Only ASCII ids are judged (printable: ID_ASCII_PRINTABLE_FIRST..LAST, Python's
// own range, in heartbeat_bounds.h); an id with any byte >= 0x80 (a non-ASCII character in UTF-8, or bytes
// that are not UTF-8) is doubted, whatever Python would say: deciding Unicode printability would take
// Python's Unicode tables, of its own Unicode version. For an ASCII id, bytes are characters, so the length
// is Python's len().
bool instance_id_quick_ok(std::string_view id);

} // namespace ingest

#endif
