/* SPDX-License-Identifier: Apache-2.0 */
/* tm: see tm.h. */
#include "tm.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "e3dp/memguard.h"
#include "e3dp/poll.h"
#include "e3dp/stack.h"

/* Counters: one writer (the loop) except tx_dropped (the stack); readers any thread. */
typedef struct tm_stats {
    _Atomic uint64_t wire_rx, wire_tx, host_rx, host_tx, to_workers, arp_replies;
    _Atomic uint64_t wire_rx_port[NIC_MAX_WIRE];
    dp_drops drops;
} tm_stats;

struct nic_tm {
    nic_tm_config cfg;                     /* as given (gateway MACs learnt in place) */
    uint32_t ip, host_ip;                  /* network order (host_ip 0: none) */
    uint8_t wire_macs[NIC_MAX_WIRE][6];    /* each wire port's own MAC */
    struct rte_mempool *mp;                /* frame buffers */
    struct rte_ring *ingress;              /* SP/SC: datagrams for the NIC's own instances */
    struct rte_ring *egress;               /* MP/SC: frames the NIC's stack sends */
    dp_stack *stack;                       /* the NIC's UDP stack */
    dp_txq wire_q[NIC_MAX_WIRE];           /* per wire port */
    dp_txq host_q;                         /* to the host link */
    int host_up;                           /* last host link state seen */
    uint64_t next_link_check;              /* timer cycles */
    uint64_t next_sweep;                   /* timer cycles */
    atomic_int quit;                       /* set by nic_tm_stop */
    tm_stats st;                           /* counters */
};

#define TM_INC(tm, field) atomic_fetch_add_explicit(&(tm)->st.field, 1, memory_order_relaxed)

static void tm_drop(nic_tm *tm, struct rte_mbuf *m, dp_drop reason) {
    dp_drop_free(&tm->st.drops, m, reason);
}

nic_tm *nic_tm_new(const nic_tm_config *cfg, struct rte_mempool *mp, char *err) {
    if (cfg->n_wire < 1 || cfg->n_wire > NIC_MAX_WIRE) {
        nic_set_error(err, "tm: %zu wire ports (1..%d)", cfg->n_wire, NIC_MAX_WIRE);
        return NULL;
    }
    struct in_addr a;
    nic_tm *tm = calloc(1, sizeof(*tm));
    if (!tm) {
        nic_set_error(err, "tm: out of memory");
        return NULL;
    }
    tm->cfg = *cfg;
    tm->mp = mp;
    if (!cfg->ip || inet_pton(AF_INET, cfg->ip, &a) != 1) {
        nic_set_error(err, "tm: bad NIC address \"%s\"", cfg->ip ? cfg->ip : "");
        goto err;
    }
    tm->ip = a.s_addr;
    if (cfg->host_ip) {
        if (inet_pton(AF_INET, cfg->host_ip, &a) != 1) {
            nic_set_error(err, "tm: bad host address \"%s\"", cfg->host_ip);
            goto err;
        }
        tm->host_ip = a.s_addr;
    }
    for (size_t w = 0; w < cfg->n_wire; w++) {
        struct rte_ether_addr mac;
        if (rte_eth_macaddr_get(cfg->wire_ports[w], &mac) != 0) {
            nic_set_error(err, "tm: wire port %u has no MAC address", cfg->wire_ports[w]);
            goto err;
        }
        memcpy(tm->wire_macs[w], mac.addr_bytes, 6);
        dp_txq_init(&tm->wire_q[w], cfg->wire_ports[w], &tm->st.wire_tx, &tm->st.drops);
    }
    dp_txq_init(&tm->host_q, cfg->host_port, &tm->st.host_tx, &tm->st.drops);
    tm->ingress = dp_ring_new("tm_in", tm, NIC_INGRESS_SLOTS, RING_F_SP_ENQ | RING_F_SC_DEQ, err);
    if (!tm->ingress) goto err;
    tm->egress = dp_ring_new("tm_eg", tm, NIC_EGRESS_SLOTS, DP_EGRESS_RING_FLAGS, err);
    if (!tm->egress) goto err;
    tm->stack = dp_stack_new(cfg->ip, mp, dp_ring_tx, tm->egress, err);
    if (!tm->stack) goto err;
    return tm;
err:
    nic_tm_free(tm);
    return NULL;
}

void nic_tm_free(nic_tm *tm) {
    if (!tm) return;
    dp_ring_drain_free(tm->ingress);
    dp_ring_drain_free(tm->egress);
    for (size_t w = 0; w < NIC_MAX_WIRE; w++) dp_txq_discard(&tm->wire_q[w]);
    dp_txq_discard(&tm->host_q);
    dp_stack_free(tm->stack);
    free(tm);
}

chan_net *nic_tm_net(nic_tm *tm) {
    return dp_stack_net(tm->stack);
}

static void tm_to_host(nic_tm *tm, struct rte_mbuf *m) {
    if (!tm->cfg.has_host || !tm->host_up) {
        tm_drop(tm, m, DP_DROP_HOST_DOWN);
        return;
    }
    dp_txq_push(&tm->host_q, m);
}

static void tm_to_workers(nic_tm *tm, struct rte_mbuf *m) {
    if (rte_ring_sp_enqueue(tm->ingress, m) != 0) tm_drop(tm, m, DP_DROP_QUEUE_FULL);
}

/* Out on the wire port the flow hashes to, with that port's MACs. */
static void tm_to_wire(nic_tm *tm, struct rte_mbuf *m, const dp_parsed *p) {
    size_t w = dp_flow_hash(p->src_ip, p->dst_ip, p->src_port, p->dst_port) % tm->cfg.n_wire;
    if (!tm->cfg.gateway_known[w]) {
        tm_drop(tm, m, DP_DROP_NO_GATEWAY);
        return;
    }
    dp_set_macs(rte_pktmbuf_mtod(m, uint8_t *), tm->wire_macs[w], tm->cfg.gateway_macs[w]);
    dp_txq_push(&tm->wire_q[w], m);
}

/* Answer a who-has for one of our addresses in place, back out of wire port `w`. */
static void tm_arp(nic_tm *tm, struct rte_mbuf *m, size_t w, const dp_parsed *p) {
    if (p->kind != DP_KIND_ARP_REQUEST || (p->dst_ip != tm->ip && (!tm->host_ip || p->dst_ip != tm->host_ip))) {
        rte_pktmbuf_free(m); /* replies and who-has for others: normal on a LAN, not a drop */
        return;
    }
    uint8_t asker_mac[6];
    memcpy(asker_mac, p->src_mac, 6);
    uint32_t asker_ip = p->src_ip, target = p->dst_ip;
    rte_pktmbuf_reset(m);
    uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, DP_ARP_FRAME_LEN);
    dp_write_arp_reply(buf, tm->wire_macs[w], target, asker_mac, asker_ip);
    TM_INC(tm, arp_replies);
    dp_txq_push(&tm->wire_q[w], m);
}

static void tm_from_wire(nic_tm *tm, size_t w, struct rte_mbuf *m) {
    dp_parsed p;
    TM_INC(tm, wire_rx);
    atomic_fetch_add_explicit(&tm->st.wire_rx_port[w], 1, memory_order_relaxed);
    if (rte_pktmbuf_is_contiguous(m) == 0) {
        tm_drop(tm, m, DP_DROP_OVERSIZED);
        return;
    }
    dp_parse_mbuf(m, &p);
    if (p.kind != DP_KIND_DROP && !tm->cfg.gateway_known[w]) { /* the ToR is the only peer */
        memcpy(tm->cfg.gateway_macs[w], p.src_mac, 6);
        tm->cfg.gateway_known[w] = 1;
    }
    if (p.kind == DP_KIND_DROP)
        tm_drop(tm, m, p.reason);
    else if (p.kind != DP_KIND_UDP)
        tm_arp(tm, m, w, &p);
    else if (p.dst_ip == tm->ip)
        tm_to_workers(tm, m);
    else if (tm->host_ip && p.dst_ip == tm->host_ip)
        tm_to_host(tm, m);
    else
        tm_drop(tm, m, DP_DROP_NOT_FOR_US);
}

/* A frame from the host link or from the NIC's own stack. */
static void tm_from_inside(nic_tm *tm, struct rte_mbuf *m, int from_host) {
    dp_parsed p;
    if (from_host) TM_INC(tm, host_rx);
    dp_parse_mbuf(m, &p);
    if (p.kind != DP_KIND_UDP)
        tm_drop(tm, m, p.kind == DP_KIND_DROP ? p.reason : DP_DROP_NOT_FOR_US);
    else if (p.dst_ip == tm->ip)
        tm_to_workers(tm, m);
    else if (tm->host_ip && p.dst_ip == tm->host_ip && from_host)
        tm_drop(tm, m, DP_DROP_NOT_FOR_US); /* the host's own address: its agent loops it back itself */
    else if (tm->host_ip && p.dst_ip == tm->host_ip)
        tm_to_host(tm, m);
    else
        tm_to_wire(tm, m, &p);
}

/* Feed the NIC's stack from the ingress ring (it submits to the worker cores). */
static size_t tm_serve_ingress(nic_tm *tm) {
    struct rte_mbuf *pkts[DP_BURST];
    unsigned n = rte_ring_sc_dequeue_burst(tm->ingress, (void **)pkts, DP_BURST, NULL);
    for (unsigned i = 0; i < n; i++) {
        dp_parsed p;
        dp_parse_mbuf(pkts[i], &p);
        if (dp_stack_deliver(tm->stack, pkts[i], &p, &tm->st.drops)) TM_INC(tm, to_workers);
    }
    return n;
}

static void tm_housekeeping(nic_tm *tm) {
    if (tm->cfg.has_host && dp_every(&tm->next_link_check, DP_LINK_CHECK_MS)) tm->host_up = dp_link_up(tm->cfg.host_port);
    if (dp_every(&tm->next_sweep, DP_SWEEP_MS)) dp_stack_sweep(tm->stack);
}

size_t nic_tm_poll(nic_tm *tm) {
    struct rte_mbuf *pkts[DP_BURST];
    size_t work = 0;
    tm_housekeeping(tm);
    for (size_t w = 0; w < tm->cfg.n_wire; w++) {
        uint16_t n = rte_eth_rx_burst(tm->cfg.wire_ports[w], 0, pkts, DP_BURST);
        for (uint16_t i = 0; i < n; i++) tm_from_wire(tm, w, pkts[i]);
        work += n;
    }
    if (tm->cfg.has_host) {
        int faulted; /* the host's agent left mid-burst: nothing received (e3dp/memguard.h) */
        uint16_t n = dp_guarded_burst(rte_eth_rx_burst, tm->cfg.host_port, pkts, DP_BURST, &faulted);
        for (uint16_t i = 0; i < n; i++) tm_from_inside(tm, pkts[i], 1);
        work += n;
    }
    unsigned n = rte_ring_sc_dequeue_burst(tm->egress, (void **)pkts, DP_BURST, NULL);
    for (unsigned i = 0; i < n; i++) tm_from_inside(tm, pkts[i], 0);
    work += n;
    work += tm_serve_ingress(tm);
    for (size_t w = 0; w < tm->cfg.n_wire; w++) dp_txq_flush(&tm->wire_q[w]);
    if (tm->cfg.has_host) dp_txq_flush(&tm->host_q);
    return work;
}

static size_t tm_poll_any(void *tm) {
    return nic_tm_poll(tm);
}

int nic_tm_run(void *arg) {
    nic_tm *tm = arg;
    dp_poll_loop(tm_poll_any, tm, &tm->quit, tm->cfg.busy_poll);
    return 0;
}

void nic_tm_stop(nic_tm *tm) {
    atomic_store(&tm->quit, 1);
}

size_t nic_tm_ingress_len(nic_tm *tm) {
    return rte_ring_count(tm->ingress);
}

void nic_tm_counters_get(nic_tm *tm, nic_tm_counters *out) {
    memset(out, 0, sizeof(*out));
    out->wire_rx = atomic_load(&tm->st.wire_rx);
    out->wire_tx = atomic_load(&tm->st.wire_tx);
    out->host_rx = atomic_load(&tm->st.host_rx);
    out->host_tx = atomic_load(&tm->st.host_tx);
    out->to_workers = atomic_load(&tm->st.to_workers);
    out->arp_replies = atomic_load(&tm->st.arp_replies);
    for (size_t w = 0; w < NIC_MAX_WIRE; w++) out->wire_rx_port[w] = atomic_load(&tm->st.wire_rx_port[w]);
    dp_drops_get(&tm->st.drops, tm->stack, out->drops);
}
