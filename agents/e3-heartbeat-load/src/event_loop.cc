// SPDX-License-Identifier: Apache-2.0
//
// The event loop's wait (event_loop.h).
#include "event_loop.h"

#include <chrono>
#include <ctime>

namespace heartbeat_load {

int64_t wall_clock_ns() {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

std::chrono::system_clock::time_point wall_time(int64_t ns) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(ns)));
}

EventLoop::~EventLoop() {
    queue_.Shutdown();
    void *tag = nullptr;
    bool ok = false;
    while (queue_.Next(&tag, &ok)) {
    }
}

void EventLoop::run(size_t streams) {
    while (ended_ < streams) {
        while (!due_.empty() && due_.top().first <= wall_clock_ns()) {
            Ticking *who = due_.top().second;
            due_.pop();
            who->tick();
        }
        // Until the next tick (max(): none to wait for).
        const std::chrono::system_clock::time_point deadline =
            due_.empty() ? std::chrono::system_clock::time_point::max() : wall_time(due_.top().first);
        void *tag = nullptr;
        bool ok = false;
        const grpc::CompletionQueue::NextStatus status = queue_.AsyncNext(&tag, &ok, deadline);
        if (status == grpc::CompletionQueue::GOT_EVENT) static_cast<Completion *>(tag)->complete(ok);
        if (status == grpc::CompletionQueue::SHUTDOWN) return;
    }
}

} // namespace heartbeat_load
