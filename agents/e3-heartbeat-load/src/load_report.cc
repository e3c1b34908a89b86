// SPDX-License-Identifier: Apache-2.0
//
// The figures' sum and their JSON (load_report.h).
#include "load_report.h"

#include <cstdio>

namespace heartbeat_load {
namespace {

constexpr size_t kReported = 5;

void add_first(std::vector<std::string> *to, const std::vector<std::string> &from) {
    for (const std::string &item : from) {
        if (to->size() >= kReported) return;
        to->push_back(item);
    }
}

std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (const char c : text) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof(escape), "\\u%04x", u);
            out += escape;
        } else {
            out += c; // UTF-8 passes through
        }
    }
    return out + "\"";
}

std::string strings(const std::vector<std::string> &items) {
    std::string out = "[";
    for (size_t k = 0; k < items.size(); ++k) out += (k ? "," : "") + quoted(items[k]);
    return out + "]";
}

std::string numbers(const std::vector<uint64_t> &items) {
    std::string out = "[";
    for (size_t k = 0; k < items.size(); ++k) out += (k ? "," : "") + std::to_string(items[k]);
    return out + "]";
}

} // namespace

LoadReport sum_up(const LoadSpec &spec, const std::vector<const StreamFigures *> &streams) {
    LoadReport report;
    report.streams = spec.streams.size();
    int64_t first_tick_ns = spec.end_unix_ns;
    for (const StreamSpec &stream : spec.streams) {
        if (stream.first_tick_ns < first_tick_ns) first_tick_ns = stream.first_tick_ns;
        report.agents += stream.batches.size();
        for (const WireBatch &wire : stream.batches)
            for (const Window &window : wire.windows) report.troubled_sends.push_back(window.troubled_sends);
    }
    report.window_s = static_cast<double>(spec.end_unix_ns - first_tick_ns) / 1e9;
    for (const StreamFigures *figures : streams) {
        report.accepted += figures->accepted;
        report.rejected += figures->rejected;
        add_first(&report.rejections, figures->rejections);
        report.sent += figures->sent;
        report.batches += figures->batches;
        report.ticks += figures->ticks;
        report.ticks_missed += figures->ticks_missed;
        report.message_bytes += figures->message_bytes;
        report.unconfirmed += figures->unconfirmed;
        if (!figures->confirmed) {
            report.failed_streams += 1;
            add_first(&report.errors, {figures->error});
        }
    }
    return report;
}

std::string report_json(const LoadReport &r) {
    char cpu[32];
    std::snprintf(cpu, sizeof(cpu), "%.3f", r.cpu_s);
    return "{\"streams\":" + std::to_string(r.streams) + ",\"agents\":" + std::to_string(r.agents) +
           ",\"cpu_s\":" + cpu + ",\"accepted\":" + std::to_string(r.accepted) +
           ",\"rejected\":" + std::to_string(r.rejected) + ",\"rejections\":" + strings(r.rejections) +
           ",\"sent\":" + std::to_string(r.sent) + ",\"batches\":" + std::to_string(r.batches) +
           ",\"ticks\":" + std::to_string(r.ticks) + ",\"ticks_missed\":" + std::to_string(r.ticks_missed) +
           ",\"message_bytes\":" + std::to_string(r.message_bytes) +
           ",\"unconfirmed\":" + std::to_string(r.unconfirmed) + ",\"troubled_sends\":" + numbers(r.troubled_sends) +
           ",\"failed_streams\":" + std::to_string(r.failed_streams) + ",\"errors\":" + strings(r.errors) + "}";
}

std::string report_line(const LoadReport &r) {
    char line[512];
    const double rate = r.window_s > 0 ? static_cast<double>(r.sent) / r.window_s : 0.0;
    const double per_100k = r.sent ? r.cpu_s * 100000.0 / static_cast<double>(r.sent) : 0.0;
    std::snprintf(line, sizeof(line),
                  "e3-heartbeat-load: %llu streams, %llu heartbeats sent over %.1f s (%.0f/s), %llu accepted, %llu "
                  "rejected, %llu ticks missed, %llu failed streams, cpu %.2f s (%.3f s per 100k heartbeats)",
                  static_cast<unsigned long long>(r.streams), static_cast<unsigned long long>(r.sent), r.window_s,
                  rate, static_cast<unsigned long long>(r.accepted), static_cast<unsigned long long>(r.rejected),
                  static_cast<unsigned long long>(r.ticks_missed), static_cast<unsigned long long>(r.failed_streams),
                  r.cpu_s, per_100k);
    return line;
}

} // namespace heartbeat_load
