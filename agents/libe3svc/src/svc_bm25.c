/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bm25: Okapi BM25 ranking over a small in-memory corpus (paper Table 2, a search engine's
 * ranking function). Stateless in the paper's sense: the corpus is read-only state owned by
 * the control plane, so export_state writes nothing and import_state accepts only nothing; a
 * replica is rebuilt from the same config (and the same ADD requests, which only the control
 * plane sends).
 *
 * Config:   docs=<id>:<text>|<id>:<text>|...   (optional) initial corpus
 *           k1=1.2; b=0.75                      BM25 parameters (defaults shown)
 *           top=10                              most results a QUERY returns (1..500)
 * Requests (one text line; a trailing "\n" is ignored):
 *   "ADD <doc_id> <text>"   add the document, or replace the one with that id → "OK\n"
 *   "QUERY <terms>"         rank the corpus    → one "<doc_id> <score>\n" line per document that
 *                           holds at least one term, best first (ties: doc id ascending), score
 *                           printed "%.6f"; an empty response when nothing matches.
 * Words are maximal runs of ASCII letters/digits, lowercased; a doc id is 1..63 bytes without
 * spaces, ':' or '|'. Repeated query terms count once.
 *
 * Scoring, for query terms q and document D of |D| words (avgdl = mean |D|, N documents, n(q)
 * documents containing q, f(q,D) occurrences of q in D):
 *   idf(q)   = ln(1 + (N - n(q) + 0.5) / (n(q) + 0.5))        (the non-negative Lucene form)
 *   score(D) = sum_q idf(q) * f(q,D) * (k1 + 1) / (f(q,D) + k1 * (1 - b + b * |D| / avgdl))
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/svc.h"
#include "svc_util.h"

#define BM25_ID_MAX 64   /* bytes of a doc id, NUL included */
#define BM25_TOP_MAX 500 /* results per QUERY, bounded so a response stays under SVC_MAX_RESPONSE */

typedef struct bm25_term {
    char *word;  /* lowercased, NUL-terminated, heap */
    uint32_t tf; /* occurrences in the document */
} bm25_term;

typedef struct bm25_doc {
    char id[BM25_ID_MAX]; /* NUL-terminated */
    size_t len;           /* words in the document */
    bm25_term *terms;     /* distinct words, sorted by strcmp */
    size_t nterms;        /* entries in terms */
} bm25_doc;

struct svc_instance {
    bm25_doc *docs; /* the corpus, in insertion order */
    size_t ndocs;   /* documents */
    size_t cap;     /* allocated entries of docs */
    double k1;      /* term-frequency saturation, >= 0 */
    double b;       /* length normalisation, 0..1 */
    long top;       /* results per QUERY */
};

static void bm25_doc_free(bm25_doc *d) {
    for (size_t i = 0; i < d->nterms; i++) free(d->terms[i].word);
    free(d->terms);
    d->terms = NULL;
    d->nterms = 0;
}

static int bm25_cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct lowercased words of text[0..len), sorted, into a fresh *words array (count *n).
 * Returns SVC_OK, or SVC_ERR when memory runs out. */
static int bm25_words(const char *text, size_t len, char ***words, size_t *n, char *err) {
    char **w = NULL;
    size_t cnt = 0, cap = 0, pos = 0, st, wl;
    while (svc_text_next_word(text, len, &pos, &st, &wl)) {
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nw = realloc(w, nc * sizeof(*w));
            if (!nw) goto err;
            w = nw;
            cap = nc;
        }
        char *s = malloc(wl + 1);
        if (!s) goto err;
        for (size_t i = 0; i < wl; i++) s[i] = (char)tolower((unsigned char)text[st + i]);
        s[wl] = '\0';
        w[cnt++] = s;
    }
    if (cnt) qsort(w, cnt, sizeof(*w), bm25_cmp_str);
    *words = w;
    *n = cnt;
    return SVC_OK;
err:
    for (size_t i = 0; i < cnt; i++) free(w[i]);
    free(w);
    return svc_set_error(err, "bm25: out of memory");
}

/* Build document `d` with id `id` from text[0..len). SVC_ERR (d untouched) on a bad id or OOM. */
static int bm25_doc_build(bm25_doc *d, const char *id, size_t idlen, const char *text, size_t len, char *err) {
    char **w = NULL;
    size_t n = 0;
    bm25_term *terms = NULL;
    size_t nt = 0;
    if (idlen == 0 || idlen >= BM25_ID_MAX)
        return svc_set_error(err, "bm25: doc id must be 1..%d bytes", BM25_ID_MAX - 1);
    for (size_t i = 0; i < idlen; i++)
        if (id[i] == ' ' || id[i] == '\t' || id[i] == ':' || id[i] == '|')
            return svc_set_error(err, "bm25: bad character in doc id");
    if (bm25_words(text, len, &w, &n, err) != SVC_OK) return SVC_ERR;
    if (n) {
        terms = malloc(n * sizeof(*terms));
        if (!terms) goto err;
    }
    for (size_t i = 0; i < n; i++) {
        if (nt && strcmp(terms[nt - 1].word, w[i]) == 0) {
            terms[nt - 1].tf++;
            free(w[i]);
        } else {
            terms[nt].word = w[i];
            terms[nt].tf = 1;
            nt++;
        }
    }
    free(w);
    memcpy(d->id, id, idlen);
    d->id[idlen] = '\0';
    d->len = n;
    d->terms = terms;
    d->nterms = nt;
    return SVC_OK;
err:
    for (size_t i = 0; i < n; i++) free(w[i]);
    free(w);
    return svc_set_error(err, "bm25: out of memory");
}

/* Add (or replace by id) document `id` with text[0..len). SVC_ERR changes nothing. */
static int bm25_add(struct svc_instance *s, const char *id, size_t idlen, const char *text, size_t len, char *err) {
    bm25_doc d;
    if (bm25_doc_build(&d, id, idlen, text, len, err) != SVC_OK) return SVC_ERR;
    for (size_t i = 0; i < s->ndocs; i++) {
        if (strcmp(s->docs[i].id, d.id) == 0) {
            bm25_doc_free(&s->docs[i]);
            s->docs[i] = d;
            return SVC_OK;
        }
    }
    if (s->ndocs == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        bm25_doc *nd = realloc(s->docs, nc * sizeof(*nd));
        if (!nd) {
            bm25_doc_free(&d);
            return svc_set_error(err, "bm25: out of memory");
        }
        s->docs = nd;
        s->cap = nc;
    }
    s->docs[s->ndocs++] = d;
    return SVC_OK;
}

/* Occurrences of `word` in `d` (binary search over its sorted terms). */
static uint32_t bm25_tf(const bm25_doc *d, const char *word) {
    size_t lo = 0, hi = d->nterms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(d->terms[mid].word, word);
        if (c == 0) return d->terms[mid].tf;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

typedef struct bm25_hit {
    const bm25_doc *doc; /* the scored document */
    double score;        /* its BM25 score */
    int matched;         /* 1 if some query term occurs in it */
} bm25_hit;

static int bm25_cmp_hit(const void *a, const void *b) {
    const bm25_hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return strcmp(x->doc->id, y->doc->id);
}

/* Rank the corpus against the query text[0..len); append the result lines to resp. */
static int bm25_query(struct svc_instance *s, const char *text, size_t len, svc_buf *resp, char *err) {
    char **w = NULL;
    size_t n = 0;
    bm25_hit *hits = NULL;
    int rc = SVC_ERR;
    if (bm25_words(text, len, &w, &n, err) != SVC_OK) return SVC_ERR;
    if (s->ndocs == 0 || n == 0) {
        rc = SVC_OK;
        goto err;
    }
    hits = calloc(s->ndocs, sizeof(*hits));
    if (!hits) {
        svc_set_error(err, "bm25: out of memory");
        goto err;
    }
    size_t total = 0;
    for (size_t i = 0; i < s->ndocs; i++) {
        total += s->docs[i].len;
        hits[i].doc = &s->docs[i];
    }
    double nd = (double)s->ndocs, avgdl = (double)total / nd;
    for (size_t q = 0; q < n; q++) {
        if (q && strcmp(w[q], w[q - 1]) == 0) continue; /* repeated term: counted once */
        size_t df = 0;
        for (size_t i = 0; i < s->ndocs; i++)
            if (bm25_tf(&s->docs[i], w[q])) df++;
        if (df == 0) continue;
        double idf = log(1.0 + (nd - (double)df + 0.5) / ((double)df + 0.5));
        for (size_t i = 0; i < s->ndocs; i++) {
            double f = bm25_tf(&s->docs[i], w[q]);
            if (f == 0) continue;
            double norm = s->k1 * (1.0 - s->b + s->b * (double)s->docs[i].len / avgdl);
            hits[i].score += idf * f * (s->k1 + 1.0) / (f + norm);
            hits[i].matched = 1;
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < s->ndocs; i++)
        if (hits[i].matched) hits[m++] = hits[i];
    qsort(hits, m, sizeof(*hits), bm25_cmp_hit);
    for (size_t i = 0; i < m && i < (size_t)s->top; i++) {
        char line[BM25_ID_MAX + 48];
        int l = snprintf(line, sizeof(line), "%s %.6f\n", hits[i].doc->id, hits[i].score);
        if (svc_buf_append(resp, line, (size_t)l) != SVC_OK) {
            svc_set_error(err, "bm25: out of memory");
            goto err;
        }
    }
    rc = SVC_OK;
err:
    for (size_t i = 0; i < n; i++) free(w[i]);
    free(w);
    free(hits);
    return rc;
}

static void bm25_destroy(svc_instance *inst) {
    if (!inst) return;
    for (size_t i = 0; i < inst->ndocs; i++) bm25_doc_free(&inst->docs[i]);
    free(inst->docs);
    free(inst);
}

/* Create from config (see the file comment). SVC_ERR on a malformed corpus or parameter. */
static int bm25_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)env;
    long long top;
    int found;
    char *docs = NULL;
    struct svc_instance *s = calloc(1, sizeof(*s));
    if (!s) return svc_set_error(err, "bm25: out of memory");
    if (svc_text_config_double(config, "k1", 1.2, &s->k1, err) != SVC_OK) goto err;
    if (svc_text_config_double(config, "b", 0.75, &s->b, err) != SVC_OK) goto err;
    if (svc_text_config_long(config, "top", 10, &top, err) != SVC_OK) goto err;
    if (s->k1 < 0 || s->b < 0 || s->b > 1) {
        svc_set_error(err, "bm25: need k1 >= 0 and 0 <= b <= 1");
        goto err;
    }
    if (top < 1 || top > BM25_TOP_MAX) {
        svc_set_error(err, "bm25: top must be 1..%d", BM25_TOP_MAX);
        goto err;
    }
    s->top = (long)top;
    docs = svc_text_config_dup(config, "docs", &found);
    if (!docs && found) {
        svc_set_error(err, "bm25: out of memory");
        goto err;
    }
    for (char *p = docs; p && *p;) {
        char *bar = strchr(p, '|');
        size_t dl = bar ? (size_t)(bar - p) : strlen(p);
        char *colon = memchr(p, ':', dl);
        if (!colon) {
            svc_set_error(err, "bm25: config doc without ':' (want <id>:<text>)");
            goto err;
        }
        while (p < colon && *p == ' ') p++;
        if (bm25_add(s, p, (size_t)(colon - p), colon + 1, (size_t)(p + dl - colon - 1), err) != SVC_OK) goto err;
        p = bar ? bar + 1 : p + dl;
    }
    free(docs);
    *out = s;
    return SVC_OK;
err:
    free(docs);
    bm25_destroy(s);
    return SVC_ERR;
}

/* Handle "ADD <id> <text>" or "QUERY <terms>" (see the file comment). */
static int bm25_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    char *line = svc_text_request_line(req, req_len);
    int rc = SVC_ERR;
    size_t pos = 0, st, fl;
    if (!line) return svc_set_error(err, "bm25: bad request (embedded line break or NUL) or out of memory");
    size_t len = strlen(line);
    if (!svc_text_next_field(line, len, &pos, &st, &fl)) {
        svc_set_error(err, "bm25: empty request");
        goto err;
    }
    if (fl == 5 && memcmp(line + st, "QUERY", 5) == 0) {
        rc = bm25_query(inst, line + pos, len - pos, resp, err);
    } else if (fl == 3 && memcmp(line + st, "ADD", 3) == 0) {
        size_t ids, idl;
        if (!svc_text_next_field(line, len, &pos, &ids, &idl)) {
            svc_set_error(err, "bm25: ADD needs a doc id");
            goto err;
        }
        if (bm25_add(inst, line + ids, idl, line + pos, len - pos, err) != SVC_OK) goto err;
        if (svc_buf_append(resp, "OK\n", 3) != SVC_OK) {
            svc_set_error(err, "bm25: out of memory");
            goto err;
        }
        rc = SVC_OK;
    } else {
        svc_set_error(err, "bm25: unknown command (want ADD or QUERY)");
    }
err:
    free(line);
    return rc;
}

/* Stateless: the corpus is configuration, so nothing is exported. */
static int bm25_export(svc_instance *inst, svc_buf *out, char *err) {
    (void)inst;
    (void)out;
    (void)err;
    return SVC_OK;
}

/* Stateless: only an empty state is accepted. */
static int bm25_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    (void)inst;
    (void)state;
    if (len) return svc_set_error(err, "bm25: stateless service, expected empty state");
    return SVC_OK;
}

const svc_type svc_bm25 = {
    .name = "bm25",
    .stateful = 0,
    .create = bm25_create,
    .handle = bm25_handle,
    .export_state = bm25_export,
    .import_state = bm25_import,
    .destroy = bm25_destroy,
};
