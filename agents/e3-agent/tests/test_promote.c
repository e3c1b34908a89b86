/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Never two primaries after failover (docs/agents.md): PromoteInstance through the real command
 * path (three command states in one process, kernel UDP ports). A kvs primary p (epoch 1, node A)
 * replicates to b1 (node B) and b2 (node C); the controller, which took A for dead, promotes b1
 * at epoch 2, replacing p, with b2 as its backup. p is in fact alive (a partition):
 *   - the promotion is refused for an unknown instance, a primary, no epoch, a lower epoch;
 *   - b2 learns the new epoch from b1's announcement, before any client writes to b1;
 *   - p's next update is refused by b2 and by b1 ("STALE", counted refused) and applied by
 *     neither; p then refuses every request (stale_epoch) within a tick;
 *   - b1 serves and replicates to b2; a replayed promotion is ACKed, an older one refused.
 */
#include "xfer_check.h"

static e3rpc_command promote_cmd(uint64_t v, char *id, uint64_t epoch, char *replaces, char *backups) {
    return (e3rpc_command){.version = v, .kind = E3RPC_CMD_PROMOTE, .instance_id = id, .epoch = epoch,
                           .replaces = replaces, .backups = backups};
}

static e3rpc_command backup_deploy(uint64_t v, char *id, uint16_t port) {
    e3rpc_command c = deploy(v, id, "kvs", port, NULL, 0);
    c.role = "backup";
    c.epoch = 1;
    return c;
}

int main(void) {
    cmd_rig A = cmd_rig_new(300), B = cmd_rig_new(300), C = cmd_rig_new(300);
    chan_udp_node *client = A.client;
    uint64_t va = 1, vb = 1, vc = 1;
    uint16_t pp = free_port(), pb1 = free_port(), pb2 = free_port();
    e3rpc_route routes[] = {{"p", "127.0.0.1", pp}, {"b1", "127.0.0.1", pb1}, {"b2", "127.0.0.1", pb2}};
    expect(A.s, routes_cmd(va++, routes, 3), NULL);
    expect(B.s, routes_cmd(vb++, routes, 3), NULL);
    expect(C.s, routes_cmd(vc++, routes, 3), NULL);
    expect(B.s, backup_deploy(vb++, "b1", pb1), NULL);
    expect(C.s, backup_deploy(vc++, "b2", pb2), NULL);
    e3rpc_kv prim[] = {{"e3.backups", "b1,b2"}};
    e3rpc_command dp = deploy(va++, "p", "kvs", pp, prim, 1);
    dp.epoch = 1;
    expect(A.s, dp, NULL);
    call(client, pp, "PUT before 1", "OK");
    wait_counter(B.s, "b1", offsetof(rep_counters, applied), 1);
    wait_counter(C.s, "b2", offsetof(rep_counters, applied), 1);

    /* ---- refusals ---- */
    expect(B.s, promote_cmd(vb++, "ghost", 2, "p", "b2"), "unknown_instance");
    expect(A.s, promote_cmd(va++, "p", 2, "x", "b1"), "not_a_backup");
    expect(B.s, promote_cmd(vb++, "b1", 0, "p", "b2"), "bad_command");
    expect(B.s, promote_cmd(vb++, "b1", 2, "p", "b1"), "bad_config"); /* it cannot back itself up */

    /* ---- the failover's promotion: b2 learns epoch 2 before any client writes to b1 ---- */
    expect(B.s, promote_cmd(vb++, "b1", 2, "p", "b2"), NULL);
    wait_counter(C.s, "b2", offsetof(rep_counters, applied), 2); /* the announcement: nothing changed */
    call(client, pb2, "GET before", "VALUE 1");

    /* ---- the old primary, alive behind the partition, takes a write ---- */
    call(client, pp, "PUT split 1", "OK"); /* acknowledged by the stale copy: lost, as documented */
    wait_counter(C.s, "b2", offsetof(rep_counters, refused), 1);
    wait_counter(B.s, "b1", offsetof(rep_counters, refused), 1);
    CHECK(refuses_stale(client, pp, "PUT split 2"));
    call(client, pb2, "GET split", "NOT_FOUND");
    call(client, pb1, "GET split", "NOT_FOUND");

    /* ---- exactly one primary: b1 serves, b2 follows it ---- */
    call(client, pb1, "PUT after 2", "OK");
    wait_counter(C.s, "b2", offsetof(rep_counters, applied), 3);
    call(client, pb2, "GET after", "VALUE 2");
    call(client, pb1, "GET before", "VALUE 1");
    CHECK(refuses_stale(client, pp, "GET before"));

    /* ---- replays ---- */
    expect(B.s, promote_cmd(vb++, "b1", 2, "p", "b2"), NULL);          /* already the primary at 2 */
    expect(B.s, promote_cmd(vb++, "b1", 1, "p", "b2"), "stale_epoch"); /* an older promotion */
    expect(B.s, promote_cmd(vb++, "b1", 3, "p", "b2"), "not_a_backup");

    cmd_rig_free(&A);
    cmd_rig_free(&B);
    cmd_rig_free(&C);
    return 0;
}
