/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chan: the communication subsystem's channel abstraction (paper §3.1). A channel carries
 * requests for one destination node and brings the replies back; callers see only `chan_ops`
 * {send, close}. Two implementations:
 *   - local: straight into this node's engine inboxes (co-located instances);
 *   - UDP: non-blocking datagrams to a remote node (the paper's prototype uses UDP for all
 *     network communication). A `chan_udp_node` owns one socket and a receive thread: requests
 *     that arrive are handed to a delivery callback (normally the local engine) and the reply is
 *     sent back to the source address; replies that arrive complete the sender's callback.
 *
 * Framing: e3frame.h (shared with the load generator), CHAN_HDR_LEN bytes, then the payload:
 *   u32 magic "E3C1" | u8 type (1 request, 2 reply, 3 replicate) | u8 status (0 ok, 1 error) |
 *   u16 zero | u32 instance id | u64 request id                          (network byte order)
 * A replicate frame (replica.h: a primary's state changes for a backup) is answered like a
 * request, by a reply frame; a node hands it to its replicate callback, not to `deliver`.
 *
 * Transports: a UDP node normally owns a kernel socket and a receive thread. A node made with
 * chan_udp_node_new_io owns neither: it sends through a caller's `chan_io` (e.g. a DPDK stack,
 * libe3dp) and the caller feeds it the datagrams for its port (chan_udp_node_input) and calls
 * chan_udp_node_sweep every few milliseconds for the timeouts. `chan_net` picks the transport
 * for code that creates nodes (commands, pipeline): chan_net_kernel() or a stack's own.
 *
 * Timeouts: by default a lost datagram leaves its callback pending until the node is freed
 * (which fails it); chan_udp_node_set_timeout makes the node fail requests that got no reply
 * in time. Not done: retransmission, fragmentation (a payload is at most CHAN_MAX_PAYLOAD bytes).
 */
#ifndef E3AGENT_CHAN_H
#define E3AGENT_CHAN_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "e3frame.h"
#include "engine.h"

#define CHAN_OK 0
#define CHAN_ERR -1
#define CHAN_ERRBUF_LEN 256                    /* size of the error buffers callers pass */
#define CHAN_HDR_LEN E3FRAME_HDR_LEN         /* bytes of framing header (20) */
#define CHAN_MAX_PAYLOAD E3FRAME_MAX_PAYLOAD /* bytes per UDP datagram payload (65507 - 20) */

/* Reply to one request sent on a channel, called exactly once (on an engine worker or the UDP
 * receive thread). `status` CHAN_OK with the response, or CHAN_ERR with an error text. */
typedef void (*chan_reply_fn)(void *ctx, int status, const uint8_t *resp, size_t len);

/* Where a UDP node hands requests that arrive: same contract as eng_submit (on success `reply`
 * is called exactly once later; on failure never). */
typedef int (*chan_deliver_fn)(void *sink, uint32_t instance_id, const uint8_t *req, size_t len,
                               chan_reply_fn reply, void *reply_ctx, char *err);

typedef struct chan chan;

/* The channel vtable. */
typedef struct chan_ops {
    /* Send `len` bytes to instance `instance_id` at the channel's destination; on CHAN_OK
     * `reply` will be called exactly once, on CHAN_ERR never. */
    int (*send)(chan *c, uint32_t instance_id, const uint8_t *req, size_t len, chan_reply_fn reply,
                void *ctx, char *err);
    /* Free the channel. Requests already sent still get their reply. */
    void (*close)(chan *c);
} chan_ops;

/* Every implementation starts with this header. */
struct chan {
    const chan_ops *ops; /* the implementation */
};

/* Traffic counters of a UDP node (for heartbeats). */
typedef struct chan_counters {
    uint64_t rx_bytes;   /* bytes received, headers included */
    uint64_t rx_packets; /* datagrams received */
    uint64_t tx_bytes;   /* bytes sent, headers included */
    uint64_t tx_packets; /* datagrams sent */
    uint64_t dropped;    /* datagrams malformed, unmatched, or not sent (socket full) */
} chan_counters;

typedef struct chan_udp_node chan_udp_node; /* opaque: one socket + receive thread */

/* Write a formatted reason into `err` (CHAN_ERRBUF_LEN bytes, may be NULL); returns CHAN_ERR. */
int chan_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* c->ops->send(...) */
int chan_send(chan *c, uint32_t instance_id, const uint8_t *req, size_t len, chan_reply_fn reply,
              void *ctx, char *err);
/* c->ops->close(c); NULL is fine. */
void chan_close(chan *c);

/* A delivery callback that submits into the engine `sink` (an eng *): use with chan_udp_node_new. */
int chan_eng_deliver(void *sink, uint32_t instance_id, const uint8_t *req, size_t len,
                     chan_reply_fn reply, void *reply_ctx, char *err);

/* A channel to the co-located instances of engine `e` (which must outlive it). */
chan *chan_local_new(eng *e, char *err);

/* Bind a UDP socket on `bind_ip`:`port` (port 0: any free port) and start its receive thread;
 * requests that arrive go to `deliver(sink, ...)` (NULL: requests are answered with an error).
 * Returns NULL with `err` filled on failure. */
chan_udp_node *chan_udp_node_new(const char *bind_ip, uint16_t port, chan_deliver_fn deliver,
                                 void *sink, char *err);

/* Where the node hands replicate frames (type 3): same contract as `deliver`. Until set (or
 * with NULL) they are answered with an error. Node free waits for their replies too. Any
 * thread. */
void chan_udp_node_set_replicate(chan_udp_node *n, chan_deliver_fn deliver, void *sink);

/* Fail (callback with CHAN_ERR "chan: no reply within <ms> ms") every request sent from this
 * node that got no reply within `timeout_ms` (0: wait forever, the default). Checked by the
 * receive thread a few times per timeout period, so a request may live up to ~1.25x longer.
 * A reply arriving after that is dropped. Any thread. */
void chan_udp_node_set_timeout(chan_udp_node *n, uint32_t timeout_ms);

/* The bound port, host byte order. */
uint16_t chan_udp_node_port(const chan_udp_node *n);

/* A snapshot of the node's traffic counters. Any thread. */
void chan_udp_node_counters(chan_udp_node *n, chan_counters *out);

/* Stop the receive thread, wait until every request delivered to the sink has been replied
 * (so free the node BEFORE the engine it delivers into), fail every request still awaiting a
 * remote reply (callback with CHAN_ERR), close the socket. Channels opened on it must be
 * closed first. NULL is fine. */
void chan_udp_node_free(chan_udp_node *n);

/* ---- other transports ---------------------------------------------------------------------- */

/* How a node made with chan_udp_node_new_io sends: one datagram of `hdr_len` + `len` bytes from
 * the node's port `src_port` (host order) to `to`. CHAN_OK, or CHAN_ERR if it could not be queued
 * (counted as dropped by the node). Called from any thread, concurrently. */
typedef struct chan_io {
    int (*xmit)(void *io_ctx, uint16_t src_port, const struct sockaddr_in *to, const uint8_t *hdr,
                size_t hdr_len, const uint8_t *payload, size_t len);
} chan_io;

/* A UDP node on port `port` (non-zero) that sends through `io` and receives what the caller
 * passes to chan_udp_node_input. No socket, no thread. Free it with chan_udp_node_free once the
 * caller no longer feeds it. */
chan_udp_node *chan_udp_node_new_io(const chan_io *io, void *io_ctx, uint16_t port, chan_deliver_fn deliver,
                                    void *sink, char *err);

/* Hand a datagram (frame header + payload, `len` bytes) from `src` to an io node, as its receive
 * thread would. One caller at a time per node. */
void chan_udp_node_input(chan_udp_node *n, const uint8_t *buf, size_t len, const struct sockaddr_in *src);

/* Fail the io node's requests older than its timeout (chan_udp_node_set_timeout); no-op without
 * one. Call every few milliseconds, from the thread that calls chan_udp_node_input. */
void chan_udp_node_sweep(chan_udp_node *n);

/* Where code that creates nodes gets them: kernel sockets, or a packet stack of its own. */
typedef struct chan_net chan_net;
struct chan_net {
    /* A node bound on `bind_ip`:`port` (port 0: any free port); as chan_udp_node_new. */
    chan_udp_node *(*node_new)(chan_net *net, const char *bind_ip, uint16_t port, chan_deliver_fn deliver,
                               void *sink, char *err);
    /* Stop feeding the node, then chan_udp_node_free it. */
    void (*node_free)(chan_net *net, chan_udp_node *n);
};

/* The kernel's sockets: chan_udp_node_new / chan_udp_node_free. A static object. */
chan_net *chan_net_kernel(void);

/* net->node_new(...); a NULL `net` means chan_net_kernel(). */
chan_udp_node *chan_net_node_new(chan_net *net, const char *bind_ip, uint16_t port, chan_deliver_fn deliver,
                                 void *sink, char *err);
/* net->node_free(net, n); NULL `n` is fine, a NULL `net` means chan_net_kernel(). */
void chan_net_node_free(chan_net *net, chan_udp_node *n);

/* A channel from node `n` to the remote node at `peer_ip`:`peer_port`. */
chan *chan_udp_open(chan_udp_node *n, const char *peer_ip, uint16_t peer_port, char *err);

/* chan_send, but as a replicate frame (type 3). `c` must come from chan_udp_open. */
int chan_udp_replicate(chan *c, uint32_t instance_id, const uint8_t *payload, size_t len, chan_reply_fn reply,
                       void *ctx, char *err);

#endif
