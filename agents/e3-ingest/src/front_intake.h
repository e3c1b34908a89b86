// SPDX-License-Identifier: Apache-2.0
//
// The front's heartbeat intake (docs/controller-scale-out.md, sections 1-2, step 6 of section 10): what
// backend/e3/controller/heartbeat_intake.py's HeartbeatIntake.accept does with an energy ledger and rollups (and
// no raw tail), in C++, composed of the tested units beside it: the quick check (heartbeat_check.h), the energy
// interval and the rollup steps (rollup_steps.h). For the same node table and batches it gives what Python
// gives: the accepted heartbeats with their live JSON items byte for byte, the rejections with Python's reasons
// to the character, the same rollup rows (COPY lines) and backlog (tests/test_front_intake.cc replays
// tests/golden/intake.json, made by `python -m e3.controller.intake_golden` from the real intake).
//
// What it leaves to Python: a heartbeat the quick check doubts is neither accepted nor counted here. accept()
// returns it in `doubted`, with the later heartbeats of the same node in the batch in `deferred` (held back, so
// that the node's heartbeats are still taken in their order: the latest timestamp, energy clock and counters
// depend on it). Python's agents.heartbeat_problem names the reason of each doubted one; the caller then passes
// those it found no problem with, together with the deferred ones, to accept_judged(), which takes them as
// Python's accept would have after its own doubt (lease epoch, order, counting), in index order. Python may
// accept a heartbeat this check doubts: one within 1 ms of a timestamp bound, or with a non-ASCII instance id.
// A batch's accept_judged() must come before the next batch naming its nodes.
//
// Single-threaded, like the Python intake: one owner calls it.
#ifndef E3_INGEST_FRONT_INTAKE_H
#define E3_INGEST_FRONT_INTAKE_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "e3/agent/v1/agent.pb.h"
#include "rollup_steps.h"

namespace ingest {

// heartbeat_intake's reasons (NOT_REGISTERED; stale_epoch() and out_of_order() format the others).
inline constexpr const char kNotRegistered[] = "node not registered by this agent";
inline constexpr const char kSmartnic[] = "smartnic"; // NodeEntry::kind of a SmartNIC (else "host")

// A figure the controller measured for the node (TrackedNode.power_override: its share of the server's IPMI
// reading) that replaces the agent's power while valid_until (the caller's monotonic clock, seconds) > now.
struct PowerOverride {
    double watts = 0.0;
    std::string source; // written as is into the live item (as Python does): a plain name, "ipmi-split"
    double valid_until = 0.0;
};

// One node as the hub tracks it (TrackedNode's fields the intake reads).
struct NodeEntry {
    std::string node_id;    // the canonical UUID text (str(uuid.UUID)), as RegisterResponse.node_id gives it
    std::string cluster_id; // its cluster's UUID text
    std::string agent_id;   // the agent that registered it
    std::string token_id;   // the credential that registered it; empty: none
    std::string kind;       // "host" | "smartnic"
    uint64_t lease_epoch = 0; // the node's lease epoch this controller holds; 0: none
    std::optional<PowerOverride> power_override;
    double bandwidth_mbps = 0.0; // its link rate per direction (the starvation detector's "under-utilised")
};

// An accepted heartbeat: its index in the batch, its node and its live item (Encoded's nodes / live_items).
struct AcceptedHeartbeat {
    int index;
    std::string cluster_id, node_id;
    std::string live; // the JSON object of `e3:live` and `e3:latest` (ASCII: its size is its length in bytes)
};

// A refused heartbeat: its index, its node_id as sent, and Python's reason.
struct Rejection {
    int index;
    std::string node_id;
    std::string reason;
};

// What SmartNIC detection reads of an accepted heartbeat (controller.orchestrator's NodeSample).
struct InstanceSample {
    std::string instance_id;
    double exec_time_us, exec_time_ema_us, cpu_share;
    uint64_t requests_completed;
};
struct DetectionSample {
    int index;
    std::string node_id; // canonical
    double t;            // timestamp_unix_ns / 1e9, as controller.orchestrator divides (a double division)
    uint64_t queue_length, rx_bytes, tx_bytes;
    std::vector<InstanceSample> instances;
    double bandwidth_mbps = 0.0; // its node's (NodeEntry::bandwidth_mbps)
};

// One call's outcome. `items` and `samples` in index order; every heartbeat of the call is in exactly one of
// items, rejections, doubted and deferred.
struct AcceptResult {
    int64_t accepted = 0;
    std::vector<AcceptedHeartbeat> items;
    std::vector<Rejection> rejections;
    std::vector<int> doubted;  // failed the quick check: for heartbeat_problem (Python) to judge
    std::vector<int> deferred; // passed it, but follow a doubted heartbeat of their node in the batch
    std::vector<DetectionSample> samples; // of the accepted heartbeats of SmartNIC nodes
};

// A take of the rollups: RollupSteps::take's rows and each one's COPY line.
struct RollupTake {
    Rollups rows;
    std::vector<std::string> node_lines, instance_lines;
};

class FrontIntake {
public:
    using Heartbeat = e3::agent::v1::Heartbeat;
    using HeartbeatBatch = e3::agent::v1::HeartbeatBatch;
    using Heartbeats = google::protobuf::RepeatedPtrField<Heartbeat>;

    explicit FrontIntake(double max_interval_s = kMaxIntervalS, int64_t step_s = kRollupStepS);
    ~FrontIntake();
    FrontIntake(const FrontIntake &) = delete;
    FrontIntake &operator=(const FrontIntake &) = delete;

    // Adds or replaces a node (a registration, or a change made in place: lease epoch, power override). Its
    // energy clock and rollup steps are kept, as the ledger and rollups keep them across registrations; its
    // latest accepted timestamp too when the same agent under the same credential holds it, else it starts
    // again from none (AgentHub.register: `latest_ts_ns=held.latest_ts_ns if same_agent else 0`).
    void upsert_node(const NodeEntry &entry);
    // Forgets a node (AgentHub drops it): its heartbeats are refused until it is added again, with no latest
    // timestamp; its energy clock and rollup steps stay. False when it was not there.
    bool remove_node(const std::string &node_id);
    // Sets or clears a node's power override alone (power_readings, in place). False when it is not there.
    bool set_power_override(const std::string &node_id, std::optional<PowerOverride> power);

    // A batch from `agent_id` under credential `token_id` ("" for none), at wall clock `wall_ns` (ns since the
    // epoch) and monotonic `now` (seconds, the clock of PowerOverride::valid_until).
    AcceptResult accept(const std::string &agent_id, const std::string &token_id, const HeartbeatBatch &batch,
                        int64_t wall_ns, double now);
    AcceptResult accept(const std::string &agent_id, const std::string &token_id, const Heartbeats &heartbeats,
                        int64_t wall_ns, double now);
    AcceptResult accept(const std::string &agent_id, const std::string &token_id,
                        const std::vector<Heartbeat> &heartbeats, int64_t wall_ns, double now);
    // The heartbeats of the same batch at `indexes` (ascending; each doubted and found without a problem by
    // heartbeat_problem, or deferred), taken without the quick check, with the batch's wall_ns and now.
    // Results carry the batch's indexes; none of them is doubted or deferred.
    AcceptResult accept_judged(const std::string &agent_id, const std::string &token_id, const Heartbeats &heartbeats,
                               const std::vector<int> &indexes, int64_t wall_ns, double now);

    // Every node's rollup deltas since the last take, with their COPY lines (RollupSteps::take).
    RollupTake take_rollups();
    // The rows only (no COPY lines), of the steps ended by `ended_by` (RollupSteps::take): what a delivery carries.
    Rollups take_rollup_rows(double ended_by) { return rollups_.take(ended_by); }
    int64_t untaken_rows() const { return rollups_.untaken_rows(); }

    // A live item's text the caller is done with (the raw tail let it go): its storage is the next item's. Each
    // item otherwise cost an allocation here and a free on another thread, a tenth of the front's time at 85,000
    // heartbeats/s (perf: malloc growing and trimming the threads' heaps).
    void recycle(std::string &&text) {
        if (text.capacity() >= kMinSpareBytes && spare_.size() < kMaxSpare) spare_.push_back(std::move(text));
    }

    // The age (wall clock - timestamp) of the youngest heartbeat accepted since the last call, in seconds, at
    // least 0; none when none was (HeartbeatIntake.take_backlog_s).
    std::optional<double> take_backlog_s();

    // The canonical text of a node id as uuid.UUID(text) reads it (braces, "urn:uuid:", hyphens, case,
    // int(..., 16)'s sign, "0x" prefix, underscores and surrounding whitespace), or none. Only ASCII is read: a
    // text with any other character is none here (int() would also take Unicode digits and spaces).
    static std::optional<std::string> canonical_uuid(std::string_view text);

private:
    static constexpr size_t kMaxSpare = 4096;     // texts kept for reuse
    static constexpr size_t kMinSpareBytes = 256; // smaller (a moved-from text's inline buffer): not worth keeping
    std::vector<std::string> spare_;
    struct NodeState; // per node id, for good: energy clock, rollup steps
    struct Slot;      // per node in the table

    AcceptResult run(const std::string &agent_id, const std::string &token_id,
                     const std::vector<std::pair<int, const Heartbeat *>> &heartbeats, bool judged, int64_t wall_ns,
                     double now);
    Slot *lookup(const std::string &agent_id, const std::string &token_id, const std::string &text);

    RollupSteps rollups_;
    double max_interval_s_;
    std::unordered_map<std::string, std::unique_ptr<NodeState>> states_;
    std::unordered_map<std::string, std::unique_ptr<Slot>> table_; // by canonical node id
    int64_t freshest_age_ns_;
    std::vector<InstanceFigures> used_; // a heartbeat's instances for the rollups (kept: its strings' capacity)
};

// heartbeat_intake.stale_epoch / out_of_order, to the character.
std::string stale_epoch(uint64_t sent, uint64_t held);
std::string out_of_order(int64_t behind_ns);
// json.dumps(text) (ensure_ascii): `text` as UTF-8; a byte that is not part of valid UTF-8 is written as
// \ufffd (Python's strings never hold one; protobuf's parser refuses them in proto3 strings).
std::string json_string(std::string_view text);

} // namespace ingest

#endif
