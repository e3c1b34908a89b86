/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-agent: the host agent program. Options (cli.h), then the shared runtime (runtime.h) on the
 * kernel's UDP sockets.
 */
#include <stdio.h>

#include "cli.h"
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
    agent_block_signals(); /* before any thread exists */
    return agent_runtime_run(&o, &(agent_runtime){.program = "e3-agent", .software_version = AGENT_VERSION});
}
