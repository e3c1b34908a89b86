// SPDX-License-Identifier: Apache-2.0
//
// The front's detections reported on their own call (see detection_reporter.h).
#include "detection_reporter.h"

#include <utility>

namespace ingest {

DetectionReporter::DetectionReporter(std::string front_id, Send send, std::chrono::milliseconds retry_pause)
    : front_id_(std::move(front_id)), send_(std::move(send)), retry_pause_(retry_pause) {}

DetectionReporter::~DetectionReporter() { stop(); }

void DetectionReporter::start() { thread_ = std::thread(&DetectionReporter::run, this); }

void DetectionReporter::add(const Detection &found, int64_t judged_unix_ns) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
        e3::internal::v1::FrontDetection *out = pending_.add_detections();
        out->set_node_id(found.node_id);
        out->set_kind(found.kind);
        out->set_t(found.t);
        out->set_instance_id(found.instance_id);
        out->set_detail_json(found.detail_json);
        out->set_detected_unix_ns(judged_unix_ns);
    }
    news_.notify_one();
}

void DetectionReporter::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
    }
    news_.notify_all();
    if (thread_.joinable()) thread_.join();
}

uint64_t DetectionReporter::answered() const {
    std::lock_guard<std::mutex> lock(mu_);
    return answered_;
}

uint64_t DetectionReporter::failed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failed_;
}

void DetectionReporter::run() {
    while (true) {
        e3::internal::v1::DetectionReport report;
        {
            std::unique_lock<std::mutex> lock(mu_);
            news_.wait(lock, [this] { return stopping_ || pending_.detections_size() > 0; });
            if (stopping_) return;
            report.Swap(&pending_);
            report.set_front_id(front_id_);
            report.set_sequence(++sequence_);
        }
        while (!send_(report)) { // the same report again: the controller may have acted on it
            {
                std::lock_guard<std::mutex> lock(mu_);
                ++failed_;
            }
            if (!wait_pause()) return;
        }
        std::lock_guard<std::mutex> lock(mu_);
        ++answered_;
    }
}

bool DetectionReporter::wait_pause() {
    std::unique_lock<std::mutex> lock(mu_);
    return !news_.wait_for(lock, retry_pause_, [this] { return stopping_; });
}

} // namespace ingest
