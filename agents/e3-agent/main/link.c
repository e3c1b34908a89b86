/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link: one mutex guards what the heartbeat thread, the signal thread and the main thread share
 * (the open streams, the node id, the stop and broken flags); gRPC calls themselves run outside
 * it, except the thread-safe cancels.
 */
#include "link.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alog.h"
#include "backoff.h"
#include "report.h"

#define LINK_MAX_OWED_ACKS 256    /* outcomes kept while the controller is unreachable */
#define LINK_CLOSE_WAIT_MS 2000   /* how long the heartbeat summary may take at shutdown */
/* Register's deadline when there are other controllers to move to: a frozen controller costs the
 * move this much, not E3RPC_DEADLINE_MS (docs/controller-scale-out.md: all its agents elsewhere
 * within 2 s). With one address there is nowhere to go, so it keeps E3RPC_DEADLINE_MS. */
#define LINK_LIST_REGISTER_DEADLINE_MS 500

struct agent_link {
    ctl_list controllers;             /* the controllers' addresses */
    ctl_walk walk;                    /* which one to try now (main thread) */
    char registered_at[CTL_ADDRESS_LEN]; /* the address of the last registration ("" before) */
    char token[1024];                 /* bearer token */
    char *tls_ca_pem;                 /* owned copy; NULL: plaintext */
    char agent_id[E3RPC_ID_LEN];      /* our identity */
    char node_name[128], server[128], cluster[128], address[64]; /* identity strings */
    e3rpc_identity identity;          /* points into the strings above */
    uint32_t heartbeat_ms;            /* override, 0: Register's answer */
    char power_source[16];            /* for the registered line */
    cmd_state *cmds;                  /* command application */

    pthread_mutex_t mu;               /* guards the fields below */
    pthread_cond_t cv;                /* hb_busy changes; stop interrupts a backoff */
    int stopped;                      /* link_stop was called */
    int broken;                       /* the heartbeat stream failed during this attempt */
    int hb_busy;                      /* the heartbeat thread is inside e3rpc_hb_send */
    e3rpc_client *client;             /* current client (main thread writes) */
    e3rpc_hb_stream *hb;              /* open heartbeat stream or NULL */
    e3rpc_cmd_stream *cmd;            /* open command stream or NULL */
    char node_id[E3RPC_ID_LEN];       /* from Register ("" before) */

    cmd_outcome owed[LINK_MAX_OWED_ACKS]; /* ACK/NACKs not yet delivered, oldest first */
    size_t n_owed;                    /* main thread only */

    rep_state rep;                    /* heartbeat thread only */
    e3rpc_heartbeat *batch;           /* heartbeat thread only: HB_MAX_BATCH entries */
    uint64_t rng;                     /* jitter state */
};

agent_link *link_new(const link_config *cfg) {
    agent_link *l = calloc(1, sizeof(*l));
    if (!l) return NULL;
    l->batch = calloc(HB_MAX_BATCH, sizeof(*l->batch));
    if (!l->batch || pthread_mutex_init(&l->mu, NULL) != 0) {
        free(l->batch);
        free(l);
        return NULL;
    }
    pthread_cond_init(&l->cv, NULL);
    l->controllers = *cfg->controllers;
    ctl_walk_init(&l->walk, l->controllers.n,
                  ctl_preferred(cfg->identity.cluster_name, cfg->identity.server_name, l->controllers.n));
    snprintf(l->token, sizeof(l->token), "%s", cfg->token);
    if (cfg->tls_ca_pem && !(l->tls_ca_pem = strdup(cfg->tls_ca_pem))) {
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->mu);
        free(l->batch);
        free(l);
        return NULL;
    }
    snprintf(l->agent_id, sizeof(l->agent_id), "%s", cfg->agent_id);
    snprintf(l->node_name, sizeof(l->node_name), "%s", cfg->identity.name);
    snprintf(l->server, sizeof(l->server), "%s", cfg->identity.server_name);
    snprintf(l->cluster, sizeof(l->cluster), "%s", cfg->identity.cluster_name);
    snprintf(l->address, sizeof(l->address), "%s", cfg->identity.address ? cfg->identity.address : "");
    snprintf(l->power_source, sizeof(l->power_source), "%s", cfg->power_source);
    l->identity = cfg->identity;
    l->identity.name = l->node_name;
    l->identity.server_name = l->server;
    l->identity.cluster_name = l->cluster;
    l->identity.address = l->address;
    l->heartbeat_ms = cfg->heartbeat_ms;
    l->cmds = cfg->cmds;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    l->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)getpid() ^ 0x9e3779b97f4a7c15ull;
    return l;
}

void link_free(agent_link *l) {
    if (!l) return;
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l->tls_ca_pem);
    free(l->batch);
    free(l);
}

static uint32_t link_rand(agent_link *l) {
    l->rng ^= l->rng << 13; /* xorshift64: jitter only, no need for more */
    l->rng ^= l->rng >> 7;
    l->rng ^= l->rng << 17;
    return (uint32_t)(l->rng >> 32);
}

/* ---- heartbeat transport (heartbeat thread) --------------------------------------------- */

static int link_id_of(void *ctx, uint32_t engine_id, char *out) {
    return cmd_instance_id(ctx, engine_id, out);
}

/* Mark this attempt broken and wake the main thread out of its command stream. Lock held. */
static void link_break_locked(agent_link *l) {
    l->broken = 1;
    if (l->cmd) e3rpc_cmd_cancel(l->cmd);
}

static int link_send_batch(void *ctx, const hb_record *recs, size_t n, char *err) {
    agent_link *l = ctx;
    char node_id[E3RPC_ID_LEN], rerr[E3RPC_ERRBUF_LEN];
    pthread_mutex_lock(&l->mu);
    e3rpc_hb_stream *s = l->broken ? NULL : l->hb;
    if (s) l->hb_busy = 1;
    memcpy(node_id, l->node_id, sizeof(node_id));
    pthread_mutex_unlock(&l->mu);
    if (!s) return hb_set_error(err, "no heartbeat stream open");
    if (n > HB_MAX_BATCH) n = HB_MAX_BATCH;
    uint64_t lease_epoch = cmd_lease_epoch(l->cmds); /* under cmd_state's lock, not mu: the main thread raises it */
    for (size_t i = 0; i < n; i++) {
        rep_convert(&l->rep, &recs[i], node_id, link_id_of, l->cmds, &l->batch[i]);
        l->batch[i].lease_epoch = lease_epoch;
    }
    int rc = e3rpc_hb_send(s, l->agent_id, l->batch, n, rerr);
    pthread_mutex_lock(&l->mu);
    l->hb_busy = 0;
    if (rc != E3RPC_OK && !l->stopped && !l->broken) {
        alog(ALOG_WARN, "heartbeat stream: %s", rerr);
        link_break_locked(l);
    }
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    if (rc != E3RPC_OK) return hb_set_error(err, "%s", rerr);
    alog(ALOG_DEBUG, "heartbeat batch of %zu sent", n);
    return HB_OK;
}

static const hb_transport_ops link_transport_ops = {.send_batch = link_send_batch};

hb_transport link_transport(agent_link *l) {
    return (hb_transport){.ops = &link_transport_ops, .ctx = l};
}

/* ---- the connection loop (main thread) -------------------------------------------------- */

/* Sleep `ms` unless stopped meanwhile. Returns 1 if stopped. */
static int link_wait(agent_link *l, uint32_t ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&l->mu);
    while (!l->stopped && pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT) {
    }
    int stopped = l->stopped;
    pthread_mutex_unlock(&l->mu);
    return stopped;
}

static int link_is_stopped(agent_link *l) {
    pthread_mutex_lock(&l->mu);
    int s = l->stopped;
    pthread_mutex_unlock(&l->mu);
    return s;
}

/* Detach and close this attempt's streams and client. `graceful`: half-close the heartbeat
 * stream and wait for the summary (shutdown); else cancel it (reconnect). */
static void link_teardown(agent_link *l, int graceful) {
    pthread_mutex_lock(&l->mu);
    e3rpc_hb_stream *hb = l->hb;
    e3rpc_cmd_stream *cmd = l->cmd;
    e3rpc_client *client = l->client;
    if (hb && !graceful) e3rpc_hb_cancel(hb);
    while (l->hb_busy) pthread_cond_wait(&l->cv, &l->mu); /* the heartbeat thread lets go */
    l->hb = NULL;
    l->cmd = NULL;
    l->client = NULL;
    pthread_mutex_unlock(&l->mu);
    if (hb) {
        char err[E3RPC_ERRBUF_LEN];
        e3rpc_hb_summary sum;
        if (e3rpc_hb_close(hb, graceful ? LINK_CLOSE_WAIT_MS : 100, &sum, err) == E3RPC_OK)
            alog(ALOG_INFO, "heartbeat stream closed: %llu accepted, %llu rejected%s%s",
                 (unsigned long long)sum.accepted, (unsigned long long)sum.rejected,
                 sum.first_rejection[0] ? ", first: " : "", sum.first_rejection);
        else if (graceful)
            alog(ALOG_WARN, "heartbeat stream: %s", err);
    }
    e3rpc_cmd_close(cmd);
    e3rpc_client_free(client);
}

/* Deliver one outcome; on failure keep it owed (dropping the oldest beyond the limit). */
static int link_ack(agent_link *l, const cmd_outcome *o, char *err) {
    if (e3rpc_ack(l->client, l->agent_id, l->node_id, o->version, o->ok, o->code, o->message, E3RPC_DEADLINE_MS,
                  err) == E3RPC_OK)
        return E3RPC_OK;
    if (l->n_owed == LINK_MAX_OWED_ACKS) {
        memmove(l->owed, l->owed + 1, (LINK_MAX_OWED_ACKS - 1) * sizeof(*l->owed));
        l->n_owed--;
    }
    l->owed[l->n_owed++] = *o;
    return E3RPC_ERR;
}

/* ACKs owed from an earlier attempt, oldest first. */
static int link_pay_owed(agent_link *l, char *err) {
    while (l->n_owed) {
        cmd_outcome o = l->owed[0];
        if (e3rpc_ack(l->client, l->agent_id, l->node_id, o.version, o.ok, o.code, o.message, E3RPC_DEADLINE_MS,
                      err) != E3RPC_OK)
            return E3RPC_ERR;
        memmove(l->owed, l->owed + 1, (l->n_owed - 1) * sizeof(*l->owed));
        l->n_owed--;
    }
    return E3RPC_OK;
}

static const char *link_kind_name(e3rpc_command_kind k) {
    switch (k) {
    case E3RPC_CMD_DEPLOY: return "deploy_instance";
    case E3RPC_CMD_REMOVE: return "remove_instance";
    case E3RPC_CMD_EXPORT_STATE: return "export_state";
    case E3RPC_CMD_IMPORT_STATE: return "import_state";
    case E3RPC_CMD_SET_ROUTES: return "set_routes";
    case E3RPC_CMD_CONFIRM_IMPORT: return "confirm_import";
    case E3RPC_CMD_RESUME: return "resume_instance";
    default: return "unknown";
    }
}

/* Apply and ACK commands until the stream ends or an ACK fails (why: in err). */
static void link_serve_commands(agent_link *l, e3rpc_cmd_stream *cmd, char *err) {
    e3rpc_command *c;
    while (e3rpc_cmd_next(cmd, &c, err) == E3RPC_OK) {
        cmd_outcome o;
        int applied = cmd_apply(l->cmds, c, &o);
        if (o.ok)
            alog(ALOG_INFO, "command %llu %s %s: %s", (unsigned long long)c->version, link_kind_name(c->kind),
                 c->instance_id ? c->instance_id : "", applied ? "applied" : "already applied");
        else
            alog(ALOG_WARN, "command %llu %s %s: NACK %s: %s", (unsigned long long)c->version,
                 link_kind_name(c->kind), c->instance_id ? c->instance_id : "", o.code, o.message);
        e3rpc_command_free(c);
        if (link_ack(l, &o, err) != E3RPC_OK) return;
    }
}

/* Log where the agent registered when it is not where it was before (a move between controllers). */
static void link_note_move(agent_link *l, const char *target) {
    if (l->controllers.n > 1 && strcmp(l->registered_at, target) != 0)
        alog(ALOG_INFO, "controller %s: registered here%s%s (preferred %s)", target,
             l->registered_at[0] ? ", moved from " : "", l->registered_at,
             l->controllers.addresses[l->walk.preferred]);
    snprintf(l->registered_at, sizeof(l->registered_at), "%s", target);
}

int link_run(agent_link *l, link_registered_fn on_first, void *ctx) {
    bo_state bo = {0};
    int first = 1;
    char err[E3RPC_ERRBUF_LEN];
    int listed = l->controllers.n > 1;
    uint32_t register_deadline = listed ? LINK_LIST_REGISTER_DEADLINE_MS : E3RPC_DEADLINE_MS;
    if (listed)
        alog(ALOG_INFO, "%zu controllers, preferred %s (hash of %s/%s)", l->controllers.n,
             l->controllers.addresses[l->walk.preferred], l->cluster, l->server);
    for (unsigned attempt = 1; !link_is_stopped(l); attempt++) {
        const char *target = l->controllers.addresses[ctl_walk_current(&l->walk)];
        e3rpc_client *client = e3rpc_client_new(target, l->token, l->tls_ca_pem, err);
        if (!client) {
            alog(ALOG_ERROR, "controller %s: %s", target, err);
            return -1;
        }
        e3rpc_registration reg;
        int ok = e3rpc_register(client, l->agent_id, &l->identity, register_deadline, &reg, err) == E3RPC_OK;
        pthread_mutex_lock(&l->mu);
        l->client = client;
        l->broken = 0;
        if (ok) memcpy(l->node_id, reg.node_id, sizeof(l->node_id));
        pthread_mutex_unlock(&l->mu);
        int registered = ok;
        if (ok) {
            cmd_raise_lease_epoch(l->cmds, reg.lease_epoch);
            bo_reset(&bo);
            attempt = 1; /* attempts count from the last registration */
            link_note_move(l, target);
            uint32_t period = l->heartbeat_ms ? l->heartbeat_ms : reg.heartbeat_period_ms;
            printf("%s: registered %s as %s (heartbeat %u ms, power source %s)\n", alog_program(), l->node_name,
                   reg.node_id, period, l->power_source);
            fflush(stdout);
            if (first && on_first(ctx, reg.node_id, period) != 0) {
                link_teardown(l, 0);
                return -1;
            }
            first = 0;
            e3rpc_hb_stream *hb = e3rpc_hb_open(client, err);
            pthread_mutex_lock(&l->mu);
            l->hb = hb;
            pthread_mutex_unlock(&l->mu);
            ok = hb && link_pay_owed(l, err) == E3RPC_OK;
        }
        if (ok) {
            e3rpc_cmd_stream *cmd = e3rpc_cmd_open(client, l->agent_id, l->node_id, cmd_applied_version(l->cmds),
                                                   cmd_lease_epoch(l->cmds), err);
            ok = cmd != NULL;
            if (ok) {
                pthread_mutex_lock(&l->mu);
                l->cmd = cmd;
                if (l->stopped || l->broken) e3rpc_cmd_cancel(cmd); /* raced with a stop or a broken heartbeat */
                pthread_mutex_unlock(&l->mu);
                alog(ALOG_INFO, "connected to %s: streaming heartbeats, commands after version %llu", target,
                     (unsigned long long)cmd_applied_version(l->cmds));
                link_serve_commands(l, cmd, err);
            }
        }
        if (link_is_stopped(l)) break; /* link_finish closes gracefully */
        link_teardown(l, 0);
        /* A controller that took the agent and later lost it: the next pass starts at the preferred one
         * again. One that failed: the next address, backing off only after a whole pass failed. */
        int backoff = !listed; /* one address: always, as a failed pass */
        if (registered) ctl_walk_restart(&l->walk);
        else backoff = ctl_walk_failed(&l->walk);
        const char *next = l->controllers.addresses[ctl_walk_current(&l->walk)];
        uint32_t delay = backoff ? bo_next(&bo, link_rand(l)) : link_rand(l) % (CTL_JITTER_MS + 1);
        if (!listed)
            alog(ALOG_WARN, "controller %s: attempt %u: %s; reconnecting in %u ms", target, attempt, err, delay);
        else if (backoff)
            alog(ALOG_WARN, "controller %s: attempt %u: %s; all %zu controllers failed, trying %s in %u ms", target,
                 attempt, err, l->controllers.n, next, delay);
        else if (registered)
            alog(ALOG_WARN, "controller %s: attempt %u: %s; reconnecting to the preferred %s in %u ms", target,
                 attempt, err, next, delay);
        else
            alog(ALOG_WARN, "controller %s: attempt %u: %s; moving to %s in %u ms", target, attempt, err, next, delay);
        if (link_wait(l, delay)) break;
    }
    return 0;
}

void link_stop(agent_link *l) {
    pthread_mutex_lock(&l->mu);
    l->stopped = 1;
    if (l->cmd) e3rpc_cmd_cancel(l->cmd);
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void link_finish(agent_link *l) {
    link_teardown(l, 1);
}
