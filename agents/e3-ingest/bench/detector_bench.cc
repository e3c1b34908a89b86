// SPDX-License-Identifier: Apache-2.0
//
// e3-detector-bench: the C++ detector's cost per heartbeat on one core (src/detector.h), for a rack the size of
// the controller's busiest (4,000 SmartNICs, 2 instances each, heartbeats interleaved), steady state: past the
// warm-up, queues and execution times wobbling, now and then a standing queue or a slowdown (detections fire).
// Usage: e3-detector-bench [NODES [ROUNDS]]. Prints the mean microseconds per observe.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "detector.h"

int main(int argc, char **argv) {
    const size_t nodes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 100;
    if (nodes == 0 || rounds <= 0) {
        std::fprintf(stderr, "usage: %s [NODES [ROUNDS]]\n", argv[0]);
        return 2;
    }
    std::vector<ingest::NodeSample> samples(nodes);
    for (size_t n = 0; n < nodes; ++n) {
        ingest::NodeSample &s = samples[n];
        s.node_id = "00000000-0000-4000-8000-" + std::to_string(100000000000 + n); // a UUID's length
        s.t = 1795780800.0 + 0.05 * static_cast<double>(n) / static_cast<double>(nodes);
        s.rx_bytes = s.tx_bytes = 1000000000;
        s.bandwidth_mbps = 10000;
        s.instances.resize(2);
        for (int i = 0; i < 2; ++i) {
            s.instances[i].instance_id = s.node_id.substr(0, 35) + static_cast<char>('a' + i);
            s.instances[i].exec_time_ema_us = 40.0;
            s.instances[i].cpu_share = 0.3;
        }
    }
    unsigned seed = 1;
    auto next = [&seed] { return (seed = seed * 1103515245u + 12345u) >> 16 & 0x7fff; }; // deterministic
    ingest::Detector detector;
    long detections = 0;
    auto round = [&](int r) {
        for (size_t n = 0; n < nodes; ++n) {
            ingest::NodeSample &s = samples[n];
            s.t += 0.05;
            const unsigned x = next();
            // a node's trouble lasts 10 heartbeats: a standing queue now and then, a slowdown now and then
            const size_t spell = static_cast<size_t>(r / 10) + n;
            s.rx_bytes += 2000000 + x * 100;
            s.tx_bytes += 1000000 + x * 50;
            s.queue_length = spell % 53 == 0 ? 200 : x % 6;
            for (ingest::InstanceSample &inst : s.instances) {
                inst.requests_completed = 100 + x % 300;
                inst.exec_time_us = 40.0 + (x % 100) * 0.01 + (spell % 37 == 0 ? 30.0 : 0.0);
            }
            detections += detector.observe(s).has_value();
        }
    };
    const int warmup = static_cast<int>(detector.policy().warmup_heartbeats) + 5;
    for (int r = 0; r < warmup; ++r) round(r);
    detections = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < rounds; ++r) round(warmup + r);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double observes = static_cast<double>(nodes) * rounds;
    std::printf("%zu nodes x 2 instances, %d rounds: %.3f us per observe (%.0f observes/s on one core), "
                "%ld detections\n", nodes, rounds, s / observes * 1e6, observes / s, detections);
    return 0;
}
