/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reliable array: a fixed number of fixed-size elements, zero-filled at creation (rc.h).
 *
 * Snapshot format (little-endian):
 *   magic "E3RA" (4 bytes) | version u32 = 1 | count u64 | elem_size u32 | data[count*elem_size]
 * A snapshot restores only into an array of the same count and elem_size.
 *
 * Replication-log record format (records are concatenated):
 *   magic 0xE3 u8 | version u8 = 1 | op u8 | elem_size u32 | index u64 | data
 *   op 1 = SET: data = one element (elem_size bytes) written at `index`;
 *   op 2 = FILL: `index` holds the element count, data = the whole array (a restore, logged).
 * elem_size and index/count must match the applying array.
 */
#include <stdlib.h>
#include <string.h>

#include "e3svc/rc.h"
#include "svc_util.h"

#define RC_ARRAY_MAGIC "E3RA"
#define RC_ARRAY_VERSION 1u
#define RC_LOG_MAGIC 0xE3u
#define RC_LOG_VERSION 1u
#define RC_OP_SET 1u
#define RC_OP_FILL 2u
#define RC_ARRAY_REC_HDR 15u  /* bytes of a log record header */
#define RC_ARRAY_SNAP_HDR 20u /* bytes of a snapshot header */

struct rc_array {
    uint8_t *data;    /* count * elem_size bytes */
    size_t count;     /* elements */
    size_t elem_size; /* bytes per element */
    svc_buf *log;     /* replication log, or NULL */
};

/* Create `count` zeroed elements of `elem_size` bytes (both > 0, elem_size < 2^32); NULL on bad
 * sizes or when memory runs out. */
rc_array *rc_array_new(size_t count, size_t elem_size, svc_buf *log) {
    if (count == 0 || elem_size == 0 || elem_size > UINT32_MAX || count > SIZE_MAX / elem_size) return NULL;
    rc_array *a = calloc(1, sizeof(*a));
    if (!a) return NULL;
    a->data = calloc(count, elem_size);
    if (!a->data) {
        free(a);
        return NULL;
    }
    a->count = count;
    a->elem_size = elem_size;
    a->log = log;
    return a;
}

/* Free the array (not the log). NULL is accepted. */
void rc_array_free(rc_array *a) {
    if (!a) return;
    free(a->data);
    free(a);
}

/* Number of elements. */
size_t rc_array_count(const rc_array *a) { return a->count; }
/* Bytes per element. */
size_t rc_array_elem_size(const rc_array *a) { return a->elem_size; }

/* Element i for reading (valid until freed), or NULL if out of range. */
const void *rc_array_get(const rc_array *a, size_t i) {
    if (i >= a->count) return NULL;
    return a->data + i * a->elem_size;
}

static int log_record(svc_buf *log, unsigned op, size_t elem_size, uint64_t index, const void *data, size_t n) {
    if (!log) return SVC_OK;
    size_t mark = log->len;
    uint8_t hdr[RC_ARRAY_REC_HDR] = {RC_LOG_MAGIC, RC_LOG_VERSION, (uint8_t)op};
    svc_le32_put(hdr + 3, (uint32_t)elem_size);
    svc_le64_put(hdr + 7, index);
    if (svc_buf_append(log, hdr, sizeof(hdr)) != SVC_OK || svc_buf_append(log, data, n) != SVC_OK) {
        log->len = mark;
        return SVC_ERR;
    }
    return SVC_OK;
}

/* Overwrite element i (logged). SVC_ERR, unchanged, if out of range or the log cannot grow. */
int rc_array_set(rc_array *a, size_t i, const void *elem) {
    if (i >= a->count) return SVC_ERR;
    if (log_record(a->log, RC_OP_SET, a->elem_size, i, elem, a->elem_size) != SVC_OK) return SVC_ERR;
    memcpy(a->data + i * a->elem_size, elem, a->elem_size);
    return SVC_OK;
}

/* Append a snapshot (format above); SVC_ERR (out unchanged) when memory runs out. */
int rc_array_snapshot(const rc_array *a, svc_buf *out) {
    size_t mark = out->len;
    uint8_t hdr[RC_ARRAY_SNAP_HDR];
    memcpy(hdr, RC_ARRAY_MAGIC, 4);
    svc_le32_put(hdr + 4, RC_ARRAY_VERSION);
    svc_le64_put(hdr + 8, a->count);
    svc_le32_put(hdr + 16, (uint32_t)a->elem_size);
    if (svc_buf_append(out, hdr, sizeof(hdr)) != SVC_OK ||
        svc_buf_append(out, a->data, a->count * a->elem_size) != SVC_OK) {
        out->len = mark;
        return SVC_ERR;
    }
    return SVC_OK;
}

/* Replace the contents with a snapshot of an array of the same shape (logged as FILL).
 * SVC_ERR, unchanged, on a malformed or mismatched snapshot. */
int rc_array_restore(rc_array *a, const uint8_t *snap, size_t len, char *err) {
    if (len < RC_ARRAY_SNAP_HDR || memcmp(snap, RC_ARRAY_MAGIC, 4) != 0)
        return svc_set_error(err, "rc_array snapshot: bad magic or truncated header");
    if (svc_le32_get(snap + 4) != RC_ARRAY_VERSION)
        return svc_set_error(err, "rc_array snapshot: unsupported version %u", (unsigned)svc_le32_get(snap + 4));
    uint64_t count = svc_le64_get(snap + 8), esize = svc_le32_get(snap + 16);
    if (count != a->count || esize != a->elem_size)
        return svc_set_error(err, "rc_array snapshot: shape %llux%llu does not match %zux%zu",
                             (unsigned long long)count, (unsigned long long)esize, a->count, a->elem_size);
    if (len - RC_ARRAY_SNAP_HDR != a->count * a->elem_size)
        return svc_set_error(err, "rc_array snapshot: %zu data bytes, expected %zu", len - RC_ARRAY_SNAP_HDR,
                             a->count * a->elem_size);
    const uint8_t *data = snap + RC_ARRAY_SNAP_HDR;
    if (log_record(a->log, RC_OP_FILL, a->elem_size, a->count, data, a->count * a->elem_size) != SVC_OK)
        return svc_set_error(err, "rc_array snapshot: out of memory for the log");
    memcpy(a->data, data, a->count * a->elem_size);
    return SVC_OK;
}

/* Validate log records against the array's shape (format above). */
int rc_array_log_check(const rc_array *a, const uint8_t *log, size_t len, char *err) {
    size_t off = 0;
    while (off < len) {
        if (len - off < RC_ARRAY_REC_HDR) return svc_set_error(err, "rc_array log: truncated record at %zu", off);
        const uint8_t *r = log + off;
        if (r[0] != RC_LOG_MAGIC || r[1] != RC_LOG_VERSION)
            return svc_set_error(err, "rc_array log: bad magic/version at %zu", off);
        if (svc_le32_get(r + 3) != a->elem_size)
            return svc_set_error(err, "rc_array log: element size mismatch at %zu", off);
        uint64_t idx = svc_le64_get(r + 7);
        size_t n;
        if (r[2] == RC_OP_SET) {
            if (idx >= a->count) return svc_set_error(err, "rc_array log: index out of range at %zu", off);
            n = a->elem_size;
        } else if (r[2] == RC_OP_FILL) {
            if (idx != a->count) return svc_set_error(err, "rc_array log: count mismatch at %zu", off);
            n = a->count * a->elem_size;
        } else {
            return svc_set_error(err, "rc_array log: bad op %u at %zu", r[2], off);
        }
        off += RC_ARRAY_REC_HDR;
        if (n > len - off) return svc_set_error(err, "rc_array log: record overruns the data at %zu", off);
        off += n;
    }
    return SVC_OK;
}

/* Apply log records; the whole log is validated first (SVC_ERR and unchanged if malformed or
 * of another shape). Applying cannot fail after validation unless this array's own log cannot
 * grow. */
int rc_array_apply_log(rc_array *a, const uint8_t *log, size_t len, char *err) {
    if (rc_array_log_check(a, log, len, err) != SVC_OK) return SVC_ERR;
    for (size_t off = 0; off < len;) {
        const uint8_t *r = log + off;
        uint64_t idx = svc_le64_get(r + 7);
        const uint8_t *d = r + RC_ARRAY_REC_HDR;
        size_t n = r[2] == RC_OP_SET ? a->elem_size : a->count * a->elem_size;
        size_t at = r[2] == RC_OP_SET ? (size_t)idx : 0;
        if (log_record(a->log, r[2], a->elem_size, idx, d, n) != SVC_OK)
            return svc_set_error(err, "rc_array log: out of memory for the log");
        memcpy(a->data + at * a->elem_size, d, n);
        off += RC_ARRAY_REC_HDR + n;
    }
    return SVC_OK;
}
