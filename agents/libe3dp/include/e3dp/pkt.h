/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkt: the wire format of E3's emulated data plane, with no DPDK in it (so it is unit-tested and
 * fuzzed on its own). Frames are Ethernet II; what the data plane takes is ARP (requests for an
 * address it answers for) and IPv4/UDP datagrams carrying an E3 frame (e3frame.h) as payload.
 * Everything else is dropped with a reason, never a crash: dp_parse reads only inside `len`.
 *
 * Checks, in order: Ethernet header present; EtherType ARP or IPv4; ARP: Ethernet/IPv4 sizes and
 * opcode request or reply; IPv4: version 4, header length 20..60 and inside the frame, header
 * checksum, total length at least the header and at most the frame (trailing padding is fine),
 * not a fragment, protocol UDP; UDP: header present, its length field 8..(IP payload); payload at
 * most `max_payload` bytes. The UDP checksum is not verified (veths hand frames over with
 * checksums left to offload), and dp_write_udp sends none (0, allowed in IPv4).
 */
#ifndef E3DP_PKT_H
#define E3DP_PKT_H

#include <stddef.h>
#include <stdint.h>

#define DP_ETH_LEN 14          /* bytes of an Ethernet II header */
#define DP_IP_LEN 20           /* bytes of an IPv4 header without options */
#define DP_UDP_LEN 8           /* bytes of a UDP header */
#define DP_HDRS_LEN 42         /* Ethernet + IPv4 + UDP, as dp_write_udp writes them */
#define DP_ARP_FRAME_LEN 42    /* Ethernet + ARP for IPv4 */
#define DP_MTU 1500            /* bytes of IP datagram per frame on the emulated links */
#define DP_MAX_PAYLOAD (DP_MTU - DP_IP_LEN - DP_UDP_LEN) /* UDP payload per frame (1472) */

/* What a frame is. */
typedef enum dp_kind {
    DP_KIND_DROP = 0,        /* malformed or not ours: see dp_parsed.reason */
    DP_KIND_UDP = 1,         /* an IPv4/UDP datagram */
    DP_KIND_ARP_REQUEST = 2, /* who-has */
    DP_KIND_ARP_REPLY = 3,   /* is-at */
} dp_kind;

/* Why a frame was dropped: the parser's reasons, then the data plane's. Counted per reason. */
typedef enum dp_drop {
    DP_DROP_NONE = 0,
    DP_DROP_TRUNCATED,     /* shorter than the headers it announces */
    DP_DROP_NOT_IPV4,      /* EtherType neither IPv4 nor ARP (IPv6, LLDP, ...) */
    DP_DROP_BAD_ARP,       /* ARP not Ethernet/IPv4, or an opcode other than request/reply */
    DP_DROP_BAD_IP_HEADER, /* version, header length, checksum or total length wrong */
    DP_DROP_FRAGMENT,      /* an IPv4 fragment (requests larger than one frame are not taken) */
    DP_DROP_NOT_UDP,       /* IPv4 but not UDP (ICMP, TCP, ...) */
    DP_DROP_BAD_UDP,       /* UDP length field out of range */
    DP_DROP_OVERSIZED,     /* UDP payload over the limit */
    DP_DROP_NOT_FOR_US,    /* addressed to an IP this node does not serve */
    DP_DROP_NO_INSTANCE,   /* no instance listens on the destination port */
    DP_DROP_QUEUE_FULL,    /* the ingress ring was full */
    DP_DROP_HOST_DOWN,     /* for the host, but the host link (memif) is not connected */
    DP_DROP_NO_BUFFER,     /* no packet buffer left */
    DP_DROP_TX_FULL,       /* the port did not take the frame */
    DP_DROP_NO_GATEWAY,    /* to send on the wire, but the next hop's MAC is not known yet */
    DP_DROP_NO_LINK,       /* the host's, to send to a SmartNIC, but no host link (memif) is up */
    DP_DROP_COUNT          /* number of reasons */
} dp_drop;

/* A parsed frame. Addresses in network byte order, ports in host order. */
typedef struct dp_parsed {
    dp_kind kind;            /* what it is */
    dp_drop reason;          /* DP_KIND_DROP: why */
    uint8_t src_mac[6];      /* Ethernet source */
    uint8_t dst_mac[6];      /* Ethernet destination */
    uint32_t src_ip;         /* UDP: IPv4 source; ARP: sender protocol address */
    uint32_t dst_ip;         /* UDP: IPv4 destination; ARP: target protocol address */
    uint16_t src_port;       /* UDP source port */
    uint16_t dst_port;       /* UDP destination port */
    const uint8_t *payload;  /* UDP payload (inside the frame) */
    size_t payload_len;      /* bytes */
} dp_parsed;

/* Classify `frame` (`len` bytes), taking UDP payloads of at most `max_payload` bytes. Always
 * fills `out`; returns out->kind. Pure. */
dp_kind dp_parse(const uint8_t *frame, size_t len, size_t max_payload, dp_parsed *out);

/* The name of a drop reason, e.g. "bad_ip_header" (the heartbeat and log spelling). */
const char *dp_drop_name(dp_drop reason);

/* Write Ethernet + IPv4 + UDP headers for a `payload_len`-byte payload into `buf`
 * (DP_HDRS_LEN bytes): TTL 64, DF set, IP checksum computed, UDP checksum 0. Returns DP_HDRS_LEN. */
size_t dp_write_udp(uint8_t *buf, const uint8_t src_mac[6], const uint8_t dst_mac[6], uint32_t src_ip,
                    uint32_t dst_ip, uint16_t src_port, uint16_t dst_port, size_t payload_len);

/* Write an ARP reply (DP_ARP_FRAME_LEN bytes) telling `to_mac`/`to_ip` that `ip` is at `mac`. */
size_t dp_write_arp_reply(uint8_t *buf, const uint8_t mac[6], uint32_t ip, const uint8_t to_mac[6], uint32_t to_ip);

/* Set the Ethernet source and destination of a frame in place. */
void dp_set_macs(uint8_t *frame, const uint8_t src_mac[6], const uint8_t dst_mac[6]);

/* A hash of the flow's addresses and ports (for teaming and port choice: one flow, one port). */
uint32_t dp_flow_hash(uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port);

/* Parse "aa:bb:cc:dd:ee:ff" into `out`; 0 on success, -1 if malformed. */
int dp_parse_mac(const char *s, uint8_t out[6]);

/* The IPv4 header checksum of `len` bytes (the checksum field included as it is). */
uint16_t dp_ip_checksum(const uint8_t *hdr, size_t len);

#endif
