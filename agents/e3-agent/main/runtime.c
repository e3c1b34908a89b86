/* SPDX-License-Identifier: Apache-2.0 */
/* runtime: see runtime.h. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alog.h"
#include "cli.h"
#include "commands.h"
#include "engine.h"
#include "heartbeat.h"
#include "link.h"
#include "pipeline.h"
#include "power.h"
#include "routes.h"
#include "runtime.h"

typedef struct agent_app {
    const cli_opts *opts;   /* parsed options */
    const agent_runtime *rt; /* the program's differences */
    eng *engine;            /* instances run here */
    pwr_meter *power;       /* handed to the heartbeat agent */
    cmd_state *cmds;        /* traffic counters for heartbeats */
    agent_link *link;       /* heartbeats' transport */
    hb_agent *hb;           /* started after the first Register */
    sigset_t signals;       /* SIGINT, SIGTERM */
    atomic_int signalled;   /* 1 once the signal thread saw a signal */
} agent_app;

/* A random (version 4) UUID: the default agent id. */
static void agent_uuid(char *out, size_t n) {
    unsigned char b[16] = {0};
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
        srand((unsigned)getpid() ^ (unsigned)time(NULL)); /* no urandom: still unique enough per host */
        for (size_t i = 0; i < sizeof(b); i++) b[i] = (unsigned char)rand();
    }
    if (fd >= 0) close(fd);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    snprintf(out, n, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void *agent_signal_main(void *arg) {
    agent_app *app = arg;
    int sig = 0;
    sigwait(&app->signals, &sig);
    atomic_store(&app->signalled, 1);
    alog(ALOG_INFO, "%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    link_stop(app->link);
    return NULL;
}

/* link_registered_fn: the first Register gave the node id and period: start heartbeats. */
static int agent_start_heartbeats(void *ctx, const char *node_id, uint32_t period_ms) {
    agent_app *app = ctx;
    char err[HB_ERRBUF_LEN];
    hb_config cfg = {
        .node_id = node_id, /* informational: the transport names the node registered now */
        .period_ms = period_ms,
        .batch_records = 1, /* one node per agent: one heartbeat per batch, every period */
        .engine = app->engine,
        .power = app->power,
        .net = cmd_net,
        .latency = cmd_latency,
        .net_ctx = app->cmds,
        .transport = link_transport(app->link),
        .proc_stat = app->opts->cpu_from_engine ? "" : NULL, /* "": the engine's busy fraction */
        .ingress_len = app->rt->ingress_len,
        .power_load = app->rt->power_load,
        .hooks_ctx = app->rt->hooks_ctx,
    };
    app->hb = hb_start(&cfg, err);
    if (!app->hb) {
        alog(ALOG_ERROR, "%s", err);
        return -1;
    }
    return 0;
}

/* The signals that stop an agent: SIGINT and SIGTERM. */
static void agent_stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

void agent_block_signals(void) {
    sigset_t set;
    agent_stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int agent_runtime_run(const cli_opts *opts, const agent_runtime *rt) {
    const cli_opts o = *opts;
    const char *prog = rt->program ? rt->program : "e3-agent";
    alog_set_program(prog);
    char err[512], token[1024], agent_id[E3RPC_ID_LEN];
    if (cli_token(&o, getenv(CLI_TOKEN_ENV), token, sizeof(token), err) != CLI_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 2;
    }
    char *tls_ca_pem = NULL;
    if (cli_tls_ca(&o, &tls_ca_pem, err) != CLI_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 2;
    }
    if (o.agent_id) snprintf(agent_id, sizeof(agent_id), "%s", o.agent_id);
    else agent_uuid(agent_id, sizeof(agent_id));

    agent_app app = {.opts = &o, .rt = rt};
    agent_stop_signals(&app.signals);

    int rc = 1;
    rt_table *routes = NULL;
    pl_ctx *pl = NULL;
    pthread_t sig_thread;
    int sig_started = 0;
    pwr_config pc = {.powercap_root = o.powercap_root, .server_type = "model", .idle_w = o.idle_w, .peak_w = o.peak_w};
    app.power = pwr_new(&pc, err);
    if (!app.power) goto err;
    app.engine = eng_new(o.workers, 0, err);
    if (!app.engine) goto err;
    if (rt->pace) eng_set_pacer(app.engine, rt->pace, rt->pace_ctx);
    routes = rt_new();
    if (!routes) {
        snprintf(err, sizeof(err), "out of memory");
        goto err;
    }
    pl = pl_new(app.engine, routes, rt->net, o.address, o.forward_timeout_ms, err);
    if (!pl) goto err;
    app.cmds = cmd_new(app.engine, pl, routes, rt->net, o.address);
    link_config lc = {
        .controllers = &o.controllers,
        .token = token,
        .tls_ca_pem = tls_ca_pem,
        .agent_id = agent_id,
        .identity = {.name = o.node, .kind = o.kind, .server_name = o.server, .cluster_name = o.cluster,
                     .software_version = rt->software_version, .address = o.address,
                     .cores = rt->cores > 0 ? rt->cores : (double)sysconf(_SC_NPROCESSORS_ONLN),
                     .memory_mb = rt->memory_mb ? rt->memory_mb
                                                : (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) >> 20},
        .heartbeat_ms = o.heartbeat_ms,
        .power_source = pwr_source_name(pwr_source_of(app.power)),
        .cmds = app.cmds,
    };
    app.link = app.cmds ? link_new(&lc) : NULL;
    if (!app.link) {
        snprintf(err, sizeof(err), "out of memory");
        goto err;
    }
    if (pthread_create(&sig_thread, NULL, agent_signal_main, &app) != 0) {
        snprintf(err, sizeof(err), "cannot start the signal thread");
        goto err;
    }
    sig_started = 1;
    alog(ALOG_INFO, "agent %s for node %s of cluster %s, controller %s (%s), instances on %s, %u workers, power %s",
         agent_id, o.node, o.cluster, o.controller, tls_ca_pem ? "TLS" : "plaintext", o.address, o.workers,
         lc.power_source);

    rc = link_run(app.link, agent_start_heartbeats, &app) == 0 ? 0 : 1;
    hb_stop(app.hb); /* sends the last partial batch on the still-open stream */
    link_finish(app.link);
    if (rc != 0) snprintf(err, sizeof(err), "giving up");
err:
    if (sig_started) {
        if (!atomic_load(&app.signalled)) pthread_kill(sig_thread, SIGTERM); /* wake its sigwait */
        pthread_join(sig_thread, NULL);
    }
    cmd_free(app.cmds); /* instances stop serving; replies still owed are sent */
    link_free(app.link);
    free(tls_ca_pem);
    pl_free(pl);
    eng_free(app.engine);
    rt_free(routes);
    pwr_free(app.power);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 1;
    }
    alog(ALOG_INFO, "stopped");
    return 0;
}
