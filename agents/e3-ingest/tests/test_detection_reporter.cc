// SPDX-License-Identifier: Apache-2.0
//
// ingest::DetectionReporter: detections reported at once, numbered from 1 with the front's id, every field
// copied; a failed call sent again unchanged (same number, same detections) after the pause, detections made
// meanwhile in the next report; stopping drops what is unsent and ends a retrying thread at once.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "detection_reporter.h"
#include "check.h"

namespace {

using Report = e3::internal::v1::DetectionReport;
using namespace std::chrono_literals;

struct Controller { // what the reporter's calls reach: each call recorded; the first `refuse` ones fail
    std::mutex mu;
    std::vector<Report> calls;
    int refuse = 0;

    bool take(const Report &report) {
        std::lock_guard<std::mutex> lock(mu);
        calls.push_back(report);
        if (refuse == 0) return true;
        --refuse;
        return false;
    }
    size_t count() {
        std::lock_guard<std::mutex> lock(mu);
        return calls.size();
    }
    bool wait_for(size_t n) { // up to 5 s
        for (int i = 0; i < 500 && count() < n; ++i) std::this_thread::sleep_for(10ms);
        return count() >= n;
    }
};

ingest::Detection overload(const char *node) { return ingest::Detection{ingest::kOverload, node, 12.5, "i1", "{}"}; }

void reported_at_once() {
    Controller controller;
    ingest::DetectionReporter reporter("front-a", [&](const Report &r) { return controller.take(r); }, 10ms);
    reporter.start();
    reporter.add(ingest::Detection{ingest::kOverload, "n1", 12.5, "i1", "{\"x\": 1}"}, 13000000000);
    CHECK(controller.wait_for(1));
    {
        const Report &first = controller.calls[0];
        CHECK(first.front_id() == "front-a" && first.sequence() == 1 && first.detections_size() == 1);
        const e3::internal::v1::FrontDetection &found = first.detections(0);
        CHECK(found.node_id() == "n1" && found.kind() == "overload" && found.t() == 12.5);
        CHECK(found.instance_id() == "i1" && found.detail_json() == "{\"x\": 1}");
        CHECK(found.detected_unix_ns() == 13000000000);
    }
    reporter.add(overload("n2"), 1);
    CHECK(controller.wait_for(2));
    CHECK(controller.calls[1].sequence() == 2 && controller.calls[1].detections(0).node_id() == "n2");
    for (int i = 0; i < 100 && reporter.answered() < 2; ++i) std::this_thread::sleep_for(10ms);
    CHECK(reporter.answered() == 2 && reporter.failed() == 0);
    reporter.stop();
}

void failed_call_sent_again_unchanged() {
    Controller controller;
    controller.refuse = 2;
    std::atomic<bool> added{false};
    ingest::DetectionReporter *self = nullptr;
    ingest::DetectionReporter reporter("front-b", [&](const Report &r) {
        const bool ok = controller.take(r);
        if (!ok && !added.exchange(true)) self->add(overload("n9"), 2); // made while the first report fails
        return ok;
    }, 20ms);
    self = &reporter;
    reporter.start();
    reporter.add(overload("n1"), 1);
    CHECK(controller.wait_for(4));
    std::lock_guard<std::mutex> lock(controller.mu);
    for (int i = 0; i < 3; ++i) { // refused twice, then answered: the same report each time
        CHECK(controller.calls[i].sequence() == 1 && controller.calls[i].detections_size() == 1);
        CHECK(controller.calls[i].detections(0).node_id() == "n1");
    }
    CHECK(controller.calls[3].sequence() == 2 && controller.calls[3].detections_size() == 1);
    CHECK(controller.calls[3].detections(0).node_id() == "n9");
    CHECK(reporter.failed() == 2);
}

void stopping_drops_what_is_unsent() {
    Controller controller;
    controller.refuse = 1000000; // the controller never answers: the reporter retries until stopped
    ingest::DetectionReporter reporter("front-c", [&](const Report &r) { return controller.take(r); }, 5000ms);
    reporter.start();
    reporter.add(overload("n1"), 1);
    CHECK(controller.wait_for(1));
    const auto started = std::chrono::steady_clock::now();
    reporter.stop(); // in its 5 s pause: ends at once
    CHECK(std::chrono::steady_clock::now() - started < 2s);
    reporter.add(overload("n2"), 2); // kept for nothing
    CHECK(controller.count() == 1 && reporter.answered() == 0);
}

} // namespace

int main() {
    reported_at_once();
    failed_call_sent_again_unchanged();
    stopping_drops_what_is_unsent();
    std::puts("detection reporter: ok");
    return 0;
}
