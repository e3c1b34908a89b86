/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-agent: the host agent program. Options (cli.h), then the shared runtime (runtime.h) on the
 * kernel's UDP sockets, or with --memif on the host links to the server's SmartNICs (DPDK:
 * host_dataplane.h).
 */
#include <stdio.h>

#include "cli.h"
#include "host_dataplane.h"
#include "runtime.h"

#define AGENT_VERSION "e3-agent 0.1.0"

int main(int argc, char **argv) {
    cli_opts o;
    char err[CLI_ERRBUF_LEN];
    if (cli_parse(argc, argv, &o, err) != CLI_OK) {
        fprintf(stderr, "e3-agent: %s (see --help)\n", err);
        return 2;
    }
    if (o.help) {
        cli_usage(stdout);
        return 0;
    }
    alog_set_level(o.log_level);
    agent_block_signals(); /* before any thread exists (the EAL's too) */
    agent_runtime rt = {.program = "e3-agent", .software_version = AGENT_VERSION};
    if (!o.n_memif) return agent_runtime_run(&o, &rt);
    host_dataplane *d = host_dataplane_start(&o, err);
    if (!d) {
        fprintf(stderr, "e3-agent: %s\n", err);
        return 1;
    }
    rt.net = host_dataplane_net(d);
    int rc = agent_runtime_run(&o, &rt);
    host_dataplane_stop(d);
    return rc;
}
