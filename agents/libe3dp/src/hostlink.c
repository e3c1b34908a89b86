/* SPDX-License-Identifier: Apache-2.0 */
/* hostlink: see e3dp/hostlink.h. */
#include "e3dp/hostlink.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "e3dp/memguard.h"
#include "e3dp/poll.h"
#include "e3dp/stack.h"

/* Counters: the loop writes them (the stack counts its own unsent frames); any thread reads. */
typedef struct hl_stats {
    _Atomic uint64_t rx[DP_HOSTLINK_MAX], tx[DP_HOSTLINK_MAX];
    _Atomic uint64_t delivered, looped;
    atomic_int up[DP_HOSTLINK_MAX];
    dp_drops drops;
} hl_stats;

struct dp_hostlink {
    dp_hostlink_config cfg;           /* as given */
    uint32_t ip;                      /* the host's address, network order */
    struct rte_ring *egress;          /* MP/SC: frames the host's stack sends */
    dp_stack *stack;                  /* the host's UDP stack */
    dp_txq txq[DP_HOSTLINK_MAX];      /* per link */
    size_t up[DP_HOSTLINK_MAX];       /* indexes of the links up, up[0..n_up) */
    size_t n_up;                      /* entries used */
    uint64_t next_link_check;         /* timer cycles */
    uint64_t next_sweep;              /* timer cycles */
    atomic_int quit;                  /* set by dp_hostlink_stop */
    hl_stats st;                      /* counters */
};

#define HL_INC(hl, field) atomic_fetch_add_explicit(&(hl)->st.field, 1, memory_order_relaxed)

dp_hostlink *dp_hostlink_new(const dp_hostlink_config *cfg, struct rte_mempool *mp, char *err) {
    if (cfg->n_ports < 1 || cfg->n_ports > DP_HOSTLINK_MAX) {
        dp_set_error(err, "hostlink: %zu links (1..%d)", cfg->n_ports, DP_HOSTLINK_MAX);
        return NULL;
    }
    dp_hostlink *hl = calloc(1, sizeof(*hl));
    if (!hl) {
        dp_set_error(err, "hostlink: out of memory");
        return NULL;
    }
    hl->cfg = *cfg;
    for (size_t k = 0; k < cfg->n_ports; k++) dp_txq_init(&hl->txq[k], cfg->ports[k], &hl->st.tx[k], &hl->st.drops);
    hl->egress = dp_ring_new("hl_eg", hl, DP_HOSTLINK_EGRESS_SLOTS, DP_EGRESS_RING_FLAGS, err);
    if (!hl->egress) goto err;
    hl->stack = dp_stack_new(cfg->ip, mp, dp_ring_tx, hl->egress, err);
    if (!hl->stack) goto err;
    hl->ip = dp_stack_ip(hl->stack);
    return hl;
err:
    dp_hostlink_free(hl);
    return NULL;
}

void dp_hostlink_free(dp_hostlink *hl) {
    if (!hl) return;
    dp_ring_drain_free(hl->egress);
    for (size_t k = 0; k < DP_HOSTLINK_MAX; k++) dp_txq_discard(&hl->txq[k]);
    dp_stack_free(hl->stack);
    free(hl);
}

chan_net *dp_hostlink_net(dp_hostlink *hl) {
    return dp_stack_net(hl->stack);
}

/* A frame from link `k`: the host's datagrams go to its stack. */
static void hl_from_link(dp_hostlink *hl, size_t k, struct rte_mbuf *m) {
    dp_parsed p;
    atomic_fetch_add_explicit(&hl->st.rx[k], 1, memory_order_relaxed);
    if (dp_parse_mbuf(m, &p) != DP_KIND_UDP)
        dp_drop_free(&hl->st.drops, m, p.kind == DP_KIND_DROP ? p.reason : DP_DROP_NOT_FOR_US);
    else if (p.dst_ip != hl->ip)
        dp_drop_free(&hl->st.drops, m, DP_DROP_NOT_FOR_US);
    else if (dp_stack_deliver(hl->stack, m, &p, &hl->st.drops))
        HL_INC(hl, delivered);
}

/* A frame the host's stack sends: looped back to itself, or out on a link by flow hash. */
static void hl_from_stack(dp_hostlink *hl, struct rte_mbuf *m) {
    dp_parsed p;
    if (dp_parse_mbuf(m, &p) != DP_KIND_UDP) { /* the stack writes only UDP: a bug, still counted */
        dp_drop_free(&hl->st.drops, m, p.kind == DP_KIND_DROP ? p.reason : DP_DROP_NOT_UDP);
        return;
    }
    if (p.dst_ip == hl->ip) {
        if (dp_stack_deliver(hl->stack, m, &p, &hl->st.drops)) HL_INC(hl, looped);
        return;
    }
    if (!hl->n_up) {
        dp_drop_free(&hl->st.drops, m, DP_DROP_NO_LINK);
        return;
    }
    size_t k = hl->up[dp_flow_hash(p.src_ip, p.dst_ip, p.src_port, p.dst_port) % hl->n_up];
    dp_txq_push(&hl->txq[k], m);
}

static void hl_housekeeping(dp_hostlink *hl) {
    if (dp_every(&hl->next_link_check, DP_LINK_CHECK_MS)) {
        hl->n_up = 0;
        for (size_t k = 0; k < hl->cfg.n_ports; k++) {
            int up = dp_link_up(hl->cfg.ports[k]);
            atomic_store_explicit(&hl->st.up[k], up, memory_order_relaxed);
            if (up) hl->up[hl->n_up++] = k;
        }
    }
    if (dp_every(&hl->next_sweep, DP_SWEEP_MS)) dp_stack_sweep(hl->stack);
}

size_t dp_hostlink_poll(dp_hostlink *hl) {
    struct rte_mbuf *pkts[DP_BURST];
    size_t work = 0;
    hl_housekeeping(hl);
    for (size_t k = 0; k < hl->cfg.n_ports; k++) {
        int faulted; /* its NIC left mid-burst: nothing received (e3dp/memguard.h) */
        uint16_t n = dp_guarded_burst(rte_eth_rx_burst, hl->cfg.ports[k], pkts, DP_BURST, &faulted);
        for (uint16_t i = 0; i < n; i++) hl_from_link(hl, k, pkts[i]);
        work += n;
    }
    unsigned n = rte_ring_sc_dequeue_burst(hl->egress, (void **)pkts, DP_BURST, NULL);
    for (unsigned i = 0; i < n; i++) hl_from_stack(hl, pkts[i]);
    work += n;
    for (size_t k = 0; k < hl->cfg.n_ports; k++) dp_txq_flush(&hl->txq[k]);
    return work;
}

static size_t hl_poll_any(void *hl) {
    return dp_hostlink_poll(hl);
}

int dp_hostlink_run(void *arg) {
    dp_hostlink *hl = arg;
    dp_poll_loop(hl_poll_any, hl, &hl->quit, hl->cfg.busy_poll);
    return 0;
}

void dp_hostlink_stop(dp_hostlink *hl) {
    atomic_store(&hl->quit, 1);
}

void dp_hostlink_counters_get(dp_hostlink *hl, dp_hostlink_counters *out) {
    memset(out, 0, sizeof(*out));
    for (size_t k = 0; k < DP_HOSTLINK_MAX; k++) {
        out->rx[k] = atomic_load_explicit(&hl->st.rx[k], memory_order_relaxed);
        out->tx[k] = atomic_load_explicit(&hl->st.tx[k], memory_order_relaxed);
        out->up[k] = atomic_load_explicit(&hl->st.up[k], memory_order_relaxed);
    }
    out->delivered = atomic_load_explicit(&hl->st.delivered, memory_order_relaxed);
    out->looped = atomic_load_explicit(&hl->st.looped, memory_order_relaxed);
    dp_drops_get(&hl->st.drops, hl->stack, out->drops);
}
