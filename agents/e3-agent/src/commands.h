/* SPDX-License-Identifier: Apache-2.0 */
/*
 * commands: applies the controller's commands (agent.proto `Command`) to this node and decides
 * ACK or NACK. It owns the node's instance table: controller instance id (UUID) -> engine id,
 * the instance's UDP node on `bind_ip`:port and its pipeline stage.
 *
 *   deploy_instance  eng_deploy the service, then bind its UDP port delivering to the pipeline.
 *                    NACK codes: bad_command (no/over-long id), duplicate_instance,
 *                    unknown_service, bad_config (port 0, a ';' or '=' in a key or value, a bad
 *                    e3.downstream or e3.backups, or the service refused the config: its
 *                    reason), port_in_use (the bind failed: the system's reason). Every
 *                    stateful instance records its replication log, whatever its role; with
 *                    e3.backups it sends it to them (replica.h), without it drops it until a
 *                    copy gives it backups. On a stateless service e3.backups is ignored (a
 *                    warning line). Every stateful instance also takes replicate frames on its
 *                    port as a backup. Role "backup": an import takes another instance's state.
 *                    With e3.await_state=1 the instance is deployed (engine, stage,
 *                    replication) but its port is not opened: it awaits its state.
 *   remove_instance  stop serving (the UDP node waits for replies still owed; an import in
 *                    progress is cancelled and joined), then eng_remove. Works in every state
 *                    (serving, awaiting state, stopped). NACK unknown_instance.
 *   set_routes       replace the route table. NACK bad_route.
 *   import_state     (cold migration, state_xfer.h; docs/agents.md) on an instance awaiting
 *                    state: listen on TCP `listen_port` and ACK at once; a thread takes one
 *                    connection from `peer` (the exporter's IP; empty: any), imports the state
 *                    on the instance's worker, opens its port, answers the exporter. On failure
 *                    or timeout it stays awaiting state; a new import_state retries (and
 *                    replaces a listener still open). NACK unknown_instance,
 *                    not_awaiting_state, bad_command (listen_port not in 1..65535, bad
 *                    source), listen_failed (bind: the system's reason).
 *   export_state     on a serving instance: close its port (waiting for the replies owed),
 *                    serialise it on its worker, send it to `peer` ("ip:port"), ACK on the
 *                    importer's "OK": a move (keep_serving 0) leaves the instance stopped
 *                    until remove_instance; a copy (keep_serving 1) replaces its backups
 *                    with `backups` in one op on its worker (kept ids continue their
 *                    numbering, new ones start at 1), reopens the port and ACKs. On any
 *                    failure reopen the port (serve again, backups unchanged) and NACK
 *                    transfer_failed with the reason. Blocks the command thread (bounded by
 *                    the SX_* timeouts). NACK unknown_instance, bad_command (destination),
 *                    bad_config (copy: a bad backups list), not_serving (awaiting state, or
 *                    already moved: a replayed version gets its first outcome).
 *   promote_instance (failover; docs/agents.md "Never two primaries") a serving stateful backup
 *                    copy becomes the primary at `epoch`: in one op on its worker it refuses from
 *                    then on the updates of the primaries in `replaces` (their epoch is raised on
 *                    its own backup side), takes `backups` as its targets, whose frames name
 *                    `replaces` as superseded (replica.h), and announces itself to them with an
 *                    empty update. NACK unknown_instance, bad_command (epoch 0), stale_epoch,
 *                    not_a_backup (a primary, or stateless), not_serving, bad_config (a bad list).
 *                    An instance already promoted at `epoch` is ACKed (a replay).
 *   anything else    NACK unknown_command.
 *
 * Idempotent by version: commands are applied in increasing version order; a version at or
 * below the last one handled is not applied again and gets the outcome it got the first time
 * (remembered for the last CMD_OUTCOME_MEMORY versions; an older one is ACKed). A NACKed
 * version counts as handled (the controller issues a new version to retry).
 *
 * Fenced by the node's lease epoch (docs/controller-scale-out.md, "Node leases and fencing"): the
 * state keeps the highest lease epoch seen for the node (a RegisterResponse's through
 * cmd_raise_lease_epoch, each new version's) and NACKs `stale_controller` a new version naming a
 * lower one, without applying it: it comes from a controller that lost the node's lease. Like any
 * NACKed version it counts as handled. Lease epoch 0 is unchecked, as instance epochs are. A
 * replayed version gets its first outcome whatever its lease epoch.
 *
 * Not thread-safe for cmd_apply (one applier); cmd_net and cmd_instance_id may run concurrently
 * with it (the heartbeat thread), and so may import threads (they open the port under the lock).
 */
#ifndef E3AGENT_COMMANDS_H
#define E3AGENT_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "e3rpc.h"
#include "engine.h"
#include "heartbeat.h"
#include "pipeline.h"
#include "replica.h"
#include "routes.h"

#define CMD_CODE_LEN 32          /* bytes of an error code, including the NUL */
#define CMD_MESSAGE_LEN 256      /* bytes of an error message, including the NUL */
#define CMD_OUTCOME_MEMORY 64    /* outcomes remembered for replays */
#define CMD_KEY_DOWNSTREAM "e3.downstream"
#define CMD_KEY_FORWARD_IF "e3.forward_if" /* a gate: forward only responses starting with it */
#define CMD_KEY_BACKUPS "e3.backups"       /* backup instance ids of a replication primary */
#define CMD_KEY_AWAIT_STATE "e3.await_state" /* "1": deploy without opening the port (import) */

/* The outcome of one command: ACK (ok) or NACK with code and message. */
typedef struct cmd_outcome {
    uint64_t version;              /* the command's version */
    int ok;                        /* 1: ACK, 0: NACK */
    char code[CMD_CODE_LEN];       /* NACK: machine-readable, e.g. "port_in_use" */
    char message[CMD_MESSAGE_LEN]; /* NACK: human-readable */
} cmd_outcome;

typedef struct cmd_state cmd_state; /* opaque */

/* State for a node whose instances run on `e`, forward through `pl`, and serve on `bind_ip`
 * through `net` (NULL: kernel sockets). All must outlive it. NULL when memory runs out. */
cmd_state *cmd_new(eng *e, pl_ctx *pl, rt_table *routes, chan_net *net, const char *bind_ip);

/* Stop serving every instance (UDP nodes freed, waiting for owed replies), remove them from the
 * engine, free the state. NULL is fine. */
void cmd_free(cmd_state *s);

/* Apply `c` (unless already handled) and fill `out`. Returns 1 if applied now, 0 if it was a
 * replay of a handled version. */
int cmd_apply(cmd_state *s, const e3rpc_command *c, cmd_outcome *out);

/* How long an import waits for its exporter to connect, ms (default SX_ACCEPT_TIMEOUT_MS).
 * For tests; set before the import_state. */
void cmd_set_accept_timeout(cmd_state *s, uint32_t ms);

/* Highest version handled (0 if none): what StreamCommands asks to resume after. */
uint64_t cmd_applied_version(cmd_state *s);

/* Note the node's lease epoch `epoch` (a RegisterResponse's; 0: none): the highest seen is kept.
 * The command thread. */
void cmd_raise_lease_epoch(cmd_state *s, uint64_t epoch);

/* The highest lease epoch seen for the node (0: none): what StreamCommands and every heartbeat
 * send. Any thread. */
uint64_t cmd_lease_epoch(cmd_state *s);

/* Number of instances deployed. */
size_t cmd_instances(cmd_state *s);

/* The controller id of engine instance `engine_id` into `out` (E3RPC_ID_LEN bytes). Returns 1
 * if found, else 0. Any thread. */
int cmd_instance_id(cmd_state *s, uint32_t engine_id, char *out);

/* The UDP port instance `instance_id` serves on, 0 if unknown. Any thread. */
uint16_t cmd_instance_port(cmd_state *s, const char *instance_id);

/* Replication counters of instance `instance_id` (primary and backup sides added) into `out`.
 * Returns 1 if found, else 0. Any thread. */
int cmd_replication(cmd_state *s, const char *instance_id, rep_counters *out);

/* hb_net_fn (ctx = cmd_state): traffic of every instance's UDP node and of the egress node,
 * cumulative since the state was created (removed instances keep counting). Any thread. */
void cmd_net(void *ctx, hb_net *out);

/* hb_latency_fn (ctx = a cmd_state): the request latencies of each engine instance in `insts`
 * since the previous call (zero for one not serving here); one pass under the lock. */
void cmd_latency(void *ctx, const eng_inst_stats *insts, size_t n, lat_summary *out);

#endif
