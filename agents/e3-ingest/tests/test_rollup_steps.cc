// SPDX-License-Identifier: Apache-2.0
//
// The C++ rollup steps against the Python reference: replays tests/golden/rollup_steps.json (made by
// `python -m e3.services.rollup_golden`, backend/e3/services/rollup_golden.py) through EnergyClock,
// RollupSteps and the COPY line writers, and compares every heartbeat's interval, joules and untaken row
// count and every take's rows: integers and strings exactly, floats bit for bit (a float within 1e-12
// relative is tolerated but counted and reported), COPY lines exactly. Also the lines' pieces on their edge
// cases (repr, isoformat, ns -> s).
// Usage: e3ingest_test_rollup_steps FIXTURE.json. Exit 0 when all agree, 1 naming the first difference.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rollup_steps.h"
#include "golden_reader.h"

namespace {

using golden::Json;
using golden::Parser;

// ---- comparing, with the place of a difference named --------------------------------------------------

std::string where; // "seed 2, op 41 (take 3), node row 1" etc.
long floats_exact = 0, floats_close = 0;

[[noreturn]] void mismatch(const std::string &field, const std::string &got, const std::string &want) {
    std::fprintf(stderr, "MISMATCH %s, %s:\n  C++:    %s\n  Python: %s\n", where.c_str(), field.c_str(), got.c_str(),
                 want.c_str());
    std::fprintf(stderr, "(if the Python rules changed on purpose, carry the change to src/rollup_steps.cc)\n");
    std::exit(1);
}

std::string shown(const std::string &s) { // a string with its tabs and line breaks visible
    std::string out = "\"";
    for (char c : s) out += c == '\t' ? std::string("\\t") : c == '\n' ? std::string("\\n") : std::string(1, c);
    return out + "\"";
}

void same_int(const std::string &field, int64_t got, const Json &want) {
    if (got != want.integer()) mismatch(field, std::to_string(got), want.text);
}

void same_count(const std::string &field, size_t got, size_t want) {
    if (got != want) mismatch(field, std::to_string(got), std::to_string(want));
}

void same_str(const std::string &field, const std::string &got, const Json &want) {
    if (got != want.str()) mismatch(field, shown(got), shown(want.str()));
}

void same_float(const std::string &field, double got, const Json &want) {
    const double w = want.real();
    if (got == w && std::signbit(got) == std::signbit(w)) {
        ++floats_exact;
        return;
    }
    if (std::isnan(got) && std::isnan(w)) {
        ++floats_exact;
        return;
    }
    const double scale = std::fmax(std::fabs(got), std::fabs(w));
    if (std::isfinite(got) && std::isfinite(w) && std::fabs(got - w) <= 1e-12 * scale) {
        ++floats_close;
        return;
    }
    char g[64], x[64];
    std::snprintf(g, sizeof g, "%.17g", got);
    std::snprintf(x, sizeof x, "%.17g (%s)", w, want.text.c_str());
    mismatch(field, g, x);
}

void check_node_row(const ingest::NodeRollup &r, const Json &w) {
    same_str("node_id", r.node_id, w["node_id"]);
    same_str("cluster_id", r.cluster_id, w["cluster_id"]);
    same_int("start", r.start, w["start"]);
    same_int("step_s", r.step_s, w["step_s"]);
    same_int("heartbeats", r.heartbeats, w["heartbeats"]);
    same_float("seconds", r.seconds, w["seconds"]);
    same_float("joules", r.joules, w["joules"]);
    same_str("power_source", r.power_source, w["power_source"]);
    same_float("power_watts_sum", r.power_watts_sum, w["power_watts_sum"]);
    same_float("power_watts_max", r.power_watts_max, w["power_watts_max"]);
    same_int("queue_len_sum", r.queue_len_sum, w["queue_len_sum"]);
    same_int("queue_len_max", r.queue_len_max, w["queue_len_max"]);
    same_float("cpu_util_sum", r.cpu_util_sum, w["cpu_util_sum"]);
    same_float("cpu_util_max", r.cpu_util_max, w["cpu_util_max"]);
    same_int("rx_bytes", r.rx_bytes, w["rx_bytes"]);
    same_int("tx_bytes", r.tx_bytes, w["tx_bytes"]);
    same_int("rx_packets", r.rx_packets, w["rx_packets"]);
    same_int("tx_packets", r.tx_packets, w["tx_packets"]);
    same_int("requests", r.requests, w["requests"]);
    same_float("last_ts", r.last_ts, w["last_ts"]);
    same_str("COPY line", ingest::node_copy_line(r), w["line"]);
}

void check_instance_row(const ingest::InstanceRollup &r, const Json &w) {
    same_str("instance_id", r.instance_id, w["instance_id"]);
    same_str("node_id", r.node_id, w["node_id"]);
    same_str("cluster_id", r.cluster_id, w["cluster_id"]);
    same_int("start", r.start, w["start"]);
    same_int("step_s", r.step_s, w["step_s"]);
    same_int("heartbeats", r.heartbeats, w["heartbeats"]);
    same_int("requests", r.requests, w["requests"]);
    same_float("exec_time_us_sum", r.exec_time_us_sum, w["exec_time_us_sum"]);
    same_float("cpu_seconds", r.cpu_seconds, w["cpu_seconds"]);
    same_int("latency_count", r.latency_count, w["latency_count"]);
    same_float("latency_us_sum", r.latency_us_sum, w["latency_us_sum"]);
    same_float("latency_p99_max", r.latency_p99_max, w["latency_p99_max"]);
    same_float("latency_p99_weighted_sum", r.latency_p99_weighted_sum, w["latency_p99_weighted_sum"]);
    same_str("COPY line", ingest::instance_copy_line(r), w["line"]);
}

// The lines' pieces on their edge cases.
void check_formats(const Json &formats) {
    const Json &floats = formats["floats"], &times = formats["times"], &ns = formats["ns"];
    for (size_t i = 0; i < floats.size(); ++i) {
        where = "formats.floats[" + std::to_string(i) + "] " + floats[i][0].text;
        same_str("repr", ingest::python_float_repr(floats[i][0].real()), floats[i][1]);
    }
    for (size_t i = 0; i < times.size(); ++i) {
        where = "formats.times[" + std::to_string(i) + "] " + times[i][0].text;
        same_str("isoformat", ingest::iso_utc(times[i][0].real()), times[i][1]);
    }
    for (size_t i = 0; i < ns.size(); ++i) {
        where = "formats.ns[" + std::to_string(i) + "] " + ns[i][0].text;
        const double got = ingest::seconds_from_ns(ns[i][0].integer());
        if (got != ns[i][1].real()) { // bit for bit: no tolerance on a timestamp
            char g[64];
            std::snprintf(g, sizeof g, "%.17g", got);
            mismatch("ns / 1e9", g, ns[i][1].text);
        }
    }
}

void replay(const Json &c, double max_interval_s, int64_t step_s) {
    const std::string seed = "seed " + c["seed"].text;
    const Json &inputs = c["inputs"], &takes = c["takes"];
    ingest::RollupSteps rollups(step_s);
    std::map<std::string, ingest::EnergyClock> clocks;    // the ledger's accounts, by node
    std::map<std::string, ingest::NodeSteps *> node_steps; // each node's rollup steps, as registered
    size_t taken = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Json &op = inputs[i];
        const std::string &kind = op["op"].str();
        where = seed + ", op " + std::to_string(i) + " (" + kind + ")";
        if (kind == "node") {
            const std::string &id = op["node_id"].str();
            node_steps[id] = &rollups.node(id, op["cluster_id"].str());
            clocks.try_emplace(id, max_interval_s);
        } else if (kind == "heartbeat") {
            const std::string &id = op["node_id"].str();
            // The intake's t = ts / 1e9, which must be Python's to the bit.
            const double t = ingest::seconds_from_ns(op["ts_ns"].integer());
            if (t != op["t"].real()) {
                char g[64];
                std::snprintf(g, sizeof g, "%.17g", t);
                mismatch("t = ts_ns / 1e9", g, op["t"].text);
            }
            std::vector<ingest::InstanceFigures> used;
            const Json &instances = op["instances"];
            for (size_t k = 0; k < instances.size(); ++k) {
                const Json &u = instances[k];
                used.push_back(ingest::InstanceFigures{u[0].str(), u[1].integer(), u[2].real(), u[3].real(),
                                                       u[4].integer(), u[5].real(), u[6].real()});
            }
            const double watts = op["watts"].real(), cpu_util = op["cpu_util"].real();
            const std::string &source = op["source"].str();
            ingest::EnergyClock &clock = clocks.at(id);
            const double joules = clock.add(t, watts); // then the rollup, as heartbeat_intake.accept does
            node_steps.at(id)->add(t, clock.interval(), joules, source, watts, op["queue_len"].integer(), cpu_util,
                                   op["rx_bytes"].integer(), op["tx_bytes"].integer(), op["rx_packets"].integer(),
                                   op["tx_packets"].integer(), used);
            const Json &expect = op["expect"];
            same_float("interval", clock.interval(), expect["interval"]);
            same_float("joules", joules, expect["joules"]);
            same_int("untaken_rows", rollups.untaken_rows(), expect["untaken_rows"]);
        } else if (kind == "take") {
            if (taken >= takes.size()) same_count("takes", taken + 1, takes.size());
            const Json &want = takes[taken];
            where = seed + ", op " + std::to_string(i) + " (take " + std::to_string(taken) + ")";
            const std::string at = where;
            same_int("untaken_rows before the take", rollups.untaken_rows(), want["untaken_rows"]);
            const ingest::Rollups got = rollups.take();
            same_count("node rows", got.nodes.size(), want["nodes"].size());
            same_count("instance rows", got.instances.size(), want["instances"].size());
            for (size_t r = 0; r < got.nodes.size(); ++r) {
                where = at + ", node row " + std::to_string(r);
                check_node_row(got.nodes[r], want["nodes"][r]);
            }
            for (size_t r = 0; r < got.instances.size(); ++r) {
                where = at + ", instance row " + std::to_string(r);
                check_instance_row(got.instances[r], want["instances"][r]);
            }
            where = at;
            same_count("untaken_rows after the take", static_cast<size_t>(rollups.untaken_rows()), 0);
            ++taken;
        } else {
            throw std::runtime_error("unknown op " + kind);
        }
    }
    where = seed;
    same_count("takes", taken, takes.size());
}

} // namespace

// A take of the ended steps only (the front's: each step leaves whole once it ended): the open ones stay, whole,
// for a later take; no count is lost or doubled whichever way the steps are taken.
void check_ended_takes() {
    where = "take(ended_by)";
    ingest::RollupSteps steps(1);
    ingest::NodeSteps &node = steps.node("n", "c");
    for (int k = 0; k < 30; ++k) // heartbeats every 0.1 s from t = 100.0: steps 100, 101, 102
        node.add(100.0 + 0.1 * k, 0.1, 1.0, "rapl", 10.0, 1, 0.5, 1000 * k, 0, k, 0, {{"i", 5, 2.0, 0.1, 0, 0, 0}});
    const ingest::Rollups early = steps.take(100.5); // step 100 has not ended
    same_count("rows before any step ended", early.nodes.size(), 0);
    const ingest::Rollups first = steps.take(101.0); // step 100 ended exactly
    same_count("rows of the ended step", first.nodes.size(), 1);
    same_count("its instance rows", first.instances.size(), 1);
    if (first.nodes[0].start != 100 || first.nodes[0].heartbeats != 10 || first.instances[0].requests != 50)
        mismatch("the ended step's row", std::to_string(first.nodes[0].start), "step 100, 10 heartbeats, 50 requests");
    if (steps.untaken_rows() != 4) mismatch("rows left untaken", std::to_string(steps.untaken_rows()), "4");
    node.add(100.95, 0.05, 0.5, "rapl", 10.0, 1, 0.5, 31000, 0, 31, 0, {}); // late: a new piece of step 100
    const ingest::Rollups rest = steps.take(); // everything: the late piece, then steps 101 and 102, whole
    same_count("rows of the rest", rest.nodes.size(), 3);
    int64_t heartbeats = first.nodes[0].heartbeats;
    for (const ingest::NodeRollup &row : rest.nodes) heartbeats += row.heartbeats;
    if (rest.nodes[0].start != 100 || rest.nodes[0].heartbeats != 1 || heartbeats != 31)
        mismatch("the rest's rows", std::to_string(heartbeats), "a late piece of step 100, then 101, 102: 31 in all");
    if (steps.untaken_rows() != 0) mismatch("rows left untaken", std::to_string(steps.untaken_rows()), "0");
}

int main(int argc, char **argv) {
    check_ended_takes();
    std::string s;
    if (!golden::read_fixture(argc, argv, "tests/golden/rollup_steps.json", &s)) return 2;
    try {
        const Json doc = Parser(s).document();
        // The defaults are the reference's: a changed MAX_INTERVAL_S or STEP_S must reach the port.
        where = "fixture head";
        same_float("max_interval_s (kMaxIntervalS)", ingest::kMaxIntervalS, doc["max_interval_s"]);
        same_int("step_s (kRollupStepS)", ingest::kRollupStepS, doc["step_s"]);
        check_formats(doc["formats"]);
        const Json &cases = doc["cases"];
        for (size_t i = 0; i < cases.size(); ++i)
            replay(cases[i], doc["max_interval_s"].real(), doc["step_s"].integer());
        std::printf("%zu cases agree; floats: %ld bit-identical, %ld within 1e-12 relative only\n", cases.size(),
                    floats_exact, floats_close);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", where.c_str(), e.what());
        return 1;
    }
    return 0;
}
