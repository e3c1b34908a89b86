/* SPDX-License-Identifier: Apache-2.0 */
/* Test helpers for controller commands: the objects commands act on, built and freed in one go;
 * build a deploy command; apply a command and check its ACK or NACK. */
#ifndef E3AGENT_TESTS_CMD_CHECK_H
#define E3AGENT_TESTS_CMD_CHECK_H

#include "check.h"
#include "commands.h"

/* What commands act on, wired as the agent wires it, plus a client node to send requests from. */
typedef struct cmd_rig {
    eng *e;                /* 2 workers */
    rt_table *rt;          /* the route table */
    pl_ctx *pl;            /* pipeline on 127.0.0.1 */
    cmd_state *s;          /* binds instances on 127.0.0.1 */
    chan_udp_node *client; /* 127.0.0.1, any port, delivers nowhere */
} cmd_rig;

/* Build a cmd_rig whose pipeline gives up on a downstream after `timeout_ms`; fail the test on
 * error. */
static inline cmd_rig cmd_rig_new(uint32_t timeout_ms) {
    char err[ENG_ERRBUF_LEN];
    cmd_rig r = {.e = eng_new(2, 0, err), .rt = rt_new()};
    CHECK(r.e && r.rt);
    r.pl = pl_new(r.e, r.rt, NULL, "127.0.0.1", timeout_ms, err);
    CHECK(r.pl);
    r.s = cmd_new(r.e, r.pl, r.rt, NULL, "127.0.0.1");
    CHECK(r.s);
    r.client = chan_udp_node_new("127.0.0.1", 0, NULL, NULL, err);
    CHECK(r.client);
    return r;
}

/* Free everything in `r`: the command state first (it removes the instances still deployed). */
static inline void cmd_rig_free(cmd_rig *r) {
    cmd_free(r->s);
    chan_udp_node_free(r->client);
    pl_free(r->pl);
    eng_free(r->e);
    rt_free(r->rt);
}

/* A DEPLOY of a primary `type` instance `id` serving on `port`, with `n_cfg` config pairs. */
static inline e3rpc_command deploy(uint64_t version, char *id, char *type, uint32_t port, e3rpc_kv *cfg,
                                   size_t n_cfg) {
    return (e3rpc_command){.version = version, .kind = E3RPC_CMD_DEPLOY, .instance_id = id, .service_type = type,
                           .role = "primary", .port = port, .config = cfg, .n_config = n_cfg};
}

/* Apply `c` and check an ACK (`code` NULL) or a NACK with `code` and a message, for c's version;
 * returns cmd_apply's result. */
static inline int expect(cmd_state *s, e3rpc_command c, const char *code) {
    cmd_outcome o;
    int applied = cmd_apply(s, &c, &o);
    if (code ? (o.ok || strcmp(o.code, code) != 0) : !o.ok)
        fprintf(stderr, "version %llu: ok=%d code=%s message=%s (want %s)\n", (unsigned long long)c.version, o.ok,
                o.code, o.message, code ? code : "ACK");
    CHECK_EQ_INT(o.version, c.version);
    if (code) {
        CHECK(!o.ok);
        CHECK(strcmp(o.code, code) == 0);
        CHECK(o.message[0] != '\0');
    } else {
        CHECK(o.ok);
    }
    return applied;
}

#endif
