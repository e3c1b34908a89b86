// SPDX-License-Identifier: Apache-2.0
//
// The Redis commands of a delivery's live items, as backend/e3/controller/live_publisher.py's _write makes them
// (byte for byte): per cluster, in the order its first item came, one `HSET e3:latest:<cluster>` with each of its
// nodes' latest item (nodes in the order their first item came), then one `PUBLISH e3:live` of
// `{"type": "heartbeats", "heartbeats": [<every item, in order>]}`. Made in the front so that the Python
// controller only writes them to its Redis connection (building them was a fifth of its time).
//
// Built as the items come: each item's JSON is appended to the PUBLISH body at once, and its node's latest item is
// where it lies in that body; take() writes the HSETs from there and the body after them. In the steady state an
// item allocates nothing: the body keeps its capacity between deliveries, and the clusters and nodes seen are kept
// (a node until forget()). Not thread-safe: the caller's lock guards it.
//
// Heard apart (when the front writes Redis itself, redis_link.h): the commands are taken by one reader (the Redis
// writer) and the nodes heard by another (each delivery), each at its own pace: take_heard() lists the nodes with
// an item since ITS previous call, whatever takes of the commands came between.
#ifndef E3_INGEST_LIVE_COMMANDS_H
#define E3_INGEST_LIVE_COMMANDS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

namespace ingest {

class LiveCommands {
public:
    // `heard_apart`: the nodes heard are taken by take_heard(), not by take().
    explicit LiveCommands(bool heard_apart = false);

    // An item (ASCII JSON: its size is its length) of node `node_id` in cluster `cluster_id`, after those added
    // since the previous take.
    void add(const std::string &cluster_id, const std::string &node_id, const std::string &json);
    size_t items() const { return items_; }

    // The commands of the items added since the previous take, appended to `commands` (nothing without items),
    // and `heard`, when given, extended with each of their nodes once; then starts over. Returns how many replies
    // Redis gives the commands (clusters + 1; 0 without items).
    // Heard apart, `heard` must be null.
    uint32_t take(std::string *commands, google::protobuf::RepeatedPtrField<std::string> *heard = nullptr);
    // Heard apart: `heard` extended with each node that had an item since the previous take_heard, once, in the
    // order of their first item; then starts over (the commands are not touched). Allocates nothing but the ids.
    void take_heard(google::protobuf::RepeatedPtrField<std::string> *heard);

    // Drops what is kept of the node (its node table removed it): now, or after the next take when it has an item
    // in the commands being built.
    void forget(const std::string &node_id);
    size_t nodes() const; // nodes kept (seen, not yet dropped)

private:
    struct Node {
        uint64_t round = 0;       // the take round of its latest item (current: it is in touched)
        uint64_t heard_round = 0; // heard apart: the take_heard round of its latest item (current: in heard_)
        size_t at = 0, size = 0;  // its latest item in body_
        bool forgotten = false;   // to drop after the take
    };
    struct Cluster {
        uint64_t round = 0; // the take round it was last in (current: it is in order_)
        std::unordered_map<std::string, Node> nodes;
        std::vector<std::pair<const std::string *, Node *>> touched; // nodes with items this round, first-seen order
    };

    size_t commands_size() const; // the bytes take() appends
    void start_over();
    bool in_use(const Node &node) const; // in the commands or the heard list being built
    void drop_forgotten();               // the forgotten nodes no longer in use

    std::string body_; // the PUBLISH body so far (its tail "]}" added at take)
    size_t items_ = 0;
    uint64_t round_ = 1;
    std::unordered_map<std::string, Cluster> clusters_;
    std::vector<std::pair<const std::string *, Cluster *>> order_; // clusters with items this round, first-seen
    const std::string *last_cluster_id_ = nullptr; // the previous item's cluster (a batch's items share theirs)
    Cluster *last_cluster_ = nullptr;
    std::vector<std::string> forgotten_; // nodes to drop after the take
    const bool heard_apart_;
    uint64_t heard_round_ = 1;
    std::vector<const std::string *> heard_; // heard apart: nodes with an item since take_heard, first-seen order
};

} // namespace ingest

#endif
