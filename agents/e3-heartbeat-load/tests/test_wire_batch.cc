// SPDX-License-Identifier: Apache-2.0
//
// heartbeat_load::WireBatch::encode: the message is 0x10 varint(sequence) then the body with each offset's 9 bytes
// set to varint(now); it parses (agent.proto's C++ classes) as the batch with that sequence and every timestamp
// now, the sequence counting from 1; the troubled body is sent inside a window ([from, to)) only, counted there.
#include <cstdint>
#include <cstdio>
#include <string>

#include "check.h"
#include "e3/agent/v1/agent.pb.h"
#include "wire_batch.h"

namespace {

using heartbeat_load::WireBatch;
using heartbeat_load::WireBody;

constexpr uint64_t kMarker = 1ULL << 60; // distinct 9-byte varints, one per heartbeat, as _WireBatch marks them
constexpr int64_t kNow = 1790000000123456789LL;

e3::agent::v1::HeartbeatBatch sample_batch(uint32_t troubled_queue) {
    e3::agent::v1::HeartbeatBatch batch;
    batch.set_agent_id("bench-agent-1");
    for (int k = 0; k < 3; ++k) {
        e3::agent::v1::Heartbeat *heartbeat = batch.add_heartbeats();
        heartbeat->set_node_id("node-" + std::to_string(k));
        heartbeat->set_timestamp_unix_ns(static_cast<int64_t>(kMarker) + k);
        heartbeat->set_queue_length(k == 1 ? troubled_queue : 3);
        heartbeat->set_rx_bytes(1);
        heartbeat->set_cpu_utilization(0.4);
        heartbeat->set_power_watts(35.0);
        heartbeat->set_power_source(e3::agent::v1::POWER_SOURCE_MODEL);
        e3::agent::v1::InstanceStats *instance = heartbeat->add_instances();
        instance->set_instance_id("instance-" + std::to_string(k));
        instance->set_requests_completed(100);
    }
    return batch;
}

// The batch serialised without its sequence, and where each marker (a timestamp's varint) starts.
WireBody wire_body(const e3::agent::v1::HeartbeatBatch &batch) {
    WireBody body;
    body.bytes = batch.SerializeAsString();
    for (int k = 0; k < batch.heartbeats_size(); ++k) {
        uint8_t marker[10];
        marker[0] = 0x10; // field 2 of Heartbeat (timestamp_unix_ns), varint
        const size_t size = 1 + heartbeat_load::put_varint(kMarker + static_cast<uint64_t>(k), marker + 1);
        const size_t at = body.bytes.find(std::string(reinterpret_cast<const char *>(marker), size));
        CHECK(at != std::string::npos);
        body.offsets.push_back(at + 1);
    }
    return body;
}

WireBatch sample_wire() {
    WireBatch wire;
    wire.heartbeats = 3;
    wire.quiet = wire_body(sample_batch(3));
    return wire;
}

void varints() {
    uint8_t out[10];
    CHECK_EQ_INT(heartbeat_load::put_varint(0, out), 1);
    CHECK_EQ_INT(out[0], 0);
    CHECK_EQ_INT(heartbeat_load::put_varint(300, out), 2);
    CHECK_EQ_INT(out[0], 0xAC);
    CHECK_EQ_INT(out[1], 0x02);
    CHECK_EQ_INT(heartbeat_load::put_varint(static_cast<uint64_t>(kNow), out), 9);
    CHECK_EQ_INT(heartbeat_load::put_varint(UINT64_MAX, out), 10);
    const std::string nine = "\x81\x82\x83\x84\x85\x86\x87\x88\x09";
    CHECK(heartbeat_load::timestamp_varint_at(nine, 0));
    CHECK(!heartbeat_load::timestamp_varint_at(nine, 1));             // runs past the end
    CHECK(!heartbeat_load::timestamp_varint_at("\x81\x02" + nine, 0)); // ends after 2 bytes
}

// The bytes: sequence field first, then the body, timestamps replaced, nothing else changed.
void encodes_bytes() {
    WireBatch wire = sample_wire();
    std::string message;
    wire.encode(kNow, &message);
    CHECK_EQ_INT(wire.sequence, 1);
    CHECK_EQ_INT(message.size(), 2 + wire.quiet.bytes.size());
    CHECK_EQ_INT(static_cast<uint8_t>(message[0]), 0x10);
    CHECK_EQ_INT(static_cast<uint8_t>(message[1]), 0x01);
    uint8_t stamp[10];
    CHECK_EQ_INT(heartbeat_load::put_varint(static_cast<uint64_t>(kNow), stamp), 9);
    std::string expected = wire.quiet.bytes;
    for (const size_t offset : wire.quiet.offsets) expected.replace(offset, 9, reinterpret_cast<char *>(stamp), 9);
    CHECK(message.compare(2, std::string::npos, expected) == 0);
    CHECK(wire.quiet.bytes != expected); // the stored body is left as it was
    // The 200th send: a two-byte sequence varint (200 = 0xC8 0x01).
    for (int k = 2; k <= 200; ++k) wire.encode(kNow, &message);
    CHECK_EQ_INT(wire.sequence, 200);
    CHECK_EQ_INT(message.size(), 3 + wire.quiet.bytes.size());
    CHECK_EQ_INT(static_cast<uint8_t>(message[1]), 0xC8);
    CHECK_EQ_INT(static_cast<uint8_t>(message[2]), 0x01);
}

// What the controller reads: the batch, its sequence, every timestamp now.
void parses_as_batch() {
    WireBatch wire = sample_wire();
    std::string message;
    for (int64_t sequence = 1; sequence <= 3; ++sequence) {
        const int64_t now = kNow + sequence * 50000000;
        wire.encode(now, &message);
        e3::agent::v1::HeartbeatBatch batch;
        CHECK(batch.ParseFromString(message));
        CHECK_EQ_INT(batch.sequence(), sequence);
        CHECK(batch.agent_id() == "bench-agent-1");
        CHECK_EQ_INT(batch.heartbeats_size(), 3);
        for (int k = 0; k < 3; ++k) {
            CHECK_EQ_INT(batch.heartbeats(k).timestamp_unix_ns(), now);
            CHECK(batch.heartbeats(k).node_id() == "node-" + std::to_string(k));
            CHECK_EQ_INT(batch.heartbeats(k).queue_length(), 3);
            CHECK(batch.heartbeats(k).instances(0).instance_id() == "instance-" + std::to_string(k));
        }
    }
}

// Inside a window ([from, to)) the troubled body goes, counted in that window; outside, the quiet one.
void troubled_inside_windows_only() {
    WireBatch wire = sample_wire();
    wire.has_troubled = true;
    wire.troubled = wire_body(sample_batch(40));
    wire.windows.push_back({kNow + 100, kNow + 200, 0});
    wire.windows.push_back({kNow + 300, kNow + 400, 0});
    const struct {
        int64_t at;
        uint32_t queue;
    } sends[] = {{kNow, 3},       {kNow + 99, 3},  {kNow + 100, 40}, {kNow + 150, 40}, {kNow + 199, 40},
                 {kNow + 200, 3}, {kNow + 250, 3}, {kNow + 300, 40}, {kNow + 400, 3}};
    std::string message;
    for (const auto &send : sends) {
        wire.encode(send.at, &message);
        e3::agent::v1::HeartbeatBatch batch;
        CHECK(batch.ParseFromString(message));
        CHECK_EQ_INT(batch.heartbeats(1).queue_length(), send.queue);
        CHECK_EQ_INT(batch.heartbeats(0).queue_length(), 3);
        CHECK_EQ_INT(batch.heartbeats(1).timestamp_unix_ns(), send.at);
    }
    CHECK_EQ_INT(wire.sequence, 9);
    CHECK_EQ_INT(wire.windows[0].troubled_sends, 3);
    CHECK_EQ_INT(wire.windows[1].troubled_sends, 1);
    // A batch without a troubled form never changes body, whatever its windows say.
    WireBatch quiet = sample_wire();
    quiet.windows.push_back({kNow, kNow + 100, 0});
    quiet.encode(kNow + 1, &message);
    e3::agent::v1::HeartbeatBatch batch;
    CHECK(batch.ParseFromString(message));
    CHECK_EQ_INT(batch.heartbeats(1).queue_length(), 3);
    CHECK_EQ_INT(quiet.windows[0].troubled_sends, 0);
}

} // namespace

int main() {
    varints();
    encodes_bytes();
    parses_as_batch();
    troubled_inside_windows_only();
    std::puts("test_wire_batch: ok");
    return 0;
}
