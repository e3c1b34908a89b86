/* SPDX-License-Identifier: Apache-2.0 */
/* pkt: see e3dp/pkt.h. */
#include "e3dp/pkt.h"

#include "e3svc/hash.h"

#include <stdio.h>
#include <string.h>

#define DP_ETHERTYPE_IPV4 0x0800
#define DP_ETHERTYPE_ARP 0x0806
#define DP_IPPROTO_UDP 17
#define DP_ARP_REQUEST 1
#define DP_ARP_REPLY 2

static uint16_t dp_rd16(const uint8_t *p) {
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t dp_rd32n(const uint8_t *p) { /* 4 bytes kept in network order */
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void dp_wr16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

uint16_t dp_ip_checksum(const uint8_t *hdr, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2) sum += dp_rd16(hdr + i);
    if (len & 1) sum += (uint32_t)hdr[len - 1] << 8;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static dp_kind dp_drop_as(dp_parsed *out, dp_drop reason) {
    out->kind = DP_KIND_DROP;
    out->reason = reason;
    return DP_KIND_DROP;
}

static dp_kind dp_parse_arp(const uint8_t *a, size_t len, dp_parsed *out) {
    if (len < 28) return dp_drop_as(out, DP_DROP_TRUNCATED);
    /* hardware Ethernet (1), protocol IPv4, sizes 6 and 4 */
    if (dp_rd16(a) != 1 || dp_rd16(a + 2) != DP_ETHERTYPE_IPV4 || a[4] != 6 || a[5] != 4)
        return dp_drop_as(out, DP_DROP_BAD_ARP);
    uint16_t op = dp_rd16(a + 6);
    if (op != DP_ARP_REQUEST && op != DP_ARP_REPLY) return dp_drop_as(out, DP_DROP_BAD_ARP);
    memcpy(out->src_mac, a + 8, 6); /* the sender's hardware address, not the frame's */
    out->src_ip = dp_rd32n(a + 14);
    out->dst_ip = dp_rd32n(a + 24);
    out->kind = op == DP_ARP_REQUEST ? DP_KIND_ARP_REQUEST : DP_KIND_ARP_REPLY;
    return out->kind;
}

dp_kind dp_parse(const uint8_t *frame, size_t len, size_t max_payload, dp_parsed *out) {
    memset(out, 0, sizeof(*out));
    if (!frame || len < DP_ETH_LEN) return dp_drop_as(out, DP_DROP_TRUNCATED);
    memcpy(out->dst_mac, frame, 6);
    memcpy(out->src_mac, frame + 6, 6);
    uint16_t type = dp_rd16(frame + 12);
    const uint8_t *ip = frame + DP_ETH_LEN;
    size_t left = len - DP_ETH_LEN;
    if (type == DP_ETHERTYPE_ARP) return dp_parse_arp(ip, left, out);
    if (type != DP_ETHERTYPE_IPV4) return dp_drop_as(out, DP_DROP_NOT_IPV4);
    if (left < DP_IP_LEN) return dp_drop_as(out, DP_DROP_TRUNCATED);
    size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
    if ((ip[0] >> 4) != 4 || ihl < DP_IP_LEN) return dp_drop_as(out, DP_DROP_BAD_IP_HEADER);
    if (ihl > left) return dp_drop_as(out, DP_DROP_TRUNCATED);
    size_t total = dp_rd16(ip + 2);
    if (total < ihl || dp_ip_checksum(ip, ihl) != 0) return dp_drop_as(out, DP_DROP_BAD_IP_HEADER);
    if (total > left) return dp_drop_as(out, DP_DROP_TRUNCATED);
    uint16_t frag = dp_rd16(ip + 6);
    if ((frag & 0x2000) || (frag & 0x1fff)) return dp_drop_as(out, DP_DROP_FRAGMENT); /* MF or offset */
    if (ip[9] != DP_IPPROTO_UDP) return dp_drop_as(out, DP_DROP_NOT_UDP);
    out->src_ip = dp_rd32n(ip + 12);
    out->dst_ip = dp_rd32n(ip + 16);
    const uint8_t *udp = ip + ihl;
    size_t udp_room = total - ihl;
    if (udp_room < DP_UDP_LEN) return dp_drop_as(out, DP_DROP_TRUNCATED);
    size_t udp_len = dp_rd16(udp + 4);
    if (udp_len < DP_UDP_LEN || udp_len > udp_room) return dp_drop_as(out, DP_DROP_BAD_UDP);
    out->src_port = dp_rd16(udp);
    out->dst_port = dp_rd16(udp + 2);
    out->payload = udp + DP_UDP_LEN;
    out->payload_len = udp_len - DP_UDP_LEN;
    if (out->payload_len > max_payload) return dp_drop_as(out, DP_DROP_OVERSIZED);
    out->kind = DP_KIND_UDP;
    return DP_KIND_UDP;
}

const char *dp_drop_name(dp_drop reason) {
    static const char *const names[DP_DROP_COUNT] = {
        [DP_DROP_NONE] = "none",
        [DP_DROP_TRUNCATED] = "truncated",
        [DP_DROP_NOT_IPV4] = "not_ipv4",
        [DP_DROP_BAD_ARP] = "bad_arp",
        [DP_DROP_BAD_IP_HEADER] = "bad_ip_header",
        [DP_DROP_FRAGMENT] = "fragment",
        [DP_DROP_NOT_UDP] = "not_udp",
        [DP_DROP_BAD_UDP] = "bad_udp",
        [DP_DROP_OVERSIZED] = "oversized",
        [DP_DROP_NOT_FOR_US] = "not_for_us",
        [DP_DROP_NO_INSTANCE] = "no_instance",
        [DP_DROP_QUEUE_FULL] = "queue_full",
        [DP_DROP_HOST_DOWN] = "host_down",
        [DP_DROP_NO_BUFFER] = "no_buffer",
        [DP_DROP_TX_FULL] = "tx_full",
        [DP_DROP_NO_GATEWAY] = "no_gateway",
        [DP_DROP_NO_LINK] = "no_link",
    };
    return (unsigned)reason < DP_DROP_COUNT && names[reason] ? names[reason] : "unknown";
}

void dp_set_macs(uint8_t *frame, const uint8_t src_mac[6], const uint8_t dst_mac[6]) {
    memcpy(frame, dst_mac, 6);
    memcpy(frame + 6, src_mac, 6);
}

size_t dp_write_udp(uint8_t *buf, const uint8_t src_mac[6], const uint8_t dst_mac[6], uint32_t src_ip,
                    uint32_t dst_ip, uint16_t src_port, uint16_t dst_port, size_t payload_len) {
    dp_set_macs(buf, src_mac, dst_mac);
    dp_wr16(buf + 12, DP_ETHERTYPE_IPV4);
    uint8_t *ip = buf + DP_ETH_LEN;
    memset(ip, 0, DP_IP_LEN);
    ip[0] = 0x45;
    dp_wr16(ip + 2, (uint16_t)(DP_IP_LEN + DP_UDP_LEN + payload_len));
    dp_wr16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = DP_IPPROTO_UDP;
    memcpy(ip + 12, &src_ip, 4);
    memcpy(ip + 16, &dst_ip, 4);
    dp_wr16(ip + 10, dp_ip_checksum(ip, DP_IP_LEN));
    uint8_t *udp = ip + DP_IP_LEN;
    dp_wr16(udp, src_port);
    dp_wr16(udp + 2, dst_port);
    dp_wr16(udp + 4, (uint16_t)(DP_UDP_LEN + payload_len));
    dp_wr16(udp + 6, 0);
    return DP_HDRS_LEN;
}

size_t dp_write_arp_reply(uint8_t *buf, const uint8_t mac[6], uint32_t ip, const uint8_t to_mac[6], uint32_t to_ip) {
    dp_set_macs(buf, mac, to_mac);
    dp_wr16(buf + 12, DP_ETHERTYPE_ARP);
    uint8_t *a = buf + DP_ETH_LEN;
    dp_wr16(a, 1);
    dp_wr16(a + 2, DP_ETHERTYPE_IPV4);
    a[4] = 6;
    a[5] = 4;
    dp_wr16(a + 6, DP_ARP_REPLY);
    memcpy(a + 8, mac, 6);
    memcpy(a + 14, &ip, 4);
    memcpy(a + 18, to_mac, 6);
    memcpy(a + 24, &to_ip, 4);
    return DP_ARP_FRAME_LEN;
}

uint32_t dp_flow_hash(uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port) {
    uint8_t k[12];
    memcpy(k, &src_ip, 4);
    memcpy(k + 4, &dst_ip, 4);
    memcpy(k + 8, &src_port, 2);
    memcpy(k + 10, &dst_port, 2);
    return (uint32_t)svc_hash64(k, sizeof(k), 0);
}

int dp_parse_mac(const char *s, uint8_t out[6]) {
    unsigned v[6];
    char tail;
    if (!s || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6) return -1;
    for (int i = 0; i < 6; i++) out[i] = (uint8_t)v[i];
    return 0;
}
