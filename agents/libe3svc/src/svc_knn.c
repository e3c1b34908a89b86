/* SPDX-License-Identifier: Apache-2.0 */
/*
 * knn: k-nearest-neighbours classifier (paper Table 2). Stateless: the labelled points are
 * read-only configuration; export writes nothing.
 *
 * Config:   points=<x1>,<x2>,...,<xd>:<label>|...   all points of one dimension d (1..64);
 *                                                   a label is 1..63 bytes without ':' or '|'
 *           k=3                                     neighbours that vote (>= 1; capped at the
 *                                                   number of points)
 * Request:  "<x1>,<x2>,...,<xd>" (commas and/or spaces separate; a trailing "\n" is ignored).
 * Response: "<label>\n": the majority label among the k points nearest in Euclidean distance.
 *   Equal distances rank by config order; a tie in votes goes to the tied label whose nearest
 *   member is nearest.
 */
#include <stdlib.h>
#include <string.h>

#include "e3svc/svc.h"
#include "svc_util.h"

#define KNN_MAX_DIM 64   /* coordinates per point */
#define KNN_LABEL_MAX 64 /* bytes of a label, NUL included */

typedef struct knn_point {
    double *x;                 /* dim coordinates (into the instance's coords) */
    size_t label;              /* index into labels */
} knn_point;

struct svc_instance {
    double *coords;                  /* npoints * dim coordinates */
    knn_point *points;               /* the labelled points, in config order */
    size_t npoints;                  /* entries of points */
    size_t dim;                      /* coordinates per point */
    char (*labels)[KNN_LABEL_MAX];   /* distinct labels, first-seen order */
    size_t nlabels;                  /* entries of labels */
    size_t k;                        /* voters */
};

typedef struct knn_cand {
    double d2;    /* squared distance to the query */
    size_t index; /* point index */
} knn_cand;

/* Parse coordinates from s[0..len) (commas/spaces separate) into x; *n receives the count.
 * Returns 1, or 0 on a malformed number or more than max coordinates. */
static int knn_parse_coords(const char *s, size_t len, double *x, size_t max, size_t *n) {
    size_t cnt = 0, i = 0;
    char num[64];
    while (i < len) {
        while (i < len && (s[i] == ',' || s[i] == ' ' || s[i] == '\t')) i++;
        if (i >= len) break;
        size_t j = i;
        while (j < len && s[j] != ',' && s[j] != ' ' && s[j] != '\t') j++;
        if (j - i >= sizeof(num) || cnt == max) return 0;
        memcpy(num, s + i, j - i);
        num[j - i] = '\0';
        if (!svc_text_parse_double(num, &x[cnt++])) return 0;
        i = j;
    }
    *n = cnt;
    return 1;
}

static void knn_destroy(svc_instance *inst) {
    if (!inst) return;
    free(inst->coords);
    free(inst->points);
    free(inst->labels);
    free(inst);
}

/* Create from config: parse the points (see the file comment). */
static int knn_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)env;
    int found;
    long long k;
    char *list = NULL;
    struct svc_instance *s = calloc(1, sizeof(*s));
    if (!s) return svc_set_error(err, "knn: out of memory");
    if (svc_text_config_long(config, "k", 3, &k, err) != SVC_OK) goto err;
    if (k < 1) {
        svc_set_error(err, "knn: k must be >= 1");
        goto err;
    }
    list = svc_text_config_dup(config, "points", &found);
    if (!list || !list[0]) {
        svc_set_error(err, found ? "knn: out of memory or empty points" : "knn: config needs points=");
        goto err;
    }
    size_t cap = 1;
    for (const char *c = list; *c; c++) cap += *c == '|';
    s->points = calloc(cap, sizeof(*s->points));
    s->labels = calloc(cap, sizeof(*s->labels));
    s->coords = calloc(cap * KNN_MAX_DIM, sizeof(*s->coords));
    if (!s->points || !s->labels || !s->coords) {
        svc_set_error(err, "knn: out of memory");
        goto err;
    }
    for (char *p = list; *p;) {
        char *bar = strchr(p, '|');
        size_t pl = bar ? (size_t)(bar - p) : strlen(p);
        char *colon = memchr(p, ':', pl);
        size_t n;
        double *x = &s->coords[s->npoints * KNN_MAX_DIM];
        if (!colon || !knn_parse_coords(p, (size_t)(colon - p), x, KNN_MAX_DIM, &n) || n == 0) {
            svc_set_error(err, "knn: bad point %zu (want x1,...,xd:label with 1..%d coordinates)", s->npoints,
                          KNN_MAX_DIM);
            goto err;
        }
        if (s->npoints == 0) s->dim = n;
        if (n != s->dim) {
            svc_set_error(err, "knn: point %zu has %zu coordinates, point 0 has %zu", s->npoints, n, s->dim);
            goto err;
        }
        char *lab = colon + 1, *end = p + pl;
        while (lab < end && *lab == ' ') lab++;
        while (end > lab && end[-1] == ' ') end--;
        size_t ll = (size_t)(end - lab);
        if (ll == 0 || ll >= KNN_LABEL_MAX || memchr(lab, ':', ll)) {
            svc_set_error(err, "knn: point %zu: label must be 1..%d bytes without ':'", s->npoints, KNN_LABEL_MAX - 1);
            goto err;
        }
        size_t li = 0;
        while (li < s->nlabels && !(strlen(s->labels[li]) == ll && memcmp(s->labels[li], lab, ll) == 0)) li++;
        if (li == s->nlabels) {
            memcpy(s->labels[li], lab, ll);
            s->labels[li][ll] = '\0';
            s->nlabels++;
        }
        s->points[s->npoints].x = x;
        s->points[s->npoints].label = li;
        s->npoints++;
        p = bar ? bar + 1 : p + pl;
    }
    if (s->npoints == 0) {
        svc_set_error(err, "knn: config needs at least one point");
        goto err;
    }
    s->k = (size_t)k < s->npoints ? (size_t)k : s->npoints;
    free(list);
    *out = s;
    return SVC_OK;
err:
    free(list);
    knn_destroy(s);
    return SVC_ERR;
}

static int knn_cmp_cand(const void *a, const void *b) {
    const knn_cand *x = a, *y = b;
    if (x->d2 != y->d2) return x->d2 < y->d2 ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Classify one query point (see the file comment). */
static int knn_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    double q[KNN_MAX_DIM];
    size_t n;
    knn_cand *c = NULL;
    size_t *votes = NULL;
    char *line = svc_text_request_line(req, req_len);
    if (!line) return svc_set_error(err, "knn: bad request (embedded line break or NUL) or out of memory");
    if (!knn_parse_coords(line, strlen(line), q, KNN_MAX_DIM, &n) || n != inst->dim) {
        svc_set_error(err, "knn: request must be %zu numbers", inst->dim);
        goto err;
    }
    c = malloc(inst->npoints * sizeof(*c));
    votes = calloc(inst->nlabels, sizeof(*votes));
    if (!c || !votes) {
        svc_set_error(err, "knn: out of memory");
        goto err;
    }
    for (size_t i = 0; i < inst->npoints; i++) {
        double d2 = 0;
        for (size_t j = 0; j < inst->dim; j++) {
            double d = inst->points[i].x[j] - q[j];
            d2 += d * d;
        }
        c[i] = (knn_cand){d2, i};
    }
    qsort(c, inst->npoints, sizeof(*c), knn_cmp_cand);
    size_t best = inst->points[c[0].index].label;
    for (size_t i = 0; i < inst->k; i++) votes[inst->points[c[i].index].label]++;
    /* Walking the voters nearest first, a label replaces the best only with strictly more votes,
     * so ties go to the label met first, i.e. with the nearest member. */
    for (size_t i = 0; i < inst->k; i++) {
        size_t l = inst->points[c[i].index].label;
        if (votes[l] > votes[best]) best = l;
    }
    if (svc_text_append_str(resp, inst->labels[best]) != SVC_OK || svc_buf_append(resp, "\n", 1) != SVC_OK) {
        svc_set_error(err, "knn: out of memory");
        goto err;
    }
    free(votes);
    free(c);
    free(line);
    return SVC_OK;
err:
    free(votes);
    free(c);
    free(line);
    return SVC_ERR;
}

/* Stateless: the points are configuration, so nothing is exported. */
static int knn_export(svc_instance *inst, svc_buf *out, char *err) {
    (void)inst;
    (void)out;
    (void)err;
    return SVC_OK;
}

/* Stateless: only an empty state is accepted. */
static int knn_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    (void)inst;
    (void)state;
    if (len) return svc_set_error(err, "knn: stateless service, expected empty state");
    return SVC_OK;
}

const svc_type svc_knn = {
    .name = "knn",
    .stateful = 0,
    .create = knn_create,
    .handle = knn_handle,
    .export_state = knn_export,
    .import_state = knn_import,
    .destroy = knn_destroy,
};
