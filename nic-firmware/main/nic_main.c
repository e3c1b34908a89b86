/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-nic: an emulated Cavium LiquidIO II SmartNIC (docs/emulation.md). No SmartNIC hardware is
 * involved: DPDK moves real packets over veths (net_af_packet) and a host link (net_memif), the
 * microservices run their real code on engine worker threads paced to Table 1's SmartNIC speed,
 * and power comes from the model (source "model").
 *
 * Start-up, in a fixed order: signals blocked (every thread inherits the mask), own options, EAL
 * (arguments built from the options), mempool, ports (configured, started), the traffic manager
 * on lcore 1, then the agent runtime on the main lcore (the orchestrator agent: register,
 * heartbeats, commands) with the NIC's UDP stack as its network. SIGINT/SIGTERM end the runtime
 * (instances drained while the traffic manager still moves their replies); then the traffic
 * manager stops, the lcores are joined, the ports stopped and closed, the EAL cleaned up (its
 * runtime files removed).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "calibration.h"
#include "cli.h"
#include "e3dp/eal.h"
#include "e3dp/memguard.h"
#include "e3dp/poll.h"
#include "heartbeat.h"
#include "nic_cli.h"
#include "nic_stats.h"
#include "runtime.h"
#include "tm.h"

#define NIC_VERSION "e3-nic 0.1.0 (emulated LiquidIO II)"
#define NIC_MBUFS DP_FRAME_POOL_MAX(8192) /* frame buffers in the pool (7168) */
#define NIC_MBUF_CACHE 256      /* per-lcore cache */
#define NIC_TM_LCORE 1          /* the traffic manager's lcore */

/* Everything the lcores share. */
typedef struct nic_resources {
    nic_opts opts;                 /* parsed options */
    struct rte_mempool *mp;        /* frame buffers */
    uint16_t ports[NIC_MAX_WIRE + 1]; /* started ports: wires, then the host link */
    size_t n_ports;                /* entries used */
    nic_tm *tm;                    /* the traffic manager */
    nic_stats_writer *stats;       /* --stats, or NULL */
} nic_resources;

static double nic_pace(void *ctx, const char *svc_type) {
    (void)ctx;
    return nic_pace_factor(svc_type);
}

static size_t nic_ingress_len(void *ctx) {
    return nic_tm_ingress_len(((nic_resources *)ctx)->tm);
}

/* The power model's load: a LiquidIO has no per-core sleep states, so it draws the highest
 * Table 1 active watts among the services it runs whatever their load; 0 when it runs none.
 * Expressed as a fraction of the model's span (idle .. idle + the table's highest active W). */
static double nic_power_load(void *ctx, eng *e, double cpu_util) {
    (void)ctx, (void)cpu_util;
    eng_inst_stats st[HB_MAX_INSTANCES];
    size_t n = eng_stats_all(e, st, HB_MAX_INSTANCES);
    double w = 0;
    for (size_t i = 0; i < n && i < HB_MAX_INSTANCES; i++)
        if (nic_active_watts(st[i].svc_type) > w) w = nic_active_watts(st[i].svc_type);
    return w / nic_max_active_watts();
}

/* Configure one port with one rx and one tx queue and start it. */
static int nic_port_start(nic_resources *r, uint16_t port, char *err) {
    if (dp_port_start(port, r->mp, err) != DP_OK) return NIC_ERR;
    r->ports[r->n_ports++] = port;
    return NIC_OK;
}

static int nic_ports_start(nic_resources *r, nic_tm_config *tc, char *err) {
    for (size_t w = 0; w < r->opts.n_wire; w++) {
        const char *name = r->opts.wire_ports[w];
        if (rte_eth_dev_get_port_by_name(name, &tc->wire_ports[w]) != 0)
            return nic_set_error(err, "wire port %s (%s) did not come up%s", name, r->opts.wires[w],
                                 r->opts.wire_pci[w] ? ": is it bound to vfio-pci or uio (dpdk-devbind.py)?" : "");
        if (nic_port_start(r, tc->wire_ports[w], err) != NIC_OK) return NIC_ERR;
        if (w < r->opts.n_gateways) {
            dp_parse_mac(r->opts.gateways[w], tc->gateway_macs[w]);
            tc->gateway_known[w] = 1;
        }
    }
    tc->n_wire = r->opts.n_wire;
    if (!r->opts.memif) return NIC_OK;
    if (rte_eth_dev_get_port_by_name("net_memif0", &tc->host_port) != 0)
        return nic_set_error(err, "host link net_memif0 (%s) did not come up", r->opts.memif);
    tc->has_host = 1;
    return nic_port_start(r, tc->host_port, err);
}

static void nic_ports_stop(nic_resources *r) {
    for (size_t i = 0; i < r->n_ports; i++) {
        rte_eth_dev_stop(r->ports[i]);
        rte_eth_dev_close(r->ports[i]);
    }
    r->n_ports = 0;
}

int main(int argc, char **argv) {
    static nic_resources r; /* large (options text): static, still one struct passed around */
    char err[NIC_ERRBUF_LEN], *eal_argv[NIC_MAX_ARGS];
    int eal_argc = 0, rc = 1, eal_up = 0, tm_launched = 0;
    agent_block_signals(); /* before the EAL starts its threads */
    alog_set_program("e3-nic");
    if (nic_cli_parse(argc, argv, &r.opts, err) != NIC_OK) {
        fprintf(stderr, "e3-nic: %s (see --help)\n", err);
        return 2;
    }
    if (r.opts.help) {
        nic_cli_usage(stdout);
        cli_usage(stdout);
        return 0;
    }
    if (r.opts.print_calibration) {
        nic_calibration_print(stdout);
        return 0;
    }
    cli_opts agent;
    char aerr[CLI_ERRBUF_LEN];
    if (cli_parse(r.opts.agent_argc, r.opts.agent_argv, &agent, aerr) != CLI_OK) {
        fprintf(stderr, "e3-nic: %s (see --help)\n", aerr);
        return 2;
    }
    alog_set_level(agent.log_level);
    if (nic_eal_argv(&r.opts, sysconf(_SC_NPROCESSORS_ONLN), eal_argv, NIC_MAX_ARGS, &eal_argc, err) != NIC_OK)
        goto err;
    if (rte_eal_init(eal_argc, eal_argv) < 0) {
        nic_set_error(err, "DPDK EAL: %s (are you root? does --wire name an interface in this namespace%s?)",
                      rte_strerror(rte_errno), nic_uses_pci(&r.opts) ? ", or, for a PCI "
                      "wire, are hugepages mounted and reserved" : "");
        goto err;
    }
    eal_up = 1;
    if (dp_memguard_install(err) != DP_OK) goto err; /* survives its host's agent leaving mid-burst */
    if (!(r.mp = dp_frame_pool_new("e3nic_mbufs", NIC_MBUFS, NIC_MBUF_CACHE, err))) goto err;
    nic_tm_config tc = {.ip = agent.address, .host_ip = r.opts.host_address, .busy_poll = r.opts.busy_poll};
    if (nic_ports_start(&r, &tc, err) != NIC_OK) goto err;
    r.tm = nic_tm_new(&tc, r.mp, err);
    if (!r.tm) goto err;
    if (rte_eal_remote_launch(nic_tm_run, r.tm, NIC_TM_LCORE) != 0) {
        nic_set_error(err, "cannot launch the traffic manager on lcore %d", NIC_TM_LCORE);
        goto err;
    }
    tm_launched = 1;
    if (r.opts.stats_file && !(r.stats = nic_stats_start(r.opts.stats_file, r.tm, err))) goto err;
    alog(ALOG_INFO, "EMULATED SmartNIC (no LiquidIO hardware): %zu wire port(s), host link %s, %u cores, pacing %s, "
         "power from the model", tc.n_wire, r.opts.memif ? r.opts.memif : "none", r.opts.cores,
         r.opts.pace ? "Table 1" : "off");
    agent_runtime rt = {
        .program = "e3-nic",
        .software_version = NIC_VERSION,
        .net = nic_tm_net(r.tm),
        .pace = r.opts.pace ? nic_pace : NULL,
        .ingress_len = nic_ingress_len,
        .power_load = nic_power_load,
        .hooks_ctx = &r,
        .cores = r.opts.cores,
        .memory_mb = NIC_DEFAULT_MEMORY_MB,
    };
    rc = agent_runtime_run(&agent, &rt);
    err[0] = '\0';
err:
    nic_stats_stop(r.stats); /* writes the final counters */
    if (tm_launched) {
        nic_tm_stop(r.tm);
        rte_eal_mp_wait_lcore();
    }
    nic_ports_stop(&r);
    nic_tm_free(r.tm);
    rte_mempool_free(r.mp);
    if (eal_up) dp_eal_cleanup(); /* its runtime files removed too */
    if (err[0]) {
        fprintf(stderr, "e3-nic: %s\n", err);
        return 1;
    }
    return rc;
}
