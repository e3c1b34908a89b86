// SPDX-License-Identifier: Apache-2.0
//
// The front's node table (see node_table.h): the version rule, the snapshot's end, the credential lookup.
// The controller versions a snapshot's changes when it makes it, then `synced`: a change newer than `synced` was
// made after the snapshot (a Register answered meanwhile, whose node the snapshot may lack, and whose copy the
// watch brings later, then ignored as not newer); one older that the snapshot did not repeat is history.
#include "node_table.h"

#include <optional>

namespace ingest {

NodeEntry node_entry(const e3::internal::v1::FrontNode &node) {
    NodeEntry entry;
    entry.node_id = node.node_id();
    entry.cluster_id = node.cluster_id();
    entry.agent_id = node.agent_id();
    entry.token_id = node.token_id();
    entry.kind = node.kind();
    entry.lease_epoch = node.lease_epoch();
    entry.bandwidth_mbps = node.bandwidth_mbps();
    if (node.has_power_override())
        entry.power_override = PowerOverride{node.override_watts(), node.override_source(),
                                             node.override_valid_until_s()};
    return entry;
}

void NodeTable::begin_snapshot() {
    in_snapshot_ = true;
    named_.clear();
}

void NodeTable::apply(const e3::internal::v1::NodeTableChange &change, bool watched,
                      std::vector<std::string> *removed) {
    using Change = e3::internal::v1::NodeTableChange;
    if (watched && in_snapshot_ && change.change_case() == Change::kUpsert) named_.insert(change.upsert().node_id());
    switch (change.change_case()) {
    case Change::kUpsert: upsert(change.version(), change.upsert()); break;
    case Change::kRemoveNodeId: remove(change.version(), change.remove_node_id(), removed); break;
    case Change::kSynced:
        if (watched) end_snapshot(change.version(), removed);
        break;
    case Change::kRevoke:   // the link ends the credential's streams
    case Change::kDetector: // the link's detector's
    case Change::CHANGE_NOT_SET: break;
    }
}

bool NodeTable::foreign(const std::string &node_id, const std::string &token_id) const {
    auto found = tokens_.find(node_id);
    if (found == tokens_.end()) {
        const std::optional<std::string> canonical = FrontIntake::canonical_uuid(node_id);
        if (!canonical) return false;
        found = tokens_.find(*canonical);
        if (found == tokens_.end()) return false;
    }
    return !found->second.empty() && found->second != token_id;
}

void NodeTable::upsert(uint64_t version, const e3::internal::v1::FrontNode &node) {
    if (!newer(version, node.node_id())) return;
    intake_.upsert_node(node_entry(node));
    tokens_[node.node_id()] = node.token_id();
}

void NodeTable::remove(uint64_t version, const std::string &node_id, std::vector<std::string> *removed) {
    if (!newer(version, node_id)) return;
    const bool held = intake_.remove_node(node_id);
    tokens_.erase(node_id);
    if (held && removed != nullptr) removed->push_back(node_id);
}

bool NodeTable::newer(uint64_t version, const std::string &node_id) {
    const auto [applied, first] = versions_.try_emplace(node_id, version);
    if (first) return true;
    if (version <= applied->second) return false;
    applied->second = version;
    return true;
}

void NodeTable::end_snapshot(uint64_t synced_version, std::vector<std::string> *removed) {
    if (!in_snapshot_) return; // a second `synced` on the same watch names no snapshot
    std::vector<std::string> gone;
    for (const auto &[node_id, token_id] : tokens_)
        if (named_.count(node_id) == 0 && versions_[node_id] <= synced_version) gone.push_back(node_id);
    for (const std::string &node_id : gone) {
        intake_.remove_node(node_id);
        tokens_.erase(node_id);
    }
    if (removed != nullptr) removed->insert(removed->end(), gone.begin(), gone.end());
    in_snapshot_ = false;
    named_.clear();
}

} // namespace ingest
