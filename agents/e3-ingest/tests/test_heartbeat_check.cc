// SPDX-License-Identifier: Apache-2.0
//
// ingest::heartbeat_quick_ok against Python's verdicts: replays tests/golden/heartbeats.txt (made by
// `python -m e3.heartbeat_golden`, backend/e3/heartbeat_golden.py), parsing each serialized Heartbeat with
// the C++ protobuf classes. Asserted for every line, with QUICK the real HeartbeatIntake.accept's quick
// verdict and PROBLEM heartbeat_problem's:
//   - heartbeat_quick_ok == QUICK when every instance id is ASCII: exactly Python's quick check;
//   - heartbeat_quick_ok is false when an id has a non-ASCII byte (heartbeat_check.h: such ids are doubted,
//     so Python decides); together: heartbeat_quick_ok == (QUICK && every id ASCII);
//   - hence, and checked on its own: heartbeat_quick_ok implies PROBLEM is null (the front never accepts
//     what Python's rules refuse).
// The corpus must also exercise each outcome (both verdicts, doubted non-ASCII ids Python's quick check
// passes). Then a few cases the corpus cannot hold: ids that are not UTF-8, wall clocks at int64's ends.
// Usage: e3ingest_test_heartbeat_check CORPUS.txt. Exit 0 when all agree, 1 naming each disagreement.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "e3/agent/v1/agent.pb.h"
#include "heartbeat_bounds.h"
#include "golden_reader.h"
#include "heartbeat_check.h"

namespace {

using e3::agent::v1::Heartbeat;
namespace bounds = ingest::heartbeat_bounds;

int failures = 0;

void fail(const std::string &where, const std::string &what) {
    std::fprintf(stderr, "FAIL %s: %s\n", where.c_str(), what.c_str());
    ++failures;
}

using golden::unhex;

bool ascii(const std::string &s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

// The first field of `hb` outside its bounds as C++ sees them, to name in a failure ("-": none).
std::string first_bad_field(const Heartbeat &hb, int64_t wall_ns) {
    namespace node = bounds::node;
    namespace instance = bounds::instance;
    const int64_t ts = hb.timestamp_unix_ns();
    if (!(ts > 0 && ts > wall_ns - bounds::QUICK_BEHIND_NS && ts < wall_ns + bounds::QUICK_AHEAD_NS))
        return "timestamp_unix_ns=" + std::to_string(ts) + " (wall_ns " + std::to_string(wall_ns) + ")";
    if (!node::queue_length_ok(hb.queue_length())) return "queue_length";
    if (!node::rx_bytes_ok(hb.rx_bytes())) return "rx_bytes";
    if (!node::tx_bytes_ok(hb.tx_bytes())) return "tx_bytes";
    if (!node::rx_packets_ok(hb.rx_packets())) return "rx_packets";
    if (!node::tx_packets_ok(hb.tx_packets())) return "tx_packets";
    if (!node::cpu_utilization_ok(hb.cpu_utilization())) return "cpu_utilization";
    if (!node::power_watts_ok(hb.power_watts())) return "power_watts";
    if (!node::power_source_ok(hb.power_source())) return "power_source";
    if (!node::fields_ok(hb)) return "a node field (fields_ok)";
    if (hb.instances_size() > bounds::MAX_INSTANCES_PER_HEARTBEAT)
        return "instances (" + std::to_string(hb.instances_size()) + ")";
    for (int i = 0; i < hb.instances_size(); ++i) {
        const auto &inst = hb.instances(i);
        const std::string at = "instances[" + std::to_string(i) + "].";
        if (!ingest::instance_id_quick_ok(inst.instance_id())) return at + "instance_id";
        if (!instance::requests_completed_ok(inst.requests_completed())) return at + "requests_completed";
        if (!instance::exec_time_us_ok(inst.exec_time_us())) return at + "exec_time_us";
        if (!instance::exec_time_ema_us_ok(inst.exec_time_ema_us())) return at + "exec_time_ema_us";
        if (!instance::cpu_share_ok(inst.cpu_share())) return at + "cpu_share";
        if (!instance::latency_count_ok(inst.latency_count())) return at + "latency_count";
        if (!instance::latency_avg_us_ok(inst.latency_avg_us())) return at + "latency_avg_us";
        if (!instance::latency_p99_us_ok(inst.latency_p99_us())) return at + "latency_p99_us";
        if (!instance::fields_ok(inst)) return at + "a field (fields_ok)";
    }
    return "-";
}

void replay(const char *path) {
    std::ifstream in(path);
    if (!in) {
        fail(path, "cannot read it");
        return;
    }
    int cases = 0, passed = 0, doubted_unicode = 0, refused = 0;
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        if (line.empty() || line[0] == '#') continue;
        const std::string where = std::string(path) + ":" + std::to_string(lineno);
        // NAME WALL_NS QUICK HEX PROBLEM (JSON, the rest of the line)
        size_t pos[4], from = 0;
        bool ok = true;
        for (size_t &p : pos) {
            p = line.find(' ', from);
            if (p == std::string::npos) ok = false;
            from = p + 1;
            if (!ok) break;
        }
        if (!ok) {
            fail(where, "not NAME WALL_NS QUICK HEX PROBLEM: " + line.substr(0, 200));
            continue;
        }
        const std::string name = line.substr(0, pos[0]);
        const std::string wall_text = line.substr(pos[0] + 1, pos[1] - pos[0] - 1);
        const std::string quick_text = line.substr(pos[1] + 1, pos[2] - pos[1] - 1);
        const std::string hex = line.substr(pos[2] + 1, pos[3] - pos[2] - 1);
        const std::string problem = line.substr(pos[3] + 1);
        const std::string at = where + " (" + name + ")";
        std::string bytes;
        Heartbeat hb;
        if ((quick_text != "0" && quick_text != "1") || !unhex(hex, &bytes) || !hb.ParseFromString(bytes)) {
            fail(at, "unreadable QUICK or HEX, or HEX is not a Heartbeat");
            continue;
        }
        const int64_t wall_ns = std::stoll(wall_text);
        const bool python_quick = quick_text == "1", python_ok = problem == "null";
        bool ids_ascii = true;
        for (const auto &inst : hb.instances()) ids_ascii = ids_ascii && ascii(inst.instance_id());

        const bool ours = ingest::heartbeat_quick_ok(hb, wall_ns);
        const bool expected = python_quick && ids_ascii;
        ++cases;
        passed += ours;
        refused += !python_ok;
        doubted_unicode += python_quick && !ids_ascii;
        if (ours != expected)
            fail(at, std::string("heartbeat_quick_ok ") + (ours ? "passes" : "doubts") + " it, Python's quick check " +
                         (python_quick ? "passes" : "doubts") + " it" + (ids_ascii ? "" : " (a non-ASCII id)") +
                         "; first field outside the C++ bounds: " + first_bad_field(hb, wall_ns) +
                         "; heartbeat_problem: " + problem);
        if (ours && !python_ok) fail(at, "heartbeat_quick_ok passes what heartbeat_problem refuses: " + problem);
    }
    std::printf("%d golden heartbeats: %d passed by heartbeat_quick_ok, %d doubted for a non-ASCII id that "
                "Python's quick check passes, %d refused by heartbeat_problem\n",
                cases, passed, doubted_unicode, refused);
    if (cases < 100 || passed == 0 || passed == cases || doubted_unicode == 0 || refused == 0)
        fail(path, "the corpus no longer exercises both verdicts, non-ASCII ids and refusals");
}

void expect(bool got, bool want, const std::string &what) {
    if (got != want) fail("self-test", what + ": got " + (got ? "ok" : "doubt"));
}

// What the corpus cannot hold: Python's protobuf neither writes nor parses a string that is not UTF-8, and
// its wall clock is fixed. Int64's ends: the window's ends are clamped (a heartbeat may be doubted there,
// never wrongly passed) and nothing overflows.
void self_tests() {
    const int64_t wall = 1'795'780'800'123'456'789;
    Heartbeat hb;
    hb.set_node_id("n");
    hb.set_timestamp_unix_ns(wall - 1);
    hb.set_power_source(e3::agent::v1::POWER_SOURCE_MODEL);
    expect(ingest::heartbeat_quick_ok(hb, wall), true, "a minimal heartbeat");
    for (const std::string &id : {std::string("\xff"), std::string("ab\xc3"), std::string("\xc0\xaf"),
                                 std::string("\xed\xa0\x80"), std::string("a\0b", 3)}) {
        expect(ingest::instance_id_quick_ok(id), false, "an id that is not UTF-8, or has a NUL");
        Heartbeat with = hb;
        with.add_instances()->set_instance_id(id);
        expect(ingest::heartbeat_quick_ok(with, wall), false, "a heartbeat with such an id");
    }
    expect(ingest::instance_id_quick_ok(std::string(bounds::MAX_ID_CHARS, 'x')), true, "an id of MAX_ID_CHARS");
    expect(ingest::instance_id_quick_ok(std::string(bounds::MAX_ID_CHARS + 1, 'x')), false, "one more");
    constexpr int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
    hb.set_timestamp_unix_ns(max - 1);
    expect(ingest::heartbeat_quick_ok(hb, max), true, "wall clock at int64's end, ts just under it");
    hb.set_timestamp_unix_ns(max);
    expect(ingest::heartbeat_quick_ok(hb, max), false, "wall clock at int64's end, ts at it (clamped: doubted)");
    hb.set_timestamp_unix_ns(1);
    expect(ingest::heartbeat_quick_ok(hb, min), false, "wall clock at int64's start");
    expect(ingest::heartbeat_quick_ok(hb, 1), true, "ts 1 at wall clock 1");
    hb.set_timestamp_unix_ns(0);
    expect(ingest::heartbeat_quick_ok(hb, 1), false, "ts 0 (heartbeat_problem's 'must be set') at wall clock 1");
    hb.set_timestamp_unix_ns(-1);
    expect(ingest::heartbeat_quick_ok(hb, 1), false, "ts -1 at wall clock 1");
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s tests/golden/heartbeats.txt\n", argv[0]);
        return 2;
    }
    replay(argv[1]);
    self_tests();
    if (failures) {
        std::fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    std::printf("ok\n");
    return 0;
}
