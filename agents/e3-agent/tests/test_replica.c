/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replica: primary -> backup replication through the real command path, two instances on two
 * UDP ports in one process. A kvs primary deployed with e3.backups=backup: PUTs to it are
 * answered at once and reach the backup, which then answers GETs with the same values. Repair:
 * updates that could not leave (no route), updates lost on the way (sent into a port nobody
 * reads), and a lost last update (nothing follows it) all reach the backup once it is reachable
 * again, with no gap; beyond the primary's window the oldest unconfirmed updates are dropped
 * and jumped over (counted on both sides), and one too large for a datagram is sent as a hole
 * (counted too). Crafted replicate frames: one ahead of the next is held ("HELD") and applied in
 * its turn, one marked REP_JUMP is applied and counts the gap, one too far ahead is refused
 * ("GAP"), a resend is confirmed again without being applied twice, malformed ones are refused.
 * Bad e3.backups lists are NACKed; on a stateless service the key is ignored.
 */
#include <time.h>

#include "chan_check.h"
#include "cmd_check.h"

/* A request to 127.0.0.1:port that must succeed (`want` NULL: any text). */
static void call(chan_udp_node *client, uint16_t port, const char *req, const char *want) {
    udp_send_check(client, port, 0, (const uint8_t *)req, strlen(req), CHAN_OK, want);
}

static void set_routes(cmd_state *s, uint64_t version, e3rpc_route *routes, size_t n) {
    expect(s, (e3rpc_command){.version = version, .kind = E3RPC_CMD_SET_ROUTES, .routes = routes, .n_routes = n},
           NULL);
}

/* Poll the counters of `id` until `field` equals `want` (5 s at most). */
#define WAIT_COUNTER(s, id, field, want)                                                      \
    do {                                                                                      \
        rep_counters rc_;                                                                     \
        struct timespec ts_ = {0, 1000000};                                                   \
        for (int i_ = 0; i_ < 5000; i_++) {                                                   \
            CHECK(cmd_replication((s), (id), &rc_));                                          \
            if (rc_.field == (want)) break;                                                   \
            nanosleep(&ts_, NULL);                                                            \
        }                                                                                     \
        if (rc_.field != (want))                                                              \
            fprintf(stderr, "%s.%s = %llu, want %llu\n", (id), #field,                        \
                    (unsigned long long)rc_.field, (unsigned long long)(want));               \
        CHECK_EQ_INT(rc_.field, (want));                                                      \
    } while (0)

int main(void) {
    cmd_rig rig = cmd_rig_new(300);
    cmd_state *s = rig.s;
    chan_udp_node *client = rig.client;
    uint64_t v = 1;

    /* e3.backups on a stateless service is ignored; bad lists: itself, none listed */
    e3rpc_kv to_b[] = {{"e3.backups", "backup"}};
    e3rpc_kv to_self[] = {{"e3.backups", "primary"}};
    e3rpc_kv to_none[] = {{"e3.backups", " , "}};
    expect(s, deploy(v++, "p0", "bm25", free_port(), to_b, 1), NULL);
    rep_counters none;
    CHECK(cmd_replication(s, "p0", &none) && none.sent == 0);
    expect(s, (e3rpc_command){.version = v++, .kind = E3RPC_CMD_REMOVE, .instance_id = "p0"}, NULL);
    expect(s, deploy(v++, "primary", "kvs", free_port(), to_self, 1), "bad_config");
    expect(s, deploy(v++, "primary", "kvs", free_port(), to_none, 1), "bad_config");

    uint16_t pb = free_port(), pp = free_port();
    expect(s, deploy(v++, "backup", "kvs", pb, NULL, 0), NULL);
    expect(s, deploy(v++, "primary", "kvs", pp, to_b, 1), NULL);
    e3rpc_route routes[] = {{"backup", "127.0.0.1", pb}, {"primary", "127.0.0.1", pp}};
    set_routes(s, v++, routes, 2);

    /* PUTs to the primary reach the backup */
    char req[64], want[64];
    for (int i = 0; i < 20; i++) {
        snprintf(req, sizeof(req), "PUT k%d v%d", i, i * i);
        call(client, pp, req, "OK");
    }
    call(client, pp, "GET k3", "VALUE v9"); /* a read changes nothing: no update */
    WAIT_COUNTER(s, "backup", applied, 20);
    WAIT_COUNTER(s, "primary", replicated, 20);
    for (int i = 0; i < 20; i++) {
        snprintf(req, sizeof(req), "GET k%d", i);
        snprintf(want, sizeof(want), "VALUE v%d", i * i);
        call(client, pb, req, want);
    }
    rep_counters c;
    CHECK(cmd_replication(s, "primary", &c));
    CHECK(c.sent == 20 && c.failed == 0);
    CHECK(cmd_replication(s, "backup", &c));
    CHECK(c.gaps == 0 && c.refused == 0);

    /* updates that cannot leave (no route to the backup): the client is answered anyway; once
     * the route is back the next update shows the hole and the primary resends: no gap */
    set_routes(s, v++, routes + 1, 1);
    call(client, pp, "PUT lost 1", "OK");
    WAIT_COUNTER(s, "primary", failed, 1);
    set_routes(s, v++, routes, 2);
    call(client, pp, "PUT after 2", "OK");
    WAIT_COUNTER(s, "backup", applied, 22);
    call(client, pb, "GET lost", "VALUE 1");
    call(client, pb, "GET after", "VALUE 2");

    /* updates lost on the way (a port nobody reads: no answer, the egress times out), the last
     * of them followed by nothing: the ticker resends them once the backup is reachable */
    uint16_t hole = free_port();
    e3rpc_route lossy[] = {{"backup", "127.0.0.1", hole}, {"primary", "127.0.0.1", pp}};
    set_routes(s, v++, lossy, 2);
    for (int i = 0; i < 10; i++) {
        snprintf(req, sizeof(req), "PUT gone%d %d", i, i);
        call(client, pp, req, "OK");
    }
    set_routes(s, v++, routes, 2);
    WAIT_COUNTER(s, "backup", applied, 32);
    for (int i = 0; i < 10; i++) {
        snprintf(req, sizeof(req), "GET gone%d", i);
        snprintf(want, sizeof(want), "VALUE %d", i);
        call(client, pb, req, want);
    }
    CHECK(cmd_replication(s, "primary", &c));
    CHECK(c.resent >= 11 && c.dropped == 0);
    WAIT_COUNTER(s, "primary", outstanding, 0);
    CHECK(cmd_replication(s, "backup", &c));
    CHECK_EQ_INT(c.gaps, 0);
    CHECK(c.out_of_order >= 1); /* "PUT after" overtook "PUT lost" */

    /* beyond the window: the oldest unconfirmed updates are dropped and jumped over */
    set_routes(s, v++, lossy, 2);
    for (int i = 0; i < REP_WINDOW + 5; i++) {
        snprintf(req, sizeof(req), "PUT w%d %d", i, i);
        call(client, pp, req, "OK");
    }
    set_routes(s, v++, routes, 2);
    WAIT_COUNTER(s, "backup", applied, 32 + REP_WINDOW);
    WAIT_COUNTER(s, "primary", outstanding, 0);
    CHECK(cmd_replication(s, "primary", &c));
    CHECK_EQ_INT(c.dropped, 5);
    CHECK(cmd_replication(s, "backup", &c));
    CHECK_EQ_INT(c.gaps, 5);
    call(client, pb, "GET w4", "NOT_FOUND"); /* dropped: the backup diverged, and says so */
    call(client, pb, "GET w5", "VALUE 5");
    snprintf(req, sizeof(req), "GET w%d", REP_WINDOW + 4);
    snprintf(want, sizeof(want), "VALUE %d", REP_WINDOW + 4);
    call(client, pb, req, want);

    /* an update too large for one datagram is sent as a hole: the backup counts it as a gap
     * and stays in step */
    size_t key = 460, big = 4 + key + 1 + 65000; /* a long key and the largest value: one request */
    char *bigreq = malloc(big);
    CHECK(bigreq != NULL && big <= CHAN_MAX_PAYLOAD);
    memset(bigreq, 'x', big);
    memcpy(bigreq, "PUT big", 7);
    bigreq[4 + key] = ' ';
    udp_send_check(client, pp, 0, (const uint8_t *)bigreq, big, CHAN_OK, "OK");
    call(client, pp, "PUT small 1", "OK");
    WAIT_COUNTER(s, "backup", applied, 33 + REP_WINDOW);
    WAIT_COUNTER(s, "primary", outstanding, 0);
    CHECK(cmd_replication(s, "primary", &c));
    CHECK_EQ_INT(c.dropped, 6);
    CHECK(cmd_replication(s, "backup", &c));
    CHECK_EQ_INT(c.gaps, 6);
    memcpy(bigreq, "GET", 3);
    udp_send_check(client, pb, 0, (const uint8_t *)bigreq, 4 + key, CHAN_OK, "NOT_FOUND");
    free(bigreq);
    call(client, pb, "GET small", "VALUE 1");

    /* crafted frames from another primary: ahead of the next one is held until its turn; a jump
     * is applied and counts the gap; too far ahead is refused; a resend is confirmed again, not
     * applied twice; malformed ones are refused */
    const svc_type *kvs = svc_find("kvs");
    svc_env env = {.replicate = 1};
    svc_instance *src = NULL;
    char serr[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(kvs->create("", &env, &src, serr), SVC_OK);
    svc_buf resp = {0}, frame = {0}, records[4] = {{0}};
    for (int i = 1; i <= 3; i++) { /* update i sets "crafted" to "v<i>" */
        snprintf(req, sizeof(req), "PUT crafted v%d", i);
        CHECK_EQ_INT(kvs->handle(src, (const uint8_t *)req, strlen(req), &resp, serr), SVC_OK);
        CHECK_EQ_INT(kvs->drain_log(src, &records[i], serr), SVC_OK);
    }
    rep_counters before;
    CHECK(cmd_replication(s, "backup", &before));
#define CRAFTED(seq, i, status, want)                                                             \
    do {                                                                                          \
        CHECK_EQ_INT(rep_encode(&frame, (seq), 0, "other", records[i].data, records[i].len), 0);     \
        udp_send_check(client, pb, 1, frame.data, frame.len, (status), (want));                   \
    } while (0)
    CRAFTED(3, 3, CHAN_OK, "HELD 0");
    CRAFTED(3, 3, CHAN_OK, "HELD 0"); /* a resend of a held one */
    call(client, pb, "GET crafted", "NOT_FOUND");
    CRAFTED(1, 1, CHAN_OK, "OK 1");
    call(client, pb, "GET crafted", "VALUE v1");
    CRAFTED(2, 2, CHAN_OK, "OK 3"); /* and the held 3 after it */
    call(client, pb, "GET crafted", "VALUE v3");
    CRAFTED(3, 1, CHAN_OK, "OK 3"); /* a late resend: confirmed, not applied again */
    call(client, pb, "GET crafted", "VALUE v3");
    CRAFTED(10 | REP_JUMP, 2, CHAN_OK, "OK 10");
    call(client, pb, "GET crafted", "VALUE v2");
    snprintf(want, sizeof(want), "GAP 10: update %d from other is too far ahead", 11 + REP_HOLD_MAX);
    CRAFTED(11 + REP_HOLD_MAX, 1, CHAN_ERR, want);
    CHECK_EQ_INT(rep_encode(&frame, 11, 0, "other", records[1].data, records[1].len - 1), 0); /* truncated */
    udp_send_check(client, pb, 1, frame.data, frame.len, CHAN_ERR, NULL);
    udp_send_check(client, pb, 1, (const uint8_t *)"short", 5, CHAN_ERR, "replica: malformed update header");
    CHECK(cmd_replication(s, "backup", &c));
    CHECK_EQ_INT(c.gaps - before.gaps, 6); /* 4..9 of "other" never came */
    CHECK_EQ_INT(c.out_of_order - before.out_of_order, 3);
    CHECK_EQ_INT(c.duplicates - before.duplicates, 1);
    CHECK_EQ_INT(c.refused - before.refused, 2);
    CHECK_EQ_INT(c.applied - before.applied, 4);
#undef CRAFTED

    /* the real primary's stream is unaffected */
    call(client, pp, "PUT k0 again", "OK");
    WAIT_COUNTER(s, "backup", applied, 38 + REP_WINDOW);
    call(client, pb, "GET k0", "VALUE again");

    /* remove both: the primary's updates in flight are answered or failed first */
    expect(s, (e3rpc_command){.version = v++, .kind = E3RPC_CMD_REMOVE, .instance_id = "primary"}, NULL);
    expect(s, (e3rpc_command){.version = v++, .kind = E3RPC_CMD_REMOVE, .instance_id = "backup"}, NULL);
    CHECK(!cmd_replication(s, "primary", &c));

    kvs->destroy(src);
    svc_buf_free(&resp);
    for (int i = 0; i < 4; i++) svc_buf_free(&records[i]);
    svc_buf_free(&frame);
    cmd_rig_free(&rig);
    return 0;
}
