// SPDX-License-Identifier: Apache-2.0
//
// The spec file the Python side (e3 bench ingest, heartbeat_loadgen.py) hands e3-heartbeat-load: where to stream,
// with what credential, the period and the end, and each stream's first tick and pre-serialised batches. One
// record a line, fields separated by one space (README.md, "Spec file").
#ifndef E3_HEARTBEAT_LOAD_LOAD_SPEC_H
#define E3_HEARTBEAT_LOAD_LOAD_SPEC_H

#include <cstdint>
#include <string>
#include <vector>

#include "wire_batch.h"

namespace heartbeat_load {

// One StreamHeartbeats call: its first tick (wall clock, ns) and the batches it writes at each tick, in order.
struct StreamSpec {
    int64_t first_tick_ns = 0;
    std::vector<WireBatch> batches;
};

struct LoadSpec {
    std::string target; // host:port of the controller
    std::string token;  // sent as `authorization: Bearer <token>`
    int64_t period_ns = 0;
    int64_t end_unix_ns = 0; // no tick at or after it (wall clock)
    std::vector<StreamSpec> streams;
};

// Parses a spec's text; `name` (the file's) prefixes errors. On error returns false with *error set to
// "<name>:<line>: <what is wrong>" (*out is then unspecified).
bool parse_load_spec(const std::string &text, const std::string &name, LoadSpec *out, std::string *error);

} // namespace heartbeat_load

#endif
