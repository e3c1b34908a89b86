/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test ports for DPDK poll loops (nic-firmware's traffic manager, libe3dp's host link): a
 * net_ring port made from two rings the test owns (it writes rx, reads tx), frames injected into
 * it, and E3 request frames written. Needs an EAL (no hugepages, no PCI) and a mempool.
 */
#ifndef E3_TESTING_RING_PORT_H
#define E3_TESTING_RING_PORT_H

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "check.h"
#include "e3dp/pkt.h"
#include "e3frame.h"

typedef struct ring_port {
    struct rte_ring *rx, *tx; /* the test writes rx, reads tx */
    uint16_t id;              /* DPDK port id */
} ring_port;

/* A started net_ring port named `name` with one rx queue (buffers from `mp`) and one tx queue. */
static inline void ring_port_make(ring_port *p, const char *name, struct rte_mempool *mp) {
    char rn[32];
    snprintf(rn, sizeof(rn), "%s_rx", name);
    p->rx = rte_ring_create(rn, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(rn, sizeof(rn), "%s_tx", name);
    p->tx = rte_ring_create(rn, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    CHECK(p->rx && p->tx);
    int id = rte_eth_from_rings(name, &p->rx, 1, &p->tx, 1, SOCKET_ID_ANY);
    CHECK(id >= 0);
    p->id = (uint16_t)id;
    struct rte_eth_conf conf = {0};
    CHECK_EQ_INT(rte_eth_dev_configure(p->id, 1, 1, &conf), 0);
    CHECK_EQ_INT(rte_eth_rx_queue_setup(p->id, 0, 64, SOCKET_ID_ANY, NULL, mp), 0);
    CHECK_EQ_INT(rte_eth_tx_queue_setup(p->id, 0, 64, SOCKET_ID_ANY, NULL), 0);
    CHECK_EQ_INT(rte_eth_dev_start(p->id), 0);
}

/* Make `frame` (`len` bytes) arrive on `p`. */
static inline void ring_port_inject(ring_port *p, struct rte_mempool *mp, const uint8_t *frame, size_t len) {
    struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
    CHECK(m);
    memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
    CHECK_EQ_INT(rte_ring_enqueue(p->rx, m), 0);
}

/* Write an E3 request frame (instance 1, request id 77) carrying `req` from `src_mac` into `f`;
 * its length. */
static inline size_t ring_port_request(uint8_t *f, const uint8_t src_mac[6], const char *src, const char *dst,
                                       uint16_t sport, uint16_t dport, const char *req) {
    static const uint8_t client_mac[6] = {0x02, 0, 0, 0, 0, 9};
    e3frame_hdr h = {.type = E3FRAME_TYPE_REQUEST, .instance_id = 1, .request_id = 77};
    size_t plen = E3FRAME_HDR_LEN + strlen(req);
    dp_write_udp(f, src_mac, client_mac, inet_addr(src), inet_addr(dst), sport, dport, plen);
    e3frame_hdr_pack(&h, f + DP_HDRS_LEN);
    memcpy(f + DP_HDRS_LEN + E3FRAME_HDR_LEN, req, strlen(req));
    return DP_HDRS_LEN + plen;
}

#endif
