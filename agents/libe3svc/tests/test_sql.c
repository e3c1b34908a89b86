/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sql: statements with expected rows, errors for unknown columns / type mismatches / bad
 * syntax, and an export -> import round trip (plus refusal of a state of another schema).
 */
#include "svc_check.h"

extern const svc_type svc_sql;
#define T (&svc_sql)
#define CFG "columns=id:int, name:text, temp:real, floor:int"

/* Expect an error whose message contains `part`. */
static void expect_err(svc_instance *s, const char *req, const char *part) {
    svc_buf r = {0};
    char err[SVC_ERRBUF_LEN] = "";
    CHECK_EQ_INT(T->handle(s, (const uint8_t *)req, strlen(req), &r, err), SVC_ERR);
    if (!strstr(err, part)) {
        fprintf(stderr, "%s: error '%s' lacks '%s'\n", req, err, part);
        exit(1);
    }
    CHECK_EQ_INT(r.len, 0);
    svc_buf_free(&r);
}

static const char *const queries[] = {
    "SELECT", "SELECT WHERE id = 3", "SELECT WHERE id BETWEEN -100 AND 100", "SELECT WHERE id BETWEEN 2 AND 4",
    "SELECT WHERE id = 99",
};

int main(void) {
    svc_instance *s = svc_check_create(T, CFG, NULL);
    CHECK_EQ_INT(T->stateful, 1);
    CHECK_RESP(T, s, "SELECT", "");
    CHECK_RESP(T, s, "INSERT id=3 name='kitchen' temp=21.5 floor=0", "OK 1\n");
    CHECK_RESP(T, s, "insert id=1 name='hall way' temp=19", "OK 1\n"); /* floor NULL; an int literal in a real */
    CHECK_RESP(T, s, "INSERT temp=-2.25 id=-7 name='it''s cold'", "OK 1\n");
    CHECK_RESP(T, s, "INSERT id=4 name=NULL temp=0.1 floor=2\n", "OK 1\n");
    CHECK_RESP(T, s, "INSERT id=2 name='' temp=NULL floor=1", "OK 1\n");

    CHECK_RESP(T, s, "SELECT WHERE id = 3", "3\tkitchen\t21.5\t0\n");
    CHECK_RESP(T, s, "SELECT WHERE id = 99", "");
    CHECK_RESP(T, s, "SELECT WHERE id BETWEEN 1 AND 3", "1\thall way\t19\t\\N\n2\t\t\\N\t1\n3\tkitchen\t21.5\t0\n");
    CHECK_RESP(T, s, "select where id between 3 and 1", ""); /* keywords in any case; an empty range */
    CHECK_RESP(T, s, "SELECT",
               "-7\tit's cold\t-2.25\t\\N\n1\thall way\t19\t\\N\n2\t\t\\N\t1\n3\tkitchen\t21.5\t0\n4\t\\N\t0.1\t2\n");

    CHECK_RESP(T, s, "UPDATE temp=22 floor=NULL WHERE id = 3", "OK 1\n");
    CHECK_RESP(T, s, "UPDATE name='attic' WHERE id=4", "OK 1\n");
    CHECK_RESP(T, s, "UPDATE temp=1 WHERE id = 42", "OK 0\n");
    CHECK_RESP(T, s, "SELECT WHERE id BETWEEN 3 AND 4", "3\tkitchen\t22\t\\N\n4\tattic\t0.1\t2\n");
    CHECK_RESP(T, s, "DELETE WHERE id = 2", "OK 1\n");
    CHECK_RESP(T, s, "DELETE WHERE id = 2", "OK 0\n");
    CHECK_RESP(T, s, "SELECT WHERE id BETWEEN 1 AND 3", "1\thall way\t19\t\\N\n3\tkitchen\t22\t\\N\n");

    /* Errors: nothing changes, the response stays empty. */
    expect_err(s, "INSERT id=3 name='dup'", "duplicate key");
    expect_err(s, "INSERT id=5 colour='red'", "unknown column 'colour'");
    expect_err(s, "INSERT name='x'", "needs the key");
    expect_err(s, "INSERT id=NULL", "needs the key");
    expect_err(s, "INSERT id=5 name=kitchen", "type mismatch");  /* text must be quoted */
    expect_err(s, "INSERT id=5 temp='warm'", "type mismatch");
    expect_err(s, "INSERT id=5 floor=1.5", "type mismatch");
    expect_err(s, "INSERT id=x", "type mismatch");
    expect_err(s, "INSERT id=5 id=6", "given twice");
    expect_err(s, "INSERT id=5 name='open", "unterminated");
    expect_err(s, "INSERT id=5 name", "want <column>=<value>");
    expect_err(s, "UPDATE id=9 WHERE id = 1", "cannot be updated");
    expect_err(s, "UPDATE temp=1", "expected WHERE");
    expect_err(s, "UPDATE temp=1 WHERE id BETWEEN 1 AND 2", "want WHERE");
    expect_err(s, "UPDATE colour='red' WHERE id = 1", "unknown column");
    expect_err(s, "SELECT WHERE temp = 3", "only the primary key");
    expect_err(s, "SELECT WHERE colour = 3", "unknown column");
    expect_err(s, "SELECT WHERE ID = 3", "unknown column 'ID'"); /* column names are case-sensitive */
    expect_err(s, "SELECT WHERE id = 'three'", "type mismatch");
    expect_err(s, "SELECT WHERE id BETWEEN 1 OR 2", "want WHERE");
    expect_err(s, "DROP TABLE", "unknown statement");
    expect_err(s, "", "empty");
    CHECK_RESP(T, s, "SELECT",
               "-7\tit's cold\t-2.25\t\\N\n1\thall way\t19\t\\N\n3\tkitchen\t22\t\\N\n4\tattic\t0.1\t2\n");

    /* Round trip: the imported table answers every query identically, also after the same updates. */
    svc_instance *m = svc_check_migrate(T, s, CFG, NULL);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
            char *want = strdup(svc_check_call(T, s, queries[i]));
            CHECK(want != NULL);
            CHECK_RESP(T, m, queries[i], want);
            free(want);
        }
        if (round == 0) {
            CHECK_RESP(T, s, "INSERT id=10 name='new' temp=5", "OK 1\n");
            CHECK_RESP(T, m, "INSERT id=10 name='new' temp=5", "OK 1\n");
            CHECK_RESP(T, s, "UPDATE floor=7 WHERE id = 1", "OK 1\n");
            CHECK_RESP(T, m, "UPDATE floor=7 WHERE id = 1", "OK 1\n");
        } else if (round == 1) {
            CHECK_RESP(T, m, "SELECT WHERE id BETWEEN 1 AND 10",
                       "1\thall way\t19\t7\n3\tkitchen\t22\t\\N\n4\tattic\t0.1\t2\n10\tnew\t5\t\\N\n");
            CHECK_RESP(T, s, "DELETE WHERE id = 10", "OK 1\n");
            CHECK_RESP(T, m, "DELETE WHERE id = 10", "OK 1\n");
        }
    }

    /* A state of another schema is refused and the table is kept. */
    char err[SVC_ERRBUF_LEN];
    svc_buf st = {0};
    svc_instance *other = svc_check_create(T, "columns=id:int,name:text", NULL);
    CHECK_EQ_INT(T->export_state(other, &st, err), SVC_OK);
    CHECK_EQ_INT(T->import_state(m, st.data, st.len, err), SVC_ERR);
    CHECK(strstr(err, "schema") != NULL);
    CHECK_RESP(T, m, "SELECT WHERE id = 3", "3\tkitchen\t22\t\\N\n");
    svc_buf_free(&st);
    T->destroy(other);
    T->destroy(m);
    T->destroy(s);

    /* Bad configs. */
    const char *bad[] = {"", "columns=", "columns=name:text,id:int", "columns=id:int,id:text", "columns=id:integer",
                         "columns=id:int,9x:text", "columns=id"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        svc_instance *x = NULL;
        err[0] = '\0';
        CHECK_EQ_INT(T->create(bad[i], NULL, &x, err), SVC_ERR);
        CHECK(err[0] != '\0');
    }
    return 0;
}
