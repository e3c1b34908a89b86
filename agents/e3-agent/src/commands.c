/* SPDX-License-Identifier: Apache-2.0 */
/*
 * commands: the instance table is a small array under a mutex (a node runs tens of instances;
 * commands arrive rarely). cmd_apply runs on one thread; the mutex is for the heartbeat
 * thread's readers (ids, traffic counters).
 */
#include "commands.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alog.h"
#include "e3svc/svc.h"
#include "state_xfer.h"

#define CMD_REMOVE_WAIT_MS 2000 /* eng_remove retries this long while the last reply unwinds */

typedef enum cmd_inst_state {
    CMD_SERVING = 0,  /* its UDP node is open */
    CMD_AWAITING = 1, /* deployed with e3.await_state: no node until its state is imported */
    CMD_STOPPED = 2,  /* its state was exported: no node, waiting for RemoveInstance */
    CMD_FENCED = 3,   /* its state went out, the importer's answer was lost: no node until the
                       * controller says which copy won (ResumeInstance, RemoveInstance) */
} cmd_inst_state;

static const char *const cmd_state_names[] = {"serving", "awaiting state", "stopped (its state was exported)",
                                              "fenced (its move is unconfirmed)"};

typedef struct cmd_xfer cmd_xfer;

/* A stateful instance's replication targets as its log hook (cmd_on_log) sees them. Every
 * stateful instance records its changes, whatever its role, so any of them can become a
 * replicating primary; without targets the records are dropped. `p` is read and written only
 * with the instance entered (the hook, cmd_switch_op), so each update goes to one set of
 * backups: none to the old set after a switch, none to the new set before it. */
typedef struct cmd_repl {
    rep_primary *p; /* current targets, or NULL: records dropped */
} cmd_repl;

typedef struct cmd_inst {
    char id[E3RPC_ID_LEN];  /* the controller's instance id */
    uint32_t engine_id;     /* id in the engine */
    uint16_t port;          /* UDP port it serves on (reserved while awaiting or stopped) */
    const svc_type *type;   /* its service type */
    cmd_inst_state state;   /* serving, awaiting state, stopped, fenced (written under the lock) */
    uint64_t epoch;         /* the controller's epoch of this copy (0: none given); commands
                             * naming a lower one are refused (cmd_stale) */
    uint64_t stale;         /* a newer epoch its backups follow: it refuses requests (ticker) */
    chan_udp_node *node;    /* its UDP node, NULL unless serving (written under the lock) */
    pl_inst *stage;         /* its pipeline stage (the node's sink) */
    rep_primary *primary;   /* replication to its backups, or NULL: the same as repl->p, for
                             * readers on other threads (written under the lock) */
    cmd_repl *repl;         /* its log hook's view of `primary` (stateful services), or NULL */
    rep_counters rep_past;  /* primary counters of replaced targets (at their switch) */
    int backup_role;        /* deployed with role "backup" and not promoted: takes another instance's state */
    int promoted;           /* made the primary by promote_instance (at `epoch`) */
    rep_backup *backup;     /* its side as a backup (stateful services), or NULL */
    cmd_xfer *import;       /* the last ImportState's transfer, or NULL (command thread only) */
} cmd_inst;

/* One ImportState's transfer thread and what its `ready` callback needs: by id, not by pointer
 * into the table, which moves. */
struct cmd_xfer {
    sx_importer *im;        /* listener + thread */
    cmd_state *s;           /* the table */
    char id[E3RPC_ID_LEN];  /* the instance */
    uint16_t port;          /* its UDP port */
    pl_inst *stage;         /* its node's sink */
    rep_backup *backup;     /* its replicate sink, or NULL */
};

struct cmd_state {
    eng *e;                     /* engine the instances run on */
    pl_ctx *pl;                 /* pipeline (egress node, routes) */
    rt_table *routes;           /* replaced by set_routes */
    char bind_ip[64];           /* address instance ports bind on */
    chan_net *net;              /* where instance nodes come from (NULL: kernel sockets) */
    pthread_mutex_t lock;       /* guards insts, n_insts, retired, lease_epoch; the table's only writers
                                 * are cmd_apply and, for node and state, import threads */
    cmd_inst *insts;            /* deployed instances */
    size_t n_insts, cap_insts;  /* used / allocated */
    uint32_t next_engine_id;    /* engine ids handed out, from 1, never reused */
    hb_net retired;             /* traffic of removed instances' nodes */
    uint32_t accept_timeout_ms; /* an import's wait for its exporter (SX_ACCEPT_TIMEOUT_MS) */
    uint64_t applied;           /* highest version handled */
    uint64_t lease_epoch;       /* highest lease epoch seen for the node, 0: none (written by
                                 * the command thread under the lock; the heartbeat thread reads) */
    cmd_outcome memory[CMD_OUTCOME_MEMORY]; /* outcomes by version % CMD_OUTCOME_MEMORY */
    pthread_t ticker;           /* calls rep_primary_tick on every primary (cmd_tick_main) */
    pthread_cond_t tick_cond;   /* wakes the ticker to stop (with lock) */
    int ticker_stop;            /* set under lock by cmd_free */
};

/* NACK `out` with `code` and a formatted message; returns 0 (nothing applied). */
static int cmd_nack(cmd_outcome *out, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cmd_nack(cmd_outcome *out, const char *code, const char *fmt, ...) {
    out->ok = 0;
    snprintf(out->code, sizeof(out->code), "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof(out->message), fmt, ap);
    va_end(ap);
    return 0;
}

/* The replication ticker: every REP_TICK_MS, each primary resends what its backups have not
 * confirmed for too long (replica.h, "Repair"). */
static void *cmd_tick_main(void *arg) {
    cmd_state *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->ticker_stop) {
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        at.tv_nsec += REP_TICK_MS * 1000000L;
        if (at.tv_nsec >= 1000000000L) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->tick_cond, &s->lock, &at);
        for (size_t i = 0; !s->ticker_stop && i < s->n_insts; i++) {
            cmd_inst *in = &s->insts[i];
            if (!in->primary) continue;
            rep_primary_tick(in->primary);
            uint64_t newer = rep_primary_newer_epoch(in->primary);
            if (newer && in->state == CMD_SERVING && !in->stale) { /* a backup follows a newer copy */
                pl_inst_refuse(in->stage, newer);
                in->stale = newer;
                alog(ALOG_WARN, "instance %s: a backup follows its epoch %llu, this copy is at %llu: refusing requests",
                     in->id, (unsigned long long)newer, (unsigned long long)in->epoch);
            }
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

cmd_state *cmd_new(eng *e, pl_ctx *pl, rt_table *routes, chan_net *net, const char *bind_ip) {
    cmd_state *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int ok = pthread_mutex_init(&s->lock, NULL) == 0;
    if (ok && pthread_cond_init(&s->tick_cond, &ca) != 0) {
        pthread_mutex_destroy(&s->lock);
        ok = 0;
    }
    pthread_condattr_destroy(&ca);
    if (ok && pthread_create(&s->ticker, NULL, cmd_tick_main, s) != 0) {
        pthread_cond_destroy(&s->tick_cond);
        pthread_mutex_destroy(&s->lock);
        ok = 0;
    }
    if (!ok) {
        free(s);
        return NULL;
    }
    s->e = e;
    s->pl = pl;
    s->routes = routes;
    snprintf(s->bind_ip, sizeof(s->bind_ip), "%s", bind_ip ? bind_ip : "0.0.0.0");
    s->net = net;
    s->next_engine_id = 1;
    s->accept_timeout_ms = SX_ACCEPT_TIMEOUT_MS;
    return s;
}

static cmd_inst *cmd_find(cmd_state *s, const char *id) {
    for (size_t i = 0; i < s->n_insts; i++)
        if (strcmp(s->insts[i].id, id) == 0) return &s->insts[i];
    return NULL;
}

/* NACK `stale_epoch` (returns 1) when `c` carries an epoch below `in`'s: it was meant for an
 * earlier incarnation of the instance (a late or replayed command of a superseded move). */
static int cmd_stale(const cmd_inst *in, const e3rpc_command *c, cmd_outcome *out) {
    if (!c->epoch || c->epoch >= in->epoch) return 0;
    cmd_nack(out, "stale_epoch", "instance %s is at epoch %llu; the command names epoch %llu", in->id,
             (unsigned long long)in->epoch, (unsigned long long)c->epoch);
    return 1;
}

static void cmd_add_counters(hb_net *acc, chan_udp_node *n) {
    chan_counters c;
    if (!n) return; /* awaiting state or stopped */
    chan_udp_node_counters(n, &c);
    acc->rx_bytes += c.rx_bytes;
    acc->rx_packets += c.rx_packets;
    acc->tx_bytes += c.tx_bytes;
    acc->tx_packets += c.tx_packets;
}

/* eng_log_fn (ctx = cmd_repl), instance entered: records to the current targets, if any. */
static void cmd_on_log(void *ctx, const uint8_t *records, size_t len) {
    cmd_repl *r = ctx;
    if (r->p) rep_primary_on_log(r->p, records, len);
}

/* Add the primary counters of replaced targets to `past` (their outstanding ones were handed
 * over: rep_primary_adopt). */
static void cmd_rep_add_past(rep_counters *past, const rep_counters *old) {
    past->sent += old->sent;
    past->resent += old->resent;
    past->replicated += old->replicated;
    past->failed += old->failed;
    past->dropped += old->dropped;
}

/* Both sides' replication counters of one instance (lock held). */
static void cmd_rep_counters(const cmd_inst *in, rep_counters *out) {
    rep_counters b;
    memset(out, 0, sizeof(*out));
    if (in->primary) rep_primary_counters(in->primary, out);
    cmd_rep_add_past(out, &in->rep_past);
    if (in->backup) {
        rep_backup_counters(in->backup, &b);
        out->applied = b.applied;
        out->gaps = b.gaps;
        out->out_of_order = b.out_of_order;
        out->duplicates = b.duplicates;
        out->refused = b.refused;
    }
}

/* Cancel (if running) and join an import's thread, free it. NULL is fine. */
static void cmd_import_stop(cmd_xfer *ci) {
    if (!ci) return;
    sx_importer_stop(ci->im);
    free(ci);
}

/* Stop serving and destroy one instance (already taken out of the table). */
static void cmd_destroy(cmd_state *s, cmd_inst *in) {
    cmd_import_stop(in->import); /* its `ready` no longer finds the instance: it opens nothing */
    chan_net_node_free(s->net, in->node); /* waits until every request it delivered has been replied */
    /* The worker decrements the in-flight count just after our reply callback returned. */
    char err[ENG_ERRBUF_LEN];
    struct timespec ms = {0, 1000000};
    for (int t = 0; eng_remove(s->e, in->engine_id, err) != ENG_OK && t < CMD_REMOVE_WAIT_MS; t++)
        nanosleep(&ms, NULL);
    pl_inst_free(in->stage);
    rep_counters rc;
    if (in->repl) {
        cmd_rep_counters(in, &rc);
        alog(ALOG_INFO,
             "instance %s replication: sent %llu, resent %llu, replicated %llu, failed %llu, dropped %llu, "
             "outstanding %llu; applied %llu, gaps %llu, out of order %llu, duplicates %llu, refused %llu",
             in->id, (unsigned long long)rc.sent, (unsigned long long)rc.resent, (unsigned long long)rc.replicated,
             (unsigned long long)rc.failed, (unsigned long long)rc.dropped, (unsigned long long)rc.outstanding,
             (unsigned long long)rc.applied, (unsigned long long)rc.gaps, (unsigned long long)rc.out_of_order,
             (unsigned long long)rc.duplicates, (unsigned long long)rc.refused);
    }
    rep_primary_release(in->primary); /* the instance is gone: no more hook calls */
    free(in->repl);
    rep_backup_free(in->backup);
}

/* Take entry `idx` out of the table (lock held), keeping its traffic in `retired`. */
static cmd_inst cmd_detach(cmd_state *s, size_t idx) {
    cmd_inst in = s->insts[idx];
    cmd_add_counters(&s->retired, in.node);
    s->insts[idx] = s->insts[--s->n_insts];
    return in;
}

void cmd_free(cmd_state *s) {
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->ticker_stop = 1;
    pthread_cond_signal(&s->tick_cond);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->ticker, NULL);
    pthread_cond_destroy(&s->tick_cond);
    while (s->n_insts) {
        pthread_mutex_lock(&s->lock);
        cmd_inst in = cmd_detach(s, s->n_insts - 1);
        pthread_mutex_unlock(&s->lock);
        cmd_destroy(s, &in);
    }
    pthread_mutex_destroy(&s->lock);
    free(s->insts);
    free(s);
}

/* The service's config string from the command's pairs, without the agent's "e3." keys; the
 * values of e3.downstream, e3.forward_if and e3.backups into `downstream`, `forward_if` and
 * `backups`, e3.await_state=1 as `*await` = 1. Returns 0 with a NACK in `out` on a bad pair. */
static int cmd_service_config(const e3rpc_command *c, svc_buf *cfg, const char **downstream,
                              const char **forward_if, const char **backups, int *await, cmd_outcome *out) {
    *downstream = *forward_if = *backups = NULL;
    *await = 0;
    for (size_t i = 0; i < c->n_config; i++) {
        const char *k = c->config[i].key ? c->config[i].key : "", *v = c->config[i].value ? c->config[i].value : "";
        if (strncmp(k, "e3.", 3) == 0) {
            /* Unknown e3.* keys are ignored: a newer controller may know keys this agent does not. */
            if (strcmp(k, CMD_KEY_DOWNSTREAM) == 0) *downstream = v;
            else if (strcmp(k, CMD_KEY_FORWARD_IF) == 0) *forward_if = v;
            else if (strcmp(k, CMD_KEY_BACKUPS) == 0) *backups = v;
            else if (strcmp(k, CMD_KEY_AWAIT_STATE) == 0) *await = strcmp(v, "1") == 0;
            continue;
        }
        if (!*k || strpbrk(k, ";=") || strchr(v, ';'))
            return cmd_nack(out, "bad_config", "config key \"%s\": keys may not be empty or hold ';' or '=', values may not hold ';'", k);
        if ((cfg->len && svc_buf_append(cfg, ";", 1) != SVC_OK) || svc_buf_append(cfg, k, strlen(k)) != SVC_OK ||
            svc_buf_append(cfg, "=", 1) != SVC_OK || svc_buf_append(cfg, v, strlen(v)) != SVC_OK)
            return cmd_nack(out, "internal", "out of memory");
    }
    if (svc_buf_append(cfg, "", 1) != SVC_OK) return cmd_nack(out, "internal", "out of memory"); /* NUL */
    return 1;
}

/* Open an instance's UDP node on `port`: requests to `stage`, replicate frames to `backup`. */
static chan_udp_node *cmd_node_open(cmd_state *s, uint16_t port, pl_inst *stage, rep_backup *backup, char *err) {
    chan_udp_node *node = chan_net_node_new(s->net, s->bind_ip, port, pl_deliver, stage, err);
    if (node && backup) chan_udp_node_set_replicate(node, rep_backup_deliver, backup);
    return node;
}

static int cmd_deploy(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    char err[ENG_ERRBUF_LEN];
    const char *downstream, *forward_if, *backups;
    int await;
    size_t idlen = c->instance_id ? strlen(c->instance_id) : 0;
    if (idlen == 0 || idlen >= E3RPC_ID_LEN)
        return cmd_nack(out, "bad_command", "instance id must be 1-%d characters", E3RPC_ID_LEN - 1);
    if (cmd_find(s, c->instance_id))
        return cmd_nack(out, "duplicate_instance", "instance %s is already deployed on this node", c->instance_id);
    if (!c->service_type || !svc_find(c->service_type))
        return cmd_nack(out, "unknown_service", "no service type \"%s\" in this agent's catalogue",
                        c->service_type ? c->service_type : "");
    if (c->port == 0 || c->port > 65535)
        return cmd_nack(out, "bad_config", "port %u is not in 1..65535", c->port);
    svc_buf cfg = {0};
    pl_inst *stage = NULL;
    rep_primary *primary = NULL;
    rep_backup *backup = NULL;
    cmd_repl *repl = NULL;
    const svc_type *type = svc_find(c->service_type);
    uint32_t engine_id = s->next_engine_id;
    int deployed = 0;
    if (!cmd_service_config(c, &cfg, &downstream, &forward_if, &backups, &await, out)) goto err;
    if (backups && *backups && !type->drain_log) {
        /* Not a NACK: the instance serves fine, there is just no state to follow. */
        alog(ALOG_WARN, "instance %s: e3.backups ignored: %s is stateless", c->instance_id, type->name);
    } else if (backups && *backups) {
        primary = rep_primary_new(s->routes, pl_egress(s->pl), c->instance_id, backups, err);
        if (!primary) {
            cmd_nack(out, "bad_config", "%s", err);
            goto err;
        }
        rep_primary_set_epoch(primary, c->epoch);
    }
    if (type->drain_log && !(repl = calloc(1, sizeof(*repl)))) {
        cmd_nack(out, "internal", "out of memory");
        goto err;
    }
    if (repl) repl->p = primary;
    if (type->apply_log && !(backup = rep_backup_new(s->e, engine_id))) {
        cmd_nack(out, "internal", "out of memory");
        goto err;
    }
    if (s->n_insts == s->cap_insts) {
        size_t cap = s->cap_insts ? 2 * s->cap_insts : 16;
        pthread_mutex_lock(&s->lock);
        cmd_inst *grown = realloc(s->insts, cap * sizeof(*grown));
        if (grown) {
            s->insts = grown;
            s->cap_insts = cap;
        }
        pthread_mutex_unlock(&s->lock);
        if (!grown) {
            cmd_nack(out, "internal", "out of memory");
            goto err;
        }
    }
    /* Into the engine first, so the port never delivers to an instance that does not exist.
     * Recording is on for every stateful instance: a backup may be made a primary later
     * (export_state in copy mode), and recording cannot be switched on afterwards. */
    if (eng_deploy_replicated(s->e, engine_id, c->service_type, (const char *)cfg.data, 0,
                              repl ? cmd_on_log : NULL, repl, err) != ENG_OK) {
        cmd_nack(out, "bad_config", "%s", err);
        goto err;
    }
    deployed = 1;
    s->next_engine_id++;
    stage = pl_inst_new(s->pl, engine_id, downstream, forward_if, err);
    if (!stage) {
        cmd_nack(out, "bad_config", "%s", err);
        goto err;
    }
    chan_udp_node *node = NULL; /* awaiting state: the import opens it (cmd_import_ready) */
    if (!await && !(node = cmd_node_open(s, (uint16_t)c->port, stage, backup, err))) {
        cmd_nack(out, "port_in_use", "%s", err);
        goto err;
    }
    cmd_inst in = {.engine_id = engine_id, .port = (uint16_t)c->port, .type = type,
                   .state = await ? CMD_AWAITING : CMD_SERVING, .node = node, .stage = stage,
                   .primary = primary, .repl = repl, .backup = backup,
                   .backup_role = c->role && strcmp(c->role, "backup") == 0, .epoch = c->epoch};
    snprintf(in.id, sizeof(in.id), "%s", c->instance_id);
    pthread_mutex_lock(&s->lock);
    s->insts[s->n_insts++] = in;
    pthread_mutex_unlock(&s->lock);
    svc_buf_free(&cfg);
    out->ok = 1;
    return 1;
err:
    if (deployed) eng_remove(s->e, engine_id, err);
    pl_inst_free(stage);
    rep_primary_release(primary);
    free(repl);
    rep_backup_free(backup);
    svc_buf_free(&cfg);
    return 0;
}

static int cmd_remove(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    pthread_mutex_lock(&s->lock);
    cmd_inst *found = c->instance_id ? cmd_find(s, c->instance_id) : NULL;
    if (!found) {
        pthread_mutex_unlock(&s->lock);
        return cmd_nack(out, "unknown_instance", "no instance %s on this node", c->instance_id ? c->instance_id : "");
    }
    cmd_inst in = cmd_detach(s, (size_t)(found - s->insts));
    pthread_mutex_unlock(&s->lock);
    cmd_destroy(s, &in);
    out->ok = 1;
    return 1;
}

/* sx_ready_fn (ctx = cmd_xfer), on the import thread: the state is in, open the port. */
static int cmd_import_ready(void *ctx, char *err) {
    cmd_xfer *ci = ctx;
    cmd_state *s = ci->s;
    chan_udp_node *node = cmd_node_open(s, ci->port, ci->stage, ci->backup, err);
    if (!node) return SX_ERR;
    pthread_mutex_lock(&s->lock);
    cmd_inst *in = cmd_find(s, ci->id);
    int mine = in && in->state == CMD_AWAITING;
    if (mine) {
        in->node = node;
        in->state = CMD_SERVING;
    }
    pthread_mutex_unlock(&s->lock);
    if (!mine) { /* being removed (cmd_destroy joins us): serve nothing */
        chan_net_node_free(s->net, node);
        return sx_set_error(err, "instance %s was removed", ci->id);
    }
    return SX_OK;
}

/* import_state: listen for the exporter and ACK; the transfer thread does the rest. */
static int cmd_import(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    char err[SX_ERRBUF_LEN], src[16] = "";
    uint16_t ignored;
    cmd_inst *in = c->instance_id ? cmd_find(s, c->instance_id) : NULL; /* rows move on this thread only */
    if (!in) return cmd_nack(out, "unknown_instance", "no instance %s on this node", c->instance_id ? c->instance_id : "");
    if (cmd_stale(in, c, out)) return 0;
    cmd_import_stop(in->import); /* a retry replaces an earlier listener, finished or not */
    in->import = NULL;
    pthread_mutex_lock(&s->lock);
    cmd_inst_state st = in->state; /* final now: no import thread runs */
    pthread_mutex_unlock(&s->lock);
    if (st != CMD_AWAITING)
        return cmd_nack(out, "not_awaiting_state", "instance %s is %s, not awaiting state", in->id,
                        cmd_state_names[st]);
    if (c->listen_port == 0 || c->listen_port > 65535)
        return cmd_nack(out, "bad_command", "listen_port %u is not in 1..65535", c->listen_port);
    const char *peer = c->peer ? c->peer : "";
    struct in_addr a;
    /* The source is an IP; "ip:port" (the field's old meaning) is taken for its IP. */
    if (*peer && sx_parse_hostport(peer, src, &ignored) != SX_OK) {
        if (strlen(peer) >= sizeof(src) || inet_pton(AF_INET, peer, &a) != 1)
            return cmd_nack(out, "bad_command", "source \"%s\" is not an IPv4 address", peer);
        snprintf(src, sizeof(src), "%s", peer);
    }
    cmd_xfer *ci = calloc(1, sizeof(*ci));
    if (!ci) return cmd_nack(out, "internal", "out of memory");
    *ci = (cmd_xfer){.s = s, .port = in->port, .stage = in->stage, .backup = in->backup};
    snprintf(ci->id, sizeof(ci->id), "%s", in->id);
    /* `primary` cannot change while the instance awaits state: only a copy switches it, and a
     * copy needs a serving instance. */
    sx_import_spec spec = {.e = s->e, .engine_id = in->engine_id, .primary = in->primary,
                           .any_instance = in->backup_role,
                           .port = (uint16_t)c->listen_port, .accept_timeout_ms = s->accept_timeout_ms,
                           .ready = cmd_import_ready, .ready_ctx = ci};
    snprintf(spec.instance_id, sizeof(spec.instance_id), "%s", in->id);
    snprintf(spec.type, sizeof(spec.type), "%s", in->type->name);
    snprintf(spec.source_ip, sizeof(spec.source_ip), "%s", src);
    if (!(ci->im = sx_importer_start(&spec, err))) {
        free(ci);
        return cmd_nack(out, "listen_failed", "%s", err);
    }
    in->import = ci;
    if (c->epoch) { /* not serving yet, so nothing replicates: its frames carry the new epoch from the first */
        pthread_mutex_lock(&s->lock); /* the ticker reads it */
        in->epoch = c->epoch;
        pthread_mutex_unlock(&s->lock);
        if (in->primary) rep_primary_set_epoch(in->primary, c->epoch);
    }
    alog(ALOG_INFO, "instance %s: awaiting its state on TCP port %u from %s", in->id, c->listen_port, *src ? src : "anyone");
    out->ok = 1;
    return 1;
}

/* Close `in`'s port for an export: it is stopped, and the replies still owed are waited for
 * (every update a client saw acknowledged is in the state exported next). */
static void cmd_port_close(cmd_state *s, cmd_inst *in) {
    pthread_mutex_lock(&s->lock);
    chan_udp_node *node = in->node;
    cmd_add_counters(&s->retired, node);
    in->node = NULL;
    in->state = CMD_STOPPED;
    pthread_mutex_unlock(&s->lock);
    chan_net_node_free(s->net, node);
}

/* Open `in`'s port again after an export (same port, stage and replicate sink): it serves.
 * Returns 1, or 0 with the system's reason in `err` (it stays stopped). */
static int cmd_port_reopen(cmd_state *s, cmd_inst *in, char *err) {
    chan_udp_node *node = cmd_node_open(s, in->port, in->stage, in->backup, err);
    if (!node) return 0;
    pthread_mutex_lock(&s->lock);
    in->node = node;
    in->state = CMD_SERVING;
    pthread_mutex_unlock(&s->lock);
    return 1;
}

/* A switch of replication targets: `next` in, the replaced ones out; for a promotion, the
 * primaries it replaces fenced on the instance's own backup side and the new targets told. */
typedef struct cmd_switch_ctx {
    cmd_repl *repl;     /* the instance's hook view */
    rep_primary *next;  /* the new targets, or NULL (none) */
    rep_primary *prev;  /* out: the replaced targets, or NULL */
    rep_backup *fence;  /* promotion: the instance's backup side, or NULL (a plain switch) */
    char (*fenced)[E3RPC_ID_LEN]; /* promotion: the primaries it replaces */
    size_t n_fenced;    /* entries in fenced */
    uint64_t epoch;     /* promotion: the epoch they are fenced at */
} cmd_switch_ctx;

/* eng_op_fn (op_ctx = cmd_switch_ctx), instance entered: a backup in both lists continues its
 * numbering with its unconfirmed updates; a new one starts at 0 (its first update is seq 1). A
 * promotion first refuses the replaced primaries' later updates here (no update of theirs can
 * be applied after the op: the instance serves its own writes now), then announces itself to
 * its backups before any request of the new primary can change the state. */
static int cmd_switch_op(void *op_ctx, const svc_type *type, svc_instance *inst, const uint8_t *data, size_t len,
                         svc_buf *resp, char *err) {
    cmd_switch_ctx *x = op_ctx;
    (void)type, (void)inst, (void)data, (void)len, (void)resp, (void)err;
    for (size_t i = 0; x->fence && i < x->n_fenced; i++) rep_backup_fence(x->fence, x->fenced[i], x->epoch);
    rep_primary_adopt(x->next, x->repl->p); /* kept backups: numbers and unconfirmed updates */
    x->prev = x->repl->p;
    x->repl->p = x->next;
    if (x->fence && x->next) rep_primary_announce(x->next);
    return ENG_OK;
}

/* Run switch `x` (its `next` taken over on SX_OK) in one op on `in`; the replaced targets are
 * released, their counters kept in rep_past. */
static int cmd_switch_run(cmd_state *s, cmd_inst *in, cmd_switch_ctx *x, char *err) {
    rep_counters old = {0};
    x->repl = in->repl;
    if (!in->repl) return SX_OK; /* stateless: nothing to replicate (next is NULL) */
    if (sx_run_op(s->e, in->engine_id, cmd_switch_op, x, err) != SX_OK) return SX_ERR;
    if (x->prev) rep_primary_counters(x->prev, &old);
    pthread_mutex_lock(&s->lock);
    in->primary = x->next;
    cmd_rep_add_past(&in->rep_past, &old);
    pthread_mutex_unlock(&s->lock);
    rep_primary_release(x->prev); /* updates in flight hold it until answered */
    return SX_OK;
}

/* Replace `in`'s replication targets with `next` (NULL: none; taken over on SX_OK). */
static int cmd_switch(cmd_state *s, cmd_inst *in, rep_primary *next, char *err) {
    cmd_switch_ctx x = {.next = next};
    return cmd_switch_run(s, in, &x, err);
}

/* export_state: pause (copy) or stop (move) serving, send the state; on the importer's OK a
 * copy switches the backups and serves again, a move stays stopped; on failure serve again. */
static int cmd_export(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    char err[SX_ERRBUF_LEN], oerr[ENG_ERRBUF_LEN], ip[16];
    uint16_t port;
    pthread_mutex_lock(&s->lock);
    cmd_inst *in = c->instance_id ? cmd_find(s, c->instance_id) : NULL;
    cmd_inst_state st = in ? in->state : CMD_STOPPED;
    pthread_mutex_unlock(&s->lock);
    if (!in) return cmd_nack(out, "unknown_instance", "no instance %s on this node", c->instance_id ? c->instance_id : "");
    if (sx_parse_hostport(c->peer, ip, &port) != SX_OK)
        return cmd_nack(out, "bad_command", "destination \"%s\" is not <IPv4>:<port>", c->peer ? c->peer : "");
    if (cmd_stale(in, c, out)) return 0;
    if (st != CMD_SERVING)
        return cmd_nack(out, "not_serving", "instance %s is %s: nothing to export", in->id, cmd_state_names[st]);
    int copy = c->keep_serving != 0;
    const char *backups = copy && c->backups ? c->backups : "";
    rep_primary *next = NULL;
    if (*backups && !in->repl) /* as at deploy: not a NACK, there is no state to follow */
        alog(ALOG_WARN, "instance %s: backups ignored: %s is stateless", in->id, in->type->name);
    else if (*backups && !(next = rep_primary_new(s->routes, pl_egress(s->pl), in->id, backups, err)))
        return cmd_nack(out, "bad_config", "%s", err);
    if (next) rep_primary_set_epoch(next, in->epoch);
    /* Connected first, while it still serves: the importer's ImportState may reach its node after
     * this command (the controller issues them together), and the port stays open meanwhile. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = sx_connect_importer(ip, port, SX_LISTEN_WAIT_MS, err);
    if (fd < 0) {
        rep_primary_release(next);
        alog(ALOG_WARN, "state %s of %s to %s not started: %s; serving here still", copy ? "copy" : "export", in->id,
             c->peer, err);
        return cmd_nack(out, "transfer_failed", "state of %s not %s to %s: %s; serving here still", in->id,
                        copy ? "copied" : "moved", c->peer, err);
    }
    /* A copy keeps the port closed from before the export op until after the switch op: no
     * request, hence no update, runs between them, so the new backups hold the state as of the
     * export and then get every later update, from seq 1: no gap. */
    cmd_port_close(s, in);
    svc_buf frame = {0};
    int rc = sx_export_frame(s->e, in->engine_id, in->id, in->primary, &frame, err);
    if (rc == SX_OK) rc = sx_send_frame_on(fd, frame.data, frame.len, err);
    else close(fd); /* the importer sees the connection close without a frame: it refuses nothing, serves nothing */
    if (rc == SX_UNSURE && copy) rc = SX_ERR; /* a new backup serving unasked is no second primary */
    if (rc == SX_OK && copy && (rc = cmd_switch(s, in, next, err)) == SX_OK) next = NULL;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    size_t bytes = frame.len;
    svc_buf_free(&frame);
    rep_primary_release(next); /* unused: a failed copy leaves the targets as they were */
    if (rc == SX_OK && !copy) {
        alog(ALOG_INFO, "state export of %s (%s) to %s: %zu bytes in %.1f ms; stopped here", in->id, in->type->name,
             c->peer, bytes, ms);
        out->ok = 1;
        return 1;
    }
    if (rc == SX_UNSURE) { /* serving again here could make two primaries: wait to be told */
        pthread_mutex_lock(&s->lock);
        in->state = CMD_FENCED;
        pthread_mutex_unlock(&s->lock);
        alog(ALOG_WARN, "state export of %s to %s unconfirmed after %.1f ms: %s; fenced until the controller decides",
             in->id, c->peer, ms, err);
        return cmd_nack(out, "transfer_unconfirmed", "state of %s sent to %s, its answer lost (%s); fenced: "
                        "ConfirmImport on the importer, then RemoveInstance or ResumeInstance here", in->id, c->peer, err);
    }
    if (!cmd_port_reopen(s, in, oerr)) {
        alog(ALOG_ERROR, "state %s of %s to %s %s (%s) and port %u could not be reopened: %s", copy ? "copy" : "export",
             in->id, c->peer, rc == SX_OK ? "done" : "failed", rc == SX_OK ? "backups switched" : err, in->port, oerr);
        if (rc == SX_OK)
            return cmd_nack(out, "port_in_use", "state of %s copied to %s, backups switched; NOT serving again (port %u: %s)",
                            in->id, c->peer, in->port, oerr);
        return cmd_nack(out, "transfer_failed", "state of %s not %s to %s: %s; NOT serving again (port %u: %s)", in->id,
                        copy ? "copied" : "moved", c->peer, err, in->port, oerr);
    }
    if (rc == SX_OK) {
        alog(ALOG_INFO, "state export of %s (%s) to %s: %zu bytes in %.1f ms; copied; serving here, backups \"%s\"",
             in->id, in->type->name, c->peer, bytes, ms, backups);
        out->ok = 1;
        return 1;
    }
    alog(ALOG_WARN, "state export of %s to %s failed after %.1f ms: %s; serving here again", in->id, c->peer, ms, err);
    return cmd_nack(out, "transfer_failed", "state of %s not %s to %s: %s; serving here again", in->id,
                    copy ? "copied" : "moved", c->peer, err);
}

/* confirm_import: end the instance's transfer, then say whether it serves the imported state. */
static int cmd_confirm_import(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    cmd_inst *in = c->instance_id ? cmd_find(s, c->instance_id) : NULL; /* rows move on this thread only */
    if (!in) return cmd_nack(out, "unknown_instance", "no instance %s on this node", c->instance_id ? c->instance_id : "");
    if (cmd_stale(in, c, out)) return 0;
    cmd_import_stop(in->import); /* after the join the state is final: no import can open the port later */
    in->import = NULL;
    pthread_mutex_lock(&s->lock);
    cmd_inst_state st = in->state;
    pthread_mutex_unlock(&s->lock);
    if (st != CMD_SERVING || (c->epoch && c->epoch != in->epoch))
        return cmd_nack(out, "not_imported", "instance %s is %s at epoch %llu; its transfer is closed", in->id,
                        cmd_state_names[st], (unsigned long long)in->epoch);
    alog(ALOG_INFO, "instance %s: import confirmed (serving at epoch %llu)", in->id, (unsigned long long)in->epoch);
    out->ok = 1;
    return 1;
}

/* resume_instance: a fenced copy (unconfirmed move, importer found not serving) serves again. */
static int cmd_resume(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    char err[ENG_ERRBUF_LEN];
    pthread_mutex_lock(&s->lock);
    cmd_inst *in = c->instance_id ? cmd_find(s, c->instance_id) : NULL;
    cmd_inst_state st = in ? in->state : CMD_STOPPED;
    pthread_mutex_unlock(&s->lock);
    if (!in) return cmd_nack(out, "unknown_instance", "no instance %s on this node", c->instance_id ? c->instance_id : "");
    if (cmd_stale(in, c, out)) return 0;
    if (st != CMD_FENCED)
        return cmd_nack(out, "not_fenced", "instance %s is %s: only a fenced instance resumes", in->id,
                        cmd_state_names[st]);
    if (!cmd_port_reopen(s, in, err))
        return cmd_nack(out, "port_in_use", "instance %s stays fenced: port %u: %s", in->id, in->port, err);
    alog(ALOG_INFO, "instance %s: resumed after an unconfirmed move; serving here again", in->id);
    out->ok = 1;
    return 1;
}

/* promote_instance: a backup copy becomes the primary at a new epoch, superseding the primaries it
 * replaces (docs/agents.md "Never two primaries"). */
static int cmd_promote(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    char err[ENG_ERRBUF_LEN], fenced[REP_MAX_SUPERSEDED][E3RPC_ID_LEN];
    size_t n_fenced = 0;
    pthread_mutex_lock(&s->lock);
    cmd_inst *in = c->instance_id ? cmd_find(s, c->instance_id) : NULL;
    cmd_inst_state st = in ? in->state : CMD_STOPPED;
    pthread_mutex_unlock(&s->lock);
    if (!in) return cmd_nack(out, "unknown_instance", "no instance %s on this node", c->instance_id ? c->instance_id : "");
    if (!c->epoch) return cmd_nack(out, "bad_command", "promote_instance of %s names no epoch", in->id);
    if (cmd_stale(in, c, out)) return 0;
    if (in->promoted && c->epoch == in->epoch) { /* a replay: already the primary at this epoch */
        out->ok = 1;
        return 1;
    }
    if (!in->backup_role || !in->repl)
        return cmd_nack(out, "not_a_backup", "instance %s is %s: only a stateful backup copy is promoted", in->id,
                        in->repl ? "a primary" : "stateless");
    if (st != CMD_SERVING)
        return cmd_nack(out, "not_serving", "instance %s is %s: it holds no state to serve", in->id, cmd_state_names[st]);
    if (pl_parse_ids("replaces", c->replaces, fenced, REP_MAX_SUPERSEDED, &n_fenced, err) != PL_OK)
        return cmd_nack(out, "bad_config", "%s", err);
    const char *backups = c->backups ? c->backups : "";
    rep_primary *next = NULL;
    if (*backups && (!(next = rep_primary_new(s->routes, pl_egress(s->pl), in->id, backups, err)) ||
                     rep_primary_supersede(next, c->replaces, err) != 0)) {
        rep_primary_release(next);
        return cmd_nack(out, "bad_config", "%s", err);
    }
    if (next) rep_primary_set_epoch(next, c->epoch);
    cmd_switch_ctx x = {.next = next, .fence = in->backup, .fenced = fenced, .n_fenced = n_fenced, .epoch = c->epoch};
    if (cmd_switch_run(s, in, &x, err) != SX_OK) {
        rep_primary_release(next);
        return cmd_nack(out, "internal", "instance %s not promoted: %s", in->id, err);
    }
    pthread_mutex_lock(&s->lock); /* the ticker reads the epoch */
    in->epoch = c->epoch;
    in->backup_role = 0;
    in->promoted = 1;
    pthread_mutex_unlock(&s->lock);
    alog(ALOG_INFO, "instance %s: promoted to primary at epoch %llu, superseding \"%s\"; backups \"%s\"", in->id,
         (unsigned long long)c->epoch, c->replaces ? c->replaces : "", backups);
    out->ok = 1;
    return 1;
}

static int cmd_set_routes(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    char err[RT_ERRBUF_LEN];
    if (rt_replace(s->routes, c->routes, c->n_routes, err) != RT_OK) return cmd_nack(out, "bad_route", "%s", err);
    out->ok = 1;
    return 1;
}

/* The lease fence: NACK `stale_controller` (returns 1) when `c` carries a lease epoch below the
 * highest seen for the node (its controller lost the node's lease: a paused holder's late command);
 * otherwise note c's lease epoch as seen (returns 0). */
static int cmd_lease_fence(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    uint64_t seen = cmd_lease_epoch(s);
    if (!c->lease_epoch || c->lease_epoch >= seen) {
        cmd_raise_lease_epoch(s, c->lease_epoch);
        return 0;
    }
    cmd_nack(out, "stale_controller",
             "the node's lease is at epoch %llu; command %llu comes from a controller at lease epoch %llu",
             (unsigned long long)seen, (unsigned long long)c->version, (unsigned long long)c->lease_epoch);
    return 1;
}

/* Apply `c` by its kind and fill `out`. */
static void cmd_dispatch(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    switch (c->kind) {
    case E3RPC_CMD_DEPLOY: cmd_deploy(s, c, out); break;
    case E3RPC_CMD_REMOVE: cmd_remove(s, c, out); break;
    case E3RPC_CMD_SET_ROUTES: cmd_set_routes(s, c, out); break;
    case E3RPC_CMD_EXPORT_STATE: cmd_export(s, c, out); break;
    case E3RPC_CMD_IMPORT_STATE: cmd_import(s, c, out); break;
    case E3RPC_CMD_CONFIRM_IMPORT: cmd_confirm_import(s, c, out); break;
    case E3RPC_CMD_RESUME: cmd_resume(s, c, out); break;
    case E3RPC_CMD_PROMOTE: cmd_promote(s, c, out); break;
    default: cmd_nack(out, "unknown_command", "command %llu carries no action this agent knows", (unsigned long long)c->version); break;
    }
}

int cmd_apply(cmd_state *s, const e3rpc_command *c, cmd_outcome *out) {
    memset(out, 0, sizeof(*out));
    out->version = c->version;
    if (c->version <= s->applied) {
        const cmd_outcome *m = &s->memory[c->version % CMD_OUTCOME_MEMORY];
        if (m->version == c->version && c->version != 0) *out = *m;
        else out->ok = 1; /* too old to remember: it was handled, say so */
        return 0;
    }
    /* a fenced command is not handled: the version stays open for the node's owner to deliver (its
     * stream starts after the applied version), so a paused holder's late copy never poisons it */
    if (cmd_lease_fence(s, c, out)) return 0;
    cmd_dispatch(s, c, out);
    s->applied = c->version;
    s->memory[c->version % CMD_OUTCOME_MEMORY] = *out;
    return 1;
}

void cmd_set_accept_timeout(cmd_state *s, uint32_t ms) {
    s->accept_timeout_ms = ms;
}

uint64_t cmd_applied_version(cmd_state *s) {
    return s->applied;
}

void cmd_raise_lease_epoch(cmd_state *s, uint64_t epoch) {
    pthread_mutex_lock(&s->lock);
    if (epoch > s->lease_epoch) s->lease_epoch = epoch;
    pthread_mutex_unlock(&s->lock);
}

uint64_t cmd_lease_epoch(cmd_state *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t epoch = s->lease_epoch;
    pthread_mutex_unlock(&s->lock);
    return epoch;
}

size_t cmd_instances(cmd_state *s) {
    pthread_mutex_lock(&s->lock);
    size_t n = s->n_insts;
    pthread_mutex_unlock(&s->lock);
    return n;
}

int cmd_instance_id(cmd_state *s, uint32_t engine_id, char *out) {
    int found = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_insts && !found; i++)
        if (s->insts[i].engine_id == engine_id) {
            memcpy(out, s->insts[i].id, E3RPC_ID_LEN);
            found = 1;
        }
    pthread_mutex_unlock(&s->lock);
    return found;
}

uint16_t cmd_instance_port(cmd_state *s, const char *instance_id) {
    pthread_mutex_lock(&s->lock);
    cmd_inst *in = cmd_find(s, instance_id);
    uint16_t port = in ? in->port : 0;
    pthread_mutex_unlock(&s->lock);
    return port;
}

int cmd_replication(cmd_state *s, const char *instance_id, rep_counters *out) {
    pthread_mutex_lock(&s->lock);
    cmd_inst *in = cmd_find(s, instance_id);
    if (in) cmd_rep_counters(in, out);
    pthread_mutex_unlock(&s->lock);
    return in != NULL;
}

void cmd_latency(void *ctx, const eng_inst_stats *insts, size_t n, lat_summary *out) {
    cmd_state *s = ctx;
    memset(out, 0, n * sizeof(*out));
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_insts; i++) {
        if (!s->insts[i].stage) continue;
        for (size_t j = 0; j < n; j++)
            if (insts[j].instance_id == s->insts[i].engine_id) pl_inst_latency(s->insts[i].stage, &out[j]);
    }
    pthread_mutex_unlock(&s->lock);
}

void cmd_net(void *ctx, hb_net *out) {
    cmd_state *s = ctx;
    pthread_mutex_lock(&s->lock);
    *out = s->retired;
    for (size_t i = 0; i < s->n_insts; i++) cmd_add_counters(out, s->insts[i].node);
    pthread_mutex_unlock(&s->lock);
    chan_counters eg;
    pl_counters(s->pl, &eg);
    out->rx_bytes += eg.rx_bytes;
    out->rx_packets += eg.rx_packets;
    out->tx_bytes += eg.tx_bytes;
    out->tx_packets += eg.tx_packets;
}
