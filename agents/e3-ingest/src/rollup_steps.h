// SPDX-License-Identifier: Apache-2.0
//
// The front's own accumulators (docs/controller-scale-out.md, sections 1-2): a C++ port of two pure Python
// references, kept to their exact rules and floating-point order so that both give the same rows, bit for
// bit (tests/test_rollup_steps.cc replays backend/e3/services/rollup_golden.py's cases):
// - EnergyClock: the per-heartbeat energy integral of e3.energy.ledger's NodeTotals.add (its interval and
//   joules only; the 10 s energy steps and their attribution stay in Python);
// - NodeSteps / RollupSteps: e3.rollup.steps, the 1 s telemetry rollups handed over as deltas by take();
// - node_copy_line / instance_copy_line: a row as COPY text, exactly as e3.services.telemetry_rollups'
//   node_line / instance_line write it (Python's float repr and datetime.isoformat).
// Single-threaded, like the references: one owner calls add() per heartbeat and take() per flush.
#ifndef E3_INGEST_ROLLUP_STEPS_H
#define E3_INGEST_ROLLUP_STEPS_H

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ingest {

inline constexpr double kMaxIntervalS = 1.0;  // e3.energy.ledger.MAX_INTERVAL_S
inline constexpr int64_t kRollupStepS = 1;    // e3.rollup.steps.STEP_S
inline constexpr const char kMixed[] = "mixed"; // a step's power source once two of its heartbeats differ

// A heartbeat's timestamp (nanoseconds since the epoch) in seconds, correctly rounded as Python's
// `ts / 1_000_000_000` is. A plain double division would round twice (timestamps exceed 2^53) and could land
// one ulp (~0.24 us today) away, which changes the next interval by far more than 1e-12.
double seconds_from_ns(int64_t ns);

// One node's energy clock: the interval each heartbeat is charged for and its joules (NodeTotals.add). The
// interval is the time since the node's previous heartbeat, at most max_interval_s; the node's first
// heartbeat, and one not newer than the latest, have none (0 J).
class EnergyClock {
public:
    explicit EnergyClock(double max_interval_s = kMaxIntervalS); // throws std::invalid_argument unless > 0
    // Counts a heartbeat at `t` (seconds since the epoch) drawing `watts`; returns its joules (watts x interval).
    double add(double t, double watts);
    double interval() const { return interval_; } // the seconds the latest add() was charged for

private:
    double max_interval_s_;
    double last_t_ = 0.0;   // the latest heartbeat's time; 0: none yet
    double interval_ = 0.0;
};

// One instance's figures in a heartbeat (agent.proto's InstanceStats, as heartbeat_intake passes them on).
struct InstanceFigures {
    std::string instance_id;
    int64_t requests;
    double cpu_share, exec_us;
    int64_t lat_n;
    double lat_avg_us, lat_p99_us;
};

// What a node's heartbeats of one step added since the previous take (e3.rollup.steps.NodeRollup).
struct NodeRollup {
    std::string node_id, cluster_id;
    int64_t start, step_s; // the step's start, seconds since the epoch; its length
    int64_t heartbeats;
    double seconds, joules;
    std::string power_source;
    double power_watts_sum, power_watts_max;
    int64_t queue_len_sum, queue_len_max;
    double cpu_util_sum, cpu_util_max;
    int64_t rx_bytes, tx_bytes, rx_packets, tx_packets;
    int64_t requests;
    double last_ts; // the latest heartbeat's time in the step
};

// What an instance's figures in its node's heartbeats of one step added (e3.rollup.steps.InstanceRollup).
struct InstanceRollup {
    std::string instance_id, node_id, cluster_id;
    int64_t start, step_s;
    int64_t heartbeats, requests;
    double exec_time_us_sum; // sum of mean exec time x requests
    double cpu_seconds;      // sum of cpu share x interval
    int64_t latency_count;
    double latency_us_sum;   // sum of mean latency x count
    double latency_p99_max;
    double latency_p99_weighted_sum; // sum of p99 x count
};

// The rows a take() hands over: steps oldest first (per node, nodes in the order they were made), and each
// step's instances in the order they first reported in it.
struct Rollups {
    std::vector<NodeRollup> nodes;
    std::vector<InstanceRollup> instances;
};

// One node's steps touched since the last take, and what its next heartbeat's counters subtract.
class NodeSteps {
public:
    // `untaken`: the row count shared by every node of a RollupSteps (a fresh one when null).
    NodeSteps(std::string node_id, std::string cluster_id, int64_t step_s,
              std::shared_ptr<int64_t> untaken = nullptr);

    // Counts one heartbeat at `t` whose interval the energy clock took as `seconds`, charging `joules`.
    // `t` must be finite (Python would raise on int(inf)).
    void add(double t, double seconds, double joules, const std::string &source, double watts, int64_t queue_len,
             double cpu_util, int64_t rx_bytes, int64_t tx_bytes, int64_t rx_packets, int64_t tx_packets,
             const std::vector<InstanceFigures> &instances);
    // The deltas of every step touched since the last take, oldest step first; forgets them. With `ended_by`
    // (seconds, the heartbeats' clock), only the steps that ended by then (start + step_s <= ended_by).
    Rollups take(double ended_by = std::numeric_limits<double>::infinity());

    const std::string &node_id() const { return node_id_; }
    const std::string &cluster_id() const { return cluster_id_; }
    void set_cluster_id(const std::string &cluster_id) { cluster_id_ = cluster_id; }

private:
    struct InstanceStep {
        int64_t heartbeats = 0, requests = 0, lat_n = 0;
        double exec_sum = 0.0, cpu_seconds = 0.0, lat_sum = 0.0, p99_max = 0.0, p99_wsum = 0.0;
    };
    struct Step {
        int64_t heartbeats = 0, queue_sum = 0, queue_max = 0, requests = 0;
        int64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
        double seconds = 0.0, joules = 0.0, watts_sum = 0.0, watts_max = 0.0, cpu_sum = 0.0, cpu_max = 0.0;
        double last_ts = 0.0;
        std::string source;
        // Instances in first-seen order (a Python dict's), with an index by id.
        std::vector<std::pair<std::string, InstanceStep>> instances;
        std::unordered_map<std::string, size_t> index;
    };

    std::string node_id_, cluster_id_;
    int64_t step_s_;
    std::shared_ptr<int64_t> untaken_;
    std::map<int64_t, Step> steps_; // by start: take() hands them over oldest first
    double last_t_ = 0.0;           // the latest heartbeat's time; 0: none yet
    bool have_counters_ = false;    // its rx/tx bytes/packets, once a heartbeat was newer than all before
    int64_t counters_[4] = {0, 0, 0, 0};
};

// Every node's steps: node() once per node (registration), then NodeSteps::add per heartbeat, take() per write.
class RollupSteps {
public:
    explicit RollupSteps(int64_t step_s = kRollupStepS); // throws std::invalid_argument unless > 0

    // The node's steps, made on first use (kept across its agent's registrations: the counters go on); a
    // known node takes the new cluster id. The reference stays valid for the RollupSteps' life.
    NodeSteps &node(const std::string &node_id, const std::string &cluster_id);
    // Every node's deltas since the last take, nodes in the order they were first made (NodeSteps::take's
    // `ended_by`: only the steps ended by then).
    Rollups take(double ended_by = std::numeric_limits<double>::infinity());
    // Rows the next take() hands over (the writer's backpressure).
    int64_t untaken_rows() const { return *untaken_; }
    int64_t step_s() const { return step_s_; }

private:
    int64_t step_s_;
    std::shared_ptr<int64_t> untaken_;
    std::vector<std::unique_ptr<NodeSteps>> order_;
    std::unordered_map<std::string, NodeSteps *> by_id_;
};

// A row as a line of COPY text (ending in '\n'), as telemetry_rollups.node_line / instance_line write it.
std::string node_copy_line(const NodeRollup &r);
std::string instance_copy_line(const InstanceRollup &r);

// The pieces of those lines, exposed for tests: Python's repr(float); datetime.fromtimestamp(seconds,
// timezone.utc).isoformat() (microseconds rounded half to even, as CPython does); copy_merge.copy_text.
std::string python_float_repr(double x);
// The same, appended to `out` without a temporary string (the live items' hot path).
void append_python_float(std::string &out, double x);
std::string iso_utc(double seconds);
std::string iso_utc(int64_t seconds);
std::string copy_text(const std::string &value);

} // namespace ingest

#endif
