// SPDX-License-Identifier: Apache-2.0
//
// The message of one send of a WireBatch (wire_batch.h): the sequence field, then the body with its timestamps set.
#include "wire_batch.h"

#include <cstdio>
#include <cstdlib>

namespace heartbeat_load {

size_t put_varint(uint64_t value, uint8_t *out) {
    size_t n = 0;
    while (value > 0x7F) {
        out[n++] = static_cast<uint8_t>((value & 0x7F) | 0x80);
        value >>= 7;
    }
    out[n++] = static_cast<uint8_t>(value);
    return n;
}

bool timestamp_varint_at(const std::string &bytes, size_t offset) {
    if (offset > bytes.size() || bytes.size() - offset < kTimestampBytes) return false;
    for (size_t k = 0; k + 1 < kTimestampBytes; ++k)
        if ((static_cast<uint8_t>(bytes[offset + k]) & 0x80) == 0) return false;
    return (static_cast<uint8_t>(bytes[offset + kTimestampBytes - 1]) & 0x80) == 0;
}

void WireBatch::encode(int64_t now_ns, std::string *out) {
    uint8_t stamp[10];
    const size_t stamp_size = put_varint(static_cast<uint64_t>(now_ns), stamp);
    if (now_ns < 0 || stamp_size != kTimestampBytes) {
        std::fprintf(stderr, "e3-heartbeat-load: the wall clock %lld ns is not a 9-byte varint\n",
                     static_cast<long long>(now_ns));
        std::abort();
    }
    const WireBody *body = &quiet;
    if (has_troubled) {
        for (Window &window : windows) {
            if (window.from_ns <= now_ns && now_ns < window.to_ns) {
                body = &troubled;
                ++window.troubled_sends;
            }
        }
    }
    uint8_t head[11];
    head[0] = 0x10; // field 2 (sequence), varint
    const size_t head_size = 1 + put_varint(++sequence, head + 1);
    out->resize(head_size + body->bytes.size());
    char *data = &(*out)[0];
    for (size_t k = 0; k < head_size; ++k) data[k] = static_cast<char>(head[k]);
    body->bytes.copy(data + head_size, body->bytes.size());
    for (const size_t offset : body->offsets)
        for (size_t k = 0; k < kTimestampBytes; ++k) data[head_size + offset + k] = static_cast<char>(stamp[k]);
}

} // namespace heartbeat_load
