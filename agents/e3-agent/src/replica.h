/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replica: primary -> backup replication of stateful instances (docs/agents.md, "Replication").
 *
 * Primary side (rep_primary): the replication targets of a stateful instance, from its
 * `e3.backups=<id>[,<id>...]` or from a copy (export_state, keep_serving). Every stateful
 * instance runs as an engine "replicated" instance; its log hook hands the records to its
 * current rep_primary's rep_primary_on_log (commands.c), or drops them when it has none, and
 * the rep_primary is replaced only in an engine op on the instance. After each request that
 * changed its state the hook sends the drained records to every backup, resolved through the
 * route table, as one replicate frame (chan.h type 3) from the egress node, and returns: the
 * client's reply never waits for a backup. The backup's reply (or its absence within the egress
 * node's timeout) only moves counters.
 *
 * Replicate payload (network byte order):
 *   u64 seq | u8 id_len | primary id (id_len bytes, the controller's id) | records
 * seq counts from 1 per (primary, backup) pair; every update takes the next one, also when it
 * could not be sent (no route, too large, socket full), so the backup sees the hole.
 *
 * Backup side (rep_backup): each stateful instance takes replicate frames on its own port
 * (chan_udp_node_set_replicate with rep_backup_deliver). An update is applied through the
 * engine (eng_submit_op: on the instance's first worker, in arrival order, never beside a
 * request), where its seq is checked against the last one applied from that primary:
 *   - the next one: applied, reply "OK <seq>";
 *   - further on: the missing ones are counted as a gap, then it is applied (records are whole
 *     values, so later ones are right; the lost ones stay missing: the backup has diverged,
 *     which the gap counter shows). Nothing repairs a gap (no resend, no snapshot);
 *   - at or below the last: refused (error reply "stale ..."), counted;
 *   - malformed records: refused (apply_log's reason), counted, state unchanged.
 *
 * Not thread-safe by design where it need not be: a rep_primary's sequence numbers are touched
 * only with its instance entered (its log hook, or an engine op on the instance: one at a time),
 * a rep_backup's streams only from its ops. Counters are atomics, read from any thread.
 *
 * Cold migration (state_xfer.h) moves a primary's sequence numbers with its state: the source
 * reads them (rep_primary_sequences) and the destination continues from them
 * (rep_primary_continue), both inside the engine op that exports or imports the state, so the
 * backups, which keep the last seq per primary id, take the moved primary's next update as the
 * next one and not as stale. A copy's switch of targets does the same, in one op, for every
 * backup in both the old and the new list.
 */
#ifndef E3AGENT_REPLICA_H
#define E3AGENT_REPLICA_H

#include <stddef.h>
#include <stdint.h>

#include "chan.h"
#include "e3rpc.h"
#include "engine.h"
#include "routes.h"

#define REP_MAX_BACKUPS 8   /* backups per primary */
#define REP_MAX_PRIMARIES 8 /* primaries a backup follows at once (the oldest is forgotten) */
#define REP_HDR_MAX (8 + 1 + E3RPC_ID_LEN) /* bytes of payload header, at most */

/* Replication counters of one instance: updates (one per state-changing request) per backup. */
typedef struct rep_counters {
    uint64_t sent;       /* primary: updates handed to the socket */
    uint64_t replicated; /* primary: updates a backup acknowledged */
    uint64_t failed;     /* primary: not sent (no route, too large, socket), refused, or unanswered */
    uint64_t applied;    /* backup: updates applied */
    uint64_t gaps;       /* backup: sequence numbers skipped (lost or reordered updates) */
    uint64_t refused;    /* backup: stale or malformed updates refused */
} rep_counters;

typedef struct rep_primary rep_primary; /* opaque */
typedef struct rep_backup rep_backup;   /* opaque */

/* A primary called `self_id` (its controller id) replicating to the instances listed in
 * `backups_csv` (see pl_parse_ids; at least one), resolved in `routes`, sent from `egress`
 * (whose timeout bounds the wait for a backup's reply). Routes and egress must outlive it.
 * NULL with `err` on a bad list, an over-long id, or no memory. */
rep_primary *rep_primary_new(rt_table *routes, chan_udp_node *egress, const char *self_id, const char *backups_csv,
                             char *err);

/* eng_log_fn with ctx = a rep_primary: send `records` to every backup. */
void rep_primary_on_log(void *ctx, const uint8_t *records, size_t len);

/* Drop the owner's reference: call once the engine instance is removed (no more hook calls). The
 * memory goes when the last update in flight is answered or failed. NULL is fine. */
void rep_primary_release(rep_primary *p);

/* Number of backups. */
size_t rep_primary_backups(const rep_primary *p);

/* The primary's counters (sent, replicated, failed; the others 0). Any thread. */
void rep_primary_counters(rep_primary *p, rep_counters *out);

/* The last seq given to each backup: up to `max` backup ids into `ids` and their seqs into
 * `seqs`, in the order of e3.backups. Returns how many were written. Only with the instance
 * entered (an engine op on it), like the hook. */
size_t rep_primary_sequences(const rep_primary *p, char (*ids)[E3RPC_ID_LEN], uint64_t *seqs, size_t max);

/* Continue backup `backup_id`'s numbering after `seq` (the next update takes seq + 1); never
 * moves a number back. Returns 0, or -1 if `backup_id` is not one of this primary's backups
 * (nothing changed). Only with the instance entered, before its first update to that backup is
 * taken for granted by anyone: in practice, in the op that imports the state or switches the
 * instance's targets. */
int rep_primary_continue(rep_primary *p, const char *backup_id, uint64_t seq);

/* The backup side of engine instance `engine_id`. NULL when memory runs out. */
rep_backup *rep_backup_new(eng *e, uint32_t engine_id);

/* Free it; the instance's UDP node must be freed first (no update in flight). NULL is fine. */
void rep_backup_free(rep_backup *b);

/* chan_deliver_fn with sink = a rep_backup: apply one replicate frame's payload (see above). */
int rep_backup_deliver(void *sink, uint32_t instance_id, const uint8_t *payload, size_t len, chan_reply_fn reply,
                       void *reply_ctx, char *err);

/* The backup's counters (applied, gaps, refused; the others 0). Any thread. */
void rep_backup_counters(rep_backup *b, rep_counters *out);

/* Build a replicate payload into `out` (reset first): header for (`seq`, `primary_id`), then
 * `records`. Returns 0, or -1 when memory runs out or the id is longer than E3RPC_ID_LEN - 1. */
int rep_encode(svc_buf *out, uint64_t seq, const char *primary_id, const uint8_t *records, size_t len);

#endif
