/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of the reliable collections: operations, growth, snapshots, log replay, malformed input. */
#include <stdint.h>

#include "check.h"
#include "e3svc/rc.h"

static int count_entries(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    (void)k, (void)kl, (void)v, (void)vl;
    ++*(size_t *)ctx;
    return 0;
}

/* 1 if every entry of a is in b with the same value and the counts match. */
static int check_in(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    size_t bl;
    const void *bv = rc_hash_get(ctx, k, kl, &bl);
    if (!bv || bl != vl || memcmp(bv, v, vl) != 0) {
        fprintf(stderr, "entry mismatch\n");
        exit(1);
    }
    return 0;
}
static void check_hash_equal(rc_hash *a, rc_hash *b) {
    CHECK_EQ_INT(rc_hash_count(a), rc_hash_count(b));
    rc_hash_each(a, check_in, b);
}

static void test_hash_basic(void) {
    rc_hash *h = rc_hash_new(NULL);
    CHECK(h);
    size_t vl = 99;
    CHECK(rc_hash_get(h, "a", 1, &vl) == NULL);
    CHECK_EQ_INT(rc_hash_put(h, "a", 1, "one", 3), SVC_OK);
    CHECK_EQ_INT(rc_hash_put(h, "", 0, "", 0), SVC_OK); /* empty key and value */
    const char *v = rc_hash_get(h, "a", 1, &vl);
    CHECK(v && vl == 3);
    CHECK_MEM(v, "one", 3);
    CHECK_EQ_INT(rc_hash_put(h, "a", 1, "uno!", 4), SVC_OK);
    v = rc_hash_get(h, "a", 1, &vl);
    CHECK(v && vl == 4);
    CHECK_MEM(v, "uno!", 4);
    CHECK_EQ_INT(rc_hash_count(h), 2);
    CHECK(rc_hash_get(h, "", 0, &vl) != NULL && vl == 0);
    CHECK_EQ_INT(rc_hash_del(h, "a", 1), 1);
    CHECK_EQ_INT(rc_hash_del(h, "a", 1), 0);
    CHECK(rc_hash_get(h, "a", 1, NULL) == NULL);
    CHECK_EQ_INT(rc_hash_count(h), 1);
    rc_hash_free(h);
}

static void test_hash_growth(void) {
    rc_hash *h = rc_hash_new(NULL);
    char k[32];
    for (uint32_t i = 0; i < 100000; i++) {
        int n = snprintf(k, sizeof(k), "key-%u", i);
        CHECK_EQ_INT(rc_hash_put(h, k, (size_t)n, &i, sizeof(i)), SVC_OK);
    }
    CHECK_EQ_INT(rc_hash_count(h), 100000);
    for (uint32_t i = 0; i < 100000; i++) {
        int n = snprintf(k, sizeof(k), "key-%u", i);
        size_t vl;
        const uint32_t *v = rc_hash_get(h, k, (size_t)n, &vl);
        CHECK(v && vl == sizeof(uint32_t) && *v == i);
    }
    /* delete every third key; the rest must stay reachable (backward-shift deletion) */
    for (uint32_t i = 0; i < 100000; i += 3) {
        int n = snprintf(k, sizeof(k), "key-%u", i);
        CHECK_EQ_INT(rc_hash_del(h, k, (size_t)n), 1);
    }
    for (uint32_t i = 0; i < 100000; i++) {
        int n = snprintf(k, sizeof(k), "key-%u", i);
        const uint32_t *v = rc_hash_get(h, k, (size_t)n, NULL);
        if (i % 3 == 0) CHECK(v == NULL);
        else CHECK(v && *v == i);
    }
    size_t seen = 0;
    rc_hash_each(h, count_entries, &seen);
    CHECK_EQ_INT(seen, rc_hash_count(h));
    CHECK_EQ_INT(seen, 100000 - 33334);
    rc_hash_free(h);
}

static void test_hash_snapshot_and_log(void) {
    svc_buf log = {0}, snap = {0};
    rc_hash *p = rc_hash_new(&log);
    char k[32], v[64];
    for (int i = 0; i < 5000; i++) {
        int kn = snprintf(k, sizeof(k), "k%d", i % 1500);
        int vn = snprintf(v, sizeof(v), "value-%d", i);
        CHECK_EQ_INT(rc_hash_put(p, k, (size_t)kn, v, (size_t)vn), SVC_OK);
        if (i % 7 == 0) rc_hash_del(p, k, (size_t)kn);
    }
    /* a backup applying the log (in two arbitrary record-aligned halves is not needed: whole) */
    rc_hash *b = rc_hash_new(NULL);
    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(rc_hash_apply_log(b, log.data, log.len, err), SVC_OK);
    check_hash_equal(p, b);
    check_hash_equal(b, p);

    /* snapshot -> restore equality; the restore is logged so a second backup follows */
    CHECK_EQ_INT(rc_hash_snapshot(p, &snap), SVC_OK);
    svc_buf log2 = {0};
    rc_hash *r = rc_hash_new(&log2);
    CHECK_EQ_INT(rc_hash_put(r, "stale", 5, "x", 1), SVC_OK);
    CHECK_EQ_INT(rc_hash_restore(r, snap.data, snap.len, err), SVC_OK);
    check_hash_equal(p, r);
    CHECK(rc_hash_get(r, "stale", 5, NULL) == NULL);
    rc_hash *b2 = rc_hash_new(NULL);
    CHECK_EQ_INT(rc_hash_apply_log(b2, log2.data, log2.len, err), SVC_OK);
    check_hash_equal(r, b2);

    /* malformed snapshots: every truncation, bad magic/version, inflated count, trailing bytes */
    for (size_t n = 0; n < snap.len; n += (n < 64 ? 1 : 97)) {
        CHECK_EQ_INT(rc_hash_restore(r, snap.data, n, err), SVC_ERR);
        check_hash_equal(p, r); /* unchanged */
    }
    uint8_t *bad = malloc(snap.len + 1);
    memcpy(bad, snap.data, snap.len);
    bad[0] ^= 1;
    CHECK_EQ_INT(rc_hash_restore(r, bad, snap.len, err), SVC_ERR);
    bad[0] ^= 1;
    bad[4] = 2;
    CHECK_EQ_INT(rc_hash_restore(r, bad, snap.len, err), SVC_ERR);
    bad[4] = 1;
    bad[15] = 0x7f; /* huge count */
    CHECK_EQ_INT(rc_hash_restore(r, bad, snap.len, err), SVC_ERR);
    bad[15] = snap.data[15];
    bad[16 + 3] = 0xff; /* first key length ~4G */
    CHECK_EQ_INT(rc_hash_restore(r, bad, snap.len, err), SVC_ERR);
    bad[16 + 3] = snap.data[16 + 3];
    bad[snap.len] = 0;
    CHECK_EQ_INT(rc_hash_restore(r, bad, snap.len + 1, err), SVC_ERR);
    CHECK_EQ_INT(rc_hash_restore(r, bad, snap.len, err), SVC_OK);
    check_hash_equal(p, r);
    free(bad);
    /* duplicate keys in a hand-made snapshot */
    const uint8_t dup[] = {'E', '3', 'R', 'H', 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                           1, 0, 0, 0, 0, 0, 0, 0, 'a', 1, 0, 0, 0, 0, 0, 0, 0, 'a'};
    CHECK_EQ_INT(rc_hash_restore(r, dup, sizeof(dup), err), SVC_ERR);

    /* malformed logs: truncations (except at record boundaries) and bad bytes; unchanged after */
    rc_hash *e = rc_hash_new(NULL);
    CHECK_EQ_INT(rc_hash_apply_log(e, log.data, 5, err), SVC_ERR);
    CHECK_EQ_INT(rc_hash_apply_log(e, log.data, log.len - 1, err), SVC_ERR);
    CHECK_EQ_INT(rc_hash_count(e), 0);
    uint8_t rec[11 + 1] = {0xE3, 1, 1, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 'k'};
    CHECK_EQ_INT(rc_hash_apply_log(e, rec, sizeof(rec), err), SVC_ERR); /* vlen overruns */
    rec[2] = 9;
    CHECK_EQ_INT(rc_hash_apply_log(e, rec, sizeof(rec), err), SVC_ERR); /* bad op */
    rec[0] = 0;
    CHECK_EQ_INT(rc_hash_apply_log(e, rec, sizeof(rec), err), SVC_ERR); /* bad magic */
    CHECK_EQ_INT(rc_hash_count(e), 0);

    rc_hash_free(p);
    rc_hash_free(b);
    rc_hash_free(r);
    rc_hash_free(b2);
    rc_hash_free(e);
    svc_buf_free(&log);
    svc_buf_free(&log2);
    svc_buf_free(&snap);
}

static void test_array(void) {
    svc_buf log = {0}, snap = {0};
    char err[SVC_ERRBUF_LEN];
    CHECK(rc_array_new(0, 8, NULL) == NULL);
    CHECK(rc_array_new(SIZE_MAX / 2, 8, NULL) == NULL);
    rc_array *a = rc_array_new(1000, sizeof(uint64_t), &log);
    CHECK(a && rc_array_count(a) == 1000 && rc_array_elem_size(a) == 8);
    CHECK(*(const uint64_t *)rc_array_get(a, 999) == 0);
    CHECK(rc_array_get(a, 1000) == NULL);
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t v = i * 31;
        CHECK_EQ_INT(rc_array_set(a, (size_t)(i * 7 % 1000), &v), SVC_OK);
    }
    uint64_t one = 1;
    CHECK_EQ_INT(rc_array_set(a, 1000, &one), SVC_ERR);

    rc_array *b = rc_array_new(1000, sizeof(uint64_t), NULL);
    CHECK_EQ_INT(rc_array_apply_log(b, log.data, log.len, err), SVC_OK);
    for (size_t i = 0; i < 1000; i++) CHECK_MEM(rc_array_get(a, i), rc_array_get(b, i), 8);

    CHECK_EQ_INT(rc_array_snapshot(a, &snap), SVC_OK);
    svc_buf log2 = {0};
    rc_array *r = rc_array_new(1000, sizeof(uint64_t), &log2);
    CHECK_EQ_INT(rc_array_restore(r, snap.data, snap.len, err), SVC_OK);
    for (size_t i = 0; i < 1000; i++) CHECK_MEM(rc_array_get(a, i), rc_array_get(r, i), 8);
    rc_array *b2 = rc_array_new(1000, sizeof(uint64_t), NULL);
    CHECK_EQ_INT(rc_array_apply_log(b2, log2.data, log2.len, err), SVC_OK); /* FILL record */
    for (size_t i = 0; i < 1000; i++) CHECK_MEM(rc_array_get(a, i), rc_array_get(b2, i), 8);

    /* malformed / mismatched */
    rc_array *other = rc_array_new(999, sizeof(uint64_t), NULL);
    CHECK_EQ_INT(rc_array_restore(other, snap.data, snap.len, err), SVC_ERR);
    CHECK_EQ_INT(rc_array_apply_log(other, log.data, log.len, err), SVC_ERR);
    CHECK(*(const uint64_t *)rc_array_get(other, 0) == 0);
    for (size_t n = 0; n < snap.len; n += (n < 64 ? 1 : 301))
        CHECK_EQ_INT(rc_array_restore(r, snap.data, n, err), SVC_ERR);
    CHECK_EQ_INT(rc_array_apply_log(b, log.data, log.len - 3, err), SVC_ERR);
    CHECK_EQ_INT(rc_array_apply_log(b, log.data, 7, err), SVC_ERR);
    uint8_t rec[15 + 8] = {0xE3, 1, 1, 8, 0, 0, 0, 0xe8, 0x03, 0, 0, 0, 0, 0, 0}; /* index 1000 */
    CHECK_EQ_INT(rc_array_apply_log(b, rec, sizeof(rec), err), SVC_ERR);
    rec[7] = 0;
    rec[8] = 0;
    rec[2] = 7;
    CHECK_EQ_INT(rc_array_apply_log(b, rec, sizeof(rec), err), SVC_ERR);
    rec[2] = 1;
    CHECK_EQ_INT(rc_array_apply_log(b, rec, sizeof(rec), err), SVC_OK);
    CHECK(*(const uint64_t *)rc_array_get(b, 0) == 0);

    rc_array_free(a);
    rc_array_free(b);
    rc_array_free(r);
    rc_array_free(b2);
    rc_array_free(other);
    svc_buf_free(&log);
    svc_buf_free(&log2);
    svc_buf_free(&snap);
}

int main(void) {
    test_hash_basic();
    test_hash_growth();
    test_hash_snapshot_and_log();
    test_array();
    return 0;
}
