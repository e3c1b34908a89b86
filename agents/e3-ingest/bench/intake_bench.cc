// SPDX-License-Identifier: Apache-2.0
//
// e3-ingest-bench: what the front's intake (src/front_intake.h) costs per heartbeat on one core, the figure the
// compiled front is for (docs/controller-scale-out.md, section 2). The load of `e3 bench ingest` at 1,000 type2
// servers: 5,000 nodes (a host and 4 SmartNICs a server, one agent a server), one HeartbeatBatch of 5 heartbeats
// with 2 instances each per agent and period, every batch accepted in full, the rollups taken each simulated
// second (rows only, as the front hands them over in its deliveries). Messages are parsed from their bytes, as the
// front receives them. Not measured here: gRPC's receive path, Redis and the hand-off to Python.
// Prints one JSON object: heartbeats, seconds, us per heartbeat, heartbeats/s on one core, the ratio to the
// issue's 100,000/s, and the same for the accept alone and the rollup take alone.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "front_intake.h"

namespace {

constexpr int kNodesPerServer = 5;
constexpr int64_t kPeriodNs = 50'000'000;
constexpr double kTargetHz = 100'000.0;

std::string node_id(int server, int node) {
    char text[64];
    std::snprintf(text, sizeof text, "00000000-0000-4000-8000-%06d%06d", server, node);
    return text;
}

// One agent's batch at `ts`: its 5 nodes' heartbeats, serialized as they come off the wire.
std::string batch_bytes(int server, int64_t ts, int64_t round) {
    e3::agent::v1::HeartbeatBatch batch;
    batch.set_agent_id("agent-" + std::to_string(server));
    batch.set_sequence(static_cast<uint64_t>(round + 1));
    for (int n = 0; n < kNodesPerServer; ++n) {
        auto *hb = batch.add_heartbeats();
        hb->set_node_id(node_id(server, n));
        hb->set_timestamp_unix_ns(ts + n);
        hb->set_queue_length(static_cast<uint32_t>((round + n) % 7));
        hb->set_rx_bytes(static_cast<uint64_t>(round) * 51'200 + 1);
        hb->set_tx_bytes(static_cast<uint64_t>(round) * 40'960 + 1);
        hb->set_rx_packets(static_cast<uint64_t>(round) * 100);
        hb->set_tx_packets(static_cast<uint64_t>(round) * 80);
        hb->set_cpu_utilization(0.25 + 0.01 * n);
        hb->set_power_watts(17.5 + n);
        hb->set_power_source(e3::agent::v1::POWER_SOURCE_MODEL);
        for (int i = 0; i < 2; ++i) {
            auto *inst = hb->add_instances();
            inst->set_instance_id("inst-" + std::to_string(server) + "-" + std::to_string(n) + "-" + std::to_string(i));
            inst->set_requests_completed(100 + static_cast<uint64_t>(i));
            inst->set_exec_time_us(12.5 + i);
            inst->set_exec_time_ema_us(12.0 + i);
            inst->set_cpu_share(0.1);
            inst->set_latency_count(100);
            inst->set_latency_avg_us(40.0);
            inst->set_latency_p99_us(90.0);
        }
    }
    return batch.SerializeAsString();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char **argv) {
    int servers = 1000, seconds = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--servers") == 0) servers = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atoi(argv[i + 1]);
    }
    if (servers < 1 || seconds < 1 || argc % 2 == 0) {
        std::fprintf(stderr, "usage: %s [--servers 1000] [--seconds 10]  (simulated seconds of heartbeats)\n", argv[0]);
        return 2;
    }
    ingest::FrontIntake intake;
    for (int s = 0; s < servers; ++s)
        for (int n = 0; n < kNodesPerServer; ++n)
            intake.upsert_node({node_id(s, n), "00000000-0000-4000-8000-0000000000c1", "agent-" + std::to_string(s), "",
                                n == 0 ? "host" : ingest::kSmartnic, 1, std::nullopt});

    const int64_t rounds = static_cast<int64_t>(seconds) * (1'000'000'000 / kPeriodNs);
    const int64_t start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count() - rounds * kPeriodNs;
    double accept_s = 0, take_s = 0;
    int64_t accepted = 0, rows = 0;
    e3::agent::v1::HeartbeatBatch batch;
    for (int64_t r = 0; r < rounds; ++r) {
        const int64_t ts = start_ns + r * kPeriodNs;
        std::vector<std::string> wire;
        wire.reserve(static_cast<size_t>(servers));
        for (int s = 0; s < servers; ++s) wire.push_back(batch_bytes(s, ts, r)); // the generator's work: not timed
        const auto started = std::chrono::steady_clock::now();
        for (int s = 0; s < servers; ++s) {
            batch.ParseFromString(wire[static_cast<size_t>(s)]);
            accepted += intake.accept(batch.agent_id(), "", batch, ts + kPeriodNs / 2, 0.0).accepted;
        }
        accept_s += seconds_since(started);
        if ((r + 1) % (1'000'000'000 / kPeriodNs) == 0) { // a simulated second: the rollups handed over, as the
            const auto taking = std::chrono::steady_clock::now(); // front's delivery takes them (rows, no COPY text)
            const ingest::Rollups take = intake.take_rollup_rows(std::numeric_limits<double>::infinity());
            rows += static_cast<int64_t>(take.nodes.size() + take.instances.size());
            take_s += seconds_since(taking);
        }
    }
    const int64_t sent = rounds * servers * kNodesPerServer;
    if (accepted != sent) {
        std::fprintf(stderr, "e3-ingest-bench: %" PRId64 " of %" PRId64 " heartbeats accepted\n", accepted, sent);
        return 1;
    }
    const double total_s = accept_s + take_s, hz = accepted / total_s;
    std::printf("{\"servers\": %d, \"nodes\": %d, \"simulated_s\": %d, \"heartbeats\": %" PRId64 ", \"rollup_rows\": %"
                PRId64 ", \"accept_us_per_heartbeat\": %.3f, \"take_us_per_heartbeat\": %.3f, \"us_per_heartbeat\": "
                "%.3f, \"heartbeats_per_s_one_core\": %.0f, \"target_hz\": %.0f, \"ratio_to_target\": %.2f, "
                "\"not_measured\": \"gRPC receive path, Redis writes, hand-off to Python\"}\n",
                servers, servers * kNodesPerServer, seconds, accepted, rows, accept_s / accepted * 1e6,
                take_s / accepted * 1e6, total_s / accepted * 1e6, hz, kTargetHz, hz / kTargetHz);
    return 0;
}
