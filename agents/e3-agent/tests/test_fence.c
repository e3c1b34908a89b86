/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Never two primaries (docs/agents.md): a move whose importer's answer is lost, through the real
 * command path (two command states in one process, kernel UDP ports, a TCP transfer on 127.0.0.1).
 *   - the importer loads the state and serves, its OK dropped (the test-only hook): the exporter
 *     NACKs transfer_unconfirmed and stays fenced (its port closed) instead of serving again;
 *     ConfirmImport on the importer ACKs; commands naming an older epoch are refused stale_epoch;
 *     ResumeInstance of a stopped copy is refused;
 *   - a peer that takes the whole frame and closes without answering (it never serves): the
 *     exporter is fenced; ConfirmImport on the instance still awaiting state NACKs not_imported and
 *     closes its listener; ResumeInstance makes the exporter serve every key again;
 *   - the backups as a second line: a primary z with a backup moves (epoch 1 -> 2), its OK
 *     dropped, and the controller wrongly resumes the fenced source as well. Once the backup
 *     applied an update at epoch 2 it refuses the epoch-1 copy's ("STALE"), and that copy then
 *     refuses every request (stale_epoch) while the epoch-2 copy serves on.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/time.h>

#include "xfer_check.h"

static e3rpc_command with_epoch(e3rpc_command c, uint64_t epoch) {
    c.epoch = epoch;
    return c;
}

static e3rpc_command confirm_cmd(uint64_t v, char *id, uint64_t epoch) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_CONFIRM_IMPORT, .instance_id = id, .epoch = epoch};
}

static e3rpc_command resume_cmd(uint64_t v, char *id, uint64_t epoch) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_RESUME, .instance_id = id, .epoch = epoch};
}

/* A mute importer: accepts one connection on `fd`, greets the exporter as an importer does, reads
 * until the peer stops sending for a moment (the whole frame), then closes without an answer. */
static void *mute_importer(void *arg) {
    int lfd = *(int *)arg, fd = accept(lfd, NULL, NULL);
    char buf[65536];
    CHECK(send(fd, SX_GREETING "\n", sizeof(SX_GREETING), MSG_NOSIGNAL) == (ssize_t)sizeof(SX_GREETING));
    struct timeval tv = {0, 300000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    while (recv(fd, buf, sizeof(buf), 0) > 0) {}
    close(fd);
    return NULL;
}

/* Move `id` (deployed awaiting state on B at epoch + 1) from A (at `epoch`) with the importer's
 * OK dropped: A must NACK transfer_unconfirmed. */
static void move_ok_dropped(cmd_rig *A, uint64_t *va, cmd_rig *B, uint64_t *vb, char *id, uint64_t epoch) {
    char dest[32];
    uint16_t tp = free_tcp_port();
    expect(B->s, with_epoch(import_cmd((*vb)++, id, tp), epoch + 1), NULL);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", tp);
    setenv(SX_TEST_ANSWER_ENV, "drop", 1);
    cmd_outcome o = outcome(A->s, with_epoch(export_cmd((*va)++, id, dest), epoch));
    unsetenv(SX_TEST_ANSWER_ENV);
    CHECK(!o.ok && strcmp(o.code, "transfer_unconfirmed") == 0);
}

int main(void) {
    cmd_rig A = cmd_rig_new(300), B = cmd_rig_new(300);
    chan_udp_node *client = A.client;
    uint64_t va = 1, vb = 1;
    char dest[32];
    e3rpc_kv await[] = {{"e3.await_state", "1"}};
    cmd_outcome o;

    /* ---- the OK is dropped: B serves, A is fenced, not serving again ---- */
    uint16_t pa = free_port(), pb = free_port();
    expect(A.s, with_epoch(deploy(va++, "x", "kvs", pa, NULL, 0), 1), NULL);
    put_keys(client, pa, "k", 200);
    expect(B.s, with_epoch(deploy(vb++, "x", "kvs", pb, await, 1), 2), NULL);
    move_ok_dropped(&A, &va, &B, &vb, "x", 1);
    CHECK(udp_port_free(pa)); /* fenced: A does not serve */
    check_keys(client, pb, "k", 200); /* B does, with every key */
    expect(B.s, confirm_cmd(vb++, "x", 1), "stale_epoch");
    expect(B.s, with_epoch(export_cmd(vb++, "x", "127.0.0.1:1"), 1), "stale_epoch");
    expect(B.s, confirm_cmd(vb++, "x", 2), NULL);
    expect(B.s, confirm_cmd(vb++, "x", 0), NULL); /* 0: unchecked */
    expect(A.s, export_cmd(va++, "x", "127.0.0.1:1"), "not_serving"); /* fenced: nothing to export */
    expect(A.s, remove_cmd(va++, "x"), NULL); /* the controller's decision: B won */
    CHECK(udp_port_free(pa));

    /* ---- a peer takes the frame and says nothing: A fenced, B never served, A resumes ---- */
    uint16_t py = free_port(), pby = free_port();
    expect(A.s, with_epoch(deploy(va++, "y", "kvs", py, NULL, 0), 4), NULL);
    put_keys(client, py, "y", 100);
    expect(B.s, with_epoch(deploy(vb++, "y", "kvs", pby, await, 1), 5), NULL);
    expect(B.s, with_epoch(import_cmd(vb++, "y", free_tcp_port()), 5), NULL);
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    CHECK(bind(lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(lfd, 1) == 0);
    CHECK(getsockname(lfd, (struct sockaddr *)&a, &al) == 0);
    pthread_t mute;
    CHECK(pthread_create(&mute, NULL, mute_importer, &lfd) == 0);
    snprintf(dest, sizeof(dest), "127.0.0.1:%u", ntohs(a.sin_port));
    o = outcome(A.s, with_epoch(export_cmd(va++, "y", dest), 4));
    pthread_join(mute, NULL);
    close(lfd);
    CHECK(!o.ok && strcmp(o.code, "transfer_unconfirmed") == 0);
    CHECK(udp_port_free(py));
    expect(A.s, resume_cmd(va++, "y", 3), "stale_epoch");
    expect(B.s, confirm_cmd(vb++, "y", 5), "not_imported");
    CHECK(udp_port_free(pby)); /* and its listener is closed: it never will */
    expect(A.s, resume_cmd(va++, "y", 4), NULL);
    check_keys(client, py, "y", 100);
    call(client, py, "PUT after resume", "OK");
    expect(A.s, resume_cmd(va++, "y", 4), "not_fenced"); /* serving: nothing to resume */
    expect(A.s, resume_cmd(va++, "ghost", 4), "unknown_instance");

    /* ---- primary z (A, epoch 1) with backup bz (B) moves to B at epoch 2, its OK dropped; the
     * fenced source is (wrongly) resumed too ---- */
    uint16_t pbz = free_port(), pza = free_port(), pzb = free_port();
    e3rpc_route routes[] = {{"bz", "127.0.0.1", pbz}};
    expect(A.s, routes_cmd(va++, routes, 1), NULL);
    expect(B.s, routes_cmd(vb++, routes, 1), NULL);
    expect(B.s, deploy(vb++, "bz", "kvs", pbz, NULL, 0), NULL);
    e3rpc_kv prim[] = {{"e3.backups", "bz"}};
    e3rpc_kv prim_await[] = {{"e3.await_state", "1"}, {"e3.backups", "bz"}};
    expect(A.s, with_epoch(deploy(va++, "z", "kvs", pza, prim, 1), 1), NULL);
    call(client, pza, "PUT old 1", "OK");
    wait_counter(B.s, "bz", offsetof(rep_counters, applied), 1);
    expect(B.s, with_epoch(deploy(vb++, "z", "kvs", pzb, prim_await, 2), 2), NULL);
    move_ok_dropped(&A, &va, &B, &vb, "z", 1);
    call(client, pzb, "PUT new 2", "OK");
    wait_counter(B.s, "bz", offsetof(rep_counters, applied), 2);
    expect(A.s, resume_cmd(va++, "z", 1), NULL); /* the controller's mistake (say, a partition) */
    call(client, pza, "PUT split 1", "OK"); /* acknowledged by the stale copy, refused by the backup */
    wait_counter(B.s, "bz", offsetof(rep_counters, refused), 1);
    CHECK(refuses_stale(client, pza, "GET old")); /* the next tick (REP_TICK_MS) fences it */
    call(client, pzb, "PUT still 3", "OK"); /* the epoch-2 copy serves on, its backup follows */
    wait_counter(B.s, "bz", offsetof(rep_counters, applied), 3);
    call(client, pbz, "GET split", "NOT_FOUND");

    cmd_rig_free(&A);
    cmd_rig_free(&B);
    return 0;
}
