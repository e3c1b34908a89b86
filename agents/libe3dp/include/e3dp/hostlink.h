/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hostlink: the host's side of its SmartNICs' host links (the emulated PCIe path). In an
 * emulated rack a server's host has no kernel interface to the ToR: all its data-plane traffic
 * goes over net_memif (client role) to its SmartNIC(s), one link per NIC (1 for type1, 4 for
 * type2), teamed. One poll loop, on its own lcore, owns the links:
 *   from a link: UDP to the host's IP -> the host's UDP stack (the agent runtime's chan_net);
 *     anything else -> dropped and counted by reason (not_for_us, or the parser's);
 *   egress ring (multi-producer RTS / single consumer: what the stack sends, from any engine worker):
 *     to the host's own IP -> back into the stack (a NIC drops the host's own address: looping
 *       it back is the host's job, as a kernel's loopback would);
 *     else -> the link its flow hashes to among the links that are up (one flow, one link);
 *       none up -> dropped (no_link).
 * Link state is polled every DP_LINK_CHECK_MS; the stack's timeouts are swept every DP_SWEEP_MS.
 * Frames leave with zero MACs: the NIC's traffic manager rewrites them for its wire port.
 */
#ifndef E3DP_HOSTLINK_H
#define E3DP_HOSTLINK_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "chan.h"
#include "e3dp/dp.h"
#include "e3dp/pkt.h"

#define DP_HOSTLINK_MAX 4          /* host links (SmartNICs) per host */
#define DP_HOSTLINK_EGRESS_SLOTS 8192 /* egress ring entries (power of two) */

typedef struct dp_hostlink dp_hostlink; /* opaque */

typedef struct dp_hostlink_config {
    const char *ip;                      /* the host's IPv4 address, dotted (its instances bind it) */
    uint16_t ports[DP_HOSTLINK_MAX];     /* DPDK port ids of the links (started, memif clients) */
    size_t n_ports;                      /* 1..DP_HOSTLINK_MAX */
    int busy_poll;                       /* 1: never sleep when idle */
} dp_hostlink_config;

/* Counters (read any time). */
typedef struct dp_hostlink_counters {
    uint64_t rx[DP_HOSTLINK_MAX];   /* frames received per link */
    uint64_t tx[DP_HOSTLINK_MAX];   /* frames sent per link */
    int up[DP_HOSTLINK_MAX];        /* link state last seen (1 up) */
    uint64_t delivered;             /* datagrams handed to the host's stack from the links */
    uint64_t looped;                /* datagrams to the host's own IP, delivered locally */
    uint64_t drops[DP_DROP_COUNT];  /* per reason (the stack's unsent frames in tx_full) */
} dp_hostlink_counters;

/* A host link loop over started ports, with its egress ring and the host's UDP stack. NULL with
 * `err` (DP_ERRBUF_LEN bytes) on a bad address or port count, or no memory. */
dp_hostlink *dp_hostlink_new(const dp_hostlink_config *cfg, struct rte_mempool *mp, char *err);

/* Free it (after the loop stopped and every node of its stack was freed). NULL is fine. */
void dp_hostlink_free(dp_hostlink *hl);

/* The host's UDP stack, for the agent runtime (agent_runtime.net). */
chan_net *dp_hostlink_net(dp_hostlink *hl);

/* One pass over every link and the egress ring; how many packets it handled. The loop's thread
 * only (tests call it directly). */
size_t dp_hostlink_poll(dp_hostlink *hl);

/* Poll until dp_hostlink_stop. An lcore_function_t (argument: the dp_hostlink). */
int dp_hostlink_run(void *hl);

/* Make dp_hostlink_run return. Any thread. */
void dp_hostlink_stop(dp_hostlink *hl);

/* A snapshot of the counters. Any thread. */
void dp_hostlink_counters_get(dp_hostlink *hl, dp_hostlink_counters *out);

#endif
