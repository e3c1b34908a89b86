// SPDX-License-Identifier: Apache-2.0
//
// ingest::RawTail reads as backend/e3/controller/raw_tail.py's RawTail.read: `since` exclusive, `until` inclusive,
// 0 unbounded, the newest `limit` (0: all) oldest first, held-since the oldest item held whatever matched; a node
// with nothing held is told apart from one held with nothing matching. A full ring overwrites its oldest items;
// forget drops a node; a tail of 0 items a node keeps nothing.
#include <string>
#include <vector>

#include "check.h"
#include "raw_tail.h"

namespace {

using Items = std::vector<std::string>;

std::string json(int i) { return "{\"i\": " + std::to_string(i) + "}"; }

// The items of ts 10, 20, ... as json(1), json(2), ...
void fill(ingest::RawTail &tail, const std::string &node_id, int from, int to) {
    for (int i = from; i <= to; ++i) {
        std::string item = json(i);
        tail.append(node_id, 10 * i, std::move(item));
    }
}

Items read(const ingest::RawTail &tail, const std::string &node_id, int64_t since, int64_t until, uint32_t limit,
           int64_t *holds_since = nullptr) {
    ingest::RawTail::Read out;
    CHECK(tail.read(node_id, since, until, limit, &out));
    if (holds_since != nullptr) *holds_since = out.holds_since_ns;
    return out.items;
}

void semantics() {
    ingest::RawTail tail(10);
    CHECK(tail.per_node() == 10);
    fill(tail, "n", 1, 5); // ts 10..50
    int64_t since = 0;
    CHECK(read(tail, "n", 0, 0, 0, &since) == (Items{json(1), json(2), json(3), json(4), json(5)}));
    CHECK(since == 10);
    CHECK(read(tail, "n", 20, 0, 0) == (Items{json(3), json(4), json(5)}));  // since: exclusive
    CHECK(read(tail, "n", 0, 30, 0) == (Items{json(1), json(2), json(3)}));  // until: inclusive
    CHECK(read(tail, "n", 10, 40, 0) == (Items{json(2), json(3), json(4)}));
    CHECK(read(tail, "n", 0, 0, 2) == (Items{json(4), json(5)}));            // the newest `limit`, oldest first
    CHECK(read(tail, "n", 0, 30, 2) == (Items{json(2), json(3)}));
    CHECK(read(tail, "n", 0, 0, 100) == (Items{json(1), json(2), json(3), json(4), json(5)}));
    CHECK(read(tail, "n", 50, 0, 0, &since).empty() && since == 10); // held, none matching: not "none held"

    ingest::RawTail::Read untouched;
    untouched.holds_since_ns = -1;
    CHECK(!tail.read("other", 0, 0, 0, &untouched) && untouched.holds_since_ns == -1 && untouched.items.empty());
}

void ring() {
    ingest::RawTail tail(3);
    fill(tail, "n", 1, 2);
    int64_t since = 0;
    CHECK(read(tail, "n", 0, 0, 0, &since) == (Items{json(1), json(2)}) && since == 10);
    fill(tail, "n", 3, 7); // wraps: 5, 6, 7 kept
    CHECK(read(tail, "n", 0, 0, 0, &since) == (Items{json(5), json(6), json(7)}) && since == 50);
    CHECK(read(tail, "n", 50, 0, 0) == (Items{json(6), json(7)}));
    CHECK(read(tail, "n", 0, 0, 1) == (Items{json(7)}));
    CHECK(read(tail, "n", 0, 60, 1) == (Items{json(6)}));

    // A full ring's slot is reused: the evicted item comes back in the caller's string.
    std::string item = json(8);
    tail.append("n", 80, std::move(item));
    CHECK(item == json(5));
    CHECK(read(tail, "n", 0, 0, 0, &since) == (Items{json(6), json(7), json(8)}) && since == 60);

    // Nodes apart.
    fill(tail, "m", 1, 1);
    CHECK(read(tail, "m", 0, 0, 0) == (Items{json(1)}));
    CHECK(tail.nodes() == 2);
}

void forgetting() {
    ingest::RawTail tail(4);
    fill(tail, "n", 1, 3);
    fill(tail, "m", 1, 1);
    tail.forget("n");
    ingest::RawTail::Read out;
    CHECK(!tail.read("n", 0, 0, 0, &out));
    CHECK(tail.nodes() == 1);
    tail.forget("absent");
    fill(tail, "n", 9, 9); // heard again: a new ring
    int64_t since = 0;
    CHECK(read(tail, "n", 0, 0, 0, &since) == (Items{json(9)}) && since == 90);
}

void off() {
    ingest::RawTail tail(0);
    fill(tail, "n", 1, 3);
    ingest::RawTail::Read out;
    CHECK(!tail.read("n", 0, 0, 0, &out));
    CHECK(tail.nodes() == 0);
}

} // namespace

int main() {
    semantics();
    ring();
    forgetting();
    off();
    return 0;
}
