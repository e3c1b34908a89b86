// SPDX-License-Identifier: Apache-2.0
//
// The front's link to the Python controller (front.proto's IngestBackend, on the controller's unix socket) and the
// state its heartbeat streams share: the intake (front_intake.h), the node table it runs on (node_table.h) and the
// delivery being filled (pending_delivery.h), all under one mutex, so items enter the delivery in the order they were
// accepted; and the raw tail the accepted items end in (raw_tail.h: its own mutex, so that its readers never wait for
// the streams' lock), each node's dropped when the node table removes the node. Two threads of its own: one watches the
// node table (WatchNodes, called again 0.5 s after it ends), one delivers (a blocking Deliver at a time, the same
// delivery retried every 0.5 s until it is answered; each 1 s step's rollups taken once it ended (0.3 s grace), or
// all at once when a delivery asks a flush). And the detector: the SmartNIC heartbeats judged as they are accepted
// (detector.h, its policy and what the orchestrator tells it coming over the watch), each detection reported at once
// on a call of its own (detection_reporter.h: a third thread), never behind the delivery in flight.
// The streams' calls to the controller (OpenStream, Judge) and the tail's (Authorize) are asynchronous: gRPC's
// callback threads never block here.
// With a Redis configured (redis_link.h), the front writes the live state itself: another thread takes the live
// commands from the delivery being filled as they come (the deliveries carry none then), the streams park while
// more than 20,000 items wait for Redis, and a stream's summary (a flush) waits until its items' live state is
// written too (or dropped; at most 2 s).
#ifndef E3_INGEST_BACKEND_LINK_H
#define E3_INGEST_BACKEND_LINK_H

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "e3/internal/v1/front.grpc.pb.h"
#include "detection_reporter.h"
#include "detector.h"
#include "front_intake.h"
#include "node_table.h"
#include "pending_delivery.h"
#include "raw_tail.h"
#include "redis_link.h"

namespace ingest {

// A heartbeat stream as the link reaches it (heartbeat_stream.h). Each is called from a link thread (or a
// Register's callback thread, for a revocation), never under the link's mutex.
class LinkedStream {
public:
    virtual ~LinkedStream() = default;
    // The delivery holding its end (with a flush) was answered: answer the agent.
    virtual void delivered() = 0;
    // A delivery was answered after it parked (backpressure): read on.
    virtual void resume() = 0;
    // Its credential was revoked: end it UNAUTHENTICATED with `message`.
    virtual void revoke(const std::string &message) = 0;
};

// A batch's outcome under the link's mutex: the intake's, and the nodes it named that another credential holds.
struct BatchOutcome {
    AcceptResult result;
    std::vector<std::string> foreign; // node ids as sent, of the refusals counted `forbidden`
};

class BackendLink : private LiveSource {
public:
    using Clock = std::chrono::steady_clock;

    // `tail_items`: the raw tail's items a node (RawTail's per_node; 0: no tail). `redis`: where the front writes
    // the live state itself (disabled: the deliveries carry its commands, the controller writes them).
    BackendLink(std::shared_ptr<grpc::Channel> backend, std::chrono::milliseconds rollup_flush, size_t tail_items,
                const RedisConfig &redis = RedisConfig());
    ~BackendLink(); // stop()
    BackendLink(const BackendLink &) = delete;
    BackendLink &operator=(const BackendLink &) = delete;

    // Starts the watch and delivery threads (and the Redis writer's).
    void start();
    // Cancels the watch, lets a delivery in flight end, sends a last one (what is left, rollups taken), joins both
    // threads, stops the Redis writer (what is left written, briefly), then waits for the streams' calls still in
    // flight (call it after the server's Shutdown: the streams' calls end with theirs). Idempotent.
    void stop();

    // A node table change a call's answer carried (a Register's trailing metadata), applied as the watch's are.
    void apply_answered(const e3::internal::v1::NodeTableChange &change) { apply(change, false); }

    // ---- for the raw tail's readers (tail_service.h) ----------------------------------------------------------

    const RawTail &tail() const { return tail_; }
    // Whether the caller's `authorization` grants the request's scope, asked of the controller, asynchronously
    // (`done` on a gRPC thread, with its answer: OK, or the status to end the caller's call with). The arguments
    // live until `done`.
    void authorize(grpc::ClientContext *context, const e3::internal::v1::AuthorizeRequest *request,
                   e3::internal::v1::AuthorizeResponse *response, std::function<void(grpc::Status)> done);

    // ---- for the heartbeat streams --------------------------------------------------------------------------

    // The controller's calls, asynchronous (`done` on a gRPC thread). Their arguments live until `done`.
    void open_stream(grpc::ClientContext *context, const e3::internal::v1::OpenStreamRequest *request,
                     e3::internal::v1::OpenStreamResponse *response, std::function<void(grpc::Status)> done);
    void judge(grpc::ClientContext *context, const e3::internal::v1::JudgeRequest *request,
               e3::internal::v1::JudgeResponse *response, std::function<void(grpc::Status)> done);

    // A stream opened under `token_id` (revocations reach it until detach). When that credential was revoked
    // already, returns false and sets `message` to the revocation's.
    bool attach(const std::shared_ptr<LinkedStream> &stream, const std::string &token_id, std::string *message);
    void detach(const LinkedStream *stream);

    // The intake's accept of `batch` (its heartbeats as `agent_id` under `token_id`), taken into the delivery.
    BatchOutcome accept(const std::string &agent_id, const std::string &token_id,
                        const e3::agent::v1::HeartbeatBatch &batch, int64_t wall_ns, double now);
    // The second half of a batch with doubted heartbeats: those the controller refused (`refused`, with its
    // reasons) counted, then accept_judged of `indexes`.
    BatchOutcome accept_judged(const std::string &agent_id, const std::string &token_id,
                               const e3::agent::v1::HeartbeatBatch &batch, const std::vector<int> &indexes,
                               const std::vector<Rejection> &refused, int64_t wall_ns, double now);
    // A batch refused whole, `heartbeats` long.
    void count_oversized(uint64_t heartbeats);
    // True when the delivery being filled holds too many items, or too many wait for Redis: `stream` reads no more
    // until resume().
    bool park_if_full(std::shared_ptr<LinkedStream> stream);
    // A stream (opened) ended: its StreamEnd goes into the delivery. With `waiter`, the delivery asks a flush
    // and waiter->delivered() follows its answer.
    void stream_ended(const std::string &token_id, const std::string &agent_id,
                      std::shared_ptr<LinkedStream> waiter);

private:
    struct Attached {
        std::string token_id;
        std::weak_ptr<LinkedStream> stream;
    };

    // A node table change, from the watch (`watched`) or an answer: applied to the table, or for a revocation,
    // every open stream under that credential ended.
    void apply(const e3::internal::v1::NodeTableChange &change, bool watched);
    void take_outcome(const std::string &token_id, const e3::agent::v1::HeartbeatBatch &batch,
                      BatchOutcome *outcome); // under mu_
    void apply_detector(const e3::internal::v1::DetectorChange &change); // under mu_
    void watch_nodes();
    void deliver();
    bool send(const e3::internal::v1::Delivery &delivery);
    bool send_last(const e3::internal::v1::Delivery &delivery); // once, with a deadline; false when it failed
    bool pause(); // false when stopping
    bool report(const e3::internal::v1::DetectionReport &report); // one Detected call: whether it was answered
    // LiveSource, for the Redis writer: under mu_.
    uint32_t take_live(std::string *commands, size_t *items) override;
    void live_done(size_t items) override;
    void call_started();
    void call_ended();

    std::unique_ptr<e3::internal::v1::IngestBackend::Stub> controller_;
    const std::chrono::milliseconds rollup_flush_;
    const std::string front_id_;   // random, this process's: its deliveries' numbers are its own
    uint64_t sequence_ = 0;        // the last delivery's number (the delivery thread's)

    RawTail tail_; // its own mutex

    std::mutex mu_;
    FrontIntake intake_;
    NodeTable table_{intake_};
    Detector detector_;    // the SmartNIC heartbeats' judge (the controller's, as controller.front_detector drives it)
    bool judging_ = false; // the controller's settings came, and its orchestrator is not `off`
    PendingDelivery pending_;
    std::vector<std::shared_ptr<LinkedStream>> waiters_; // ended with a flush, in the delivery being filled
    std::vector<std::shared_ptr<LinkedStream>> parked_;       // the delivery being filled is full
    std::vector<std::shared_ptr<LinkedStream>> redis_parked_; // too many items wait for Redis
    size_t redis_in_flight_ = 0; // items the Redis writer took and is writing
    uint64_t live_done_ = 0;     // items the Redis writer is done with (written or dropped), ever
    std::condition_variable live_written_; // live_done_ moved on
    std::unordered_map<const LinkedStream *, Attached> streams_;
    std::unordered_map<std::string, std::string> revoked_; // token id -> the revocation's message
    bool stopping_ = false;
    grpc::ClientContext *watch_call_ = nullptr;    // the WatchNodes call in flight
    grpc::ClientContext *delivery_call_ = nullptr; // the Deliver call in flight
    grpc::ClientContext *report_call_ = nullptr;   // the Detected call in flight
    int calls_in_flight_ = 0;                      // OpenStream, Judge and Authorize
    std::condition_variable news_;                 // the delivery thread's: the pending delivery has news
    std::condition_variable stop_or_idle_;         // stopping_ set, or calls_in_flight_ back to 0
    std::thread watcher_, deliverer_;
    std::unique_ptr<RedisLink> redis_; // null: the front writes no Redis
    DetectionReporter reporter_;       // last: its thread calls report(), which takes mu_
};

} // namespace ingest

#endif
