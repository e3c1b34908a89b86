/* SPDX-License-Identifier: Apache-2.0 */
/*
 * natv4: a few hand-made translations, then the DIR-24-8 lookup against a linear longest-prefix
 * match over random rules and thousands of random addresses (fixed seed).
 */
#include <stdint.h>

#include "check.h"
#include "e3svc/svc.h"

extern const svc_type svc_natv4;

typedef struct ref_rule {
    uint32_t prefix, to; /* network addresses, host bits zero */
    int len;             /* prefix length */
    uint16_t port;       /* 0 = keep */
} ref_rule;

static uint64_t rng = 0x9E3779B97F4A7C15ull; /* xorshift64 state, fixed seed */
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static uint32_t mask(int len) { return len == 0 ? 0 : 0xFFFFFFFFu << (32 - len); }

/* Translate through the service: dst address, port and rule index out. */
static void translate(svc_instance *s, uint32_t dst, uint16_t dport, uint32_t *odst, uint16_t *oport,
                      uint16_t *orule) {
    uint8_t req[13] = {0};
    uint32_t src = 0xC0A80001;
    for (int i = 0; i < 4; i++) req[i] = (uint8_t)(src >> (8 * i));
    for (int i = 0; i < 4; i++) req[4 + i] = (uint8_t)(dst >> (8 * i));
    req[8] = 0x39, req[9] = 0x30; /* src port 12345 */
    req[10] = (uint8_t)dport, req[11] = (uint8_t)(dport >> 8);
    req[12] = 6;
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(svc_natv4.handle(s, req, sizeof(req), &r, err), SVC_OK);
    CHECK_EQ_INT(r.len, 8);
    *odst = (uint32_t)r.data[0] | (uint32_t)r.data[1] << 8 | (uint32_t)r.data[2] << 16 | (uint32_t)r.data[3] << 24;
    *oport = (uint16_t)(r.data[4] | r.data[5] << 8);
    *orule = (uint16_t)(r.data[6] | r.data[7] << 8);
    svc_buf_free(&r);
}

static void hand_made(void) {
    char err[SVC_ERRBUF_LEN];
    svc_instance *s;
    uint32_t d;
    uint16_t p, rule;
    CHECK_EQ_INT(svc_natv4.create("rules=10.0.0.0/8>172.16.0.0, 10.1.2.0/24>192.168.7.0:8080,"
                                  "10.1.2.128/25>192.168.9.0,10.1.2.200/32>1.2.3.4:53",
                                  NULL, &s, err),
                 SVC_OK);
    translate(s, 0x0A050607, 80, &d, &p, &rule); /* 10.5.6.7 -> 172.5.6.7 (the /8 keeps host bits) */
    CHECK_EQ_INT(d, 0xAC050607);
    CHECK_EQ_INT(p, 80);
    CHECK_EQ_INT(rule, 0);
    translate(s, 0x0A010205, 80, &d, &p, &rule); /* 10.1.2.5 -> 192.168.7.5:8080 */
    CHECK_EQ_INT(d, 0xC0A80705);
    CHECK_EQ_INT(p, 8080);
    CHECK_EQ_INT(rule, 1);
    translate(s, 0x0A010281, 80, &d, &p, &rule); /* 10.1.2.129 -> 192.168.9.1 (the /25 keeps 7 host bits) */
    CHECK_EQ_INT(d, 0xC0A80901);
    CHECK_EQ_INT(p, 80);
    CHECK_EQ_INT(rule, 2);
    translate(s, 0x0A0102C8, 80, &d, &p, &rule); /* 10.1.2.200 -> 1.2.3.4:53 */
    CHECK_EQ_INT(d, 0x01020304);
    CHECK_EQ_INT(p, 53);
    CHECK_EQ_INT(rule, 3);
    translate(s, 0x0B000001, 80, &d, &p, &rule); /* 11.0.0.1: no rule, unchanged */
    CHECK_EQ_INT(d, 0x0B000001);
    CHECK_EQ_INT(p, 80);
    CHECK_EQ_INT(rule, 0xFFFF);
    svc_buf r = {0};
    CHECK_EQ_INT(svc_natv4.handle(s, (const uint8_t *)"short", 5, &r, err), SVC_ERR);
    CHECK_EQ_INT(svc_natv4.export_state(s, &r, err), SVC_OK);
    CHECK_EQ_INT(r.len, 0);
    svc_natv4.destroy(s);

    const char *bad[] = {"rules=10.0.0.0/33>1.1.1.1", "rules=10.0.0/8>1.1.1.1", "rules=10.0.0.0/8",
                         "rules=256.0.0.0/8>1.1.1.1", "rules=10.0.0.0/8>1.1.1.1:0", "rules=10.0.0.0/8>1.1.1.1x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECK_EQ_INT(svc_natv4.create(bad[i], NULL, &s, err), SVC_ERR);
        CHECK(err[0] != '\0');
    }
    CHECK_EQ_INT(svc_natv4.create("", NULL, &s, err), SVC_OK); /* no rules: everything passes */
    translate(s, 0x01020304, 7, &d, &p, &rule);
    CHECK_EQ_INT(rule, 0xFFFF);
    svc_natv4.destroy(s);
}

#define NRULES 400
#define NADDRS 20000

int main(void) {
    hand_made();

    static ref_rule rules[NRULES];
    static char cfg[NRULES * 48 + 16];
    size_t off = (size_t)snprintf(cfg, sizeof(cfg), "rules=");
    for (int i = 0; i < NRULES; i++) {
        int len;
        if (i % 10 == 0 && i > 0)
            len = rules[next_rand() % (uint32_t)i].len; /* reuse a length, often a duplicate prefix */
        else
            len = (int)(next_rand() % 33);
        if (i < 150 && len < 8) len += 16; /* many mid-length prefixes */
        uint32_t prefix = next_rand() & mask(len);
        if (i % 7 == 0 && i > 0) prefix = rules[next_rand() % (uint32_t)i].prefix & mask(len); /* nest */
        if (i % 10 == 0 && i > 0) {
            ref_rule *o = &rules[next_rand() % (uint32_t)i];
            len = o->len, prefix = o->prefix; /* an exact duplicate: the later rule wins */
        }
        uint32_t to = next_rand() & mask(len);
        uint16_t port = (next_rand() % 3 == 0) ? (uint16_t)(1 + next_rand() % 65535) : 0;
        rules[i] = (ref_rule){prefix, to, len, port};
        off += (size_t)snprintf(cfg + off, sizeof(cfg) - off, "%s%u.%u.%u.%u/%d>%u.%u.%u.%u", i ? "," : "",
                                prefix >> 24, prefix >> 16 & 255, prefix >> 8 & 255, prefix & 255, len, to >> 24,
                                to >> 16 & 255, to >> 8 & 255, to & 255);
        if (port) off += (size_t)snprintf(cfg + off, sizeof(cfg) - off, ":%u", port);
    }
    char err[SVC_ERRBUF_LEN];
    svc_instance *s;
    if (svc_natv4.create(cfg, NULL, &s, err) != SVC_OK) {
        fprintf(stderr, "create: %s\n", err);
        return 1;
    }
    int matched = 0;
    for (int n = 0; n < NADDRS; n++) {
        uint32_t a = next_rand();
        if (n % 2) { /* half the addresses fall inside some rule's prefix */
            const ref_rule *r = &rules[next_rand() % NRULES];
            a = r->prefix | (a & ~mask(r->len));
        }
        int best = -1;
        for (int i = 0; i < NRULES; i++)
            if ((a & mask(rules[i].len)) == rules[i].prefix && (best < 0 || rules[i].len >= rules[best].len)) best = i;
        uint16_t dport = (uint16_t)next_rand();
        uint32_t d;
        uint16_t p, rule;
        translate(s, a, dport, &d, &p, &rule);
        if (best < 0) {
            CHECK_EQ_INT(rule, 0xFFFF);
            CHECK_EQ_INT(d, a);
            CHECK_EQ_INT(p, dport);
            continue;
        }
        matched++;
        const ref_rule *r = &rules[best];
        CHECK_EQ_INT(rule, best);
        CHECK_EQ_INT(d, r->to | (a & ~mask(r->len)));
        CHECK_EQ_INT(p, r->port ? r->port : dport);
    }
    CHECK(matched > NADDRS / 2); /* the comparison exercised real matches */
    svc_natv4.destroy(s);
    return 0;
}
