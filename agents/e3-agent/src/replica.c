/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replica: the primary's hook sends one replicate frame per backup per update; the backup
 * checks sequence numbers and applies inside the engine (see replica.h for the protocol).
 *
 * A rep_primary is reference-counted: the owner holds one reference and every update in flight
 * another, because a backup's answer (or the egress node's timeout) may arrive after the
 * instance was removed.
 */
#include "replica.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alog.h"
#include "pipeline.h"

struct rep_primary {
    rt_table *routes;                          /* backup id -> address:port */
    chan_udp_node *egress;                     /* updates leave from here; answers come back */
    char self[E3RPC_ID_LEN];                   /* this primary's controller id */
    size_t n;                                  /* backups */
    char ids[REP_MAX_BACKUPS][E3RPC_ID_LEN];   /* backup instance ids */
    uint64_t seq[REP_MAX_BACKUPS];             /* last seq given per backup (instance entered) */
    svc_buf payload;                           /* scratch for one frame's payload (hook only) */
    atomic_uint_fast64_t refs;                 /* owner + updates in flight */
    atomic_uint_fast64_t sent, replicated, failed; /* counters (rep_counters) */
};

typedef struct rep_stream {
    char id[E3RPC_ID_LEN]; /* the primary's controller id */
    uint64_t last;         /* last seq applied (or refused as malformed) from it */
} rep_stream;

struct rep_backup {
    eng *e;                                  /* where the instance runs */
    uint32_t engine_id;                      /* the instance */
    rep_stream streams[REP_MAX_PRIMARIES];   /* primaries followed (ops only) */
    size_t n_streams;                        /* entries used */
    size_t evict;                            /* next entry to reuse when full */
    atomic_uint_fast64_t applied, gaps, refused; /* counters (rep_counters) */
};

static void rep_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t rep_get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

int rep_encode(svc_buf *out, uint64_t seq, const char *primary_id, const uint8_t *records, size_t len) {
    size_t idl = strlen(primary_id);
    if (idl >= E3RPC_ID_LEN) return -1;
    uint8_t hdr[9];
    rep_put_u64(hdr, seq);
    hdr[8] = (uint8_t)idl;
    svc_buf_reset(out);
    if (svc_buf_append(out, hdr, sizeof(hdr)) != SVC_OK || svc_buf_append(out, primary_id, idl) != SVC_OK ||
        svc_buf_append(out, records, len) != SVC_OK)
        return -1;
    return 0;
}

/* ---- primary ----------------------------------------------------------------------------- */

rep_primary *rep_primary_new(rt_table *routes, chan_udp_node *egress, const char *self_id, const char *backups_csv,
                             char *err) {
    if (!self_id || strlen(self_id) >= E3RPC_ID_LEN) {
        pl_set_error(err, "e3.backups: the primary's id is empty or too long");
        return NULL;
    }
    rep_primary *p = calloc(1, sizeof(*p));
    if (!p) {
        pl_set_error(err, "replica: out of memory");
        return NULL;
    }
    p->routes = routes;
    p->egress = egress;
    snprintf(p->self, sizeof(p->self), "%s", self_id);
    atomic_init(&p->refs, 1);
    if (pl_parse_ids("e3.backups", backups_csv, p->ids, REP_MAX_BACKUPS, &p->n, err) != PL_OK) goto err;
    if (p->n == 0) {
        pl_set_error(err, "e3.backups: no backup instance listed");
        goto err;
    }
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->ids[i], self_id) == 0) {
            pl_set_error(err, "e3.backups: instance %s cannot back itself up", self_id);
            goto err;
        }
    return p;
err:
    free(p);
    return NULL;
}

void rep_primary_release(rep_primary *p) {
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1) return;
    svc_buf_free(&p->payload);
    free(p);
}

/* A backup's answer to one update (egress receive thread), or its timeout. */
static void rep_on_ack(void *ctx, int status, const uint8_t *resp, size_t len) {
    rep_primary *p = ctx;
    if (status == CHAN_OK) {
        atomic_fetch_add(&p->replicated, 1);
    } else {
        atomic_fetch_add(&p->failed, 1);
        alog(ALOG_DEBUG, "replication from %s: %.*s", p->self, (int)(len > 200 ? 200 : len), (const char *)resp);
    }
    rep_primary_release(p);
}

/* Send one update to backup `i`; counts it as sent or failed. */
static void rep_send(rep_primary *p, size_t i, const uint8_t *records, size_t len) {
    char addr[RT_ADDR_LEN], err[CHAN_ERRBUF_LEN];
    uint16_t port;
    uint64_t seq = ++p->seq[i]; /* taken even when the send fails: the backup sees the hole */
    if (rt_lookup(p->routes, p->ids[i], addr, &port) != RT_OK) {
        snprintf(err, sizeof(err), "no route to instance %s", p->ids[i]);
        goto fail;
    }
    if (rep_encode(&p->payload, seq, p->self, records, len) != 0) {
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    if (p->payload.len > CHAN_MAX_PAYLOAD) {
        snprintf(err, sizeof(err), "update of %zu bytes exceeds one datagram", p->payload.len);
        goto fail;
    }
    chan *c = chan_udp_open(p->egress, addr, port, err);
    if (!c) goto fail;
    atomic_fetch_add(&p->refs, 1); /* held by the update until rep_on_ack */
    int rc = chan_udp_replicate(c, 0, p->payload.data, p->payload.len, rep_on_ack, p, err);
    chan_close(c);
    if (rc != CHAN_OK) {
        atomic_fetch_sub(&p->refs, 1); /* never below 1: the owner's reference is held */
        goto fail;
    }
    atomic_fetch_add(&p->sent, 1);
    return;
fail:
    atomic_fetch_add(&p->failed, 1);
    alog(ALOG_DEBUG, "replication from %s to %s, update %llu: %s", p->self, p->ids[i], (unsigned long long)seq, err);
}

void rep_primary_on_log(void *ctx, const uint8_t *records, size_t len) {
    rep_primary *p = ctx;
    for (size_t i = 0; i < p->n; i++) rep_send(p, i, records, len);
}

size_t rep_primary_backups(const rep_primary *p) {
    return p->n;
}

void rep_primary_counters(rep_primary *p, rep_counters *out) {
    memset(out, 0, sizeof(*out));
    out->sent = atomic_load(&p->sent);
    out->replicated = atomic_load(&p->replicated);
    out->failed = atomic_load(&p->failed);
}

size_t rep_primary_sequences(const rep_primary *p, char (*ids)[E3RPC_ID_LEN], uint64_t *seqs, size_t max) {
    size_t n = p->n < max ? p->n : max;
    for (size_t i = 0; i < n; i++) {
        memcpy(ids[i], p->ids[i], E3RPC_ID_LEN);
        seqs[i] = p->seq[i];
    }
    return n;
}

int rep_primary_continue(rep_primary *p, const char *backup_id, uint64_t seq) {
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->ids[i], backup_id) == 0) {
            if (seq > p->seq[i]) p->seq[i] = seq;
            return 0;
        }
    return -1;
}

/* ---- backup ------------------------------------------------------------------------------ */

rep_backup *rep_backup_new(eng *e, uint32_t engine_id) {
    rep_backup *b = calloc(1, sizeof(*b));
    if (!b) return NULL;
    b->e = e;
    b->engine_id = engine_id;
    return b;
}

void rep_backup_free(rep_backup *b) {
    free(b);
}

/* The stream of primary `id` (`idl` bytes), created (evicting the oldest-made when full). */
static rep_stream *rep_stream_of(rep_backup *b, const uint8_t *id, size_t idl) {
    for (size_t i = 0; i < b->n_streams; i++)
        if (strlen(b->streams[i].id) == idl && memcmp(b->streams[i].id, id, idl) == 0) return &b->streams[i];
    rep_stream *s = b->n_streams < REP_MAX_PRIMARIES ? &b->streams[b->n_streams++]
                                                      : &b->streams[b->evict++ % REP_MAX_PRIMARIES];
    memcpy(s->id, id, idl);
    s->id[idl] = '\0';
    s->last = 0;
    return s;
}

/* eng_op_fn: check the update's sequence number and apply its records (instance entered). */
static int rep_apply_op(void *op_ctx, const svc_type *type, svc_instance *inst, const uint8_t *data, size_t len,
                        svc_buf *resp, char *err) {
    rep_backup *b = op_ctx;
    char serr[SVC_ERRBUF_LEN];
    if (len < 9 || data[8] == 0 || data[8] >= E3RPC_ID_LEN || len < 9u + data[8]) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "replica: malformed update header");
    }
    if (!type->apply_log) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "replica: %s is stateless", type->name);
    }
    uint64_t seq = rep_get_u64(data);
    size_t idl = data[8];
    rep_stream *s = rep_stream_of(b, data + 9, idl);
    if (seq <= s->last) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "replica: stale update %llu from %s (last applied %llu)", (unsigned long long)seq,
                             s->id, (unsigned long long)s->last);
    }
    if (seq > s->last + 1) {
        uint64_t missed = seq - s->last - 1;
        atomic_fetch_add(&b->gaps, missed);
        alog(ALOG_WARN, "replica of engine instance %u: %llu update(s) from %s lost before %llu; state diverged",
             b->engine_id, (unsigned long long)missed, s->id, (unsigned long long)seq);
    }
    s->last = seq;
    if (type->apply_log(inst, data + 9 + idl, len - 9 - idl, serr) != SVC_OK) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "%s", serr);
    }
    atomic_fetch_add(&b->applied, 1);
    char ok[32];
    int n = snprintf(ok, sizeof(ok), "OK %llu", (unsigned long long)seq);
    return svc_buf_append(resp, ok, (size_t)n) == SVC_OK ? ENG_OK : eng_set_error(err, "replica: out of memory");
}

int rep_backup_deliver(void *sink, uint32_t instance_id, const uint8_t *payload, size_t len, chan_reply_fn reply,
                       void *reply_ctx, char *err) {
    rep_backup *b = sink;
    (void)instance_id; /* 0 or this port's instance: the port decides */
    /* eng_reply_fn and chan_reply_fn are the same type; ENG_OK/ENG_ERR == CHAN_OK/CHAN_ERR */
    if (eng_submit_op(b->e, b->engine_id, rep_apply_op, b, payload, len, reply, reply_ctx, err) != ENG_OK)
        return CHAN_ERR;
    return CHAN_OK;
}

void rep_backup_counters(rep_backup *b, rep_counters *out) {
    memset(out, 0, sizeof(*out));
    out->applied = atomic_load(&b->applied);
    out->gaps = atomic_load(&b->gaps);
    out->refused = atomic_load(&b->refused);
}
