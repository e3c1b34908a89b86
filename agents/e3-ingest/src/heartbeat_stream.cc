// SPDX-License-Identifier: Apache-2.0
//
// A terminated heartbeat stream (see heartbeat_stream.h). Its steps follow one another: OpenStream's answer
// starts the first read; each read's batch is taken (after a Judge when the quick check doubted some of it),
// then the next read starts, unless the delivery being filled is full (the stream parks until the link resumes
// it). Besides that chain, the link (a delivery answered, a revocation) and gRPC (OnCancel) reach the stream from
// other threads, so every step runs under mu_ and checks finishing_ first: nothing touches the call after its
// Finish. gRPC never runs a reaction inside the operation that starts it, so operations are started under mu_.
// The object is shared: the call holds it until OnDone, and each pending callback, and the link's lists, keep
// it alive past that, finding it finished.
#include "heartbeat_stream.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace ingest {
namespace {

constexpr int kMaxHeartbeatsPerBatch = 1000; // agents.MAX_HEARTBEATS_PER_BATCH
constexpr int kMaxReportedRejections = 100;  // agent_hub.MAX_REPORTED_REJECTIONS

int64_t wall_clock_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

double monotonic_s() { // CLOCK_MONOTONIC, as Python's time.monotonic
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void append(std::vector<Rejection> &to, std::vector<Rejection> &&from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

} // namespace

grpc::ServerGenericBidiReactor *HeartbeatStream::start(grpc::GenericCallbackServerContext *ctx, BackendLink *link) {
    std::shared_ptr<HeartbeatStream> stream(new HeartbeatStream(ctx, link));
    stream->self_ = stream;
    stream->open();
    return stream.get();
}

// ---- the credential ---------------------------------------------------------------------------------------

void HeartbeatStream::open() {
    const auto &metadata = ctx_->client_metadata();
    const auto authorization = metadata.find("authorization");
    if (authorization != metadata.end())
        open_request_.set_authorization(std::string(authorization->second.data(), authorization->second.size()));
    open_call_ = grpc::ClientContext::FromCallbackServerContext(*ctx_);
    link_->open_stream(open_call_.get(), &open_request_, &open_response_,
                       [self = shared_from_this()](grpc::Status status) { self->opened(status); });
}

void HeartbeatStream::opened(const grpc::Status &status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status.ok()) { // never opened: the controller's refusal, as it gave it; no end to report
        end_locked(status);
        return;
    }
    token_id_ = open_response_.token_id();
    opened_ = true;
    if (finishing_) { // cancelled meanwhile: the controller counts it open, so its end is reported
        report_end_locked(nullptr);
        return;
    }
    std::string revocation;
    if (!link_->attach(shared_from_this(), token_id_, &revocation)) {
        end_locked(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, revocation));
        return;
    }
    StartRead(&request_);
}

// ---- the batches ------------------------------------------------------------------------------------------

void HeartbeatStream::OnReadDone(bool ok) {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_) return;
    if (!ok) {
        if (ctx_->IsCancelled()) {
            end_locked(grpc::Status::CANCELLED);
            return;
        }
        // The agent half-closed: the summary goes once the delivery holding its end (and a flush) is answered.
        report_end_locked(shared_from_this());
        return;
    }
    grpc::ProtoBufferReader reader(&request_);
    const bool parsed = batch_.ParseFromZeroCopyStream(&reader);
    request_.Clear();
    if (!parsed) {
        end_locked(grpc::Status(grpc::StatusCode::INTERNAL, "a heartbeat batch could not be parsed"));
        return;
    }
    if (agent_id_.empty()) agent_id_ = batch_.agent_id();
    const int size = batch_.heartbeats_size();
    if (size > kMaxHeartbeatsPerBatch) {
        const std::string reason = "batch of " + std::to_string(size) + " heartbeats (at most " +
                                   std::to_string(kMaxHeartbeatsPerBatch) + ")";
        std::vector<Rejection> rejections;
        rejections.reserve(static_cast<size_t>(size));
        for (int i = 0; i < size; ++i) rejections.push_back(Rejection{i, batch_.heartbeats(i).node_id(), reason});
        link_->count_oversized(static_cast<uint64_t>(size));
        conclude_locked(0, std::move(rejections), {});
        return;
    }
    wall_ns_ = wall_clock_ns();
    now_ = monotonic_s();
    BatchOutcome outcome = link_->accept(batch_.agent_id(), token_id_, batch_, wall_ns_, now_);
    if (!outcome.result.doubted.empty()) {
        first_ = std::move(outcome);
        judge_locked();
        return;
    }
    conclude_locked(outcome.result.accepted, std::move(outcome.result.rejections), std::move(outcome.foreign));
}

// The doubted heartbeats, in order, to the controller's heartbeat_problem.
void HeartbeatStream::judge_locked() {
    judge_request_.Clear();
    for (const int index : first_.result.doubted) *judge_request_.add_heartbeats() = batch_.heartbeats(index);
    judge_request_.set_wall_unix_ns(wall_ns_);
    judge_response_.Clear();
    judge_call_ = grpc::ClientContext::FromCallbackServerContext(*ctx_);
    link_->judge(judge_call_.get(), &judge_request_, &judge_response_,
                 [self = shared_from_this()](grpc::Status status) { self->judged(status); });
}

void HeartbeatStream::judged(const grpc::Status &status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_) return; // ended meanwhile: the rest of the batch is dropped with the stream
    const std::vector<int> &doubted = first_.result.doubted;
    if (!status.ok() || judge_response_.problems_size() != static_cast<int>(doubted.size())) {
        const std::string details = !status.ok() ? status.error_message()
                                                 : std::to_string(judge_response_.problems_size()) +
                                                       " answers for " + std::to_string(doubted.size()) +
                                                       " heartbeats";
        end_locked(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                "the controller could not judge a heartbeat: " + details));
        return;
    }
    std::vector<Rejection> rejections = std::move(first_.result.rejections), refused;
    std::vector<int> indexes = first_.result.deferred;
    for (size_t k = 0; k < doubted.size(); ++k) {
        const std::string &problem = judge_response_.problems(static_cast<int>(k));
        if (problem.empty())
            indexes.push_back(doubted[k]);
        else
            refused.push_back(Rejection{doubted[k], batch_.heartbeats(doubted[k]).node_id(), problem});
    }
    std::sort(indexes.begin(), indexes.end());
    BatchOutcome second =
        link_->accept_judged(batch_.agent_id(), token_id_, batch_, indexes, refused, wall_ns_, now_);
    append(rejections, std::move(refused));
    append(rejections, std::move(second.result.rejections));
    std::vector<std::string> foreign = std::move(first_.foreign);
    foreign.insert(foreign.end(), second.foreign.begin(), second.foreign.end());
    const int64_t accepted = first_.result.accepted + second.result.accepted;
    first_ = BatchOutcome();
    conclude_locked(accepted, std::move(rejections), std::move(foreign));
}

// A batch taken: a forbidden node ends the stream (the batch's accepted heartbeats are delivered all the same);
// else the summary counts it (rejections in index order, as the Python intake lists them) and reading goes on.
void HeartbeatStream::conclude_locked(int64_t accepted, std::vector<Rejection> rejections,
                                      std::vector<std::string> foreign) {
    if (!foreign.empty()) {
        end_locked(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                "node " + *std::min_element(foreign.begin(), foreign.end()) +
                                    " is registered under another agent credential"));
        return;
    }
    std::sort(rejections.begin(), rejections.end(),
              [](const Rejection &a, const Rejection &b) { return a.index < b.index; });
    summary_.set_accepted(summary_.accepted() + static_cast<uint64_t>(accepted));
    summary_.set_rejected(summary_.rejected() + rejections.size());
    for (const Rejection &rejection : rejections) {
        if (summary_.rejections_size() >= kMaxReportedRejections) break;
        e3::agent::v1::HeartbeatRejection *reported = summary_.add_rejections();
        reported->set_sequence(batch_.sequence());
        reported->set_index(static_cast<uint32_t>(rejection.index));
        reported->set_node_id(rejection.node_id);
        reported->set_reason(rejection.reason);
    }
    read_on_locked();
}

void HeartbeatStream::read_on_locked() {
    if (link_->park_if_full(shared_from_this())) {
        parked_ = true;
        return;
    }
    StartRead(&request_);
}

void HeartbeatStream::resume() {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_ || !parked_) return;
    parked_ = false;
    StartRead(&request_);
}

// ---- the end ----------------------------------------------------------------------------------------------

void HeartbeatStream::delivered() {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_) return; // cancelled while the delivery was under way
    finishing_ = true;
    const std::string summary = summary_.SerializeAsString();
    grpc::Slice slice(summary);
    response_ = grpc::ByteBuffer(&slice, 1);
    StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
}

void HeartbeatStream::revoke(const std::string &message) {
    std::lock_guard<std::mutex> lock(mu_);
    end_locked(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, message));
}

void HeartbeatStream::OnCancel() {
    std::lock_guard<std::mutex> lock(mu_);
    end_locked(grpc::Status::CANCELLED);
}

void HeartbeatStream::OnDone() {
    link_->detach(this);
    std::shared_ptr<HeartbeatStream> last = std::move(self_); // may be the last reference: nothing after it
}

void HeartbeatStream::end_locked(const grpc::Status &status) {
    if (finishing_) return;
    finishing_ = true;
    report_end_locked(nullptr);
    Finish(status);
}

// The stream's StreamEnd, once, for a stream the controller opened; `waiter` (a half-close) asks a flush.
void HeartbeatStream::report_end_locked(std::shared_ptr<LinkedStream> waiter) {
    if (!opened_ || end_reported_) return;
    end_reported_ = true;
    link_->stream_ended(token_id_, agent_id_, std::move(waiter));
}

} // namespace ingest
