/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replica: the primary keeps every update until its backup confirms it and resends what the
 * backup missed (go-back-N); the backup applies in sequence, inside the engine (see replica.h
 * for the protocol).
 *
 * A rep_primary is reference-counted: the owner holds one reference and every frame in flight
 * another, because a backup's answer (or the egress node's timeout) may arrive after the
 * instance was removed. Its lock guards the per-backup state (rep_peer): the log hook, the
 * answers (egress receive thread), rep_primary_tick and rep_primary_drain all take it.
 */
#include "replica.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alog.h"
#include "pipeline.h"

/* One update kept for resending: its records (not the frame: the header is built per send). */
typedef struct rep_kept {
    uint64_t seq;  /* its number */
    uint8_t *data; /* records, or NULL: slot empty */
    size_t len;    /* bytes */
    int hole;      /* given up (too large for a datagram): sent as REP_HOLE, no records */
    int held;      /* the backup holds it, out of order ("HELD"): not resent */
} rep_kept;

/* The primary's view of one backup. Updates kept_from..seq are in `ring`; the backup holds every
 * update up to `acked` as far as the primary knows. kept_from > acked + 1 means updates were
 * dropped unconfirmed: the next frame numbered kept_from carries REP_JUMP. */
typedef struct rep_peer {
    char id[E3RPC_ID_LEN]; /* backup instance id */
    uint64_t seq;          /* last number given */
    uint64_t acked;        /* confirmed by the backup (cumulative) */
    uint64_t acked_max;    /* highest `acked` ever (counts `replicated` once per update) */
    uint64_t kept_from;    /* oldest update kept */
    uint64_t want_to;      /* resend up to here (0: nothing known missing) */
    uint64_t round_to;     /* last update of the resend round in flight (0: none) */
    uint64_t round_ns;     /* when that round was sent */
    uint64_t stall_ns;     /* when `acked` last moved, or an update became outstanding */
    rep_kept *ring;        /* REP_WINDOW slots by seq % REP_WINDOW; NULL until the first update */
    size_t ring_bytes;     /* records kept, bytes */
    int moved;             /* taken over by another rep_primary (rep_primary_adopt): answers ignored */
} rep_peer;

struct rep_primary {
    rt_table *routes;              /* backup id -> address:port */
    chan_udp_node *egress;         /* updates leave from here; answers come back */
    char self[E3RPC_ID_LEN];       /* this primary's controller id */
    size_t n;                      /* backups */
    rep_peer peers[REP_MAX_BACKUPS];
    svc_buf payload;               /* scratch for one frame's payload (lock held) */
    pthread_mutex_t lock;          /* guards peers and payload */
    pthread_cond_t progress;       /* signalled when a backup confirms more (rep_primary_drain) */
    atomic_uint_fast64_t refs;     /* owner + frames in flight */
    atomic_uint_fast64_t sent, resent, replicated, failed, dropped; /* counters (rep_counters) */
    atomic_uint_fast64_t epoch;    /* this copy's epoch, in every frame (rep_primary_set_epoch) */
    atomic_uint_fast64_t newer;    /* highest epoch a backup follows above ours ("STALE"), or 0 */
    char sup[REP_MAX_SUPERSEDED][E3RPC_ID_LEN]; /* primaries this one supersedes (in every frame) */
    size_t n_sup;                  /* entries in sup (set before the first send) */
};

/* What an answer must find: which frame of which backup it answers. */
typedef struct rep_inflight {
    rep_primary *p;
    size_t peer;
    uint64_t seq;
} rep_inflight;

/* An update that came ahead of its turn, kept by the backup until the ones before it arrive. */
typedef struct rep_early {
    uint64_t seq;  /* its number, 0: slot empty */
    uint64_t raw;  /* seq with its flags */
    uint8_t *data; /* records */
    size_t len;    /* bytes */
} rep_early;

typedef struct rep_stream {
    char id[E3RPC_ID_LEN]; /* the primary's controller id */
    uint64_t last;         /* last seq applied (or refused as malformed) from it */
    uint64_t epoch;        /* highest epoch seen from it: frames from a lower one are refused */
    rep_early *early;      /* REP_HOLD_MAX slots by seq % REP_HOLD_MAX; NULL until needed */
} rep_stream;

struct rep_backup {
    eng *e;                                /* where the instance runs */
    uint32_t engine_id;                    /* the instance */
    rep_stream streams[REP_MAX_PRIMARIES]; /* primaries followed (ops only) */
    size_t n_streams;                      /* entries used */
    size_t evict;                          /* next entry to reuse when full */
    atomic_uint_fast64_t applied, gaps, out_of_order, duplicates, refused; /* counters (rep_counters) */
};

static void rep_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t rep_get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static uint64_t rep_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rep_encode_superseding(svc_buf *out, uint64_t seq, uint64_t epoch, const char *primary_id,
                           const char (*sup)[E3RPC_ID_LEN], size_t n_sup, const uint8_t *records, size_t len) {
    size_t idl = strlen(primary_id);
    if (idl >= E3RPC_ID_LEN || n_sup > REP_MAX_SUPERSEDED) return -1;
    uint8_t hdr[17];
    rep_put_u64(hdr, n_sup ? seq | REP_SUPERSEDES : seq);
    rep_put_u64(hdr + 8, epoch);
    hdr[16] = (uint8_t)idl;
    svc_buf_reset(out);
    if (svc_buf_append(out, hdr, sizeof(hdr)) != SVC_OK || svc_buf_append(out, primary_id, idl) != SVC_OK)
        return -1;
    if (n_sup) {
        uint8_t n = (uint8_t)n_sup;
        if (svc_buf_append(out, &n, 1) != SVC_OK) return -1;
        for (size_t i = 0; i < n_sup; i++) {
            uint8_t l = (uint8_t)strlen(sup[i]);
            if (svc_buf_append(out, &l, 1) != SVC_OK || svc_buf_append(out, sup[i], l) != SVC_OK) return -1;
        }
    }
    return len && svc_buf_append(out, records, len) != SVC_OK ? -1 : 0;
}

int rep_encode(svc_buf *out, uint64_t seq, uint64_t epoch, const char *primary_id, const uint8_t *records,
               size_t len) {
    return rep_encode_superseding(out, seq, epoch, primary_id, NULL, 0, records, len);
}

/* ---- primary: the kept updates ------------------------------------------------------------ */

static rep_kept *rep_slot(rep_peer *b, uint64_t seq) {
    return &b->ring[seq % REP_WINDOW];
}

/* Free the kept records of `seq`, if still there. */
static void rep_forget(rep_peer *b, uint64_t seq) {
    if (!b->ring) return;
    rep_kept *k = rep_slot(b, seq);
    if (!k->data || k->seq != seq) return;
    b->ring_bytes -= k->len;
    free(k->data);
    k->data = NULL;
}

/* Drop the oldest kept update, unconfirmed: the backup will have to jump over it. */
static void rep_drop_oldest(rep_primary *p, rep_peer *b) {
    rep_forget(b, b->kept_from++);
    atomic_fetch_add(&p->dropped, 1);
}

/* Keep `records` as update `seq` (the next number): room is made by dropping the oldest
 * unconfirmed ones beyond REP_WINDOW updates or REP_WINDOW_BYTES. Returns -1 without memory
 * (the update is then dropped: the backup jumps over it). */
static int rep_keep(rep_primary *p, rep_peer *b, uint64_t seq, const uint8_t *records, size_t len) {
    if (!b->ring && !(b->ring = calloc(REP_WINDOW, sizeof(*b->ring)))) return -1;
    int hole = REP_HDR_MAX + len > CHAN_MAX_PAYLOAD;
    if (hole) {
        atomic_fetch_add(&p->dropped, 1);
        alog(ALOG_WARN, "replication from %s to %s: update %llu of %zu bytes exceeds one datagram; sent as a hole",
             p->self, b->id, (unsigned long long)seq, len);
        len = 0;
    }
    while (b->kept_from < seq && (seq - b->kept_from >= REP_WINDOW || b->ring_bytes + len > REP_WINDOW_BYTES))
        rep_drop_oldest(p, b);
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) return -1;
    memcpy(copy, records, len);
    rep_kept *k = rep_slot(b, seq);
    *k = (rep_kept){.seq = seq, .data = copy, .len = len, .hole = hole};
    b->ring_bytes += len;
    return 0;
}

static void rep_peer_clear(rep_peer *b) {
    for (uint64_t s = b->kept_from; b->ring && s <= b->seq; s++) rep_forget(b, s);
    free(b->ring);
    b->ring = NULL;
    b->ring_bytes = 0;
}

/* The backup holds every update up to `to` (never moves `acked` back): free what it confirmed. */
static void rep_ack_to(rep_primary *p, rep_peer *b, uint64_t to, uint64_t now) {
    if (to > b->seq) to = b->seq; /* not a number of ours: its other updates are still owed */
    if (to <= b->acked) return;
    for (uint64_t s = b->kept_from; s <= to; s++) rep_forget(b, s);
    if (b->kept_from <= to) b->kept_from = to + 1;
    b->acked = to;
    if (to > b->acked_max) {
        atomic_fetch_add(&p->replicated, to - b->acked_max);
        b->acked_max = to;
    }
    b->stall_ns = now;
    if (b->round_to && b->acked >= b->round_to) b->round_to = 0;
    pthread_cond_broadcast(&p->progress);
}

/* ---- primary: sending --------------------------------------------------------------------- */

static void rep_on_answer(void *ctx, int status, const uint8_t *resp, size_t len);

/* Send kept update `seq` to backup `i`, with REP_JUMP when the ones before it were dropped.
 * Lock held. Returns 0, or -1 with the reason logged (the update stays kept). */
static int rep_xmit(rep_primary *p, size_t i, uint64_t seq) {
    rep_peer *b = &p->peers[i];
    rep_kept *k = rep_slot(b, seq);
    char addr[RT_ADDR_LEN], err[CHAN_ERRBUF_LEN];
    uint16_t port;
    if (!k->data || k->seq != seq) {
        snprintf(err, sizeof(err), "update no longer kept");
        goto fail;
    }
    uint64_t flags = (seq == b->kept_from && seq > b->acked + 1 ? REP_JUMP : 0) | (k->hole ? REP_HOLE : 0);
    if (rt_lookup(p->routes, b->id, addr, &port) != RT_OK) {
        snprintf(err, sizeof(err), "no route to instance %s", b->id);
        goto fail;
    }
    if (rep_encode_superseding(&p->payload, seq | flags, atomic_load(&p->epoch), p->self, p->sup, p->n_sup, k->data,
                               k->len) != 0) {
        snprintf(err, sizeof(err), "out of memory");
        goto fail;
    }
    if (p->payload.len > CHAN_MAX_PAYLOAD) {
        snprintf(err, sizeof(err), "update of %zu bytes exceeds one datagram", p->payload.len);
        goto fail;
    }
    rep_inflight *f = malloc(sizeof(*f));
    chan *c = f ? chan_udp_open(p->egress, addr, port, err) : NULL;
    if (!c) {
        if (!f) snprintf(err, sizeof(err), "out of memory");
        free(f);
        goto fail;
    }
    *f = (rep_inflight){.p = p, .peer = i, .seq = seq};
    atomic_fetch_add(&p->refs, 1); /* held by the frame until rep_on_answer */
    int rc = chan_udp_replicate(c, 0, p->payload.data, p->payload.len, rep_on_answer, f, err);
    chan_close(c);
    if (rc == CHAN_OK) return 0;
    atomic_fetch_sub(&p->refs, 1); /* never below 1: the owner's reference is held */
    free(f);
fail:
    atomic_fetch_add(&p->failed, 1);
    alog(ALOG_DEBUG, "replication from %s to %s, update %llu: %s", p->self, b->id, (unsigned long long)seq, err);
    return -1;
}

/* Start a resend round to backup `i` if one is owed and none is in flight (or the one in flight
 * got nothing back for REP_RESEND_MS): the kept updates after the last confirmed one, up to
 * `want_to`, at most REP_ROUND_MAX. Lock held. */
static void rep_resend(rep_primary *p, size_t i, uint64_t now) {
    rep_peer *b = &p->peers[i];
    if (b->want_to <= b->acked) {
        b->want_to = 0;
        return;
    }
    if (b->round_to && now - b->round_ns < REP_RESEND_MS * 1000000ull) return;
    uint64_t from = b->acked + 1 > b->kept_from ? b->acked + 1 : b->kept_from;
    if (from > b->seq) { /* nothing kept to send: the next update jumps */
        b->want_to = 0;
        return;
    }
    uint64_t to = b->want_to < b->seq ? b->want_to : b->seq;
    if (to < from) to = from; /* what was owed is dropped: send the jump */
    if (to - from >= REP_ROUND_MAX) to = from + REP_ROUND_MAX - 1;
    b->round_to = to;
    b->round_ns = now;
    for (uint64_t s = from; s <= to; s++)
        if (!rep_slot(b, s)->held && rep_xmit(p, i, s) == 0) atomic_fetch_add(&p->resent, 1);
}

/* Parse "<word> <n>" at the start of an answer. */
static int rep_answer_number(const uint8_t *resp, size_t len, const char *word, uint64_t *out) {
    size_t wl = strlen(word);
    if (len <= wl + 1 || memcmp(resp, word, wl) != 0 || resp[wl] != ' ') return 0;
    uint64_t v = 0;
    size_t at = wl + 1, digits = 0;
    for (; at < len && resp[at] >= '0' && resp[at] <= '9' && digits < 20; at++, digits++) v = v * 10 + (resp[at] - '0');
    if (!digits) return 0;
    *out = v;
    return 1;
}

/* Forget which kept updates the backup said it holds out of order (it refused one: it may have
 * lost them, e.g. its stream of this primary was forgotten). Lock held. */
static void rep_unhold(rep_peer *b) {
    for (uint64_t s = b->kept_from; b->ring && s <= b->seq; s++) rep_slot(b, s)->held = 0;
}

/* A backup's answer to one frame (egress receive thread), or its timeout. "OK <n>": the backup
 * holds up to n. "HELD <n>": it holds up to n, and this frame, ahead of its turn: the ones
 * between are owed. "GAP <n>": it holds up to n and refused this frame as too far ahead. Anything
 * else that is not OK (no answer in time, a full engine inbox, ...): this frame is owed again. */
static void rep_on_answer(void *ctx, int status, const uint8_t *resp, size_t len) {
    rep_inflight *f = ctx;
    rep_primary *p = f->p;
    uint64_t now = rep_now_ns(), last;
    int stale = 0;
    pthread_mutex_lock(&p->lock);
    rep_peer *b = &p->peers[f->peer];
    if (!b->moved) {
        if (status == CHAN_OK) {
            if (rep_answer_number(resp, len, "OK", &last)) {
                rep_ack_to(p, b, last, now);
            } else if (rep_answer_number(resp, len, "HELD", &last)) {
                rep_ack_to(p, b, last, now);
                rep_kept *k = f->seq > b->acked && b->ring ? rep_slot(b, f->seq) : NULL;
                if (k && k->data && k->seq == f->seq) k->held = 1;
                if (f->seq > b->want_to) b->want_to = f->seq;
            }
        } else {
            atomic_fetch_add(&p->failed, 1);
            if ((stale = rep_answer_number(resp, len, "STALE", &last))) {
                /* Another copy of this instance serves at a newer epoch: this one is stale. Its
                 * owner stops serving it (rep_primary_newer_epoch); resending would not help. */
                uint64_t seen = atomic_load(&p->newer);
                while (last > seen && !atomic_compare_exchange_weak(&p->newer, &seen, last)) {}
                if (seen < last)
                    alog(ALOG_WARN, "replication from %s to %s: the backup follows epoch %llu, this copy is at %llu: stale",
                         p->self, b->id, (unsigned long long)last, (unsigned long long)atomic_load(&p->epoch));
            } else if (rep_answer_number(resp, len, "GAP", &last)) {
                rep_unhold(b);
                /* The backup's own count wins, also below ours (it followed another incarnation
                 * of this primary, or our number came from a moved state it never got): what it
                 * lacks and we no longer keep is jumped over (REP_JUMP). */
                if (last < b->acked) b->acked = last;
                rep_ack_to(p, b, last, now);
            } else {
                alog(ALOG_DEBUG, "replication from %s to %s, update %llu: %.*s", p->self, b->id,
                     (unsigned long long)f->seq, (int)(len > 200 ? 200 : len), (const char *)resp);
            }
            if (!stale && f->seq > b->acked && f->seq > b->want_to) b->want_to = f->seq;
        }
        if (!stale) rep_resend(p, f->peer, now);
    }
    pthread_mutex_unlock(&p->lock);
    free(f);
    rep_primary_release(p);
}

/* ---- primary: lifecycle and hooks --------------------------------------------------------- */

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
    char ids[REP_MAX_BACKUPS][E3RPC_ID_LEN];
    if (pl_parse_ids("e3.backups", backups_csv, ids, REP_MAX_BACKUPS, &p->n, err) != PL_OK) goto err;
    if (p->n == 0) {
        pl_set_error(err, "e3.backups: no backup instance listed");
        goto err;
    }
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(ids[i], self_id) == 0) {
            pl_set_error(err, "e3.backups: instance %s cannot back itself up", self_id);
            goto err;
        }
        memcpy(p->peers[i].id, ids[i], E3RPC_ID_LEN);
        p->peers[i].kept_from = 1;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int ok = pthread_mutex_init(&p->lock, NULL) == 0;
    if (ok && pthread_cond_init(&p->progress, &ca) != 0) {
        pthread_mutex_destroy(&p->lock);
        ok = 0;
    }
    pthread_condattr_destroy(&ca);
    if (!ok) {
        pl_set_error(err, "replica: cannot create a lock");
        goto err;
    }
    p->routes = routes;
    p->egress = egress;
    snprintf(p->self, sizeof(p->self), "%s", self_id);
    atomic_init(&p->refs, 1);
    return p;
err:
    free(p);
    return NULL;
}

void rep_primary_set_epoch(rep_primary *p, uint64_t epoch) {
    atomic_store(&p->epoch, epoch);
}

int rep_primary_supersede(rep_primary *p, const char *ids_csv, char *err) {
    char ids[REP_MAX_SUPERSEDED][E3RPC_ID_LEN];
    size_t n = 0;
    if (pl_parse_ids("replaces", ids_csv, ids, REP_MAX_SUPERSEDED, &n, err) != PL_OK) return -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(ids[i], p->self) == 0) {
            pl_set_error(err, "replaces: instance %s cannot supersede itself", p->self);
            return -1;
        }
    pthread_mutex_lock(&p->lock);
    memcpy(p->sup, ids, sizeof(ids));
    p->n_sup = n;
    pthread_mutex_unlock(&p->lock);
    return 0;
}

void rep_primary_announce(rep_primary *p) {
    static const uint8_t nothing[1];
    rep_primary_on_log(p, nothing, 0);
}

uint64_t rep_primary_newer_epoch(rep_primary *p) {
    uint64_t newer = atomic_load(&p->newer);
    return newer > atomic_load(&p->epoch) ? newer : 0;
}

void rep_primary_release(rep_primary *p) {
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1) return;
    for (size_t i = 0; i < p->n; i++) rep_peer_clear(&p->peers[i]);
    svc_buf_free(&p->payload);
    pthread_cond_destroy(&p->progress);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void rep_primary_on_log(void *ctx, const uint8_t *records, size_t len) {
    rep_primary *p = ctx;
    uint64_t now = rep_now_ns();
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->n; i++) {
        rep_peer *b = &p->peers[i];
        uint64_t seq = ++b->seq;
        if (b->acked + 1 == seq) b->stall_ns = now; /* the first outstanding one: the clock starts */
        if (rep_keep(p, b, seq, records, len) != 0) {
            while (b->kept_from <= seq) rep_drop_oldest(p, b); /* this one too: the next frame jumps */
            alog(ALOG_WARN, "replication from %s to %s: update %llu dropped (out of memory)", p->self, b->id,
                 (unsigned long long)seq);
            continue;
        }
        /* During a resend round the backup refuses what overtakes it; the round is followed by
         * the next one up to the highest refused, so sending now costs at most a resend. */
        if (rep_xmit(p, i, seq) == 0) atomic_fetch_add(&p->sent, 1);
    }
    pthread_mutex_unlock(&p->lock);
}

/* Owe backup `i` everything outstanding if it has confirmed nothing for `stall_ns`. Lock held. */
static void rep_chase(rep_primary *p, size_t i, uint64_t now, uint64_t stall_ns) {
    rep_peer *b = &p->peers[i];
    if (b->acked >= b->seq || now - b->stall_ns < stall_ns) return;
    b->want_to = b->seq;
    rep_resend(p, i, now);
}

void rep_primary_tick(rep_primary *p) {
    uint64_t now = rep_now_ns();
    if (rep_primary_newer_epoch(p)) return; /* stale: its backups refuse whatever it resends */
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->n; i++)
        if (!p->peers[i].moved) rep_chase(p, i, now, REP_STALL_MS * 1000000ull);
    pthread_mutex_unlock(&p->lock);
}

uint64_t rep_primary_drain(rep_primary *p, uint32_t timeout_ms) {
    uint64_t start = rep_now_ns(), deadline = start + (uint64_t)timeout_ms * 1000000ull, owed = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        uint64_t now = rep_now_ns();
        owed = 0;
        for (size_t i = 0; i < p->n; i++) {
            if (p->peers[i].moved) continue;
            owed += p->peers[i].seq - p->peers[i].acked;
            rep_chase(p, i, now, REP_DRAIN_STALL_MS * 1000000ull);
        }
        if (!owed || now >= deadline) break;
        uint64_t wake = now + REP_DRAIN_STALL_MS * 1000000ull;
        if (wake > deadline) wake = deadline;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull), .tv_nsec = (long)(wake % 1000000000ull)};
        pthread_cond_timedwait(&p->progress, &p->lock, &ts);
    }
    pthread_mutex_unlock(&p->lock);
    if (owed)
        alog(ALOG_WARN, "replication from %s: %llu update(s) unconfirmed after %u ms", p->self,
             (unsigned long long)owed, timeout_ms);
    return owed;
}

void rep_primary_counters(rep_primary *p, rep_counters *out) {
    memset(out, 0, sizeof(*out));
    out->sent = atomic_load(&p->sent);
    out->resent = atomic_load(&p->resent);
    out->replicated = atomic_load(&p->replicated);
    out->failed = atomic_load(&p->failed);
    out->dropped = atomic_load(&p->dropped);
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->n; i++)
        if (!p->peers[i].moved) out->outstanding += p->peers[i].seq - p->peers[i].acked;
    pthread_mutex_unlock(&p->lock);
}

size_t rep_primary_sequences(rep_primary *p, char (*ids)[E3RPC_ID_LEN], uint64_t *seqs, size_t max) {
    pthread_mutex_lock(&p->lock);
    size_t n = p->n < max ? p->n : max;
    for (size_t i = 0; i < n; i++) {
        memcpy(ids[i], p->peers[i].id, E3RPC_ID_LEN);
        seqs[i] = p->peers[i].seq;
    }
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* Index of backup `id` in `p`, or -1. */
static int rep_peer_index(const rep_primary *p, const char *id) {
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->peers[i].id, id) == 0) return (int)i;
    return -1;
}

int rep_primary_continue(rep_primary *p, const char *backup_id, uint64_t seq) {
    pthread_mutex_lock(&p->lock);
    int i = rep_peer_index(p, backup_id);
    if (i >= 0 && seq > p->peers[i].seq) {
        rep_peer *b = &p->peers[i];
        rep_peer_clear(b);
        /* Taken as confirmed: the source drained its updates before exporting (a backup that
         * says otherwise gets the next one as a jump). */
        b->seq = b->acked = b->acked_max = seq;
        b->kept_from = seq + 1;
        b->want_to = b->round_to = 0;
    }
    pthread_mutex_unlock(&p->lock);
    return i >= 0 ? 0 : -1;
}

void rep_primary_adopt(rep_primary *next, rep_primary *prev) {
    if (!next || !prev || next == prev) return;
    pthread_mutex_lock(&prev->lock);
    pthread_mutex_lock(&next->lock); /* not yet visible to any other thread: no lock order issue */
    uint64_t now = rep_now_ns();
    if (!next->n_sup) { /* the backups kept still refuse the superseded; new ones learn it too */
        memcpy(next->sup, prev->sup, sizeof(prev->sup));
        next->n_sup = prev->n_sup;
    }
    for (size_t i = 0; i < next->n; i++) {
        int j = rep_peer_index(prev, next->peers[i].id);
        if (j < 0) continue;
        rep_peer *to = &next->peers[i], *from = &prev->peers[j];
        rep_peer_clear(to);
        *to = *from;
        to->round_to = 0; /* answers to frames in flight go to `prev` and are ignored there */
        to->stall_ns = now;
        *from = (rep_peer){.moved = 1};
        memcpy(from->id, to->id, E3RPC_ID_LEN);
    }
    pthread_mutex_unlock(&next->lock);
    pthread_mutex_unlock(&prev->lock);
}

/* ---- backup ------------------------------------------------------------------------------ */

rep_backup *rep_backup_new(eng *e, uint32_t engine_id) {
    rep_backup *b = calloc(1, sizeof(*b));
    if (!b) return NULL;
    b->e = e;
    b->engine_id = engine_id;
    return b;
}

/* Drop a stream's early updates. */
static void rep_stream_clear(rep_stream *s) {
    for (size_t i = 0; s->early && i < REP_HOLD_MAX; i++) free(s->early[i].data);
    free(s->early);
    s->early = NULL;
}

void rep_backup_free(rep_backup *b) {
    if (!b) return;
    for (size_t i = 0; i < b->n_streams; i++) rep_stream_clear(&b->streams[i]);
    free(b);
}

/* The stream of primary `id` (`idl` bytes), or NULL. */
static rep_stream *rep_stream_find(rep_backup *b, const uint8_t *id, size_t idl) {
    for (size_t i = 0; i < b->n_streams; i++)
        if (strlen(b->streams[i].id) == idl && memcmp(b->streams[i].id, id, idl) == 0) return &b->streams[i];
    return NULL;
}

/* The stream of primary `id` (`idl` bytes), created (evicting the oldest-made when full). */
static rep_stream *rep_stream_of(rep_backup *b, const uint8_t *id, size_t idl) {
    rep_stream *found = rep_stream_find(b, id, idl);
    if (found) return found;
    rep_stream *s = b->n_streams < REP_MAX_PRIMARIES ? &b->streams[b->n_streams++]
                                                      : &b->streams[b->evict++ % REP_MAX_PRIMARIES];
    rep_stream_clear(s);
    memcpy(s->id, id, idl);
    s->id[idl] = '\0';
    s->last = 0;
    s->epoch = 0;
    return s;
}

/* Primary `id` (`idl` bytes) is superseded at `epoch`: its updates from a lower epoch are refused. */
static void rep_stream_fence(rep_backup *b, const uint8_t *id, size_t idl, uint64_t epoch) {
    rep_stream *s = rep_stream_of(b, id, idl);
    if (epoch <= s->epoch) return;
    s->epoch = epoch;
    alog(ALOG_INFO, "replica of engine instance %u: primary %s superseded at epoch %llu: its older updates are refused",
         b->engine_id, s->id, (unsigned long long)epoch);
}

void rep_backup_fence(rep_backup *b, const char *primary_id, uint64_t epoch) {
    size_t idl = strlen(primary_id);
    if (idl && idl < E3RPC_ID_LEN) rep_stream_fence(b, (const uint8_t *)primary_id, idl, epoch);
}

/* The superseded ids of a REP_SUPERSEDES header at `data` (`len` bytes left): the bytes they take,
 * or 0 when malformed. */
static size_t rep_superseded_len(const uint8_t *data, size_t len) {
    if (len < 1 || data[0] > REP_MAX_SUPERSEDED) return 0;
    size_t at = 1;
    for (uint8_t i = 0; i < data[0]; i++) {
        if (at >= len || data[at] == 0 || data[at] >= E3RPC_ID_LEN || len - at - 1 < data[at]) return 0;
        at += 1u + data[at];
    }
    return at;
}

/* Answer "OK <n>" into `resp`. */
static int rep_answer_ok(svc_buf *resp, uint64_t n, char *err) {
    char ok[32];
    int len = snprintf(ok, sizeof(ok), "OK %llu", (unsigned long long)n);
    return svc_buf_append(resp, ok, (size_t)len) == SVC_OK ? ENG_OK : eng_set_error(err, "replica: out of memory");
}

/* Apply update `raw` (seq and flags; `rec`, `len`: its records) of stream `s`, the next one or a
 * jump: a jump counts the missing ones as a gap, a hole counts itself. SVC_ERR with `serr` when
 * apply_log refuses the records (counted; the number is used up all the same). */
static int rep_apply_one(rep_backup *b, const svc_type *type, svc_instance *inst, rep_stream *s, uint64_t raw,
                         const uint8_t *rec, size_t len, char *serr) {
    uint64_t seq = raw & ~REP_FLAGS;
    if (seq > s->last + 1) {
        uint64_t missed = seq - s->last - 1;
        atomic_fetch_add(&b->gaps, missed);
        alog(ALOG_WARN, "replica of engine instance %u: %llu update(s) from %s lost before %llu; state diverged",
             b->engine_id, (unsigned long long)missed, s->id, (unsigned long long)seq);
    }
    s->last = seq;
    if (raw & REP_HOLE) { /* given up by the primary: its change is missing here */
        atomic_fetch_add(&b->gaps, 1);
        alog(ALOG_WARN, "replica of engine instance %u: update %llu from %s was too large to send; state diverged",
             b->engine_id, (unsigned long long)seq, s->id);
        return SVC_OK;
    }
    if (len == 0) { /* an announcement (rep_primary_announce): nothing to change */
        atomic_fetch_add(&b->applied, 1);
        return SVC_OK;
    }
    if (type->apply_log(inst, rec, len, serr) != SVC_OK) {
        atomic_fetch_add(&b->refused, 1);
        return SVC_ERR;
    }
    atomic_fetch_add(&b->applied, 1);
    return SVC_OK;
}

/* Keep update `raw` (ahead of its turn, within REP_HOLD_MAX of the last applied) until its turn.
 * A slot holding another number holds one at or below the last applied: stale, freed. Returns 0,
 * or -1 without memory. */
static int rep_hold(rep_stream *s, uint64_t raw, const uint8_t *rec, size_t len) {
    uint64_t seq = raw & ~REP_FLAGS;
    if (!s->early && !(s->early = calloc(REP_HOLD_MAX, sizeof(*s->early)))) return -1;
    rep_early *e = &s->early[seq % REP_HOLD_MAX];
    if (e->seq == seq) return 0; /* a resend of one held already */
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) return -1;
    memcpy(copy, rec, len);
    free(e->data);
    *e = (rep_early){.seq = seq, .raw = raw, .data = copy, .len = len};
    return 0;
}

/* Apply the held updates whose turn has come. */
static void rep_apply_early(rep_backup *b, const svc_type *type, svc_instance *inst, rep_stream *s) {
    char serr[SVC_ERRBUF_LEN];
    for (rep_early *e; s->early && (e = &s->early[(s->last + 1) % REP_HOLD_MAX])->seq == s->last + 1;) {
        if (rep_apply_one(b, type, inst, s, e->raw, e->data, e->len, serr) != SVC_OK)
            alog(ALOG_WARN, "replica of engine instance %u: update %llu from %s refused: %s", b->engine_id,
                 (unsigned long long)e->seq, s->id, serr);
        free(e->data);
        *e = (rep_early){0};
    }
}

/* eng_op_fn: check the update's sequence number and apply its records, then any held ones whose
 * turn came (instance entered). */
static int rep_apply_op(void *op_ctx, const svc_type *type, svc_instance *inst, const uint8_t *data, size_t len,
                        svc_buf *resp, char *err) {
    rep_backup *b = op_ctx;
    char serr[SVC_ERRBUF_LEN];
    if (len < 17 || data[16] == 0 || data[16] >= E3RPC_ID_LEN || len < 17u + data[16] ||
        !(rep_get_u64(data) & ~REP_FLAGS)) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "replica: malformed update header");
    }
    if (!type->apply_log) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "replica: %s is stateless", type->name);
    }
    uint64_t raw = rep_get_u64(data), seq = raw & ~REP_FLAGS, epoch = rep_get_u64(data + 8);
    size_t idl = data[16], sup_len = 0;
    const uint8_t *sup = data + 17 + idl;
    if ((raw & REP_SUPERSEDES) && !(sup_len = rep_superseded_len(sup, len - 17 - idl))) {
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "replica: malformed list of superseded primaries");
    }
    const uint8_t *rec = sup + sup_len;
    size_t rec_len = len - 17 - idl - sup_len;
    rep_stream *s = rep_stream_find(b, data + 17, idl);
    if (s && epoch < s->epoch) { /* a copy of this primary that another copy superseded */
        atomic_fetch_add(&b->refused, 1);
        return eng_set_error(err, "STALE %llu: update %llu from %s at epoch %llu", (unsigned long long)s->epoch,
                             (unsigned long long)seq, s->id, (unsigned long long)epoch);
    }
    for (size_t at = 1; at < sup_len; at += 1u + sup[at]) /* then the sender's stream is looked up again */
        if (sup[at] != idl || memcmp(sup + at + 1, data + 17, idl) != 0)
            rep_stream_fence(b, sup + at + 1, sup[at], epoch);
    s = rep_stream_of(b, data + 17, idl);
    s->epoch = epoch;
    if (seq <= s->last) { /* a resend of what is applied: confirm again */
        atomic_fetch_add(&b->duplicates, 1);
        return rep_answer_ok(resp, s->last, err);
    }
    if (seq > s->last + 1 && !(raw & REP_JUMP)) {
        atomic_fetch_add(&b->out_of_order, 1);
        if (seq - s->last > REP_HOLD_MAX)
            return eng_set_error(err, "GAP %llu: update %llu from %s is too far ahead", (unsigned long long)s->last,
                                 (unsigned long long)seq, s->id);
        if (rep_hold(s, raw, rec, rec_len) != 0) return eng_set_error(err, "replica: out of memory");
        char held[40];
        int n = snprintf(held, sizeof(held), "HELD %llu", (unsigned long long)s->last);
        return svc_buf_append(resp, held, (size_t)n) == SVC_OK ? ENG_OK : eng_set_error(err, "replica: out of memory");
    }
    int rc = rep_apply_one(b, type, inst, s, raw, rec, rec_len, serr);
    rep_apply_early(b, type, inst, s);
    if (rc != SVC_OK) return eng_set_error(err, "%s", serr);
    return rep_answer_ok(resp, s->last, err);
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
    out->out_of_order = atomic_load(&b->out_of_order);
    out->duplicates = atomic_load(&b->duplicates);
    out->refused = atomic_load(&b->refused);
}
