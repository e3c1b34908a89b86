/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime: one agent process's life, shared by e3-agent and e3-nic (the emulated SmartNIC runs the
 * same runtime on its own packet stack). Wires the modules together:
 *   power meter, engine, routes, pipeline, commands -> link (controller)
 *   -> after the first Register: heartbeat agent feeding link's transport.
 *
 * Signals: call agent_block_signals before creating any thread (so every thread inherits the
 * mask); agent_runtime_run takes SIGINT/SIGTERM on one thread with sigwait and asks the link to
 * stop (no work in a signal handler). Shutdown order: heartbeats (the last partial batch is
 * sent), heartbeat stream half-closed, command stream cancelled, instances' nodes freed (replies
 * still owed are sent: the packet stack must still run), egress node, engine drained, power
 * meter.
 */
#ifndef E3AGENT_RUNTIME_H
#define E3AGENT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "chan.h"
#include "cli.h"
#include "engine.h"

/* What differs between the programs that run the runtime. Zeroed fields take the defaults. */
typedef struct agent_runtime {
    const char *program;          /* for messages, e.g. "e3-agent" */
    const char *software_version; /* registered, e.g. "e3-agent 0.1.0" */
    chan_net *net;                /* NULL: kernel sockets */
    eng_pace_fn pace;             /* NULL: unpaced */
    void *pace_ctx;               /* passed to pace */
    size_t (*ingress_len)(void *ctx);                  /* heartbeat hook (heartbeat.h), or NULL */
    double (*power_load)(void *ctx, eng *e, double cpu_util); /* heartbeat hook, or NULL */
    void *hooks_ctx;              /* passed to the heartbeat hooks */
    double cores;                 /* registered cores (0: this machine's) */
    uint64_t memory_mb;           /* registered memory, MB (0: this machine's) */
} agent_runtime;

/* Block SIGINT and SIGTERM in the calling thread (and the threads it creates from now on);
 * ignore SIGPIPE. Call first thing in main. */
void agent_block_signals(void);

/* Run the agent described by `o` until SIGINT/SIGTERM or until the link gives up. Reads the
 * token (cli_token). Returns the process exit code: 0 stopped cleanly, 1 failed (the reason on
 * stderr), 2 bad token configuration. */
int agent_runtime_run(const cli_opts *o, const agent_runtime *rt);

#endif
