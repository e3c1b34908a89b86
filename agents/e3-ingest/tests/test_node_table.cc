// SPDX-License-Identifier: Apache-2.0
//
// ingest::NodeTable: the version rule (a change not newer than the last applied to its node is ignored, removed
// nodes included), the snapshot's end (`synced` removes the nodes the reconnected watch did not name, but not one
// a newer change from a Register's answer brought meanwhile), and the credential lookup of a refused heartbeat's
// node (any spelling of its id); the nodes a change removed reported (for the raw tail to forget them). The
// table's effect is seen through NodeTable::foreign (a node under credential "t1" is foreign to "t2" while it is in
// the table) and the intake's verdict on a heartbeat.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "front_intake.h"
#include "node_table.h"
#include "check.h"

namespace {

using e3::internal::v1::NodeTableChange;

const std::string kNodeA = "11111111-2222-3333-4444-555555555555";
const std::string kNodeB = "66666666-7777-8888-9999-aaaaaaaaaaaa";

NodeTableChange upsert(uint64_t version, const std::string &node_id, const std::string &agent_id,
                       const std::string &token_id) {
    NodeTableChange change;
    change.set_version(version);
    e3::internal::v1::FrontNode *node = change.mutable_upsert();
    node->set_node_id(node_id);
    node->set_cluster_id("cccccccc-0000-0000-0000-000000000000");
    node->set_agent_id(agent_id);
    node->set_token_id(token_id);
    node->set_kind("host");
    return change;
}

NodeTableChange removal(uint64_t version, const std::string &node_id) {
    NodeTableChange change;
    change.set_version(version);
    change.set_remove_node_id(node_id);
    return change;
}

NodeTableChange synced(uint64_t version) {
    NodeTableChange change;
    change.set_version(version);
    change.set_synced(true);
    return change;
}

// Whether the intake takes a node's heartbeat from `agent_id` under `token_id` (else: not registered).
bool registered(ingest::FrontIntake &intake, const std::string &node_id, const std::string &agent_id,
                const std::string &token_id) {
    e3::agent::v1::Heartbeat heartbeat;
    heartbeat.set_node_id(node_id);
    const ingest::AcceptResult result =
        intake.accept(agent_id, token_id, std::vector<e3::agent::v1::Heartbeat>{heartbeat}, 0, 0.0);
    return result.rejections.empty() || result.rejections[0].reason != ingest::kNotRegistered;
}

void version_rule() {
    ingest::FrontIntake intake;
    ingest::NodeTable table(intake);
    table.apply(upsert(5, kNodeA, "agent-1", "t1"), true);
    CHECK(table.foreign(kNodeA, "t2"));
    CHECK(!table.foreign(kNodeA, "t1"));
    CHECK(registered(intake, kNodeA, "agent-1", "t1"));
    table.apply(upsert(5, kNodeA, "agent-2", "t2"), false); // not newer: ignored
    CHECK(table.foreign(kNodeA, "t2"));
    table.apply(upsert(4, kNodeA, "agent-2", "t2"), true); // older: ignored
    CHECK(registered(intake, kNodeA, "agent-1", "t1"));
    table.apply(upsert(6, kNodeA, "agent-2", "t2"), false);
    CHECK(table.foreign(kNodeA, "t1") && !table.foreign(kNodeA, "t2"));
    CHECK(registered(intake, kNodeA, "agent-2", "t2") && !registered(intake, kNodeA, "agent-1", "t1"));
    table.apply(removal(7, kNodeA), true);
    CHECK(!table.foreign(kNodeA, "t1"));
    CHECK(!registered(intake, kNodeA, "agent-2", "t2"));
    table.apply(upsert(6, kNodeA, "agent-2", "t2"), true); // the watch's late copy of a change before the removal
    CHECK(!registered(intake, kNodeA, "agent-2", "t2"));
    table.apply(upsert(8, kNodeA, "agent-3", ""), true);
    CHECK(registered(intake, kNodeA, "agent-3", ""));
    CHECK(!table.foreign(kNodeA, "t1")); // a node under no credential is nobody's to forbid
}

// The controller versions a snapshot's changes as it makes it, then `synced` after them.
void snapshot() {
    ingest::FrontIntake intake;
    ingest::NodeTable table(intake);
    table.begin_snapshot();
    table.apply(upsert(1, kNodeA, "agent-1", "t1"), true);
    table.apply(upsert(2, kNodeB, "agent-1", "t1"), true);
    table.apply(synced(3), true);
    CHECK(table.foreign(kNodeA, "t2") && table.foreign(kNodeB, "t2"));

    // The watch reconnects; its snapshot holds A only: B is removed at `synced`.
    table.begin_snapshot();
    table.apply(upsert(4, kNodeA, "agent-1", "t1"), true);
    table.apply(synced(5), true);
    CHECK(table.foreign(kNodeA, "t2"));
    CHECK(!table.foreign(kNodeB, "t2"));
    CHECK(!registered(intake, kNodeB, "agent-1", "t1"));

    // Again; B registers once the snapshot is made, its answer applied before the watch's `synced`: B stays.
    table.begin_snapshot();
    table.apply(upsert(8, kNodeB, "agent-1", "t1"), false);
    table.apply(upsert(6, kNodeA, "agent-1", "t1"), true);
    table.apply(synced(7), true);
    CHECK(table.foreign(kNodeA, "t2") && table.foreign(kNodeB, "t2"));
    table.apply(upsert(8, kNodeB, "agent-9", "t9"), true); // the watch's copy of that change: ignored
    CHECK(table.foreign(kNodeB, "t9"));

    // A second `synced` on the same watch removes nothing; nor does one from an answer.
    table.apply(synced(20), true);
    CHECK(table.foreign(kNodeA, "t2") && table.foreign(kNodeB, "t2"));
    table.begin_snapshot();
    table.apply(synced(21), false);
    CHECK(table.foreign(kNodeA, "t2") && table.foreign(kNodeB, "t2"));

    // An answer older than the snapshot (B registered, then gone before the snapshot was made) does not keep B;
    // nor does a snapshot change the table had already (A, not newer) lose its node.
    table.begin_snapshot();
    table.apply(upsert(22, kNodeB, "agent-1", "t1"), false);
    table.apply(upsert(6, kNodeA, "agent-1", "t1"), true);
    table.apply(synced(24), true);
    CHECK(table.foreign(kNodeA, "t2"));
    CHECK(!table.foreign(kNodeB, "t2"));
}

// What a removal or a snapshot's end took out of the table, reported; nothing for a node the table lacks.
void removals() {
    ingest::FrontIntake intake;
    ingest::NodeTable table(intake);
    std::vector<std::string> removed;
    table.apply(upsert(1, kNodeA, "agent-1", "t1"), true, &removed);
    table.apply(upsert(2, kNodeB, "agent-1", "t1"), true, &removed);
    CHECK(removed.empty());
    table.apply(removal(3, kNodeA), true, &removed);
    CHECK(removed == std::vector<std::string>{kNodeA});
    table.apply(removal(4, kNodeA), true, &removed); // not in the table any more
    table.apply(removal(2, kNodeB), true, &removed); // not newer
    CHECK(removed.size() == 1);
    removed.clear();
    table.begin_snapshot();
    table.apply(synced(5), true, &removed); // the snapshot named no node: B is gone
    CHECK(removed == std::vector<std::string>{kNodeB});
    table.apply(removal(6, kNodeB), true); // no list: nothing reported
}

void spellings() {
    ingest::FrontIntake intake;
    ingest::NodeTable table(intake);
    table.apply(upsert(1, kNodeA, "agent-1", "t1"), true);
    CHECK(table.foreign("{11111111-2222-3333-4444-555555555555}", "t2"));
    CHECK(table.foreign("urn:uuid:11111111222233334444555555555555", "t2"));
    CHECK(table.foreign("11111111-2222-3333-4444-555555555555", "t2"));
    CHECK(!table.foreign("not a uuid", "t2"));
    CHECK(!table.foreign(kNodeB, "t2"));
}

void power_override() {
    e3::internal::v1::FrontNode node;
    node.set_node_id(kNodeA);
    node.set_lease_epoch(3);
    ingest::NodeEntry entry = ingest::node_entry(node);
    CHECK(entry.lease_epoch == 3 && !entry.power_override);
    node.set_has_power_override(true);
    node.set_override_watts(12.5);
    node.set_override_source("ipmi-split");
    node.set_override_valid_until_s(100.0);
    entry = ingest::node_entry(node);
    CHECK(entry.power_override && entry.power_override->watts == 12.5);
    CHECK(entry.power_override->source == "ipmi-split" && entry.power_override->valid_until == 100.0);
}

} // namespace

int main() {
    version_rule();
    snapshot();
    removals();
    spellings();
    power_override();
    return 0;
}
