/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3rpc: the agent's side of proto/e3/agent/v1/agent.proto as a plain C API. The implementation
 * (e3rpc.cc) is a thin C++ shim over gRPC's synchronous C++ API, the agreed way to speak gRPC
 * from C (grpc's core C API is not stable). This header is pure C: opaque handles, plain structs,
 * caller-provided error buffers. It knows nothing of the engine or the services; the agent's
 * modules convert their own structs to and from these.
 *
 * Every call carries `authorization: Bearer <token>`. Unary calls take a deadline. On failure
 * the error buffer receives "<what>: <STATUS_CODE_NAME>: <message>", e.g.
 * "Register: UNAVAILABLE: failed to connect to all addresses".
 *
 * Threads: a client may be used from several threads. A stream is used by one thread at a time,
 * except e3rpc_*_cancel, which any thread may call while the stream exists.
 */
#ifndef E3RPC_H
#define E3RPC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define E3RPC_OK 0
#define E3RPC_ERR -1
#define E3RPC_ERRBUF_LEN 512         /* size of the error buffers callers pass */
#define E3RPC_ID_LEN 65              /* bytes for an id (agent, node, instance: 1-64 chars) + NUL */
#define E3RPC_MAX_INSTANCES 64       /* instances per heartbeat (the controller's limit) */
#define E3RPC_DEADLINE_MS 5000       /* suggested deadline of unary calls, ms */

typedef enum e3rpc_node_kind {
    E3RPC_NODE_HOST = 1,     /* NODE_KIND_HOST */
    E3RPC_NODE_SMARTNIC = 2, /* NODE_KIND_SMARTNIC */
} e3rpc_node_kind;

typedef enum e3rpc_power_source {
    E3RPC_POWER_RAPL = 1,  /* POWER_SOURCE_RAPL */
    E3RPC_POWER_IPMI = 2,  /* POWER_SOURCE_IPMI */
    E3RPC_POWER_MODEL = 3, /* POWER_SOURCE_MODEL */
} e3rpc_power_source;

/* NodeIdentity: who the registering node is. Strings may be NULL (sent empty). */
typedef struct e3rpc_identity {
    const char *name;             /* node name in the cluster, e.g. "s0/host" */
    e3rpc_node_kind kind;         /* host or SmartNIC */
    const char *server_name;      /* its server, e.g. "s0" */
    const char *cluster_name;     /* its cluster */
    const char *software_version; /* e.g. "e3-agent 0.1.0" */
    const char *address;          /* IP its instances serve on */
    double cores;                 /* capacity: cores */
    uint64_t memory_mb;           /* capacity: MiB */
    uint64_t bandwidth_mbps;      /* capacity: Mbit/s */
} e3rpc_identity;

/* RegisterResponse. */
typedef struct e3rpc_registration {
    char node_id[E3RPC_ID_LEN];   /* the node's UUID */
    uint32_t heartbeat_period_ms; /* ms between batches */
    uint64_t lease_epoch;         /* the node's lease epoch at this controller (0: none) */
} e3rpc_registration;

/* InstanceStats: one instance over the last period. */
typedef struct e3rpc_instance_stats {
    char instance_id[E3RPC_ID_LEN]; /* the instance's UUID */
    uint64_t requests_completed;    /* since the previous heartbeat */
    double exec_time_us;            /* average execution time per request, µs */
    double exec_time_ema_us;        /* EMA of the execution time, µs */
    double cpu_share;               /* share of the node's CPU, 0..1 */
    uint64_t latency_count;         /* requests answered OK in the period */
    double latency_avg_us;          /* their mean latency, arrival -> reply, µs (0: none) */
    double latency_p99_us;          /* their 99th percentile, µs (0: none) */
} e3rpc_instance_stats;

/* Heartbeat: one node at one instant. */
typedef struct e3rpc_heartbeat {
    char node_id[E3RPC_ID_LEN];   /* as returned by Register */
    int64_t timestamp_unix_ns;    /* ns since the epoch */
    uint32_t queue_length;        /* requests queued */
    uint64_t rx_bytes;            /* cumulative since the agent started */
    uint64_t tx_bytes;            /* cumulative */
    uint64_t rx_packets;          /* cumulative */
    uint64_t tx_packets;          /* cumulative */
    double cpu_utilization;       /* 0..1 */
    double power_watts;           /* W, >= 0 */
    e3rpc_power_source power_source; /* must be set */
    uint64_t lease_epoch;         /* highest lease epoch seen for the node (0: none) */
    size_t n_instances;           /* entries used in instances[] */
    e3rpc_instance_stats instances[E3RPC_MAX_INSTANCES];
} e3rpc_heartbeat;

/* HeartbeatSummary, the controller's answer when the heartbeat stream is closed. */
typedef struct e3rpc_hb_summary {
    uint64_t accepted;          /* heartbeats accepted */
    uint64_t rejected;          /* heartbeats refused */
    char first_rejection[256];  /* reason of the first rejection, "" if none */
} e3rpc_hb_summary;

typedef enum e3rpc_command_kind {
    E3RPC_CMD_UNKNOWN = 0,      /* no action, or one this agent does not know */
    E3RPC_CMD_DEPLOY = 1,       /* deploy_instance */
    E3RPC_CMD_REMOVE = 2,       /* remove_instance */
    E3RPC_CMD_EXPORT_STATE = 3, /* export_state */
    E3RPC_CMD_IMPORT_STATE = 4, /* import_state */
    E3RPC_CMD_SET_ROUTES = 5,   /* set_routes */
    E3RPC_CMD_CONFIRM_IMPORT = 6, /* confirm_import */
    E3RPC_CMD_RESUME = 7,       /* resume_instance */
    E3RPC_CMD_PROMOTE = 8,      /* promote_instance */
} e3rpc_command_kind;

typedef struct e3rpc_kv {
    char *key;   /* NUL-terminated */
    char *value; /* NUL-terminated */
} e3rpc_kv;

typedef struct e3rpc_route {
    char *instance_id; /* destination instance */
    char *address;     /* its IP address */
    uint32_t port;     /* its UDP port */
} e3rpc_route;

/* Command: one configuration push. Fields not used by `kind` are NULL / 0. Strings are never
 * NULL for the fields of `kind` (empty when the controller sent nothing). */
typedef struct e3rpc_command {
    uint64_t version;          /* per node, strictly increasing */
    char *node_id;             /* the node it is for */
    uint64_t lease_epoch;      /* the issuing controller's lease epoch for the node (0: unchecked) */
    e3rpc_command_kind kind;   /* which action */
    char *instance_id;         /* deploy, remove, export, import, confirm, resume, promote */
    char *service_type;        /* deploy: catalogue name */
    uint32_t shard;            /* deploy: shard index */
    char *role;                /* deploy: "primary" / "backup" */
    uint32_t port;             /* deploy: UDP port to serve on */
    e3rpc_kv *config;          /* deploy: config pairs, sorted by key */
    size_t n_config;           /* entries in config */
    char *peer;                /* export: destination "ip:port"; import: source IP ("": any) */
    int keep_serving;          /* export: 1 copy (seed a backup, serve on), 0 move (stop here) */
    char *backups;             /* export, copy; promote: backups afterwards, "<id>[,<id>...]" ("": none) */
    char *replaces;            /* promote: the primary ids it supersedes, "<id>[,<id>...]" */
    uint32_t listen_port;      /* import: TCP port to listen on for the transfer */
    uint64_t epoch;            /* deploy, export, import, confirm, resume, promote: the instance's epoch (0: none) */
    e3rpc_route *routes;       /* set_routes: the whole table */
    size_t n_routes;           /* entries in routes */
} e3rpc_command;

typedef struct e3rpc_client e3rpc_client;         /* a channel to the controller + the token */
typedef struct e3rpc_hb_stream e3rpc_hb_stream;   /* one StreamHeartbeats call */
typedef struct e3rpc_cmd_stream e3rpc_cmd_stream; /* one StreamCommands call */

/* Create a client for `target` ("host:port") sending `token` as bearer: over TLS trusting the PEM
 * certificates `tls_ca_pem`, or plaintext when it is NULL. Connects lazily: the first call reports an
 * unreachable controller (or a certificate it does not trust). NULL with `err` on bad arguments. */
e3rpc_client *e3rpc_client_new(const char *target, const char *token, const char *tls_ca_pem, char *err);

/* Free the client (NULL is fine). Its streams must be closed first. */
void e3rpc_client_free(e3rpc_client *c);

/* grpc.health.v1.Health/Check for the whole server (""): E3RPC_OK if SERVING. */
int e3rpc_health(e3rpc_client *c, uint32_t deadline_ms, char *err);

/* Register `node` for `agent_id`; fills `out`. */
int e3rpc_register(e3rpc_client *c, const char *agent_id, const e3rpc_identity *node,
                   uint32_t deadline_ms, e3rpc_registration *out, char *err);

/* AckCommand: ACK (`ok` != 0) or NACK with `code` and `message`. */
int e3rpc_ack(e3rpc_client *c, const char *agent_id, const char *node_id, uint64_t version, int ok,
              const char *code, const char *message, uint32_t deadline_ms, char *err);

/* Open StreamHeartbeats. NULL with `err` if the call cannot start. */
e3rpc_hb_stream *e3rpc_hb_open(e3rpc_client *c, char *err);

/* Send one HeartbeatBatch of `n` heartbeats (sequence numbers 1, 2, ... per stream). Blocks
 * while flow control holds the batch back. E3RPC_ERR once the stream is broken. */
int e3rpc_hb_send(e3rpc_hb_stream *s, const char *agent_id, const e3rpc_heartbeat *hbs, size_t n,
                  char *err);

/* Make a blocked or later e3rpc_hb_send fail at once. Any thread. */
void e3rpc_hb_cancel(e3rpc_hb_stream *s);

/* Half-close, wait up to `deadline_ms` for the HeartbeatSummary (into `out`, may be NULL), free
 * the stream. E3RPC_ERR if the stream failed or no summary came in time (still freed). */
int e3rpc_hb_close(e3rpc_hb_stream *s, uint32_t deadline_ms, e3rpc_hb_summary *out, char *err);

/* Open StreamCommands for `node_id`, asking for versions above `applied_version`, naming the
 * highest lease epoch seen for the node (`lease_epoch`, 0: none). */
e3rpc_cmd_stream *e3rpc_cmd_open(e3rpc_client *c, const char *agent_id, const char *node_id,
                                 uint64_t applied_version, uint64_t lease_epoch, char *err);

/* Block until the next command; E3RPC_OK with `*out` (free with e3rpc_command_free), or
 * E3RPC_ERR when the stream ended (closed by the server, broken, or cancelled) with `err`. */
int e3rpc_cmd_next(e3rpc_cmd_stream *s, e3rpc_command **out, char *err);

/* Make a blocked or later e3rpc_cmd_next return E3RPC_ERR ("CANCELLED"). Any thread. */
void e3rpc_cmd_cancel(e3rpc_cmd_stream *s);

/* Cancel if still open, reap the call, free the stream. NULL is fine. */
void e3rpc_cmd_close(e3rpc_cmd_stream *s);

/* Free a command from e3rpc_cmd_next (NULL is fine). */
void e3rpc_command_free(e3rpc_command *c);

#ifdef __cplusplus
}
#endif

#endif
