// SPDX-License-Identifier: Apache-2.0
//
// The live items' Redis commands (see live_commands.h), in the Redis protocol: arrays of bulk strings.
#include "live_commands.h"

#include <unordered_map>
#include <utility>
#include <vector>

namespace ingest {
namespace {

void bulk(std::string *out, const std::string &text) { // the items' JSON is ASCII: its size is its length
    out->append("$").append(std::to_string(text.size())).append("\r\n").append(text).append("\r\n");
}

struct Cluster {
    std::string id;
    std::vector<std::pair<const std::string *, const std::string *>> latest; // (node id, its latest item)
    std::unordered_map<std::string, size_t> slot;                           // node id -> its place in latest
};

} // namespace

void set_live_commands(e3::internal::v1::Delivery *delivery) {
    const int count = delivery->item_json_size();
    if (count == 0) return;
    std::vector<Cluster> clusters;
    std::unordered_map<std::string, size_t> by_id;
    for (int i = 0; i < count; ++i) {
        const std::string &cluster_id = delivery->item_cluster_ids(i), &node_id = delivery->item_node_ids(i);
        auto [at, added] = by_id.try_emplace(cluster_id, clusters.size());
        if (added) clusters.push_back(Cluster{cluster_id, {}, {}});
        Cluster &cluster = clusters[at->second];
        auto [node, fresh] = cluster.slot.try_emplace(node_id, cluster.latest.size());
        if (fresh)
            cluster.latest.emplace_back(&node_id, &delivery->item_json(i));
        else
            cluster.latest[node->second].second = &delivery->item_json(i);
    }
    std::string out;
    for (const Cluster &cluster : clusters) {
        out.append("*").append(std::to_string(2 + 2 * cluster.latest.size())).append("\r\n$4\r\nHSET\r\n");
        bulk(&out, "e3:latest:" + cluster.id);
        for (const auto &[node_id, item] : cluster.latest) {
            bulk(&out, *node_id);
            bulk(&out, *item);
        }
    }
    std::string body = "{\"type\": \"heartbeats\", \"heartbeats\": [";
    for (int i = 0; i < count; ++i) {
        if (i) body.append(", ");
        body.append(delivery->item_json(i));
    }
    body.append("]}");
    out.append("*3\r\n$7\r\nPUBLISH\r\n$7\r\ne3:live\r\n");
    bulk(&out, body);
    delivery->set_live_commands(std::move(out));
    delivery->set_live_replies(static_cast<uint32_t>(clusters.size() + 1));
}

} // namespace ingest
