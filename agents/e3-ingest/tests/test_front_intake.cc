// SPDX-License-Identifier: Apache-2.0
//
// ingest::FrontIntake against the Python intake: replays tests/golden/intake.json (made by `python -m
// e3.controller.intake_golden`, backend/e3/controller/intake_golden.py, from the real HeartbeatIntake with an
// energy ledger and rollups) op by op: node table changes (upsert_node, remove_node), batches (accept), takes
// of the rollups and of the backlog. Compared exactly, per batch: the accepted count; per accepted heartbeat
// its index, cluster and node ids and live item, byte for byte; per rejection its index, node id as sent and
// reason, to the character; the SmartNIC detection samples (t bit for bit); per take the untaken row count
// and every COPY line; each backlog (bit for bit, or none).
// A heartbeat the C++ quick check doubts is consistent with Python when Python's quick check doubted it too
// (the fixture's `doubted`, found as e3.heartbeat_golden finds it), or when it has a non-ASCII instance id (the
// C++ check doubts those, heartbeat_check.h). Python's verdict then stands in for the front's hand-off: a
// heartbeat_problem reason must be Python's rejection of it, which is none of the intake's own reasons; one
// without a problem goes, with the deferred heartbeats, through accept_judged, whose outcome must be Python's.
// Also the texts' edge cases (json.dumps of ids, out_of_order, uuid.UUID's spellings) and coverage: the fixture
// must still exercise each outcome.
// Usage: e3ingest_test_front_intake FIXTURE.json. Exit 0 when all agree, 1 naming the first difference.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "e3/agent/v1/agent.pb.h"
#include "front_intake.h"
#include "golden_reader.h"

namespace {

using golden::Json;
using golden::Parser;

using golden::unhex;

// ---- comparing, with the place of a difference named --------------------------------------------------

std::string where; // "op 41 (accept \"doubted\")" etc.

[[noreturn]] void differ(const std::string &field, const std::string &got, const std::string &want) {
    std::fprintf(stderr, "MISMATCH %s, %s:\n  C++:    %s\n  Python: %s\n", where.c_str(), field.c_str(), got.c_str(),
                 want.c_str());
    std::fprintf(stderr, "(if the Python intake changed on purpose, carry the change to src/front_intake.cc)\n");
    std::exit(1);
}

std::string shown(const std::string &s) { // a string with its tabs and line breaks visible
    std::string out = "\"";
    for (char c : s) out += c == '\t' ? std::string("\\t") : c == '\n' ? std::string("\\n") : std::string(1, c);
    return out + "\"";
}

std::string float_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

void same_str(const std::string &field, const std::string &got, const std::string &want) {
    if (got != want) differ(field, shown(got), shown(want));
}

void same_int(const std::string &field, int64_t got, int64_t want) {
    if (got != want) differ(field, std::to_string(got), std::to_string(want));
}

void same_uint(const std::string &field, uint64_t got, const Json &want) {
    if (got != want.uint64()) differ(field, std::to_string(got), want.text);
}

void same_bits(const std::string &field, double got, const Json &want) { // bit for bit: no tolerance
    const double w = want.real();
    if (!(got == w && std::signbit(got) == std::signbit(w))) differ(field, float_text(got), want.text);
}

bool non_ascii_id(const e3::agent::v1::Heartbeat &hb) {
    for (const auto &inst : hb.instances())
        for (const char c : inst.instance_id())
            if (static_cast<unsigned char>(c) >= 0x80) return true;
    return false;
}

bool intake_reason(const std::string &reason) { // one of the intake's own, not heartbeat_problem's
    return reason == ingest::kNotRegistered || reason.rfind("stale lease epoch", 0) == 0 ||
           reason.rfind("out of order", 0) == 0;
}

// What the fixture must exercise, counted over the whole replay.
struct Coverage {
    long batches = 0, accepted = 0, not_registered = 0, stale = 0, out_of_order = 0, problem = 0;
    long doubted_accepted = 0, doubted_out_of_order = 0, doubted_non_ascii = 0, deferred = 0, overridden = 0;
    long samples = 0, takes = 0, node_lines = 0, instance_lines = 0, backlogs = 0, other_spellings = 0;
} seen;

// ---- the ops ------------------------------------------------------------------------------------------

ingest::NodeEntry entry_of(const Json &op) {
    ingest::NodeEntry e;
    e.node_id = op["node_id"].str();
    e.cluster_id = op["cluster_id"].str();
    e.agent_id = op["agent_id"].str();
    e.token_id = op["token_id"].str();
    e.kind = op["kind"].str();
    e.lease_epoch = op["lease_epoch"].uint64();
    const Json &o = op["override"];
    if (!o.is_null()) e.power_override = ingest::PowerOverride{o[0].real(), o[1].str(), o[2].real()};
    return e;
}

// One outcome of a heartbeat, C++'s or Python's, to compare by index.
struct Outcome {
    bool accepted = false;
    std::string cluster_id, node_id, live; // accepted
    std::string sent, reason;              // refused
};

void accept(ingest::FrontIntake &intake, const Json &op) {
    const std::string &agent_id = op["agent_id"].str(), &token_id = op["token_id"].str();
    const int64_t wall_ns = op["wall_ns"].integer();
    const double now = op["now"].real();
    std::string bytes;
    e3::agent::v1::HeartbeatBatch batch;
    if (!unhex(op["batch"].str(), &bytes) || !batch.ParseFromString(bytes))
        throw std::runtime_error("batch: not a serialized HeartbeatBatch");
    const Json &expect = op["expect"];
    const int n = batch.heartbeats_size();
    ++seen.batches;

    ingest::AcceptResult first = intake.accept(agent_id, token_id, batch, wall_ns, now);
    // Every heartbeat is in exactly one of items, rejections, doubted and deferred.
    std::vector<int> placed(static_cast<size_t>(n), 0);
    for (const auto &a : first.items) ++placed.at(static_cast<size_t>(a.index));
    for (const auto &r : first.rejections) ++placed.at(static_cast<size_t>(r.index));
    for (const int d : first.doubted) ++placed.at(static_cast<size_t>(d));
    for (const int d : first.deferred) ++placed.at(static_cast<size_t>(d));
    for (int i = 0; i < n; ++i)
        if (placed[static_cast<size_t>(i)] != 1)
            differ("heartbeat " + std::to_string(i) + " placed", std::to_string(placed[static_cast<size_t>(i)]) +
                     " times among items, rejections, doubted and deferred", "once");
    same_int("accepted (== items)", first.accepted, static_cast<int64_t>(first.items.size()));

    // Python's doubted heartbeats and heartbeat_problem's reasons.
    std::map<int, std::optional<std::string>> python_doubted;
    const Json &doubted = expect["doubted"];
    for (size_t k = 0; k < doubted.size(); ++k)
        python_doubted[static_cast<int>(doubted[k][0].integer())] =
            doubted[k][1].is_null() ? std::nullopt : std::optional<std::string>(doubted[k][1].str());
    std::map<int, Outcome> ours;
    std::vector<int> judged(first.deferred.begin(), first.deferred.end());
    seen.deferred += static_cast<long>(first.deferred.size());
    for (const int d : first.doubted) {
        const auto found = python_doubted.find(d);
        const std::string at = "doubted heartbeat " + std::to_string(d);
        if (found == python_doubted.end()) {
            if (!non_ascii_id(batch.heartbeats(d)))
                differ(at, "doubted by the C++ quick check", "passed by Python's (and no instance id is non-ASCII)");
            ++seen.doubted_non_ascii;
            judged.push_back(d); // Python's quick check passed it: no problem
        } else if (!found->second) {
            judged.push_back(d);
        } else {
            if (intake_reason(*found->second)) differ(at, "doubted", "refused for " + *found->second);
            ours[d] = Outcome{false, "", "", "", batch.heartbeats(d).node_id(), *found->second}; // Python's reason
            ++seen.problem;
        }
    }
    for (const auto &[d, problem] : python_doubted)
        if (std::find(first.doubted.begin(), first.doubted.end(), d) == first.doubted.end())
            differ("heartbeat " + std::to_string(d), "passed by the C++ quick check (or refused before it)",
                     "doubted by Python's quick check");
    std::sort(judged.begin(), judged.end());
    ingest::AcceptResult second = intake.accept_judged(agent_id, token_id, batch.heartbeats(), judged, wall_ns, now);
    if (!second.doubted.empty() || !second.deferred.empty())
        differ("accept_judged", "doubted or deferred some", "none: judged heartbeats are not checked again");
    same_int("accept_judged's outcomes", static_cast<int64_t>(second.items.size() + second.rejections.size()),
             static_cast<int64_t>(judged.size()));
    for (const auto &a : second.items) {
        if (python_doubted.count(a.index) && !python_doubted[a.index]) ++seen.doubted_accepted;
    }
    for (const auto &r : second.rejections)
        if (python_doubted.count(r.index) && r.reason.rfind("out of order", 0) == 0) ++seen.doubted_out_of_order;

    for (const ingest::AcceptResult *result : {&first, &second}) {
        for (const auto &a : result->items) ours[a.index] = Outcome{true, a.cluster_id, a.node_id, a.live, "", ""};
        for (const auto &r : result->rejections) ours[r.index] = Outcome{false, "", "", "", r.node_id, r.reason};
    }
    same_int("accepted", first.accepted + second.accepted, expect["accepted"].integer());

    std::map<int, Outcome> python;
    const Json &items = expect["items"], &rejections = expect["rejections"];
    for (size_t k = 0; k < items.size(); ++k)
        python[static_cast<int>(items[k][0].integer())] =
            Outcome{true, items[k][1].str(), items[k][2].str(), items[k][3].str(), "", ""};
    for (size_t k = 0; k < rejections.size(); ++k)
        python[static_cast<int>(rejections[k][0].integer())] =
            Outcome{false, "", "", "", rejections[k][1].str(), rejections[k][2].str()};
    same_int("heartbeats with an outcome", static_cast<int64_t>(ours.size()), static_cast<int64_t>(python.size()));
    for (const auto &[index, want] : python) {
        const std::string at = "heartbeat " + std::to_string(index) + " ";
        const auto found = ours.find(index);
        if (found == ours.end()) differ(at + "outcome", "none", want.accepted ? "accepted" : want.reason);
        const Outcome &got = found->second;
        if (got.accepted != want.accepted)
            differ(at + "outcome", got.accepted ? "accepted" : "refused: " + got.reason,
                     want.accepted ? "accepted" : "refused: " + want.reason);
        if (want.accepted) {
            same_str(at + "cluster_id", got.cluster_id, want.cluster_id);
            same_str(at + "node_id", got.node_id, want.node_id);
            same_str(at + "live item", got.live, want.live);
            ++seen.accepted;
            if (want.live.find("\"ipmi-split\"") != std::string::npos) ++seen.overridden;
            if (batch.heartbeats(index).node_id() != want.node_id) ++seen.other_spellings;
        } else {
            same_str(at + "node id as sent", got.sent, want.sent);
            same_str(at + "reason", got.reason, want.reason);
            if (want.reason == ingest::kNotRegistered) ++seen.not_registered;
            if (want.reason.rfind("stale lease epoch", 0) == 0) ++seen.stale;
            if (want.reason.rfind("out of order", 0) == 0) ++seen.out_of_order;
        }
    }

    std::map<int, const ingest::DetectionSample *> samples;
    for (const ingest::AcceptResult *result : {&first, &second})
        for (const auto &s : result->samples) samples[s.index] = &s;
    const Json &want_samples = expect["samples"];
    same_int("detection samples", static_cast<int64_t>(samples.size()), static_cast<int64_t>(want_samples.size()));
    size_t k = 0;
    for (const auto &[index, s] : samples) {
        const Json &w = want_samples[k++];
        const std::string at = "sample of heartbeat " + std::to_string(index) + " ";
        same_int(at + "index", index, w[0].integer());
        same_str(at + "node_id", s->node_id, w[1].str());
        same_bits(at + "t", s->t, w[2]);
        same_uint(at + "queue_length", s->queue_length, w[3]);
        same_uint(at + "rx_bytes", s->rx_bytes, w[4]);
        same_uint(at + "tx_bytes", s->tx_bytes, w[5]);
        const Json &insts = w[6];
        same_int(at + "instances", static_cast<int64_t>(s->instances.size()), static_cast<int64_t>(insts.size()));
        for (size_t j = 0; j < insts.size(); ++j) {
            const ingest::InstanceSample &i = s->instances[j];
            const std::string in = at + "instance " + std::to_string(j) + " ";
            same_str(in + "id", i.instance_id, insts[j][0].str());
            same_bits(in + "exec_time_us", i.exec_time_us, insts[j][1]);
            same_bits(in + "exec_time_ema_us", i.exec_time_ema_us, insts[j][2]);
            same_bits(in + "cpu_share", i.cpu_share, insts[j][3]);
            same_uint(in + "requests_completed", i.requests_completed, insts[j][4]);
        }
        ++seen.samples;
    }
}

void take(ingest::FrontIntake &intake, const Json &op) {
    same_int("untaken_rows before the take", intake.untaken_rows(), op["untaken_rows"].integer());
    const ingest::RollupTake got = intake.take_rollups();
    const Json &nodes = op["nodes"], &instances = op["instances"];
    same_int("node rows", static_cast<int64_t>(got.node_lines.size()), static_cast<int64_t>(nodes.size()));
    same_int("instance rows", static_cast<int64_t>(got.instance_lines.size()), static_cast<int64_t>(instances.size()));
    for (size_t r = 0; r < nodes.size(); ++r)
        same_str("node row " + std::to_string(r), got.node_lines[r], nodes[r].str());
    for (size_t r = 0; r < instances.size(); ++r)
        same_str("instance row " + std::to_string(r), got.instance_lines[r], instances[r].str());
    same_int("untaken_rows after the take", intake.untaken_rows(), 0);
    ++seen.takes;
    seen.node_lines += static_cast<long>(nodes.size());
    seen.instance_lines += static_cast<long>(instances.size());
}

void backlog(ingest::FrontIntake &intake, const Json &op) {
    const std::optional<double> got = intake.take_backlog_s();
    const Json &want = op["seconds"];
    if (want.is_null() != !got)
        differ("backlog", got ? float_text(*got) : "none", want.is_null() ? "none" : want.text);
    if (got) same_bits("backlog", *got, want);
    ++seen.backlogs;
}

// The texts' edge cases, computed by Python (the fixture's `formats`).
void check_formats(const Json &formats) {
    const Json &ids = formats["json"], &behind = formats["out_of_order"], &uuids = formats["uuids"];
    for (size_t i = 0; i < ids.size(); ++i) {
        where = "formats.json[" + std::to_string(i) + "]";
        same_str("json.dumps", ingest::json_string(ids[i][0].str()), ids[i][1].str());
    }
    for (size_t i = 0; i < behind.size(); ++i) {
        where = "formats.out_of_order[" + std::to_string(i) + "] " + behind[i][0].text;
        same_str("out_of_order", ingest::out_of_order(behind[i][0].integer()), behind[i][1].str());
    }
    for (size_t i = 0; i < uuids.size(); ++i) {
        where = "formats.uuids[" + std::to_string(i) + "] " + shown(uuids[i][0].str());
        const std::optional<std::string> got = ingest::FrontIntake::canonical_uuid(uuids[i][0].str());
        const Json &want = uuids[i][1];
        if (want.is_null() != !got || (got && *got != want.str()))
            differ("uuid.UUID", got ? *got : "none", want.is_null() ? "none (ValueError)" : want.str());
    }
    where = "formats";
    same_str("stale_epoch", ingest::stale_epoch(2, 3),
             "stale lease epoch: 2, the node's lease is at epoch 3 (register again)");
}

void replay(const Json &doc) {
    ingest::FrontIntake intake(doc["max_interval_s"].real(), doc["step_s"].integer());
    const Json &ops = doc["ops"];
    for (size_t i = 0; i < ops.size(); ++i) {
        const Json &op = ops[i];
        const std::string &kind = op["op"].str();
        where = "op " + std::to_string(i) + " (" + kind + " \"" + op["case"].str() + "\")";
        if (kind == "upsert") {
            intake.upsert_node(entry_of(op));
        } else if (kind == "remove") {
            if (!intake.remove_node(op["node_id"].str())) differ("remove_node", "false", "true");
        } else if (kind == "accept") {
            accept(intake, op);
        } else if (kind == "take") {
            take(intake, op);
        } else if (kind == "backlog") {
            backlog(intake, op);
        } else {
            throw std::runtime_error("unknown op " + kind);
        }
    }
}

} // namespace

int main(int argc, char **argv) {
    std::string s;
    if (!golden::read_fixture(argc, argv, "tests/golden/intake.json", &s)) return 2;
    try {
        const Json doc = Parser(s).document();
        where = "fixture head";
        if (doc["max_interval_s"].real() != ingest::kMaxIntervalS || doc["step_s"].integer() != ingest::kRollupStepS)
            differ("max_interval_s / step_s", "the C++ defaults", "the fixture's (the Python defaults changed)");
        check_formats(doc["formats"]);
        replay(doc);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", where.c_str(), e.what());
        return 1;
    }
    std::printf("%ld batches agree: %ld heartbeats accepted (%ld under another spelling of the node id, %ld with a "
                "power override), refused: %ld not registered, %ld stale epoch, %ld out of order, %ld by "
                "heartbeat_problem; doubted and then accepted: %ld, then out of order: %ld; doubted for a "
                "non-ASCII id only: %ld; deferred: %ld; %ld detection samples; %ld takes (%ld node, %ld instance "
                "COPY lines); %ld backlogs\n",
                seen.batches, seen.accepted, seen.other_spellings, seen.overridden, seen.not_registered, seen.stale,
                seen.out_of_order, seen.problem, seen.doubted_accepted, seen.doubted_out_of_order,
                seen.doubted_non_ascii, seen.deferred, seen.samples, seen.takes, seen.node_lines,
                seen.instance_lines, seen.backlogs);
    const long needed[] = {seen.accepted, seen.other_spellings, seen.overridden, seen.not_registered, seen.stale,
                           seen.out_of_order, seen.problem, seen.doubted_accepted, seen.doubted_out_of_order,
                           seen.doubted_non_ascii, seen.deferred, seen.samples, seen.node_lines, seen.instance_lines};
    for (const long count : needed)
        if (count == 0) {
            std::fprintf(stderr, "the fixture no longer exercises every outcome (a count above is 0)\n");
            return 1;
        }
    return 0;
}
