/* SPDX-License-Identifier: Apache-2.0 */
/*
 * top_ranker: top-K items by score, found with quicksort (paper Table 2). Stateful: the scores
 * live in one rc_hash (item -> score), so the state moves with a snapshot.
 *
 * Config:   none.
 * Requests (text, one line, fields separated by spaces; a trailing "\n" is ignored):
 *   "ADD <item> <score>"  set the item's score (a new item, or replace) → "OK\n"
 *   "DEL <item>"          forget the item → "OK\n", or "NOT_FOUND\n"
 *   "TOP <k>"             the k best items (k >= 0), one "<item> <score>\n" line each, best
 *                         first: higher score first, equal scores by item bytes ascending; the
 *                         score is printed with the fewest digits that read back exactly. When
 *                         the lines would exceed SVC_MAX_RESPONSE, the response stops at the
 *                         last whole line that fits.
 *   An item is 1..255 bytes without spaces; a score is a finite number (strtod syntax).
 * Ranking: the items are copied into an array and partially quicksorted (median-of-three
 *   pivot, Lomuto partition; only partitions holding one of the first k places are sorted).
 * State: the rc_hash snapshot; each value is the score as an IEEE-754 double, 8 bytes LE.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/rc.h"
#include "e3svc/svc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

#define TR_ITEM_MAX 255 /* bytes of an item name */

struct svc_instance {
    rc_hash *scores; /* item -> score (f64 LE) */
};

typedef struct tr_item {
    const uint8_t *name; /* into the rc_hash, valid until its next mutation */
    size_t len;          /* bytes of name */
    double score;        /* the item's score */
} tr_item;

typedef struct tr_gather {
    tr_item *items; /* rc_hash_count entries */
    size_t n;       /* filled so far */
} tr_gather;

/* Ranking order: -1 if a ranks before b (higher score, then smaller name), 1 after. Names are
 * unique, so it never returns 0 for different items. */
static int tr_cmp(const tr_item *a, const tr_item *b) {
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, m);
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static void tr_swap(tr_item *a, tr_item *b) {
    tr_item t = *a;
    *a = *b;
    *b = t;
}

/* Partially quicksort a[lo..hi) so that a[0..k) holds the k first items in ranking order. */
static void tr_quicksort(tr_item *a, size_t lo, size_t hi, size_t k) {
    while (hi - lo > 1 && lo < k) {
        size_t mid = lo + (hi - lo) / 2, last = hi - 1;
        /* median of three moved to a[last] as the pivot */
        if (tr_cmp(&a[mid], &a[lo]) < 0) tr_swap(&a[mid], &a[lo]);
        if (tr_cmp(&a[last], &a[lo]) < 0) tr_swap(&a[last], &a[lo]);
        if (tr_cmp(&a[mid], &a[last]) < 0) tr_swap(&a[mid], &a[last]);
        size_t p = lo;
        for (size_t i = lo; i < last; i++)
            if (tr_cmp(&a[i], &a[last]) < 0) tr_swap(&a[i], &a[p++]);
        tr_swap(&a[p], &a[last]);
        /* a[lo..p) rank before the pivot, a[p+1..hi) after; recurse into the smaller needed side */
        if (p - lo < hi - p - 1) {
            tr_quicksort(a, lo, p, k);
            lo = p + 1;
        } else {
            tr_quicksort(a, p + 1, hi, k);
            hi = p;
        }
    }
}

static int tr_gather_one(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    tr_gather *g = ctx;
    (void)vl;
    g->items[g->n++] = (tr_item){k, kl, svc_lef64_get(v)};
    return 0;
}

/* Append the TOP k response. */
static int tr_top(struct svc_instance *s, size_t k, svc_buf *resp, char *err) {
    size_t n = rc_hash_count(s->scores);
    tr_gather g = {NULL, 0};
    if (n == 0 || k == 0) return SVC_OK;
    g.items = malloc(n * sizeof(*g.items));
    if (!g.items) return svc_set_error(err, "top_ranker: out of memory");
    rc_hash_each(s->scores, tr_gather_one, &g);
    if (k > n) k = n;
    tr_quicksort(g.items, 0, n, k);
    for (size_t i = 0; i < k; i++) {
        char num[40];
        svc_text_fmt_double(num, sizeof(num), g.items[i].score);
        size_t nl = strlen(num);
        if (resp->len + g.items[i].len + 1 + nl + 1 > SVC_MAX_RESPONSE) break;
        if (svc_buf_append(resp, g.items[i].name, g.items[i].len) != SVC_OK || svc_buf_append(resp, " ", 1) != SVC_OK ||
            svc_buf_append(resp, num, nl) != SVC_OK || svc_buf_append(resp, "\n", 1) != SVC_OK) {
            free(g.items);
            return svc_set_error(err, "top_ranker: out of memory");
        }
    }
    free(g.items);
    return SVC_OK;
}

/* Handle ADD / DEL / TOP (see the file comment). */
static int tr_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    char *f[4];  /* the request's fields, NUL-terminated in place */
    size_t fl[4]; /* their lengths */
    size_t nf = 0, pos = 0, st, l;
    char *line = svc_text_request_line(req, req_len);
    if (!line) return svc_set_error(err, "top_ranker: bad request (embedded line break or NUL) or out of memory");
    size_t len = strlen(line);
    while (nf < 4 && svc_text_next_field(line, len, &pos, &st, &l)) {
        f[nf] = line + st;
        fl[nf++] = l;
    }
    for (size_t i = 0; i < nf; i++) f[i][fl[i]] = '\0';
    if (nf == 3 && strcmp(f[0], "ADD") == 0) {
        double score;
        uint8_t v[8];
        if (fl[1] > TR_ITEM_MAX) {
            svc_set_error(err, "top_ranker: item longer than %d bytes", TR_ITEM_MAX);
            goto err;
        }
        if (!svc_text_parse_double(f[2], &score)) {
            svc_set_error(err, "top_ranker: score '%.40s' is not a finite number", f[2]);
            goto err;
        }
        svc_lef64_put(v, score);
        if (rc_hash_put(inst->scores, f[1], fl[1], v, sizeof(v)) != SVC_OK ||
            svc_buf_append(resp, "OK\n", 3) != SVC_OK) {
            svc_set_error(err, "top_ranker: out of memory");
            goto err;
        }
    } else if (nf == 2 && strcmp(f[0], "DEL") == 0) {
        const char *r = rc_hash_del(inst->scores, f[1], fl[1]) ? "OK\n" : "NOT_FOUND\n";
        if (svc_text_append_str(resp, r) != SVC_OK) {
            svc_set_error(err, "top_ranker: out of memory");
            goto err;
        }
    } else if (nf == 2 && strcmp(f[0], "TOP") == 0) {
        long long k;
        if (!svc_text_parse_i64(f[1], &k) || k < 0) {
            svc_set_error(err, "top_ranker: TOP needs a count >= 0");
            goto err;
        }
        if (tr_top(inst, (size_t)k, resp, err) != SVC_OK) goto err;
    } else {
        svc_set_error(err, "top_ranker: want ADD <item> <score>, DEL <item> or TOP <k>");
        goto err;
    }
    free(line);
    return SVC_OK;
err:
    free(line);
    return SVC_ERR;
}

/* Import check: 1 if the entry is a valid item and score. */
static int tr_check_entry(const void *k, size_t kl, const void *v, size_t vl, const svc_instance *inst) {
    (void)inst;
    return kl > 0 && kl <= TR_ITEM_MAX && !memchr(k, ' ', kl) && !memchr(k, '\t', kl) && vl == 8 &&
           isfinite(svc_lef64_get(v));
}

static const svc_hashstate tr_state = {
    .name = "top_ranker",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, scores),
    .check = tr_check_entry,
    .malformed = "state holds a malformed item or score",
};

static void tr_destroy(svc_instance *inst) { svc_hashstate_destroy(&tr_state, inst); }

/* Create an empty ranker; the config is ignored. */
static int tr_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)config;
    svc_instance *s = svc_hashstate_create(&tr_state, env, err);
    if (!s) return SVC_ERR;
    *out = s;
    return SVC_OK;
}

SVC_HASHSTATE_SNAPSHOT_OPS(tr, tr_state)

SVC_HASHSTATE_LOG_OPS(tr, tr_state)

const svc_type svc_top_ranker = {
    .name = "top_ranker",
    .stateful = 1,
    .create = tr_create,
    .handle = tr_handle,
    .export_state = tr_export,
    .import_state = tr_import,
    .destroy = tr_destroy,
    .drain_log = tr_drain_log,
    .apply_log = tr_apply_log,
};
