// SPDX-License-Identifier: Apache-2.0
//
// A stream's ticks and its end (stream_call.h).
#include "stream_call.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include "e3/agent/v1/agent.pb.h"

namespace heartbeat_load {
namespace {

constexpr size_t kReportedRejections = 5;

const char *code_name(grpc::StatusCode code) {
    static const char *const kNames[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
                                         "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                                         "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
                                         "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
    const int index = static_cast<int>(code);
    return index >= 0 && index < static_cast<int>(sizeof(kNames) / sizeof(kNames[0])) ? kNames[index] : "UNKNOWN";
}

} // namespace

void StreamCall::open(grpc::GenericStub *service, const std::string &token) {
    context_.AddMetadata("authorization", "Bearer " + token);
    context_.set_deadline(wall_time(end_ns_ + kSummaryWaitNs));
    call_ = service->PrepareCall(&context_, kStreamHeartbeatsMethod, loop_->queue());
    call_->StartCall(&on_start_);
    call_->Read(&response_, &on_read_); // the summary, once the writes are done
    next_tick_or_end();
}

void StreamCall::started(bool) {} // a call that could not start fails its writes and its read

// As stream() before it sleeps: no tick at or after the end, none once the end has come.
void StreamCall::next_tick_or_end() {
    if (next_tick_ns_ >= end_ns_ || wall_clock_ns() >= end_ns_) {
        call_->WritesDone(&on_writes_done_);
        return;
    }
    loop_->at(next_tick_ns_, this);
}

void StreamCall::tick() {
    batch_ = 0;
    write_batch();
}

void StreamCall::write_batch() {
    WireBatch &wire = spec_->batches[batch_];
    wire.encode(wall_clock_ns(), &message_);
    grpc::Slice slice(message_.data(), message_.size());
    grpc::ByteBuffer buffer(&slice, 1);
    request_.Swap(&buffer);
    grpc::WriteOptions options;
    if (batch_ + 1 < spec_->batches.size()) options.set_buffer_hint(); // the tick's last write sends them all
    call_->Write(request_, options, &on_write_);
}

void StreamCall::written(bool ok) {
    if (!ok) { // the call has failed: its status tells why
        writes_ended();
        return;
    }
    const WireBatch &wire = spec_->batches[batch_];
    on_call_ += static_cast<uint64_t>(wire.heartbeats);
    figures_.sent += static_cast<uint64_t>(wire.heartbeats);
    figures_.batches += 1;
    figures_.message_bytes += message_.size();
    if (++batch_ < spec_->batches.size()) {
        write_batch();
        return;
    }
    tick_written();
}

// The tick's writes are done: the next tick is a period later, whole periods skipped when it is over a period late.
void StreamCall::tick_written() {
    figures_.ticks += 1;
    next_tick_ns_ += period_ns_;
    const int64_t behind = wall_clock_ns() - next_tick_ns_;
    if (behind > period_ns_) {
        const int64_t skipped = behind / period_ns_;
        figures_.ticks_missed += static_cast<uint64_t>(skipped);
        next_tick_ns_ += skipped * period_ns_;
    }
    next_tick_or_end();
}

void StreamCall::writes_done(bool) { writes_ended(); } // not ok: the call failed, as its status says

void StreamCall::writes_ended() {
    writes_ended_ = true;
    finish_when_idle();
}

void StreamCall::read(bool ok) {
    read_done_ = true;
    summary_read_ = ok;
    finish_when_idle();
}

void StreamCall::finish_when_idle() {
    if (!writes_ended_ || !read_done_ || finishing_) return;
    finishing_ = true;
    call_->Finish(&status_, &on_finish_);
}

void StreamCall::finished(bool) {
    e3::agent::v1::HeartbeatSummary summary;
    bool parsed = false;
    if (status_.ok() && summary_read_) {
        grpc::ProtoBufferReader reader(&response_);
        parsed = summary.ParseFromZeroCopyStream(&reader);
    }
    if (parsed) {
        figures_.confirmed = true;
        figures_.accepted = summary.accepted();
        figures_.rejected = summary.rejected();
        for (const auto &rejection : summary.rejections()) {
            if (figures_.rejections.size() >= kReportedRejections) break;
            figures_.rejections.push_back(rejection.node_id() + ": " + rejection.reason());
        }
    } else {
        figures_.unconfirmed = on_call_;
        if (!status_.ok())
            figures_.error = std::string(code_name(status_.error_code())) + ": " + status_.error_message();
        else
            figures_.error = summary_read_ ? "OK: the HeartbeatSummary could not be parsed"
                                           : "OK: the call ended without a HeartbeatSummary";
    }
    loop_->ended();
}

} // namespace heartbeat_load
