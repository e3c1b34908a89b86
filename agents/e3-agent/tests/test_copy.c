/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ExportState in copy mode (keep_serving: seed a new backup from a serving instance) through the
 * real command path: two agents' command states in one process (two engines, two pipelines,
 * kernel UDP ports and a TCP transfer on 127.0.0.1).
 *   - a backup-role kvs with no backups serves requests, applies its primary's updates and
 *     sends nothing anywhere; its state equals its primary's;
 *   - promotion: primary p with backup b; p is removed; b answers with p's values; b is copied
 *     to a new backup n2 with backups=n2; b still serves; its next M updates reach n2 from seq 1
 *     (applied M, no gap) and the two states hold the same entries;
 *   - a primary keeping its backup b1 gets a second one, b2 (backups=b1,b2): b1's numbering
 *     continues (no gap), b2 starts at 1, and the three states hold the same entries;
 *   - bad backups lists are NACKed bad_config without pausing anything; a copy nobody takes
 *     (nothing listens) is NACKed transfer_failed, the source serves again on the same port and
 *     its backups are unchanged (the old one still follows it, no gap; the would-be new one gets
 *     nothing).
 * E3_COPY_KEYS=<n> changes the promoted backup's key count (default 2000); the whole ExportState
 * is timed and printed with the frame size (a benchmark line, not a pass/fail).
 */
#include <stdlib.h>

#include "e3svc/rc.h"
#include "xfer_check.h"

/* A DEPLOY of a backup-role `type` instance `id` on `port` (a backup takes another instance's
 * state), `n_cfg` config pairs. */
static e3rpc_command backup_deploy(uint64_t v, char *id, char *type, uint32_t port, e3rpc_kv *cfg, size_t n_cfg) {
    e3rpc_command c = deploy(v, id, type, port, cfg, n_cfg);
    c.role = "backup";
    return c;
}

/* What entry_differs compares against. */
typedef struct cmp_ctx {
    rc_hash *other; /* the table every entry must be in */
    int bad;        /* set at the first entry missing there or different */
} cmp_ctx;

/* rc_hash_each callback: flag (in ctx) and stop at the first entry the other table lacks or
 * holds with another value. */
static int entry_differs(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    cmp_ctx *c = ctx;
    size_t ol;
    const void *ov = rc_hash_get(c->other, k, kl, &ol);
    c->bad = !ov || ol != vl || memcmp(ov, v, vl) != 0;
    return c->bad;
}

/* Kvs instances `a` on `ra` and `b` on `rb` export the same state: the same number of bytes,
 * holding the same entries. (A snapshot lists a hash table's entries in its bucket order, which
 * depends on the history of insertions, so a copy and its source may list them in another
 * order.) */
static void same_state(cmd_rig *ra, const char *a, cmd_rig *rb, const char *b) {
    svc_buf sa = {0}, sb = {0};
    char err[SVC_ERRBUF_LEN];
    instance_state(ra, a, &sa);
    instance_state(rb, b, &sb);
    if (sa.len != sb.len) fprintf(stderr, "state of %s: %zu bytes, of %s: %zu\n", a, sa.len, b, sb.len);
    CHECK_EQ_INT(sa.len, sb.len);
    rc_hash *ha = rc_hash_new(NULL), *hb = rc_hash_new(NULL);
    CHECK(ha && hb);
    CHECK_EQ_INT(rc_hash_restore(ha, sa.data, sa.len, err), SVC_OK);
    CHECK_EQ_INT(rc_hash_restore(hb, sb.data, sb.len, err), SVC_OK);
    CHECK_EQ_INT(rc_hash_count(ha), rc_hash_count(hb));
    cmp_ctx c = {hb, 0};
    rc_hash_each(ha, entry_differs, &c); /* same count, and each of a's in b: the same entries */
    CHECK(!c.bad);
    rc_hash_free(ha);
    rc_hash_free(hb);
    svc_buf_free(&sa);
    svc_buf_free(&sb);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#define SENT offsetof(rep_counters, sent)
#define REPLICATED offsetof(rep_counters, replicated)
#define APPLIED offsetof(rep_counters, applied)

int main(void) {
    const char *env = getenv("E3_COPY_KEYS");
    int n = env ? atoi(env) : 2000, m = 100;
    cmd_rig A = cmd_rig_new(300), B = cmd_rig_new(300);
    chan_udp_node *client = A.client;
    uint64_t va = 1, vb = 1;
    char dest[32];
    rep_counters rc;
    chan_counters eg0, eg1;
    e3rpc_kv await[] = {{"e3.await_state", "1"}};

    uint16_t pp = free_port(), pb = free_port(), pn2 = free_port(), pq = free_port(), pb1 = free_port(),
             pb2 = free_port(), pr = free_port(), pr1 = free_port(), ps = free_port(), ps1 = free_port();
    e3rpc_route routes[] = {{"b", "127.0.0.1", pb},   {"n2", "127.0.0.1", pn2}, {"b1", "127.0.0.1", pb1},
                            {"b2", "127.0.0.1", pb2}, {"r1", "127.0.0.1", pr1}, {"zz", "127.0.0.1", free_port()},
                            {"s1", "127.0.0.1", ps1}};
    expect(A.s, routes_cmd(va++, routes, 7), NULL);
    expect(B.s, routes_cmd(vb++, routes, 7), NULL);

    /* ---- a backup-role instance without backups: serves, records, sends nothing ---- */
    e3rpc_kv to_s1[] = {{"e3.backups", "s1"}};
    expect(A.s, deploy(va++, "s", "kvs", ps, to_s1, 1), NULL);
    expect(B.s, backup_deploy(vb++, "s1", "kvs", ps1, NULL, 0), NULL);
    pl_counters(B.pl, &eg0);
    put_keys(client, ps, "s", 100);
    wait_counter(B.s, "s1", APPLIED, 100);
    check_keys(client, ps1, "s", 100);   /* a backup answers requests from what it applied */
    call(client, ps1, "PUT own 1", "OK"); /* and takes updates of its own: recorded, dropped */
    call(client, ps1, "GET own", "VALUE 1");
    call(client, ps1, "DEL own", NULL);
    pl_counters(B.pl, &eg1);
    CHECK_EQ_INT(eg1.tx_packets, eg0.tx_packets); /* B's egress sent nothing */
    CHECK(cmd_replication(B.s, "s1", &rc));
    CHECK(rc.sent == 0 && rc.failed == 0 && rc.gaps == 0 && rc.refused == 0);
    same_state(&A, "s", &B, "s1");

    /* ---- promotion: p dies, its backup b serves p's values and gets a new backup n2 ---- */
    e3rpc_kv to_b[] = {{"e3.backups", "b"}};
    expect(A.s, deploy(va++, "p", "kvs", pp, to_b, 1), NULL);
    expect(B.s, backup_deploy(vb++, "b", "kvs", pb, NULL, 0), NULL);
    put_keys(client, pp, "k", n);
    wait_counter(B.s, "b", APPLIED, (uint64_t)n);
    expect(A.s, remove_cmd(va++, "p"), NULL);
    check_keys(client, pb, "k", n);
    expect(A.s, backup_deploy(va++, "n2", "kvs", pn2, await, 1), NULL);
    uint16_t tp = free_tcp_port();
    expect(A.s, import_cmd(va++, "n2", tp), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    svc_buf st = {0};
    instance_state(&B, "b", &st); /* what the copy will carry */
    double t0 = now_ms();
    expect(B.s, copy_cmd(vb++, "b", dest, "n2"), NULL);
    double copy_ms = now_ms() - t0;
    check_keys(client, pb, "k", n); /* still serving, same port */
    put_keys(client, pb, "m", m);
    wait_counter(A.s, "n2", APPLIED, (uint64_t)m);
    wait_counter(B.s, "b", REPLICATED, (uint64_t)m);
    CHECK(cmd_replication(A.s, "n2", &rc));
    CHECK(rc.gaps == 0 && rc.refused == 0);
    check_keys(client, pn2, "k", n);
    same_state(&B, "b", &A, "n2");
    printf("copy of a %d-key kvs: %zu bytes of state, the whole ExportState in %.1f ms\n", n, st.len, copy_ms);
    svc_buf_free(&st);

    /* ---- a primary keeping b1 gets b2 as well: b1's numbers continue ---- */
    e3rpc_kv to_b1[] = {{"e3.backups", "b1"}};
    expect(A.s, deploy(va++, "q", "kvs", pq, to_b1, 1), NULL);
    expect(B.s, backup_deploy(vb++, "b1", "kvs", pb1, NULL, 0), NULL);
    put_keys(client, pq, "q", 200);
    wait_counter(B.s, "b1", APPLIED, 200);
    expect(B.s, backup_deploy(vb++, "b2", "kvs", pb2, await, 1), NULL);
    tp = free_tcp_port();
    expect(B.s, import_cmd(vb++, "b2", tp), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    expect(A.s, copy_cmd(va++, "q", dest, "b1,b2"), NULL);
    put_keys(client, pq, "r", 50);
    call(client, pq, "PUT q0 changed", "OK");
    wait_counter(B.s, "b1", APPLIED, 251);
    wait_counter(B.s, "b2", APPLIED, 51);
    wait_counter(A.s, "q", REPLICATED, 200 + 2 * 51); /* counters kept across the switch */
    CHECK(cmd_replication(B.s, "b1", &rc));
    CHECK(rc.gaps == 0 && rc.refused == 0); /* numbering continued: no gap, nothing stale */
    CHECK(cmd_replication(B.s, "b2", &rc));
    CHECK(rc.gaps == 0 && rc.refused == 0);
    call(client, pb2, "GET q0", "VALUE changed");
    same_state(&A, "q", &B, "b1");
    same_state(&A, "q", &B, "b2");

    /* ---- bad lists: NACKed, nothing paused; a failed copy leaves the backups as they were ---- */
    e3rpc_kv to_r1[] = {{"e3.backups", "r1"}};
    expect(A.s, deploy(va++, "r", "kvs", pr, to_r1, 1), NULL);
    expect(B.s, backup_deploy(vb++, "r1", "kvs", pr1, NULL, 0), NULL);
    put_keys(client, pr, "r", 100);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", free_tcp_port()); /* nothing listens */
    expect(A.s, copy_cmd(va++, "r", dest, "r"), "bad_config");      /* itself */
    expect(A.s, copy_cmd(va++, "r", dest, " , "), "bad_config");    /* nothing listed */
    expect(A.s, copy_cmd(va++, "r", "127.0.0.1", "r1"), "bad_command");
    expect(A.s, copy_cmd(va++, "ghost", dest, "r1"), "unknown_instance");
    cmd_outcome o = outcome(A.s, copy_cmd(va++, "r", dest, "r1,zz"));
    if (o.ok || strcmp(o.code, "transfer_failed") != 0) fprintf(stderr, "%s: %s\n", o.code, o.message);
    CHECK(!o.ok && strcmp(o.code, "transfer_failed") == 0 && strstr(o.message, "serving here still"));
    CHECK(strstr(o.message, "Connection refused"));
    check_keys(client, pr, "r", 100); /* never stopped: it connects before it pauses */
    put_keys(client, pr, "t", 30);
    wait_counter(B.s, "r1", APPLIED, 130);
    wait_counter(A.s, "r", SENT, 130); /* to r1 only: zz never became a backup */
    CHECK(cmd_replication(A.s, "r", &rc));
    CHECK_EQ_INT(rc.failed, 0);
    CHECK(cmd_replication(B.s, "r1", &rc));
    CHECK(rc.gaps == 0 && rc.refused == 0);
    same_state(&A, "r", &B, "r1");
    /* copying to no backups at all is valid: r then replicates nowhere */
    expect(B.s, backup_deploy(vb++, "r2", "kvs", free_port(), await, 1), NULL);
    tp = free_tcp_port();
    expect(B.s, import_cmd(vb++, "r2", tp), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    expect(A.s, copy_cmd(va++, "r", dest, ""), NULL);
    same_state(&A, "r", &B, "r2");
    call(client, pr, "PUT after none", "OK");
    sleep_ms(50);
    CHECK(cmd_replication(A.s, "r", &rc));
    CHECK_EQ_INT(rc.sent, 130);

    cmd_rig_free(&A);
    cmd_rig_free(&B);
    return 0;
}
