/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host_dataplane: e3-agent's DPDK side, with --memif. The host of an emulated rack's server has
 * no kernel interface to the ToR: its instances' traffic goes over net_memif host links to its
 * SmartNICs (e3-nic --memif serves them: the emulated PCIe path), teamed by libe3dp's hostlink.
 *
 * Start-up, in a fixed order (signals already blocked by the caller): EAL (e3dp/eal.h's fixed
 * arguments, one net_memif client vdev per --memif, --eal's words), mempool, each link started
 * (1 rx + 1 tx queue), the host link loop on lcore 1. Stop: the loop stopped, lcores joined,
 * ports stopped and closed, everything freed, EAL cleaned up and its runtime files removed.
 */
#ifndef E3AGENT_HOST_DATAPLANE_H
#define E3AGENT_HOST_DATAPLANE_H

#include "chan.h"
#include "cli.h"

typedef struct host_dataplane host_dataplane; /* opaque */

/* Start the host links of `o` (o->n_memif >= 1), the host's stack on o->address. NULL with `err`
 * (CLI_ERRBUF_LEN bytes) if the EAL does not start or a link cannot connect (everything started
 * is undone). */
host_dataplane *host_dataplane_start(const cli_opts *o, char *err);

/* The host's UDP stack, for agent_runtime.net. */
chan_net *host_dataplane_net(host_dataplane *d);

/* Stop and free everything (after agent_runtime_run returned: every node freed). NULL is fine. */
void host_dataplane_stop(host_dataplane *d);

#endif
