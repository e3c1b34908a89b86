/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nids: network intrusion detection by Aho-Corasick multi-pattern matching (paper Table 2).
 * Stateless: the patterns are read-only configuration; export writes nothing.
 *
 * The automaton is a full DFA: every node has 256 transitions (the trie's edges, the others
 * filled in from the failure links at build time), plus a dictionary-suffix link to the
 * nearest proper suffix that ends a pattern, so a scan does one table read per payload byte
 * and one hop per reported match.
 *
 * Config:   patterns=<p0>,<p1>,...    byte strings; "\xHH" is any byte, "\\" a backslash and
 *           "\," a comma (so ';' is written \x3b). Pattern i has id i; empty patterns are
 *           refused; duplicates are allowed and both report.
 * Request:  the payload, raw bytes (any length, may be empty).
 * Response (little-endian): listed u32, total u32, then `listed` entries of
 *           (pattern_id u32, offset u32), offset = index of the match's first payload byte.
 *           Every occurrence is found, overlapping ones included; entries are sorted by offset,
 *           then pattern id; at most NIDS_MAX_LISTED are listed (total counts them all).
 */
#include <stdlib.h>
#include <string.h>

#include "e3svc/svc.h"
#include "svc_util.h"

#define NIDS_MAX_NODES 65536    /* automaton nodes: at most 64 MiB of transitions */
#define NIDS_MAX_LISTED 8191    /* matches per response: 8 + 8 * 8191 = SVC_MAX_RESPONSE bytes */

typedef struct nids_node {
    int32_t next[256]; /* DFA transition per byte (node index) */
    int32_t dict;      /* nearest proper suffix node that ends a pattern, 0 = none */
    int32_t fail;      /* longest proper suffix node */
    int32_t out;       /* first pattern ending exactly here, -1 = none */
} nids_node;

struct svc_instance {
    nids_node *nodes;   /* node 0 is the root */
    size_t nnodes;      /* nodes in use */
    size_t cap;         /* nodes allocated */
    uint32_t *plen;     /* pattern lengths, bytes */
    int32_t *pnext;     /* next pattern ending at the same node, -1 = none */
    size_t npatterns;   /* patterns */
};

typedef struct nids_match {
    uint32_t id;     /* pattern id */
    uint32_t offset; /* first byte of the occurrence */
} nids_match;

/* Append a fresh node with no transitions; returns its index or -1 (limit or OOM). */
static int32_t nids_new_node(struct svc_instance *s) {
    if (s->nnodes == NIDS_MAX_NODES) return -1;
    if (s->nnodes == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        nids_node *n = realloc(s->nodes, nc * sizeof(*n));
        if (!n) return -1;
        s->nodes = n;
        s->cap = nc;
    }
    nids_node *n = &s->nodes[s->nnodes];
    for (int c = 0; c < 256; c++) n->next[c] = -1;
    n->dict = 0;
    n->fail = 0;
    n->out = -1;
    return (int32_t)s->nnodes++;
}

/* Decode pattern text[0..len) (escapes as in the file comment) into out; *olen bytes. */
static int nids_unescape(const char *text, size_t len, uint8_t *out, size_t *olen, char *err) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\\') {
            out[o++] = (uint8_t)text[i];
            continue;
        }
        if (i + 1 < len && (text[i + 1] == '\\' || text[i + 1] == ',')) {
            out[o++] = (uint8_t)text[++i];
        } else if (i + 3 < len && text[i + 1] == 'x' && isxdigit((unsigned char)text[i + 2]) &&
                   isxdigit((unsigned char)text[i + 3])) {
            char hex[3] = {text[i + 2], text[i + 3], '\0'};
            out[o++] = (uint8_t)strtoul(hex, NULL, 16);
            i += 3;
        } else {
            return svc_set_error(err, "nids: bad escape in pattern (want \\xHH, \\\\ or \\,)");
        }
    }
    *olen = o;
    return SVC_OK;
}

/* Insert pattern bytes p[0..len) as the next pattern id into the trie. */
static int nids_add_pattern(struct svc_instance *s, const uint8_t *p, size_t len, size_t *pcap, char *err) {
    if (len == 0) return svc_set_error(err, "nids: empty pattern %zu", s->npatterns);
    if (s->npatterns == *pcap) {
        size_t nc = *pcap ? *pcap * 2 : 16;
        uint32_t *pl = realloc(s->plen, nc * sizeof(*pl));
        if (!pl) return svc_set_error(err, "nids: out of memory");
        s->plen = pl;
        int32_t *pn = realloc(s->pnext, nc * sizeof(*pn));
        if (!pn) return svc_set_error(err, "nids: out of memory");
        s->pnext = pn;
        *pcap = nc;
    }
    int32_t u = 0;
    for (size_t i = 0; i < len; i++) {
        int32_t v = s->nodes[u].next[p[i]];
        if (v < 0) {
            v = nids_new_node(s);
            if (v < 0)
                return svc_set_error(err, "nids: patterns too long (over %d automaton nodes) or OOM", NIDS_MAX_NODES);
            s->nodes[u].next[p[i]] = v;
        }
        u = v;
    }
    size_t id = s->npatterns++;
    s->plen[id] = (uint32_t)len;
    s->pnext[id] = -1;
    if (s->nodes[u].out < 0) {
        s->nodes[u].out = (int32_t)id;
    } else { /* a duplicate: chain it after the last pattern of this node */
        int32_t t = s->nodes[u].out;
        while (s->pnext[t] >= 0) t = s->pnext[t];
        s->pnext[t] = (int32_t)id;
    }
    return SVC_OK;
}

/* Breadth-first: set failure and dictionary links and fill in the missing transitions. */
static int nids_build(struct svc_instance *s, char *err) {
    int32_t *queue = malloc(s->nnodes * sizeof(*queue));
    size_t head = 0, tail = 0;
    if (!queue) return svc_set_error(err, "nids: out of memory");
    for (int c = 0; c < 256; c++) {
        int32_t v = s->nodes[0].next[c];
        if (v < 0) {
            s->nodes[0].next[c] = 0;
        } else {
            s->nodes[v].fail = 0;
            s->nodes[v].dict = 0;
            queue[tail++] = v;
        }
    }
    while (head < tail) {
        int32_t u = queue[head++];
        for (int c = 0; c < 256; c++) {
            int32_t v = s->nodes[u].next[c];
            int32_t f = s->nodes[s->nodes[u].fail].next[c];
            if (v < 0) {
                s->nodes[u].next[c] = f;
                continue;
            }
            s->nodes[v].fail = f;
            s->nodes[v].dict = s->nodes[f].out >= 0 ? f : s->nodes[f].dict;
            queue[tail++] = v;
        }
    }
    free(queue);
    return SVC_OK;
}

static void nids_destroy(svc_instance *inst) {
    if (!inst) return;
    free(inst->nodes);
    free(inst->plen);
    free(inst->pnext);
    free(inst);
}

/* Create from config: parse the patterns and build the automaton. */
static int nids_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)env;
    int found;
    size_t pcap = 0;
    char *list = NULL;
    uint8_t *pat = NULL;
    struct svc_instance *s = calloc(1, sizeof(*s));
    if (!s || nids_new_node(s) != 0) {
        svc_set_error(err, "nids: out of memory");
        goto err;
    }
    list = svc_text_config_dup(config, "patterns", &found);
    if (!list && found) {
        svc_set_error(err, "nids: out of memory");
        goto err;
    }
    pat = malloc(list ? strlen(list) + 1 : 1);
    if (!pat) {
        svc_set_error(err, "nids: out of memory");
        goto err;
    }
    for (size_t i = 0, start = 0; list && list[0]; i++) {
        if (list[i] == '\\' && list[i + 1]) {
            i++; /* an escaped byte never ends a pattern */
            continue;
        }
        if (list[i] != ',' && list[i] != '\0') continue;
        size_t plen = 0;
        if (nids_unescape(list + start, i - start, pat, &plen, err) != SVC_OK) goto err;
        if (nids_add_pattern(s, pat, plen, &pcap, err) != SVC_OK) goto err;
        if (list[i] == '\0') break;
        start = i + 1;
    }
    if (nids_build(s, err) != SVC_OK) goto err;
    free(pat);
    free(list);
    *out = s;
    return SVC_OK;
err:
    free(pat);
    free(list);
    nids_destroy(s);
    return SVC_ERR;
}

static int nids_cmp_match(const void *a, const void *b) {
    const nids_match *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Scan the payload; respond with every occurrence (see the file comment). */
static int nids_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    nids_match *m = NULL;
    size_t n = 0, cap = 0;
    int32_t state = 0;
    if (req_len > UINT32_MAX) return svc_set_error(err, "nids: payload too large");
    for (size_t i = 0; i < req_len; i++) {
        state = inst->nodes[state].next[req[i]];
        int32_t t = inst->nodes[state].out >= 0 ? state : inst->nodes[state].dict;
        for (; t > 0; t = inst->nodes[t].dict) {
            for (int32_t p = inst->nodes[t].out; p >= 0; p = inst->pnext[p]) {
                if (n == cap) {
                    size_t nc = cap ? cap * 2 : 64;
                    nids_match *nm = realloc(m, nc * sizeof(*nm));
                    if (!nm) {
                        svc_set_error(err, "nids: out of memory");
                        goto err;
                    }
                    m = nm;
                    cap = nc;
                }
                m[n].id = (uint32_t)p;
                m[n].offset = (uint32_t)(i + 1 - inst->plen[p]);
                n++;
            }
        }
    }
    if (n > 1) qsort(m, n, sizeof(*m), nids_cmp_match);
    size_t listed = n < NIDS_MAX_LISTED ? n : NIDS_MAX_LISTED;
    uint8_t hdr[8];
    svc_le32_put(hdr, (uint32_t)listed);
    svc_le32_put(hdr + 4, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
    if (svc_buf_append(resp, hdr, sizeof(hdr)) != SVC_OK) {
        svc_set_error(err, "nids: out of memory");
        goto err;
    }
    for (size_t i = 0; i < listed; i++) {
        uint8_t e[8];
        svc_le32_put(e, m[i].id);
        svc_le32_put(e + 4, m[i].offset);
        if (svc_buf_append(resp, e, sizeof(e)) != SVC_OK) {
            svc_set_error(err, "nids: out of memory");
            goto err;
        }
    }
    free(m);
    return SVC_OK;
err:
    free(m);
    return SVC_ERR;
}

/* Stateless: the patterns are configuration, so nothing is exported. */
static int nids_export(svc_instance *inst, svc_buf *out, char *err) {
    (void)inst;
    (void)out;
    (void)err;
    return SVC_OK;
}

/* Stateless: only an empty state is accepted. */
static int nids_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    (void)inst;
    (void)state;
    if (len) return svc_set_error(err, "nids: stateless service, expected empty state");
    return SVC_OK;
}

const svc_type svc_nids = {
    .name = "nids",
    .stateful = 0,
    .create = nids_create,
    .handle = nids_handle,
    .export_state = nids_export,
    .import_state = nids_import,
    .destroy = nids_destroy,
};
