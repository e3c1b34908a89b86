/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ddos: DDoS detection by the Shannon entropy of source addresses over a sliding window of the
 * last W packets (paper Table 2). A flood from few sources (or spoofed concentration) makes the
 * entropy H = -sum p_i log2 p_i drop; once the window is full, H < threshold flags an attack.
 * H is maintained incrementally as log2(n) - S/n with S = sum c_i log2 c_i.
 *
 * State, all in reliable collections: the window ring (rc_array of W u32 addresses), the
 * per-source counts (rc_hash: 4-byte address -> u64 count) and a meta rc_array element
 * {head, filled, S}.
 *
 * Wire format (text):
 *   "PKT <a.b.c.d>" -> "ENTROPY <H> NORMAL" | "ENTROPY <H> ATTACK"   (H in bits, %.17g)
 *   "QUERY"         -> the same, without adding a packet
 * Config: window=<packets> (default 1024), threshold=<bits> (default 4.0).
 * State export: section(meta snapshot) + section(ring snapshot) + section(counts snapshot),
 * each a u64 little-endian length then the bytes.
 * Replication log: per drain one frame of three sections, the meta, ring and counts
 * collections' own log records (each possibly empty); frames concatenate. Each collection keeps
 * its own log, so a frame carries each collection's records in order (the collections are
 * independent, so the order between them does not matter). apply_log checks every section and
 * the window position the meta records leave before changing anything.
 */
#include <math.h>
#include <stdlib.h>

#include "e3svc/rc.h"
#include "svc_util.h"

typedef struct ddos_meta {
    uint64_t head;   /* next ring slot to write */
    uint64_t filled; /* packets in the window, <= W */
    double s;        /* sum over sources of c*log2(c), bits*packets */
} ddos_meta;

struct svc_instance {
    rc_array *ring;   /* W u32 source addresses */
    rc_array *meta;   /* one ddos_meta */
    rc_hash *counts;  /* u32 address -> u64 packets in the window */
    uint64_t window;  /* W, packets */
    double threshold; /* bits */
    int replicate;    /* 1: the collections record into the logs below */
    svc_buf log_meta, log_ring, log_counts; /* replication-log records since the last drain */
};

/* The log collection `log` of `inst` records into, or NULL when not replicating. */
static svc_buf *ddos_log(svc_instance *inst, svc_buf *log) { return inst->replicate ? log : NULL; }

static void ddos_destroy(svc_instance *inst) {
    if (!inst) return;
    rc_array_free(inst->ring);
    rc_array_free(inst->meta);
    rc_hash_free(inst->counts);
    svc_buf_free(&inst->log_meta);
    svc_buf_free(&inst->log_ring);
    svc_buf_free(&inst->log_counts);
    free(inst);
}

static int ddos_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    long window = svc_config_long(config, "window", 1024);
    double threshold = svc_config_double(config, "threshold", 4.0);
    if (window < 1 || window > (1L << 26)) return svc_set_error(err, "ddos: window must be in 1..2^26");
    svc_instance *inst = calloc(1, sizeof(*inst));
    if (!inst) goto err;
    inst->window = (uint64_t)window;
    inst->threshold = threshold;
    inst->replicate = env && env->replicate;
    inst->ring = rc_array_new((size_t)window, sizeof(uint32_t), ddos_log(inst, &inst->log_ring));
    inst->meta = rc_array_new(1, sizeof(ddos_meta), ddos_log(inst, &inst->log_meta));
    inst->counts = rc_hash_new(ddos_log(inst, &inst->log_counts));
    if (!inst->ring || !inst->meta || !inst->counts) goto err;
    *out = inst;
    return SVC_OK;
err:
    ddos_destroy(inst);
    return svc_set_error(err, "ddos: out of memory");
}

/* Parse a dotted-quad IPv4 address; SVC_OK or SVC_ERR. */
static int parse_ipv4(const uint8_t *t, size_t n, uint32_t *out) {
    uint32_t addr = 0, part = 0;
    int parts = 0, digits = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || t[i] == '.') {
            if (digits == 0 || part > 255 || ++parts > 4) return SVC_ERR;
            addr = addr << 8 | part;
            part = 0;
            digits = 0;
        } else if (t[i] >= '0' && t[i] <= '9' && digits < 3) {
            part = part * 10 + (uint32_t)(t[i] - '0');
            digits++;
        } else {
            return SVC_ERR;
        }
    }
    if (parts != 4) return SVC_ERR;
    *out = addr;
    return SVC_OK;
}

static double clog2c(uint64_t c) { return c < 2 ? 0.0 : (double)c * log2((double)c); }

/* Change the count of `addr` by +1 or -1, keeping meta->s in step. */
static int bump(svc_instance *inst, uint32_t addr, int up, ddos_meta *m) {
    uint64_t c = 0;
    size_t vl;
    const void *v = rc_hash_get(inst->counts, &addr, sizeof(addr), &vl);
    if (v && vl == sizeof(c)) memcpy(&c, v, sizeof(c));
    uint64_t nc = up ? c + 1 : (c ? c - 1 : 0);
    m->s += clog2c(nc) - clog2c(c);
    if (nc == 0) {
        rc_hash_del(inst->counts, &addr, sizeof(addr));
        return SVC_OK;
    }
    return rc_hash_put(inst->counts, &addr, sizeof(addr), &nc, sizeof(nc));
}

static int ddos_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *cmd, *src;
    size_t cl, sl;
    ddos_meta m;
    memcpy(&m, rc_array_get(inst->meta, 0), sizeof(m));
    if (!svc_next_token(&p, end, &cmd, &cl)) return svc_set_error(err, "ddos: empty request");
    if (svc_tok_is(cmd, cl, "PKT")) {
        uint32_t addr;
        if (!svc_next_token(&p, end, &src, &sl) || parse_ipv4(src, sl, &addr) != SVC_OK)
            return svc_set_error(err, "ddos: PKT needs an IPv4 source address");
        if (m.filled == inst->window) { /* evict the oldest */
            uint32_t old;
            memcpy(&old, rc_array_get(inst->ring, (size_t)m.head), sizeof(old));
            if (bump(inst, old, 0, &m) != SVC_OK) return svc_set_error(err, "ddos: out of memory");
            m.filled--;
        }
        if (bump(inst, addr, 1, &m) != SVC_OK) return svc_set_error(err, "ddos: out of memory");
        rc_array_set(inst->ring, (size_t)m.head, &addr);
        m.head = (m.head + 1) % inst->window;
        m.filled++;
        rc_array_set(inst->meta, 0, &m);
    } else if (!svc_tok_is(cmd, cl, "QUERY")) {
        return svc_set_error(err, "ddos: unknown command");
    }
    double h = 0.0;
    if (m.filled > 0) h = log2((double)m.filled) - m.s / (double)m.filled;
    if (h < 0.0) h = 0.0; /* rounding */
    int attack = m.filled == inst->window && h < inst->threshold;
    if (svc_buf_printf(resp, "ENTROPY %.17g %s", h, attack ? "ATTACK" : "NORMAL") != SVC_OK)
        return svc_set_error(err, "ddos: out of memory");
    return SVC_OK;
}

static int ddos_export(svc_instance *inst, svc_buf *out, char *err) {
    size_t start = out->len, mark;
    if (svc_section_begin(out, &mark) != SVC_OK || rc_array_snapshot(inst->meta, out) != SVC_OK) goto err;
    svc_section_end(out, mark);
    if (svc_section_begin(out, &mark) != SVC_OK || rc_array_snapshot(inst->ring, out) != SVC_OK) goto err;
    svc_section_end(out, mark);
    if (svc_section_begin(out, &mark) != SVC_OK || rc_hash_snapshot(inst->counts, out) != SVC_OK) goto err;
    svc_section_end(out, mark);
    return SVC_OK;
err:
    out->len = start;
    return svc_set_error(err, "ddos: out of memory");
}

static int ddos_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    const uint8_t *p = state, *end = state + len, *ms, *rs, *cs;
    size_t ml, rl, cl;
    if (svc_section_next(&p, end, &ms, &ml) != SVC_OK || svc_section_next(&p, end, &rs, &rl) != SVC_OK ||
        svc_section_next(&p, end, &cs, &cl) != SVC_OK || p != end)
        return svc_set_error(err, "ddos: malformed state");
    /* Restore into scratch collections first so a bad section leaves this instance unchanged.
     * They record into the instance's logs (the restores are what a backup must apply); a
     * refused import takes those records back. */
    size_t marks[3] = {inst->log_meta.len, inst->log_ring.len, inst->log_counts.len};
    rc_array *meta = rc_array_new(1, sizeof(ddos_meta), ddos_log(inst, &inst->log_meta));
    rc_array *ring = rc_array_new((size_t)inst->window, sizeof(uint32_t), ddos_log(inst, &inst->log_ring));
    rc_hash *counts = rc_hash_new(ddos_log(inst, &inst->log_counts));
    if (!meta || !ring || !counts) {
        svc_set_error(err, "ddos: out of memory");
        goto err;
    }
    if (rc_array_restore(meta, ms, ml, err) != SVC_OK || rc_array_restore(ring, rs, rl, err) != SVC_OK ||
        rc_hash_restore(counts, cs, cl, err) != SVC_OK)
        goto err;
    ddos_meta m;
    memcpy(&m, rc_array_get(meta, 0), sizeof(m));
    if (m.head >= inst->window || m.filled > inst->window) {
        svc_set_error(err, "ddos: state window position out of range");
        goto err;
    }
    rc_array_free(inst->meta);
    rc_array_free(inst->ring);
    rc_hash_free(inst->counts);
    inst->meta = meta;
    inst->ring = ring;
    inst->counts = counts;
    return SVC_OK;
err:
    inst->log_meta.len = marks[0];
    inst->log_ring.len = marks[1];
    inst->log_counts.len = marks[2];
    rc_array_free(meta);
    rc_array_free(ring);
    rc_hash_free(counts);
    return SVC_ERR;
}

/* One frame: the three collections' records as sections; nothing when all three are empty. */
static int ddos_drain_log(svc_instance *inst, svc_buf *out, char *err) {
    svc_buf *logs[3] = {&inst->log_meta, &inst->log_ring, &inst->log_counts};
    if (logs[0]->len + logs[1]->len + logs[2]->len == 0) return SVC_OK;
    size_t start = out->len, mark;
    for (int i = 0; i < 3; i++) {
        if (svc_section_begin(out, &mark) != SVC_OK || svc_buf_append(out, logs[i]->data, logs[i]->len) != SVC_OK) {
            out->len = start;
            return svc_set_error(err, "ddos: out of memory");
        }
        svc_section_end(out, mark);
    }
    for (int i = 0; i < 3; i++) svc_buf_reset(logs[i]);
    return SVC_OK;
}

/* Check every frame of `log` against `inst`: well-formed sections and records, and a window
 * position (the meta element the records leave, replayed on a scratch copy) in range. */
static int ddos_check_log(svc_instance *inst, const uint8_t *log, size_t len, char *err) {
    rc_array *meta = rc_array_new(1, sizeof(ddos_meta), NULL);
    if (!meta || rc_array_set(meta, 0, rc_array_get(inst->meta, 0)) != SVC_OK) {
        rc_array_free(meta);
        return svc_set_error(err, "ddos: out of memory");
    }
    int rc = SVC_OK;
    for (const uint8_t *p = log, *end = log + len; p < end && rc == SVC_OK;) {
        const uint8_t *sec[3];
        size_t sl[3];
        for (int i = 0; i < 3 && rc == SVC_OK; i++)
            if (svc_section_next(&p, end, &sec[i], &sl[i]) != SVC_OK) rc = svc_set_error(err, "ddos: malformed log frame");
        if (rc == SVC_OK && (rc_array_apply_log(meta, sec[0], sl[0], err) != SVC_OK ||
                             rc_array_log_check(inst->ring, sec[1], sl[1], err) != SVC_OK ||
                             rc_hash_log_each_put(sec[2], sl[2], NULL, NULL, err) != SVC_OK))
            rc = SVC_ERR;
    }
    ddos_meta m;
    memcpy(&m, rc_array_get(meta, 0), sizeof(m));
    if (rc == SVC_OK && (m.head >= inst->window || m.filled > inst->window))
        rc = svc_set_error(err, "ddos: log leaves the window position out of range");
    rc_array_free(meta);
    return rc;
}

static int ddos_apply_log(svc_instance *inst, const uint8_t *log, size_t len, char *err) {
    if (ddos_check_log(inst, log, len, err) != SVC_OK) return SVC_ERR;
    for (const uint8_t *p = log, *end = log + len; p < end;) {
        const uint8_t *sec[3];
        size_t sl[3];
        for (int i = 0; i < 3; i++) svc_section_next(&p, end, &sec[i], &sl[i]); /* checked above */
        if (rc_array_apply_log(inst->meta, sec[0], sl[0], err) != SVC_OK ||
            rc_array_apply_log(inst->ring, sec[1], sl[1], err) != SVC_OK ||
            rc_hash_apply_log(inst->counts, sec[2], sl[2], err) != SVC_OK)
            return SVC_ERR; /* only when memory runs out: earlier records stay applied */
    }
    return SVC_OK;
}

const svc_type svc_ddos = {
    .name = "ddos",
    .stateful = 1,
    .create = ddos_create,
    .handle = ddos_handle,
    .export_state = ddos_export,
    .import_state = ddos_import,
    .destroy = ddos_destroy,
    .drain_log = ddos_drain_log,
    .apply_log = ddos_apply_log,
};
