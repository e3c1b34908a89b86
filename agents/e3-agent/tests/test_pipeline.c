/* SPDX-License-Identifier: Apache-2.0 */
/* pipeline: splitting and joining requests, parsing e3.downstream, and requests run through
 * pl_deliver on a real engine: first line only without a downstream, forwarding of the rest over
 * UDP to a downstream stage (round-robin), service errors, missing routes, silent downstreams. */
#include "chan_check.h"
#include "pipeline.h"

/* Run `req` through `stage` and check the reply. */
static void call(pl_inst *stage, const char *req, int want_status, const char *want) {
    char err[CHAN_ERRBUF_LEN];
    reply r = {0};
    CHECK_EQ_INT(pl_deliver(stage, 0, (const uint8_t *)req, strlen(req), on_reply, &r, err), CHAN_OK);
    check_reply(&r, req, (int)strlen(req), want_status, want);
}

static void test_pure(void) {
    pl_split sp;
    pl_split_request((const uint8_t *)"GET a", 5, &sp);
    CHECK(sp.head_len == 5 && sp.rest == NULL && sp.rest_len == 0);
    const char *two = "PUT a 1\nGET a\nUPDATE s 3";
    pl_split_request((const uint8_t *)two, strlen(two), &sp);
    CHECK(sp.head_len == 7);
    CHECK(sp.rest_len == strlen("GET a\nUPDATE s 3"));
    CHECK_MEM(sp.rest, "GET a\nUPDATE s 3", sp.rest_len);
    pl_split_request((const uint8_t *)"x\n", 2, &sp); /* trailing newline: empty rest */
    CHECK(sp.head_len == 1 && sp.rest != NULL && sp.rest_len == 0);
    pl_split_request((const uint8_t *)"", 0, &sp);
    CHECK(sp.head_len == 0 && sp.rest == NULL);

    svc_buf b = {0};
    CHECK_EQ_INT(pl_join(&b, (const uint8_t *)"OK", 2, (const uint8_t *)"EMA 8", 5), PL_OK);
    CHECK(b.len == 8);
    CHECK_MEM(b.data, "OK\nEMA 8", 8);
    CHECK_EQ_INT(pl_join(&b, (const uint8_t *)"", 0, (const uint8_t *)"", 0), PL_OK);
    CHECK(b.len == 1 && b.data[0] == '\n');
    svc_buf_free(&b);

    char ids[4][E3RPC_ID_LEN], err[PL_ERRBUF_LEN];
    size_t n;
    CHECK_EQ_INT(pl_parse_downstream(" a , b,,c ", ids, 4, &n, err), PL_OK);
    CHECK(n == 3 && strcmp(ids[0], "a") == 0 && strcmp(ids[1], "b") == 0 && strcmp(ids[2], "c") == 0);
    CHECK_EQ_INT(pl_parse_downstream(NULL, ids, 4, &n, err), PL_OK);
    CHECK(n == 0);
    CHECK_EQ_INT(pl_parse_downstream("a,b,c,d,e", ids, 4, &n, err), PL_ERR);
    char longid[80];
    memset(longid, 'x', 79);
    longid[79] = '\0';
    CHECK_EQ_INT(pl_parse_downstream(longid, ids, 4, &n, err), PL_ERR);

    CHECK(pl_passes_gate(NULL, (const uint8_t *)"x", 1) && pl_passes_gate("", (const uint8_t *)"", 0));
    CHECK(pl_passes_gate("ALLOW", (const uint8_t *)"ALLOW", 5));
    CHECK(!pl_passes_gate("ALLOW", (const uint8_t *)"UNAUTHORIZED", 12));
    CHECK(!pl_passes_gate("ALLOW", (const uint8_t *)"ALL", 3));
}

/* A downstream stage served on its own UDP node, the way commands.c binds instances. */
typedef struct served {
    pl_inst *stage;
    chan_udp_node *node;
} served;

static served serve(pl_ctx *p, uint32_t engine_id, const char *downstream) {
    char err[CHAN_ERRBUF_LEN];
    served s = {.stage = pl_inst_new(p, engine_id, downstream, NULL, err)};
    CHECK(s.stage);
    s.node = chan_udp_node_new("127.0.0.1", 0, pl_deliver, s.stage, err);
    CHECK(s.node);
    return s;
}

int main(void) {
    test_pure();

    char err[ENG_ERRBUF_LEN];
    eng *e = eng_new(2, 0, err);
    rt_table *rt = rt_new();
    CHECK(e && rt);
    pl_ctx *p = pl_new(e, rt, NULL, "127.0.0.1", 300, err);
    CHECK(p);
    CHECK_EQ_INT(eng_deploy(e, 1, "kvs", "", 0, err), ENG_OK);
    CHECK_EQ_INT(eng_deploy(e, 2, "ema", "alpha=0.5", 0, err), ENG_OK);
    CHECK_EQ_INT(eng_deploy(e, 3, "ema", "alpha=0.5", 0, err), ENG_OK);
    CHECK_EQ_INT(eng_deploy(e, 4, "kvs", "", 0, err), ENG_OK);

    /* no downstream: the first line only, the rest is ignored */
    pl_inst *alone = pl_inst_new(p, 1, "", NULL, err);
    CHECK(alone);
    call(alone, "PUT k v", CHAN_OK, "OK");
    call(alone, "GET k\nUPDATE s 1", CHAN_OK, "VALUE v");
    call(alone, "FOO k", CHAN_ERR, "kvs: unknown command \"FOO\"");
    CHECK_EQ_INT(pl_deliver(alone, 77, (const uint8_t *)"GET k", 5, on_reply, NULL, err), CHAN_ERR);

    /* kvs -> {ema 2, ema 3} round-robin; each ema keeps its own average */
    served d2 = serve(p, 2, NULL), d3 = serve(p, 3, NULL);
    pl_inst *head = pl_inst_new(p, 1, "ema-2,ema-3", NULL, err);
    CHECK(head && pl_inst_downstreams(head) == 2);
    call(head, "PUT a 1\nUPDATE s 8", CHAN_ERR, "no route to instance ema-2");
    e3rpc_route routes[] = {{"ema-2", "127.0.0.1", chan_udp_node_port(d2.node)},
                            {"ema-3", "127.0.0.1", chan_udp_node_port(d3.node)},
                            {"silent", "127.0.0.1", 9}}; /* discard port: nobody answers */
    CHECK_EQ_INT(rt_replace(rt, routes, 3, err), RT_OK);
    /* the failed attempt took ema-2's turn: ema-3, ema-2, ema-3 */
    call(head, "PUT a 1\nUPDATE s 8", CHAN_OK, "OK\nEMA 8"); /* ema-3's first sample */
    call(head, "PUT a 2\nUPDATE s 2", CHAN_OK, "OK\nEMA 2"); /* ema-2's first sample */
    call(head, "PUT a 3\nUPDATE s 0", CHAN_OK, "OK\nEMA 4"); /* ema-3 again: (8 + 0) / 2 */
    call(head, "GET a", CHAN_OK, "VALUE 3");                 /* one line: not forwarded */
    call(head, "PUT a 4\n", CHAN_OK, "OK");                  /* empty rest: not forwarded */
    call(head, "BAD x\nUPDATE s 8", CHAN_ERR, "kvs: unknown command \"BAD\""); /* the chain stops */
    call(head, "PUT a 5\nNOPE s 8", CHAN_ERR, "ema: unknown command"); /* downstream error */
    /* latency: the 5 answered OK since the stage began (errors are not counted), each at least
     * as long as its forwarded part took at the downstream; the take empties it */
    lat_summary lat, down;
    pl_inst_latency(head, &lat);
    pl_inst_latency(d3.stage, &down);
    CHECK_EQ_INT(lat.count, 5);
    CHECK(lat.avg_us > 0 && lat.p99_us >= lat.avg_us * (1 - 1 / 32.0));
    CHECK_EQ_INT(down.count, 2);
    pl_inst_latency(head, &lat);
    CHECK_EQ_INT(lat.count, 0);

    /* three hops: kvs 1 -> kvs 4 -> ema 2 */
    served mid = serve(p, 4, "ema-2");
    e3rpc_route chain[] = {{"mid", "127.0.0.1", chan_udp_node_port(mid.node)},
                           {"ema-2", "127.0.0.1", chan_udp_node_port(d2.node)}};
    CHECK_EQ_INT(rt_replace(rt, chain, 2, err), RT_OK);
    pl_inst *top = pl_inst_new(p, 1, "mid", NULL, err);
    CHECK(top);
    call(top, "PUT b 1\nPUT c 2\nUPDATE t 6", CHAN_OK, "OK\nOK\nEMA 6");

    /* a gate: kvs 1 forwards only responses starting with "VALUE"; others end the request */
    pl_inst *gated = pl_inst_new(p, 1, "mid", "VALUE", err);
    CHECK(gated);
    call(gated, "GET b\nGET c", CHAN_OK, "VALUE 1\nVALUE 2"); /* passes: forwarded */
    call(gated, "GET nothing\nPUT c 9", CHAN_ERR, "NOT_FOUND"); /* stopped: c untouched */
    call(mid.stage, "GET c", CHAN_OK, "VALUE 2");
    char gate[PL_GATE_LEN + 1];
    memset(gate, 'g', PL_GATE_LEN);
    gate[PL_GATE_LEN] = '\0';
    CHECK(pl_inst_new(p, 1, "mid", gate, err) == NULL && strstr(err, "e3.forward_if"));

    /* a downstream that never answers fails after the timeout */
    pl_inst *to_silent = pl_inst_new(p, 1, "silent", NULL, err);
    CHECK_EQ_INT(rt_replace(rt, routes, 3, err), RT_OK);
    call(to_silent, "GET a\nanything", CHAN_ERR, "chan: no reply within 300 ms");

    chan_udp_node_free(mid.node);
    chan_udp_node_free(d2.node);
    chan_udp_node_free(d3.node);
    pl_inst_free(mid.stage);
    pl_inst_free(d2.stage);
    pl_inst_free(d3.stage);
    pl_inst_free(alone);
    pl_inst_free(head);
    pl_inst_free(top);
    pl_inst_free(to_silent);
    pl_inst_free(gated);
    pl_free(p);
    eng_free(e);
    rt_free(rt);
    return 0;
}
