/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli: the e3-agent program's command line (see cli_usage for the options) and where its token
 * comes from. Pure apart from reading the token file: no globals, so it is tested directly.
 */
#ifndef E3AGENT_CLI_H
#define E3AGENT_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alog.h"
#include "ctlist.h"
#include "e3rpc.h"

#define CLI_OK 0
#define CLI_ERR -1
#define CLI_ERRBUF_LEN 256
#define CLI_NAME_LEN 128                        /* bytes of a derived node/server name */
#define CLI_DEFAULT_CONTROLLER "127.0.0.1:50051"
#define CLI_DEFAULT_ADDRESS "127.0.0.1"
#define CLI_DEFAULT_WORKERS 2
#define CLI_DEFAULT_IDLE_W 83.0   /* model: the "beefy" server type's idle watts (catalogue) */
#define CLI_DEFAULT_PEAK_W 201.0  /* model: its peak watts */
#define CLI_TOKEN_ENV "E3_AGENT_TOKEN"
#define CLI_MAX_MEMIF 4           /* host links: one per SmartNIC of the server (type2: 4) */

typedef struct cli_opts {
    const char *controller;           /* --controller as given: "host:port[,host:port...]" */
    ctl_list controllers;             /* --controller split (ctlist.h) */
    const char *token;                /* --token (discouraged: visible in ps) */
    const char *token_file;           /* --token-file */
    const char *tls_ca;               /* --tls-ca: PEM certificates trusted for the controller (NULL: plaintext) */
    const char *cluster;              /* cluster name (required) */
    const char *node;                 /* node name, e.g. "s0/host" */
    const char *server;               /* server name, e.g. "s0" */
    e3rpc_node_kind kind;             /* host (default) or SmartNIC */
    const char *address;              /* IP sent to the controller and bound by instances */
    unsigned workers;                 /* engine worker threads, 1..64 */
    double idle_w;                    /* power model: W at 0% utilisation */
    double peak_w;                    /* power model: W at 100% */
    const char *powercap_root;        /* NULL: /sys/class/powercap */
    int cpu_from_engine;              /* 1: node CPU = engine busy fraction (--cpu-source engine);
                                       * 0: the machine's /proc/stat */
    const char *agent_id;             /* NULL: random UUID */
    uint32_t heartbeat_ms;            /* 0: the period Register answers */
    uint32_t forward_timeout_ms;      /* 0: PL_DEFAULT_TIMEOUT_MS */
    alog_level log_level;             /* default ALOG_INFO */
    const char *memifs[CLI_MAX_MEMIF]; /* --memif: host link sockets (net_memif clients), in order;
                                       * none: the kernel's sockets, no DPDK */
    size_t n_memif;                   /* entries used */
    const char *file_prefix;          /* --file-prefix: DPDK runtime prefix (NULL: e3-agent-<pid>) */
    int busy_poll;                    /* --poll busy (default adaptive: 0) */
    const char *eal_extra;            /* --eal: more EAL words, space-separated */
    int help;                         /* --help given */
    char node_buf[CLI_NAME_LEN];      /* storage for a derived node name */
    char server_buf[CLI_NAME_LEN];    /* storage for a derived server name */
} cli_opts;

/* Parse argv[1..argc) into `o` (defaults first). Accepts "--opt value" and "--opt=value".
 * Derives the node from the server ("<server>/host" or "<server>/nic0") and the server from the
 * node (the part before '/'). CLI_ERR with `err` on an unknown option, a missing or bad value,
 * a missing cluster / node (unless --help), a --controller list ctl_parse refuses, more than
 * CLI_MAX_MEMIF --memif or a socket path with a comma, or --file-prefix / --poll / --eal without
 * --memif. */
int cli_parse(int argc, char **argv, cli_opts *o, char *err);

/* Print the help text. */
void cli_usage(FILE *f);

/* The bearer token into `out` (`n` bytes): the first line of --token-file, else `env_value`
 * (pass getenv(CLI_TOKEN_ENV)), else --token. Surrounding blanks are trimmed. CLI_ERR if none
 * or the file cannot be read. */
int cli_token(const cli_opts *o, const char *env_value, char *out, size_t n, char *err);

#define CLI_TLS_CA_MAX (1u << 20) /* a CA bundle larger than this is refused */

/* The PEM text of --tls-ca, NUL-terminated, in a buffer the caller frees; *out NULL without --tls-ca.
 * CLI_ERR with `err` if the file cannot be read, is empty, larger than CLI_TLS_CA_MAX or holds no
 * "-----BEGIN CERTIFICATE-----". */
int cli_tls_ca(const cli_opts *o, char **out, char *err);

#endif
