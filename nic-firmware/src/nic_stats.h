/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nic_stats: the traffic manager's counters as one JSON object, rewritten (temp file + rename)
 * every second by a thread of its own and once more when stopped. What the rack's tools read
 * (ECMP spread per port, drops by reason) without asking the controller.
 */
#ifndef E3NIC_STATS_H
#define E3NIC_STATS_H

#include <stdio.h>

#include "tm.h"

typedef struct nic_stats_writer nic_stats_writer; /* opaque */

/* Write `c` as JSON to `f` (one object, keys: wire_rx, wire_tx, wire_rx_port[], host_rx,
 * host_tx, to_workers, arp_replies, drops{reason: n}, emulated: true). */
void nic_stats_json(FILE *f, const nic_tm_counters *c);

/* Start writing `tm`'s counters to `path`. NULL with `err` if the first write fails. */
nic_stats_writer *nic_stats_start(const char *path, nic_tm *tm, char *err);

/* Stop the thread after one last write. NULL is fine. */
void nic_stats_stop(nic_stats_writer *w);

#endif
