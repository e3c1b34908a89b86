// SPDX-License-Identifier: Apache-2.0
//
// The live items' Redis commands (src/live_commands.cc) are live_publisher._write's, byte for byte: the expected
// bytes below are what `_write` gave for these items (a node heard twice keeps its latest item in the HSET, at
// the place of its first; every item is published, in order); and a delivery without items gets no commands.
#include <string>

#include "check.h"
#include "live_commands.h"

namespace {

void add_item(e3::internal::v1::Delivery *delivery, const char *cluster, const char *node, const char *json) {
    delivery->add_item_cluster_ids(cluster);
    delivery->add_item_node_ids(node);
    delivery->add_item_ts_unix_ns(1);
    delivery->add_item_json(json);
}

} // namespace

int main() {
    e3::internal::v1::Delivery delivery;
    add_item(&delivery, "c1", "n1", "{\"a\": 1}");
    add_item(&delivery, "c1", "n2", "{\"c\": 3}");
    add_item(&delivery, "c2", "n3", "{\"d\": 4}");
    add_item(&delivery, "c1", "n1", "{\"b\": 2}");
    ingest::set_live_commands(&delivery);
    const std::string expected =
        "*6\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c1\r\n$2\r\nn1\r\n$8\r\n{\"b\": 2}\r\n$2\r\nn2\r\n$8\r\n{\"c\": 3}\r\n"
        "*4\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c2\r\n$2\r\nn3\r\n$8\r\n{\"d\": 4}\r\n"
        "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n$78\r\n"
        "{\"type\": \"heartbeats\", \"heartbeats\": [{\"a\": 1}, {\"c\": 3}, {\"d\": 4}, {\"b\": 2}]}\r\n";
    CHECK(delivery.live_commands() == expected);
    CHECK(delivery.live_replies() == 3);

    e3::internal::v1::Delivery empty;
    ingest::set_live_commands(&empty);
    CHECK(empty.live_commands().empty() && empty.live_replies() == 0);
    return 0;
}
