/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calibration: how the emulated LiquidIO is slower (or not) than a host core, per microservice,
 * from the paper's Table 1 (peak requests/s with 512 B requests on 12 host cores with DPDK, and
 * on the LiquidIO II's 12 cnMIPS cores, with active watts). docs/emulation.md has the table and
 * the rules; in short:
 *   per-core service time = cores / peak rps, on each platform;
 *   pace factor = NIC time / host time, but 1 when BOTH platforms ran at line rate (>= 1.8M
 *     req/s: the figure then measures the 10 GbE wire, not the cores: natv4, count, ema, kvs,
 *     flow_monitor), and never below 1 (the emulation slows a host core down; it cannot run
 *     faster than the host, so accelerated services such as ipsec run at host speed).
 * Pure: no DPDK, no I/O (nic_calibration_print writes to a FILE the caller gives).
 */
#ifndef E3NIC_CALIBRATION_H
#define E3NIC_CALIBRATION_H

#include <stddef.h>
#include <stdio.h>

#define NIC_LINE_RATE_RPS 1.8e6   /* req/s at or above which Table 1 measured the wire */
#define NIC_CORES 12              /* cnMIPS cores of a LiquidIO II */

typedef struct nic_calibration {
    const char *service;      /* libe3svc catalogue name */
    double host_rps;          /* Table 1 host (DPDK) peak, req/s */
    double host_cores;        /* cores it used */
    double nic_rps;           /* Table 1 SmartNIC peak, req/s */
    double nic_cores;         /* cores it used */
    double nic_active_w;      /* Table 1 SmartNIC active watts (wall at peak minus idle) */
} nic_calibration;

/* The 16 rows, in Table 1 order; `*n` gets the count. */
const nic_calibration *nic_calibration_table(size_t *n);

/* The row of `service`, or NULL. */
const nic_calibration *nic_calibration_find(const char *service);

/* The pace factor of `service` (rules above); 1 for a service with no row. */
double nic_pace_factor(const char *service);

/* Table 1 SmartNIC active watts of `service`; 0 for a service with no row. */
double nic_active_watts(const char *service);

/* The highest active watts in the table (what a NIC running its most power-hungry service draws
 * above idle). */
double nic_max_active_watts(void);

/* The table with derived factors as one JSON object per line (e3-nic --print-calibration). */
void nic_calibration_print(FILE *f);

#endif
