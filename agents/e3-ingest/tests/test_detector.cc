// SPDX-License-Identifier: Apache-2.0
//
// The C++ detector against the Python reference: replays tests/golden/detection.json (made by
// `python -m e3.orchestrator.detection_golden`, backend/e3/orchestrator/detection_golden.py, from the real
// e3.orchestrator.detection.Detector) through ingest::Detector and compares every call's outcome exactly: the
// detector's size after it, and each observe's detection or none (kind, node, instance, t bit for bit, the
// detail text to the character), the heartbeats given as NodeSamples and as the intake's DetectionSamples in
// turn. Also the default policy, the policies Python refuses, round()'s edge cases, and a few hand checks.
// Usage: e3ingest_test_detector FIXTURE.json. Exit 0 when all agree, 1 naming the first difference.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "detector.h"
#include "golden_reader.h"

namespace {

using golden::Json;
using golden::Parser;

std::string where; // "seed 4, op 17 (observe nic-2)", "scripted, op 3 (observe equal)" etc.

[[noreturn]] void differs(const std::string &field, const std::string &got, const std::string &want) {
    std::fprintf(stderr, "MISMATCH %s, %s:\n  C++:    %s\n  Python: %s\n", where.c_str(), field.c_str(), got.c_str(),
                 want.c_str());
    std::fprintf(stderr, "(if the Python rules changed on purpose, carry the change to src/detector.cc)\n");
    std::exit(1);
}

std::string g17(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Bit for bit: the same double (a zero's sign included; any NaN is a NaN).
bool same_double(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

void same_float(const std::string &field, double got, const Json &want) {
    if (!same_double(got, want.real())) differs(field, g17(got), want.text);
}

void same_int(const std::string &field, int64_t got, const Json &want) {
    if (got != want.integer()) differs(field, std::to_string(got), want.text);
}

void same_str(const std::string &field, const std::string &got, const std::string &want) {
    if (got != want) differs(field, got, want);
}

// A policy: `base` with the fields `fields` names (all of a case's, or an edge case's changes).
ingest::DetectionPolicy policy_from(const Json &fields, ingest::DetectionPolicy p = ingest::DetectionPolicy()) {
    for (const auto &[name, v] : fields.members) {
        if (name == "window") p.window = v.integer();
        else if (name == "queue_threshold") p.queue_threshold = v.integer();
        else if (name == "queue_clear") p.queue_clear = v.integer();
        else if (name == "bandwidth_util_max") p.bandwidth_util_max = v.real();
        else if (name == "overload_deviation") p.overload_deviation = v.real();
        else if (name == "overload_clear") p.overload_clear = v.real();
        else if (name == "ema_alpha") p.ema_alpha = v.real();
        else if (name == "min_requests") p.min_requests = v.integer();
        else if (name == "warmup_heartbeats") p.warmup_heartbeats = v.integer();
        else if (name == "cooldown_s") p.cooldown_s = v.real();
        else if (name == "overload_floor_us") p.overload_floor_us = v.real();
        else if (name == "overload_queue_floor") p.overload_queue_floor = v.integer();
        else differs("policy field", "(none)", name);
    }
    return p;
}

// The defaults are the reference's, field by field; every field of Python's policy is known here.
void check_default_policy(const Json &defaults) {
    where = "fixture head, default_policy";
    const ingest::DetectionPolicy p;
    if (defaults.size() != 12) differs("DetectionPolicy's field count", "12", std::to_string(defaults.size()));
    policy_from(defaults); // fails on a field policy_from does not set
    same_int("window", p.window, defaults["window"]);
    same_int("queue_threshold", p.queue_threshold, defaults["queue_threshold"]);
    same_int("queue_clear", p.queue_clear, defaults["queue_clear"]);
    same_float("bandwidth_util_max", p.bandwidth_util_max, defaults["bandwidth_util_max"]);
    same_float("overload_deviation", p.overload_deviation, defaults["overload_deviation"]);
    same_float("overload_clear", p.overload_clear, defaults["overload_clear"]);
    same_float("ema_alpha", p.ema_alpha, defaults["ema_alpha"]);
    same_int("min_requests", p.min_requests, defaults["min_requests"]);
    same_int("warmup_heartbeats", p.warmup_heartbeats, defaults["warmup_heartbeats"]);
    same_float("cooldown_s", p.cooldown_s, defaults["cooldown_s"]);
    same_float("overload_floor_us", p.overload_floor_us, defaults["overload_floor_us"]);
    same_int("overload_queue_floor", p.overload_queue_floor, defaults["overload_queue_floor"]);
}

void check_policies(const Json &checks) {
    for (size_t i = 0; i < checks.size(); ++i) {
        where = "policy_checks[" + std::to_string(i) + "]";
        const ingest::DetectionPolicy p = policy_from(checks[i][0]);
        const Json &error = checks[i][1];
        std::string got = "(valid)";
        try {
            p.validate();
        } catch (const std::invalid_argument &e) {
            got = e.what();
        }
        same_str("validate()", got, error.is_null() ? "(valid)" : error.str());
    }
}

void check_rounds(const Json &rounds) {
    for (size_t i = 0; i < rounds.size(); ++i) {
        const Json &r = rounds[i];
        where = "rounds[" + std::to_string(i) + "] round(" + r[0].text + ", " + r[1].text + ")";
        same_float("python_round", ingest::python_round(r[0].real(), static_cast<int>(r[1].integer())), r[2]);
    }
}

long replay(const Json &c) {
    const std::string name = c["name"].str();
    where = name + ", policy";
    ingest::Detector detector(policy_from(c["policy"]));
    const Json &ops = c["ops"];
    ingest::NodeSample s; // reused, as the front would
    ingest::DetectionSample d{};
    long detections = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        const Json &op = ops[i];
        const std::string &kind = op["op"].str();
        const std::string &node = op["node"].str();
        where = name + ", op " + std::to_string(i) + " (" + kind + " " + node + ")";
        if (kind == "cool_down") {
            detector.cool_down(node, op["t"].real());
        } else if (kind == "forget") {
            detector.forget(node);
        } else if (kind == "observe") {
            s.node_id = node;
            s.smartnic = op["kind"].str() == "smartnic";
            s.t = op["t"].real();
            s.queue_length = op["queue"].integer();
            s.rx_bytes = op["rx"].uint64();
            s.tx_bytes = op["tx"].uint64();
            s.bandwidth_mbps = op["mbps"].real();
            const Json &instances = op["instances"];
            s.instances.resize(instances.size());
            for (size_t k = 0; k < instances.size(); ++k) {
                const Json &u = instances[k];
                ingest::InstanceSample &inst = s.instances[k];
                inst.instance_id = u[0].str();
                inst.exec_time_us = u[1].real();
                inst.exec_time_ema_us = u[2].real();
                inst.cpu_share = u[3].real();
                inst.requests_completed = u[4].uint64();
            }
            // Every other SmartNIC heartbeat as the intake hands it over (a DetectionSample and the link rate).
            std::optional<ingest::Detection> got;
            if (s.smartnic && i % 2 == 1) {
                d.node_id = s.node_id;
                d.t = s.t;
                d.queue_length = static_cast<uint64_t>(s.queue_length);
                d.rx_bytes = s.rx_bytes;
                d.tx_bytes = s.tx_bytes;
                d.instances = s.instances;
                got = detector.observe(d, s.bandwidth_mbps);
            } else {
                got = detector.observe(s);
            }
            const Json &want = op["expect"];
            if (want.is_null() != !got.has_value())
                differs("detection", got ? got->kind + " " + got->detail_json : "none",
                        want.is_null() ? "none" : want["kind"].str() + " " + want["detail"].str());
            if (got) {
                ++detections;
                same_str("kind", got->kind, want["kind"].str());
                same_str("node_id", got->node_id, want["node_id"].str());
                same_float("t", got->t, want["t"]);
                same_str("instance_id", got->instance_id,
                         want["instance_id"].is_null() ? std::string() : want["instance_id"].str());
                same_str("detail", got->detail_json, want["detail"].str());
            }
        } else {
            throw std::runtime_error("unknown op " + kind);
        }
        same_int("size", static_cast<int64_t>(detector.size()), op["size"]);
    }
    return detections;
}

// ---- hand checks (tests/orchestrator/test_detection.py's first cases) ----------------------------------------

// A NIC's heartbeat 50 ms after the previous one, its counters grown at `util` of a 10 Gb/s link.
struct Nic {
    ingest::NodeSample s;
    explicit Nic(const char *id) {
        s.node_id = id;
        s.t = 1000.0;
        s.rx_bytes = s.tx_bytes = 1000000000;
        s.bandwidth_mbps = 10000;
    }
    const ingest::NodeSample &next(int64_t queue, double util) {
        s.t += 0.050;
        const auto step = static_cast<uint64_t>(util * 10000 * 1e6 / 8 * 0.050);
        s.rx_bytes += step;
        s.tx_bytes += step / 2;
        s.queue_length = queue;
        return s;
    }
};

void hand_checks() {
    where = "hand checks";
    // round(): ties in binary go to even; 2.675 is below its decimal; the sign of a zero stays.
    CHECK(ingest::python_round(0.125, 2) == 0.12 && ingest::python_round(0.375, 2) == 0.38);
    CHECK(ingest::python_round(2.675, 2) == 2.67 && ingest::python_round(2.5, 0) == 2.0);
    CHECK(std::signbit(ingest::python_round(-0.00001, 3)));
    CHECK(std::isinf(ingest::python_round(INFINITY, 3)) && std::isnan(ingest::python_round(NAN, 4)));

    bool refused = false;
    try {
        ingest::DetectionPolicy bad;
        bad.queue_clear = bad.queue_threshold;
        ingest::Detector detector(bad);
    } catch (const std::invalid_argument &) {
        refused = true;
    }
    CHECK(refused);

    // A standing queue on an idle link: starvation on the third heartbeat, once.
    ingest::Detector detector;
    Nic nic("nic0");
    for (int i = 0; i < 5; ++i) CHECK(!detector.observe(nic.next(0, 0.3)));
    std::vector<int> at;
    for (int i = 0; i < 10; ++i) {
        const auto d = detector.observe(nic.next(200, 0.25));
        if (d) {
            at.push_back(i);
            CHECK(d->kind == ingest::kHostStarvation && d->node_id == "nic0" && d->instance_id.empty());
            CHECK(d->detail_json.find("\"queue_lengths\": [200, 200, 200]") != std::string::npos);
            CHECK(d->detail_json.find("\"bandwidth_util\": [0.25, 0.25, 0.25]") != std::string::npos);
            CHECK(d->detail_json.find("\"cpu_shares\": {}") != std::string::npos);
        }
    }
    CHECK_EQ_INT(at.size(), 1);
    CHECK_EQ_INT(at[0], 2);

    // At line rate it is saturation; a host is not judged (and gets no state).
    Nic busy("nic1");
    for (int i = 0; i < 20; ++i) CHECK(!detector.observe(busy.next(500, 0.95)));
    Nic host("host0");
    host.s.smartnic = false;
    for (int i = 0; i < 20; ++i) CHECK(!detector.observe(host.next(500, 0.1)));
    CHECK_EQ_INT(detector.size(), 2);

    // A decision cools a node down (and makes its state); forget drops it.
    detector.cool_down("nic2", 1000.0);
    CHECK_EQ_INT(detector.size(), 3);
    Nic later("nic2");
    for (int i = 0; i < 10; ++i) CHECK(!detector.observe(later.next(200, 0.1))); // within 5 s of 1000.0
    detector.forget("nic2");
    detector.forget("nic-unknown");
    CHECK_EQ_INT(detector.size(), 2);

    // reset: no state; the standing queue is new again (its first heartbeat has no rate), reported afresh.
    detector.reset();
    CHECK_EQ_INT(detector.size(), 0);
    at.clear();
    for (int i = 0; i < 5; ++i)
        if (detector.observe(nic.next(200, 0.25))) at.push_back(i);
    CHECK_EQ_INT(at.size(), 1);
    CHECK_EQ_INT(at[0], 3);
}

} // namespace

int main(int argc, char **argv) {
    std::string text;
    if (!golden::read_fixture(argc, argv, "tests/golden/detection.json", &text)) return 2;
    try {
        hand_checks();
        const Json doc = Parser(text).document();
        check_default_policy(doc["default_policy"]);
        check_policies(doc["policy_checks"]);
        check_rounds(doc["rounds"]);
        const Json &cases = doc["cases"];
        long ops = 0, detections = 0;
        for (size_t i = 0; i < cases.size(); ++i) {
            detections += replay(cases[i]);
            ops += static_cast<long>(cases[i]["ops"].size());
        }
        std::printf("%zu cases agree: %ld calls, %ld detections; %zu round() cases, %zu policy checks\n",
                    cases.size(), ops, detections, doc["rounds"].size(), doc["policy_checks"].size());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", where.c_str(), e.what());
        return 1;
    }
    return 0;
}
