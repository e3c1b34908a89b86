/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loadgen: the engine that sends requests to one E3 instance over UDP and times the replies.
 *
 * Framing: agents/e3-agent/include/e3frame.h, the header-only definition the agent's UDP channel
 * uses too, so the load generator still links nothing but libc (tests check it against the
 * agent's own UDP node):
 *   u32 magic "E3C1" | u8 type (1 request, 2 reply) | u8 status (0 ok, 1 error) | u16 zero |
 *   u32 instance id (0: the instance on that port) | u64 request id        (network byte order)
 *
 * One thread, one connected non-blocking UDP socket, pselect() for waiting (timespec precision,
 * where poll() would round an open loop's sub-millisecond gaps to whole milliseconds). Request
 * ids count up from 1; requests in flight sit in a ring indexed by id, oldest first, so a reply
 * is matched in O(1) and timeouts expire from the head in send order.
 *
 * Two loops:
 *   - closed: `connections` requests outstanding at all times; each reply, error reply or
 *     timeout is replaced at once by a new request;
 *   - open: requests at fixed intervals of 1/rate s whatever the replies. A late loop sends its
 *     backlog at once (the offered load stays the rate). Latency runs from the actual send; how
 *     late each send was against its schedule is reported apart (send_lag), so the generator's
 *     own stalls (a VM's timer wake-ups take ~0.1-1 ms) are visible but not charged to the target.
 * Timeline: warmup (sent, answered, not counted), then the measured window of `duration_s`.
 * A request belongs to the window its (scheduled) send time falls in. After the window no more
 * requests are sent; those in flight get up to `timeout_ms` to answer, then count as timeouts.
 */
#ifndef E3LOADGEN_LOADGEN_H
#define E3LOADGEN_LOADGEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "e3frame.h"
#include "stats.h"

#define LG_OK 0
#define LG_ERR -1
#define LG_ERRBUF_LEN 256                 /* size of the error buffers callers pass */
#define LG_HDR_LEN E3FRAME_HDR_LEN         /* bytes of framing header (20) */
#define LG_MAX_PAYLOAD E3FRAME_MAX_PAYLOAD /* bytes of request in one UDP datagram */
#define LG_SEQ_MARK "{seq}"                /* in a payload: replaced by the request's number (1, 2, ...) */
#define LG_SEQ_MARK_LEN 5
#define LG_TYPE_REQUEST E3FRAME_TYPE_REQUEST
#define LG_TYPE_REPLY E3FRAME_TYPE_REPLY
#define LG_STATUS_OK E3FRAME_STATUS_OK
#define LG_STATUS_ERROR E3FRAME_STATUS_ERROR

typedef enum lg_mode { LG_MODE_CLOSED = 0, LG_MODE_OPEN = 1 } lg_mode;

/* One frame header, host byte order: type (LG_TYPE_*), status (LG_STATUS_*), instance_id
 * (0: the instance on the port), request_id. */
typedef e3frame_hdr lg_hdr;

/* The target's address. */
typedef struct lg_addr {
    struct sockaddr_storage sa; /* IPv4 or IPv6 */
    socklen_t len;              /* bytes of sa in use */
} lg_addr;

/* One run. */
typedef struct lg_config {
    lg_addr target;         /* where requests go (lg_resolve) */
    lg_mode mode;           /* closed or open loop */
    unsigned connections;   /* closed loop: requests outstanding */
    double rate;            /* open loop: requests/s */
    double duration_s;      /* measured window, seconds */
    double warmup_s;        /* seconds before it, not counted */
    const uint8_t *payload; /* request bytes (after the header) */
    size_t payload_len;     /* bytes, at most LG_MAX_PAYLOAD */
    unsigned timeout_ms;    /* a request unanswered this long is a timeout */
    uint32_t instance_id;   /* the frame's instance id: 0 = the instance on the target port */
} lg_config;

/* What a run measured: counts are of requests whose send time falls in the measured window. */
typedef struct lg_result {
    uint64_t offered;       /* requests due: sent + send_failures (open loop: rate x window) */
    uint64_t sent;          /* datagrams handed to the kernel */
    uint64_t send_failures; /* sends the kernel refused (socket buffer full, ICMP unreachable) */
    uint64_t completed;     /* ok replies (status 0) */
    uint64_t errors;        /* error replies (status 1) */
    uint64_t timeouts;      /* no reply within timeout_ms */
    uint64_t late_replies;  /* replies after their request timed out, any window (ignored) */
    uint64_t answered;      /* replies of any kind over the whole run, warmup included */
    double duration_s;      /* the measured window, seconds */
    double throughput_rps;  /* completed / duration_s */
    lg_summary latency;     /* over the completed requests only (error replies excluded) */
    lg_summary send_lag;    /* open loop: actual send time - scheduled time, every measured send */
} lg_result;

/* Offset of the first LG_SEQ_MARK in `payload`, or SIZE_MAX. With one, every request carries its
 * own number there (the request id: 1, 2, ... in send order, warmup included), so each PUT of a
 * run can write its own key; only the first mark is replaced. */
size_t lg_seq_mark(const uint8_t *payload, size_t len);

/* Write the header `h` into `out` (LG_HDR_LEN bytes). */
void lg_hdr_encode(const lg_hdr *h, uint8_t *out);

/* Read a header from `buf` (`len` bytes). LG_ERR if too short or the magic is wrong. */
int lg_hdr_decode(const uint8_t *buf, size_t len, lg_hdr *h);

/* Resolve `host` (name or literal, IPv4 or IPv6) and `port` into `out`; LG_ERR with `err`. */
int lg_resolve(const char *host, uint16_t port, lg_addr *out, char *err);

/* Run one load: blocks for warmup + duration (+ up to timeout to collect the last replies).
 * LG_ERR with `err` only if it cannot run at all (socket, memory); a target that never answers
 * is a result with answered == 0, not an error. */
int lg_run(const lg_config *cfg, lg_result *out, char *err);

#endif
