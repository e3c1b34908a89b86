// SPDX-License-Identifier: Apache-2.0
//
// The front's intake (see front_intake.h): HeartbeatIntake.accept's loop, step for step. Per heartbeat: its node
// (registered by this agent under this credential), the quick check, the lease epoch, the order, then the
// energy clock and the rollup step (in that order: the rollup takes the clock's interval and joules), the
// youngest age, and the live item, formatted as Python's f-strings format it (repr of floats and ints, the
// timestamp text of `_second` and `micros:06d`, the instance ids of json.dumps). The arithmetic is the
// reference's in its order (built with -ffp-contract=off, like rollup_steps.cc).
#include "front_intake.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "heartbeat_check.h"

namespace ingest {
namespace {

constexpr int64_t kNs = 1000000000;
constexpr int64_t kNoAge = int64_t(1) << 62; // heartbeat_intake._NO_AGE: no heartbeat accepted yet
constexpr const char *kSourceNames[] = {nullptr, "rapl", "ipmi", "model"}; // _SOURCE_NAMES, by PowerSource

void append_int(std::string &out, uint64_t v) {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr);
}

void append_float(std::string &out, double v) { append_python_float(out, v); }

int64_t floor_div(int64_t a, int64_t b) { // Python's // on ints (b > 0)
    const int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Python's str.replace(old, "") on `s`: every non-overlapping occurrence, left to right.
std::string without(std::string_view s, std::string_view old) {
    std::string out;
    size_t from = 0;
    for (size_t at; (at = s.find(old, from)) != std::string_view::npos; from = at + old.size())
        out.append(s.substr(from, at - from));
    out.append(s.substr(from));
    return out;
}

bool python_space(char c) { // the ASCII whitespace int() strips (Py_ISSPACE; not str.isspace()'s \x1c-\x1f)
    return c == ' ' || (c >= '\t' && c <= '\r');
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Decodes one UTF-8 sequence at s[i]; returns the code point and sets `len`, or -1 (len 1) when it is not one.
long utf8_at(std::string_view s, size_t i, size_t &len) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    len = 1;
    if (c < 0x80) return c;
    size_t n = 0;
    long cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
    else return -1;
    if (i + n > s.size()) return -1;
    for (size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    len = n;
    return cp;
}

void append_u(std::string &out, unsigned v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", v & 0xFFFF);
    out += buf;
}

} // namespace

// ---- texts --------------------------------------------------------------------------------------------

std::string stale_epoch(uint64_t sent, uint64_t held) {
    return "stale lease epoch: " + std::to_string(sent) + ", the node's lease is at epoch " + std::to_string(held) +
           " (register again)";
}

std::string out_of_order(int64_t behind_ns) {
    // f"{behind_ns / 1e6:.3f}": the int made a double (rounded to nearest), divided, then printed correctly
    // rounded (glibc's printf and Python's dtoa both round the exact binary value, ties to even).
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(behind_ns) / 1e6);
    return std::string("out of order: timestamp ") + buf + " ms at or before the node's latest accepted heartbeat";
}

std::string json_string(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (size_t i = 0; i < text.size();) {
        size_t len = 1;
        const long cp = utf8_at(text, i, len);
        i += len;
        switch (cp) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        default: break;
        }
        if (cp >= 0x20 && cp <= 0x7E) {
            out += static_cast<char>(cp);
        } else if (cp < 0) {
            append_u(out, 0xFFFD);
        } else if (cp >= 0x10000) { // a surrogate pair, as json's ascii_escape_unichar writes it
            const long v = cp - 0x10000;
            append_u(out, static_cast<unsigned>(0xD800 | ((v >> 10) & 0x3FF)));
            append_u(out, static_cast<unsigned>(0xDC00 | (v & 0x3FF)));
        } else {
            append_u(out, static_cast<unsigned>(cp));
        }
    }
    out += '"';
    return out;
}

std::optional<std::string> FrontIntake::canonical_uuid(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
    // uuid.UUID(hex): hex.replace('urn:', '').replace('uuid:', ''), .strip('{}'), .replace('-', ''), 32 long
    std::string hex = without(without(text, "urn:"), "uuid:");
    const size_t first = hex.find_first_not_of("{}");
    if (first == std::string::npos) return std::nullopt;
    hex = without(std::string_view(hex).substr(first, hex.find_last_not_of("{}") + 1 - first), "-");
    if (hex.size() != 32) return std::nullopt;
    // int(hex, 16): surrounding whitespace, a sign, "0x", digits with single underscores between them
    size_t at = 0, end = hex.size();
    while (at < end && python_space(hex[at])) ++at;
    while (end > at && python_space(hex[end - 1])) --end;
    bool negative = false;
    if (at < end && (hex[at] == '+' || hex[at] == '-')) negative = hex[at++] == '-';
    if (end - at >= 2 && hex[at] == '0' && (hex[at + 1] == 'x' || hex[at + 1] == 'X')) {
        at += 2;
        if (at < end && hex[at] == '_') ++at; // int() allows one after the prefix
    }
    uint64_t hi = 0, lo = 0;
    int digits = 0;
    bool after_underscore = false;
    for (; at < end; ++at) {
        if (hex[at] == '_') {
            if (digits == 0 || after_underscore) return std::nullopt;
            after_underscore = true;
            continue;
        }
        const int d = hex_digit(hex[at]);
        if (d < 0) return std::nullopt;
        after_underscore = false;
        if (hi >> 60) return std::nullopt; // beyond 128 bits (cannot happen in 32 characters; kept for safety)
        hi = (hi << 4) | (lo >> 60);
        lo = (lo << 4) | static_cast<uint64_t>(d);
        ++digits;
    }
    if (digits == 0 || after_underscore) return std::nullopt;
    if (negative && (hi | lo) != 0) return std::nullopt; // UUID: int is out of range
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(hi >> 32),
                  static_cast<unsigned long long>((hi >> 16) & 0xFFFF), static_cast<unsigned long long>(hi & 0xFFFF),
                  static_cast<unsigned long long>(lo >> 48),
                  static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
    return std::string(buf);
}

// ---- the node table -----------------------------------------------------------------------------------

// A node's accounts, made on its first binding and kept for good (EnergyLedger.account, RollupSteps.node).
struct FrontIntake::NodeState {
    explicit NodeState(double max_interval_s) : clock(max_interval_s) {}
    EnergyClock clock;
    NodeSteps *steps = nullptr;
};

// A node of the table: its entry, its constant encodings and its latest accepted timestamp (TrackedNode's).
struct FrontIntake::Slot {
    NodeEntry entry;
    bool smartnic = false;
    std::string live_prefix, live_suffix; // _Node's: {"node_id": "<id>", "ts": "  and  , "cluster_id": "<id>"}
    int64_t latest_ts_ns = 0;
    // Whether this entry was bound to its accounts (RollupSteps::node with its cluster id) since it was set: the
    // Python intake makes a _Node, hence calls rollups.node(), when a heartbeat first names a node's current
    // TrackedNode, whoever sent it; a new registration is a new TrackedNode.
    bool bound = false;
    NodeState *state = nullptr;
};

FrontIntake::FrontIntake(double max_interval_s, int64_t step_s)
    : rollups_(step_s), max_interval_s_(max_interval_s), freshest_age_ns_(kNoAge) {
    if (!(max_interval_s > 0)) throw std::invalid_argument("max_interval_s must be > 0"); // as EnergyClock's
}

FrontIntake::~FrontIntake() = default;

void FrontIntake::upsert_node(const NodeEntry &entry) {
    std::unique_ptr<Slot> &slot = table_[entry.node_id];
    int64_t latest = 0;
    if (slot == nullptr) {
        slot = std::make_unique<Slot>();
    } else if (slot->entry.agent_id == entry.agent_id && slot->entry.token_id == entry.token_id) {
        latest = slot->latest_ts_ns;
    }
    slot->entry = entry;
    slot->smartnic = entry.kind == kSmartnic;
    slot->live_prefix = "{\"node_id\": \"" + entry.node_id + "\", \"ts\": \"";
    slot->live_suffix = ", \"cluster_id\": \"" + entry.cluster_id + "\"}";
    slot->latest_ts_ns = latest;
    slot->bound = false;
    slot->state = nullptr;
}

bool FrontIntake::remove_node(const std::string &node_id) { return table_.erase(node_id) > 0; }

bool FrontIntake::set_power_override(const std::string &node_id, std::optional<PowerOverride> power) {
    const auto found = table_.find(node_id);
    if (found == table_.end()) return false;
    found->second->entry.power_override = std::move(power);
    return true;
}

// HeartbeatIntake._node: the node `text` names, bound to its accounts, when `agent_id` runs it under `token_id`.
FrontIntake::Slot *FrontIntake::lookup(const std::string &agent_id, const std::string &token_id,
                                       const std::string &text) {
    auto found = table_.find(text);
    if (found == table_.end()) {
        const std::optional<std::string> canonical = canonical_uuid(text);
        if (!canonical) return nullptr;
        found = table_.find(*canonical);
        if (found == table_.end()) return nullptr;
    }
    Slot *slot = found->second.get();
    if (!slot->bound) {
        std::unique_ptr<NodeState> &state = states_[slot->entry.node_id];
        if (state == nullptr) state = std::make_unique<NodeState>(max_interval_s_);
        state->steps = &rollups_.node(slot->entry.node_id, slot->entry.cluster_id);
        slot->state = state.get();
        slot->bound = true;
    }
    return slot->entry.agent_id == agent_id && slot->entry.token_id == token_id ? slot : nullptr;
}

// ---- accept -------------------------------------------------------------------------------------------

AcceptResult FrontIntake::accept(const std::string &agent_id, const std::string &token_id,
                                 const HeartbeatBatch &batch, int64_t wall_ns, double now) {
    return accept(agent_id, token_id, batch.heartbeats(), wall_ns, now);
}

AcceptResult FrontIntake::accept(const std::string &agent_id, const std::string &token_id,
                                 const Heartbeats &heartbeats, int64_t wall_ns, double now) {
    std::vector<std::pair<int, const Heartbeat *>> all;
    all.reserve(static_cast<size_t>(heartbeats.size()));
    for (int i = 0; i < heartbeats.size(); ++i) all.emplace_back(i, &heartbeats.Get(i));
    return run(agent_id, token_id, all, false, wall_ns, now);
}

AcceptResult FrontIntake::accept(const std::string &agent_id, const std::string &token_id,
                                 const std::vector<Heartbeat> &heartbeats, int64_t wall_ns, double now) {
    std::vector<std::pair<int, const Heartbeat *>> all;
    all.reserve(heartbeats.size());
    for (size_t i = 0; i < heartbeats.size(); ++i) all.emplace_back(static_cast<int>(i), &heartbeats[i]);
    return run(agent_id, token_id, all, false, wall_ns, now);
}

AcceptResult FrontIntake::accept_judged(const std::string &agent_id, const std::string &token_id,
                                        const Heartbeats &heartbeats, const std::vector<int> &indexes,
                                        int64_t wall_ns, double now) {
    std::vector<std::pair<int, const Heartbeat *>> some;
    some.reserve(indexes.size());
    for (const int i : indexes)
        if (i >= 0 && i < heartbeats.size()) some.emplace_back(i, &heartbeats.Get(i));
    return run(agent_id, token_id, some, true, wall_ns, now);
}

AcceptResult FrontIntake::run(const std::string &agent_id, const std::string &token_id,
                              const std::vector<std::pair<int, const Heartbeat *>> &heartbeats, bool judged,
                              int64_t wall_ns, double now) {
    AcceptResult out;
    std::vector<const Slot *> doubted_nodes; // nodes with a doubted heartbeat in this call (few: a linear search)
    int64_t freshest = freshest_age_ns_;
    int64_t last_second = std::numeric_limits<int64_t>::min();
    std::string second_text;
    for (const auto &[index, hb_ptr] : heartbeats) {
        const Heartbeat &hb = *hb_ptr;
        Slot *slot = lookup(agent_id, token_id, hb.node_id());
        if (slot == nullptr) {
            out.rejections.push_back(Rejection{index, hb.node_id(), kNotRegistered});
            continue;
        }
        if (!judged) {
            const bool held_back =
                std::find(doubted_nodes.begin(), doubted_nodes.end(), slot) != doubted_nodes.end();
            if (!heartbeat_quick_ok(hb, wall_ns)) {
                out.doubted.push_back(index);
                if (!held_back) doubted_nodes.push_back(slot);
                continue;
            }
            if (held_back) {
                out.deferred.push_back(index);
                continue;
            }
        }
        const uint64_t held_epoch = slot->entry.lease_epoch, sent_epoch = hb.lease_epoch();
        if (held_epoch != 0 && 0 < sent_epoch && sent_epoch < held_epoch) { // sent before the node moved here
            out.rejections.push_back(Rejection{index, hb.node_id(), stale_epoch(sent_epoch, held_epoch)});
            continue;
        }
        const int64_t ts = hb.timestamp_unix_ns();
        if (ts <= slot->latest_ts_ns) { // a replay, or the agent's clock stepped back: counted already
            out.rejections.push_back(Rejection{index, hb.node_id(), out_of_order(slot->latest_ts_ns - ts)});
            continue;
        }
        slot->latest_ts_ns = ts;
        // The controller's own measurement, while fresh (Python: dropped when valid_until <= now).
        const PowerOverride *power = slot->entry.power_override ? &*slot->entry.power_override : nullptr;
        if (power != nullptr && power->valid_until <= now) power = nullptr;
        const int source_value = hb.power_source();
        const double watts = power != nullptr ? power->watts : hb.power_watts();
        const std::string source = power != nullptr ? power->source
                                   : (source_value >= 1 && source_value <= 3) ? kSourceNames[source_value]
                                                                               : "";
        used_.resize(static_cast<size_t>(hb.instances_size()));
        for (int k = 0; k < hb.instances_size(); ++k) {
            const auto &inst = hb.instances(k);
            InstanceFigures &u = used_[static_cast<size_t>(k)];
            u.instance_id.assign(inst.instance_id());
            u.requests = static_cast<int64_t>(inst.requests_completed());
            u.cpu_share = inst.cpu_share();
            u.exec_us = inst.exec_time_us();
            u.lat_n = static_cast<int64_t>(inst.latency_count());
            u.lat_avg_us = inst.latency_avg_us();
            u.lat_p99_us = inst.latency_p99_us();
        }
        const double t = seconds_from_ns(ts);
        EnergyClock &clock = slot->state->clock;
        const double joules = clock.add(t, watts);
        slot->state->steps->add(t, clock.interval(), joules, source, watts, hb.queue_length(), hb.cpu_utilization(),
                                static_cast<int64_t>(hb.rx_bytes()), static_cast<int64_t>(hb.tx_bytes()),
                                static_cast<int64_t>(hb.rx_packets()), static_cast<int64_t>(hb.tx_packets()), used_);
        if (wall_ns - ts < freshest) freshest = wall_ns - ts;

        // The live item: f'{live_prefix}{second_text}.{micros:06d}+00:00", <node fields>, "instances": [...]
        // {live_suffix}'; second_text is datetime.fromtimestamp(second, utc).strftime("%Y-%m-%dT%H:%M:%S").
        const int64_t micros_total = floor_div(ts, 1000);
        const int64_t second = floor_div(micros_total, 1000000), micros = micros_total - second * 1000000;
        if (second != last_second) {
            last_second = second;
            second_text = iso_utc(second);
            second_text.resize(second_text.size() - 6); // without "+00:00"
        }
        std::string item;
        if (!spare_.empty()) { // a buffer the raw tail let go of: its storage, no allocation
            item.swap(spare_.back());
            spare_.pop_back();
            item.clear();
        }
        item.reserve(320 + 280 * static_cast<size_t>(hb.instances_size()));
        item += slot->live_prefix;
        item += second_text;
        char micros_text[32];
        std::snprintf(micros_text, sizeof micros_text, ".%06lld+00:00\"", static_cast<long long>(micros));
        item += micros_text;
        item += ", \"queue_len\": ";
        append_int(item, hb.queue_length());
        item += ", \"rx_bytes\": ";
        append_int(item, hb.rx_bytes());
        item += ", \"tx_bytes\": ";
        append_int(item, hb.tx_bytes());
        item += ", \"rx_packets\": ";
        append_int(item, hb.rx_packets());
        item += ", \"tx_packets\": ";
        append_int(item, hb.tx_packets());
        item += ", \"cpu_util\": ";
        append_float(item, hb.cpu_utilization());
        item += ", \"power_watts\": ";
        append_float(item, watts);
        item += ", \"power_source\": \"";
        item += source;
        item += "\", \"instances\": [";
        for (int k = 0; k < hb.instances_size(); ++k) {
            const auto &inst = hb.instances(k);
            if (k > 0) item += ", ";
            item += "{\"id\": ";
            item += json_string(inst.instance_id());
            item += ", \"requests\": ";
            append_int(item, inst.requests_completed());
            item += ", \"exec_us\": ";
            append_float(item, inst.exec_time_us());
            item += ", \"exec_ema_us\": ";
            append_float(item, inst.exec_time_ema_us());
            item += ", \"cpu_share\": ";
            append_float(item, inst.cpu_share());
            item += ", \"lat_n\": ";
            append_int(item, inst.latency_count());
            item += ", \"lat_avg_us\": ";
            append_float(item, inst.latency_avg_us());
            item += ", \"lat_p99_us\": ";
            append_float(item, inst.latency_p99_us());
            item += '}';
        }
        item += ']';
        item += slot->live_suffix;
        out.items.push_back(AcceptedHeartbeat{index, slot->entry.cluster_id, slot->entry.node_id, std::move(item)});

        if (slot->smartnic) {
            DetectionSample sample{index,          slot->entry.node_id, static_cast<double>(ts) / 1e9,
                                   hb.queue_length(), hb.rx_bytes(),       hb.tx_bytes(),
                                   {}};
            sample.bandwidth_mbps = slot->entry.bandwidth_mbps;
            sample.instances.reserve(static_cast<size_t>(hb.instances_size()));
            for (const auto &inst : hb.instances())
                sample.instances.push_back(InstanceSample{inst.instance_id(), inst.exec_time_us(),
                                                          inst.exec_time_ema_us(), inst.cpu_share(),
                                                          inst.requests_completed()});
            out.samples.push_back(std::move(sample));
        }
    }
    freshest_age_ns_ = freshest;
    out.accepted = static_cast<int64_t>(out.items.size());
    return out;
}

// ---- takes --------------------------------------------------------------------------------------------

RollupTake FrontIntake::take_rollups() {
    RollupTake out;
    out.rows = rollups_.take();
    out.node_lines.reserve(out.rows.nodes.size());
    for (const NodeRollup &r : out.rows.nodes) out.node_lines.push_back(node_copy_line(r));
    out.instance_lines.reserve(out.rows.instances.size());
    for (const InstanceRollup &r : out.rows.instances) out.instance_lines.push_back(instance_copy_line(r));
    return out;
}

std::optional<double> FrontIntake::take_backlog_s() {
    const int64_t age = freshest_age_ns_;
    freshest_age_ns_ = kNoAge;
    if (age == kNoAge) return std::nullopt;
    return seconds_from_ns(std::max<int64_t>(age, 0)); // max(age, 0) / _NS: int / int, one rounding
}

} // namespace ingest
