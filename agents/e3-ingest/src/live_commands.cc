// SPDX-License-Identifier: Apache-2.0
//
// The live items' Redis commands (see live_commands.h), in the Redis protocol: arrays of bulk strings. take()
// sizes them first, so the commands are one allocation of the caller's string, without copies on growth.
#include "live_commands.h"

#include <charconv>

namespace ingest {
namespace {

constexpr char kBodyHead[] = "{\"type\": \"heartbeats\", \"heartbeats\": [";
constexpr char kBodyTail[] = "]}";
constexpr char kItemSeparator[] = ", ";
constexpr char kLatestKey[] = "e3:latest:"; // e3.live.channel.latest_key
constexpr char kHset[] = "$4\r\nHSET\r\n";
constexpr char kPublish[] = "*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n"; // e3.live.channel.LIVE_CHANNEL
constexpr size_t kBodyHeadSize = sizeof(kBodyHead) - 1;
constexpr size_t kBodyTailSize = sizeof(kBodyTail) - 1;
constexpr size_t kSeparatorSize = sizeof(kItemSeparator) - 1;
constexpr size_t kLatestKeySize = sizeof(kLatestKey) - 1;

size_t digits(size_t value) {
    size_t count = 1;
    while (value >= 10) {
        value /= 10;
        ++count;
    }
    return count;
}

// "<mark><value>\r\n"
void line(std::string *out, char mark, size_t value) {
    char text[24];
    text[0] = mark;
    const std::to_chars_result end = std::to_chars(text + 1, text + sizeof(text), value);
    out->append(text, static_cast<size_t>(end.ptr - text)).append("\r\n", 2);
}

size_t bulk_size(size_t size) { return 1 + digits(size) + 2 + size + 2; } // "$<size>\r\n<bytes>\r\n"

void bulk(std::string *out, const char *data, size_t size) {
    line(out, '$', size);
    out->append(data, size).append("\r\n", 2);
}

} // namespace

LiveCommands::LiveCommands(bool heard_apart) : heard_apart_(heard_apart) { body_.assign(kBodyHead, kBodyHeadSize); }

void LiveCommands::add(const std::string &cluster_id, const std::string &node_id, const std::string &json) {
    if (last_cluster_ == nullptr || *last_cluster_id_ != cluster_id) {
        const auto found = clusters_.try_emplace(cluster_id).first;
        last_cluster_id_ = &found->first;
        last_cluster_ = &found->second;
    }
    Cluster &cluster = *last_cluster_;
    if (cluster.round != round_) {
        cluster.round = round_;
        cluster.touched.clear();
        order_.emplace_back(last_cluster_id_, &cluster);
    }
    const auto found = cluster.nodes.try_emplace(node_id).first;
    Node &node = found->second;
    if (node.round != round_) {
        node.round = round_;
        cluster.touched.emplace_back(&found->first, &node);
    }
    if (heard_apart_ && node.heard_round != heard_round_) {
        node.heard_round = heard_round_;
        heard_.push_back(&found->first);
    }
    if (items_ > 0) body_.append(kItemSeparator, kSeparatorSize);
    node.at = body_.size();
    node.size = json.size();
    body_.append(json);
    ++items_;
}

size_t LiveCommands::commands_size() const {
    size_t size = 0;
    for (const auto &[cluster_id, cluster] : order_) {
        size += 1 + digits(2 + 2 * cluster->touched.size()) + 2 + sizeof(kHset) - 1 +
                bulk_size(kLatestKeySize + cluster_id->size());
        for (const auto &[node_id, node] : cluster->touched) size += bulk_size(node_id->size()) + bulk_size(node->size);
    }
    return size + sizeof(kPublish) - 1 + bulk_size(body_.size() + kBodyTailSize);
}

uint32_t LiveCommands::take(std::string *commands, google::protobuf::RepeatedPtrField<std::string> *heard) {
    if (items_ == 0) {
        start_over();
        return 0;
    }
    commands->reserve(commands->size() + commands_size());
    for (const auto &[cluster_id, cluster] : order_) {
        line(commands, '*', 2 + 2 * cluster->touched.size());
        commands->append(kHset, sizeof(kHset) - 1);
        line(commands, '$', kLatestKeySize + cluster_id->size());
        commands->append(kLatestKey, kLatestKeySize).append(*cluster_id).append("\r\n", 2);
        for (const auto &[node_id, node] : cluster->touched) {
            bulk(commands, node_id->data(), node_id->size());
            bulk(commands, body_.data() + node->at, node->size);
            if (heard != nullptr) heard->Add()->assign(*node_id);
        }
    }
    commands->append(kPublish, sizeof(kPublish) - 1);
    line(commands, '$', body_.size() + kBodyTailSize);
    commands->append(body_).append(kBodyTail, kBodyTailSize).append("\r\n", 2);
    const uint32_t replies = static_cast<uint32_t>(order_.size() + 1);
    start_over();
    return replies;
}

void LiveCommands::take_heard(google::protobuf::RepeatedPtrField<std::string> *heard) {
    for (const std::string *node_id : heard_) heard->Add()->assign(*node_id);
    heard_.clear();
    ++heard_round_;
    drop_forgotten();
}

bool LiveCommands::in_use(const Node &node) const {
    return node.round == round_ || (heard_apart_ && node.heard_round == heard_round_);
}

void LiveCommands::forget(const std::string &node_id) {
    for (auto &[cluster_id, cluster] : clusters_) {
        const auto found = cluster.nodes.find(node_id);
        if (found == cluster.nodes.end()) continue;
        if (!in_use(found->second)) {
            cluster.nodes.erase(found);
        } else if (!found->second.forgotten) { // in the commands (or heard list) being built: dropped after
            found->second.forgotten = true;
            forgotten_.push_back(node_id);
        }
    }
}

size_t LiveCommands::nodes() const {
    size_t count = 0;
    for (const auto &[cluster_id, cluster] : clusters_) count += cluster.nodes.size();
    return count;
}

void LiveCommands::start_over() {
    body_.resize(kBodyHeadSize); // keeps its capacity
    items_ = 0;
    ++round_; // every node and cluster is out of the round: their touched lists are cleared when next seen
    order_.clear();
    drop_forgotten();
}

void LiveCommands::drop_forgotten() {
    if (forgotten_.empty()) return;
    size_t kept = 0;
    for (size_t i = 0; i < forgotten_.size(); ++i) {
        const std::string &node_id = forgotten_[i];
        bool waits = false;
        for (auto &[cluster_id, cluster] : clusters_) {
            const auto found = cluster.nodes.find(node_id);
            if (found == cluster.nodes.end() || !found->second.forgotten) continue;
            if (in_use(found->second)) {
                waits = true;
            } else {
                cluster.nodes.erase(found);
            }
        }
        if (waits && kept++ != i) forgotten_[kept - 1] = std::move(forgotten_[i]);
    }
    forgotten_.resize(kept);
}

} // namespace ingest
