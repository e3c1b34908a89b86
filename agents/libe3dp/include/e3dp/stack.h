/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stack: UDP over DPDK for the agent runtime. It is a `chan_net` (chan.h): the runtime's instance
 * nodes and egress node are io nodes kept in a port table, fed by dp_stack_input and sending
 * through dp_stack's xmit, which writes Ethernet/IPv4/UDP headers (dp_write_udp; MACs zero: the
 * poll loop that transmits sets them) into an mbuf and hands it to the owner's `tx` callback.
 *
 * Threads: dp_stack_input and dp_stack_sweep run on ONE poll thread (the traffic manager); xmit
 * runs on any thread (engine workers reply through it); node_new/node_free on the command
 * thread. The port table is guarded by a reader-writer lock that the poll thread holds while it
 * feeds a node, so node_free never frees a node being fed.
 */
#ifndef E3DP_STACK_H
#define E3DP_STACK_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "chan.h"
#include "e3dp/dp.h"
#include "e3dp/pkt.h"

#define DP_EPHEMERAL_FIRST 49152  /* ports handed out for port 0 start here */

typedef struct dp_stack dp_stack; /* opaque */

/* Take frame `m` (headers written, MACs zero) towards IPv4 `dst_ip` (network order): the callee
 * owns `m` on DP_OK; on DP_ERR the stack frees it and counts a tx_full drop. Any thread. */
typedef int (*dp_tx_fn)(void *ctx, struct rte_mbuf *m, uint32_t dst_ip);

/* A stack answering for IPv4 `ip` (dotted quad), taking buffers from `mp`, sending through
 * `tx(tx_ctx, ...)`. NULL with `err` on a bad address or no memory. */
dp_stack *dp_stack_new(const char *ip, struct rte_mempool *mp, dp_tx_fn tx, void *tx_ctx, char *err);

/* Free the stack; every node must have been freed. NULL is fine. */
void dp_stack_free(dp_stack *st);

/* The stack as a chan_net, for agent_runtime / cmd_new / pl_new. */
chan_net *dp_stack_net(dp_stack *st);

/* The stack's IPv4 address, network order. */
uint32_t dp_stack_ip(const dp_stack *st);

/* Hand a parsed UDP datagram for this stack's address to the node on its destination port.
 * Returns DP_DROP_NONE, or DP_DROP_NO_INSTANCE when no node listens there. Poll thread. */
dp_drop dp_stack_input(dp_stack *st, const dp_parsed *p);

/* Expire timed-out requests of every node (chan_udp_node_sweep). Poll thread, every ms or so. */
void dp_stack_sweep(dp_stack *st);

/* Frames the stack could not send (no buffer or tx refused). */
uint64_t dp_stack_tx_dropped(const dp_stack *st);

#endif
