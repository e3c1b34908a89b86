/* SPDX-License-Identifier: Apache-2.0 */
/* pkt: a UDP frame written by dp_write_udp parses back; ARP requests and replies; every malformed
 * shape is dropped with its own reason; random bytes and every truncation of a good frame are
 * classified without reading past the end. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "e3dp/pkt.h"

static const uint8_t MAC_A[6] = {0x02, 0xe3, 0x01, 0x01, 0x00, 0x00};
static const uint8_t MAC_B[6] = {0x02, 0xe3, 0x02, 0x01, 0x00, 0x00};

static size_t good_frame(uint8_t *buf, size_t payload_len) {
    size_t h = dp_write_udp(buf, MAC_A, MAC_B, inet_addr("10.3.0.1"), inet_addr("10.3.1.10"), 40000, 21000, payload_len);
    for (size_t i = 0; i < payload_len; i++) buf[h + i] = (uint8_t)('a' + i % 26);
    return h + payload_len;
}

static dp_drop parse_reason(const uint8_t *f, size_t len) {
    dp_parsed p;
    dp_parse(f, len, DP_MAX_PAYLOAD, &p);
    return p.kind == DP_KIND_DROP ? p.reason : DP_DROP_NONE;
}

/* Recompute the IP checksum after a header edit. */
static void fix_ip_checksum(uint8_t *f) {
    f[DP_ETH_LEN + 10] = f[DP_ETH_LEN + 11] = 0;
    uint16_t c = dp_ip_checksum(f + DP_ETH_LEN, DP_IP_LEN);
    f[DP_ETH_LEN + 10] = (uint8_t)(c >> 8);
    f[DP_ETH_LEN + 11] = (uint8_t)c;
}

int main(void) {
    uint8_t f[2048], g[2048];
    dp_parsed p;

    size_t n = good_frame(f, 512);
    CHECK_EQ_INT(dp_parse(f, n, DP_MAX_PAYLOAD, &p), DP_KIND_UDP);
    CHECK(p.src_ip == inet_addr("10.3.0.1") && p.dst_ip == inet_addr("10.3.1.10"));
    CHECK_EQ_INT(p.src_port, 40000);
    CHECK_EQ_INT(p.dst_port, 21000);
    CHECK_EQ_INT(p.payload_len, 512);
    CHECK(p.payload == f + DP_HDRS_LEN);
    CHECK_MEM(p.src_mac, MAC_A, 6);
    memset(f + n, 0, 16); /* Ethernet padding after the datagram is fine */
    CHECK_EQ_INT(parse_reason(f, n + 16), DP_DROP_NONE);

    /* ARP: a request, and the reply we write to it */
    size_t an = dp_write_arp_reply(g, MAC_A, inet_addr("10.3.0.2"), MAC_B, inet_addr("10.3.1.1"));
    CHECK_EQ_INT(dp_parse(g, an, DP_MAX_PAYLOAD, &p), DP_KIND_ARP_REPLY);
    CHECK(p.src_ip == inet_addr("10.3.0.2") && p.dst_ip == inet_addr("10.3.1.1"));
    CHECK_MEM(p.src_mac, MAC_A, 6);
    g[DP_ETH_LEN + 7] = 1; /* opcode request */
    CHECK_EQ_INT(dp_parse(g, an, DP_MAX_PAYLOAD, &p), DP_KIND_ARP_REQUEST);
    g[DP_ETH_LEN + 7] = 9;
    CHECK_EQ_INT(parse_reason(g, an), DP_DROP_BAD_ARP);
    CHECK_EQ_INT(parse_reason(g, DP_ETH_LEN + 20), DP_DROP_TRUNCATED);

    /* one reason per malformation */
    CHECK_EQ_INT(parse_reason(f, 10), DP_DROP_TRUNCATED);
    CHECK_EQ_INT(parse_reason(f, DP_ETH_LEN + 10), DP_DROP_TRUNCATED);
    CHECK_EQ_INT(parse_reason(f, n - 1), DP_DROP_TRUNCATED); /* IP total length past the frame */
    memcpy(g, f, n);
    g[12] = 0x86, g[13] = 0xdd; /* IPv6 */
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_NOT_IPV4);
    memcpy(g, f, n);
    g[DP_ETH_LEN + 10] ^= 0xff; /* checksum */
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_BAD_IP_HEADER);
    memcpy(g, f, n);
    g[DP_ETH_LEN] = 0x65; /* version 6 */
    fix_ip_checksum(g);
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_BAD_IP_HEADER);
    memcpy(g, f, n);
    g[DP_ETH_LEN] = 0x44; /* header length 16 */
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_BAD_IP_HEADER);
    memcpy(g, f, n);
    g[DP_ETH_LEN + 6] = 0x20; /* more fragments */
    fix_ip_checksum(g);
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_FRAGMENT);
    memcpy(g, f, n);
    g[DP_ETH_LEN + 9] = 1; /* ICMP */
    fix_ip_checksum(g);
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_NOT_UDP);
    memcpy(g, f, n);
    g[DP_ETH_LEN + DP_IP_LEN + 4] = 0x7f; /* UDP length past the IP payload */
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_BAD_UDP);
    memcpy(g, f, n);
    g[DP_ETH_LEN + DP_IP_LEN + 4] = 0, g[DP_ETH_LEN + DP_IP_LEN + 5] = 4; /* below 8 */
    CHECK_EQ_INT(parse_reason(g, n), DP_DROP_BAD_UDP);
    CHECK_EQ_INT(dp_parse(f, n, 100, &p), DP_KIND_DROP);
    CHECK_EQ_INT(p.reason, DP_DROP_OVERSIZED);
    CHECK(strcmp(dp_drop_name(DP_DROP_OVERSIZED), "oversized") == 0);
    CHECK(strcmp(dp_drop_name(DP_DROP_NO_LINK), "no_link") == 0);
    for (int d = DP_DROP_NONE; d < DP_DROP_COUNT; d++) CHECK(strcmp(dp_drop_name((dp_drop)d), "unknown") != 0);
    CHECK(strcmp(dp_drop_name(DP_DROP_COUNT), "unknown") == 0);

    /* every truncation of a good frame, and random frames: classified, never a crash */
    for (size_t len = 0; len < n; len++) {
        dp_parse(f, len, DP_MAX_PAYLOAD, &p);
        CHECK(p.kind == DP_KIND_DROP || len >= DP_HDRS_LEN);
    }
    srand(7);
    for (int i = 0; i < 20000; i++) {
        size_t len = (size_t)rand() % 120;
        for (size_t j = 0; j < len; j++) g[j] = (uint8_t)rand();
        if (i % 2) g[12] = 0x08, g[13] = (uint8_t)(i % 4 ? 0x00 : 0x06); /* steer into IPv4/ARP */
        dp_parse(g, len, DP_MAX_PAYLOAD, &p);
        CHECK(p.kind == DP_KIND_DROP || p.payload_len <= len);
    }

    /* helpers */
    uint8_t mac[6];
    CHECK_EQ_INT(dp_parse_mac("02:e3:01:0a:00:ff", mac), 0);
    CHECK(mac[3] == 0x0a && mac[5] == 0xff);
    CHECK_EQ_INT(dp_parse_mac("02:e3:01:0a:00", mac), -1);
    CHECK_EQ_INT(dp_parse_mac("02:e3:01:0a:00:ff:11", mac), -1);
    CHECK(dp_flow_hash(1, 2, 3, 4) != dp_flow_hash(1, 2, 3, 5));
    return 0;
}
