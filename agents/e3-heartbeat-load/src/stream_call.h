// SPDX-License-Identifier: Apache-2.0
//
// One stream of the load: a StreamHeartbeats call (a generic gRPC call, messages written as raw bytes) doing what
// stream() in backend/e3/bench/heartbeat_loadgen.py does: at each tick its batches written one after another, each
// encoded (stamped, sequenced) just before its write; late ticks skipped, never replayed; at the end WritesDone
// and the controller's HeartbeatSummary. A failed call stops the stream (no reconnect).
//
// Everything runs on the event loop's thread (event_loop.h): ticks, and the completions of the call's operations
// (one write at a time; the summary's read, outstanding from the start; the status, asked for once the writes
// have ended and the read has completed, as gRPC's async API wants).
#ifndef E3_HEARTBEAT_LOAD_STREAM_CALL_H
#define E3_HEARTBEAT_LOAD_STREAM_CALL_H

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "event_loop.h"
#include "load_spec.h"

namespace heartbeat_load {

inline constexpr const char kStreamHeartbeatsMethod[] = "/e3.agent.v1.AgentService/StreamHeartbeats";
// How long after the end the controller has to answer (it does once the stream's rollups are written).
inline constexpr int64_t kSummaryWaitNs = 120LL * 1000000000;

// What a stream did, read once it has ended.
struct StreamFigures {
    uint64_t sent = 0;          // heartbeats written
    uint64_t batches = 0;       // messages written
    uint64_t message_bytes = 0; // their bytes (without gRPC's 5-byte prefix)
    uint64_t ticks = 0;
    uint64_t ticks_missed = 0;
    uint64_t unconfirmed = 0; // heartbeats written to a call that failed
    bool confirmed = false;   // the HeartbeatSummary came
    uint64_t accepted = 0;
    uint64_t rejected = 0;
    std::vector<std::string> rejections; // "<node_id>: <reason>", the first 5
    std::string error;                   // the failed call's status, "<CODE>: <message>"
};

class StreamCall final : public Ticking {
public:
    StreamCall(StreamSpec *spec, const LoadSpec &load, EventLoop *loop)
        : spec_(spec), period_ns_(load.period_ns), end_ns_(load.end_unix_ns), loop_(loop),
          next_tick_ns_(spec->first_tick_ns) {}
    StreamCall(const StreamCall &) = delete;
    StreamCall &operator=(const StreamCall &) = delete;

    // Opens the call on `service`'s channel and hands the first tick to the loop.
    void open(grpc::GenericStub *service, const std::string &token);
    void tick() override;

    const StreamFigures &figures() const { return figures_; } // once the loop has seen it end

private:
    void started(bool ok);
    void written(bool ok);
    void writes_done(bool ok);
    void read(bool ok);
    void finished(bool ok);

    void write_batch();
    void tick_written();
    void next_tick_or_end();
    void writes_ended();
    void finish_when_idle();

    StreamSpec *const spec_;
    const int64_t period_ns_;
    const int64_t end_ns_;
    EventLoop *const loop_;
    grpc::ClientContext context_;
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
    Step<StreamCall> on_start_{this, &StreamCall::started}, on_write_{this, &StreamCall::written},
        on_writes_done_{this, &StreamCall::writes_done}, on_read_{this, &StreamCall::read},
        on_finish_{this, &StreamCall::finished};
    int64_t next_tick_ns_;
    size_t batch_ = 0;         // the batch being written in this tick
    uint64_t on_call_ = 0;     // heartbeats written on the call
    std::string message_;      // the batch being written, encoded
    grpc::ByteBuffer request_; // the same, for gRPC
    grpc::ByteBuffer response_;
    bool writes_ended_ = false; // WritesDone completed, or a write failed: no more writes
    bool read_done_ = false;
    bool summary_read_ = false;
    bool finishing_ = false;
    grpc::Status status_;
    StreamFigures figures_;
};

} // namespace heartbeat_load

#endif
