/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tm: the traffic manager over net_ring ports whose rings the test owns (a wire port and a host
 * link), polled from the test thread:
 *   - ARP who-has for the NIC's and the host's IP is answered with the port's MAC, others are not;
 *   - a request to the NIC's IP reaches the instance bound there (the NIC's stack -> an engine)
 *     and its reply leaves on the wire to the ToR's MAC (learnt from the request);
 *   - UDP to the host's IP goes to the host link; host traffic to elsewhere leaves on the wire
 *     with the wire port's MACs;
 *   - malformed frames and datagrams for no instance or another IP are dropped and counted by
 *     reason, and the ingress ring is empty after a poll.
 */
#include <arpa/inet.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "check.h"
#include "e3dp/eal.h"
#include "e3dp/pkt.h"
#include "e3frame.h"
#include "engine.h"
#include "ring_port.h"
#include "tm.h"

#define NIC_IP "10.3.1.10"
#define HOST_IP "10.3.1.1"
#define CLIENT_IP "10.3.0.1"
#define PORT 21000

static const uint8_t TOR_MAC[6] = {0x02, 0xe3, 0x01, 0x01, 0x00, 0x00};
static struct rte_mempool *g_mp;

static void inject(ring_port *p, const uint8_t *frame, size_t len) {
    ring_port_inject(p, g_mp, frame, len);
}

/* Poll until a frame leaves on `p` (copied into `out`); its length, or 0 after 3 s. */
static size_t expect_out(nic_tm *tm, ring_port *p, uint8_t *out) {
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        nic_tm_poll(tm);
        void *m;
        if (rte_ring_dequeue(p->tx, &m) == 0) {
            size_t len = rte_pktmbuf_data_len((struct rte_mbuf *)m);
            memcpy(out, rte_pktmbuf_mtod((struct rte_mbuf *)m, void *), len);
            rte_pktmbuf_free(m);
            return len;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= 3) return 0;
    }
}

static size_t udp_frame(uint8_t *f, const char *src, const char *dst, uint16_t sport, uint16_t dport, const char *req) {
    return ring_port_request(f, TOR_MAC, src, dst, sport, dport, req);
}

static void arp_request(uint8_t *f, const char *target) {
    dp_write_arp_reply(f, TOR_MAC, inet_addr("10.3.0.2"), (const uint8_t[6]){0}, inet_addr(target));
    f[DP_ETH_LEN + 7] = 1; /* who-has */
    memset(f, 0xff, 6);    /* broadcast */
}

int main(void) {
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "e3nic-test-tm-%d", (int)getpid());
    char *eal[] = {"test_tm", "--no-huge", "--no-pci", "-m", "128", "--no-telemetry", "-l", "0", "--log-level",
                   "*:error", "--file-prefix", prefix, NULL};
    CHECK(rte_eal_init(12, eal) >= 0);
    g_mp = rte_pktmbuf_pool_create("test_mbufs", 2047, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    CHECK(g_mp);
    ring_port wire, host;
    ring_port_make(&wire, "wire0", g_mp);
    ring_port_make(&host, "host0", g_mp);
    char err[NIC_ERRBUF_LEN];
    nic_tm_config cfg = {.ip = NIC_IP, .host_ip = HOST_IP, .wire_ports = {wire.id}, .n_wire = 1, .has_host = 1,
                         .host_port = host.id};
    CHECK(nic_tm_new(&(nic_tm_config){.ip = "nope", .n_wire = 1}, g_mp, err) == NULL);
    nic_tm *tm = nic_tm_new(&cfg, g_mp, err);
    CHECK(tm);
    struct rte_ether_addr port_mac;
    rte_eth_macaddr_get(wire.id, &port_mac);

    /* an instance on the NIC: kvs behind the NIC's stack */
    eng *e = eng_new(1, 0, err);
    CHECK(e);
    CHECK_EQ_INT(eng_deploy(e, 1, "kvs", "", 0, err), ENG_OK);
    chan_udp_node *node = chan_net_node_new(nic_tm_net(tm), NIC_IP, PORT, chan_eng_deliver, e, err);
    CHECK(node);
    CHECK(chan_net_node_new(nic_tm_net(tm), NIC_IP, PORT, chan_eng_deliver, e, err) == NULL); /* in use */
    CHECK(chan_net_node_new(nic_tm_net(tm), "10.9.9.9", 0, chan_eng_deliver, e, err) == NULL); /* not ours */

    uint8_t f[2048], out[2048];
    dp_parsed p;

    /* ARP */
    arp_request(f, NIC_IP);
    inject(&wire, f, DP_ARP_FRAME_LEN);
    CHECK_EQ_INT(expect_out(tm, &wire, out), DP_ARP_FRAME_LEN);
    CHECK_EQ_INT(dp_parse(out, DP_ARP_FRAME_LEN, DP_MAX_PAYLOAD, &p), DP_KIND_ARP_REPLY);
    CHECK(p.src_ip == inet_addr(NIC_IP));
    CHECK_MEM(p.src_mac, port_mac.addr_bytes, 6);
    CHECK_MEM(p.dst_mac, TOR_MAC, 6);
    arp_request(f, HOST_IP); /* the ToR's ECMP route for the host resolves through the NIC */
    inject(&wire, f, DP_ARP_FRAME_LEN);
    CHECK_EQ_INT(expect_out(tm, &wire, out), DP_ARP_FRAME_LEN);
    dp_parse(out, DP_ARP_FRAME_LEN, DP_MAX_PAYLOAD, &p);
    CHECK(p.kind == DP_KIND_ARP_REPLY && p.src_ip == inet_addr(HOST_IP));
    arp_request(f, "10.3.1.99");
    inject(&wire, f, DP_ARP_FRAME_LEN);
    for (int i = 0; i < 100; i++) nic_tm_poll(tm);
    CHECK_EQ_INT(rte_ring_count(wire.tx), 0);

    /* a request to the NIC's instance, and its reply to the client through the ToR */
    size_t n = udp_frame(f, CLIENT_IP, NIC_IP, 40001, PORT, "PUT k v");
    inject(&wire, f, n);
    n = expect_out(tm, &wire, out);
    CHECK(n > DP_HDRS_LEN);
    CHECK_EQ_INT(dp_parse(out, n, DP_MAX_PAYLOAD, &p), DP_KIND_UDP);
    CHECK(p.src_ip == inet_addr(NIC_IP) && p.dst_ip == inet_addr(CLIENT_IP));
    CHECK_EQ_INT(p.dst_port, 40001);
    CHECK_EQ_INT(p.src_port, PORT);
    CHECK_MEM(p.dst_mac, TOR_MAC, 6);
    CHECK_MEM(p.src_mac, port_mac.addr_bytes, 6);
    e3frame_hdr h;
    CHECK_EQ_INT(e3frame_hdr_unpack(p.payload, p.payload_len, &h), E3FRAME_OK);
    CHECK_EQ_INT(h.type, E3FRAME_TYPE_REPLY);
    CHECK_EQ_INT(h.status, E3FRAME_STATUS_OK);
    CHECK(h.request_id == 77);
    CHECK_EQ_INT(p.payload_len - E3FRAME_HDR_LEN, 2);
    CHECK_MEM(p.payload + E3FRAME_HDR_LEN, "OK", 2);

    /* to the host: over the host link, untouched */
    n = udp_frame(f, CLIENT_IP, HOST_IP, 40002, 21001, "GET k");
    inject(&wire, f, n);
    CHECK_EQ_INT(expect_out(tm, &host, out), n);
    CHECK_MEM(out, f, n);
    /* from the host to another server: out on the wire with this port's MACs */
    n = udp_frame(f, HOST_IP, "10.3.2.1", 21001, 21002, "GET k");
    inject(&host, f, n);
    CHECK_EQ_INT(expect_out(tm, &wire, out), n);
    dp_parse(out, n, DP_MAX_PAYLOAD, &p);
    CHECK(p.kind == DP_KIND_UDP && p.dst_ip == inet_addr("10.3.2.1"));
    CHECK_MEM(p.src_mac, port_mac.addr_bytes, 6);
    CHECK_MEM(p.dst_mac, TOR_MAC, 6);

    /* drops, by reason */
    nic_tm_counters before, after;
    nic_tm_counters_get(tm, &before);
    n = udp_frame(f, CLIENT_IP, NIC_IP, 40003, 22222, "GET k"); /* no instance on that port */
    inject(&wire, f, n);
    n = udp_frame(f, CLIENT_IP, "10.3.7.7", 40003, PORT, "GET k"); /* not ours */
    inject(&wire, f, n);
    inject(&wire, f, 20); /* truncated */
    uint8_t g[2048];
    memcpy(g, f, n);
    g[12] = 0x86, g[13] = 0xdd; /* IPv6 */
    inject(&wire, g, n);
    memcpy(g, f, n);
    g[DP_ETH_LEN + 10] ^= 0x55; /* IP checksum */
    inject(&wire, g, n);
    static char big[1600];
    memset(big, 'x', sizeof(big) - 1);
    n = udp_frame(f, CLIENT_IP, NIC_IP, 40004, PORT, big); /* payload over one frame's worth */
    inject(&wire, f, n);
    for (int i = 0; i < 200; i++) nic_tm_poll(tm);
    nic_tm_counters_get(tm, &after);
    CHECK_EQ_INT(after.drops[DP_DROP_NO_INSTANCE] - before.drops[DP_DROP_NO_INSTANCE], 1);
    CHECK_EQ_INT(after.drops[DP_DROP_NOT_FOR_US] - before.drops[DP_DROP_NOT_FOR_US], 1);
    CHECK_EQ_INT(after.drops[DP_DROP_TRUNCATED] - before.drops[DP_DROP_TRUNCATED], 1);
    CHECK_EQ_INT(after.drops[DP_DROP_NOT_IPV4] - before.drops[DP_DROP_NOT_IPV4], 1);
    CHECK_EQ_INT(after.drops[DP_DROP_BAD_IP_HEADER] - before.drops[DP_DROP_BAD_IP_HEADER], 1);
    CHECK_EQ_INT(after.drops[DP_DROP_OVERSIZED] - before.drops[DP_DROP_OVERSIZED], 1);
    CHECK_EQ_INT(after.wire_rx - before.wire_rx, 6);
    CHECK_EQ_INT(after.to_workers, 1);
    CHECK_EQ_INT(after.arp_replies, 2);
    CHECK_EQ_INT(nic_tm_ingress_len(tm), 0);
    CHECK_EQ_INT(rte_ring_count(wire.tx) + rte_ring_count(host.tx), 0);

    chan_net_node_free(nic_tm_net(tm), node);
    eng_free(e);
    nic_tm_free(tm);
    rte_eth_dev_stop(wire.id);
    rte_eth_dev_stop(host.id);
    dp_eal_cleanup();
    return 0;
}
