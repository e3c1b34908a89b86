// SPDX-License-Identifier: Apache-2.0
//
// The SmartNIC trouble detector: e3.orchestrator.detection's Detector in C++ (the contract is in detector.h).
// Every comparison and every float operation is the reference's, in its order (built without FMA contraction).
#include "detector.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "front_intake.h" // json_string: json.dumps of a str
#include "rollup_steps.h" // python_float_repr

namespace ingest {
namespace {

// A float as json.dumps writes it: repr, or NaN / Infinity / -Infinity.
void append_float(std::string &out, double x) {
    if (std::isnan(x)) {
        out += "NaN";
    } else if (std::isinf(x)) {
        out += x > 0 ? "Infinity" : "-Infinity";
    } else {
        out += python_float_repr(x);
    }
}

void append_int(std::string &out, int64_t v) { out += std::to_string(v); }

// "cpu_shares": {i.instance_id: i.cpu_share for i in s.instances}, keys sorted: an id given twice keeps its last
// share. Python sorts str keys by code point, which is the byte order of their UTF-8.
void append_cpu_shares(std::string &out, const std::vector<InstanceSample> &instances) {
    std::vector<size_t> order(instances.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return instances[a].instance_id < instances[b].instance_id; });
    out += '{';
    bool first = true;
    for (size_t k = 0; k < order.size(); ++k) {
        const InstanceSample &inst = instances[order[k]];
        if (k + 1 < order.size() && instances[order[k + 1]].instance_id == inst.instance_id) continue; // not the last
        if (!first) out += ", ";
        first = false;
        out += json_string(inst.instance_id);
        out += ": ";
        append_float(out, inst.cpu_share);
    }
    out += '}';
}

} // namespace

void DetectionPolicy::validate() const {
    // __post_init__'s conditions, written as Python evaluates them (a NaN fails or passes as it does there).
    if (window < 1 || min_requests < 1 || warmup_heartbeats < 1)
        throw std::invalid_argument("window, min_requests and warmup_heartbeats must be at least 1");
    if (!(0 <= queue_clear && queue_clear < queue_threshold))
        throw std::invalid_argument("queue_clear must be in 0..queue_threshold-1");
    if (!(0 < bandwidth_util_max && bandwidth_util_max <= 1))
        throw std::invalid_argument("bandwidth_util_max must be in (0, 1]");
    if (!(0 <= overload_clear && overload_clear < overload_deviation))
        throw std::invalid_argument("overload_clear must be in 0..overload_deviation (exclusive)");
    if (cooldown_s < 0) throw std::invalid_argument("cooldown_s must not be negative");
    if (!(0 < ema_alpha && ema_alpha <= 1)) throw std::invalid_argument("ema_alpha must be in (0, 1]");
    if (overload_floor_us < 0) throw std::invalid_argument("overload_floor_us must not be negative");
    if (overload_queue_floor < 1) throw std::invalid_argument("overload_queue_floor must be at least 1");
}

double python_round(double x, int ndigits) {
    // CPython's float.__round__: non-finite x as it is; past NDIGITS_MAX digits x is exact already; else dtoa
    // mode 3 (the exact binary value rounded to ndigits decimals, ties to even) read back by strtod. to_chars'
    // fixed precision is that same exact rounding (ties to even), from_chars the same correct reading.
    constexpr int kNdigitsMax = static_cast<int>((53 - (-1021)) * 0.30103); // (DBL_MANT_DIG - DBL_MIN_EXP)
    if (ndigits < 0) throw std::invalid_argument("python_round: ndigits must not be negative");
    if (!std::isfinite(x) || ndigits > kNdigitsMax) return x;
    char buf[312 + kNdigitsMax + 8]; // sign, 309 integer digits at most, the point, the decimals
    const std::to_chars_result printed = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, ndigits);
    double out = x;
    if (printed.ec != std::errc() || std::from_chars(buf, printed.ptr, out).ec != std::errc())
        throw std::runtime_error("python_round: cannot print or read back a double");
    return out;
}

Detector::Detector(const DetectionPolicy &policy) : policy_(policy) { policy_.validate(); }

Detector::NodeState &Detector::state(const std::string &node_id) {
    auto it = nodes_.find(node_id);
    if (it == nodes_.end()) it = nodes_.try_emplace(node_id, static_cast<size_t>(policy_.window)).first;
    return it->second;
}

void Detector::forget(const std::string &node_id) { nodes_.erase(node_id); }

void Detector::cool_down(const std::string &node_id, double t) {
    NodeState &st = state(node_id);
    const double until = t + policy_.cooldown_s;
    if (until > st.quiet_until) st.quiet_until = until; // max(quiet_until, until): the first unless the second is >
}

// The instance `id` among the node's baselines, or -1: looked for after the previous one found first, then at the
// sample's position `at`, then everywhere (an instance's heartbeats usually list the instances in one order).
std::ptrdiff_t Detector::find(NodeState &st, const std::string &id, size_t at) const {
    std::ptrdiff_t hit = -1;
    if (st.cursor < st.count && st.instances[st.cursor].id == id) {
        hit = static_cast<std::ptrdiff_t>(st.cursor);
    } else if (at < st.count && st.instances[at].id == id) {
        hit = static_cast<std::ptrdiff_t>(at);
    } else {
        for (size_t k = 0; k < st.count && hit < 0; ++k)
            if (st.instances[k].id == id) hit = static_cast<std::ptrdiff_t>(k);
    }
    if (hit >= 0) st.cursor = static_cast<size_t>(hit) + 1;
    return hit;
}

// The next heartbeat's entry for s.instances[i] (Python's `bases[iid] = ...` etc. on the new dicts): made on first
// use in this heartbeat with no streak, the same entry again for an id given twice.
Detector::Instance &Detector::entry(NodeState &st, size_t &made, std::ptrdiff_t old,
                                    const std::vector<InstanceSample> &instances, size_t i) {
    if (old >= 0) {
        Instance &was = st.instances[static_cast<size_t>(old)];
        if (was.mark == st.epoch) return st.next[was.made];
        was.mark = st.epoch;
        was.made = made;
    } else {
        for (size_t k = 0; k < made; ++k)
            if (st.next[k].from_old < 0 && instances[st.next[k].from_sample].instance_id == instances[i].instance_id)
                return st.next[k];
    }
    if (made == st.next.size()) st.next.emplace_back();
    Instance &e = st.next[made++];
    e.streak = 0;
    e.from_old = old;
    e.from_sample = i;
    return e;
}

std::optional<Detection> Detector::observe(const NodeSample &s) {
    if (!s.smartnic) return std::nullopt;
    return judge(Heartbeat{s.node_id, s.t, s.queue_length, s.rx_bytes, s.tx_bytes, s.bandwidth_mbps, s.instances});
}

std::optional<Detection> Detector::observe(const DetectionSample &s, double bandwidth_mbps) {
    // queue_length: a uint32 on the wire, so an int64 holds it
    return judge(Heartbeat{s.node_id, s.t, static_cast<int64_t>(s.queue_length), s.rx_bytes, s.tx_bytes,
                           bandwidth_mbps, s.instances});
}

std::optional<Detection> Detector::judge(const Heartbeat &s) {
    const DetectionPolicy &p = policy_;
    NodeState &st = state(s.node_id);
    std::optional<Detection> found;

    // Host starvation. The rate needs the previous heartbeat: without one (first, out of order, a counter reset
    // by an agent restart) the interval is unknown and cannot count.
    bool have_util = false;
    double util = 0.0;
    if (st.have_last && s.t > st.t && s.rx_bytes >= st.rx && s.tx_bytes >= st.tx && s.bandwidth_mbps > 0) {
        const uint64_t busier = std::max(s.rx_bytes - st.rx, s.tx_bytes - st.tx);
        util = static_cast<double>(busier) * 8e-6 / (s.t - st.t) / s.bandwidth_mbps; // float(int): correctly rounded
        have_util = true;
    }
    st.have_last = true;
    st.t = s.t;
    st.rx = s.rx_bytes;
    st.tx = s.tx_bytes;
    const int64_t q = s.queue_length;
    st.recent_queues.push(q);
    if (q >= p.queue_threshold && have_util && util < p.bandwidth_util_max) {
        ++st.queue_streak;
        st.queues.push({q, util});
    } else {
        st.queue_streak = 0;
        st.queues.clear();
    }
    if (st.starving && q <= p.queue_clear) st.starving = false;
    if (st.queue_streak >= p.window && !st.starving && s.t >= st.quiet_until) {
        st.starving = true;
        st.quiet_until = s.t + p.cooldown_s;
        Detection d{kHostStarvation, s.node_id, s.t, std::string(), std::string()};
        std::string &j = d.detail_json;
        j += "{\"bandwidth_util\": [";
        for (size_t k = 0; k < st.queues.size(); ++k) {
            if (k) j += ", ";
            append_float(j, python_round(st.queues[k].second, 4));
        }
        j += "], \"bandwidth_util_max\": ";
        append_float(j, p.bandwidth_util_max);
        j += ", \"cpu_shares\": ";
        append_cpu_shares(j, s.instances);
        j += ", \"queue_lengths\": [";
        for (size_t k = 0; k < st.queues.size(); ++k) {
            if (k) j += ", ";
            append_int(j, st.queues[k].first);
        }
        j += "], \"queue_threshold\": ";
        append_int(j, p.queue_threshold);
        j += '}';
        found = std::move(d);
    }

    // Overload, per instance, against the per-heartbeat baseline. Instances missing from this heartbeat, or idle in
    // it, lose their streak; gone instances lose their baseline.
    bool clear = true, have_worst = false;
    int64_t worst_n = 0;
    size_t worst_at = 0;
    double worst_ratio = 0.0, worst_base = 0.0;
    const double high = 1.0 + p.overload_deviation, low = 1.0 + p.overload_clear, alpha = p.ema_alpha;
    const std::vector<int64_t> &recent = st.recent_queues.unordered(); // holds this heartbeat's: never empty
    const int64_t peak = *std::max_element(recent.begin(), recent.end());
    const bool waiting = peak >= p.overload_queue_floor; // a core behind: light use is never this
    const auto min_requests = static_cast<uint64_t>(p.min_requests); // >= 1 (validated)
    ++st.epoch;
    st.cursor = 0;
    size_t made = 0;
    for (size_t i = 0; i < s.instances.size(); ++i) {
        const InstanceSample &inst = s.instances[i];
        const double ex = inst.exec_time_us;
        const std::ptrdiff_t old = find(st, inst.instance_id, i);
        const Instance *was = old >= 0 ? &st.instances[static_cast<size_t>(old)] : nullptr;
        const double base = was ? was->baseline : 0.0;
        const int64_t heartbeats = was ? was->warmed : 0;
        if (inst.requests_completed < min_requests || ex <= 0) { // idle: nothing to judge or learn
            if (was) {
                Instance &e = entry(st, made, old, s.instances, i);
                e.baseline = base;
                e.warmed = heartbeats;
            }
            continue;
        }
        if (heartbeats < p.warmup_heartbeats) { // warming up: the baseline is the mean so far
            const double mean = was ? base + (ex - base) / static_cast<double>(heartbeats + 1) : ex;
            Instance &e = entry(st, made, old, s.instances, i);
            e.baseline = mean;
            e.warmed = heartbeats + 1;
            continue;
        }
        const int64_t streak = was->streak; // warmed: it has a baseline
        Instance &e = entry(st, made, old, s.instances, i);
        e.warmed = heartbeats;
        const bool over = ex > base * high && (waiting || ex - base >= p.overload_floor_us);
        if (over) {
            const int64_t n = streak + 1;
            e.streak = n;
            if (n >= p.window && (!have_worst || ex / base > worst_ratio)) { // a tie: the first stays
                have_worst = true;
                worst_n = n;
                worst_at = i;
                worst_ratio = ex / base;
                worst_base = base;
            }
        }
        if (ex > base * low) clear = false;
        e.baseline = !over || st.overloaded ? base + alpha * (ex - base) : base;
    }
    // The entries made become the node's baselines (their ids moved from the old ones, or copied from the sample).
    for (size_t k = 0; k < made; ++k) {
        Instance &e = st.next[k];
        if (e.from_old >= 0)
            e.id.swap(st.instances[static_cast<size_t>(e.from_old)].id);
        else
            e.id.assign(s.instances[e.from_sample].instance_id);
    }
    st.instances.swap(st.next);
    st.count = made;
    if (st.overloaded && clear) st.overloaded = false;
    if (have_worst && !found && !st.overloaded && s.t >= st.quiet_until) {
        const InstanceSample &inst = s.instances[worst_at];
        st.overloaded = true;
        st.quiet_until = s.t + p.cooldown_s;
        Detection d{kOverload, s.node_id, s.t, inst.instance_id, std::string()};
        std::string &j = d.detail_json;
        j += "{\"agent_ema_us\": ";
        append_float(j, inst.exec_time_ema_us);
        j += ", \"baseline_us\": ";
        append_float(j, python_round(worst_base, 3));
        j += ", \"cpu_shares\": ";
        append_cpu_shares(j, s.instances);
        j += ", \"deviation\": ";
        append_float(j, python_round(worst_ratio - 1.0, 4));
        j += ", \"exec_time_us\": ";
        append_float(j, inst.exec_time_us);
        j += ", \"heartbeats\": ";
        append_int(j, worst_n);
        j += ", \"overload_deviation\": ";
        append_float(j, p.overload_deviation);
        j += ", \"queue_peak\": ";
        append_int(j, peak);
        j += '}';
        found = std::move(d);
    }
    return found;
}

} // namespace ingest
