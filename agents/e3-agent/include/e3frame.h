/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3frame: the one definition of the E3 UDP frame header, shared by the agent's UDP channel
 * (src/chan.c) and the load generator (agents/e3-loadgen), which includes it without linking
 * the agent library. Header-only, libc types only.
 *
 * Layout (network byte order, E3FRAME_HDR_LEN bytes, then the payload):
 *   u32 magic "E3C1" | u8 type (1 request, 2 reply, 3 replicate) | u8 status (0 ok, 1 error) |
 *   u16 zero | u32 instance id | u64 request id
 *
 * It lives in its own include directory, not src/, so that adding it to another target's
 * include path brings no other agent header (cli.h, report.h) along.
 */
#ifndef E3FRAME_H
#define E3FRAME_H

#include <stddef.h>
#include <stdint.h>

#define E3FRAME_OK 0
#define E3FRAME_ERR -1
#define E3FRAME_MAGIC 0x45334331u  /* "E3C1" */
#define E3FRAME_HDR_LEN 20         /* bytes of framing header */
#define E3FRAME_MAX_DATAGRAM 65507 /* bytes of one UDP datagram's payload (IPv4) */
#define E3FRAME_MAX_PAYLOAD (E3FRAME_MAX_DATAGRAM - E3FRAME_HDR_LEN) /* bytes after the header */
#define E3FRAME_REQUEST_ID_OFF 12  /* byte offset of the request id in the header */

#define E3FRAME_TYPE_REQUEST 1
#define E3FRAME_TYPE_REPLY 2
#define E3FRAME_TYPE_REPLICATE 3
#define E3FRAME_STATUS_OK 0
#define E3FRAME_STATUS_ERROR 1

/* One frame header, host byte order. */
typedef struct e3frame_hdr {
    uint8_t type;         /* E3FRAME_TYPE_* */
    uint8_t status;       /* E3FRAME_STATUS_* (a reply: anything but 0 is an error) */
    uint32_t instance_id; /* target instance (0: the instance on the port, for the loadgen) */
    uint64_t request_id;  /* matches a reply to its request */
} e3frame_hdr;

/* Write the low `bytes` bytes of `v` at `p`, most significant first. */
static inline void e3frame_put_be(uint8_t *p, uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* Read `bytes` bytes at `p` as a big-endian unsigned integer. */
static inline uint64_t e3frame_get_be(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

/* Write header `h` into `out` (E3FRAME_HDR_LEN bytes); the magic and the zero field are filled
 * in here. */
static inline void e3frame_hdr_pack(const e3frame_hdr *h, uint8_t *out) {
    e3frame_put_be(out, E3FRAME_MAGIC, 4);
    out[4] = h->type;
    out[5] = h->status;
    e3frame_put_be(out + 6, 0, 2);
    e3frame_put_be(out + 8, h->instance_id, 4);
    e3frame_put_be(out + E3FRAME_REQUEST_ID_OFF, h->request_id, 8);
}

/* Read a header from `buf` (`len` bytes) into `h`. E3FRAME_ERR (h untouched) if `len` is under
 * E3FRAME_HDR_LEN or the magic is wrong; type, status and the zero field are not checked. */
static inline int e3frame_hdr_unpack(const uint8_t *buf, size_t len, e3frame_hdr *h) {
    if (len < E3FRAME_HDR_LEN || e3frame_get_be(buf, 4) != E3FRAME_MAGIC) return E3FRAME_ERR;
    h->type = buf[4];
    h->status = buf[5];
    h->instance_id = (uint32_t)e3frame_get_be(buf + 8, 4);
    h->request_id = e3frame_get_be(buf + E3FRAME_REQUEST_ID_OFF, 8);
    return E3FRAME_OK;
}

/* Overwrite the request id of an already packed header `hdr` (to resend a template). */
static inline void e3frame_hdr_set_request_id(uint8_t *hdr, uint64_t request_id) {
    e3frame_put_be(hdr + E3FRAME_REQUEST_ID_OFF, request_id, 8);
}

#endif
