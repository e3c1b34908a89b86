// SPDX-License-Identifier: Apache-2.0
//
// The live items' Redis commands (src/live_commands.cc) are live_publisher._write's, byte for byte: the expected
// bytes below are what `_write` gave for these items (a node heard twice keeps its latest item in the HSET, at
// the place of its first; every item is published, in order); the nodes heard are listed once each; a take
// starts over (the next commands hold only the items added after it, in their own first-seen order); a take
// without items gives no commands; a forgotten node is dropped, but not from commands that already hold its item.
// Heard apart (the front writes Redis): the same bytes; the nodes heard come from take_heard, at its own pace (every
// node with an item since its previous call, whatever takes of the commands came between), and a forgotten node is
// kept until neither the commands nor the heard list being built hold it.
#include <string>

#include "check.h"
#include "live_commands.h"

namespace {

const std::string kFirst =
    "*6\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c1\r\n$2\r\nn1\r\n$8\r\n{\"b\": 2}\r\n$2\r\nn2\r\n$8\r\n{\"c\": 3}\r\n"
    "*4\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c2\r\n$2\r\nn3\r\n$8\r\n{\"d\": 4}\r\n"
    "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n$78\r\n"
    "{\"type\": \"heartbeats\", \"heartbeats\": [{\"a\": 1}, {\"c\": 3}, {\"d\": 4}, {\"b\": 2}]}\r\n";

void first_and_next() {
    ingest::LiveCommands live;
    live.add("c1", "n1", "{\"a\": 1}");
    live.add("c1", "n2", "{\"c\": 3}");
    live.add("c2", "n3", "{\"d\": 4}");
    live.add("c1", "n1", "{\"b\": 2}");
    CHECK(live.items() == 4);
    std::string commands;
    google::protobuf::RepeatedPtrField<std::string> heard;
    CHECK(live.take(&commands, &heard) == 3);
    CHECK(commands == kFirst);
    CHECK(heard.size() == 3 && heard.Get(0) == "n1" && heard.Get(1) == "n2" && heard.Get(2) == "n3");
    CHECK(live.items() == 0);

    // The next take: only what came since, c2 first now, n3's item the only one it holds.
    live.add("c2", "n3", "{\"e\": 5}");
    live.add("c1", "n2", "{\"f\": 6}");
    commands.clear();
    CHECK(live.take(&commands) == 3);
    CHECK(commands ==
          "*4\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c2\r\n$2\r\nn3\r\n$8\r\n{\"e\": 5}\r\n"
          "*4\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c1\r\n$2\r\nn2\r\n$8\r\n{\"f\": 6}\r\n"
          "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n$58\r\n"
          "{\"type\": \"heartbeats\", \"heartbeats\": [{\"e\": 5}, {\"f\": 6}]}\r\n");

    // Nothing since: no commands, nothing heard.
    commands.clear();
    heard.Clear();
    CHECK(live.take(&commands, &heard) == 0 && commands.empty() && heard.empty());

    // The same items again, after all that: the same bytes as the first time.
    live.add("c1", "n1", "{\"a\": 1}");
    live.add("c1", "n2", "{\"c\": 3}");
    live.add("c2", "n3", "{\"d\": 4}");
    live.add("c1", "n1", "{\"b\": 2}");
    CHECK(live.take(&commands) == 3 && commands == kFirst);
}

void forgetting() {
    ingest::LiveCommands live;
    live.add("c1", "n1", "{\"a\": 1}");
    std::string commands;
    live.take(&commands); // a first round: n1 is known, and in no commands being built
    live.forget("n1");    // dropped now
    CHECK(live.nodes() == 0);
    live.add("c1", "n2", "{\"b\": 2}");
    live.forget("n2"); // its item is in the commands being built: they keep it
    CHECK(live.nodes() == 1);
    live.add("c1", "n1", "{\"c\": 3}");
    commands.clear();
    CHECK(live.take(&commands) == 2);
    CHECK(commands ==
          "*6\r\n$4\r\nHSET\r\n$12\r\ne3:latest:c1\r\n$2\r\nn2\r\n$8\r\n{\"b\": 2}\r\n$2\r\nn1\r\n$8\r\n{\"c\": 3}\r\n"
          "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n$58\r\n"
          "{\"type\": \"heartbeats\", \"heartbeats\": [{\"b\": 2}, {\"c\": 3}]}\r\n");
    CHECK(live.nodes() == 1); // n2 dropped at the take, n1 kept
    live.add("c1", "n2", "{\"d\": 4}"); // known again after it was dropped at the take
    commands.clear();
    CHECK(live.take(&commands) == 2);
    CHECK(commands.find("$2\r\nn2\r\n$8\r\n{\"d\": 4}\r\n") != std::string::npos);
    CHECK(commands.find("n1") == std::string::npos);
}

void heard_apart() {
    ingest::LiveCommands live(true);
    live.add("c1", "n1", "{\"a\": 1}");
    live.add("c1", "n2", "{\"c\": 3}");
    live.add("c2", "n3", "{\"d\": 4}");
    live.add("c1", "n1", "{\"b\": 2}");
    std::string commands;
    CHECK(live.take(&commands) == 3 && commands == kFirst); // the same bytes
    live.add("c2", "n4", "{\"e\": 5}");
    live.add("c1", "n1", "{\"f\": 6}");
    google::protobuf::RepeatedPtrField<std::string> heard;
    live.take_heard(&heard); // both rounds of items, each node once, in first-seen order
    CHECK(heard.size() == 4 && heard.Get(0) == "n1" && heard.Get(1) == "n2" && heard.Get(2) == "n3" &&
          heard.Get(3) == "n4");
    CHECK(live.items() == 2); // the commands untouched
    heard.Clear();
    live.take_heard(&heard);
    CHECK(heard.empty());

    // n4: in the commands being built, not in the heard list: kept until the take of the commands
    live.forget("n4");
    CHECK(live.nodes() == 4);
    commands.clear();
    CHECK(live.take(&commands) == 3);
    CHECK(live.nodes() == 3);
    // n2: in the heard list being built, not in the commands (taken): kept until take_heard
    live.add("c1", "n2", "{\"g\": 7}");
    commands.clear();
    CHECK(live.take(&commands) == 2);
    live.forget("n2");
    CHECK(live.nodes() == 3);
    live.take_heard(&heard);
    CHECK(heard.size() == 1 && heard.Get(0) == "n2");
    CHECK(live.nodes() == 2);
    // a node in neither: dropped now
    live.forget("n3");
    CHECK(live.nodes() == 1);
}

} // namespace

int main() {
    first_and_next();
    forgetting();
    heard_apart();
    return 0;
}
