/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sql: a small in-memory SQL table (paper Table 2). Stateful: the rows live in one rc_hash
 * keyed by the primary key, so the state moves with a snapshot.
 *
 * Config:   columns=<name>:<type>,...   types int (64-bit), real (double), text; the first
 *           column is the primary key and must be int. Names: [A-Za-z_][A-Za-z0-9_]*, at most
 *           31 bytes, unique; at most 32 columns. Example: columns=id:int,name:text,temp:real
 * Requests (one text line; keywords in any case; <pk> is the primary key column's name):
 *   "INSERT <col>=<v> ..."                 the key must be given, other columns default to NULL
 *                                          → "OK 1\n"; an existing key is an error
 *   "UPDATE <col>=<v> ... WHERE <pk> = <k>"  → "OK 1\n", or "OK 0\n" when there is no such row;
 *                                          the key itself cannot be updated
 *   "DELETE WHERE <pk> = <k>"              → "OK 1\n" or "OK 0\n"
 *   "SELECT [WHERE <pk> = <k> | WHERE <pk> BETWEEN <a> AND <b>]"  (bounds inclusive; no WHERE:
 *                                          every row) → one line per row, key ascending, the
 *                                          columns in config order separated by '\t'; NULL is
 *                                          "\N", real the shortest exact form. A result larger
 *                                          than SVC_MAX_RESPONSE is an error (narrow the range).
 *   Values: int and real columns take bare numbers (an int literal fits a real column); text
 *   columns take '<text>' with '' for a quote (no tabs); any column but the key takes NULL.
 *   Unknown columns, type mismatches and queries on a non-key column are errors.
 * Range queries scan the table and sort the hits (O(n log n)); keeping no index beside the
 *   rc_hash means there is nothing to rebuild after an import.
 * State: schema_len u32 LE, the canonical schema ("id:int,name:text,temp:real"), then the
 *   rc_hash snapshot. Keys are the primary key as i64 LE; a value holds every other column in
 *   order as a tag byte (0 NULL, 1 int + i64 LE, 2 real + f64 LE, 3 text + u32 LE length + bytes).
 *   Import refuses a state of another schema or with a malformed row.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/rc.h"
#include "e3svc/svc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

#define SQL_MAX_COLS 32 /* columns per table */
#define SQL_NAME_MAX 32 /* bytes of a column name, NUL included */

enum { SQL_NULL = 0, SQL_INT = 1, SQL_REAL = 2, SQL_TEXT = 3 }; /* value tags = column types */
enum { TOK_WORD, TOK_EQ, TOK_STR };                              /* request token kinds */

typedef struct sql_col {
    char name[SQL_NAME_MAX]; /* NUL-terminated */
    int type;                /* SQL_INT, SQL_REAL or SQL_TEXT */
} sql_col;

typedef struct sql_val {
    int tag;        /* SQL_NULL or the column's type */
    long long i;    /* SQL_INT */
    double r;       /* SQL_REAL */
    const char *s;  /* SQL_TEXT: bytes (not NUL-terminated) */
    size_t len;     /* SQL_TEXT: bytes of s */
} sql_val;

typedef struct sql_tok {
    int kind;  /* TOK_* */
    char *s;   /* word or decoded string, NUL-terminated in place */
    size_t len; /* bytes of s */
} sql_tok;

struct svc_instance {
    sql_col cols[SQL_MAX_COLS]; /* cols[0] is the primary key */
    size_t ncols;               /* columns */
    char *schema;               /* canonical "name:type,..." */
    rc_hash *rows;              /* key (i64 LE) -> encoded row */
};

static const char *const sql_type_names[] = {"null", "int", "real", "text"};

/* ASCII case-insensitive equality of a NUL-terminated word and a keyword. */
static int sql_kw(const char *w, const char *kw) {
    for (; *w && *kw; w++, kw++)
        if (toupper((unsigned char)*w) != *kw) return 0;
    return *w == *kw;
}

/* Split `line` (modified in place: separators become NULs, strings are decoded) into tokens;
 * *n receives the count. SVC_ERR on an unterminated string, a tab inside one, or a quote
 * directly after a word. */
static int sql_tokenize(char *line, sql_tok *t, size_t *n, char *err) {
    size_t cnt = 0;
    char *p = line;
    while (*p) {
        if (*p == ' ' || *p == '\t') {
            *p++ = '\0';
        } else if (*p == '=') {
            *p = '\0';
            t[cnt++] = (sql_tok){TOK_EQ, p++, 0};
        } else if (*p == '\'') {
            char *start = ++p, *o = p;
            while (*p != '\'' || p[1] == '\'') {
                if (!*p) return svc_set_error(err, "sql: unterminated string");
                if (*p == '\t') return svc_set_error(err, "sql: tab inside a string");
                if (*p == '\'') p++; /* '' stands for one quote */
                *o++ = *p++;
            }
            *o = '\0'; /* o <= p, the closing quote */
            t[cnt++] = (sql_tok){TOK_STR, start, (size_t)(o - start)};
            p++;
        } else {
            char *start = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '=' && *p != '\'') p++;
            if (*p == '\'') return svc_set_error(err, "sql: a quote must not follow a word directly");
            /* the separator after the word becomes its NUL on the next turn */
            t[cnt++] = (sql_tok){TOK_WORD, start, (size_t)(p - start)};
        }
    }
    *n = cnt;
    return SVC_OK;
}

/* Index of column `name`, or -1 (error "unknown column" written). */
static long sql_col_index(const struct svc_instance *s, const char *name, char *err) {
    for (size_t i = 0; i < s->ncols; i++)
        if (strcmp(s->cols[i].name, name) == 0) return (long)i;
    svc_set_error(err, "sql: unknown column '%.40s'", name);
    return -1;
}

/* Convert token `t` to a value of column `c`. SVC_ERR on a type mismatch. */
static int sql_value(const sql_col *c, const sql_tok *t, sql_val *v, char *err) {
    memset(v, 0, sizeof(*v));
    if (t->kind == TOK_WORD && sql_kw(t->s, "NULL")) return SVC_OK;
    if (c->type == SQL_TEXT && t->kind == TOK_STR) {
        *v = (sql_val){SQL_TEXT, 0, 0, t->s, t->len};
        return SVC_OK;
    }
    if (c->type == SQL_INT && t->kind == TOK_WORD && svc_text_parse_i64(t->s, &v->i)) {
        v->tag = SQL_INT;
        return SVC_OK;
    }
    if (c->type == SQL_REAL && t->kind == TOK_WORD && svc_text_parse_double(t->s, &v->r)) {
        v->tag = SQL_REAL;
        return SVC_OK;
    }
    return svc_set_error(err, "sql: type mismatch: column %s is %s, got %s%.40s%s", c->name,
                         sql_type_names[c->type], t->kind == TOK_STR ? "'" : "", t->kind == TOK_EQ ? "=" : t->s,
                         t->kind == TOK_STR ? "'" : "");
}

/* Encode columns 1.. of `vals` into `out` (the row value). */
static int sql_encode(const struct svc_instance *s, const sql_val *vals, svc_buf *out) {
    for (size_t c = 1; c < s->ncols; c++) {
        uint8_t b[9];
        b[0] = (uint8_t)vals[c].tag;
        int rc = SVC_OK;
        if (vals[c].tag == SQL_NULL) {
            rc = svc_buf_append(out, b, 1);
        } else if (vals[c].tag == SQL_INT) {
            svc_le64_put(b + 1, (uint64_t)vals[c].i);
            rc = svc_buf_append(out, b, 9);
        } else if (vals[c].tag == SQL_REAL) {
            svc_lef64_put(b + 1, vals[c].r);
            rc = svc_buf_append(out, b, 9);
        } else {
            svc_le32_put(b + 1, (uint32_t)vals[c].len);
            rc = svc_buf_append(out, b, 5);
            if (rc == SVC_OK) rc = svc_buf_append(out, vals[c].s, vals[c].len);
        }
        if (rc != SVC_OK) return SVC_ERR;
    }
    return SVC_OK;
}

/* Decode row value v[0..len) into vals[1..] (text points into v). Returns 1, or 0 if malformed. */
static int sql_decode(const struct svc_instance *s, const uint8_t *v, size_t len, sql_val *vals) {
    size_t off = 0;
    for (size_t c = 1; c < s->ncols; c++) {
        memset(&vals[c], 0, sizeof(vals[c]));
        if (off >= len) return 0;
        int tag = v[off++];
        if (tag != SQL_NULL && tag != s->cols[c].type) return 0;
        vals[c].tag = tag;
        if (tag == SQL_INT || tag == SQL_REAL) {
            if (len - off < 8) return 0;
            if (tag == SQL_INT)
                vals[c].i = (long long)svc_le64_get(v + off);
            else if (!isfinite(vals[c].r = svc_lef64_get(v + off)))
                return 0;
            off += 8;
        } else if (tag == SQL_TEXT) {
            if (len - off < 4) return 0;
            size_t l = svc_le32_get(v + off);
            off += 4;
            if (len - off < l || memchr(v + off, '\t', l) || memchr(v + off, '\n', l)) return 0;
            vals[c].s = (const char *)v + off;
            vals[c].len = l;
            off += l;
        }
    }
    return off == len;
}

static void sql_key(long long k, uint8_t key[8]) { svc_le64_put(key, (uint64_t)k); }

/* Parse "WHERE <pk> = <k>" or "... BETWEEN <a> AND <b>" from t[0..n): *lo..*hi inclusive. */
static int sql_where(const struct svc_instance *s, const sql_tok *t, size_t n, int allow_range, long long *lo,
                     long long *hi, char *err) {
    if (n < 1 || t[0].kind != TOK_WORD || !sql_kw(t[0].s, "WHERE")) return svc_set_error(err, "sql: expected WHERE");
    if (n < 2 || t[1].kind != TOK_WORD) return svc_set_error(err, "sql: expected a column after WHERE");
    long c = sql_col_index(s, t[1].s, err);
    if (c < 0) return SVC_ERR;
    if (c != 0) return svc_set_error(err, "sql: only the primary key %s can be queried", s->cols[0].name);
    sql_val a, b;
    if (n == 4 && t[2].kind == TOK_EQ) {
        if (sql_value(&s->cols[0], &t[3], &a, err) != SVC_OK) return SVC_ERR;
        if (a.tag != SQL_INT) return svc_set_error(err, "sql: the key is never NULL");
        *lo = *hi = a.i;
        return SVC_OK;
    }
    if (allow_range && n == 6 && t[2].kind == TOK_WORD && sql_kw(t[2].s, "BETWEEN") && t[4].kind == TOK_WORD &&
        sql_kw(t[4].s, "AND")) {
        if (sql_value(&s->cols[0], &t[3], &a, err) != SVC_OK || sql_value(&s->cols[0], &t[5], &b, err) != SVC_OK)
            return SVC_ERR;
        if (a.tag != SQL_INT || b.tag != SQL_INT) return svc_set_error(err, "sql: the key is never NULL");
        *lo = a.i;
        *hi = b.i;
        return SVC_OK;
    }
    return svc_set_error(err, allow_range ? "sql: want WHERE %s = <k> or WHERE %s BETWEEN <a> AND <b>"
                                          : "sql: want WHERE %s = <k>%s",
                         s->cols[0].name, allow_range ? s->cols[0].name : "");
}

/* Parse "<col>=<v>" assignments from t[0..n) into vals (set[c] marks given columns); *used
 * receives how many tokens they took (they stop at a WHERE). */
static int sql_assign(const struct svc_instance *s, const sql_tok *t, size_t n, sql_val *vals, int *set,
                      size_t *used, char *err) {
    size_t i = 0;
    while (i < n && !(t[i].kind == TOK_WORD && sql_kw(t[i].s, "WHERE"))) {
        if (i + 2 >= n || t[i].kind != TOK_WORD || t[i + 1].kind != TOK_EQ)
            return svc_set_error(err, "sql: want <column>=<value>");
        long c = sql_col_index(s, t[i].s, err);
        if (c < 0) return SVC_ERR;
        if (set[c]) return svc_set_error(err, "sql: column %s given twice", s->cols[c].name);
        if (sql_value(&s->cols[c], &t[i + 2], &vals[c], err) != SVC_OK) return SVC_ERR;
        set[c] = 1;
        i += 3;
    }
    if (i == 0) return svc_set_error(err, "sql: no column assignments");
    *used = i;
    return SVC_OK;
}

/* Store row `vals` under key vals[0].i. */
static int sql_put(struct svc_instance *s, const sql_val *vals, char *err) {
    svc_buf row = {0};
    uint8_t key[8];
    sql_key(vals[0].i, key);
    if (sql_encode(s, vals, &row) != SVC_OK || rc_hash_put(s->rows, key, 8, row.data ? row.data : (const uint8_t *)"",
                                                          row.len) != SVC_OK) {
        svc_buf_free(&row);
        return svc_set_error(err, "sql: out of memory");
    }
    svc_buf_free(&row);
    return SVC_OK;
}

/* Append row `k` (its value v[0..len)) as one response line. */
static int sql_format_row(const struct svc_instance *s, long long k, const uint8_t *v, size_t len, svc_buf *resp,
                          char *err) {
    sql_val vals[SQL_MAX_COLS];
    char num[48];
    if (!sql_decode(s, v, len, vals)) return svc_set_error(err, "sql: corrupt row %lld", k);
    snprintf(num, sizeof(num), "%lld", k);
    int rc = svc_text_append_str(resp, num);
    for (size_t c = 1; c < s->ncols && rc == SVC_OK; c++) {
        rc = svc_buf_append(resp, "\t", 1);
        if (rc != SVC_OK) break;
        if (vals[c].tag == SQL_NULL) {
            rc = svc_text_append_str(resp, "\\N");
        } else if (vals[c].tag == SQL_INT) {
            snprintf(num, sizeof(num), "%lld", vals[c].i);
            rc = svc_text_append_str(resp, num);
        } else if (vals[c].tag == SQL_REAL) {
            svc_text_fmt_double(num, sizeof(num), vals[c].r);
            rc = svc_text_append_str(resp, num);
        } else {
            rc = svc_buf_append(resp, vals[c].s, vals[c].len);
        }
    }
    if (rc == SVC_OK) rc = svc_buf_append(resp, "\n", 1);
    if (rc != SVC_OK) return svc_set_error(err, "sql: out of memory");
    if (resp->len > SVC_MAX_RESPONSE) return svc_set_error(err, "sql: result exceeds %d bytes", SVC_MAX_RESPONSE);
    return SVC_OK;
}

typedef struct sql_range {
    long long lo, hi; /* inclusive bounds */
    long long *keys;  /* hits */
    size_t n;         /* hits so far */
} sql_range;

static int sql_range_one(const void *k, size_t kl, const void *v, size_t vl, void *ctx) {
    sql_range *r = ctx;
    (void)kl;
    (void)v;
    (void)vl;
    long long key = (long long)svc_le64_get(k);
    if (key >= r->lo && key <= r->hi) r->keys[r->n++] = key;
    return 0;
}

static int sql_cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* SELECT rows with lo <= key <= hi, key ascending. */
static int sql_select(struct svc_instance *s, long long lo, long long hi, svc_buf *resp, char *err) {
    uint8_t key[8];
    size_t vl;
    if (lo == hi) {
        sql_key(lo, key);
        const uint8_t *v = rc_hash_get(s->rows, key, 8, &vl);
        return v ? sql_format_row(s, lo, v, vl, resp, err) : SVC_OK;
    }
    sql_range r = {lo, hi, NULL, 0};
    size_t n = rc_hash_count(s->rows);
    if (n == 0 || lo > hi) return SVC_OK;
    r.keys = malloc(n * sizeof(*r.keys));
    if (!r.keys) return svc_set_error(err, "sql: out of memory");
    rc_hash_each(s->rows, sql_range_one, &r);
    qsort(r.keys, r.n, sizeof(*r.keys), sql_cmp_ll);
    for (size_t i = 0; i < r.n; i++) {
        sql_key(r.keys[i], key);
        const uint8_t *v = rc_hash_get(s->rows, key, 8, &vl);
        if (sql_format_row(s, r.keys[i], v, vl, resp, err) != SVC_OK) {
            free(r.keys);
            return SVC_ERR;
        }
    }
    free(r.keys);
    return SVC_OK;
}

/* Append "OK <rows>\n" (rows affected, 0 or 1). */
static int sql_ok(svc_buf *resp, int rows, char *err) {
    if (svc_text_append_str(resp, rows ? "OK 1\n" : "OK 0\n") != SVC_OK)
        return svc_set_error(err, "sql: out of memory");
    return SVC_OK;
}

/* Execute one statement from tokens t[0..n). */
static int sql_exec(struct svc_instance *s, const sql_tok *t, size_t n, svc_buf *resp, char *err) {
    sql_val vals[SQL_MAX_COLS];
    int set[SQL_MAX_COLS] = {0};
    long long lo, hi;
    size_t used;
    uint8_t key[8];
    memset(vals, 0, sizeof(vals));
    if (n == 0 || t[0].kind != TOK_WORD) return svc_set_error(err, "sql: empty request");
    const char *cmd = t[0].s;
    if (sql_kw(cmd, "SELECT")) {
        if (n == 1) return sql_select(s, LLONG_MIN, LLONG_MAX, resp, err);
        if (sql_where(s, t + 1, n - 1, 1, &lo, &hi, err) != SVC_OK) return SVC_ERR;
        return sql_select(s, lo, hi, resp, err);
    }
    if (sql_kw(cmd, "INSERT")) {
        if (sql_assign(s, t + 1, n - 1, vals, set, &used, err) != SVC_OK) return SVC_ERR;
        if (used != n - 1) return svc_set_error(err, "sql: INSERT takes no WHERE");
        if (!set[0] || vals[0].tag != SQL_INT)
            return svc_set_error(err, "sql: INSERT needs the key %s", s->cols[0].name);
        sql_key(vals[0].i, key);
        size_t vl;
        if (rc_hash_get(s->rows, key, 8, &vl)) return svc_set_error(err, "sql: duplicate key %lld", vals[0].i);
        if (sql_put(s, vals, err) != SVC_OK) return SVC_ERR;
        return sql_ok(resp, 1, err);
    }
    if (sql_kw(cmd, "UPDATE")) {
        sql_val cur[SQL_MAX_COLS];
        if (sql_assign(s, t + 1, n - 1, vals, set, &used, err) != SVC_OK) return SVC_ERR;
        if (set[0]) return svc_set_error(err, "sql: the key %s cannot be updated", s->cols[0].name);
        if (sql_where(s, t + 1 + used, n - 1 - used, 0, &lo, &hi, err) != SVC_OK) return SVC_ERR;
        sql_key(lo, key);
        size_t vl;
        const uint8_t *v = rc_hash_get(s->rows, key, 8, &vl);
        if (!v) return sql_ok(resp, 0, err);
        if (!sql_decode(s, v, vl, cur)) return svc_set_error(err, "sql: corrupt row %lld", lo);
        cur[0] = (sql_val){SQL_INT, lo, 0, NULL, 0};
        for (size_t c = 1; c < s->ncols; c++)
            if (set[c]) cur[c] = vals[c];
        if (sql_put(s, cur, err) != SVC_OK) return SVC_ERR;
        return sql_ok(resp, 1, err);
    }
    if (sql_kw(cmd, "DELETE")) {
        if (sql_where(s, t + 1, n - 1, 0, &lo, &hi, err) != SVC_OK) return SVC_ERR;
        sql_key(lo, key);
        return sql_ok(resp, rc_hash_del(s->rows, key, 8), err);
    }
    return svc_set_error(err, "sql: unknown statement (want INSERT, UPDATE, DELETE or SELECT)");
}

/* Handle one statement (see the file comment). On error the response is left empty. */
static int sql_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    sql_tok *t = NULL;
    size_t n = 0, mark = resp->len;
    char *line = svc_text_request_line(req, req_len);
    if (!line) return svc_set_error(err, "sql: bad request (embedded line break or NUL) or out of memory");
    t = malloc((strlen(line) + 1) * sizeof(*t));
    if (!t) {
        svc_set_error(err, "sql: out of memory");
        goto err;
    }
    if (sql_tokenize(line, t, &n, err) != SVC_OK) goto err;
    if (sql_exec(inst, t, n, resp, err) != SVC_OK) goto err;
    free(t);
    free(line);
    return SVC_OK;
err:
    resp->len = mark;
    free(t);
    free(line);
    return SVC_ERR;
}

/* Import check: 1 if the entry is an i64 key and a row that decodes under inst's schema. */
static int sql_check_row(const void *k, size_t kl, const void *v, size_t vl, const svc_instance *inst) {
    sql_val vals[SQL_MAX_COLS];
    (void)k;
    return kl == 8 && sql_decode(inst, v, vl, vals);
}

static const svc_hashstate sql_state = {
    .name = "sql",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, rows),
    .check = sql_check_row,
    .malformed = "state holds a malformed row",
};

static void sql_destroy(svc_instance *inst) {
    if (!inst) return;
    free(inst->schema);
    svc_hashstate_destroy(&sql_state, inst);
}

/* Parse columns=... into s->cols and the canonical s->schema. */
static int sql_parse_schema(struct svc_instance *s, const char *spec, char *err) {
    svc_buf canon = {0};
    const char *p = spec;
    while (*p) {
        while (*p == ' ') p++;
        const char *ns = p;
        while (isalnum((unsigned char)*p) || *p == '_') p++;
        size_t nl = (size_t)(p - ns);
        while (*p == ' ') p++;
        int ok = nl > 0 && nl < SQL_NAME_MAX && !isdigit((unsigned char)*ns) && *p++ == ':';
        while (ok && *p == ' ') p++;
        const char *ts = p;
        while (ok && isalpha((unsigned char)*p)) p++;
        size_t tl = (size_t)(p - ts);
        int type = 0;
        for (int i = SQL_INT; ok && i <= SQL_TEXT; i++)
            if (strlen(sql_type_names[i]) == tl && memcmp(ts, sql_type_names[i], tl) == 0) type = i;
        while (ok && *p == ' ') p++;
        if (!ok || !type || (*p && *p != ',')) {
            svc_set_error(err, "sql: bad column spec near '%.40s' (want name:int|real|text,...)", ns);
            goto err;
        }
        if (*p) p++;
        if (s->ncols == SQL_MAX_COLS) {
            svc_set_error(err, "sql: more than %d columns", SQL_MAX_COLS);
            goto err;
        }
        sql_col *c = &s->cols[s->ncols];
        memcpy(c->name, ns, nl);
        c->name[nl] = '\0';
        c->type = type;
        for (size_t i = 0; i < s->ncols; i++)
            if (strcmp(s->cols[i].name, c->name) == 0) {
                svc_set_error(err, "sql: column %s defined twice", c->name);
                goto err;
            }
        s->ncols++;
        if ((canon.len && svc_buf_append(&canon, ",", 1)) || svc_text_append_str(&canon, c->name) ||
            svc_buf_append(&canon, ":", 1) || svc_text_append_str(&canon, sql_type_names[type])) {
            svc_set_error(err, "sql: out of memory");
            goto err;
        }
    }
    if (s->ncols == 0 || s->cols[0].type != SQL_INT) {
        svc_set_error(err, "sql: config needs columns=<key>:int,... (the first column is an int key)");
        goto err;
    }
    if (svc_buf_append(&canon, "", 1)) {
        svc_set_error(err, "sql: out of memory");
        goto err;
    }
    s->schema = (char *)canon.data;
    return SVC_OK;
err:
    svc_buf_free(&canon);
    return SVC_ERR;
}

/* Create an empty table from the columns= config. */
static int sql_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    int found;
    char *spec = NULL;
    struct svc_instance *s = svc_hashstate_create(&sql_state, env, err);
    if (!s) return SVC_ERR;
    spec = svc_text_config_dup(config, "columns", &found);
    if (!spec) {
        svc_set_error(err, found ? "sql: out of memory" : "sql: config needs columns=");
        goto err;
    }
    if (sql_parse_schema(s, spec, err) != SVC_OK) goto err;
    free(spec);
    *out = s;
    return SVC_OK;
err:
    free(spec);
    sql_destroy(s);
    return SVC_ERR;
}

/* Export: the schema, then the rc_hash snapshot (see the file comment). */
static int sql_export(svc_instance *inst, svc_buf *out, char *err) {
    size_t mark = out->len, sl = strlen(inst->schema);
    uint8_t hdr[4];
    svc_le32_put(hdr, (uint32_t)sl);
    if (svc_buf_append(out, hdr, 4) || svc_buf_append(out, inst->schema, sl) ||
        svc_hashstate_export(&sql_state, inst, out, err) != SVC_OK) {
        out->len = mark;
        return svc_set_error(err, "sql: out of memory");
    }
    return SVC_OK;
}

/* Import: check the schema, restore the rows into a new table, check every row, swap it in. */
static int sql_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    size_t sl = strlen(inst->schema);
    if (len < 4 || svc_le32_get(state) != sl || len - 4 < sl || memcmp(state + 4, inst->schema, sl) != 0)
        return svc_set_error(err, "sql: state is not of schema %s", inst->schema);
    return svc_hashstate_import(&sql_state, inst, state + 4 + sl, len - 4 - sl, err);
}

SVC_HASHSTATE_LOG_OPS(sql, sql_state)

const svc_type svc_sql = {
    .name = "sql",
    .stateful = 1,
    .create = sql_create,
    .handle = sql_handle,
    .export_state = sql_export,
    .import_state = sql_import,
    .destroy = sql_destroy,
    .drain_log = sql_drain_log,
    .apply_log = sql_apply_log,
};
