// SPDX-License-Identifier: Apache-2.0
//
// One agent's HeartbeatBatch as the load generator sends it: serialised once (without its sequence field) by the
// Python side, each send only stamping the heartbeats' timestamps and prepending the next sequence, as
// _WireBatch.encode in backend/e3/bench/heartbeat_loadgen.py does. Its troubled form (one node's queue standing)
// replaces it while the wall clock is inside one of its windows.
#ifndef E3_HEARTBEAT_LOAD_WIRE_BATCH_H
#define E3_HEARTBEAT_LOAD_WIRE_BATCH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace heartbeat_load {

// A wall-clock timestamp in ns since the epoch is a 9-byte varint from 2^56 ns (in 1972) until 2^63 ns (in 2262);
// every offset in a body points at one.
inline constexpr size_t kTimestampBytes = 9;

// A serialised HeartbeatBatch without its sequence field, and where each heartbeat's timestamp varint starts.
struct WireBody {
    std::string bytes;
    std::vector<size_t> offsets;
};

// Wall-clock [from_ns, to_ns) during which the troubled body is sent, and how many times it was.
struct Window {
    int64_t from_ns = 0;
    int64_t to_ns = 0;
    uint64_t troubled_sends = 0;
};

struct WireBatch {
    int heartbeats = 0;
    WireBody quiet;
    bool has_troubled = false;
    WireBody troubled;           // used only with has_troubled
    std::vector<Window> windows; // only with has_troubled, in spec order
    uint64_t sequence = 0;       // the last sequence sent; the first send is 1

    // The next message, stamped `now_ns`, into *out: 0x10 varint(++sequence), then the body (the troubled one when
    // now_ns is in a window, counted in every window it is in) with each offset's 9 bytes set to varint(now_ns).
    // now_ns must encode in 9 bytes (it aborts otherwise: the bodies have no room for another size).
    void encode(int64_t now_ns, std::string *out);
};

// Writes `value` as a protobuf varint at `out` (room for 10 bytes); returns the bytes written.
size_t put_varint(uint64_t value, uint8_t *out);

// Whether `bytes` holds a 9-byte varint at `offset` (eight bytes with the continuation bit, then one without).
bool timestamp_varint_at(const std::string &bytes, size_t offset);

} // namespace heartbeat_load

#endif
