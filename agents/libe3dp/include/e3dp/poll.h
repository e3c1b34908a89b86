/* SPDX-License-Identifier: Apache-2.0 */
/*
 * poll: the pieces every E3 poll loop is made of, shared by the emulated NIC's traffic manager
 * (nic-firmware tm.c) and the host's side of the host link (hostlink.c):
 *   - drop counters by reason (dp_drop), freeing the frame;
 *   - a tx queue per port, flushed in bursts, what the port refuses dropped as tx_full;
 *   - an MP/SC ring as a dp_stack's transmit (engine workers send from any thread);
 *   - link state and periodic timers on the timer cycles;
 *   - the loop itself: adaptive (sleep DP_IDLE_SLEEP_US after DP_IDLE_SPINS empty passes, doubling
 *     up to DP_IDLE_SLEEP_MAX_US while nothing comes, so an emulated device does not burn a host
 *     core) or busy (never sleeps, as firmware does).
 * Counters are relaxed atomics: one writer (the loop), readers on any thread.
 */
#ifndef E3DP_POLL_H
#define E3DP_POLL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "e3dp/dp.h"
#include "e3dp/pkt.h"
#include "e3dp/stack.h"

#define DP_BURST 32            /* packets per rx/tx burst */
#define DP_IDLE_SPINS 512      /* empty passes before an adaptive loop sleeps */
#define DP_IDLE_SLEEP_US 50    /* its first sleep, microseconds */
#define DP_IDLE_SLEEP_MAX_US 200 /* each further empty pass doubles the sleep, up to this */
#define DP_SWEEP_MS 5          /* request-timeout sweep period, milliseconds */
#define DP_LINK_CHECK_MS 10    /* link state poll period, milliseconds */
#define DP_PORT_DESC 1024      /* rx and tx descriptors per port (dp_port_start) */

/* Frames dropped, per reason. */
typedef struct dp_drops {
    _Atomic uint64_t n[DP_DROP_COUNT]; /* frames */
} dp_drops;

/* Frames waiting to leave on one port in this pass. */
typedef struct dp_txq {
    struct rte_mbuf *pkts[DP_BURST]; /* queued frames */
    uint16_t n;                      /* entries used */
    uint16_t port;                   /* DPDK port id (queue 0) */
    _Atomic uint64_t *sent;          /* counts frames the port took */
    dp_drops *drops;                 /* counts the ones it refused (tx_full) */
} dp_txq;

/* A frame's payload as dp_parse sees it (the first segment). */
static inline dp_kind dp_parse_mbuf(const struct rte_mbuf *m, dp_parsed *p) {
    return dp_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), DP_MAX_PAYLOAD, p);
}

/* Count a drop for `reason` and free `m`. */
void dp_drop_free(dp_drops *d, struct rte_mbuf *m, dp_drop reason);

/* A snapshot of `d` into out[], with the frames stack `st` (may be NULL) could not send added to
 * tx_full. Any thread. */
void dp_drops_get(dp_drops *d, const dp_stack *st, uint64_t out[DP_DROP_COUNT]);

/* An empty queue for `port`, counting into `sent` and `drops`. */
void dp_txq_init(dp_txq *q, uint16_t port, _Atomic uint64_t *sent, dp_drops *drops);

/* Queue `m` (flushing first if the queue is full). */
void dp_txq_push(dp_txq *q, struct rte_mbuf *m);

/* Send what is queued; frames the port refuses are dropped (tx_full). */
void dp_txq_flush(dp_txq *q);

/* Free what is queued, unsent and uncounted (shutdown). */
void dp_txq_discard(dp_txq *q);

/* A ring named "<tag>_<owner>" (a pointer: unique per process) of `slots` entries (a power of
 * two) with rte_ring `flags`. NULL with `err`. */
struct rte_ring *dp_ring_new(const char *tag, const void *owner, unsigned slots, unsigned flags, char *err);

/* Free the frames left in `r`, then `r`. NULL is fine. */
void dp_ring_drain_free(struct rte_ring *r);

/* The flags of a ring that any engine worker sends into and one poll loop drains: relaxed tail sync for
 * the producers. The workers are plain threads, a dozen on 2 CPUs under load; with the classic
 * multi-producer ring each waits, spinning, for the one before it to publish its slot, and the one whose
 * turn it is only runs when the scheduler gets round to it past the spinners: replies went out at a few
 * per second and e3-nic looked dead after an overload (found by the table1 experiment; a gdb snapshot
 * had all 12 workers in __rte_ring_update_tail). With RTS the last producer out publishes for all. */
#define DP_EGRESS_RING_FLAGS (RING_F_MP_RTS_ENQ | RING_F_SC_DEQ)

/* A dp_tx_fn: enqueue `m` on the ring `ring` (as its flags say: DP_EGRESS_RING_FLAGS). Any thread. */
int dp_ring_tx(void *ring, struct rte_mbuf *m, uint32_t dst_ip);

/* Hand a parsed UDP datagram to `st`: counted as a drop (freed) if no node listens there, else
 * freed after delivery. 1 if delivered. The loop's thread. */
int dp_stack_deliver(dp_stack *st, struct rte_mbuf *m, const dp_parsed *p, dp_drops *drops);

/* 1 if `port`'s link is up (rte_eth_link_get_nowait). */
int dp_link_up(uint16_t port);

/* 1 when the timer cycles reached *next (then *next moves `period_ms` on), else 0. *next = 0
 * fires at the first call. */
int dp_every(uint64_t *next, unsigned period_ms);

/* One pass of a poll loop: how many packets it handled. */
typedef size_t (*dp_poll_fn)(void *ctx);

/* Call poll(ctx) until *quit is set: adaptive (busy 0) or busy (1). */
void dp_poll_loop(dp_poll_fn poll, void *ctx, const atomic_int *quit, int busy);

/* Configure `port` with one rx queue (buffers from `mp`) and one tx queue, start it, and make it
 * promiscuous. DP_ERR with `err` ("port N: <DPDK's reason>"). */
int dp_port_start(uint16_t port, struct rte_mempool *mp, char *err);

#endif
