/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bayes: multinomial naive Bayes classifier choosing the maximum a posteriori class (paper
 * Table 2). Stateless: the model is trained once from read-only configuration; export writes
 * nothing.
 *
 * Config:   train=<class>:<text>|<class>:<text>|...   training documents (at least one); a
 *                                                    class is 1..63 bytes without ':' or '|'
 *           alpha=1                                  additive (Laplace) smoothing, > 0
 * Request:  the text to classify (one line; a trailing "\n" is ignored).
 * Response: "<class> <log score>\n", score printed "%.6f": the class c maximising
 *             ln P(c) + sum over the request's words w in the vocabulary of ln P(w | c)
 *           with P(c) = docs(c) / docs, P(w | c) = (count(w, c) + alpha) / (words(c) + alpha * |V|),
 *           V the training vocabulary. Words outside V are ignored; a tie goes to the class
 *           seen first in the config. Words are maximal runs of ASCII letters/digits, lowercased.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/svc.h"
#include "svc_util.h"

#define BAYES_CLASS_MAX 64 /* bytes of a class name, NUL included */
#define BAYES_WORD_MAX 64  /* longer words are truncated to 63 bytes */

struct svc_instance {
    char (*classes)[BAYES_CLASS_MAX]; /* class names, first-seen order */
    size_t nclasses;                  /* entries of classes */
    double *log_prior;                /* per class: ln P(c) */
    char (*vocab)[BAYES_WORD_MAX];    /* distinct training words, sorted by strcmp */
    size_t nvocab;                    /* |V| */
    double *log_lik;                  /* nclasses * nvocab: ln P(w | c), row per class */
};

typedef struct bayes_tok {
    char word[BAYES_WORD_MAX]; /* lowercased word */
    size_t cls;                /* class of the document it came from */
} bayes_tok;

static int bayes_cmp_word(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Lowercased copy of text[st..st+wl) into w (truncated to BAYES_WORD_MAX - 1 bytes). */
static void bayes_word(const char *text, size_t st, size_t wl, char *w) {
    if (wl >= BAYES_WORD_MAX) wl = BAYES_WORD_MAX - 1;
    for (size_t i = 0; i < wl; i++) w[i] = (char)tolower((unsigned char)text[st + i]);
    w[wl] = '\0';
}

/* Index of `w` in the vocabulary, or -1. */
static long bayes_vocab_index(const struct svc_instance *s, const char *w) {
    const char(*hit)[BAYES_WORD_MAX] = bsearch(w, s->vocab, s->nvocab, sizeof(*s->vocab), bayes_cmp_word);
    return hit ? (long)(hit - s->vocab) : -1;
}

static void bayes_destroy(svc_instance *inst) {
    if (!inst) return;
    free(inst->classes);
    free(inst->log_prior);
    free(inst->vocab);
    free(inst->log_lik);
    free(inst);
}

/* Gather the training tokens of `list` into *toks (count *ntoks) and the classes and their
 * document counts into s->classes / docs. */
static int bayes_tokens(struct svc_instance *s, char *list, size_t *docs, bayes_tok **toks, size_t *ntoks,
                        char *err) {
    size_t cap = 0, n = 0;
    bayes_tok *t = NULL;
    for (char *p = list; *p;) {
        char *bar = strchr(p, '|');
        size_t dl = bar ? (size_t)(bar - p) : strlen(p);
        char *colon = memchr(p, ':', dl), *cs = p;
        while (colon && cs < colon && *cs == ' ') cs++;
        size_t cl = colon ? (size_t)(colon - cs) : 0;
        while (cl && cs[cl - 1] == ' ') cl--;
        if (!colon || cl == 0 || cl >= BAYES_CLASS_MAX) {
            svc_set_error(err, "bayes: bad training document (want <class>:<text>, class 1..%d bytes)",
                          BAYES_CLASS_MAX - 1);
            goto err;
        }
        size_t c = 0;
        while (c < s->nclasses && !(strlen(s->classes[c]) == cl && memcmp(s->classes[c], cs, cl) == 0)) c++;
        if (c == s->nclasses) {
            memcpy(s->classes[c], cs, cl);
            s->classes[c][cl] = '\0';
            s->nclasses++;
        }
        docs[c]++;
        const char *text = colon + 1;
        size_t tl = (size_t)(p + dl - text), pos = 0, st, wl;
        while (svc_text_next_word(text, tl, &pos, &st, &wl)) {
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                bayes_tok *nt = realloc(t, nc * sizeof(*nt));
                if (!nt) {
                    svc_set_error(err, "bayes: out of memory");
                    goto err;
                }
                t = nt;
                cap = nc;
            }
            bayes_word(text, st, wl, t[n].word);
            t[n].cls = c;
            n++;
        }
        p = bar ? bar + 1 : p + dl;
    }
    *toks = t;
    *ntoks = n;
    return SVC_OK;
err:
    free(t);
    return SVC_ERR;
}

/* Create from config: count the training words and precompute every log probability. */
static int bayes_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)env;
    int found;
    double alpha;
    char *list = NULL;
    bayes_tok *toks = NULL;
    size_t ntoks = 0, *docs = NULL, *words = NULL, *counts = NULL;
    struct svc_instance *s = calloc(1, sizeof(*s));
    if (!s) return svc_set_error(err, "bayes: out of memory");
    if (svc_text_config_double(config, "alpha", 1.0, &alpha, err) != SVC_OK) goto err;
    if (!(alpha > 0)) {
        svc_set_error(err, "bayes: alpha must be > 0");
        goto err;
    }
    list = svc_text_config_dup(config, "train", &found);
    if (!list || !list[0]) {
        svc_set_error(err, found ? "bayes: out of memory or empty train" : "bayes: config needs train=");
        goto err;
    }
    size_t maxc = 1;
    for (const char *c = list; *c; c++) maxc += *c == '|';
    s->classes = calloc(maxc, sizeof(*s->classes));
    docs = calloc(maxc, sizeof(*docs));
    words = calloc(maxc, sizeof(*words));
    if (!s->classes || !docs || !words) {
        svc_set_error(err, "bayes: out of memory");
        goto err;
    }
    if (bayes_tokens(s, list, docs, &toks, &ntoks, err) != SVC_OK) goto err;
    /* The vocabulary: the distinct words, sorted. */
    s->vocab = malloc((ntoks ? ntoks : 1) * sizeof(*s->vocab));
    if (!s->vocab) {
        svc_set_error(err, "bayes: out of memory");
        goto err;
    }
    for (size_t i = 0; i < ntoks; i++) memcpy(s->vocab[i], toks[i].word, BAYES_WORD_MAX);
    qsort(s->vocab, ntoks, sizeof(*s->vocab), bayes_cmp_word);
    for (size_t i = 0; i < ntoks; i++)
        if (s->nvocab == 0 || strcmp(s->vocab[s->nvocab - 1], s->vocab[i]) != 0)
            memmove(s->vocab[s->nvocab++], s->vocab[i], BAYES_WORD_MAX);
    counts = calloc(s->nclasses * (s->nvocab ? s->nvocab : 1), sizeof(*counts));
    s->log_lik = malloc(s->nclasses * (s->nvocab ? s->nvocab : 1) * sizeof(*s->log_lik));
    s->log_prior = malloc(s->nclasses * sizeof(*s->log_prior));
    if (!counts || !s->log_lik || !s->log_prior) {
        svc_set_error(err, "bayes: out of memory");
        goto err;
    }
    for (size_t i = 0; i < ntoks; i++) {
        counts[toks[i].cls * s->nvocab + (size_t)bayes_vocab_index(s, toks[i].word)]++;
        words[toks[i].cls]++;
    }
    size_t ndocs = 0;
    for (size_t c = 0; c < s->nclasses; c++) ndocs += docs[c];
    for (size_t c = 0; c < s->nclasses; c++) {
        s->log_prior[c] = log((double)docs[c] / (double)ndocs);
        double denom = (double)words[c] + alpha * (double)s->nvocab;
        for (size_t w = 0; w < s->nvocab; w++)
            s->log_lik[c * s->nvocab + w] = log(((double)counts[c * s->nvocab + w] + alpha) / denom);
    }
    free(counts);
    free(words);
    free(docs);
    free(toks);
    free(list);
    *out = s;
    return SVC_OK;
err:
    free(counts);
    free(words);
    free(docs);
    free(toks);
    free(list);
    bayes_destroy(s);
    return SVC_ERR;
}

/* Classify the request text (see the file comment). */
static int bayes_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    double *score = NULL;
    char *line = svc_text_request_line(req, req_len);
    if (!line) return svc_set_error(err, "bayes: bad request (embedded line break or NUL) or out of memory");
    score = malloc(inst->nclasses * sizeof(*score));
    if (!score) {
        svc_set_error(err, "bayes: out of memory");
        goto err;
    }
    memcpy(score, inst->log_prior, inst->nclasses * sizeof(*score));
    size_t len = strlen(line), pos = 0, st, wl;
    char w[BAYES_WORD_MAX];
    while (svc_text_next_word(line, len, &pos, &st, &wl)) {
        bayes_word(line, st, wl, w);
        long v = bayes_vocab_index(inst, w);
        if (v < 0) continue;
        for (size_t c = 0; c < inst->nclasses; c++) score[c] += inst->log_lik[c * inst->nvocab + (size_t)v];
    }
    size_t best = 0;
    for (size_t c = 1; c < inst->nclasses; c++)
        if (score[c] > score[best]) best = c;
    char out[BAYES_CLASS_MAX + 48];
    int l = snprintf(out, sizeof(out), "%s %.6f\n", inst->classes[best], score[best]);
    if (svc_buf_append(resp, out, (size_t)l) != SVC_OK) {
        svc_set_error(err, "bayes: out of memory");
        goto err;
    }
    free(score);
    free(line);
    return SVC_OK;
err:
    free(score);
    free(line);
    return SVC_ERR;
}

/* Stateless: the model is configuration, so nothing is exported. */
static int bayes_export(svc_instance *inst, svc_buf *out, char *err) {
    (void)inst;
    (void)out;
    (void)err;
    return SVC_OK;
}

/* Stateless: only an empty state is accepted. */
static int bayes_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    (void)inst;
    (void)state;
    if (len) return svc_set_error(err, "bayes: stateless service, expected empty state");
    return SVC_OK;
}

const svc_type svc_bayes = {
    .name = "bayes",
    .stateful = 0,
    .create = bayes_create,
    .handle = bayes_handle,
    .export_state = bayes_export,
    .import_state = bayes_import,
    .destroy = bayes_destroy,
};
