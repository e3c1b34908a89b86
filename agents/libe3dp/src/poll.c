/* SPDX-License-Identifier: Apache-2.0 */
/* poll: see e3dp/poll.h. */
#include "e3dp/poll.h"

#include <stdio.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "e3dp/memguard.h"

void dp_drop_free(dp_drops *d, struct rte_mbuf *m, dp_drop reason) {
    atomic_fetch_add_explicit(&d->n[reason], 1, memory_order_relaxed);
    rte_pktmbuf_free(m);
}

void dp_drops_get(dp_drops *d, const dp_stack *st, uint64_t out[DP_DROP_COUNT]) {
    for (size_t r = 0; r < DP_DROP_COUNT; r++) out[r] = atomic_load_explicit(&d->n[r], memory_order_relaxed);
    if (st) out[DP_DROP_TX_FULL] += dp_stack_tx_dropped(st);
}

void dp_txq_init(dp_txq *q, uint16_t port, _Atomic uint64_t *sent, dp_drops *drops) {
    *q = (dp_txq){.port = port, .sent = sent, .drops = drops};
}

void dp_txq_flush(dp_txq *q) {
    if (!q->n) return;
    int faulted;
    uint16_t done = dp_guarded_burst(rte_eth_tx_burst, q->port, q->pkts, q->n, &faulted);
    if (faulted) { /* the host link's peer left mid-burst: the frames are the PMD's now (e3dp/memguard.h) */
        atomic_fetch_add_explicit(&q->drops->n[DP_DROP_HOST_DOWN], q->n, memory_order_relaxed);
        q->n = 0;
        return;
    }
    atomic_fetch_add_explicit(q->sent, done, memory_order_relaxed);
    for (uint16_t i = done; i < q->n; i++) dp_drop_free(q->drops, q->pkts[i], DP_DROP_TX_FULL);
    q->n = 0;
}

void dp_txq_push(dp_txq *q, struct rte_mbuf *m) {
    if (q->n == DP_BURST) dp_txq_flush(q);
    q->pkts[q->n++] = m;
}

void dp_txq_discard(dp_txq *q) {
    rte_pktmbuf_free_bulk(q->pkts, q->n);
    q->n = 0;
}

struct rte_ring *dp_ring_new(const char *tag, const void *owner, unsigned slots, unsigned flags, char *err) {
    char name[RTE_RING_NAMESIZE];
    snprintf(name, sizeof(name), "%s_%p", tag, owner);
    struct rte_ring *r = rte_ring_create(name, slots, SOCKET_ID_ANY, flags);
    if (!r) dp_set_error(err, "cannot create ring %s: %s", tag, rte_strerror(rte_errno));
    return r;
}

void dp_ring_drain_free(struct rte_ring *r) {
    void *m;
    while (r && rte_ring_dequeue(r, &m) == 0) rte_pktmbuf_free(m);
    rte_ring_free(r);
}

int dp_ring_tx(void *ring, struct rte_mbuf *m, uint32_t dst_ip) {
    (void)dst_ip;
    return rte_ring_enqueue(ring, m) == 0 ? DP_OK : DP_ERR;
}

int dp_stack_deliver(dp_stack *st, struct rte_mbuf *m, const dp_parsed *p, dp_drops *drops) {
    dp_drop d = dp_stack_input(st, p);
    if (d != DP_DROP_NONE) {
        dp_drop_free(drops, m, d);
        return 0;
    }
    rte_pktmbuf_free(m);
    return 1;
}

int dp_link_up(uint16_t port) {
    struct rte_eth_link link;
    return rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP;
}

int dp_every(uint64_t *next, unsigned period_ms) {
    uint64_t now = rte_get_timer_cycles();
    if (now < *next) return 0;
    *next = now + rte_get_timer_hz() * period_ms / 1000;
    return 1;
}

void dp_poll_loop(dp_poll_fn poll, void *ctx, const atomic_int *quit, int busy) {
    unsigned idle = 0;
    long sleep_us = DP_IDLE_SLEEP_US;
    while (!atomic_load_explicit(quit, memory_order_relaxed)) {
        if (poll(ctx)) {
            idle = 0;
            sleep_us = DP_IDLE_SLEEP_US;
            continue;
        }
        if (busy || ++idle < DP_IDLE_SPINS) continue;
        struct timespec ts = {0, sleep_us * 1000L};
        nanosleep(&ts, NULL);
        if (sleep_us < DP_IDLE_SLEEP_MAX_US) sleep_us *= 2;
    }
}

int dp_port_start(uint16_t port, struct rte_mempool *mp, char *err) {
    struct rte_eth_conf conf = {0};
    uint16_t rxd = DP_PORT_DESC, txd = DP_PORT_DESC;
    int rc = rte_eth_dev_configure(port, 1, 1, &conf);
    if (rc == 0) rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
    if (rc == 0) rc = rte_eth_rx_queue_setup(port, 0, rxd, rte_eth_dev_socket_id(port), NULL, mp);
    if (rc == 0) rc = rte_eth_tx_queue_setup(port, 0, txd, rte_eth_dev_socket_id(port), NULL);
    if (rc == 0) rc = rte_eth_dev_start(port);
    if (rc != 0) return dp_set_error(err, "port %u: %s", port, rte_strerror(-rc));
    rte_eth_promiscuous_enable(port); /* af_packet: see every frame on the veth */
    return DP_OK;
}
