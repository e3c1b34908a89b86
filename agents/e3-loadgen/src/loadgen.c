/* SPDX-License-Identifier: Apache-2.0 */
/* loadgen: one-thread UDP load engine (design and contract in loadgen.h). */
#include "loadgen.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define LG_SOCKBUF (4 << 20)     /* bytes asked for each socket buffer: absorbs open-loop bursts */
#define LG_BURST 256             /* sends or receives per pass, so neither starves the other */
#define LG_RETRY_NS 1000000ull   /* closed loop: wait at most this before retrying a refused send */

static int set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_error(char *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, LG_ERRBUF_LEN, fmt, ap);
        va_end(ap);
    }
    return LG_ERR;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void lg_hdr_encode(const lg_hdr *h, uint8_t *out) {
    e3frame_hdr_pack(h, out);
}

int lg_hdr_decode(const uint8_t *buf, size_t len, lg_hdr *h) {
    return e3frame_hdr_unpack(buf, len, h) == E3FRAME_OK ? LG_OK : LG_ERR;
}

int lg_resolve(const char *host, uint16_t port, lg_addr *out, char *err) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res = NULL;
    char service[8];
    snprintf(service, sizeof(service), "%u", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0) return set_error(err, "--target: cannot resolve \"%s\": %s", host, gai_strerror(rc));
    memcpy(&out->sa, res->ai_addr, res->ai_addrlen);
    out->len = res->ai_addrlen;
    freeaddrinfo(res);
    return LG_OK;
}

/* ---- requests in flight: a ring indexed by request id ---------------------------------------- */

typedef struct pend {
    uint64_t t_ns;    /* actual send time, CLOCK_MONOTONIC ns */
    uint8_t done;     /* 1 once answered (it leaves the ring when it reaches the head) */
    uint8_t measured; /* 1 if sent inside the measured window */
} pend;

/* Ids [head, next) are in flight or answered-but-not-yet-popped, at e[id & (cap - 1)]. */
typedef struct ring {
    pend *e;
    size_t cap; /* entries, a power of two */
    uint64_t head, next;
} ring;

static int ring_push(ring *r, uint64_t t_ns, int measured) {
    if (r->next - r->head == r->cap) { /* full: double, re-placing every id under the new mask */
        size_t cap = r->cap ? r->cap * 2 : 1024;
        pend *e = malloc(cap * sizeof(*e));
        if (!e) return LG_ERR;
        for (uint64_t id = r->head; id < r->next; id++) e[id & (cap - 1)] = r->e[id & (r->cap - 1)];
        free(r->e);
        r->e = e;
        r->cap = cap;
    }
    r->e[r->next & (r->cap - 1)] = (pend){.t_ns = t_ns, .done = 0, .measured = (uint8_t)measured};
    r->next++;
    return LG_OK;
}

/* ---- one run ------------------------------------------------------------------------------ */

typedef struct run {
    const lg_config *cfg;
    lg_result *res;
    int fd;            /* connected, non-blocking */
    uint8_t *tx;       /* header + payload; only the request id (and {seq}) changes between sends */
    size_t tx_len;     /* bytes */
    size_t seq_at;     /* offset of LG_SEQ_MARK in the payload, or SIZE_MAX: none */
    uint8_t *rx;       /* one datagram */
    ring r;            /* requests in flight */
    lg_stats lat;      /* latencies of measured ok replies */
    lg_stats lag;      /* open loop: send lateness of measured sends */
    uint64_t t_warm;   /* start of the measured window, ns */
    uint64_t t_end;    /* its end, ns */
    uint64_t timeout;  /* ns */
    uint64_t owed;     /* closed loop: replacements not yet sent */
    int oom;           /* a latency sample could not be stored */
} run;

static int in_window(const run *s, uint64_t t) { return t >= s->t_warm && t < s->t_end; }

/* Write the payload with `seq` in place of LG_SEQ_MARK after the header. */
static void put_seq(run *s, uint64_t seq) {
    const lg_config *c = s->cfg;
    size_t tail = c->payload_len - s->seq_at - LG_SEQ_MARK_LEN;
    uint8_t *at = s->tx + LG_HDR_LEN + s->seq_at;
    int n = snprintf((char *)at, 21, "%" PRIu64, seq);
    memcpy(at + n, c->payload + s->seq_at + LG_SEQ_MARK_LEN, tail);
    s->tx_len = LG_HDR_LEN + s->seq_at + (size_t)n + tail;
}

/* Send request `r.next`, due at `t_sched` (the window it counts in). LG_ERR if the kernel
 * refused it (counted). */
static int send_one(run *s, uint64_t t_sched) {
    int measured = in_window(s, t_sched);
    if (measured) s->res->offered++;
    e3frame_hdr_set_request_id(s->tx, s->r.next);
    if (s->seq_at != SIZE_MAX) put_seq(s, s->r.next);
    uint64_t now = now_ns();
    if (measured && s->cfg->mode == LG_MODE_OPEN && lg_stats_add(&s->lag, now - t_sched) != LG_STATS_OK) s->oom = 1;
    ssize_t n = send(s->fd, s->tx, s->tx_len, 0);
    if (n != (ssize_t)s->tx_len) {
        /* EAGAIN (buffer full) or ECONNREFUSED (an earlier datagram drew an ICMP "port
         * unreachable"; reporting it clears it): either way this request never left. */
        if (measured) s->res->send_failures++;
        return LG_ERR;
    }
    if (ring_push(&s->r, now, measured) != LG_OK) {
        s->oom = 1;
        return LG_ERR;
    }
    if (measured) s->res->sent++;
    return LG_OK;
}

/* A request left the ring with an outcome: in a closed loop its place is taken at once. */
static void replace(run *s, uint64_t now) {
    if (s->cfg->mode == LG_MODE_CLOSED && now < s->t_end) s->owed++;
}

static void on_reply(run *s, const lg_hdr *h, uint64_t now) {
    s->res->answered++;
    uint64_t id = h->request_id;
    if (id < s->r.head || id >= s->r.next) { /* timed out already (or a stray duplicate) */
        s->res->late_replies++;
        return;
    }
    pend *p = &s->r.e[id & (s->r.cap - 1)];
    if (p->done) {
        s->res->late_replies++;
        return;
    }
    p->done = 1;
    if (p->measured) {
        if (h->status == LG_STATUS_OK) {
            s->res->completed++;
            if (lg_stats_add(&s->lat, now > p->t_ns ? now - p->t_ns : 0) != LG_STATS_OK) s->oom = 1;
        } else {
            s->res->errors++;
        }
    }
    replace(s, now);
}

/* Read every datagram waiting (up to a burst). */
static void receive(run *s) {
    for (int i = 0; i < LG_BURST; i++) {
        ssize_t n = recv(s->fd, s->rx, LG_HDR_LEN + LG_MAX_PAYLOAD, 0);
        if (n < 0) {
            if (errno == EINTR || errno == ECONNREFUSED) continue; /* ICMP of an earlier send */
            return;                                                /* EAGAIN: drained */
        }
        uint64_t now = now_ns();
        lg_hdr h;
        if (lg_hdr_decode(s->rx, (size_t)n, &h) != LG_OK || h.type != LG_TYPE_REPLY) continue;
        on_reply(s, &h, now);
    }
}

/* Pop answered requests from the head, and those older than the timeout as timeouts. */
static void expire(run *s, uint64_t now) {
    while (s->r.head < s->r.next) {
        pend *p = &s->r.e[s->r.head & (s->r.cap - 1)];
        if (!p->done) {
            if (now - p->t_ns < s->timeout) break; /* sends are in time order: the rest are younger */
            if (p->measured) s->res->timeouts++;
            replace(s, now);
        }
        s->r.head++;
    }
}

static int open_socket(run *s, char *err) {
    const lg_addr *t = &s->cfg->target;
    s->fd = socket(t->sa.ss_family, SOCK_DGRAM, 0);
    if (s->fd < 0) return set_error(err, "socket: %s", strerror(errno));
    int buf = LG_SOCKBUF; /* best effort: the kernel caps it at net.core.[rw]mem_max */
    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
    setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
    int fl = fcntl(s->fd, F_GETFL);
    if (fl < 0 || fcntl(s->fd, F_SETFL, fl | O_NONBLOCK) < 0) return set_error(err, "fcntl: %s", strerror(errno));
    /* Connected: the kernel drops datagrams from anyone but the target. */
    if (connect(s->fd, (const struct sockaddr *)&t->sa, t->len) < 0)
        return set_error(err, "connect: %s", strerror(errno));
    return LG_OK;
}

size_t lg_seq_mark(const uint8_t *payload, size_t len) {
    for (size_t i = 0; i + LG_SEQ_MARK_LEN <= len; i++)
        if (memcmp(payload + i, LG_SEQ_MARK, LG_SEQ_MARK_LEN) == 0) return i;
    return SIZE_MAX;
}

int lg_run(const lg_config *cfg, lg_result *out, char *err) {
    memset(out, 0, sizeof(*out));
    if (cfg->payload_len > LG_MAX_PAYLOAD) return set_error(err, "payload of %zu bytes does not fit a datagram", cfg->payload_len);
    if (cfg->mode == LG_MODE_OPEN && !(cfg->rate > 0)) return set_error(err, "open loop needs a rate > 0");
    if (cfg->mode == LG_MODE_CLOSED && cfg->connections == 0) return set_error(err, "closed loop needs connections > 0");

    run s = {.cfg = cfg, .res = out, .fd = -1, .timeout = (uint64_t)cfg->timeout_ms * 1000000ull};
    lg_stats_init(&s.lat);
    lg_stats_init(&s.lag);
    int rc = LG_ERR;
    s.tx_len = LG_HDR_LEN + cfg->payload_len;
    s.seq_at = lg_seq_mark(cfg->payload, cfg->payload_len);
    if (s.seq_at != SIZE_MAX && cfg->payload_len - LG_SEQ_MARK_LEN + 20 > LG_MAX_PAYLOAD)
        return set_error(err, "payload of %zu bytes with a 20-digit %s does not fit a datagram", cfg->payload_len,
                         LG_SEQ_MARK);
    s.tx = malloc(LG_HDR_LEN + cfg->payload_len + 21); /* room for the number (and snprintf's NUL) */
    s.rx = malloc(LG_HDR_LEN + LG_MAX_PAYLOAD);
    if (!s.tx || !s.rx) {
        set_error(err, "out of memory");
        goto err;
    }
    lg_hdr_encode(&(lg_hdr){.type = LG_TYPE_REQUEST, .instance_id = cfg->instance_id}, s.tx);
    memcpy(s.tx + LG_HDR_LEN, cfg->payload, cfg->payload_len);
    s.r.head = s.r.next = 1;
    if (open_socket(&s, err) != LG_OK) goto err;

    uint64_t t0 = now_ns();
    s.t_warm = t0 + (uint64_t)(cfg->warmup_s * 1e9);
    s.t_end = s.t_warm + (uint64_t)(cfg->duration_s * 1e9);
    double gap_ns = cfg->mode == LG_MODE_OPEN ? 1e9 / cfg->rate : 0; /* open loop: fixed interval */
    uint64_t k = 0;                                                    /* open loop: next send's index */
    if (cfg->mode == LG_MODE_CLOSED) s.owed = cfg->connections;

    for (;;) {
        uint64_t now = now_ns();
        if (cfg->mode == LG_MODE_OPEN) {
            for (int i = 0; i < LG_BURST; i++) {
                uint64_t t = t0 + (uint64_t)(k * gap_ns);
                if (t > now || t >= s.t_end) break;
                send_one(&s, t); /* a refused send is counted, not retried: the schedule goes on */
                k++;
            }
        } else {
            while (s.owed > 0 && now < s.t_end && send_one(&s, now) == LG_OK) s.owed--;
        }
        if (s.oom) {
            set_error(err, "out of memory");
            goto err;
        }
        receive(&s);
        now = now_ns();
        expire(&s, now);

        int sending = cfg->mode == LG_MODE_OPEN ? t0 + (uint64_t)(k * gap_ns) < s.t_end : now < s.t_end;
        if (!sending && s.r.head == s.r.next) break; /* window over, nothing in flight */

        /* Sleep until a reply comes or the next thing is due: a send, a timeout, the window end. */
        uint64_t due = UINT64_MAX;
        if (cfg->mode == LG_MODE_OPEN && sending) due = t0 + (uint64_t)(k * gap_ns);
        if (cfg->mode == LG_MODE_CLOSED && sending) due = s.owed ? now + LG_RETRY_NS : s.t_end;
        if (s.r.head < s.r.next) {
            uint64_t t = s.r.e[s.r.head & (s.r.cap - 1)].t_ns + s.timeout;
            if (t < due) due = t;
        }
        uint64_t wait = due > now ? due - now : 0;
        struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
        fd_set rd, wr;
        FD_ZERO(&rd);
        FD_ZERO(&wr);
        FD_SET(s.fd, &rd);
        if (s.owed) FD_SET(s.fd, &wr); /* a refused closed-loop send: retry when there is room */
        if (pselect(s.fd + 1, &rd, &wr, NULL, &ts, NULL) < 0 && errno != EINTR) {
            set_error(err, "pselect: %s", strerror(errno));
            goto err;
        }
    }

    out->duration_s = cfg->duration_s;
    out->throughput_rps = cfg->duration_s > 0 ? out->completed / cfg->duration_s : 0;
    lg_stats_summarize(&s.lat, &out->latency);
    lg_stats_summarize(&s.lag, &out->send_lag);
    rc = LG_OK;
err:
    if (s.fd >= 0) close(s.fd);
    lg_stats_free(&s.lat);
    lg_stats_free(&s.lag);
    free(s.r.e);
    free(s.tx);
    free(s.rx);
    return rc;
}
