// SPDX-License-Identifier: Apache-2.0
//
// The program's one thread of its own: it waits on a gRPC completion queue until the earliest due tick (wall
// clock, CLOCK_REALTIME) or an operation's completion, whichever comes first, and runs either. gRPC polls the
// connections inside that wait (epoll), so writes are made and their completions taken on this thread: no
// hand-off between threads, no polling loop.
#ifndef E3_HEARTBEAT_LOAD_EVENT_LOOP_H
#define E3_HEARTBEAT_LOAD_EVENT_LOOP_H

#include <grpcpp/completion_queue.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace heartbeat_load {

// CLOCK_REALTIME in ns, and such a time as a std::chrono::system_clock point (system_clock is CLOCK_REALTIME).
int64_t wall_clock_ns();
std::chrono::system_clock::time_point wall_time(int64_t ns);

// A completion queue tag: what to do when its operation completes.
class Completion {
public:
    virtual void complete(bool ok) = 0;

protected:
    ~Completion() = default;
};

// A tag calling one of its owner's methods.
template <class Owner>
class Step final : public Completion {
public:
    Step(Owner *owner, void (Owner::*method)(bool)) : owner_(owner), method_(method) {}
    void complete(bool ok) override { (owner_->*method_)(ok); }

private:
    Owner *owner_;
    void (Owner::*method_)(bool);
};

// What a tick starts.
class Ticking {
public:
    virtual void tick() = 0; // at or after the due time (gRPC's waits end on the millisecond after it)

protected:
    ~Ticking() = default;
};

class EventLoop {
public:
    EventLoop() = default;
    EventLoop(const EventLoop &) = delete;
    EventLoop &operator=(const EventLoop &) = delete;
    ~EventLoop(); // shuts the queue down and drains it: every call on it must be over

    grpc::CompletionQueue *queue() { return &queue_; }
    // `who` ticks at `due_ns` (wall clock).
    void at(int64_t due_ns, Ticking *who) { due_.emplace(due_ns, who); }
    // One stream has ended (its call's status is in).
    void ended() { ++ended_; }
    // Runs ticks and completions until `streams` streams have ended.
    void run(size_t streams);

private:
    using Entry = std::pair<int64_t, Ticking *>;
    struct Later {
        bool operator()(const Entry &a, const Entry &b) const { return a.first > b.first; }
    };

    grpc::CompletionQueue queue_;
    std::priority_queue<Entry, std::vector<Entry>, Later> due_; // earliest first
    size_t ended_ = 0;
};

} // namespace heartbeat_load

#endif
