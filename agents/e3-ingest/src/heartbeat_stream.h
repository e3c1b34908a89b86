// SPDX-License-Identifier: Apache-2.0
//
// One agent's /e3.agent.v1.AgentService/StreamHeartbeats, terminated by the front (a generic callback reactor:
// HeartbeatBatch messages in, one HeartbeatSummary out), doing what the Python controller's servicer
// (rpc/servicer.py StreamHeartbeats) and AgentHub.accept_batch do, over the link's shared intake and delivery
// (backend_link.h): the credential from the controller (OpenStream), each batch through the intake (the
// heartbeats its quick check doubts judged by the controller first), the summary once the controller reports
// the flush holding the stream's last heartbeat written. It ends refused (forbidden node, revocation, a Judge
// that failed) or cancelled like the Python servicer's call, and reports every end of a stream it opened.
#ifndef E3_INGEST_HEARTBEAT_STREAM_H
#define E3_INGEST_HEARTBEAT_STREAM_H

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend_link.h"

namespace ingest {

inline constexpr const char kStreamHeartbeatsMethod[] = "/e3.agent.v1.AgentService/StreamHeartbeats";

class HeartbeatStream final : public grpc::ServerGenericBidiReactor,
                              public LinkedStream,
                              public std::enable_shared_from_this<HeartbeatStream> {
public:
    // The reactor of a new call (for CallbackGenericService::CreateReactor); it keeps itself until OnDone.
    static grpc::ServerGenericBidiReactor *start(grpc::GenericCallbackServerContext *ctx, BackendLink *link);

    void OnReadDone(bool ok) override;
    void OnCancel() override;
    void OnDone() override;

    void delivered() override;
    void resume() override;
    void revoke(const std::string &message) override;

private:
    HeartbeatStream(grpc::GenericCallbackServerContext *ctx, BackendLink *link) : ctx_(ctx), link_(link) {}

    void open();
    void opened(const grpc::Status &status);
    void judge_locked();
    void judged(const grpc::Status &status);
    void conclude_locked(int64_t accepted, std::vector<Rejection> rejections, std::vector<std::string> foreign);
    void read_on_locked();
    void end_locked(const grpc::Status &status);
    void report_end_locked(std::shared_ptr<LinkedStream> waiter);

    grpc::GenericCallbackServerContext *const ctx_; // valid until OnDone
    BackendLink *const link_;
    std::shared_ptr<HeartbeatStream> self_; // the call's hold, dropped in OnDone

    // The controller's calls (one at a time): their contexts are the agent's call's children, so they end
    // with it (cancellation propagates).
    std::unique_ptr<grpc::ClientContext> open_call_, judge_call_;
    e3::internal::v1::OpenStreamRequest open_request_;
    e3::internal::v1::OpenStreamResponse open_response_;
    e3::internal::v1::JudgeRequest judge_request_;
    e3::internal::v1::JudgeResponse judge_response_;

    // Guards what follows, and every operation on the call: none after Finish, one Finish.
    std::mutex mu_;
    bool opened_ = false;     // OpenStream answered OK: token_id_ is its credential, its end is reported
    bool finishing_ = false;  // Finish (or WriteAndFinish) was called
    bool end_reported_ = false;
    bool parked_ = false;     // waits for the link's resume() to read on
    std::string token_id_;
    std::string agent_id_;    // the first agent_id a batch named
    grpc::ByteBuffer request_, response_;
    e3::agent::v1::HeartbeatBatch batch_; // the batch being taken
    int64_t wall_ns_ = 0;                  // when it was read (wall clock, ns) ...
    double now_ = 0.0;                     // ... and monotonic seconds
    BatchOutcome first_;                   // its accept's outcome, while its doubted heartbeats are judged
    e3::agent::v1::HeartbeatSummary summary_;
};

} // namespace ingest

#endif
