/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chan: the local channel (a thin adapter over eng_submit) and the UDP channel/node.
 *
 * UDP node: one non-blocking socket shared by every channel opened on the node and by the
 * replies the node sends for requests it served; sendmsg on a UDP socket is thread-safe, so
 * engine workers send replies directly. Requests awaiting a remote reply sit in a small hash
 * table keyed by request id (mutex-protected); the receive thread completes them.
 */
#include "chan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "e3svc/errbuf.h"

#define CHAN_PENDING_BUCKETS 256 /* hash buckets of the pending-reply table */

E3_DEFINE_SET_ERROR(chan_set_error, CHAN_ERRBUF_LEN, CHAN_ERR)

int chan_send(chan *c, uint32_t instance_id, const uint8_t *req, size_t len, chan_reply_fn reply,
              void *ctx, char *err) {
    return c->ops->send(c, instance_id, req, len, reply, ctx, err);
}

void chan_close(chan *c) {
    if (c) c->ops->close(c);
}

/* ---- local channel ---------------------------------------------------------------------- */

typedef struct chan_local {
    chan base; /* must be first */
    eng *e;    /* the co-located engine */
} chan_local;

int chan_eng_deliver(void *sink, uint32_t instance_id, const uint8_t *req, size_t len,
                     chan_reply_fn reply, void *reply_ctx, char *err) {
    /* eng_reply_fn and chan_reply_fn are the same type; ENG_OK/ENG_ERR == CHAN_OK/CHAN_ERR */
    return eng_submit(sink, instance_id, req, len, reply, reply_ctx, err) == ENG_OK ? CHAN_OK : CHAN_ERR;
}

static int chan_local_send(chan *c, uint32_t instance_id, const uint8_t *req, size_t len,
                           chan_reply_fn reply, void *ctx, char *err) {
    return chan_eng_deliver(((chan_local *)c)->e, instance_id, req, len, reply, ctx, err);
}

static void chan_local_close(chan *c) {
    free(c);
}

static const chan_ops chan_local_ops = {.send = chan_local_send, .close = chan_local_close};

chan *chan_local_new(eng *e, char *err) {
    chan_local *c = calloc(1, sizeof(*c));
    if (!c) {
        chan_set_error(err, "chan: out of memory");
        return NULL;
    }
    c->base.ops = &chan_local_ops;
    c->e = e;
    return &c->base;
}

/* ---- UDP node --------------------------------------------------------------------------- */

typedef struct chan_pending {
    uint64_t id;               /* request id */
    uint64_t sent_ns;          /* CLOCK_MONOTONIC when sent, ns (for the reply timeout) */
    chan_reply_fn reply;       /* sender's callback */
    void *ctx;                 /* passed to reply */
    struct chan_pending *next; /* bucket chain */
} chan_pending;

struct chan_udp_node {
    const chan_io *io;               /* NULL: the kernel socket below */
    void *io_ctx;                    /* passed to io->xmit */
    uint64_t last_sweep_ns;          /* io nodes: when chan_udp_node_sweep last expired */
    int fd;                          /* the UDP socket, non-blocking (-1 for io nodes) */
    int wake[2];                     /* pipe: a byte in wake[1] stops the receive thread */
    pthread_t rx;                    /* receive thread */
    int rx_started;                  /* 1 once rx runs */
    uint16_t port;                   /* bound port, host order */
    chan_deliver_fn deliver;         /* where arriving requests go (may be NULL) */
    void *sink;                      /* passed to deliver */
    _Atomic(chan_deliver_fn) replicate; /* where replicate frames go (NULL: refused) */
    _Atomic(void *) replicate_sink;  /* passed to replicate (stored before it) */
    pthread_mutex_t lock;            /* guards pending */
    chan_pending *pending[CHAN_PENDING_BUCKETS]; /* requests awaiting a remote reply */
    atomic_uint_fast64_t next_id;    /* request id generator */
    atomic_uint_fast64_t serving;    /* requests delivered to the sink, reply not yet sent */
    atomic_uint timeout_ms;          /* fail pending requests older than this, ms (0: never) */
    atomic_uint_fast64_t rx_bytes, rx_packets, tx_bytes, tx_packets, dropped; /* counters */
};

typedef struct chan_udp {
    chan base;               /* must be first */
    chan_udp_node *n;        /* owning node */
    struct sockaddr_in peer; /* destination node */
} chan_udp;

typedef struct chan_srv_reply {
    chan_udp_node *n;       /* node that received the request */
    struct sockaddr_in src; /* where the request came from */
    uint32_t instance_id;   /* echoed back */
    uint64_t request_id;    /* echoed back */
} chan_srv_reply;

/* Send one framed datagram. Returns CHAN_OK, or CHAN_ERR when the socket refuses it. */
static int chan_udp_xmit(chan_udp_node *n, const struct sockaddr_in *to, uint8_t type, uint8_t status,
                         uint32_t instance_id, uint64_t request_id, const uint8_t *payload, size_t len) {
    uint8_t hdr[CHAN_HDR_LEN];
    e3frame_hdr_pack(&(e3frame_hdr){.type = type, .status = status, .instance_id = instance_id,
                                    .request_id = request_id},
                     hdr);
    if (n->io) {
        if (n->io->xmit(n->io_ctx, n->port, to, hdr, sizeof(hdr), payload, len) != CHAN_OK) {
            atomic_fetch_add(&n->dropped, 1);
            return CHAN_ERR;
        }
        atomic_fetch_add(&n->tx_packets, 1);
        atomic_fetch_add(&n->tx_bytes, (uint64_t)(sizeof(hdr) + len));
        return CHAN_OK;
    }
    struct iovec iov[2] = {{.iov_base = hdr, .iov_len = sizeof(hdr)},
                           {.iov_base = (void *)payload, .iov_len = len}};
    struct msghdr msg = {.msg_name = (void *)to, .msg_namelen = sizeof(*to), .msg_iov = iov,
                         .msg_iovlen = len ? 2 : 1};
    ssize_t sent;
    do sent = sendmsg(n->fd, &msg, 0);
    while (sent < 0 && errno == EINTR);
    if (sent != (ssize_t)(sizeof(hdr) + len)) {
        atomic_fetch_add(&n->dropped, 1);
        return CHAN_ERR;
    }
    atomic_fetch_add(&n->tx_packets, 1);
    atomic_fetch_add(&n->tx_bytes, (uint64_t)sent);
    return CHAN_OK;
}

/* Engine-side reply to a request that arrived over UDP: send it back to the source. */
static void chan_srv_reply_fn(void *ctx, int status, const uint8_t *resp, size_t len) {
    chan_srv_reply *r = ctx;
    chan_udp_node *n = r->n;
    if (len > CHAN_MAX_PAYLOAD) len = CHAN_MAX_PAYLOAD; /* cannot happen: SVC_MAX_RESPONSE fits */
    uint8_t st = status == CHAN_OK ? E3FRAME_STATUS_OK : E3FRAME_STATUS_ERROR;
    chan_udp_xmit(n, &r->src, E3FRAME_TYPE_REPLY, st, r->instance_id, r->request_id, resp, len);
    free(r);
    atomic_fetch_sub(&n->serving, 1);
}

static chan_pending *chan_pending_take(chan_udp_node *n, uint64_t id) {
    pthread_mutex_lock(&n->lock);
    chan_pending **pp = &n->pending[id % CHAN_PENDING_BUCKETS], *p;
    while ((p = *pp) && p->id != id) pp = &p->next;
    if (p) *pp = p->next;
    pthread_mutex_unlock(&n->lock);
    return p;
}

static void chan_udp_on_datagram(chan_udp_node *n, const uint8_t *buf, size_t len,
                                 const struct sockaddr_in *src) {
    e3frame_hdr h;
    if (e3frame_hdr_unpack(buf, len, &h) != E3FRAME_OK) {
        atomic_fetch_add(&n->dropped, 1);
        return;
    }
    const uint8_t *payload = buf + CHAN_HDR_LEN;
    size_t plen = len - CHAN_HDR_LEN;
    if (h.type == E3FRAME_TYPE_REPLY) {
        chan_pending *p = chan_pending_take(n, h.request_id);
        if (!p) {
            atomic_fetch_add(&n->dropped, 1);
            return;
        }
        p->reply(p->ctx, h.status == E3FRAME_STATUS_OK ? CHAN_OK : CHAN_ERR, payload, plen);
        free(p);
        return;
    }
    if (h.type != E3FRAME_TYPE_REQUEST && h.type != E3FRAME_TYPE_REPLICATE) {
        atomic_fetch_add(&n->dropped, 1);
        return;
    }
    chan_deliver_fn deliver = n->deliver;
    void *sink = n->sink;
    char err[CHAN_ERRBUF_LEN] = "chan: this node serves no instances";
    if (h.type == E3FRAME_TYPE_REPLICATE) {
        deliver = atomic_load(&n->replicate);
        sink = atomic_load(&n->replicate_sink);
        snprintf(err, sizeof(err), "chan: this node takes no replication");
    }
    chan_srv_reply *r = malloc(sizeof(*r));
    if (!r) {
        snprintf(err, sizeof(err), "chan: out of memory");
        goto err;
    }
    *r = (chan_srv_reply){.n = n, .src = *src, .instance_id = h.instance_id, .request_id = h.request_id};
    if (!deliver) goto err;
    atomic_fetch_add(&n->serving, 1);
    if (deliver(sink, h.instance_id, payload, plen, chan_srv_reply_fn, r, err) == CHAN_OK) return;
    atomic_fetch_sub(&n->serving, 1);
err:
    free(r);
    chan_udp_xmit(n, src, E3FRAME_TYPE_REPLY, E3FRAME_STATUS_ERROR, h.instance_id, h.request_id,
                  (const uint8_t *)err, strlen(err));
}

static uint64_t chan_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Fail every pending request sent more than `timeout_ms` ago. Callbacks run outside the lock
 * (they may send again on this node). Receive thread only. */
static void chan_udp_expire(chan_udp_node *n, unsigned timeout_ms) {
    uint64_t cutoff = chan_now_ns() - (uint64_t)timeout_ms * 1000000ull;
    chan_pending *expired = NULL;
    pthread_mutex_lock(&n->lock);
    for (size_t b = 0; b < CHAN_PENDING_BUCKETS; b++) {
        chan_pending **pp = &n->pending[b], *p;
        while ((p = *pp)) {
            if (p->sent_ns > cutoff) {
                pp = &p->next;
                continue;
            }
            *pp = p->next;
            p->next = expired;
            expired = p;
        }
    }
    pthread_mutex_unlock(&n->lock);
    while (expired) {
        chan_pending *next = expired->next;
        char msg[64];
        int len = snprintf(msg, sizeof(msg), "chan: no reply within %u ms", timeout_ms);
        atomic_fetch_add(&n->dropped, 1);
        expired->reply(expired->ctx, CHAN_ERR, (const uint8_t *)msg, (size_t)len);
        free(expired);
        expired = next;
    }
}

/* How often a receive loop sweeps for `timeout_ms`: a few times per period, 10..250 ms. */
static int chan_sweep_interval_ms(unsigned timeout_ms) {
    return timeout_ms / 4 < 10 ? 10 : timeout_ms / 4 > 250 ? 250 : (int)(timeout_ms / 4);
}

void chan_udp_node_input(chan_udp_node *n, const uint8_t *buf, size_t len, const struct sockaddr_in *src) {
    atomic_fetch_add(&n->rx_packets, 1);
    atomic_fetch_add(&n->rx_bytes, (uint64_t)len);
    chan_udp_on_datagram(n, buf, len, src);
}

void chan_udp_node_sweep(chan_udp_node *n) {
    unsigned timeout_ms = atomic_load(&n->timeout_ms);
    if (!timeout_ms) return;
    uint64_t now = chan_now_ns();
    if (now - n->last_sweep_ns < (uint64_t)chan_sweep_interval_ms(timeout_ms) * 1000000ull) return;
    chan_udp_expire(n, timeout_ms);
    n->last_sweep_ns = now;
}

static void *chan_udp_rx_main(void *arg) {
    chan_udp_node *n = arg;
    uint8_t *buf = malloc(65536);
    if (!buf) return NULL;
    uint64_t last_sweep = chan_now_ns();
    for (;;) {
        struct pollfd pfd[2] = {{.fd = n->fd, .events = POLLIN}, {.fd = n->wake[0], .events = POLLIN}};
        unsigned timeout_ms = atomic_load(&n->timeout_ms);
        /* With a timeout, wake up a few times per timeout period to sweep (10..250 ms). */
        int wait_ms = timeout_ms ? chan_sweep_interval_ms(timeout_ms) : -1;
        if (timeout_ms && chan_now_ns() - last_sweep >= (uint64_t)wait_ms * 1000000ull) {
            chan_udp_expire(n, timeout_ms);
            last_sweep = chan_now_ns();
        }
        if (poll(pfd, 2, wait_ms) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (pfd[1].revents) break;
        for (;;) {
            struct sockaddr_in src;
            socklen_t slen = sizeof(src);
            ssize_t got = recvfrom(n->fd, buf, 65536, 0, (struct sockaddr *)&src, &slen);
            if (got < 0) break; /* EAGAIN: drained (errors other than EINTR: poll again) */
            chan_udp_node_input(n, buf, (size_t)got, &src);
        }
    }
    free(buf);
    return NULL;
}

static int chan_parse_addr(const char *ip, uint16_t port, struct sockaddr_in *out, char *err) {
    memset(out, 0, sizeof(*out));
    out->sin_family = AF_INET;
    out->sin_port = htons(port);
    if (inet_pton(AF_INET, ip ? ip : "0.0.0.0", &out->sin_addr) != 1)
        return chan_set_error(err, "chan: bad IPv4 address \"%s\"", ip ? ip : "");
    return CHAN_OK;
}

/* A node with no transport yet (fd -1, no thread). NULL with `err` on failure. */
static chan_udp_node *chan_udp_node_alloc(chan_deliver_fn deliver, void *sink, char *err) {
    chan_udp_node *n = calloc(1, sizeof(*n));
    if (!n) {
        chan_set_error(err, "chan: out of memory");
        return NULL;
    }
    n->fd = n->wake[0] = n->wake[1] = -1;
    n->deliver = deliver;
    n->sink = sink;
    atomic_init(&n->next_id, 1);
    if (pthread_mutex_init(&n->lock, NULL) != 0) {
        chan_set_error(err, "chan: cannot create lock");
        free(n);
        return NULL;
    }
    return n;
}

chan_udp_node *chan_udp_node_new_io(const chan_io *io, void *io_ctx, uint16_t port, chan_deliver_fn deliver,
                                    void *sink, char *err) {
    if (!io || !io->xmit || port == 0) {
        chan_set_error(err, "chan: an io node needs a transport and a port");
        return NULL;
    }
    chan_udp_node *n = chan_udp_node_alloc(deliver, sink, err);
    if (!n) return NULL;
    n->io = io;
    n->io_ctx = io_ctx;
    n->port = port;
    n->last_sweep_ns = chan_now_ns();
    return n;
}

chan_udp_node *chan_udp_node_new(const char *bind_ip, uint16_t port, chan_deliver_fn deliver,
                                 void *sink, char *err) {
    struct sockaddr_in addr;
    if (chan_parse_addr(bind_ip, port, &addr, err) != CHAN_OK) return NULL;
    chan_udp_node *n = chan_udp_node_alloc(deliver, sink, err);
    if (!n) return NULL;
    n->fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (n->fd < 0 || fcntl(n->fd, F_SETFL, fcntl(n->fd, F_GETFL) | O_NONBLOCK) != 0) {
        chan_set_error(err, "chan: socket: %s", strerror(errno));
        goto err;
    }
    int sz = 4 << 20; /* bytes; best effort, the kernel caps it */
    setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    setsockopt(n->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    if (bind(n->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        chan_set_error(err, "chan: bind %s:%u: %s", bind_ip ? bind_ip : "0.0.0.0", port, strerror(errno));
        goto err;
    }
    socklen_t alen = sizeof(addr);
    getsockname(n->fd, (struct sockaddr *)&addr, &alen);
    n->port = ntohs(addr.sin_port);
    if (pipe(n->wake) != 0) {
        chan_set_error(err, "chan: pipe: %s", strerror(errno));
        goto err;
    }
    if (pthread_create(&n->rx, NULL, chan_udp_rx_main, n) != 0) {
        chan_set_error(err, "chan: cannot start the receive thread");
        goto err;
    }
    n->rx_started = 1;
    return n;
err:
    if (n->fd >= 0) close(n->fd);
    if (n->wake[0] >= 0) close(n->wake[0]);
    if (n->wake[1] >= 0) close(n->wake[1]);
    pthread_mutex_destroy(&n->lock);
    free(n);
    return NULL;
}

void chan_udp_node_set_replicate(chan_udp_node *n, chan_deliver_fn deliver, void *sink) {
    atomic_store(&n->replicate_sink, sink);
    atomic_store(&n->replicate, deliver);
}

void chan_udp_node_set_timeout(chan_udp_node *n, uint32_t timeout_ms) {
    atomic_store(&n->timeout_ms, timeout_ms);
}

uint16_t chan_udp_node_port(const chan_udp_node *n) {
    return n->port;
}

void chan_udp_node_counters(chan_udp_node *n, chan_counters *out) {
    out->rx_bytes = atomic_load(&n->rx_bytes);
    out->rx_packets = atomic_load(&n->rx_packets);
    out->tx_bytes = atomic_load(&n->tx_bytes);
    out->tx_packets = atomic_load(&n->tx_packets);
    out->dropped = atomic_load(&n->dropped);
}

void chan_udp_node_free(chan_udp_node *n) {
    if (!n) return;
    if (n->rx_started) {
        ssize_t w;
        do w = write(n->wake[1], "x", 1);
        while (w < 0 && errno == EINTR);
        pthread_join(n->rx, NULL);
    }
    while (atomic_load(&n->serving) != 0) sched_yield(); /* the engine still replies */
    for (size_t b = 0; b < CHAN_PENDING_BUCKETS; b++) {
        chan_pending *p = n->pending[b];
        while (p) {
            chan_pending *next = p->next;
            static const char msg[] = "chan: node closed before the reply arrived";
            p->reply(p->ctx, CHAN_ERR, (const uint8_t *)msg, sizeof(msg) - 1);
            free(p);
            p = next;
        }
    }
    if (n->fd >= 0) close(n->fd);
    if (n->wake[0] >= 0) close(n->wake[0]);
    if (n->wake[1] >= 0) close(n->wake[1]);
    pthread_mutex_destroy(&n->lock);
    free(n);
}

/* ---- chan_net: the kernel's sockets ------------------------------------------------------ */

static chan_udp_node *chan_net_kernel_node_new(chan_net *net, const char *bind_ip, uint16_t port,
                                               chan_deliver_fn deliver, void *sink, char *err) {
    (void)net;
    return chan_udp_node_new(bind_ip, port, deliver, sink, err);
}

static void chan_net_kernel_node_free(chan_net *net, chan_udp_node *n) {
    (void)net;
    chan_udp_node_free(n);
}

chan_net *chan_net_kernel(void) {
    static chan_net kernel = {.node_new = chan_net_kernel_node_new, .node_free = chan_net_kernel_node_free};
    return &kernel;
}

chan_udp_node *chan_net_node_new(chan_net *net, const char *bind_ip, uint16_t port, chan_deliver_fn deliver,
                                 void *sink, char *err) {
    if (!net) net = chan_net_kernel();
    return net->node_new(net, bind_ip, port, deliver, sink, err);
}

void chan_net_node_free(chan_net *net, chan_udp_node *n) {
    if (!n) return;
    if (!net) net = chan_net_kernel();
    net->node_free(net, n);
}

/* ---- UDP channel ------------------------------------------------------------------------ */

/* Send a request or replicate frame and register its reply callback. */
static int chan_udp_send_type(chan *c, uint8_t type, uint32_t instance_id, const uint8_t *req, size_t len,
                              chan_reply_fn reply, void *ctx, char *err) {
    chan_udp *u = (chan_udp *)c;
    chan_udp_node *n = u->n;
    if (len > CHAN_MAX_PAYLOAD) return chan_set_error(err, "chan: request of %zu bytes exceeds one datagram", len);
    chan_pending *p = malloc(sizeof(*p));
    if (!p) return chan_set_error(err, "chan: out of memory");
    p->id = atomic_fetch_add(&n->next_id, 1);
    p->sent_ns = chan_now_ns();
    p->reply = reply;
    p->ctx = ctx;
    uint64_t id = p->id;
    pthread_mutex_lock(&n->lock); /* register first: the reply may beat sendmsg's return */
    p->next = n->pending[id % CHAN_PENDING_BUCKETS];
    n->pending[id % CHAN_PENDING_BUCKETS] = p;
    pthread_mutex_unlock(&n->lock);
    if (chan_udp_xmit(n, &u->peer, type, E3FRAME_STATUS_OK, instance_id, id, req, len) == CHAN_OK) return CHAN_OK;
    int saved = errno;
    free(chan_pending_take(n, id));
    return chan_set_error(err, "chan: send failed: %s", strerror(saved));
}

static int chan_udp_send(chan *c, uint32_t instance_id, const uint8_t *req, size_t len,
                         chan_reply_fn reply, void *ctx, char *err) {
    return chan_udp_send_type(c, E3FRAME_TYPE_REQUEST, instance_id, req, len, reply, ctx, err);
}

int chan_udp_replicate(chan *c, uint32_t instance_id, const uint8_t *payload, size_t len, chan_reply_fn reply,
                       void *ctx, char *err) {
    return chan_udp_send_type(c, E3FRAME_TYPE_REPLICATE, instance_id, payload, len, reply, ctx, err);
}

static void chan_udp_close(chan *c) {
    free(c);
}

static const chan_ops chan_udp_ops = {.send = chan_udp_send, .close = chan_udp_close};

chan *chan_udp_open(chan_udp_node *n, const char *peer_ip, uint16_t peer_port, char *err) {
    chan_udp *u = calloc(1, sizeof(*u));
    if (!u) {
        chan_set_error(err, "chan: out of memory");
        return NULL;
    }
    if (chan_parse_addr(peer_ip, peer_port, &u->peer, err) != CHAN_OK) {
        free(u);
        return NULL;
    }
    u->base.ops = &chan_udp_ops;
    u->n = n;
    return &u->base;
}
