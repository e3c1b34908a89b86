/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline: the request pipeline of one node (docs/agents.md, "Request pipeline"). A request to
 * an instance is text lines separated by '\n'. The instance's service handles the FIRST line;
 * if the instance has downstream instances (config key `e3.downstream`) and the request has more
 * lines, the rest (lines 2..n) is forwarded to one downstream instance (round-robin), resolved
 * through the route table and sent over UDP (instance id 0: "the instance on that port"); the
 * reply is "<this service's response>\n<downstream reply>". Otherwise the reply is this
 * service's response alone. A gate (config key `e3.forward_if`, e.g. "ALLOW" for api_gateway)
 * forwards only when the service's response starts with it; any other response (e.g.
 * "UNAUTHORIZED") ends the request as an error carrying that response. A service error stops the chain and comes back as an error with
 * the service's reason; so does a downstream's error, a missing route ("no route to instance
 * <id>") and a downstream that does not answer within the timeout.
 *
 * Nothing blocks: the service's reply callback (on an engine worker) sends the forward, and the
 * downstream's reply (on the egress node's receive thread) completes the client's reply.
 *
 * `pl_deliver` is a chan_deliver_fn: bind each instance's UDP node with it and the instance's
 * pl_inst as sink.
 */
#ifndef E3AGENT_PIPELINE_H
#define E3AGENT_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "chan.h"
#include "e3rpc.h"
#include "e3svc/svc.h"
#include "engine.h"
#include "latency.h"
#include "routes.h"

#define PL_OK 0
#define PL_ERR -1
#define PL_ERRBUF_LEN 256           /* size of the error buffers callers pass */
#define PL_MAX_DOWNSTREAM 16        /* downstream instances per instance */
#define PL_DEFAULT_TIMEOUT_MS 2000  /* a forwarded request fails without a reply in this time */
#define PL_GATE_LEN 64              /* bytes of an e3.forward_if prefix, including the NUL */

typedef struct pl_ctx pl_ctx;   /* opaque: engine, routes, egress UDP node */
typedef struct pl_inst pl_inst; /* opaque: one instance's place in the pipeline */

/* A request cut at its first '\n'. `rest` is NULL when there is no '\n' (rest_len 0). */
typedef struct pl_split {
    const uint8_t *head; /* first line, without its '\n' */
    size_t head_len;     /* bytes */
    const uint8_t *rest; /* lines 2..n (may be empty), or NULL */
    size_t rest_len;     /* bytes */
} pl_split;

/* Write a formatted reason into `err` (PL_ERRBUF_LEN bytes, may be NULL); returns PL_ERR. */
int pl_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Cut `req` (`len` bytes) at its first '\n'. Pure. */
void pl_split_request(const uint8_t *req, size_t len, pl_split *out);

/* Reset `out` and write "<own>\n<down>". Returns PL_ERR when memory runs out. Pure. */
int pl_join(svc_buf *out, const uint8_t *own, size_t own_len, const uint8_t *down, size_t down_len);

/* Parse the value of `e3.downstream`: instance ids separated by ',' (blanks around ids and
 * empty entries are ignored). Fills ids[0..*n). PL_ERR if an id is longer than 64 characters or
 * there are more than `max`. Pure. */
int pl_parse_downstream(const char *csv, char (*ids)[E3RPC_ID_LEN], size_t max, size_t *n, char *err);
/* pl_parse_downstream for any agent key listing instance ids (e.g. e3.backups): errors name `key`. */
int pl_parse_ids(const char *key, const char *csv, char (*ids)[E3RPC_ID_LEN], size_t max, size_t *n, char *err);

/* The egress node forwarded requests (and replication updates) leave from. */
chan_udp_node *pl_egress(pl_ctx *p);

/* Shared state: the engine the instances run on, the route table, and an egress UDP node bound
 * through `net` (NULL: kernel sockets) on `bind_ip` (any port) that forwarded requests leave from, failing after `timeout_ms`
 * (0: PL_DEFAULT_TIMEOUT_MS). The engine and table must outlive it. */
pl_ctx *pl_new(eng *e, rt_table *routes, chan_net *net, const char *bind_ip, uint32_t timeout_ms, char *err);

/* Free the egress node (failing forwards still pending). Free every instance's UDP node first.
 * NULL is fine. */
void pl_free(pl_ctx *p);

/* Traffic counters of the egress node (forwarded requests and their replies). */
void pl_counters(pl_ctx *p, chan_counters *out);

/* 1 if a response of `len` bytes may go downstream past gate `forward_if` (NULL or "": no gate,
 * always 1; else the response must start with it). Pure. */
int pl_passes_gate(const char *forward_if, const uint8_t *resp, size_t len);

/* The pipeline stage of engine instance `engine_id` (already deployed) with the downstream ids
 * listed in `downstream_csv` (NULL or "": none) behind gate `forward_if` (NULL or "": none).
 * NULL with `err` on a bad list or a gate longer than PL_GATE_LEN - 1. */
pl_inst *pl_inst_new(pl_ctx *p, uint32_t engine_id, const char *downstream_csv, const char *forward_if,
                     char *err);

/* Free a stage. Its UDP node must have been freed (no request in flight). NULL is fine. */
void pl_inst_free(pl_inst *i);

/* Latency of the stage's requests answered OK since the previous call, from their delivery to
 * the reply (their downstream calls included), and none after: the heartbeat thread takes it. */
void pl_inst_latency(pl_inst *i, lat_summary *out);

/* From now on answer every request delivered to `i` with an error "stale_epoch: ..." naming
 * `epoch`, the newer epoch another copy of the instance serves at (docs/agents.md, "Never two
 * primaries"). Any thread. */
void pl_inst_refuse(pl_inst *i, uint64_t epoch);

/* Number of downstream instances of a stage. */
size_t pl_inst_downstreams(const pl_inst *i);

/* chan_deliver_fn with `sink` a pl_inst: run one request through the pipeline. `instance_id`
 * must be 0 or the stage's engine id. On CHAN_OK `reply` is called exactly once later. */
int pl_deliver(void *sink, uint32_t instance_id, const uint8_t *req, size_t len, chan_reply_fn reply,
               void *reply_ctx, char *err);

#endif
