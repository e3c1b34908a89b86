// SPDX-License-Identifier: Apache-2.0
//
// e3-heartbeat-load's figures over all its streams, as the JSON object it prints on stdout (README.md, "Output")
// and the one summary line on stderr.
#ifndef E3_HEARTBEAT_LOAD_LOAD_REPORT_H
#define E3_HEARTBEAT_LOAD_LOAD_REPORT_H

#include <cstdint>
#include <string>
#include <vector>

#include "load_spec.h"
#include "stream_call.h"

namespace heartbeat_load {

struct LoadReport {
    uint64_t streams = 0;
    uint64_t agents = 0; // batches in the spec
    double cpu_s = 0.0;
    double window_s = 0.0; // from the first tick to the end, for the summary line's rate
    uint64_t accepted = 0, rejected = 0;
    std::vector<std::string> rejections; // the first 5
    uint64_t sent = 0, batches = 0, ticks = 0, ticks_missed = 0, message_bytes = 0, unconfirmed = 0;
    std::vector<uint64_t> troubled_sends; // one per window, in spec order
    uint64_t failed_streams = 0;
    std::vector<std::string> errors; // the first 5
};

// Sums the streams' figures (and the windows' counts, from the spec) once every stream has ended.
LoadReport sum_up(const LoadSpec &spec, const std::vector<const StreamFigures *> &streams);

std::string report_json(const LoadReport &report);
std::string report_line(const LoadReport &report);

} // namespace heartbeat_load

#endif
