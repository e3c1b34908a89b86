/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helpers for state transfers through the command path (test_migrate, test_copy): the
 * commands, requests and key sets over UDP, replication counters waited for, and an instance's
 * exported state read back. Requests go to 127.0.0.1.
 */
#ifndef E3AGENT_TESTS_XFER_CHECK_H
#define E3AGENT_TESTS_XFER_CHECK_H

#include <stddef.h>
#include <time.h>

#include "chan_check.h"
#include "cmd_check.h"
#include "state_xfer.h"
#include "tcp_check.h"

#define XFER_WINDOW 128 /* requests in flight at once: keeps 10,000 keys well under a second */

/* A request to 127.0.0.1:port that must succeed (`want` NULL: any text). */
static inline void call(chan_udp_node *client, uint16_t port, const char *req, const char *want) {
    udp_send_check(client, port, 0, (const uint8_t *)req, strlen(req), CHAN_OK, want);
}

/* 1 if nothing is bound on UDP 127.0.0.1:port (we could bind it), else 0. */
static inline int udp_port_free(uint16_t port) {
    char err[CHAN_ERRBUF_LEN];
    chan_udp_node *n = chan_udp_node_new("127.0.0.1", port, NULL, NULL, err);
    chan_udp_node_free(n);
    return n != NULL;
}

/* IMPORT_STATE of `id` from 127.0.0.1, listening on `listen_port`. */
static inline e3rpc_command import_cmd(uint64_t v, char *id, uint16_t listen_port) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_IMPORT_STATE, .instance_id = id, .peer = "127.0.0.1",
                           .listen_port = listen_port};
}

/* EXPORT_STATE of `id` to `dest` ("ip:port"): a move. */
static inline e3rpc_command export_cmd(uint64_t v, char *id, char *dest) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_EXPORT_STATE, .instance_id = id, .peer = dest};
}

/* EXPORT_STATE of `id` to `dest` in copy mode, with `backups` afterwards. */
static inline e3rpc_command copy_cmd(uint64_t v, char *id, char *dest, char *backups) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_EXPORT_STATE, .instance_id = id, .peer = dest,
                           .keep_serving = 1, .backups = backups};
}

static inline e3rpc_command remove_cmd(uint64_t v, char *id) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_REMOVE, .instance_id = id};
}

static inline e3rpc_command routes_cmd(uint64_t v, e3rpc_route *routes, size_t n) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_SET_ROUTES, .routes = routes, .n_routes = n};
}

/* Apply `c` and return its outcome (for checking the message). */
static inline cmd_outcome outcome(cmd_state *s, e3rpc_command c) {
    cmd_outcome o;
    cmd_apply(s, &c, &o);
    return o;
}

/* PUT (`put`) or GET and check keys <prefix>0..n-1 on 127.0.0.1:port, XFER_WINDOW at a time;
 * key k holds "v<7k>". */
static inline void xfer_keys(chan_udp_node *client, uint16_t port, const char *prefix, int n, int put) {
    static reply r[XFER_WINDOW];
    char req[64], want[64], err[CHAN_ERRBUF_LEN];
    chan *c = chan_udp_open(client, "127.0.0.1", port, err);
    CHECK(c);
    for (int base = 0; base < n; base += XFER_WINDOW) {
        int m = n - base < XFER_WINDOW ? n - base : XFER_WINDOW;
        for (int i = 0; i < m; i++) {
            int k = base + i;
            int len = put ? snprintf(req, sizeof(req), "PUT %s%d v%d", prefix, k, k * 7)
                          : snprintf(req, sizeof(req), "GET %s%d", prefix, k);
            atomic_store(&r[i].done, 0);
            CHECK_EQ_INT(chan_send(c, 0, (const uint8_t *)req, (size_t)len, on_reply, &r[i], err), CHAN_OK);
        }
        for (int i = 0; i < m; i++) {
            int k = base + i;
            snprintf(want, sizeof(want), "VALUE v%d", k * 7);
            check_reply(&r[i], put ? "PUT" : "GET", 3, CHAN_OK, put ? "OK" : want);
        }
    }
    chan_close(c);
}

static inline void put_keys(chan_udp_node *client, uint16_t port, const char *prefix, int n) {
    xfer_keys(client, port, prefix, n, 1);
}

static inline void check_keys(chan_udp_node *client, uint16_t port, const char *prefix, int n) {
    xfer_keys(client, port, prefix, n, 0);
}

/* Poll the replication counters of `id` on `s` until the one at offset `off` (offsetof in
 * rep_counters) reaches `want` (5 s at most); fail the test if it is not exactly `want`. */
static inline void wait_counter(cmd_state *s, const char *id, size_t off, uint64_t want) {
    rep_counters rc;
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 5000; i++) {
        CHECK(cmd_replication(s, id, &rc));
        if (*(uint64_t *)((char *)&rc + off) >= want) break;
        nanosleep(&ms, NULL);
    }
    uint64_t got = *(uint64_t *)((char *)&rc + off);
    if (got != want)
        fprintf(stderr, "%s: counter at %zu = %llu, want %llu\n", id, off, (unsigned long long)got,
                (unsigned long long)want);
    CHECK_EQ_INT(got, want);
}

static inline void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Send `req` to `port` every 10 ms, up to 2 s, until the instance refuses it with stale_epoch (a
 * stale copy, fenced by its ticker); 1 if it did. */
static inline int refuses_stale(chan_udp_node *client, uint16_t port, const char *req) {
    for (int t = 0; t < 200; t++) {
        reply r = {0};
        char err[CHAN_ERRBUF_LEN];
        chan *c = chan_udp_open(client, "127.0.0.1", port, err);
        CHECK(c && chan_send(c, 0, (const uint8_t *)req, strlen(req), on_reply, &r, err) == CHAN_OK);
        chan_close(c);
        wait_done(&r);
        if (r.status == CHAN_ERR && strstr(r.text, "stale_epoch") != NULL) return 1;
        sleep_ms(10);
    }
    return 0;
}

/* The exported state (the service's export_state bytes) of instance `id` on `r` into `out`
 * (reset first), read with an export op on its worker. */
static inline void instance_state(cmd_rig *r, const char *id, svc_buf *out) {
    eng_inst_stats st[64];
    char cid[E3RPC_ID_LEN], err[SX_ERRBUF_LEN];
    size_t n = eng_stats_all(r->e, st, 64);
    uint32_t eid = 0;
    for (size_t i = 0; i < n && i < 64 && !eid; i++)
        if (cmd_instance_id(r->s, st[i].instance_id, cid) && strcmp(cid, id) == 0) eid = st[i].instance_id;
    CHECK(eid != 0);
    svc_buf frame = {0};
    sx_frame f;
    CHECK_EQ_INT(sx_export_frame(r->e, eid, id, NULL, &frame, err), SX_OK);
    CHECK_EQ_INT(sx_decode(frame.data, frame.len, 1, id, NULL, &f, NULL, err), SX_OK);
    svc_buf_reset(out);
    CHECK_EQ_INT(svc_buf_append(out, f.state, (size_t)f.state_len), SVC_OK);
    svc_buf_free(&frame);
}

#endif
