/* SPDX-License-Identifier: Apache-2.0 */
/*
 * recommend on a small hand-checked matrix, then an export -> import round trip.
 *
 *            a  b  c  d     norm
 *   alice    5  3  .  .     sqrt(34)
 *   bob      4  2  5  .     sqrt(45)
 *   carol    1  .  .  4     sqrt(17)
 *   dave     .  5  1  2     sqrt(30)
 *
 * alice: sim(bob)   = (5*4 + 3*2) / sqrt(34*45) = 26 / 39.1152 = 0.664703
 *        sim(carol) = (5*1) / sqrt(34*17)       =  5 / 24.0416 = 0.207973
 *        sim(dave)  = (3*5) / sqrt(34*30)       = 15 / 31.9374 = 0.469668
 *   c: (0.664703*5 + 0.469668*1) / (0.664703 + 0.469668) = 3.793183 / 1.134371 = 3.3439
 *   d: (0.207973*4 + 0.469668*2) / (0.207973 + 0.469668) = 1.771228 / 0.677641 = 2.6138
 * carol: sim(alice) = 0.207973, sim(bob) = 4 / sqrt(17*45) = 0.144620, sim(dave) = 8 / sqrt(17*30) = 0.354246
 *   b: (0.207973*3 + 0.144620*2 + 0.354246*5) / (0.207973 + 0.144620 + 0.354246) = 2.684390 / 0.706839 = 3.7977
 *   c: (0.144620*5 + 0.354246*1) / (0.144620 + 0.354246) = 1.077346 / 0.498866 = 2.1596
 */
#include "e3svc/rc.h"
#include "svc_check.h"

extern const svc_type svc_recommend;
#define T (&svc_recommend)

static const char *const users[] = {"alice", "bob", "carol", "dave", "erin", "nobody"};

/* Both instances answer every RECOMMEND of every user identically. */
static void same_answers(svc_instance *x, svc_instance *y) {
    for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        char req[64];
        snprintf(req, sizeof(req), "RECOMMEND %s 10", users[i]);
        char *a = strdup(svc_check_call(T, x, req));
        CHECK(a != NULL);
        CHECK_RESP(T, y, req, a);
        free(a);
    }
}

int main(void) {
    svc_instance *s = svc_check_create(T, "", NULL);
    CHECK_EQ_INT(T->stateful, 1);
    const char *ratings[] = {"RATE alice a 5",  "RATE alice b 1", "RATE alice b 3\n", /* b re-rated */
                             "RATE bob a 4",    "RATE bob b 2",   "RATE bob c 5",
                             "RATE carol d 4",  "RATE carol a 1", "RATE dave d 2",
                             "RATE dave c 1",   "RATE dave b 5"};
    for (size_t i = 0; i < sizeof(ratings) / sizeof(ratings[0]); i++) CHECK_RESP(T, s, ratings[i], "OK\n");

    CHECK_RESP(T, s, "RECOMMEND alice 10", "c 3.3439\nd 2.6138\n");
    CHECK_RESP(T, s, "RECOMMEND alice 1", "c 3.3439\n");
    CHECK_RESP(T, s, "RECOMMEND alice 0", "");
    CHECK_RESP(T, s, "RECOMMEND carol 5", "b 3.7977\nc 2.1596\n");
    CHECK_RESP(T, s, "RECOMMEND bob 5", "d 2.5232\n");
    CHECK_RESP(T, s, "RECOMMEND dave 5", "a 3.5187\n");
    CHECK_RESP(T, s, "RECOMMEND nobody 5", ""); /* unknown user */
    CHECK_RESP(T, s, "RATE erin z 3", "OK\n");
    CHECK_RESP(T, s, "RECOMMEND erin 5", ""); /* no common item: no neighbour */

    /* Bad requests. */
    CHECK(svc_check_call(T, s, "RATE alice a") == NULL);
    CHECK(svc_check_call(T, s, "RATE alice a five") == NULL);
    CHECK(svc_check_call(T, s, "RATE alice a inf") == NULL);
    CHECK(svc_check_call(T, s, "RECOMMEND alice") == NULL);
    CHECK(svc_check_call(T, s, "RECOMMEND alice -2") == NULL);
    CHECK(svc_check_call(T, s, "LIKE alice a") == NULL);
    CHECK_RESP(T, s, "RECOMMEND alice 10", "c 3.3439\nd 2.6138\n"); /* unchanged by the failures */

    /* Round trip: the imported instance answers identically, now and after the same updates. */
    svc_instance *m = svc_check_migrate(T, s, "", NULL);
    same_answers(s, m);
    CHECK_RESP(T, s, "RATE erin a 2", "OK\n");
    CHECK_RESP(T, m, "RATE erin a 2", "OK\n");
    CHECK_RESP(T, s, "RATE alice e 4", "OK\n");
    CHECK_RESP(T, m, "RATE alice e 4", "OK\n");
    same_answers(s, m);
    /* erin (a 2, z 3) now shares a with alice, bob, carol: c only from bob, d only from carol, e only
     * from alice (a lone neighbour predicts its own rating); b from alice and bob; d, e tie. */
    CHECK_RESP(T, m, "RECOMMEND erin 4", "c 5.0000\nd 4.0000\ne 4.0000\nb 2.5425\n");

    /* A state with a malformed row (item length past the end) is refused; the matrix stays. */
    char err[SVC_ERRBUF_LEN];
    rc_hash *h = rc_hash_new(NULL);
    CHECK(h != NULL);
    CHECK_EQ_INT(rc_hash_put(h, "alice", 5, "\x05\x00" "ab", 4), SVC_OK);
    svc_buf st = {0};
    CHECK_EQ_INT(rc_hash_snapshot(h, &st), SVC_OK);
    CHECK_EQ_INT(T->import_state(m, st.data, st.len, err), SVC_ERR);
    CHECK_EQ_INT(T->import_state(m, (const uint8_t *)"junk", 4, err), SVC_ERR);
    svc_buf_free(&st);
    rc_hash_free(h);
    CHECK_RESP(T, m, "RECOMMEND erin 4", "c 5.0000\nd 4.0000\ne 4.0000\nb 2.5425\n");
    T->destroy(m);
    T->destroy(s);
    return 0;
}
