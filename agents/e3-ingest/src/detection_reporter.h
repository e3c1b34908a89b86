// SPDX-License-Identifier: Apache-2.0
//
// The front's detections (detector.h), reported to the controller by a thread of their own as soon as they are
// made, on front.proto's IngestBackend.Detected. They rode in the deliveries before, and waited there behind the
// delivery in flight, which the controller answers once its database and Redis have room (its backpressure): at
// 1,000 servers that wait was most of the time from detection to decision (p50 0.33 s, p99 2.6 s; `e3 bench
// orchestrator --section real --front`). Reports are numbered from 1, apart from the deliveries: one sent again
// after a failed call the controller had applied is answered without being acted on twice. A failed report is
// sent again, unchanged, after a pause; detections made meanwhile go in the next. Those left when stopping are
// dropped: the controller is stopping too.
#ifndef E3_INGEST_DETECTION_REPORTER_H
#define E3_INGEST_DETECTION_REPORTER_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "e3/internal/v1/front.pb.h"
#include "detector.h"

namespace ingest {

class DetectionReporter {
public:
    // `send`: one call, true when the controller answered it; made on the reporter's thread, never under its lock.
    using Send = std::function<bool(const e3::internal::v1::DetectionReport &)>;

    DetectionReporter(std::string front_id, Send send, std::chrono::milliseconds retry_pause);
    ~DetectionReporter(); // stop()
    DetectionReporter(const DetectionReporter &) = delete;
    DetectionReporter &operator=(const DetectionReporter &) = delete;

    void start();
    // A detection, made judging a heartbeat at `judged_unix_ns` (wall clock). Kept for nothing once stopping.
    void add(const Detection &found, int64_t judged_unix_ns);
    // Ends the thread (a call in flight must end first: the caller cancels it); what is unsent is dropped.
    void stop();
    uint64_t answered() const; // reports the controller answered
    uint64_t failed() const;   // calls that failed (each report sent again)

private:
    void run();
    bool wait_pause(); // false when stopping

    const std::string front_id_;
    const Send send_;
    const std::chrono::milliseconds retry_pause_;
    mutable std::mutex mu_;
    std::condition_variable news_;
    e3::internal::v1::DetectionReport pending_; // detections not yet in a report sent
    uint64_t sequence_ = 0;
    uint64_t answered_ = 0, failed_ = 0;
    bool stopping_ = false;
    std::thread thread_;
};

} // namespace ingest

#endif
