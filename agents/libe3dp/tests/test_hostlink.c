/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hostlink: the host's side of two host links (net_ring ports whose rings the test owns, as two
 * SmartNICs' memif links would be), polled from the test thread:
 *   - a request from a link to the host's IP reaches the instance bound there (host stack ->
 *     an engine) and its reply leaves on a link;
 *   - datagrams to other IPs leave on the links, 64 flows spread over both;
 *   - a datagram to the host's own IP is looped back to its node and never leaves on a link;
 *   - a link set down gets no egress; none up: dropped as no_link;
 *   - garbage, non-UDP, other IPs and unbound ports are dropped and counted by reason.
 */
#include <arpa/inet.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "chan.h"
#include "check.h"
#include "e3dp/eal.h"
#include "e3dp/hostlink.h"
#include "e3dp/poll.h"
#include "e3dp/pkt.h"
#include "e3frame.h"
#include "engine.h"
#include "ring_port.h"

#define HOST_IP "10.3.1.1"
#define CLIENT_IP "10.3.0.1"
#define PORT 21000

static const uint8_t NIC_MAC[6] = {0x02, 0xe3, 0x01, 0x01, 0x00, 0x0a};
static struct rte_mempool *g_mp;
static ring_port g_link[2];

/* Replies that came back to the test's client node. */
static atomic_int g_replies, g_replies_ok;
static char g_reply[64];

static void on_reply(void *ctx, int status, const uint8_t *resp, size_t len) {
    (void)ctx;
    if (status == CHAN_OK) {
        snprintf(g_reply, sizeof(g_reply), "%.*s", (int)len, (const char *)resp);
        atomic_fetch_add(&g_replies_ok, 1);
    }
    atomic_fetch_add(&g_replies, 1);
}

/* Frames that left on each link since the last call (freed; the last one copied into `out`). */
static void drain(unsigned out_count[2], uint8_t *out, size_t *out_len) {
    for (int k = 0; k < 2; k++) {
        void *m;
        while (rte_ring_dequeue(g_link[k].tx, &m) == 0) {
            out_count[k]++;
            if (out) {
                *out_len = rte_pktmbuf_data_len((struct rte_mbuf *)m);
                memcpy(out, rte_pktmbuf_mtod((struct rte_mbuf *)m, void *), *out_len);
            }
            rte_pktmbuf_free(m);
        }
    }
}

/* Poll for `ms` milliseconds. */
static void poll_for(dp_hostlink *hl, long ms) {
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        dp_hostlink_poll(hl);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* Poll until `cond` holds or 3 s passed. */
#define POLL_UNTIL(hl, cond)                                                    \
    do {                                                                        \
        for (int i_ = 0; i_ < 3000 && !(cond); i_++) poll_for((hl), 1);         \
    } while (0)

/* Send `n` requests from `node` to `n` flows (ports base..base+n-1 at `ip`). */
static void send_flows(chan_udp_node *node, const char *ip, uint16_t base, int n) {
    char err[CHAN_ERRBUF_LEN];
    for (int i = 0; i < n; i++) {
        chan *c = chan_udp_open(node, ip, (uint16_t)(base + i), err);
        CHECK(c);
        CHECK_EQ_INT(chan_send(c, 1, (const uint8_t *)"GET k", 5, on_reply, NULL, err), CHAN_OK);
        chan_close(c);
    }
}

int main(void) {
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "e3dp-test-hostlink-%d", (int)getpid());
    char *eal[] = {"test_hostlink", "--no-huge", "--no-pci", "-m", "128", "--no-telemetry", "-l", "0",
                   "--log-level", "*:error", "--file-prefix", prefix, NULL};
    CHECK(rte_eal_init(12, eal) >= 0);
    g_mp = rte_pktmbuf_pool_create("test_mbufs", 2047, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    CHECK(g_mp);
    ring_port_make(&g_link[0], "nic0", g_mp);
    ring_port_make(&g_link[1], "nic1", g_mp);
    char err[DP_ERRBUF_LEN];
    CHECK(dp_hostlink_new(&(dp_hostlink_config){.ip = HOST_IP, .n_ports = 0}, g_mp, err) == NULL);
    CHECK(dp_hostlink_new(&(dp_hostlink_config){.ip = "nope", .n_ports = 1}, g_mp, err) == NULL);
    dp_hostlink_config cfg = {.ip = HOST_IP, .ports = {g_link[0].id, g_link[1].id}, .n_ports = 2};
    dp_hostlink *hl = dp_hostlink_new(&cfg, g_mp, err);
    CHECK(hl);
    chan_net *net = dp_hostlink_net(hl);

    /* an instance on the host (kvs), and a client node of the host's own (as the pipeline's) */
    eng *e = eng_new(1, 0, err);
    CHECK(e);
    CHECK_EQ_INT(eng_deploy(e, 1, "kvs", "", 0, err), ENG_OK);
    chan_udp_node *server = chan_net_node_new(net, HOST_IP, PORT, chan_eng_deliver, e, err);
    CHECK(server);
    chan_udp_node *client = chan_net_node_new(net, HOST_IP, 0, NULL, NULL, err);
    CHECK(client);

    uint8_t f[2048], out[2048];
    size_t n, out_len = 0;
    unsigned sent[2] = {0, 0};
    dp_parsed p;
    dp_hostlink_counters c0, c1;

    /* from a link to the host's instance; its reply leaves on a link */
    n = ring_port_request(f, NIC_MAC, CLIENT_IP, HOST_IP, 40001, PORT, "PUT k v");
    ring_port_inject(&g_link[0], g_mp, f, n);
    POLL_UNTIL(hl, (drain(sent, out, &out_len), sent[0] + sent[1] == 1));
    CHECK_EQ_INT(sent[0] + sent[1], 1);
    CHECK_EQ_INT(dp_parse(out, out_len, DP_MAX_PAYLOAD, &p), DP_KIND_UDP);
    CHECK(p.src_ip == inet_addr(HOST_IP) && p.dst_ip == inet_addr(CLIENT_IP));
    CHECK_EQ_INT(p.src_port, PORT);
    CHECK_EQ_INT(p.dst_port, 40001);
    e3frame_hdr h;
    CHECK_EQ_INT(e3frame_hdr_unpack(p.payload, p.payload_len, &h), E3FRAME_OK);
    CHECK_EQ_INT(h.type, E3FRAME_TYPE_REPLY);
    CHECK_MEM(p.payload + E3FRAME_HDR_LEN, "OK", 2);
    dp_hostlink_counters_get(hl, &c0);
    CHECK_EQ_INT(c0.rx[0], 1);
    CHECK_EQ_INT(c0.delivered, 1);
    CHECK_EQ_INT(c0.tx[0] + c0.tx[1], 1);
    CHECK(c0.up[0] && c0.up[1]);

    /* to other servers: 64 flows over both links, none looped back */
    sent[0] = sent[1] = 0;
    send_flows(client, "10.3.2.1", 30000, 64);
    POLL_UNTIL(hl, (drain(sent, NULL, NULL), sent[0] + sent[1] == 64));
    CHECK_EQ_INT(sent[0] + sent[1], 64);
    CHECK(sent[0] > 0 && sent[1] > 0);
    fprintf(stderr, "64 flows: %u on link 0, %u on link 1\n", sent[0], sent[1]);

    /* to the host's own IP: looped back to its instance, the reply back to the client node */
    dp_hostlink_counters_get(hl, &c0);
    chan *self = chan_udp_open(client, HOST_IP, PORT, err);
    CHECK(self);
    CHECK_EQ_INT(chan_send(self, 1, (const uint8_t *)"GET k", 5, on_reply, NULL, err), CHAN_OK);
    POLL_UNTIL(hl, atomic_load(&g_replies_ok) == 1);
    CHECK_EQ_INT(atomic_load(&g_replies_ok), 1);
    CHECK(strstr(g_reply, "v") != NULL);
    chan_close(self);
    sent[0] = sent[1] = 0;
    drain(sent, NULL, NULL);
    CHECK_EQ_INT(sent[0] + sent[1], 0);
    dp_hostlink_counters_get(hl, &c1);
    CHECK_EQ_INT(c1.looped - c0.looped, 2); /* the request and its reply */
    CHECK_EQ_INT(c1.tx[0] + c1.tx[1], c0.tx[0] + c0.tx[1]);

    /* link 1 down: everything on link 0; both down: dropped as no_link */
    CHECK_EQ_INT(rte_eth_dev_set_link_down(g_link[1].id), 0);
    poll_for(hl, 3 * DP_LINK_CHECK_MS);
    send_flows(client, "10.3.2.2", 31000, 32);
    POLL_UNTIL(hl, (drain(sent, NULL, NULL), sent[0] == 32));
    CHECK_EQ_INT(sent[0], 32);
    CHECK_EQ_INT(sent[1], 0);
    dp_hostlink_counters_get(hl, &c0);
    CHECK(c0.up[0] && !c0.up[1]);
    CHECK_EQ_INT(rte_eth_dev_set_link_down(g_link[0].id), 0);
    poll_for(hl, 3 * DP_LINK_CHECK_MS);
    send_flows(client, "10.3.2.3", 32000, 5);
    poll_for(hl, 20);
    sent[0] = sent[1] = 0;
    drain(sent, NULL, NULL);
    CHECK_EQ_INT(sent[0] + sent[1], 0);
    dp_hostlink_counters_get(hl, &c1);
    CHECK_EQ_INT(c1.drops[DP_DROP_NO_LINK] - c0.drops[DP_DROP_NO_LINK], 5);
    CHECK_EQ_INT(rte_eth_dev_set_link_up(g_link[0].id), 0);
    CHECK_EQ_INT(rte_eth_dev_set_link_up(g_link[1].id), 0);

    /* what a link brings that is not for the host's stack: dropped by reason */
    dp_hostlink_counters_get(hl, &c0);
    ring_port_inject(&g_link[1], g_mp, f, 20); /* truncated */
    n = ring_port_request(f, NIC_MAC, CLIENT_IP, HOST_IP, 40002, PORT, "GET k");
    uint8_t g[2048];
    memcpy(g, f, n);
    g[DP_ETH_LEN + 9] = 1; /* ICMP */
    g[DP_ETH_LEN + 10] = g[DP_ETH_LEN + 11] = 0;
    uint16_t ck = dp_ip_checksum(g + DP_ETH_LEN, DP_IP_LEN);
    g[DP_ETH_LEN + 10] = (uint8_t)(ck >> 8), g[DP_ETH_LEN + 11] = (uint8_t)ck;
    ring_port_inject(&g_link[1], g_mp, g, n);
    memcpy(g, f, n);
    g[12] = 0x86, g[13] = 0xdd; /* IPv6 */
    ring_port_inject(&g_link[0], g_mp, g, n);
    n = ring_port_request(f, NIC_MAC, CLIENT_IP, "10.3.7.7", 40002, PORT, "GET k"); /* another IP */
    ring_port_inject(&g_link[0], g_mp, f, n);
    n = ring_port_request(f, NIC_MAC, CLIENT_IP, HOST_IP, 40002, 22222, "GET k"); /* nothing bound */
    ring_port_inject(&g_link[0], g_mp, f, n);
    poll_for(hl, 20);
    dp_hostlink_counters_get(hl, &c1);
    CHECK_EQ_INT(c1.drops[DP_DROP_TRUNCATED] - c0.drops[DP_DROP_TRUNCATED], 1);
    CHECK_EQ_INT(c1.drops[DP_DROP_NOT_UDP] - c0.drops[DP_DROP_NOT_UDP], 1);
    CHECK_EQ_INT(c1.drops[DP_DROP_NOT_IPV4] - c0.drops[DP_DROP_NOT_IPV4], 1);
    CHECK_EQ_INT(c1.drops[DP_DROP_NOT_FOR_US] - c0.drops[DP_DROP_NOT_FOR_US], 1);
    CHECK_EQ_INT(c1.drops[DP_DROP_NO_INSTANCE] - c0.drops[DP_DROP_NO_INSTANCE], 1);
    CHECK_EQ_INT(c1.rx[0] + c1.rx[1] - c0.rx[0] - c0.rx[1], 5);
    CHECK_EQ_INT(c1.delivered, c0.delivered);
    sent[0] = sent[1] = 0;
    drain(sent, NULL, NULL);
    CHECK_EQ_INT(sent[0] + sent[1], 0);

    /* shutdown: the requests to other servers fail when their node goes */
    chan_net_node_free(net, client);
    chan_net_node_free(net, server);
    CHECK_EQ_INT(atomic_load(&g_replies), 1 + 64 + 32 + 5);
    eng_free(e);
    dp_hostlink_free(hl);
    rte_eth_dev_stop(g_link[0].id);
    rte_eth_dev_stop(g_link[1].id);
    dp_eal_cleanup();
    return 0;
}
