/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replication (drain_log / apply_log), known-answer style, for every stateful service: a primary
 * (created with env.replicate) handles mutating requests; its drained log, applied to a fresh
 * backup of the same config, makes the backup's export_state byte-equal to the primary's and a
 * read answer the same on both. Draining twice gives nothing the second time; a truncated or
 * garbled log is refused with an error and leaves the backup unchanged; a backup that replicates
 * itself passes what it applies on to a third instance (chains). Stateless services have no
 * drain_log / apply_log at all.
 */
#include "svc_check.h"

/* A fixed clock, so api_gateway's buckets refill the same on primary and backup. */
static uint64_t fixed_now(void *ctx) {
    return *(const uint64_t *)ctx;
}

typedef struct rep_case {
    const char *service;   /* catalogue name */
    const char *config;    /* for primary and backup */
    const char *writes[8]; /* mutating requests, NULL-terminated */
    const char *read;      /* a request whose answer must match on both */
} rep_case;

static const rep_case cases[] = {
    {"kvs", "", {"PUT a 1", "PUT b two words", "PUT a 3", "DEL b", "PUT c x", NULL}, "GET a"},
    {"ema", "alpha=0.25", {"UPDATE s 8", "UPDATE s 0", "UPDATE t 4", NULL}, "GET s"},
    {"spike", "threshold=2", {"ADD k 1", "ADD k 2", "ADD k 1", "ADD k 50", NULL}, "GET k"},
    {"api_gateway", "keys=secret;rate=1;burst=2",
     {"secret alice", "secret alice", "secret alice", "secret bob", NULL}, "secret alice"},
    {"top_ranker", "", {"ADD x 3", "ADD y 5", "ADD z 1", "DEL z", NULL}, "TOP 5"},
    {"recommend", "", {"RATE u1 a 5", "RATE u1 b 3", "RATE u2 a 4", "RATE u2 c 2", NULL}, "RECOMMEND u1 3"},
    {"sql", "columns=id:int,name:text,temp:real",
     {"INSERT id=1 name='a' temp=1.5", "INSERT id=2 name='b'", "UPDATE temp=2 WHERE id = 2", "DELETE WHERE id = 1",
      NULL},
     "SELECT"},
    {"count", "bits=256", {"ADD a", "ADD b", "ADD a", "ADD c", NULL}, "COUNT"},
    {"flow_monitor", "width=64;depth=3", {"ADD f1 3", "ADD f2", "ADD f1", NULL}, "QUERY f1"},
    {"ddos", "window=4;threshold=1", {"PKT 10.0.0.1", "PKT 10.0.0.2", "PKT 10.0.0.1", "PKT 10.0.0.1", "PKT 10.0.0.3",
                                      NULL},
     "QUERY"},
};

static void export(const svc_type *t, svc_instance *inst, svc_buf *out) {
    char err[SVC_ERRBUF_LEN];
    svc_buf_reset(out);
    CHECK_EQ_INT(t->export_state(inst, out, err), SVC_OK);
}

static void check_same_state(const svc_type *t, svc_instance *a, svc_instance *b) {
    svc_buf sa = {0}, sb = {0};
    export(t, a, &sa);
    export(t, b, &sb);
    if (sa.len != sb.len || (sa.len && memcmp(sa.data, sb.data, sa.len) != 0)) {
        fprintf(stderr, "%s: backup state differs from the primary's (%zu vs %zu bytes)\n", t->name, sb.len, sa.len);
        exit(1);
    }
    svc_buf_free(&sa);
    svc_buf_free(&sb);
}

static void check_case(const rep_case *c) {
    const svc_type *t = svc_find(c->service);
    CHECK(t && t->stateful && t->drain_log && t->apply_log);
    uint64_t now = 1000000000ull;
    svc_env plain = {.now = fixed_now, .clock_ctx = &now}, rep = plain;
    rep.replicate = 1;
    char err[SVC_ERRBUF_LEN];
    svc_buf log = {0}, again = {0}, before = {0}, after = {0};

    svc_instance *primary = svc_check_create(t, c->config, &rep);
    svc_instance *backup = svc_check_create(t, c->config, &plain);
    svc_instance *chained = svc_check_create(t, c->config, &rep); /* a backup that replicates on */
    svc_instance *third = svc_check_create(t, c->config, &plain);

    /* nothing happened yet: nothing to drain */
    CHECK_EQ_INT(t->drain_log(primary, &log, err), SVC_OK);
    CHECK(log.len == 0);
    for (size_t i = 0; c->writes[i]; i++) {
        if (!svc_check_call(t, primary, c->writes[i])) {
            fprintf(stderr, "%s: \"%s\" failed\n", t->name, c->writes[i]);
            exit(1);
        }
        now += 250000000ull; /* api_gateway refills a quarter token between requests */
    }
    CHECK_EQ_INT(t->drain_log(primary, &log, err), SVC_OK);
    CHECK(log.len > 0);
    CHECK_EQ_INT(t->drain_log(primary, &again, err), SVC_OK);
    CHECK(again.len == 0); /* drained: nothing the second time */

    /* a backup without replicate records nothing */
    svc_check_call(t, backup, c->read);
    CHECK_EQ_INT(t->drain_log(backup, &again, err), SVC_OK);
    CHECK(again.len == 0);
    t->destroy(backup);
    backup = svc_check_create(t, c->config, &plain);

    /* truncated and garbled logs are refused, the backup unchanged */
    export(t, backup, &before);
    CHECK_EQ_INT(t->apply_log(backup, log.data, log.len - 1, err), SVC_ERR);
    CHECK(err[0] != '\0');
    uint8_t saved = log.data[0];
    log.data[0] ^= 0x5a;
    err[0] = '\0';
    CHECK_EQ_INT(t->apply_log(backup, log.data, log.len, err), SVC_ERR);
    CHECK(err[0] != '\0');
    log.data[0] = saved;
    export(t, backup, &after);
    CHECK(before.len == after.len && memcmp(before.data, after.data, before.len) == 0);

    /* the real log: same state, same answer */
    if (t->apply_log(backup, log.data, log.len, err) != SVC_OK) {
        fprintf(stderr, "%s: apply_log: %s\n", t->name, err);
        exit(1);
    }
    check_same_state(t, primary, backup);
    char want[SVC_MAX_RESPONSE + 1];
    const char *got = svc_check_call(t, primary, c->read);
    CHECK(got);
    snprintf(want, sizeof(want), "%s", got);
    CHECK_RESP(t, backup, c->read, want);

    /* chain: what `chained` applies it records, and `third` follows it */
    CHECK_EQ_INT(t->apply_log(chained, log.data, log.len, err), SVC_OK);
    svc_buf_reset(&again);
    CHECK_EQ_INT(t->drain_log(chained, &again, err), SVC_OK);
    CHECK(again.len > 0);
    CHECK_EQ_INT(t->apply_log(third, again.data, again.len, err), SVC_OK);
    check_same_state(t, primary, backup);
    check_same_state(t, chained, third);

    /* an import on the primary is replicated too; two drains concatenate */
    svc_buf state = {0};
    export(t, primary, &state);
    svc_buf_reset(&log);
    CHECK_EQ_INT(t->drain_log(primary, &log, err), SVC_OK); /* the read above, if it wrote */
    CHECK_EQ_INT(t->import_state(primary, state.data, state.len, err), SVC_OK);
    CHECK_EQ_INT(t->drain_log(primary, &log, err), SVC_OK);
    CHECK(log.len > 0);
    CHECK_EQ_INT(t->apply_log(backup, log.data, log.len, err), SVC_OK);
    check_same_state(t, primary, backup);

    svc_buf_free(&state);
    svc_buf_free(&log);
    svc_buf_free(&again);
    svc_buf_free(&before);
    svc_buf_free(&after);
    t->destroy(primary);
    t->destroy(backup);
    t->destroy(chained);
    t->destroy(third);
}

/* A well-framed log whose values the service would refuse in an import: a kvs key is not an
 * sql row key (8 bytes), so sql refuses the whole log and stays unchanged. */
static void check_refused_values(void) {
    const svc_type *kvs = svc_find("kvs"), *sql = svc_find("sql");
    svc_env rep = {.replicate = 1};
    char err[SVC_ERRBUF_LEN];
    svc_buf log = {0};
    svc_instance *k = svc_check_create(kvs, "", &rep);
    svc_instance *s = svc_check_create(sql, "columns=id:int", NULL);
    CHECK_RESP(kvs, k, "PUT abc x", "OK");
    CHECK_EQ_INT(kvs->drain_log(k, &log, err), SVC_OK);
    CHECK_EQ_INT(sql->apply_log(s, log.data, log.len, err), SVC_ERR);
    CHECK(strstr(err, "sql: replication log refused") != NULL);
    CHECK_RESP(sql, s, "SELECT", "");
    svc_buf_free(&log);
    kvs->destroy(k);
    sql->destroy(s);
}

int main(void) {
    size_t n, stateful = 0;
    const svc_type *const *all = svc_types(&n);
    for (size_t i = 0; i < n; i++) {
        if (!all[i]->stateful) {
            CHECK(all[i]->drain_log == NULL && all[i]->apply_log == NULL);
            continue;
        }
        stateful++;
        int covered = 0;
        for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++)
            covered |= strcmp(cases[j].service, all[i]->name) == 0;
        if (!covered) {
            fprintf(stderr, "stateful service %s has no replication case\n", all[i]->name);
            exit(1);
        }
    }
    CHECK_EQ_INT(stateful, sizeof(cases) / sizeof(cases[0]));
    for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) check_case(&cases[j]);
    check_refused_values();
    return 0;
}
