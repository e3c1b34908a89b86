/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli: e3-loadgen's options. Both "--opt value" and "--opt=value" are accepted; every refusal
 * names the option at fault. Defaults and meanings: docs/agents.md, "Load generator".
 */
#ifndef E3LOADGEN_CLI_H
#define E3LOADGEN_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen.h"

#define LG_CLI_OK 0
#define LG_CLI_ERR -1
#define LG_CLI_ERRBUF_LEN 256      /* size of the error buffer callers pass */
#define LG_CLI_HOST_LEN 256         /* bytes for the host part of --target, NUL included */
#define LG_CLI_DEFAULT_SIZE 512     /* bytes of payload when neither --payload nor --size */
#define LG_CLI_MIN_SIZE 5           /* --size at least strlen("GET k") */
#define LG_CLI_DEFAULT_KNEE_RATE 1000.0 /* requests/s of the first knee step without --rate */

/* Parsed options. Strings point into `payload_buf` or `host`, owned by the struct. */
typedef struct lg_opts {
    char host[LG_CLI_HOST_LEN]; /* --target HOST */
    uint16_t port;              /* --target PORT */
    const char *target;         /* --target as given (points into argv) */
    lg_mode mode;               /* --mode; --knee implies open */
    unsigned connections;       /* --connections: requests outstanding (closed loop) */
    double rate;                /* --rate: requests/s (open loop; first knee step); 0 = not given */
    double duration_s;          /* --duration: measured seconds (per knee step) */
    double warmup_s;            /* --warmup: seconds sent but not counted (per knee step) */
    uint8_t *payload;           /* request bytes (malloc'd): --payload decoded, or --size padding */
    size_t payload_len;         /* bytes */
    unsigned timeout_ms;        /* --timeout-ms */
    uint32_t instance_id;       /* --instance-id: frame's instance id (0: the instance on the port) */
    int knee;                   /* --knee: open-loop rate search */
    int help;                   /* --help: print usage, nothing else checked */
} lg_opts;

/* Parse argv into `o` (which needs lg_cli_free afterwards, even on failure). LG_CLI_ERR with a
 * message naming the option in `err` (LG_CLI_ERRBUF_LEN bytes) on a bad or missing option. */
int lg_cli_parse(int argc, char **argv, lg_opts *o, char *err);

/* Free what lg_cli_parse allocated. */
void lg_cli_free(lg_opts *o);

/* Decode --payload TEXT: "\n" becomes a newline, "\t" a tab, "\\" a backslash; any other
 * backslash is kept as is. Returns a malloc'd buffer and its length in `len`, NULL if out of
 * memory. */
uint8_t *lg_cli_unescape(const char *text, size_t *len);

/* The --help text. */
const char *lg_cli_usage(void);

#endif
