/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipeline: one heap "job" per request carries the client's reply callback through the two
 * asynchronous steps (service reply, then downstream reply). A job is freed by whichever step
 * answers the client.
 */
#include "pipeline.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e3svc/errbuf.h"

struct pl_ctx {
    eng *e;               /* where instances run */
    rt_table *routes;     /* instance id -> address:port */
    chan_net *net;        /* where the egress node comes from (NULL: kernel sockets) */
    chan_udp_node *egress; /* forwarded requests leave from here; their replies come back here */
};

struct pl_inst {
    pl_ctx *p;                                /* shared state */
    uint32_t engine_id;                       /* the instance in the engine */
    size_t n_down;                            /* downstream ids */
    char down[PL_MAX_DOWNSTREAM][E3RPC_ID_LEN]; /* downstream instance ids */
    atomic_uint_fast64_t next;                /* round-robin counter */
    char forward_if[PL_GATE_LEN];             /* forward only responses starting with it ("": all) */
    lat_hist lat;                             /* arrival -> OK reply of its requests, us */
    atomic_uint_fast64_t stale;               /* nonzero: refuse every request, a copy at this
                                               * epoch serves the instance (pl_inst_refuse) */
};

typedef struct pl_job {
    pl_inst *inst;          /* the stage that received the request */
    uint64_t arrived_ns;    /* CLOCK_MONOTONIC when it was delivered */
    chan_reply_fn reply;    /* the client's callback */
    void *reply_ctx;        /* passed to reply */
    uint8_t *own;           /* this service's response while the downstream answers */
    size_t own_len;         /* bytes */
    size_t rest_len;        /* bytes of rest */
    uint8_t rest[];         /* lines 2..n, copied (the request buffer is not ours) */
} pl_job;

E3_DEFINE_SET_ERROR(pl_set_error, PL_ERRBUF_LEN, PL_ERR)

void pl_split_request(const uint8_t *req, size_t len, pl_split *out) {
    const uint8_t *nl = len ? memchr(req, '\n', len) : NULL;
    out->head = req;
    out->head_len = nl ? (size_t)(nl - req) : len;
    out->rest = nl ? nl + 1 : NULL;
    out->rest_len = nl ? len - out->head_len - 1 : 0;
}

int pl_join(svc_buf *out, const uint8_t *own, size_t own_len, const uint8_t *down, size_t down_len) {
    svc_buf_reset(out);
    if (svc_buf_append(out, own, own_len) != SVC_OK || svc_buf_append(out, "\n", 1) != SVC_OK ||
        svc_buf_append(out, down, down_len) != SVC_OK)
        return PL_ERR;
    return PL_OK;
}

int pl_parse_downstream(const char *csv, char (*ids)[E3RPC_ID_LEN], size_t max, size_t *n, char *err) {
    return pl_parse_ids("e3.downstream", csv, ids, max, n, err);
}

int pl_parse_ids(const char *key, const char *csv, char (*ids)[E3RPC_ID_LEN], size_t max, size_t *n, char *err) {
    *n = 0;
    for (const char *s = csv; s && *s;) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        const char *a = s, *b = end;
        while (a < b && (*a == ' ' || *a == '\t')) a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
        if (b > a) {
            if ((size_t)(b - a) >= E3RPC_ID_LEN)
                return pl_set_error(err, "%s: id \"%.*s...\" is longer than %d characters", key, 16, a,
                                    E3RPC_ID_LEN - 1);
            if (*n == max) return pl_set_error(err, "%s: more than %zu instances", key, max);
            memcpy(ids[*n], a, (size_t)(b - a));
            ids[*n][b - a] = '\0';
            (*n)++;
        }
        s = *end ? end + 1 : end;
    }
    return PL_OK;
}

pl_ctx *pl_new(eng *e, rt_table *routes, chan_net *net, const char *bind_ip, uint32_t timeout_ms, char *err) {
    pl_ctx *p = calloc(1, sizeof(*p));
    if (!p) {
        pl_set_error(err, "pipeline: out of memory");
        return NULL;
    }
    p->e = e;
    p->routes = routes;
    /* Replies to forwards come back here; nothing else should send requests to it. */
    p->net = net;
    p->egress = chan_net_node_new(net, bind_ip, 0, NULL, NULL, err);
    if (!p->egress) {
        free(p);
        return NULL;
    }
    chan_udp_node_set_timeout(p->egress, timeout_ms ? timeout_ms : PL_DEFAULT_TIMEOUT_MS);
    return p;
}

void pl_free(pl_ctx *p) {
    if (!p) return;
    chan_net_node_free(p->net, p->egress);
    free(p);
}

chan_udp_node *pl_egress(pl_ctx *p) {
    return p->egress;
}

void pl_counters(pl_ctx *p, chan_counters *out) {
    chan_udp_node_counters(p->egress, out);
}

pl_inst *pl_inst_new(pl_ctx *p, uint32_t engine_id, const char *downstream_csv, const char *forward_if,
                     char *err) {
    if (forward_if && strlen(forward_if) >= PL_GATE_LEN) {
        pl_set_error(err, "e3.forward_if: longer than %d characters", PL_GATE_LEN - 1);
        return NULL;
    }
    pl_inst *i = calloc(1, sizeof(*i));
    if (!i) {
        pl_set_error(err, "pipeline: out of memory");
        return NULL;
    }
    i->p = p;
    i->engine_id = engine_id;
    snprintf(i->forward_if, sizeof(i->forward_if), "%s", forward_if ? forward_if : "");
    if (pl_parse_downstream(downstream_csv, i->down, PL_MAX_DOWNSTREAM, &i->n_down, err) != PL_OK) {
        free(i);
        return NULL;
    }
    return i;
}

void pl_inst_free(pl_inst *i) {
    free(i);
}

void pl_inst_refuse(pl_inst *i, uint64_t epoch) {
    atomic_store(&i->stale, epoch);
}

void pl_inst_latency(pl_inst *i, lat_summary *out) {
    lat_take(&i->lat, out);
}

size_t pl_inst_downstreams(const pl_inst *i) {
    return i->n_down;
}

int pl_passes_gate(const char *forward_if, const uint8_t *resp, size_t len) {
    size_t n = forward_if ? strlen(forward_if) : 0;
    return n == 0 || (len >= n && memcmp(resp, forward_if, n) == 0);
}

static uint64_t pl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Answer the client (not freeing the job); an OK answer's latency is recorded. */
static void pl_answer(pl_job *job, int status, const uint8_t *resp, size_t len) {
    if (status == CHAN_OK) lat_record(&job->inst->lat, (pl_now_ns() - job->arrived_ns) / 1000);
    job->reply(job->reply_ctx, status, resp, len);
}

/* Answer the client with an error text and free the job. */
static void pl_fail(pl_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pl_fail(pl_job *job, const char *fmt, ...) {
    char msg[PL_ERRBUF_LEN];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (len < 0) len = 0;
    if ((size_t)len >= sizeof(msg)) len = sizeof(msg) - 1;
    job->reply(job->reply_ctx, CHAN_ERR, (const uint8_t *)msg, (size_t)len);
    free(job->own);
    free(job);
}

/* The downstream answered (egress receive thread): join and answer the client. */
static void pl_on_downstream(void *ctx, int status, const uint8_t *resp, size_t len) {
    pl_job *job = ctx;
    if (status != CHAN_OK) {
        /* the downstream's own error text (a service error further down, or a timeout) */
        pl_answer(job, CHAN_ERR, resp, len);
    } else {
        svc_buf out = {0};
        if (pl_join(&out, job->own, job->own_len, resp, len) != PL_OK) {
            svc_buf_free(&out);
            pl_fail(job, "pipeline: out of memory");
            return;
        }
        if (out.len > CHAN_MAX_PAYLOAD) {
            svc_buf_free(&out);
            pl_fail(job, "pipeline: reply of %zu bytes exceeds one datagram", out.len);
            return;
        }
        pl_answer(job, CHAN_OK, out.data, out.len);
        svc_buf_free(&out);
    }
    free(job->own);
    free(job);
}

/* This instance's service answered (engine worker): reply, or forward the rest downstream. */
static void pl_on_service(void *ctx, int status, const uint8_t *resp, size_t len) {
    pl_job *job = ctx;
    pl_inst *in = job->inst;
    if (status != ENG_OK || in->n_down == 0 || job->rest_len == 0) {
        pl_answer(job, status == ENG_OK ? CHAN_OK : CHAN_ERR, resp, len);
        free(job);
        return;
    }
    if (!pl_passes_gate(in->forward_if, resp, len)) {
        pl_answer(job, CHAN_ERR, resp, len); /* the gate's verdict ends the request */
        free(job);
        return;
    }
    const char *id = in->down[atomic_fetch_add(&in->next, 1) % in->n_down];
    char addr[RT_ADDR_LEN], err[CHAN_ERRBUF_LEN];
    uint16_t port;
    if (rt_lookup(in->p->routes, id, addr, &port) != RT_OK) {
        pl_fail(job, "no route to instance %s", id);
        return;
    }
    job->own = malloc(len ? len : 1);
    if (!job->own) {
        pl_fail(job, "pipeline: out of memory");
        return;
    }
    memcpy(job->own, resp, len);
    job->own_len = len;
    chan *c = chan_udp_open(in->p->egress, addr, port, err);
    if (!c) {
        pl_fail(job, "%s", err);
        return;
    }
    /* The channel is only an addressed handle: closing it leaves the request pending. */
    int rc = chan_send(c, 0, job->rest, job->rest_len, pl_on_downstream, job, err);
    chan_close(c);
    if (rc != CHAN_OK) pl_fail(job, "forward to instance %s: %s", id, err);
}

int pl_deliver(void *sink, uint32_t instance_id, const uint8_t *req, size_t len, chan_reply_fn reply,
               void *reply_ctx, char *err) {
    pl_inst *in = sink;
    if (instance_id != 0 && instance_id != in->engine_id)
        return chan_set_error(err, "pipeline: instance %u is not served on this port", instance_id);
    uint64_t stale = atomic_load(&in->stale);
    if (stale)
        return chan_set_error(err, "stale_epoch: another copy of this instance serves at epoch %llu",
                              (unsigned long long)stale);
    pl_split sp;
    pl_split_request(req, len, &sp);
    size_t keep = in->n_down ? sp.rest_len : 0; /* the rest only matters with a downstream */
    pl_job *job = malloc(sizeof(*job) + keep);
    if (!job) return chan_set_error(err, "pipeline: out of memory");
    *job = (pl_job){.inst = in, .arrived_ns = pl_now_ns(), .reply = reply, .reply_ctx = reply_ctx, .rest_len = keep};
    if (keep) memcpy(job->rest, sp.rest, keep);
    if (eng_submit(in->p->e, in->engine_id, sp.head, sp.head_len, pl_on_service, job, err) != ENG_OK) {
        free(job);
        return CHAN_ERR;
    }
    return CHAN_OK;
}
