/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tm: the emulated LiquidIO's traffic manager (paper §3.1). One poll loop, on its own lcore,
 * owns every port:
 *   wire ports (net_af_packet on the veth to the ToR; up to NIC_MAX_WIRE):
 *     ARP who-has for the NIC's or the host's IP -> answered with the port's MAC (the ToR's ECMP
 *       route for the host IP resolves through the NIC ports);
 *     UDP to the NIC's IP  -> the ingress ring -> the NIC's own stack (its worker cores);
 *     UDP to the host's IP -> the host port (net_memif to the host's e3-agent: the PCIe path);
 *     anything else        -> dropped and counted by reason (dp_drop).
 *   host port: UDP to the NIC's IP -> ingress ring; to anywhere else -> a wire port chosen by
 *     flow hash (the host sends through its NICs), MACs rewritten for that port.
 *   egress ring (frames the NIC's own stack sends, from any worker): to the NIC's IP -> ingress
 *     ring, to the host -> host port, else -> wire port by flow hash.
 * The ingress ring's depth is what heartbeats report as the NIC's queue length.
 *
 * Idle: in adaptive mode (the default) the loop sleeps DP_IDLE_SLEEP_US after DP_IDLE_SPINS
 * empty polls, so emulated NICs do not burn a host core each; busy mode polls without pause (as
 * firmware does; use it for benchmarks). The loop's pieces (tx queues, drop counters, link
 * state, timers, the idle loop) are libe3dp's e3dp/poll.h, shared with the host's side of the
 * host link (e3dp/hostlink.h).
 */
#ifndef E3NIC_TM_H
#define E3NIC_TM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "chan.h"
#include "e3dp/pkt.h"
#include "nic.h"

#define NIC_INGRESS_SLOTS 4096  /* ingress ring entries (power of two) */
#define NIC_EGRESS_SLOTS 8192   /* egress ring entries (power of two) */

typedef struct nic_tm nic_tm; /* opaque */

typedef struct nic_tm_config {
    const char *ip;                         /* the NIC's IPv4 address (its instances bind it) */
    const char *host_ip;                    /* the host's IPv4 address, or NULL: no host port */
    uint16_t wire_ports[NIC_MAX_WIRE];      /* DPDK port ids of the wire ports */
    size_t n_wire;                          /* 1..NIC_MAX_WIRE */
    uint8_t gateway_macs[NIC_MAX_WIRE][6];  /* next hop (ToR port) MAC per wire port */
    int gateway_known[NIC_MAX_WIRE];        /* 0: learn it from the first frame received */
    int has_host;                           /* 1: host_port is the host link */
    uint16_t host_port;                     /* DPDK port id of the host link (memif) */
    int busy_poll;                          /* 1: never sleep when idle */
} nic_tm_config;

/* Counters (read any time). */
typedef struct nic_tm_counters {
    uint64_t wire_rx;                 /* frames received on wire ports */
    uint64_t wire_tx;                 /* frames sent on wire ports */
    uint64_t wire_rx_port[NIC_MAX_WIRE]; /* per wire port */
    uint64_t host_rx;                 /* frames from the host link */
    uint64_t host_tx;                 /* frames to the host link */
    uint64_t to_workers;              /* datagrams handed to the NIC's own instances */
    uint64_t arp_replies;             /* ARP who-has answered */
    uint64_t drops[DP_DROP_COUNT];    /* per reason */
} nic_tm_counters;

/* A traffic manager over started ports, with its rings and its UDP stack (the NIC's IP).
 * NULL with `err` on bad addresses or no memory. */
nic_tm *nic_tm_new(const nic_tm_config *cfg, struct rte_mempool *mp, char *err);

/* Free it (after the loop stopped and every node of its stack was freed). NULL is fine. */
void nic_tm_free(nic_tm *tm);

/* The NIC's UDP stack, for the agent runtime. */
chan_net *nic_tm_net(nic_tm *tm);

/* One pass over every port and ring; returns how many packets it handled. The loop's thread
 * only (tests call it directly). */
size_t nic_tm_poll(nic_tm *tm);

/* Poll until nic_tm_stop. An lcore_function_t (argument: the nic_tm). */
int nic_tm_run(void *tm);

/* Make nic_tm_run return. Any thread. */
void nic_tm_stop(nic_tm *tm);

/* Datagrams waiting in the ingress ring. Any thread. */
size_t nic_tm_ingress_len(nic_tm *tm);

/* A snapshot of the counters. Any thread. */
void nic_tm_counters_get(nic_tm *tm, nic_tm_counters *out);

#endif
