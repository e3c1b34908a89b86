/* SPDX-License-Identifier: Apache-2.0 */
/*
 * recommend: user-based collaborative filtering (paper Table 2). Stateful: the user-item rating
 * matrix lives in one rc_hash, one row per user, so the state moves with a snapshot.
 *
 * Config:   none.
 * Requests (text, one line, fields separated by spaces; a trailing "\n" is ignored):
 *   "RATE <user> <item> <score>"  set user's rating of item (finite number) → "OK\n"
 *   "RECOMMEND <user> <k>"        the k (>= 0) items the user has not rated with the highest
 *                                 predicted rating, one "<item> <prediction>\n" line each,
 *                                 prediction printed "%.4f"; ties by item bytes ascending;
 *                                 empty when nothing can be predicted.
 *   Users and items are 1..255 bytes without spaces.
 * Prediction: sim(u, v) = cosine of the two users' rating rows (sum over common items of
 *   r(u,i) r(v,i), divided by the product of the rows' Euclidean norms over all their items).
 *   Every other user v with sim(u, v) > 0 is a neighbour; for an item i that u has not rated,
 *   pred(u, i) = sum_v sim(u, v) r(v, i) / sum_v sim(u, v), over the neighbours who rated i.
 * State: the rc_hash snapshot; key = user, value = the user's row: entries sorted by item bytes,
 *   each item_len u16 LE, item bytes, score f64 LE (IEEE-754 bits).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/rc.h"
#include "e3svc/svc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

#define REC_NAME_MAX 255 /* bytes of a user or item name */

struct svc_instance {
    rc_hash *rows; /* user -> rating row (see the file comment) */
};

/* Cursor over a row's entries. */
typedef struct rec_iter {
    const uint8_t *p;   /* next entry */
    const uint8_t *end; /* end of the row */
} rec_iter;

/* Next entry of a row; returns 1 (item, its length, score), 0 at the end, -1 if malformed. */
static int rec_next(rec_iter *it, const uint8_t **item, size_t *ilen, double *score) {
    if (it->p == it->end) return 0;
    if (it->end - it->p < 2) return -1;
    size_t l = svc_le16_get(it->p);
    if (l == 0 || l > REC_NAME_MAX || (size_t)(it->end - it->p) < 2 + l + 8) return -1;
    *item = it->p + 2;
    *ilen = l;
    *score = svc_lef64_get(it->p + 2 + l);
    it->p += 2 + l + 8;
    return 1;
}

static int rec_cmp_name(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c) return c;
    return al < bl ? -1 : al > bl;
}

/* Whether a row is well formed: entries parse, items strictly ascending, scores finite. */
static int rec_row_valid(const uint8_t *row, size_t len) {
    rec_iter it = {row, row + len};
    const uint8_t *prev = NULL, *item;
    size_t pl = 0, il;
    double sc;
    int r;
    while ((r = rec_next(&it, &item, &il, &sc)) == 1) {
        if (!isfinite(sc) || memchr(item, ' ', il) || (prev && rec_cmp_name(prev, pl, item, il) >= 0)) return 0;
        prev = item;
        pl = il;
    }
    return r == 0;
}

/* Score of `item` in a (valid) row, or NAN when unrated. */
static double rec_lookup(const uint8_t *row, size_t len, const uint8_t *item, size_t ilen) {
    rec_iter it = {row, row + len};
    const uint8_t *x;
    size_t xl;
    double sc;
    while (rec_next(&it, &x, &xl, &sc) == 1)
        if (xl == ilen && memcmp(x, item, ilen) == 0) return sc;
    return NAN;
}

static double rec_norm(const uint8_t *row, size_t len) {
    rec_iter it = {row, row + len};
    const uint8_t *x;
    size_t xl;
    double sc, sum = 0;
    while (rec_next(&it, &x, &xl, &sc) == 1) sum += sc * sc;
    return sqrt(sum);
}

/* Append one row entry (item, score) to `row`. */
static int rec_put_entry(svc_buf *row, const char *item, size_t il, double score) {
    uint8_t hdr[2], num[8];
    svc_le16_put(hdr, (uint16_t)il);
    svc_lef64_put(num, score);
    if (svc_buf_append(row, hdr, 2) != SVC_OK || svc_buf_append(row, item, il) != SVC_OK) return SVC_ERR;
    return svc_buf_append(row, num, 8);
}

/* RATE: rebuild the user's row with the item set, and store it (one rc_hash put). */
static int rec_rate(struct svc_instance *s, const char *user, size_t ul, const char *item, size_t il, double score,
                    char *err) {
    size_t olen = 0;
    const uint8_t *old = rc_hash_get(s->rows, user, ul, &olen);
    svc_buf row = {0};
    rec_iter it = {old, old ? old + olen : NULL};
    const uint8_t *x;
    size_t xl;
    double sc;
    int placed = 0;
    while (old && rec_next(&it, &x, &xl, &sc) == 1) {
        int c = rec_cmp_name(x, xl, (const uint8_t *)item, il);
        if (c >= 0 && !placed) {
            if (rec_put_entry(&row, item, il, score) != SVC_OK) goto err;
            placed = 1;
        }
        if (c == 0) continue; /* the old rating of the item */
        if (svc_buf_append(&row, x - 2, 2 + xl + 8) != SVC_OK) goto err;
    }
    if (!placed && rec_put_entry(&row, item, il, score) != SVC_OK) goto err;
    if (rc_hash_put(s->rows, user, ul, row.data, row.len) != SVC_OK) goto err;
    svc_buf_free(&row);
    return SVC_OK;
err:
    svc_buf_free(&row);
    return svc_set_error(err, "recommend: out of memory");
}

/* Accumulator of one RECOMMEND: the target row and a scratch map item -> (sum sim*r, sum sim). */
typedef struct rec_acc {
    const uint8_t *user; /* the target user */
    size_t ulen;         /* bytes of user */
    const uint8_t *row;  /* the target's row */
    size_t rlen;         /* bytes of row */
    double norm;         /* the target row's norm */
    rc_hash *pred;       /* item -> two f64 (numerator, denominator); a plain scratch map */
    int oom;             /* set when the scratch map ran out of memory */
} rec_acc;

static int rec_acc_user(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    rec_acc *a = ctx;
    if (kl == a->ulen && memcmp(k, a->user, kl) == 0) return 0;
    double dot = 0, nv = rec_norm(v, vl);
    rec_iter it = {v, (const uint8_t *)v + vl};
    const uint8_t *x;
    size_t xl;
    double sc;
    while (rec_next(&it, &x, &xl, &sc) == 1) {
        double mine = rec_lookup(a->row, a->rlen, x, xl);
        if (!isnan(mine)) dot += mine * sc;
    }
    if (dot <= 0 || nv == 0) return 0;
    double sim = dot / (a->norm * nv);
    it = (rec_iter){v, (const uint8_t *)v + vl};
    while (rec_next(&it, &x, &xl, &sc) == 1) {
        if (!isnan(rec_lookup(a->row, a->rlen, x, xl))) continue;
        double nd[2] = {0, 0};
        size_t pl;
        const uint8_t *p = rc_hash_get(a->pred, x, xl, &pl);
        if (p) nd[0] = svc_lef64_get(p), nd[1] = svc_lef64_get(p + 8);
        nd[0] += sim * sc;
        nd[1] += sim;
        uint8_t val[16];
        svc_lef64_put(val, nd[0]);
        svc_lef64_put(val + 8, nd[1]);
        if (rc_hash_put(a->pred, x, xl, val, sizeof(val)) != SVC_OK) {
            a->oom = 1;
            return 1;
        }
    }
    return 0;
}

typedef struct rec_out {
    const uint8_t *item; /* into the scratch map */
    size_t len;          /* bytes of item */
    double pred;         /* predicted rating */
} rec_out;

typedef struct rec_list {
    rec_out *v; /* entries */
    size_t n;   /* filled */
} rec_list;

static int rec_collect(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    rec_list *l = ctx;
    (void)vl;
    l->v[l->n++] = (rec_out){k, kl, svc_lef64_get(v) / svc_lef64_get((const uint8_t *)v + 8)};
    return 0;
}

static int rec_cmp_out(const void *a, const void *b) {
    const rec_out *x = a, *y = b;
    if (x->pred != y->pred) return x->pred > y->pred ? -1 : 1;
    return rec_cmp_name(x->item, x->len, y->item, y->len);
}

/* RECOMMEND: predict every unrated item from the positive-similarity neighbours. */
static int rec_recommend(struct svc_instance *s, const char *user, size_t ul, size_t k, svc_buf *resp, char *err) {
    rec_acc a = {(const uint8_t *)user, ul, NULL, 0, 0, NULL, 0};
    rec_list l = {NULL, 0};
    a.row = rc_hash_get(s->rows, user, ul, &a.rlen);
    if (!a.row || k == 0) return SVC_OK;
    a.norm = rec_norm(a.row, a.rlen);
    if (a.norm == 0) return SVC_OK;
    a.pred = rc_hash_new(NULL);
    if (!a.pred) goto err;
    rc_hash_each(s->rows, rec_acc_user, &a);
    if (a.oom) goto err;
    size_t n = rc_hash_count(a.pred);
    l.v = malloc((n ? n : 1) * sizeof(*l.v));
    if (!l.v) goto err;
    rc_hash_each(a.pred, rec_collect, &l);
    qsort(l.v, l.n, sizeof(*l.v), rec_cmp_out);
    for (size_t i = 0; i < l.n && i < k; i++) {
        char num[48];
        int nl = snprintf(num, sizeof(num), " %.4f\n", l.v[i].pred);
        if (resp->len + l.v[i].len + (size_t)nl > SVC_MAX_RESPONSE) break;
        if (svc_buf_append(resp, l.v[i].item, l.v[i].len) || svc_buf_append(resp, num, (size_t)nl)) goto err;
    }
    free(l.v);
    rc_hash_free(a.pred);
    return SVC_OK;
err:
    free(l.v);
    if (a.pred) rc_hash_free(a.pred);
    return svc_set_error(err, "recommend: out of memory");
}

/* Handle RATE / RECOMMEND (see the file comment). */
static int rec_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    char *f[5];   /* the request's fields, NUL-terminated in place */
    size_t fl[5]; /* their lengths */
    size_t nf = 0, pos = 0, st, l;
    char *line = svc_text_request_line(req, req_len);
    if (!line) return svc_set_error(err, "recommend: bad request (embedded line break or NUL) or out of memory");
    size_t len = strlen(line);
    while (nf < 5 && svc_text_next_field(line, len, &pos, &st, &l)) {
        f[nf] = line + st;
        fl[nf++] = l;
    }
    for (size_t i = 0; i < nf; i++) f[i][fl[i]] = '\0';
    for (size_t i = 1; i < nf && i < 3; i++)
        if (fl[i] > REC_NAME_MAX) {
            svc_set_error(err, "recommend: names are at most %d bytes", REC_NAME_MAX);
            goto err;
        }
    if (nf == 4 && strcmp(f[0], "RATE") == 0) {
        double score;
        if (!svc_text_parse_double(f[3], &score)) {
            svc_set_error(err, "recommend: score '%.40s' is not a finite number", f[3]);
            goto err;
        }
        if (rec_rate(inst, f[1], fl[1], f[2], fl[2], score, err) != SVC_OK) goto err;
        if (svc_buf_append(resp, "OK\n", 3) != SVC_OK) {
            svc_set_error(err, "recommend: out of memory");
            goto err;
        }
    } else if (nf == 3 && strcmp(f[0], "RECOMMEND") == 0) {
        long long k;
        if (!svc_text_parse_i64(f[2], &k) || k < 0) {
            svc_set_error(err, "recommend: RECOMMEND needs a count >= 0");
            goto err;
        }
        if (rec_recommend(inst, f[1], fl[1], (size_t)k, resp, err) != SVC_OK) goto err;
    } else {
        svc_set_error(err, "recommend: want RATE <user> <item> <score> or RECOMMEND <user> <k>");
        goto err;
    }
    free(line);
    return SVC_OK;
err:
    free(line);
    return SVC_ERR;
}

/* Import check: 1 if the entry is a valid user and rating row. */
static int rec_check_entry(const void *k, size_t kl, const void *v, size_t vl, const svc_instance *inst) {
    (void)inst;
    return kl > 0 && kl <= REC_NAME_MAX && !memchr(k, ' ', kl) && rec_row_valid(v, vl);
}

static const svc_hashstate rec_state = {
    .name = "recommend",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, rows),
    .check = rec_check_entry,
    .malformed = "state holds a malformed rating row",
};

static void rec_destroy(svc_instance *inst) { svc_hashstate_destroy(&rec_state, inst); }

/* Create an empty rating matrix; the config is ignored. */
static int rec_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)config;
    svc_instance *s = svc_hashstate_create(&rec_state, env, err);
    if (!s) return SVC_ERR;
    *out = s;
    return SVC_OK;
}

SVC_HASHSTATE_SNAPSHOT_OPS(rec, rec_state)

SVC_HASHSTATE_LOG_OPS(rec, rec_state)

const svc_type svc_recommend = {
    .name = "recommend",
    .stateful = 1,
    .create = rec_create,
    .handle = rec_handle,
    .export_state = rec_export,
    .import_state = rec_import,
    .destroy = rec_destroy,
    .drain_log = rec_drain_log,
    .apply_log = rec_apply_log,
};
