/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memguard: a poll loop survives its memif peer leaving mid-burst.
 *
 * DPDK 22.11's memif PMD, when its peer disconnects (an orderly stop, or kill -9 of e3-nic or of a host's
 * agent), marks the link down and unmaps the shared memory in the EAL interrupt thread, with no fence
 * against a data-path thread already inside rte_eth_rx_burst or rte_eth_tx_burst past its "connected"
 * check. That thread then reads or writes unmapped memory: SIGSEGV. Seen on both sides: a client killed
 * crashed its server in 1 of 20 runs, a server killed its busy-polling client in 1 of 20
 * (e3-dpbench memif-tx/memif-rx; the bench's own crash, issue 19 item 13).
 *
 * A burst run through dp_guarded_burst that faults (SIGSEGV or SIGBUS) while its port's link is down is
 * that race: the burst is abandoned and reported as faulted; the caller counts its frames lost and the next
 * burst on the port returns at once (the PMD checks "connected" first) until the peer is back. A fault
 * anywhere else, or in a burst on a port whose link is still up, is a real crash and gets the default action
 * (a core dump); the latter first says so on stderr, with the faulting address, since its core's stack ends
 * in dp_guarded_burst: the signal handler does only async-signal-safe things (it records the fault and jumps
 * back), and the link state is read after it. Rx: nothing received (an mbuf the PMD had allocated for the
 * burst leaks). Tx: the frames are the PMD's (it may have freed some): the caller must neither free nor
 * resend them.
 */
#ifndef E3DP_MEMGUARD_H
#define E3DP_MEMGUARD_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "e3dp/dp.h"

/* rte_eth_rx_burst or rte_eth_tx_burst (or a test's stand-in). */
typedef uint16_t (*dp_burst_fn)(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);

/* Install the process's SIGSEGV/SIGBUS handler (once, before the poll loops start). DP_ERR with `err`. */
int dp_memguard_install(char *err);

/* burst(port, 0, pkts, n) under the guard: what it returned, with *faulted 0; or 0 with *faulted 1 when
 * its peer left mid-burst (see above). Any thread; without dp_memguard_install, just the burst. */
uint16_t dp_guarded_burst(dp_burst_fn burst, uint16_t port, struct rte_mbuf **pkts, uint16_t n, int *faulted);

#endif
