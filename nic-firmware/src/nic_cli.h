/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nic_cli: e3-nic's command line. e3-nic takes its own options (the ports, the host link, the
 * emulated cores, pacing, DPDK's EAL) and passes every other option to the agent runtime's parser
 * (cli.h: --cluster, --node, --controller, --address, --token-file, ...), adding the defaults of
 * an emulated LiquidIO II (--kind smartnic, --workers = --cores, --cpu-source engine,
 * --power-idle-w NIC_DEFAULT_IDLE_W) unless given. It also builds the EAL arguments: no hugepages,
 * no PCI, a --file-prefix per NIC, one net_af_packet vdev per --wire interface (or, for a --wire
 * PCI address, "-a ADDRESS" with hugepages and the PCI bus left on), a net_memif
 * server vdev for --memif, lcores 0 (the agent) and 1 (the traffic manager) floating over the
 * machine's CPUs, then --eal's words. Pure: no globals, tested directly.
 */
#ifndef E3NIC_CLI_H
#define E3NIC_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "e3dp/eal.h"
#include "nic.h"

#define NIC_MAX_ARGS 96             /* argv entries handed to the agent parser or the EAL */
#define NIC_ARG_STORAGE 4096        /* bytes of generated argument text */
#define NIC_DEFAULT_IDLE_W 15.0     /* W: a type1-smartnic server's idle minus a beefy's (Table 4) */
#define NIC_DEFAULT_MEMORY_MB 4096  /* a LiquidIO II's memory */
#define NIC_CORES_DEFAULT 12        /* a LiquidIO II's cnMIPS cores */
#define NIC_PORT_NAME_LEN 32        /* a DPDK port name: "net_af_packet3" or "0000:3b:00.0" */

typedef struct nic_opts {
    const char *wires[NIC_MAX_WIRE];    /* --wire: interface names (net_af_packet) or PCI addresses */
    char wire_ports[NIC_MAX_WIRE][NIC_PORT_NAME_LEN]; /* the DPDK port name of each wire */
    int wire_pci[NIC_MAX_WIRE];         /* 1: that wire is a PCI device */
    size_t n_wire;
    const char *gateways[NIC_MAX_WIRE]; /* --gateway: next-hop MAC per wire port, in order */
    size_t n_gateways;
    const char *memif;                  /* --memif: host link socket path (NULL: no host) */
    const char *host_address;           /* --host-address: the host's IP (needed with --memif) */
    unsigned cores;                     /* --cores: emulated worker cores (default 12) */
    int busy_poll;                      /* --poll busy */
    int pace;                           /* 0 with --no-pace */
    const char *file_prefix;            /* --file-prefix (default "e3nic-<pid>") */
    const char *eal_extra;              /* --eal: more EAL words, space-separated */
    const char *stats_file;             /* --stats: counters as JSON, rewritten every second */
    int print_calibration;              /* --print-calibration */
    int help;                           /* --help */
    int agent_argc;                     /* argv for cli_parse */
    char *agent_argv[NIC_MAX_ARGS];
    char storage[NIC_ARG_STORAGE];      /* text of generated agent arguments */
    size_t used;                        /* bytes of storage used */
    dp_eal_args eal;                    /* the EAL arguments (nic_eal_argv) */
} nic_opts;

/* Parse argv into `o`. NIC_ERR with `err` (NIC_ERRBUF_LEN bytes) on an unknown value, a
 * missing one, too many ports, --memif without --host-address, or no --wire (unless --help or
 * --print-calibration). Agent options are checked later by cli_parse. */
int nic_cli_parse(int argc, char **argv, nic_opts *o, char *err);

/* Print the help text (e3-nic's own options; the agent's follow from cli_usage). */
void nic_cli_usage(FILE *f);

/* Is `v` a PCI address ([DDDD:]BB:DD.F, hex)? If so, write DPDK's name of it ("0000:3b:00.0",
 * lower case, with the domain) into out[len] and return 1; else 0. */
int nic_pci_address(const char *v, char *out, size_t len);

/* Is any of o's wires a PCI device? */
int nic_uses_pci(const nic_opts *o);

/* The EAL argv for `o` into argv[0..*argc) (e3dp/eal.h's fixed part, a net_af_packet vdev per
 * --wire interface or "-a ADDRESS" per PCI wire, the net_memif server, --eal's words), text in o->eal. `ncpu` is the machine's CPU count.
 * NIC_ERR if it does not fit. */
int nic_eal_argv(nic_opts *o, long ncpu, char **argv, int max, int *argc, char *err);

#endif
