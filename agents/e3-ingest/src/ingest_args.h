/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-ingest's command line: where the front listens (one or more host:port, plaintext or TLS), the
 * controller's unix socket it forwards to and delivers heartbeats to, how often it hands over rollups, and how
 * much raw tail it keeps.
 * Pure C, no gRPC: parsed and checked here so the program's main() only builds the server from a valid
 * configuration.
 */
#ifndef E3_INGEST_ARGS_H
#define E3_INGEST_ARGS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INGEST_OK 0
#define INGEST_ERR (-1)
#define INGEST_HELP 1 /* --help: print the usage, exit 0 */

#define INGEST_MAX_LISTEN 8    /* --listen addresses (the controller's hosts) */
#define INGEST_ADDR_LEN 256    /* characters of one address, with its NUL */
#define INGEST_PATH_LEN 4096   /* characters of a file name or unix socket target, with its NUL */
#define INGEST_ERRBUF_LEN 256  /* size of the error buffer ingest_args_parse fills */
#define INGEST_ROLLUP_FLUSH_MS_DEFAULT 1000 /* --rollup-flush-ms: E3_ROLLUP_FLUSH_MS's default */
#define INGEST_ROLLUP_FLUSH_MS_MIN 10
#define INGEST_ROLLUP_FLUSH_MS_MAX 60000
#define INGEST_TAIL_ITEMS_MAX 100000  /* --tail-items: 0 (no raw tail, the default) to this */
#define INGEST_TAIL_WINDOW_S_MAX 600  /* --tail-window-s: 0 (the default) to this (E3_RAW_TAIL_S's bounds) */

struct ingest_args {
    char listen[INGEST_MAX_LISTEN][INGEST_ADDR_LEN]; /* host:port each; "[v6]:port" for IPv6 */
    int listen_count;                                 /* entries of listen used, >= 1 */
    int port;                                         /* the port every listen address shares (0: any) */
    char backend[INGEST_PATH_LEN];                    /* "unix:<path>" of the Python controller */
    char tls_cert[INGEST_PATH_LEN];                   /* PEM certificate chain ("": plaintext) */
    char tls_key[INGEST_PATH_LEN];                    /* PEM private key ("" iff tls_cert is "") */
    long parent_pid;                                  /* die with this process (0: not asked) */
    int rollup_flush_ms;                              /* milliseconds between two takes of the rollups */
    int tail_items;                                   /* raw heartbeats kept a node (0: no raw tail) */
    int tail_window_s;                                /* the seconds they cover, as TelemetryTail says */
};

/* The usage text, for --help and after an error. */
extern const char ingest_usage[];

/*
 * Parse argv into *out. Returns INGEST_OK, INGEST_HELP (--help), or INGEST_ERR with a one-line reason
 * naming the option in err (INGEST_ERRBUF_LEN bytes). Every --listen must carry the same port, and
 * port 0 (the kernel picks) only with one --listen: the front reports a single port to its parent.
 * --backend must be a unix: target; --tls-cert and --tls-key go together; --parent-pid is a pid (> 0);
 * --rollup-flush-ms an integer from INGEST_ROLLUP_FLUSH_MS_MIN to _MAX (INGEST_ROLLUP_FLUSH_MS_DEFAULT if absent);
 * --tail-items from 0 to INGEST_TAIL_ITEMS_MAX and --tail-window-s from 0 to INGEST_TAIL_WINDOW_S_MAX (0 if absent).
 */
int ingest_args_parse(int argc, char **argv, struct ingest_args *out, char *err);

#ifdef __cplusplus
}
#endif

#endif
