/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cold migration through the real command path: two agents' command states in one process (two
 * engines, two pipelines, kernel UDP ports and a TCP transfer on 127.0.0.1).
 *   - a kvs X with N keys put over UDP moves from A to B: B deployed with e3.await_state=1 does
 *     not bind its port; ImportState listens; ExportState ACKs; B answers every key, A's port is
 *     closed; a second ExportState is NACKed not_serving, a replay gets its first outcome;
 *     RemoveInstance of the stopped X works.
 *   - export to a port nobody listens on, or to a listener that is no importer (it never greets):
 *     transfer_failed, A never stopped serving;
 *   - the importer refuses (wrong service type): the reason reaches the NACK, A serves again, B
 *     stays awaiting state; a timed-out import is retried by a new ImportState;
 *   - RemoveInstance of an instance awaiting state, with its listener open;
 *   - a primary with a backup moves, and the backup applies its next updates (no stale refusal).
 * E3_MIGRATE_KEYS=<n> changes N (default 10000) for a timing run; the log lines give bytes and ms.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xfer_check.h"

int main(void) {
    const char *env = getenv("E3_MIGRATE_KEYS");
    int n = env ? atoi(env) : 10000;
    cmd_rig A = cmd_rig_new(300), B = cmd_rig_new(300);
    chan_udp_node *client = A.client;
    uint64_t va = 1, vb = 1;
    char dest[32];
    e3rpc_kv await[] = {{"e3.await_state", "1"}};

    /* ---- X moves from A to B ---- */
    uint16_t pa = free_port(), pb = free_port(), tp = free_tcp_port();
    expect(A.s, deploy(va++, "x", "kvs", pa, NULL, 0), NULL);
    put_keys(client, pa, "k", n);
    expect(B.s, deploy(vb++, "x", "kvs", pb, await, 1), NULL);
    CHECK(udp_port_free(pb)); /* awaiting state: not serving */
    CHECK_EQ_INT(eng_stats_all(B.e, NULL, 0), 1);  /* but in the engine */
    expect(B.s, import_cmd(vb++, "x", 0), "bad_command");
    expect(B.s, import_cmd(vb++, "ghost", tp), "unknown_instance");
    expect(A.s, import_cmd(va++, "x", tp), "not_awaiting_state");
    expect(A.s, export_cmd(va++, "x", "127.0.0.1"), "bad_command");
    expect(B.s, export_cmd(vb++, "x", "127.0.0.1:1"), "not_serving");
    expect(B.s, import_cmd(vb++, "x", tp), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    uint64_t v_export = va++;
    expect(A.s, export_cmd(v_export, "x", dest), NULL);
    check_keys(client, pb, "k", n);
    call(client, pb, "PUT after move", "OK");
    CHECK(udp_port_free(pa)); /* A no longer serves x */
    CHECK_EQ_INT(cmd_instances(A.s), 1); /* stopped, until removed */
    CHECK_EQ_INT(expect(A.s, export_cmd(v_export, "x", dest), NULL), 0); /* a replay: same outcome */
    cmd_outcome o = outcome(A.s, export_cmd(va++, "x", dest));
    CHECK(!o.ok && strcmp(o.code, "not_serving") == 0);
    expect(B.s, import_cmd(vb++, "x", tp), "not_awaiting_state"); /* serving now */
    expect(A.s, remove_cmd(va++, "x"), NULL);
    CHECK_EQ_INT(eng_stats_all(A.e, NULL, 0), 0);

    /* ---- nobody listens: A never stops serving (it connects before it stops), and gives up after
     * its wait for an importer ---- */
    uint16_t py = free_port();
    expect(A.s, deploy(va++, "y", "kvs", py, NULL, 0), NULL);
    put_keys(client, py, "y", 100);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", free_tcp_port());
    o = outcome(A.s, export_cmd(va++, "y", dest));
    CHECK(!o.ok && strcmp(o.code, "transfer_failed") == 0 && strstr(o.message, "serving here still"));
    CHECK(strstr(o.message, "Connection refused") && strstr(o.message, "no importer listening within"));
    check_keys(client, py, "y", 100);
    /* ---- something else listens there (it never greets): no state is sent to it, A serves on ---- */
    int stray = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t atl = sizeof(at);
    CHECK(bind(stray, (struct sockaddr *)&at, sizeof(at)) == 0 && listen(stray, 1) == 0);
    CHECK(getsockname(stray, (struct sockaddr *)&at, &atl) == 0);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", ntohs(at.sin_port));
    o = outcome(A.s, export_cmd(va++, "y", dest));
    close(stray);
    CHECK(!o.ok && strcmp(o.code, "transfer_failed") == 0 && strstr(o.message, "serving here still"));
    CHECK(strstr(o.message, "is no importer ready for this state"));
    check_keys(client, py, "y", 100);

    /* ---- the importer refuses (y is a kvs, B's y an ema): A serves again, B still awaits; an
     * import that timed out is retried ---- */
    uint16_t pby = free_port();
    expect(B.s, deploy(vb++, "y", "ema", pby, await, 1), NULL);
    tp = free_tcp_port();
    expect(B.s, import_cmd(vb++, "y", tp), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    o = outcome(A.s, export_cmd(va++, "y", dest));
    CHECK(!o.ok && strcmp(o.code, "transfer_failed") == 0);
    CHECK(strstr(o.message, "importer: state_xfer: the state is of a kvs, instance y is a ema"));
    check_keys(client, py, "y", 10);
    CHECK(udp_port_free(pby));
    cmd_set_accept_timeout(B.s, 100);
    expect(B.s, import_cmd(vb++, "y", tp), NULL);
    sleep_ms(300); /* gave up */
    o = outcome(A.s, export_cmd(va++, "y", dest));
    CHECK(!o.ok && strcmp(o.code, "transfer_failed") == 0);
    check_keys(client, py, "y", 10);
    /* RemoveInstance while awaiting state, listener open: everything goes */
    cmd_set_accept_timeout(B.s, 30000);
    expect(B.s, import_cmd(vb++, "y", tp), NULL);
    expect(B.s, remove_cmd(vb++, "y"), NULL);
    CHECK_EQ_INT(eng_stats_all(B.e, NULL, 0), 1); /* x only */
    o = outcome(A.s, export_cmd(va++, "y", dest));
    CHECK(!o.ok && strstr(o.message, "Connection refused")); /* the listener is closed */
    /* a retry on B, after a deploy again: y moves after all */
    expect(B.s, deploy(vb++, "y", "kvs", pby, await, 1), NULL);
    expect(B.s, import_cmd(vb++, "y", tp), NULL);
    expect(A.s, export_cmd(va++, "y", dest), NULL);
    check_keys(client, pby, "y", 100);

    /* ---- a primary with a backup (on B) moves from A to B; the backup keeps applying ---- */
    uint16_t pbk = free_port(), ppa = free_port(), ppb = free_port();
    e3rpc_route routes[] = {{"bk", "127.0.0.1", pbk}};
    expect(A.s, routes_cmd(va++, routes, 1), NULL);
    expect(B.s, routes_cmd(vb++, routes, 1), NULL);
    expect(B.s, deploy(vb++, "bk", "kvs", pbk, NULL, 0), NULL);
    e3rpc_kv prim[] = {{"e3.backups", "bk"}};
    e3rpc_kv prim_await[] = {{"e3.await_state", "1"}, {"e3.backups", "bk"}};
    expect(A.s, deploy(va++, "p", "kvs", ppa, prim, 1), NULL);
    put_keys(client, ppa, "p", 50);
    wait_counter(B.s, "bk", offsetof(rep_counters, applied), 50);
    expect(B.s, deploy(vb++, "p", "kvs", ppb, prim_await, 2), NULL);
    tp = free_tcp_port();
    expect(B.s, import_cmd(vb++, "p", tp), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    expect(A.s, export_cmd(va++, "p", dest), NULL);
    check_keys(client, ppb, "p", 50);
    call(client, ppb, "PUT moved yes", "OK");
    call(client, ppb, "PUT p0 v0", "OK");
    wait_counter(B.s, "bk", offsetof(rep_counters, applied), 52);
    rep_counters rc;
    CHECK(cmd_replication(B.s, "bk", &rc));
    CHECK_EQ_INT(rc.refused, 0);
    CHECK_EQ_INT(rc.gaps, 0); /* the import itself was not sent as an update */
    call(client, pbk, "GET moved", "VALUE yes");
    wait_counter(B.s, "p", offsetof(rep_counters, replicated), 2);

    cmd_rig_free(&A); /* removes the stopped p and y */
    cmd_rig_free(&B); /* removes x, y, p, bk */
    return 0;
}
