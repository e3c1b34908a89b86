/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reliable hashtable: byte-string keys to byte-string values (rc.h).
 *
 * Layout: open addressing with linear probing over a power-of-two slot array (load <= 3/4),
 * deletion by backward shift (no tombstones). Each entry is one heap block: an 8-byte header
 * (klen, vlen), the value (so rc_hash_get returns an 8-byte aligned pointer), then the key.
 *
 * Snapshot format (all integers little-endian):
 *   magic "E3RH" (4 bytes) | version u32 = 1 | count u64 |
 *   count x ( klen u32 | vlen u32 | key[klen] | value[vlen] )
 * The snapshot must be consumed exactly, with no duplicate keys.
 *
 * Replication-log record format (records are simply concatenated):
 *   magic 0xE3 u8 | version u8 = 1 | op u8 | klen u32 | vlen u32 | key[klen] | value[vlen]
 *   op 1 = PUT, op 2 = DEL (vlen must be 0), op 3 = CLEAR (klen = vlen = 0).
 * rc_hash_restore logs a CLEAR followed by one PUT per entry, so backups follow restores too.
 */
#include <stdlib.h>
#include <string.h>

#include "e3svc/rc.h"
#include "svc_util.h"

#define RC_HASH_MAGIC "E3RH"
#define RC_HASH_VERSION 1u
#define RC_LOG_MAGIC 0xE3u
#define RC_LOG_VERSION 1u
#define RC_OP_PUT 1u
#define RC_OP_DEL 2u
#define RC_OP_CLEAR 3u
#define RC_HASH_REC_HDR 11u  /* bytes of a log record header */
#define RC_HASH_SNAP_HDR 16u /* bytes of a snapshot header */
#define RC_HASH_MIN_CAP 16u  /* slots */
#define RC_HASH_SEED 0x5eed0e3ULL

typedef struct rc_entry {
    uint32_t klen; /* key bytes */
    uint32_t vlen; /* value bytes */
    /* followed by value[vlen] at offset 8, then key[klen] */
} rc_entry;

typedef struct rc_slot {
    uint64_t hash;   /* full hash of the key */
    rc_entry *entry; /* NULL when the slot is empty */
} rc_slot;

struct rc_hash {
    rc_slot *slots; /* cap slots */
    size_t cap;     /* slots, a power of two */
    size_t count;   /* entries */
    svc_buf *log;   /* replication log, or NULL */
};

static uint8_t *entry_val(rc_entry *e) { return (uint8_t *)e + sizeof(rc_entry); }
static uint8_t *entry_key(rc_entry *e) { return entry_val(e) + e->vlen; }

static uint64_t key_hash(const void *key, size_t klen) { return svc_hash64(key, klen, RC_HASH_SEED); }

/* Create an empty table with an optional replication log; NULL when memory runs out. */
rc_hash *rc_hash_new(svc_buf *log) {
    rc_hash *h = calloc(1, sizeof(*h));
    if (!h) return NULL;
    h->slots = calloc(RC_HASH_MIN_CAP, sizeof(rc_slot));
    if (!h->slots) {
        free(h);
        return NULL;
    }
    h->cap = RC_HASH_MIN_CAP;
    h->log = log;
    return h;
}

static void free_entries(rc_slot *slots, size_t cap) {
    for (size_t i = 0; i < cap; i++) free(slots[i].entry);
}

/* Free the table and its entries (not the log). NULL is accepted. */
void rc_hash_free(rc_hash *h) {
    if (!h) return;
    free_entries(h->slots, h->cap);
    free(h->slots);
    free(h);
}

/* Slot index holding `key`, or the empty slot where it would go. */
static size_t find_slot(const rc_hash *h, uint64_t hash, const void *key, size_t klen) {
    size_t mask = h->cap - 1, i = (size_t)hash & mask;
    for (;;) {
        rc_entry *e = h->slots[i].entry;
        if (!e) return i;
        if (h->slots[i].hash == hash && e->klen == klen && memcmp(entry_key(e), key, klen) == 0) return i;
        i = (i + 1) & mask;
    }
}

/* Rehash into `cap` slots; SVC_ERR (unchanged) when memory runs out. */
static int resize(rc_hash *h, size_t cap) {
    rc_slot *ns = calloc(cap, sizeof(rc_slot));
    if (!ns) return SVC_ERR;
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->slots[i].entry) continue;
        size_t j = (size_t)h->slots[i].hash & (cap - 1);
        while (ns[j].entry) j = (j + 1) & (cap - 1);
        ns[j] = h->slots[i];
    }
    free(h->slots);
    h->slots = ns;
    h->cap = cap;
    return SVC_OK;
}

/* Append one log record; SVC_ERR (log unchanged) when memory runs out. */
static int log_record(svc_buf *log, unsigned op, const void *key, size_t klen, const void *val, size_t vlen) {
    if (!log) return SVC_OK;
    size_t mark = log->len;
    uint8_t hdr[RC_HASH_REC_HDR] = {RC_LOG_MAGIC, RC_LOG_VERSION, (uint8_t)op};
    svc_le32_put(hdr + 3, (uint32_t)klen);
    svc_le32_put(hdr + 7, (uint32_t)vlen);
    if (svc_buf_append(log, hdr, sizeof(hdr)) != SVC_OK || svc_buf_append(log, key, klen) != SVC_OK ||
        svc_buf_append(log, val, vlen) != SVC_OK) {
        log->len = mark;
        return SVC_ERR;
    }
    return SVC_OK;
}

/* Insert or replace (logged). SVC_ERR, with table and log unchanged, when memory runs out or a
 * length exceeds 2^32-1. */
int rc_hash_put(rc_hash *h, const void *key, size_t klen, const void *val, size_t vlen) {
    if (klen > UINT32_MAX || vlen > UINT32_MAX || vlen > SIZE_MAX - klen - sizeof(rc_entry)) return SVC_ERR;
    if ((h->count + 1) * 4 > h->cap * 3 && resize(h, h->cap * 2) != SVC_OK) return SVC_ERR;
    uint64_t hash = key_hash(key, klen);
    size_t i = find_slot(h, hash, key, klen);
    rc_entry *e = malloc(sizeof(rc_entry) + vlen + klen);
    if (!e) return SVC_ERR;
    e->klen = (uint32_t)klen;
    e->vlen = (uint32_t)vlen;
    if (vlen) memcpy(entry_val(e), val, vlen);
    if (klen) memcpy(entry_key(e), key, klen);
    size_t mark = h->log ? h->log->len : 0;
    if (log_record(h->log, RC_OP_PUT, key, klen, val, vlen) != SVC_OK) goto err;
    if (h->slots[i].entry) {
        free(h->slots[i].entry);
    } else {
        h->count++;
    }
    h->slots[i].hash = hash;
    h->slots[i].entry = e;
    return SVC_OK;
err:
    if (h->log) h->log->len = mark;
    free(e);
    return SVC_ERR;
}

/* Remove (logged when present); 1 if the key was present, 0 if not. If the log cannot grow the
 * key stays and 0 is returned. */
int rc_hash_del(rc_hash *h, const void *key, size_t klen) {
    uint64_t hash = key_hash(key, klen);
    size_t mask = h->cap - 1, i = find_slot(h, hash, key, klen);
    if (!h->slots[i].entry) return 0;
    if (log_record(h->log, RC_OP_DEL, key, klen, NULL, 0) != SVC_OK) return 0;
    free(h->slots[i].entry);
    h->slots[i].entry = NULL;
    h->count--;
    /* backward-shift: move later entries of the probe run into the hole */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!h->slots[j].entry) break;
        size_t home = (size_t)h->slots[j].hash & mask;
        /* entry at j may move to hole iff home is not cyclically in (hole, j] */
        int in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (in_range) continue;
        h->slots[hole] = h->slots[j];
        h->slots[j].entry = NULL;
        hole = j;
    }
    return 1;
}

/* The value of `key` (8-byte aligned, valid until the next mutation) and its length, or NULL. */
const void *rc_hash_get(const rc_hash *h, const void *key, size_t klen, size_t *vlen) {
    size_t i = find_slot(h, key_hash(key, klen), key, klen);
    rc_entry *e = h->slots[i].entry;
    if (!e) return NULL;
    if (vlen) *vlen = e->vlen;
    return entry_val(e);
}

/* Number of entries. */
size_t rc_hash_count(const rc_hash *h) { return h->count; }

/* Call fn for every entry (slot order); stop early when it returns nonzero. fn must not mutate. */
void rc_hash_each(const rc_hash *h, int (*fn)(const void *k, size_t kl, const void *v, size_t vl, void *ctx),
                  void *ctx) {
    for (size_t i = 0; i < h->cap; i++) {
        rc_entry *e = h->slots[i].entry;
        if (e && fn(entry_key(e), e->klen, entry_val(e), e->vlen, ctx)) return;
    }
}

/* Append a snapshot (format above) to `out`; SVC_ERR (out unchanged) when memory runs out. */
int rc_hash_snapshot(const rc_hash *h, svc_buf *out) {
    size_t mark = out->len;
    uint8_t hdr[RC_HASH_SNAP_HDR];
    memcpy(hdr, RC_HASH_MAGIC, 4);
    svc_le32_put(hdr + 4, RC_HASH_VERSION);
    svc_le64_put(hdr + 8, (uint64_t)h->count);
    if (svc_buf_append(out, hdr, sizeof(hdr)) != SVC_OK) goto err;
    for (size_t i = 0; i < h->cap; i++) {
        rc_entry *e = h->slots[i].entry;
        if (!e) continue;
        uint8_t lens[8];
        svc_le32_put(lens, e->klen);
        svc_le32_put(lens + 4, e->vlen);
        if (svc_buf_append(out, lens, 8) != SVC_OK || svc_buf_append(out, entry_key(e), e->klen) != SVC_OK ||
            svc_buf_append(out, entry_val(e), e->vlen) != SVC_OK)
            goto err;
    }
    return SVC_OK;
err:
    out->len = mark;
    return SVC_ERR;
}

/* Replace the contents with a snapshot. The snapshot is fully validated into a new table first;
 * on any error the table is unchanged. The replacement is logged as CLEAR + PUTs. */
int rc_hash_restore(rc_hash *h, const uint8_t *snap, size_t len, char *err) {
    rc_hash *tmp = NULL;
    size_t mark = h->log ? h->log->len : 0;
    if (len < RC_HASH_SNAP_HDR || memcmp(snap, RC_HASH_MAGIC, 4) != 0) {
        svc_set_error(err, "rc_hash snapshot: bad magic or truncated header");
        goto err;
    }
    if (svc_le32_get(snap + 4) != RC_HASH_VERSION) {
        svc_set_error(err, "rc_hash snapshot: unsupported version %u", (unsigned)svc_le32_get(snap + 4));
        goto err;
    }
    uint64_t count = svc_le64_get(snap + 8);
    if (count > (len - RC_HASH_SNAP_HDR) / 8) { /* every entry takes at least 8 bytes */
        svc_set_error(err, "rc_hash snapshot: entry count %llu exceeds the data", (unsigned long long)count);
        goto err;
    }
    tmp = rc_hash_new(NULL);
    if (!tmp) {
        svc_set_error(err, "rc_hash snapshot: out of memory");
        goto err;
    }
    size_t off = RC_HASH_SNAP_HDR;
    for (uint64_t n = 0; n < count; n++) {
        if (len - off < 8) {
            svc_set_error(err, "rc_hash snapshot: truncated entry %llu", (unsigned long long)n);
            goto err;
        }
        uint64_t kl = svc_le32_get(snap + off), vl = svc_le32_get(snap + off + 4);
        off += 8;
        if (kl + vl > len - off) {
            svc_set_error(err, "rc_hash snapshot: entry %llu overruns the data", (unsigned long long)n);
            goto err;
        }
        if (rc_hash_put(tmp, snap + off, (size_t)kl, snap + off + kl, (size_t)vl) != SVC_OK) {
            svc_set_error(err, "rc_hash snapshot: out of memory");
            goto err;
        }
        off += (size_t)(kl + vl);
    }
    if (off != len) {
        svc_set_error(err, "rc_hash snapshot: %zu trailing bytes", len - off);
        goto err;
    }
    if (tmp->count != count) {
        svc_set_error(err, "rc_hash snapshot: duplicate keys");
        goto err;
    }
    if (h->log) {
        if (log_record(h->log, RC_OP_CLEAR, NULL, 0, NULL, 0) != SVC_OK) goto oom;
        for (size_t i = 0; i < tmp->cap; i++) {
            rc_entry *e = tmp->slots[i].entry;
            if (e && log_record(h->log, RC_OP_PUT, entry_key(e), e->klen, entry_val(e), e->vlen) != SVC_OK)
                goto oom;
        }
    }
    free_entries(h->slots, h->cap);
    free(h->slots);
    h->slots = tmp->slots;
    h->cap = tmp->cap;
    h->count = tmp->count;
    free(tmp);
    return SVC_OK;
oom:
    svc_set_error(err, "rc_hash snapshot: out of memory for the log");
err:
    if (h->log) h->log->len = mark;
    rc_hash_free(tmp);
    return SVC_ERR;
}

/* Check that [log, log+len) is a sequence of well-formed records; SVC_ERR with a reason if not. */
static int validate_log(const uint8_t *log, size_t len, char *err) {
    size_t off = 0;
    while (off < len) {
        if (len - off < RC_HASH_REC_HDR) return svc_set_error(err, "rc_hash log: truncated record at %zu", off);
        const uint8_t *r = log + off;
        if (r[0] != RC_LOG_MAGIC || r[1] != RC_LOG_VERSION)
            return svc_set_error(err, "rc_hash log: bad magic/version at %zu", off);
        uint64_t kl = svc_le32_get(r + 3), vl = svc_le32_get(r + 7);
        if ((r[2] == RC_OP_DEL && vl != 0) || (r[2] == RC_OP_CLEAR && (kl | vl) != 0) ||
            (r[2] != RC_OP_PUT && r[2] != RC_OP_DEL && r[2] != RC_OP_CLEAR))
            return svc_set_error(err, "rc_hash log: bad op %u at %zu", r[2], off);
        off += RC_HASH_REC_HDR;
        if (kl + vl > len - off) return svc_set_error(err, "rc_hash log: record overruns the data at %zu", off);
        off += (size_t)(kl + vl);
    }
    return SVC_OK;
}

int rc_hash_log_each_put(const uint8_t *log, size_t len,
                         int (*fn)(const void *k, size_t kl, const void *v, size_t vl, void *ctx), void *ctx,
                         char *err) {
    if (validate_log(log, len, err) != SVC_OK) return SVC_ERR;
    for (size_t off = 0; off < len;) {
        const uint8_t *r = log + off;
        size_t kl = svc_le32_get(r + 3), vl = svc_le32_get(r + 7);
        const uint8_t *k = r + RC_HASH_REC_HDR;
        if (fn && r[2] == RC_OP_PUT && fn(k, kl, k + kl, vl, ctx)) break;
        off += RC_HASH_REC_HDR + kl + vl;
    }
    return SVC_OK;
}

/* Apply log records. The whole log is validated before anything changes; SVC_ERR on a malformed
 * log (unchanged), or when memory runs out part-way (records before the failure stay applied). */
int rc_hash_apply_log(rc_hash *h, const uint8_t *log, size_t len, char *err) {
    if (validate_log(log, len, err) != SVC_OK) return SVC_ERR;
    size_t off = 0;
    while (off < len) {
        const uint8_t *r = log + off;
        size_t kl = svc_le32_get(r + 3), vl = svc_le32_get(r + 7);
        const uint8_t *k = r + RC_HASH_REC_HDR, *v = k + kl;
        if (r[2] == RC_OP_PUT) {
            if (rc_hash_put(h, k, kl, v, vl) != SVC_OK) return svc_set_error(err, "rc_hash log: out of memory");
        } else if (r[2] == RC_OP_DEL) {
            rc_hash_del(h, k, kl);
        } else {
            if (log_record(h->log, RC_OP_CLEAR, NULL, 0, NULL, 0) != SVC_OK)
                return svc_set_error(err, "rc_hash log: out of memory");
            free_entries(h->slots, h->cap);
            memset(h->slots, 0, h->cap * sizeof(rc_slot));
            h->count = 0;
        }
        off += RC_HASH_REC_HDR + kl + vl;
    }
    return SVC_OK;
}
