/* SPDX-License-Identifier: Apache-2.0 */
/* commands: the controller's commands applied to a real engine, with real UDP ports: NACK codes,
 * idempotence by version, deploy -> serve -> forward downstream through the route table -> remove. */
#include "chan_check.h"
#include "cmd_check.h"

/* Send `req` to 127.0.0.1:port (instance id 0) from `client` and check the reply. */
static void call(chan_udp_node *client, uint16_t port, const char *req, int want_status, const char *want) {
    udp_send_check(client, port, 0, (const uint8_t *)req, strlen(req), want_status, want);
}

int main(void) {
    cmd_rig rig = cmd_rig_new(500);
    eng *e = rig.e;
    cmd_state *s = rig.s;
    chan_udp_node *client = rig.client;
    CHECK_EQ_INT(cmd_applied_version(s), 0);
    uint16_t pa = free_port(), pb = free_port();

    /* refusals: each version is handled (and remembered) even though nothing changed */
    CHECK_EQ_INT(expect(s, deploy(1, "a", "no_such_service", pa, NULL, 0), "unknown_service"), 1);
    e3rpc_kv bad_alpha[] = {{"alpha", "5"}};
    expect(s, deploy(2, "b", "ema", pb, bad_alpha, 1), "bad_config");
    expect(s, deploy(3, "a", "kvs", 0, NULL, 0), "bad_config");
    e3rpc_kv semi[] = {{"k", "v;w"}};
    expect(s, deploy(4, "a", "kvs", pa, semi, 1), "bad_config");
    expect(s, deploy(5, "", "kvs", pa, NULL, 0), "bad_command");
    expect(s, (e3rpc_command){.version = 6, .kind = E3RPC_CMD_REMOVE, .instance_id = "ghost"}, "unknown_instance");
    e3rpc_route bad_route[] = {{"x", "not-an-ip", 1}};
    expect(s, (e3rpc_command){.version = 7, .kind = E3RPC_CMD_SET_ROUTES, .routes = bad_route, .n_routes = 1},
           "bad_route");
    expect(s, (e3rpc_command){.version = 8, .kind = E3RPC_CMD_EXPORT_STATE, .instance_id = "a", .peer = "h:1"},
           "unknown_instance");
    expect(s, (e3rpc_command){.version = 9, .kind = E3RPC_CMD_IMPORT_STATE, .instance_id = "a", .peer = "h:1"},
           "unknown_instance");
    expect(s, (e3rpc_command){.version = 10, .kind = E3RPC_CMD_UNKNOWN}, "unknown_command");
    CHECK_EQ_INT(cmd_applied_version(s), 10);
    CHECK_EQ_INT(cmd_instances(s), 0);
    CHECK_EQ_INT(eng_stats_all(e, NULL, 0), 0); /* nothing left behind in the engine */

    /* b = ema, a = kvs forwarding to b; e3.* keys are not handed to the service */
    e3rpc_kv ema_cfg[] = {{"alpha", "0.5"}, {"e3.future_key", "ignored"}};
    CHECK_EQ_INT(expect(s, deploy(11, "b", "ema", pb, ema_cfg, 2), NULL), 1);
    e3rpc_kv kvs_cfg[] = {{"e3.downstream", "b"}};
    expect(s, deploy(12, "a", "kvs", pa, kvs_cfg, 1), NULL);
    CHECK_EQ_INT(cmd_instances(s), 2);
    CHECK_EQ_INT(cmd_instance_port(s, "a"), pa);
    call(client, pb, "UPDATE s 4", CHAN_OK, "EMA 4");
    call(client, pa, "PUT k 1\nUPDATE s 8", CHAN_ERR, "no route to instance b");
    e3rpc_route routes[] = {{"b", "127.0.0.1", pb}};
    expect(s, (e3rpc_command){.version = 13, .kind = E3RPC_CMD_SET_ROUTES, .routes = routes, .n_routes = 1}, NULL);
    call(client, pa, "PUT k 1\nUPDATE s 8", CHAN_OK, "OK\nEMA 6");
    call(client, pa, "GET k", CHAN_OK, "VALUE 1");

    /* conflicts */
    expect(s, deploy(14, "a", "kvs", free_port(), NULL, 0), "duplicate_instance");
    expect(s, deploy(15, "c", "kvs", pa, NULL, 0), "port_in_use");
    CHECK_EQ_INT(eng_stats_all(e, NULL, 0), 2); /* the refused instance was taken out again */

    /* idempotence: an old version is answered as before, not applied again */
    CHECK_EQ_INT(expect(s, deploy(12, "a", "kvs", pa, kvs_cfg, 1), NULL), 0);
    CHECK_EQ_INT(expect(s, deploy(15, "c", "kvs", pa, NULL, 0), "port_in_use"), 0);
    CHECK_EQ_INT(expect(s, (e3rpc_command){.version = 6, .kind = E3RPC_CMD_REMOVE, .instance_id = "a"}, "unknown_instance"), 0);
    CHECK_EQ_INT(cmd_instances(s), 2);
    CHECK_EQ_INT(cmd_applied_version(s), 15);

    /* ids and traffic for heartbeats */
    char id[E3RPC_ID_LEN];
    eng_inst_stats st[4];
    CHECK_EQ_INT(eng_stats_all(e, st, 4), 2);
    CHECK(cmd_instance_id(s, st[0].instance_id, id) && (strcmp(id, "a") == 0 || strcmp(id, "b") == 0));
    CHECK(!cmd_instance_id(s, 999, id));
    hb_net before, after;
    cmd_net(s, &before);
    CHECK(before.rx_packets >= 4 && before.tx_packets >= 4);

    /* remove: stops serving, frees the port, keeps the traffic counted */
    expect(s, (e3rpc_command){.version = 16, .kind = E3RPC_CMD_REMOVE, .instance_id = "a"}, NULL);
    CHECK_EQ_INT(cmd_instances(s), 1);
    CHECK_EQ_INT(cmd_instance_port(s, "a"), 0);
    cmd_net(s, &after);
    CHECK(after.rx_packets >= before.rx_packets && after.tx_bytes >= before.tx_bytes);
    expect(s, (e3rpc_command){.version = 17, .kind = E3RPC_CMD_REMOVE, .instance_id = "a"}, "unknown_instance");
    expect(s, deploy(18, "a2", "kvs", pa, NULL, 0), NULL); /* the port is free again */
    call(client, pa, "GET k", CHAN_OK, "NOT_FOUND"); /* a fresh instance */

    cmd_free(s); /* removes b and a2 */
    rig.s = NULL;
    CHECK_EQ_INT(eng_stats_all(e, NULL, 0), 0);
    cmd_rig_free(&rig);
    return 0;
}
