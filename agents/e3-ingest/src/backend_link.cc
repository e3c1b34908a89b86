// SPDX-License-Identifier: Apache-2.0
//
// The link to the controller (see backend_link.h). Lock order: a stream's own mutex may be held when it calls in
// here (mu_ is then taken inside it); mu_ is never held while a stream is called (LinkedStream) or a blocking
// call is made, so the streams to reach are gathered under mu_ and called after it is released.
#include "backend_link.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <utility>

namespace ingest {
namespace {

constexpr auto kNewsWait = std::chrono::milliseconds(50);    // the longest the delivery thread sleeps at once
// Deliveries start at least this far apart (but for a flush): each costs the controller a gRPC call
// in Python, about 0.1 ms, which per agent batch at low load cost more than the heartbeats themselves.
constexpr auto kDeliveryGap = std::chrono::milliseconds(10);
constexpr auto kRetryPause = std::chrono::milliseconds(500); // before calling WatchNodes or Deliver again
constexpr size_t kMaxPendingItems = 100000; // streams park beyond this many heartbeats waiting for a delivery
constexpr size_t kMaxRedisItems = 20000;    // or beyond this many waiting for Redis (LivePublisher's max_pending)
constexpr auto kFlushRedisWait = std::chrono::seconds(2); // a flush's wait for its items' live state in Redis
constexpr auto kLastDeliveryDeadline = std::chrono::seconds(3); // the parent kills a front still stopping at 5 s
// The rollups are taken a step at a time, once it ended this long ago by the wall clock (the heartbeats' clock):
// each step's row then leaves whole, in one piece, instead of one piece per take it spanned (two, mostly, at 1 s
// takes), which halved the rows the controller and Postgres handle. A heartbeat later still makes another piece
// of its step, added to the stored row. A flush (a stream's summary waits for it) and the last delivery take every
// step.
constexpr double kStepGraceS = 0.3;
// Ended steps are looked for this often (or every --rollup-flush-ms if shorter): the wait of a step's newest
// heartbeat in the front is at most the grace and this.
constexpr auto kEndedStepsEvery = std::chrono::milliseconds(250);

std::string random_id() { // 128 random bits as hex
    std::random_device source;
    char text[33];
    for (int i = 0; i < 4; ++i) std::snprintf(text + 8 * i, 9, "%08x", static_cast<unsigned>(source()));
    return std::string(text, 32);
}

int64_t now_unix_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

double wall_s() { return static_cast<double>(now_unix_ns()) / 1e9; }

} // namespace

BackendLink::BackendLink(std::shared_ptr<grpc::Channel> backend, std::chrono::milliseconds rollup_flush,
                         size_t tail_items, const RedisConfig &redis)
    : controller_(e3::internal::v1::IngestBackend::NewStub(std::move(backend))), rollup_flush_(rollup_flush),
      front_id_(random_id()), tail_(tail_items), pending_(&tail_, redis.enabled),
      reporter_(front_id_, [this](const e3::internal::v1::DetectionReport &r) { return report(r); }, kRetryPause) {
    if (redis.enabled) redis_ = std::make_unique<RedisLink>(redis, static_cast<LiveSource *>(this));
}

BackendLink::~BackendLink() { stop(); }

void BackendLink::start() {
    watcher_ = std::thread(&BackendLink::watch_nodes, this);
    deliverer_ = std::thread(&BackendLink::deliver, this);
    reporter_.start();
    if (redis_) redis_->start();
}

void BackendLink::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        if (watch_call_ != nullptr) watch_call_->TryCancel();
        if (report_call_ != nullptr) report_call_->TryCancel(); // a detection now is for no one: the controller stops
        // a delivery in flight is answered (the controller is up) or fails (it is gone): then the last one goes
    }
    news_.notify_all();
    stop_or_idle_.notify_all();
    live_written_.notify_all();
    if (watcher_.joinable()) watcher_.join();
    reporter_.stop();
    if (deliverer_.joinable()) deliverer_.join();
    if (redis_) redis_->stop(); // after the last delivery: no items come any more
    std::unique_lock<std::mutex> lock(mu_);
    stop_or_idle_.wait(lock, [this] { return calls_in_flight_ == 0; });
}

// ---- the node table ---------------------------------------------------------------------------------------

void BackendLink::apply(const e3::internal::v1::NodeTableChange &change, bool watched) {
    if (change.has_detector()) {
        std::lock_guard<std::mutex> lock(mu_);
        apply_detector(change.detector());
        return;
    }
    if (!change.has_revoke()) {
        std::vector<std::string> removed;
        std::lock_guard<std::mutex> lock(mu_);
        table_.apply(change, watched, &removed);
        for (const std::string &node_id : removed) pending_.forget(node_id);
        return;
    }
    const std::string &token_id = change.revoke().token_id(), &message = change.revoke().message();
    std::vector<std::shared_ptr<LinkedStream>> ended;
    {
        std::lock_guard<std::mutex> lock(mu_);
        revoked_[token_id] = message;
        for (const auto &[key, attached] : streams_) {
            if (attached.token_id != token_id) continue;
            if (std::shared_ptr<LinkedStream> stream = attached.stream.lock()) ended.push_back(std::move(stream));
        }
    }
    for (const std::shared_ptr<LinkedStream> &stream : ended) stream->revoke(message);
}

namespace {

DetectionPolicy policy_of(const e3::internal::v1::DetectionSettings &s) {
    DetectionPolicy p;
    p.window = s.window();
    p.queue_threshold = s.queue_threshold();
    p.queue_clear = s.queue_clear();
    p.bandwidth_util_max = s.bandwidth_util_max();
    p.overload_deviation = s.overload_deviation();
    p.overload_clear = s.overload_clear();
    p.ema_alpha = s.ema_alpha();
    p.min_requests = s.min_requests();
    p.warmup_heartbeats = s.warmup_heartbeats();
    p.cooldown_s = s.cooldown_s();
    p.overload_floor_us = s.overload_floor_us();
    p.overload_queue_floor = s.overload_queue_floor();
    return p;
}

bool same_policy(const DetectionPolicy &a, const DetectionPolicy &b) {
    return a.window == b.window && a.queue_threshold == b.queue_threshold && a.queue_clear == b.queue_clear &&
           a.bandwidth_util_max == b.bandwidth_util_max && a.overload_deviation == b.overload_deviation &&
           a.overload_clear == b.overload_clear && a.ema_alpha == b.ema_alpha && a.min_requests == b.min_requests &&
           a.warmup_heartbeats == b.warmup_heartbeats && a.cooldown_s == b.cooldown_s &&
           a.overload_floor_us == b.overload_floor_us && a.overload_queue_floor == b.overload_queue_floor;
}

} // namespace

// Settings come first in every watch and again at each orchestrator mode change: the detector's state is kept
// unless the policy changed (a watch called again does not forget what it was judging).
void BackendLink::apply_detector(const e3::internal::v1::DetectorChange &change) {
    using Change = e3::internal::v1::DetectorChange;
    switch (change.change_case()) {
    case Change::kSettings: {
        const DetectionPolicy policy = policy_of(change.settings());
        if (!same_policy(policy, detector_.policy())) {
            try {
                detector_ = Detector(policy);
            } catch (const std::exception &e) { // Python checked them: a policy it took but this one refuses
                std::fprintf(stderr, "e3-ingest: the controller's detection policy is refused (%s): the front "
                                     "judges no heartbeats\n", e.what());
                judging_ = false;
                return;
            }
        }
        judging_ = change.settings().judging();
        break;
    }
    case Change::kForgetNodeId: detector_.forget(change.forget_node_id()); break;
    case Change::kCoolDown: detector_.cool_down(change.cool_down().node_id(), change.cool_down().t()); break;
    case Change::kReset: detector_.reset(); break;
    case Change::CHANGE_NOT_SET: break;
    }
}

void BackendLink::watch_nodes() {
    while (true) {
        grpc::ClientContext context;
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (stopping_) return;
            watch_call_ = &context;
            table_.begin_snapshot();
        }
        std::unique_ptr<grpc::ClientReader<e3::internal::v1::NodeTableChange>> reader =
            controller_->WatchNodes(&context, e3::internal::v1::WatchNodesRequest());
        e3::internal::v1::NodeTableChange change;
        while (reader->Read(&change)) apply(change, true);
        const grpc::Status status = reader->Finish();
        {
            std::lock_guard<std::mutex> lock(mu_);
            watch_call_ = nullptr;
            if (stopping_) return;
        }
        std::fprintf(stderr, "e3-ingest: the controller's node watch ended (%d: %s); calling again in 0.5 s\n",
                     static_cast<int>(status.error_code()), status.error_message().c_str());
        if (!pause()) return;
    }
}

// ---- the heartbeat streams' calls and state ---------------------------------------------------------------

void BackendLink::open_stream(grpc::ClientContext *context, const e3::internal::v1::OpenStreamRequest *request,
                              e3::internal::v1::OpenStreamResponse *response,
                              std::function<void(grpc::Status)> done) {
    call_started();
    controller_->async()->OpenStream(context, request, response, [this, done = std::move(done)](grpc::Status status) {
        done(std::move(status));
        call_ended();
    });
}

void BackendLink::judge(grpc::ClientContext *context, const e3::internal::v1::JudgeRequest *request,
                        e3::internal::v1::JudgeResponse *response, std::function<void(grpc::Status)> done) {
    call_started();
    controller_->async()->Judge(context, request, response, [this, done = std::move(done)](grpc::Status status) {
        done(std::move(status));
        call_ended();
    });
}

void BackendLink::authorize(grpc::ClientContext *context, const e3::internal::v1::AuthorizeRequest *request,
                            e3::internal::v1::AuthorizeResponse *response, std::function<void(grpc::Status)> done) {
    call_started();
    controller_->async()->Authorize(context, request, response,
                                    [this, done = std::move(done)](grpc::Status status) {
                                        done(std::move(status));
                                        call_ended();
                                    });
}

void BackendLink::call_started() {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_in_flight_;
}

void BackendLink::call_ended() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--calls_in_flight_ == 0) stop_or_idle_.notify_all();
}

bool BackendLink::attach(const std::shared_ptr<LinkedStream> &stream, const std::string &token_id,
                         std::string *message) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto revoked = revoked_.find(token_id);
    if (revoked != revoked_.end()) {
        *message = revoked->second;
        return false;
    }
    streams_[stream.get()] = Attached{token_id, stream};
    return true;
}

void BackendLink::detach(const LinkedStream *stream) {
    std::lock_guard<std::mutex> lock(mu_);
    streams_.erase(stream);
}

BatchOutcome BackendLink::accept(const std::string &agent_id, const std::string &token_id,
                                 const e3::agent::v1::HeartbeatBatch &batch, int64_t wall_ns, double now) {
    BatchOutcome outcome;
    {
        std::lock_guard<std::mutex> lock(mu_);
        outcome.result = intake_.accept(agent_id, token_id, batch, wall_ns, now);
        take_outcome(token_id, batch, &outcome);
    }
    news_.notify_one();
    if (redis_ && !outcome.result.items.empty()) redis_->notify();
    return outcome;
}

BatchOutcome BackendLink::accept_judged(const std::string &agent_id, const std::string &token_id,
                                        const e3::agent::v1::HeartbeatBatch &batch, const std::vector<int> &indexes,
                                        const std::vector<Rejection> &refused, int64_t wall_ns, double now) {
    BatchOutcome outcome;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (const Rejection &rejection : refused) pending_.count_rejected(rejection_kind(rejection.reason));
        outcome.result = intake_.accept_judged(agent_id, token_id, batch.heartbeats(), indexes, wall_ns, now);
        take_outcome(token_id, batch, &outcome);
    }
    news_.notify_one();
    if (redis_ && !outcome.result.items.empty()) redis_->notify();
    return outcome;
}

// AgentHub.accept_batch's counting: a refusal naming a node another credential registered is `forbidden`.
void BackendLink::take_outcome(const std::string &token_id, const e3::agent::v1::HeartbeatBatch &batch,
                               BatchOutcome *outcome) {
    pending_.add_accepted(outcome->result, batch);
    for (AcceptedHeartbeat &item : outcome->result.items) intake_.recycle(std::move(item.live)); // the tail's old ones
    if (judging_) {
        for (const DetectionSample &sample : outcome->result.samples) {
            if (std::optional<Detection> found = detector_.observe(sample, sample.bandwidth_mbps))
                reporter_.add(*found, now_unix_ns());
        }
    }
    for (const Rejection &rejection : outcome->result.rejections) {
        const bool forbidden = rejection.reason == kNotRegistered && table_.foreign(rejection.node_id, token_id);
        pending_.count_rejected(forbidden ? kForbidden : rejection_kind(rejection.reason));
        if (forbidden) outcome->foreign.push_back(rejection.node_id);
    }
}

void BackendLink::count_oversized(uint64_t heartbeats) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.count_rejected(kOversized, heartbeats);
    }
    news_.notify_one();
}

bool BackendLink::park_if_full(std::shared_ptr<LinkedStream> stream) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.items() > kMaxPendingItems) {
        parked_.push_back(std::move(stream));
        return true;
    }
    if (redis_ && pending_.live_items() + redis_in_flight_ > kMaxRedisItems) {
        redis_parked_.push_back(std::move(stream));
        return true;
    }
    return false;
}

uint32_t BackendLink::take_live(std::string *commands, size_t *items) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint32_t replies = pending_.take_live(commands, items);
    redis_in_flight_ += *items;
    return replies;
}

void BackendLink::live_done(size_t items) {
    std::vector<std::shared_ptr<LinkedStream>> resumed;
    {
        std::lock_guard<std::mutex> lock(mu_);
        redis_in_flight_ -= items;
        live_done_ += items;
        if (pending_.live_items() + redis_in_flight_ <= kMaxRedisItems) resumed.swap(redis_parked_);
    }
    live_written_.notify_all();
    for (const std::shared_ptr<LinkedStream> &stream : resumed) stream->resume();
}

void BackendLink::stream_ended(const std::string &token_id, const std::string &agent_id,
                               std::shared_ptr<LinkedStream> waiter) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.add_end(token_id, agent_id, waiter != nullptr);
        if (waiter != nullptr) waiters_.push_back(std::move(waiter));
    }
    news_.notify_one();
}

// ---- deliveries -------------------------------------------------------------------------------------------

// Rollups are taken every kEndedStepsEvery (or rollup_flush_ if shorter), the steps that ended kStepGraceS ago only;
// all of them for a flush or the last delivery. A take of a step still open would end it in a row, so taking them
// at every delivery (as fast as the controller answers) would split steps into many rows.
void BackendLink::deliver() {
    Clock::time_point last_take = Clock::now(), next_start = last_take;
    const auto take_every = std::min<Clock::duration>(rollup_flush_, kEndedStepsEvery);
    std::unique_lock<std::mutex> lock(mu_);
    while (true) { // until the last delivery, once stopping
        news_.wait_until(lock, next_start, [&] { return stopping_ || pending_.flush(); });
        const Clock::time_point due = last_take + take_every;
        const bool ready = news_.wait_until(lock, std::min(Clock::now() + kNewsWait, due), [&] {
            return stopping_ || pending_.has_news() || Clock::now() >= due;
        });
        if (!ready) continue;
        const bool take_all = stopping_ || pending_.flush();
        const bool take_rollups = take_all || Clock::now() >= due;
        const uint64_t live_added = pending_.live_added(); // a flush's items: their live state written first
        e3::internal::v1::Delivery delivery = pending_.take();
        delivery.set_front_id(front_id_);
        delivery.set_sequence(++sequence_);
        if (take_rollups) {
            add_rollups(intake_.take_rollup_rows(take_all ? std::numeric_limits<double>::infinity()
                                                          : wall_s() - kStepGraceS), &delivery);
            last_take = Clock::now();
        }
        std::vector<std::shared_ptr<LinkedStream>> answered = std::move(waiters_);
        waiters_.clear();
        const bool last = stopping_;
        lock.unlock();
        if (last) { // what the streams ended by the server's shutdown left, and the rollups: once, briefly
            if (send_last(delivery))
                for (const std::shared_ptr<LinkedStream> &stream : answered) stream->delivered();
            return;
        }
        next_start = Clock::now() + kDeliveryGap;
        if (!send(delivery)) return;
        lock.lock();
        if (redis_ && !answered.empty()) // a summary follows its items' live state in Redis (a wait of ms, if any)
            live_written_.wait_for(lock, kFlushRedisWait, [&] { return stopping_ || live_done_ >= live_added; });
        std::vector<std::shared_ptr<LinkedStream>> parked = std::move(parked_);
        parked_.clear();
        lock.unlock();
        for (const std::shared_ptr<LinkedStream> &stream : answered) stream->delivered();
        for (const std::shared_ptr<LinkedStream> &stream : parked) stream->resume();
        lock.lock();
    }
}

// Sends `delivery` until the controller answers it; false when stopping first.
bool BackendLink::send(const e3::internal::v1::Delivery &delivery) {
    while (true) {
        grpc::ClientContext context; // no deadline: the controller answers once its rollups are written, however
                                     // long its database takes (meanwhile the streams park: backpressure), and a
                                     // retry after a deadline could count a delivery it applied twice
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (stopping_) return false;
            delivery_call_ = &context;
        }
        e3::internal::v1::DeliveryAck ack;
        const grpc::Status status = controller_->Deliver(&context, delivery, &ack);
        {
            std::lock_guard<std::mutex> lock(mu_);
            delivery_call_ = nullptr;
            if (status.ok()) return true;
            if (stopping_) return false;
        }
        std::fprintf(stderr, "e3-ingest: a delivery to the controller failed (%d: %s); sending it again in 0.5 s\n",
                     static_cast<int>(status.error_code()), status.error_message().c_str());
        if (!pause()) return false;
    }
}

bool BackendLink::send_last(const e3::internal::v1::Delivery &delivery) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kLastDeliveryDeadline);
    e3::internal::v1::DeliveryAck ack;
    const grpc::Status status = controller_->Deliver(&context, delivery, &ack);
    if (!status.ok())
        std::fprintf(stderr, "e3-ingest: the last delivery to the controller failed (%d: %s): %lu heartbeats and "
                             "%d rollup rows are lost\n", static_cast<int>(status.error_code()),
                     status.error_message().c_str(), static_cast<unsigned long>(delivery.accepted()),
                     delivery.node_rollups_size() + delivery.instance_rollups_size());
    return status.ok();
}

bool BackendLink::report(const e3::internal::v1::DetectionReport &report) {
    grpc::ClientContext context; // no deadline, as a delivery's: the controller answers it on its event loop
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return false; // the reporter sees its own stop next
        report_call_ = &context;
    }
    e3::internal::v1::DetectionAck ack;
    const grpc::Status status = controller_->Detected(&context, report, &ack);
    {
        std::lock_guard<std::mutex> lock(mu_);
        report_call_ = nullptr;
        if (status.ok() || stopping_) return status.ok();
    }
    std::fprintf(stderr, "e3-ingest: reporting %d detections to the controller failed (%d: %s); sending them again "
                         "in 0.5 s\n", report.detections_size(), static_cast<int>(status.error_code()),
                 status.error_message().c_str());
    return false;
}

bool BackendLink::pause() {
    std::unique_lock<std::mutex> lock(mu_);
    return !stop_or_idle_.wait_for(lock, kRetryPause, [this] { return stopping_; });
}

} // namespace ingest
