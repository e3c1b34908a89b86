// SPDX-License-Identifier: Apache-2.0
//
// The front's copy of the controller's node table: front.proto's NodeTableChange applied to the intake
// (front_intake.h). Changes come from two places, the WatchNodes stream and a Register's answer (its trailing
// metadata), so the same change may come twice and the two may cross: per node, only a change newer (by
// version) than the last applied to it is applied. A (re)connected watch first sends every node, then `synced`:
// the nodes its snapshot did not name are gone from the controller and are removed then, unless a change newer
// than `synced` was applied to them (a Register answered meanwhile, after the snapshot was made). Revocations
// are the caller's (they end streams, not nodes). Not thread-safe: the caller's lock guards it with the intake.
#ifndef E3_INGEST_NODE_TABLE_H
#define E3_INGEST_NODE_TABLE_H

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "e3/internal/v1/front.pb.h"
#include "front_intake.h"

namespace ingest {

// A FrontNode as the intake's NodeEntry.
NodeEntry node_entry(const e3::internal::v1::FrontNode &node);

class NodeTable {
public:
    explicit NodeTable(FrontIntake &intake) : intake_(intake) {}

    // A watch was (re)connected: its snapshot follows, ended by `synced`.
    void begin_snapshot();
    // Applies an upsert, a removal or `synced` (a revocation is ignored here) from the watch (`watched`) or from
    // a call's answer. An upsert or removal not newer than the last change applied to its node is ignored. The
    // nodes it removed from the table are appended to `removed` when given.
    void apply(const e3::internal::v1::NodeTableChange &change, bool watched,
               std::vector<std::string> *removed = nullptr);
    // Whether the node `node_id` names (as sent: any spelling uuid.UUID reads) is in the table under a
    // credential, and not `token_id` (AgentHub._is_foreign: another agent's node, not a stale agent's).
    bool foreign(const std::string &node_id, const std::string &token_id) const;

private:
    void upsert(uint64_t version, const e3::internal::v1::FrontNode &node);
    void remove(uint64_t version, const std::string &node_id, std::vector<std::string> *removed);
    bool newer(uint64_t version, const std::string &node_id); // records it when newer
    void end_snapshot(uint64_t synced_version, std::vector<std::string> *removed);

    FrontIntake &intake_;
    std::unordered_map<std::string, std::string> tokens_; // node id in the table -> its token id ("" for none)
    std::unordered_map<std::string, uint64_t> versions_;  // node id -> highest version applied (kept for good)
    bool in_snapshot_ = false;
    std::unordered_set<std::string> named_; // nodes the watch named since its snapshot began
};

} // namespace ingest

#endif
