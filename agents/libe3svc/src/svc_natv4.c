/* SPDX-License-Identifier: Apache-2.0 */
/*
 * natv4: IPv4 destination NAT over a DIR-24-8-BASIC table (Gupta, Lin, McKeown, INFOCOM'98;
 * paper Table 2). Stateless: the rules are read-only configuration; export writes nothing.
 *
 * Table: tbl24 has 2^24 16-bit entries indexed by the top 24 address bits. An entry with the
 * top bit clear holds a rule number + 1 (0 = no rule); with the top bit set, its low 15 bits
 * name a 256-entry chunk of tbllong, indexed by the last address byte, holding rule number + 1
 * for prefixes longer than /24. A lookup is one or two memory reads. Rules are inserted in
 * increasing prefix length, each overwriting the range it covers, so the longest prefix wins;
 * of two rules with the same prefix the later one in the config wins.
 *
 * Config:   rules=<a.b.c.d>/<len>><e.f.g.h>[:<port>],...   (len 0..32, port 1..65535)
 *   A packet whose destination address matches the rule's prefix (longest match) gets its
 *   destination rewritten to (e.f.g.h & mask) | (dst & ~mask): the prefix is swapped and the
 *   host bits kept (a /32 rule rewrites the whole address); with :<port>, the destination port
 *   becomes <port>, else it is kept. At most 32767 rules.
 * Request (13 bytes, little-endian): src_ip u32, dst_ip u32, src_port u16, dst_port u16,
 *   proto u8. Addresses as host-order integers (10.0.0.1 = 0x0A000001).
 * Response (8 bytes, little-endian): dst_ip u32, dst_port u16 (translated, or unchanged when no
 *   rule matches), rule u16 (index of the matching rule in config order; 0xFFFF for none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/svc.h"
#include "svc_util.h"

#define NAT_TBL24_SIZE (1u << 24)  /* entries of the first-level table */
#define NAT_LONG_FLAG 0x8000u      /* tbl24 entry points at a tbllong chunk */
#define NAT_MAX_RULES 0x7FFFu      /* rule number + 1 must fit in 15 bits */
#define NAT_MAX_CHUNKS 0x8000u     /* chunk index must fit in 15 bits */
#define NAT_REQ_LEN 13             /* bytes of a request */
#define NAT_RESP_LEN 8             /* bytes of a response */
#define NAT_NO_RULE 0xFFFFu        /* rule field of a response when nothing matched */

typedef struct nat_rule {
    uint32_t prefix; /* network address, host bits zero */
    uint8_t len;     /* prefix length, 0..32 */
    uint32_t to;     /* translated network address, host bits zero */
    uint16_t port;   /* translated destination port, 0 = keep */
    uint32_t order;  /* position in the config */
} nat_rule;

struct svc_instance {
    uint16_t *tbl24;   /* NAT_TBL24_SIZE entries (see the file comment) */
    uint16_t *tbllong; /* nchunks * 256 entries: rule number + 1, 0 = no rule */
    size_t nchunks;    /* chunks in use */
    nat_rule *rules;   /* in config order */
    size_t nrules;     /* entries of rules */
};

static uint32_t nat_mask(uint8_t len) { return len == 0 ? 0 : 0xFFFFFFFFu << (32 - len); }

/* Parse "a.b.c.d" at *p (advanced past it) into *ip. Returns 1 or 0 when malformed. */
static int nat_parse_ip(const char **p, uint32_t *ip) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        if (i && *(*p)++ != '.') return 0;
        if (!isdigit((unsigned char)**p)) return 0;
        unsigned long o = 0;
        int digits = 0;
        while (isdigit((unsigned char)**p) && digits < 4) {
            o = o * 10 + (unsigned long)(*(*p)++ - '0');
            digits++;
        }
        if (o > 255 || digits > 3) return 0;
        v = v << 8 | (uint32_t)o;
    }
    *ip = v;
    return 1;
}

/* Parse a decimal number at *p (advanced) no greater than max. Returns 1, or 0 when malformed. */
static int nat_parse_num(const char **p, unsigned long max, unsigned long *out) {
    unsigned long v = 0;
    if (!isdigit((unsigned char)**p)) return 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (unsigned long)(*(*p)++ - '0');
        if (v > max) return 0;
    }
    *out = v;
    return 1;
}

/* Parse the comma-separated rule list into a fresh array (*rules, *n). */
static int nat_parse_rules(const char *list, nat_rule **rules, size_t *n, char *err) {
    size_t cap = 1, cnt = 0;
    for (const char *c = list; *c; c++) cap += *c == ',';
    nat_rule *r = calloc(cap, sizeof(*r));
    if (!r) return svc_set_error(err, "natv4: out of memory");
    const char *p = list;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *start = p;
        uint32_t ip, to;
        unsigned long len, port = 0;
        int ok = nat_parse_ip(&p, &ip) && *p++ == '/' && nat_parse_num(&p, 32, &len) && *p++ == '>' &&
                 nat_parse_ip(&p, &to);
        if (ok && *p == ':') {
            p++;
            ok = nat_parse_num(&p, 65535, &port) && port != 0;
        }
        while (ok && *p == ' ') p++;
        if (!ok || (*p && *p != ',')) {
            svc_set_error(err, "natv4: bad rule near '%.40s' (want a.b.c.d/len>e.f.g.h[:port])", start);
            goto err;
        }
        if (*p) p++;
        if (cnt == NAT_MAX_RULES) {
            svc_set_error(err, "natv4: more than %u rules", NAT_MAX_RULES);
            goto err;
        }
        uint32_t m = nat_mask((uint8_t)len);
        r[cnt] = (nat_rule){ip & m, (uint8_t)len, to & m, (uint16_t)port, (uint32_t)cnt};
        cnt++;
    }
    *rules = r;
    *n = cnt;
    return SVC_OK;
err:
    free(r);
    return SVC_ERR;
}

static int nat_cmp_len(const void *a, const void *b) {
    const nat_rule *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Give tbl24 entry `i` a chunk (filled with its current rule) unless it has one; returns the
 * chunk's index, or -1 when chunks or memory run out. */
static long nat_chunk_of(struct svc_instance *s, uint32_t i, size_t *cap) {
    uint16_t e = s->tbl24[i];
    if (e & NAT_LONG_FLAG) return e & ~NAT_LONG_FLAG;
    if (s->nchunks == NAT_MAX_CHUNKS) return -1;
    if (s->nchunks == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        if (nc > NAT_MAX_CHUNKS) nc = NAT_MAX_CHUNKS;
        uint16_t *t = realloc(s->tbllong, nc * 256 * sizeof(*t));
        if (!t) return -1;
        s->tbllong = t;
        *cap = nc;
    }
    size_t c = s->nchunks++;
    for (int j = 0; j < 256; j++) s->tbllong[c * 256 + j] = e;
    s->tbl24[i] = (uint16_t)(NAT_LONG_FLAG | c);
    return (long)c;
}

/* Insert rule number `idx` (its prefix no shorter than any inserted before). */
static int nat_insert(struct svc_instance *s, const nat_rule *r, uint16_t idx, size_t *cap, char *err) {
    uint16_t val = (uint16_t)(idx + 1);
    if (r->len <= 24) {
        uint32_t first = r->prefix >> 8, count = 1u << (24 - r->len);
        for (uint32_t i = first; i < first + count; i++) {
            uint16_t e = s->tbl24[i];
            if (e & NAT_LONG_FLAG) {
                uint16_t *chunk = &s->tbllong[(size_t)(e & ~NAT_LONG_FLAG) * 256];
                for (int j = 0; j < 256; j++) chunk[j] = val;
            } else {
                s->tbl24[i] = val;
            }
        }
        return SVC_OK;
    }
    long c = nat_chunk_of(s, r->prefix >> 8, cap);
    if (c < 0) return svc_set_error(err, "natv4: out of second-level chunks or memory");
    uint32_t first = r->prefix & 0xFF, count = 1u << (32 - r->len);
    for (uint32_t j = first; j < first + count; j++) s->tbllong[(size_t)c * 256 + j] = val;
    return SVC_OK;
}

static void nat_destroy(svc_instance *inst) {
    if (!inst) return;
    free(inst->tbl24);
    free(inst->tbllong);
    free(inst->rules);
    free(inst);
}

/* Create from config: parse the rules and build the two tables. */
static int nat_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)env;
    int found;
    char *list = NULL;
    nat_rule *sorted = NULL;
    size_t cap = 0;
    struct svc_instance *s = calloc(1, sizeof(*s));
    if (!s) return svc_set_error(err, "natv4: out of memory");
    s->tbl24 = calloc(NAT_TBL24_SIZE, sizeof(*s->tbl24));
    if (!s->tbl24) {
        svc_set_error(err, "natv4: out of memory");
        goto err;
    }
    list = svc_text_config_dup(config, "rules", &found);
    if (!list && found) {
        svc_set_error(err, "natv4: out of memory");
        goto err;
    }
    if (nat_parse_rules(list ? list : "", &s->rules, &s->nrules, err) != SVC_OK) goto err;
    sorted = malloc((s->nrules ? s->nrules : 1) * sizeof(*sorted));
    if (!sorted) {
        svc_set_error(err, "natv4: out of memory");
        goto err;
    }
    memcpy(sorted, s->rules, s->nrules * sizeof(*sorted));
    qsort(sorted, s->nrules, sizeof(*sorted), nat_cmp_len);
    for (size_t i = 0; i < s->nrules; i++)
        if (nat_insert(s, &sorted[i], (uint16_t)sorted[i].order, &cap, err) != SVC_OK) goto err;
    free(sorted);
    free(list);
    *out = s;
    return SVC_OK;
err:
    free(sorted);
    free(list);
    nat_destroy(s);
    return SVC_ERR;
}

/* Rule number + 1 of the longest prefix matching `ip`, 0 when none. */
static uint16_t nat_lookup(const struct svc_instance *s, uint32_t ip) {
    uint16_t e = s->tbl24[ip >> 8];
    if (e & NAT_LONG_FLAG) return s->tbllong[(size_t)(e & ~NAT_LONG_FLAG) * 256 + (ip & 0xFF)];
    return e;
}

/* Translate one packet header (see the file comment for both layouts). */
static int nat_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    if (req_len != NAT_REQ_LEN)
        return svc_set_error(err, "natv4: request must be %d bytes, got %zu", NAT_REQ_LEN, req_len);
    uint32_t dst = svc_le32_get(req + 4);
    uint16_t dport = svc_le16_get(req + 10);
    uint16_t hit = nat_lookup(inst, dst), rule = NAT_NO_RULE;
    if (hit) {
        const nat_rule *r = &inst->rules[hit - 1];
        uint32_t m = nat_mask(r->len);
        dst = r->to | (dst & ~m);
        if (r->port) dport = r->port;
        rule = (uint16_t)(hit - 1);
    }
    uint8_t out[NAT_RESP_LEN];
    svc_le32_put(out, dst);
    svc_le16_put(out + 4, dport);
    svc_le16_put(out + 6, rule);
    if (svc_buf_append(resp, out, sizeof(out)) != SVC_OK) return svc_set_error(err, "natv4: out of memory");
    return SVC_OK;
}

/* Stateless: the rules are configuration, so nothing is exported. */
static int nat_export(svc_instance *inst, svc_buf *out, char *err) {
    (void)inst;
    (void)out;
    (void)err;
    return SVC_OK;
}

/* Stateless: only an empty state is accepted. */
static int nat_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    (void)inst;
    (void)state;
    if (len) return svc_set_error(err, "natv4: stateless service, expected empty state");
    return SVC_OK;
}

const svc_type svc_natv4 = {
    .name = "natv4",
    .stateful = 0,
    .create = nat_create,
    .handle = nat_handle,
    .export_state = nat_export,
    .import_state = nat_import,
    .destroy = nat_destroy,
};
