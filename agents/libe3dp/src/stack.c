/* SPDX-License-Identifier: Apache-2.0 */
/* stack: see e3dp/stack.h. */
#include "e3dp/stack.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DP_PORTS 65536

struct dp_stack {
    chan_net net;                      /* must be first: dp_stack_net hands out &net */
    chan_io io;                        /* xmit for the io nodes */
    uint32_t ip;                       /* this stack's address, network order */
    struct rte_mempool *mp;            /* frame buffers */
    dp_tx_fn tx;                       /* owner's transmit */
    void *tx_ctx;                      /* passed to tx */
    pthread_rwlock_t lock;             /* guards nodes[] against node_free while feeding */
    chan_udp_node *nodes[DP_PORTS];    /* node bound on each port, or NULL */
    uint16_t bound[DP_PORTS];          /* the ports with a node, bound[0..n_bound): what sweeps visit */
    size_t n_bound;                    /* entries used in bound[] */
    uint32_t next_ephemeral;           /* where the next port-0 search starts */
    atomic_uint_fast64_t tx_dropped;   /* frames not sent */
};

static const uint8_t dp_zero_mac[6];

static int dp_xmit(void *io_ctx, uint16_t src_port, const struct sockaddr_in *to, const uint8_t *hdr, size_t hdr_len,
                   const uint8_t *payload, size_t len) {
    dp_stack *st = io_ctx;
    size_t plen = hdr_len + len;
    if (plen > DP_MAX_PAYLOAD) goto drop; /* one frame per datagram: no fragmentation */
    struct rte_mbuf *m = rte_pktmbuf_alloc(st->mp);
    if (!m) goto drop;
    uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(DP_HDRS_LEN + plen));
    if (!buf) {
        rte_pktmbuf_free(m);
        goto drop;
    }
    dp_write_udp(buf, dp_zero_mac, dp_zero_mac, st->ip, to->sin_addr.s_addr, src_port, ntohs(to->sin_port), plen);
    memcpy(buf + DP_HDRS_LEN, hdr, hdr_len);
    if (len) memcpy(buf + DP_HDRS_LEN + hdr_len, payload, len);
    if (st->tx(st->tx_ctx, m, to->sin_addr.s_addr) == DP_OK) return CHAN_OK;
    rte_pktmbuf_free(m);
drop:
    atomic_fetch_add(&st->tx_dropped, 1);
    return CHAN_ERR;
}

static chan_udp_node *dp_node_new(chan_net *net, const char *bind_ip, uint16_t port, chan_deliver_fn deliver,
                                  void *sink, char *err) {
    dp_stack *st = (dp_stack *)net;
    struct in_addr a;
    if (bind_ip && strcmp(bind_ip, "0.0.0.0") != 0 && (inet_pton(AF_INET, bind_ip, &a) != 1 || a.s_addr != st->ip)) {
        char mine[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &st->ip, mine, sizeof(mine));
        chan_set_error(err, "dp: cannot bind %s: this node's address is %s", bind_ip, mine);
        return NULL;
    }
    pthread_rwlock_wrlock(&st->lock);
    if (port == 0) {
        for (uint32_t i = 0; i < DP_PORTS - DP_EPHEMERAL_FIRST && !port; i++) {
            uint32_t p = DP_EPHEMERAL_FIRST + (st->next_ephemeral + i) % (DP_PORTS - DP_EPHEMERAL_FIRST);
            if (!st->nodes[p]) port = (uint16_t)p;
        }
        st->next_ephemeral = port ? port + 1u - DP_EPHEMERAL_FIRST : st->next_ephemeral;
    }
    chan_udp_node *n = NULL;
    if (!port)
        chan_set_error(err, "dp: no free port");
    else if (st->nodes[port])
        chan_set_error(err, "dp: bind %s:%u: port in use", bind_ip ? bind_ip : "0.0.0.0", port);
    else if ((n = chan_udp_node_new_io(&st->io, st, port, deliver, sink, err))) {
        st->nodes[port] = n;
        st->bound[st->n_bound++] = port;
    }
    pthread_rwlock_unlock(&st->lock);
    return n;
}

static void dp_node_free(chan_net *net, chan_udp_node *n) {
    dp_stack *st = (dp_stack *)net;
    pthread_rwlock_wrlock(&st->lock);
    uint16_t port = chan_udp_node_port(n);
    if (st->nodes[port] == n) {
        st->nodes[port] = NULL;
        for (size_t i = 0; i < st->n_bound; i++)
            if (st->bound[i] == port) {
                st->bound[i] = st->bound[--st->n_bound]; /* order does not matter */
                break;
            }
    }
    pthread_rwlock_unlock(&st->lock);
    chan_udp_node_free(n);
}

dp_stack *dp_stack_new(const char *ip, struct rte_mempool *mp, dp_tx_fn tx, void *tx_ctx, char *err) {
    struct in_addr a;
    if (!ip || inet_pton(AF_INET, ip, &a) != 1) {
        dp_set_error(err, "dp: bad IPv4 address \"%s\"", ip ? ip : "");
        return NULL;
    }
    dp_stack *st = calloc(1, sizeof(*st));
    if (!st || pthread_rwlock_init(&st->lock, NULL) != 0) {
        free(st);
        dp_set_error(err, "dp: out of memory");
        return NULL;
    }
    st->net = (chan_net){.node_new = dp_node_new, .node_free = dp_node_free};
    st->io = (chan_io){.xmit = dp_xmit};
    st->ip = a.s_addr;
    st->mp = mp;
    st->tx = tx;
    st->tx_ctx = tx_ctx;
    return st;
}

void dp_stack_free(dp_stack *st) {
    if (!st) return;
    pthread_rwlock_destroy(&st->lock);
    free(st);
}

chan_net *dp_stack_net(dp_stack *st) {
    return &st->net;
}

uint32_t dp_stack_ip(const dp_stack *st) {
    return st->ip;
}

dp_drop dp_stack_input(dp_stack *st, const dp_parsed *p) {
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = htons(p->src_port), .sin_addr.s_addr = p->src_ip};
    dp_drop verdict = DP_DROP_NO_INSTANCE;
    pthread_rwlock_rdlock(&st->lock);
    chan_udp_node *n = st->nodes[p->dst_port];
    if (n) {
        chan_udp_node_input(n, p->payload, p->payload_len, &src);
        verdict = DP_DROP_NONE;
    }
    pthread_rwlock_unlock(&st->lock);
    return verdict;
}

void dp_stack_sweep(dp_stack *st) {
    pthread_rwlock_rdlock(&st->lock);
    for (size_t i = 0; i < st->n_bound; i++) chan_udp_node_sweep(st->nodes[st->bound[i]]);
    pthread_rwlock_unlock(&st->lock);
}

uint64_t dp_stack_tx_dropped(const dp_stack *st) {
    return atomic_load(&((dp_stack *)st)->tx_dropped);
}
