// SPDX-License-Identifier: Apache-2.0
//
// SmartNIC trouble from heartbeats, judged in the front: host starvation and microservice overload (paper §3.4).
// A C++ port of backend/e3/orchestrator/detection.py (DetectionPolicy, NodeSample, Detection, Detector), kept to
// its exact rules, state and floating-point order, so that for any sequence of observe / cool_down / forget calls
// it gives the same detections, bit for bit: the same heartbeat, kind, instance, t, and detail text
// (tests/test_detector.cc replays the golden cases of backend/e3/orchestrator/detection_golden.py, made from the
// real Python Detector; backend/tests/setup/test_detection_golden_current.py keeps them current). The rules,
// in short (detection.py's docstring has them in full):
// - host starvation: a queue of at least `queue_threshold` packets in `window` consecutive heartbeats, each with
//   the link under-utilised (the busier direction's rate from the byte counters, over the link rate, below
//   `bandwidth_util_max`); a heartbeat without a rate (the node's first, not newer than the previous one, a
//   counter gone back, a link rate of 0) breaks the streak;
// - overload: an instance slower than its per-heartbeat baseline by more than `overload_deviation` (and by
//   `overload_floor_us`, or with a queue of `overload_queue_floor` packets in the last `window` heartbeats) in
//   `window` consecutive heartbeats with at least `min_requests` requests each, after a warm-up of
//   `warmup_heartbeats` heartbeats with traffic; the slowest such instance (by ratio; the first on a tie);
// - latches until the condition cleared (queue <= `queue_clear`; every instance within `overload_clear`), and
//   `cooldown_s` of quiet after a detection or a cool_down(); starvation first: an overload completed in the same
//   heartbeat is not reported.
// Detection::detail_json is Python's json.dumps(detection.detail, sort_keys=True): Python's float repr, its
// round(x, 3 or 4), ensure_ascii escapes. Two things Python allows that this cannot tell apart: a policy field
// given as a Python int where a float is declared (json writes "1", not "1.0"), and an overload on an instance
// whose id is "" (instance_id is empty for none here; Python has None for starvation only).
// Single-threaded, like the reference: one owner calls it. Cost: observe() allocates nothing once a node's state
// and instances are known (no detection), beyond what the caller's NodeSample holds; the detail text is built
// only when a detection fires.
#ifndef E3_INGEST_DETECTOR_H
#define E3_INGEST_DETECTOR_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "front_intake.h" // InstanceSample, DetectionSample

namespace ingest {

inline constexpr const char kHostStarvation[] = "host_starvation"; // detection.HOST_STARVATION
inline constexpr const char kOverload[] = "overload";               // detection.OVERLOAD

// detection.DetectionPolicy, with its defaults.
struct DetectionPolicy {
    int64_t window = 3;                // consecutive heartbeats a condition must hold
    int64_t queue_threshold = 32;      // packets: a queue at least this long counts as standing
    int64_t queue_clear = 8;           // packets: at or below this the starvation latch is released
    double bandwidth_util_max = 0.8;   // link utilisation below this is "under-utilised"
    double overload_deviation = 0.20;  // exec time above baseline x (1 + this): overloaded
    double overload_clear = 0.10;      // every instance within baseline x (1 + this): the overload latch is released
    double ema_alpha = 0.1;            // weight of a heartbeat's execution time in the per-heartbeat baseline EMA
    int64_t min_requests = 2;          // requests per heartbeat below this: idle, not judged
    int64_t warmup_heartbeats = 20;    // heartbeats with traffic an instance's baseline needs before it is judged
    double cooldown_s = 5.0;           // no new detection for a node this long after its last detection or decision
    double overload_floor_us = 1.0;    // us: also this much above the baseline, or requests waiting
    int64_t overload_queue_floor = 4;  // packets: a queue this long in the last `window` heartbeats: requests waiting

    // DetectionPolicy.__post_init__'s checks: throws std::invalid_argument with Python's ValueError message.
    void validate() const;
};

// An instance's figures in a heartbeat are front_intake.h's InstanceSample (detection.InstanceSample: instance_id,
// exec_time_us, exec_time_ema_us, cpu_share, requests_completed as uint64, as on the wire), which the intake fills.

// One node's heartbeat as the detectors need it (detection.NodeSample). `t` in seconds on one clock per node: the
// controller's timestamp_unix_ns / 1e9 (a double division, as the intake's DetectionSample has it). The counters
// are agent.proto's uint64, compared and subtracted exactly as Python's ints are. To keep observe() free of
// allocations, the caller reuses one NodeSample: assigning into its strings and vector keeps their capacity.
struct NodeSample {
    std::string node_id;
    double t = 0.0;
    int64_t queue_length = 0; // traffic-manager ingress queue, packets (uint32 on the wire)
    uint64_t rx_bytes = 0, tx_bytes = 0;
    double bandwidth_mbps = 0.0; // the node's link rate per direction (the caller knows it)
    std::vector<InstanceSample> instances;
    bool smartnic = true; // kind == "smartnic"; any other node (a host) is not judged
};

// What observe() reports (detection.Detection).
struct Detection {
    std::string kind; // kHostStarvation or kOverload
    std::string node_id;
    double t = 0.0;          // the heartbeat that completed the window
    std::string instance_id; // overload: the instance; starvation: empty (Python's None)
    std::string detail_json; // json.dumps(detail, sort_keys=True), as Python writes it
};

// Python's round(x, ndigits) on a float, ndigits >= 0: the decimal correctly rounded from x's exact binary value,
// ties to even (CPython's dtoa mode 3), read back correctly rounded; non-finite x as it is.
double python_round(double x, int ndigits);

// Host-starvation and overload detection over a stream of NodeSamples, nodes interleaved (detection.Detector).
class Detector {
public:
    explicit Detector(const DetectionPolicy &policy = DetectionPolicy()); // validate()s it

    // Takes one heartbeat; a detection when it completes one (starvation first), else nothing.
    std::optional<Detection> observe(const NodeSample &s);
    // The same for a SmartNIC heartbeat the intake accepted (FrontIntake's AcceptResult::samples), whose link rate
    // is `bandwidth_mbps`: nothing copied.
    std::optional<Detection> observe(const DetectionSample &s, double bandwidth_mbps);
    // Drops a node's state (it went down or left); a later heartbeat starts afresh.
    void forget(const std::string &node_id);
    // Drops every node's state (Detector.reset): trouble latched or cooling down is judged afresh.
    void reset() { nodes_.clear(); }
    // The caller decided a migration off `node_id` at `t`: nothing is reported for it for cooldown_s.
    void cool_down(const std::string &node_id, double t);
    // Nodes with state (len(detector)).
    size_t size() const { return nodes_.size(); }
    const DetectionPolicy &policy() const { return policy_; }

private:
    // The last `capacity` values pushed, oldest first (a Python list trimmed from the front).
    template <class T> class Recent {
    public:
        explicit Recent(size_t capacity) : capacity_(capacity) {}
        void push(const T &v) {
            if (buf_.size() < capacity_) {
                buf_.push_back(v);
            } else {
                buf_[head_] = v;
                head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
            }
        }
        void clear() { // keeps the storage
            buf_.clear();
            head_ = 0;
        }
        size_t size() const { return buf_.size(); }
        const T &operator[](size_t i) const { // i-th oldest
            const size_t k = head_ + i;
            return buf_[k < buf_.size() ? k : k - buf_.size()];
        }
        const std::vector<T> &unordered() const { return buf_; }

    private:
        std::vector<T> buf_;
        size_t head_ = 0, capacity_;
    };

    // An instance with a baseline: Python's baselines, warmed and streaks dicts (their keys are the same or, for
    // streaks, fewer: a streak of 0 is an absent one) in one entry.
    struct Instance {
        std::string id;
        double baseline = 0.0;
        int64_t warmed = 0; // heartbeats with traffic in the baseline
        int64_t streak = 0; // consecutive overloaded heartbeats
        // Bookkeeping while a heartbeat is judged. An old entry: `made`, the new entry continuing it (when
        // mark == the node's epoch). A new entry: `from_old`, the old entry it continues, or -1 for a new id (the
        // sample's instance `from_sample`).
        uint64_t mark = 0;
        size_t made = 0;
        std::ptrdiff_t from_old = -1;
        size_t from_sample = 0;
    };

    struct NodeState {
        explicit NodeState(size_t window) : queues(window), recent_queues(window) {}
        bool have_last = false; // t, rx, tx of the previous heartbeat (Python's None before one)
        double t = 0.0;
        uint64_t rx = 0, tx = 0;
        int64_t queue_streak = 0;
        Recent<std::pair<int64_t, double>> queues; // (queue, utilisation) of the current streak
        Recent<int64_t> recent_queues;             // the last `window` heartbeats' queues
        bool starving = false, overloaded = false; // latched: reported, condition not cleared yet
        double quiet_until = -std::numeric_limits<double>::infinity();
        std::vector<Instance> instances, next; // the baselines (first `count`), and the next heartbeat's (scratch)
        size_t count = 0;
        size_t cursor = 0; // where the next instance is looked for first: heartbeats keep their order
        uint64_t epoch = 0;
    };

    // detection.NodeSample's fields, whichever struct holds them.
    struct Heartbeat {
        const std::string &node_id;
        double t;
        int64_t queue_length;
        uint64_t rx_bytes, tx_bytes;
        double bandwidth_mbps;
        const std::vector<InstanceSample> &instances;
    };

    std::optional<Detection> judge(const Heartbeat &s);
    NodeState &state(const std::string &node_id);
    std::ptrdiff_t find(NodeState &st, const std::string &id, size_t at) const;
    Instance &entry(NodeState &st, size_t &made, std::ptrdiff_t old, const std::vector<InstanceSample> &instances,
                    size_t i);

    DetectionPolicy policy_;
    std::unordered_map<std::string, NodeState> nodes_;
};

} // namespace ingest

#endif
