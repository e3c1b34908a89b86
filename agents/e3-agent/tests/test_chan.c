/* SPDX-License-Identifier: Apache-2.0 */
/* chan: two engines in one process joined over UDP on 127.0.0.1: a request for a remote
 * instance crosses the socket and its reply comes back; errors travel too; the local channel
 * reaches a co-located instance. */
#include "chan_check.h"

#define KVS_ID 10 /* on engine B */
#define EMA_ID 20 /* on engine A */
#define N_BULK 200

static void call(chan *c, uint32_t id, const char *req, int want_status, const char *want) {
    char err[CHAN_ERRBUF_LEN];
    reply r = {0};
    CHECK_EQ_INT(chan_send(c, id, (const uint8_t *)req, strlen(req), on_reply, &r, err), CHAN_OK);
    check_reply(&r, req, (int)strlen(req), want_status, want);
}

int main(void) {
    char err[ENG_ERRBUF_LEN];
    eng *a = eng_new(2, 0, err), *b = eng_new(2, 0, err);
    CHECK(a && b);
    CHECK_EQ_INT(eng_deploy(b, KVS_ID, "kvs", "", 0, err), ENG_OK);
    CHECK_EQ_INT(eng_deploy(a, EMA_ID, "ema", "alpha=0.5", 0, err), ENG_OK);
    chan_udp_node *na = chan_udp_node_new("127.0.0.1", 0, chan_eng_deliver, a, err);
    chan_udp_node *nb = chan_udp_node_new("127.0.0.1", 0, chan_eng_deliver, b, err);
    CHECK(na && nb);
    CHECK(chan_udp_node_port(na) != 0 && chan_udp_node_port(nb) != chan_udp_node_port(na));
    CHECK(chan_udp_node_new("not-an-ip", 0, NULL, NULL, err) == NULL);

    /* A -> B over UDP */
    chan *ab = chan_udp_open(na, "127.0.0.1", chan_udp_node_port(nb), err);
    CHECK(ab);
    call(ab, KVS_ID, "PUT k remote value", CHAN_OK, "OK");
    call(ab, KVS_ID, "GET k", CHAN_OK, "VALUE remote value");
    call(ab, KVS_ID, "FOO k", CHAN_ERR, NULL);       /* service error crosses back */
    call(ab, 999, "GET k", CHAN_ERR, NULL);          /* unknown remote instance */
    /* B -> A over UDP, reaching A's ema */
    chan *ba = chan_udp_open(nb, "127.0.0.1", chan_udp_node_port(na), err);
    CHECK(ba);
    call(ba, EMA_ID, "UPDATE s 8", CHAN_OK, "EMA 8");

    /* a burst of outstanding requests, all answered */
    static reply bulk[N_BULK];
    for (int i = 0; i < N_BULK; i++) {
        char req[32];
        snprintf(req, sizeof(req), "PUT b%d %d", i, i);
        CHECK_EQ_INT(chan_send(ab, KVS_ID, (const uint8_t *)req, strlen(req), on_reply, &bulk[i], err), CHAN_OK);
    }
    for (int i = 0; i < N_BULK; i++) {
        wait_done(&bulk[i]);
        CHECK_EQ_INT(bulk[i].status, CHAN_OK);
        CHECK(strcmp(bulk[i].text, "OK") == 0);
    }
    call(ab, KVS_ID, "GET b199", CHAN_OK, "VALUE 199");

    /* the local channel: straight into A's engine */
    chan *la = chan_local_new(a, err);
    CHECK(la);
    call(la, EMA_ID, "UPDATE s 4", CHAN_OK, "EMA 6");
    call(la, EMA_ID, "GET s", CHAN_OK, "EMA 6 N 2");
    CHECK_EQ_INT(chan_send(la, 999, (const uint8_t *)"x", 1, on_reply, NULL, err), CHAN_ERR);

    chan_counters ca, cb;
    chan_udp_node_counters(na, &ca);
    chan_udp_node_counters(nb, &cb);
    CHECK(cb.rx_packets >= N_BULK + 5 && ca.rx_packets >= N_BULK + 5);
    CHECK(ca.tx_bytes > ca.tx_packets * CHAN_HDR_LEN);
    CHECK_EQ_INT(cb.rx_bytes, ca.tx_bytes); /* everything A sent went to B and was answered */
    CHECK_EQ_INT(cb.dropped, 0);
    eng_inst_stats st;
    CHECK_EQ_INT(eng_stats(b, KVS_ID, &st, err), ENG_OK);
    CHECK_EQ_INT(st.completed, N_BULK + 4); /* PUT, GET, FOO, bulk, GET b199 */

    chan_close(ab);
    chan_close(ba);
    chan_close(la);
    chan_udp_node_free(na); /* nodes before the engines they deliver into */
    chan_udp_node_free(nb);
    eng_free(a);
    eng_free(b);
    return 0;
}
