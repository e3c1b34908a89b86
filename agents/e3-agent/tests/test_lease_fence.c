/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lease fence at the agent (docs/controller-scale-out.md, "Node leases and fencing"), through
 * the real command path (kernel UDP ports on 127.0.0.1): the node's highest lease epoch seen comes
 * from Register (cmd_raise_lease_epoch) and from each command;
 *   - lease epoch 0 is unchecked: applied whatever the epoch seen;
 *   - a command naming a lower lease epoch is NACKed stale_controller, the message naming both
 *     epochs, and not applied (no port opened, no instance removed); nor is its version handled, so
 *     the node's owner delivers that version again and it is applied;
 *   - an equal lease epoch is applied; a higher one is applied and raises the epoch seen, which
 *     then fences the epoch below it; a lower Register answer never lowers it.
 */
#include "xfer_check.h"

static e3rpc_command with_lease(e3rpc_command c, uint64_t lease_epoch) {
    c.lease_epoch = lease_epoch;
    return c;
}

/* Apply `c` and check a stale_controller NACK whose message names both lease epochs. */
static void expect_stale(cmd_state *s, e3rpc_command c, uint64_t seen) {
    char want_seen[48], want_cmd[64];
    cmd_outcome o = outcome(s, c);
    snprintf(want_seen, sizeof(want_seen), "epoch %llu;", (unsigned long long)seen);
    snprintf(want_cmd, sizeof(want_cmd), "lease epoch %llu", (unsigned long long)c.lease_epoch);
    if (o.ok || strcmp(o.code, "stale_controller") != 0 || !strstr(o.message, want_seen) ||
        !strstr(o.message, want_cmd))
        fprintf(stderr, "version %llu: ok=%d code=%s message=%s (want stale_controller naming %llu and %llu)\n",
                (unsigned long long)c.version, o.ok, o.code, o.message, (unsigned long long)seen,
                (unsigned long long)c.lease_epoch);
    CHECK_EQ_INT(o.version, c.version);
    CHECK(!o.ok);
    CHECK(strcmp(o.code, "stale_controller") == 0);
    CHECK(strstr(o.message, want_seen) && strstr(o.message, want_cmd));
}

int main(void) {
    cmd_rig rig = cmd_rig_new(300);
    cmd_state *s = rig.s;
    chan_udp_node *client = rig.client;
    uint64_t v = 1;
    CHECK_EQ_INT(cmd_lease_epoch(s), 0);

    /* no lease yet: every command is applied, 0 or not */
    uint16_t pa = free_port(), pb = free_port(), pc = free_port();
    expect(s, deploy(v++, "a", "kvs", pa, NULL, 0), NULL);
    call(client, pa, "PUT k 1", "OK");
    CHECK_EQ_INT(cmd_lease_epoch(s), 0);

    /* Register at a controller holding the node at lease epoch 2 */
    cmd_raise_lease_epoch(s, 2);
    CHECK_EQ_INT(cmd_lease_epoch(s), 2);

    /* a late command of the controller at epoch 1: refused, nothing deployed, the version left open */
    uint64_t stale_version = v;
    expect_stale(s, with_lease(deploy(v, "b", "kvs", pb, NULL, 0), 1), 2);
    CHECK_EQ_INT(cmd_instances(s), 1);
    CHECK_EQ_INT(cmd_instance_port(s, "b"), 0);
    CHECK(udp_port_free(pb));
    CHECK_EQ_INT(cmd_applied_version(s), stale_version - 1);
    CHECK_EQ_INT(cmd_lease_epoch(s), 2);
    /* the owner (at the epoch seen) delivers that version: applied, the epoch stays */
    expect(s, with_lease(deploy(v++, "b", "kvs", pb, NULL, 0), 2), NULL);
    call(client, pb, "PUT k 2", "OK");
    CHECK_EQ_INT(cmd_applied_version(s), stale_version);
    CHECK_EQ_INT(cmd_lease_epoch(s), 2);

    /* 0: unchecked, applied */
    expect(s, with_lease(deploy(v++, "c", "kvs", pc, NULL, 0), 0), NULL);
    call(client, pc, "PUT k 3", "OK");
    CHECK_EQ_INT(cmd_lease_epoch(s), 2);

    /* higher: applied, and it raises the epoch seen */
    expect(s, with_lease(remove_cmd(v++, "c"), 3), NULL);
    CHECK(udp_port_free(pc));
    CHECK_EQ_INT(cmd_lease_epoch(s), 3);

    /* now epoch 2 is stale: a remove is refused and the instance serves on */
    expect_stale(s, with_lease(remove_cmd(v, "b"), 2), 3);
    CHECK_EQ_INT(cmd_instances(s), 2);
    call(client, pb, "GET k", "VALUE 2");
    e3rpc_route routes[] = {{"a", "127.0.0.1", pa}};
    expect_stale(s, with_lease(routes_cmd(v, routes, 1), 1), 3);

    /* a Register answer below the epoch seen (or none) does not lower it */
    cmd_raise_lease_epoch(s, 1);
    cmd_raise_lease_epoch(s, 0);
    CHECK_EQ_INT(cmd_lease_epoch(s), 3);
    expect_stale(s, with_lease(remove_cmd(v, "a"), 2), 3);
    expect(s, with_lease(remove_cmd(v++, "a"), 0), NULL);
    CHECK(udp_port_free(pa));
    CHECK_EQ_INT(cmd_instances(s), 1);

    cmd_rig_free(&rig);
    return 0;
}
