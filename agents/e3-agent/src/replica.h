/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replica: primary -> backup replication of stateful instances (docs/agents.md, "Replication").
 *
 * Primary side (rep_primary): the replication targets of a stateful instance, from its
 * `e3.backups=<id>[,<id>...]` or from a copy (export_state, keep_serving). Every stateful
 * instance runs as an engine "replicated" instance; its log hook hands the records to its
 * current rep_primary's rep_primary_on_log (commands.c), or drops them when it has none, and
 * the rep_primary is replaced only in an engine op on the instance. After each request that
 * changed its state the hook numbers the drained records for every backup, keeps them, and
 * sends them, resolved through the route table, as one replicate frame (chan.h type 3) from the
 * egress node, and returns: the client's reply never waits for a backup (asynchronous
 * replication: an update acknowledged to a client less than a round trip before the primary
 * dies can be missing at the backup).
 *
 * Replicate payload (network byte order):
 *   u64 seq (top bits: REP_JUMP, REP_HOLE, REP_SUPERSEDES) | u64 epoch | u8 id_len | primary id (id_len bytes,
 *   the controller's id) | [REP_SUPERSEDES: u8 n | n x (u8 id_len | id)] | records
 * seq counts from 1 per (primary, backup) pair. epoch is the primary copy's controller-issued epoch
 * (docs/agents.md, "Never two primaries"; 0: none given). The superseded ids are the primaries a
 * promoted backup replaces (rep_primary_supersede): a backup takes the frame's epoch as the
 * highest it saw from each of them too, so it refuses their later updates ("STALE").
 *
 * Backup side (rep_backup): each stateful instance takes replicate frames on its own port
 * (chan_udp_node_set_replicate with rep_backup_deliver). An update is applied through the
 * engine (eng_submit_op: on the instance's first worker, in arrival order, never beside a
 * request), strictly in sequence per primary id:
 *   - the next one: applied, answer "OK <seq>";
 *   - at or below the last applied (a resend): not applied again, answer "OK <last>";
 *   - further on, with REP_JUMP: the missing ones are counted as a gap (the backup has diverged:
 *     the primary no longer had them) and it is applied;
 *   - further on, within REP_HOLD_MAX: held until the ones before it are applied, answer
 *     "HELD <last>", counted as out_of_order; each applied update is followed by the held ones
 *     whose turn it was, and the answer is "OK <last>" after them;
 *   - further still: refused, error answer "GAP <last>: ...", counted as out_of_order;
 *   - from an epoch below the highest this backup saw from that primary id (a stale copy of a
 *     primary that moved or was superseded): refused, error answer "STALE <epoch>: ...", counted
 *     as refused; the stale primary notes the newer epoch (rep_primary_newer_epoch) and its owner
 *     stops serving it;
 *   - from a primary that supersedes others (REP_SUPERSEDES, its epoch accepted): each superseded
 *     id's highest epoch is raised to the frame's, so their later updates are refused as stale;
 *   - no records (a promoted primary's first update, which announces it): applied as nothing;
 *   - malformed records: refused (apply_log's reason), counted; its number is used up;
 *   - REP_HOLE (an update too large for one datagram, given up by the primary): its number is
 *     used up and it counts as a gap.
 *
 * Repair (selective resend): the primary keeps each backup's updates until the backup confirms
 * them ("OK <n>" confirms everything up to n), at most REP_WINDOW updates and REP_WINDOW_BYTES.
 * A "HELD" answer makes the updates before that frame owed (not the frame); a "GAP" answer, an
 * error, or no answer within the egress node's timeout makes the frame itself owed (and, for a
 * GAP, forgets what the backup said it held). The primary then resends, in order, every kept
 * update after the last confirmed one up to the highest owed, except those held (a round of at
 * most REP_ROUND_MAX; the next round when it is confirmed, or again after REP_RESEND_MS without). rep_primary_tick, called every few ms, owes everything
 * outstanding to a backup that confirmed nothing for REP_STALL_MS: that covers updates that
 * could not leave (no route yet, a full socket) and lost last frames, which no later answer
 * reveals. Updates dropped unconfirmed (window full, no memory) are jumped over: the next frame
 * numbered after them carries REP_JUMP, and the backup counts the gap.
 *
 * Thread safety: a rep_primary has a lock taken by the hook, the answers (egress receive
 * thread), rep_primary_tick and rep_primary_drain; counters are atomics. A rep_backup's streams
 * are touched only from its ops.
 *
 * Cold migration (state_xfer.h) moves a primary's sequence numbers with its state: the source
 * drains (rep_primary_drain: waits until its backups confirmed every update) and reads them
 * (rep_primary_sequences), the destination continues from them (rep_primary_continue), both
 * inside the engine op that exports or imports the state, so the backups, which keep the last
 * seq per primary id, take the moved primary's next update as the next one. A copy's switch of
 * targets hands each kept backup's numbers and unconfirmed updates over in one op
 * (rep_primary_adopt).
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
#define REP_MAX_SUPERSEDED 8 /* ids a promoted primary supersedes, at most */
#define REP_HDR_MAX (8 + 8 + 1 + E3RPC_ID_LEN + 1 + REP_MAX_SUPERSEDED * E3RPC_ID_LEN) /* payload header, at most */
#define REP_JUMP (1ull << 63)              /* seq flag: the updates before this one are not coming */
#define REP_HOLE (1ull << 62)              /* seq flag: this update was given up (no records follow) */
#define REP_SUPERSEDES (1ull << 61)        /* seq flag: superseded primary ids follow the primary id */
#define REP_FLAGS (REP_JUMP | REP_HOLE | REP_SUPERSEDES)
#define REP_WINDOW 16384                   /* updates kept per backup until confirmed */
#define REP_WINDOW_BYTES (16u << 20)       /* record bytes kept per backup until confirmed */
#define REP_ROUND_MAX 512                  /* updates per resend round */
#define REP_HOLD_MAX 4096                  /* a backup keeps updates up to this far ahead of the next one */
#define REP_RESEND_MS 100                  /* a round with no answer is sent again after this */
#define REP_STALL_MS 200                   /* rep_primary_tick: no confirmation this long -> resend */
#define REP_DRAIN_STALL_MS 20              /* rep_primary_drain: the same, while draining */
#define REP_TICK_MS 25                     /* how often the owner should call rep_primary_tick */

/* Replication counters of one instance: updates (one per state-changing request) per backup. */
typedef struct rep_counters {
    uint64_t sent;         /* primary: updates handed to the socket the first time */
    uint64_t resent;       /* primary: updates sent again (repair) */
    uint64_t replicated;   /* primary: updates a backup confirmed */
    uint64_t failed;       /* primary: sends that failed (no route, too large, socket), error answers, no answer */
    uint64_t dropped;      /* primary: updates given up unconfirmed (window full, no memory) */
    uint64_t outstanding;  /* primary: updates not yet confirmed, now */
    uint64_t applied;      /* backup: updates applied */
    uint64_t gaps;         /* backup: updates jumped over (dropped by the primary): the state diverged */
    uint64_t out_of_order; /* backup: updates that came ahead of the next one (held, or refused if too far) */
    uint64_t duplicates;   /* backup: resends of updates already applied */
    uint64_t refused;      /* backup: malformed updates refused */
} rep_counters;

typedef struct rep_primary rep_primary; /* opaque */
typedef struct rep_backup rep_backup;   /* opaque */

/* A primary called `self_id` (its controller id) replicating to the instances listed in
 * `backups_csv` (see pl_parse_ids; at least one), resolved in `routes`, sent from `egress`
 * (whose timeout bounds the wait for a backup's reply). Routes and egress must outlive it.
 * NULL with `err` on a bad list, an over-long id, or no memory. */
rep_primary *rep_primary_new(rt_table *routes, chan_udp_node *egress, const char *self_id, const char *backups_csv,
                             char *err);

/* The epoch this primary's frames carry from now on (0 until set). Any thread. */
void rep_primary_set_epoch(rep_primary *p, uint64_t epoch);

/* Every frame of `p` from now on names the primaries listed in `ids_csv` (pl_parse_ids, at most
 * REP_MAX_SUPERSEDED; its own id may not be one) as superseded at its epoch: the backups refuse
 * their later updates. Returns 0, or -1 with `err` on a bad list (nothing changed). Before the
 * primary sends anything (in practice, right after rep_primary_new). */
int rep_primary_supersede(rep_primary *p, const char *ids_csv, char *err);

/* Number, keep and send an update with no records to every backup: it tells them this primary's
 * epoch (and what it supersedes) before any client writes. With the instance entered. */
void rep_primary_announce(rep_primary *p);

/* The highest epoch a backup answered it follows for this primary's id, above this primary's own
 * (its "STALE" answers), or 0: this copy is stale, another serves the instance. Any thread. */
uint64_t rep_primary_newer_epoch(rep_primary *p);

/* eng_log_fn with ctx = a rep_primary: number, keep and send `records` to every backup. */
void rep_primary_on_log(void *ctx, const uint8_t *records, size_t len);

/* Resend to every backup that confirmed nothing for REP_STALL_MS while updates are outstanding.
 * The owner calls it every REP_TICK_MS or so, from any thread, while it holds its reference. */
void rep_primary_tick(rep_primary *p);

/* Wait up to `timeout_ms` until every backup confirmed every update, resending what stalls for
 * REP_DRAIN_STALL_MS. Returns how many updates are still unconfirmed (0: drained). With the
 * instance entered (no update can be added meanwhile), e.g. in the op that exports its state. */
uint64_t rep_primary_drain(rep_primary *p, uint32_t timeout_ms);

/* Drop the owner's reference: call once the engine instance is removed (no more hook calls). The
 * memory goes when the last update in flight is answered or failed. NULL is fine. */
void rep_primary_release(rep_primary *p);

/* The primary's counters (sent, resent, replicated, failed, dropped, outstanding; the backup
 * ones 0). Any thread. */
void rep_primary_counters(rep_primary *p, rep_counters *out);

/* The last seq given to each backup: up to `max` backup ids into `ids` and their seqs into
 * `seqs`, in the order of e3.backups. Returns how many were written. Only with the instance
 * entered (an engine op on it), like the hook. */
size_t rep_primary_sequences(rep_primary *p, char (*ids)[E3RPC_ID_LEN], uint64_t *seqs, size_t max);

/* Continue backup `backup_id`'s numbering after `seq` (the next update takes seq + 1), taking
 * everything up to `seq` as confirmed (what the backup lacks of it is jumped over); never
 * moves a number back. Returns 0, or -1 if `backup_id` is not one of this primary's backups
 * (nothing changed). Only with the instance entered, before its first update to that backup is
 * taken for granted by anyone: in practice, in the op that imports the state or switches the
 * instance's targets. */
int rep_primary_continue(rep_primary *p, const char *backup_id, uint64_t seq);

/* Hand every backup of `prev` that `next` lists too over to `next`: its numbers and its kept,
 * unconfirmed updates (answers still due go to `prev` and are ignored; the tick resends); and what
 * `prev` supersedes, unless `next` was given its own list. With the instance entered, in the op
 * that switches the targets, before `next` sends anything. */
void rep_primary_adopt(rep_primary *next, rep_primary *prev);

/* The backup side of engine instance `engine_id`. NULL when memory runs out. */
rep_backup *rep_backup_new(eng *e, uint32_t engine_id);

/* Refuse, from now on, updates from primary `primary_id` at an epoch below `epoch` (a promoted
 * backup fences the primary it replaces, which counts it among its backups). Only in an engine
 * op on the instance (its streams are touched only there). */
void rep_backup_fence(rep_backup *b, const char *primary_id, uint64_t epoch);

/* Free it; the instance's UDP node must be freed first (no update in flight). NULL is fine. */
void rep_backup_free(rep_backup *b);

/* chan_deliver_fn with sink = a rep_backup: apply one replicate frame's payload (see above). */
int rep_backup_deliver(void *sink, uint32_t instance_id, const uint8_t *payload, size_t len, chan_reply_fn reply,
                       void *reply_ctx, char *err);

/* The backup's counters (applied, gaps, out_of_order, duplicates, refused; the primary ones 0).
 * Any thread. */
void rep_backup_counters(rep_backup *b, rep_counters *out);

/* Build a replicate payload into `out` (reset first): header for (`seq`, `epoch`, `primary_id`),
 * then `records`. Returns 0, or -1 when memory runs out or the id is longer than E3RPC_ID_LEN - 1. */
int rep_encode(svc_buf *out, uint64_t seq, uint64_t epoch, const char *primary_id, const uint8_t *records,
               size_t len);

/* rep_encode with the `n_sup` ids in `sup` as superseded (REP_SUPERSEDES set when n_sup > 0; at most
 * REP_MAX_SUPERSEDED). */
int rep_encode_superseding(svc_buf *out, uint64_t seq, uint64_t epoch, const char *primary_id,
                           const char (*sup)[E3RPC_ID_LEN], size_t n_sup, const uint8_t *records, size_t len);

#endif
