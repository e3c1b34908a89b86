/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private helpers shared by the services and the reliable collections: little-endian
 * encoding, a seeded 64-bit hash, tokenizers and strict number parsing for the text wire
 * formats and configs, number formatting and buffer appends, the injected clock, and
 * length-prefixed sections for multi-collection state exports. Everything is static inline,
 * so no symbol leaves the including file; nothing here is part of the public interface.
 */
#ifndef E3SVC_SVC_UTIL_H
#define E3SVC_SVC_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e3svc/hash.h"
#include "e3svc/svc.h"

/* --- little-endian encoding --------------------------------------------------------------- */
static inline void svc_le16_put(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void svc_le32_put(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void svc_le64_put(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t svc_le16_get(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t svc_le32_get(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static inline uint64_t svc_le64_get(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
/* A double as its IEEE-754 bit pattern, little-endian (8 bytes). */
static inline void svc_lef64_put(uint8_t *p, double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    svc_le64_put(p, u);
}
static inline double svc_lef64_get(const uint8_t *p) {
    uint64_t u = svc_le64_get(p);
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

/* --- hashing: e3svc/hash.h (svc_mix64, svc_hash64) ---------------------------------------- */

/* --- text requests ------------------------------------------------------------------------ */
/* Next space-separated token of [*p, end): sets *tok and *tlen and advances *p past it.
 * Returns 1 if a token was found, 0 at the end. */
static inline int svc_next_token(const uint8_t **p, const uint8_t *end, const uint8_t **tok, size_t *tlen) {
    const uint8_t *s = *p;
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) s++;
    const uint8_t *e = s;
    while (e < end && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\n') e++;
    *tok = s;
    *tlen = (size_t)(e - s);
    *p = e;
    return e > s;
}
/* 1 if the token equals the NUL-terminated word. */
static inline int svc_tok_is(const uint8_t *tok, size_t tlen, const char *word) {
    return strlen(word) == tlen && memcmp(tok, word, tlen) == 0;
}
/* Parse a whole token as a finite double; SVC_OK or SVC_ERR. */
static inline int svc_tok_double(const uint8_t *tok, size_t tlen, double *out) {
    char buf[64];
    if (tlen == 0 || tlen >= sizeof(buf)) return SVC_ERR;
    memcpy(buf, tok, tlen);
    buf[tlen] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || *end || v != v || v - v != 0) return SVC_ERR; /* junk, NaN or infinite */
    *out = v;
    return SVC_OK;
}
/* Parse a whole token as an unsigned decimal integer; SVC_OK or SVC_ERR. */
static inline int svc_tok_u64(const uint8_t *tok, size_t tlen, uint64_t *out) {
    if (tlen == 0 || tlen > 20) return SVC_ERR;
    uint64_t v = 0;
    for (size_t i = 0; i < tlen; i++) {
        if (tok[i] < '0' || tok[i] > '9') return SVC_ERR;
        uint64_t d = (uint64_t)(tok[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return SVC_ERR;
        v = v * 10 + d;
    }
    *out = v;
    return SVC_OK;
}

/* --- text lines, words and configs -------------------------------------------------------- */
/* Heap copy of config value `key` (NUL-terminated), or NULL when the key is missing or memory
 * runs out (`*found` tells which). The caller frees it. */
static inline char *svc_text_config_dup(const char *config, const char *key, int *found) {
    *found = 0;
    if (!config) return NULL;
    size_t n = strlen(config) + 1;
    char *v = malloc(n);
    if (!v) return NULL;
    if (!svc_config_str(config, key, v, n)) {
        free(v);
        return NULL;
    }
    *found = 1;
    return v;
}

/* Parse the whole of the NUL-terminated `s` (no leading space) as a finite double. Returns 1
 * and sets *out, or 0 when malformed. (svc_tok_double does the same for a counted token.) */
static inline int svc_text_parse_double(const char *s, double *out) {
    char *end;
    if (!s || !*s || isspace((unsigned char)*s)) return 0;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* Parse the whole of `s` as a decimal signed 64-bit integer. Returns 1 and sets *out, or 0. */
static inline int svc_text_parse_i64(const char *s, long long *out) {
    char *end;
    if (!s || !*s || isspace((unsigned char)*s)) return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

/* Strict double from config: *out = dflt when `key` is missing; SVC_ERR (reason in err) when the
 * value is present but not a finite number. */
static inline int svc_text_config_double(const char *config, const char *key, double dflt, double *out,
                                         char *err) {
    char v[64];
    *out = dflt;
    if (!svc_config_str(config, key, v, sizeof(v))) return SVC_OK;
    if (!svc_text_parse_double(v, out)) return svc_set_error(err, "config %s=%s: not a number", key, v);
    return SVC_OK;
}

/* Strict integer from config, as svc_text_config_double. */
static inline int svc_text_config_long(const char *config, const char *key, long long dflt, long long *out,
                                       char *err) {
    char v[64];
    *out = dflt;
    if (!svc_config_str(config, key, v, sizeof(v))) return SVC_OK;
    if (!svc_text_parse_i64(v, out)) return svc_set_error(err, "config %s=%s: not an integer", key, v);
    return SVC_OK;
}

/* Next word of s[0..len) starting at *pos: a maximal run of ASCII letters and digits. Sets *start
 * and *wlen and advances *pos past it; returns 0 when no word is left. Callers lowercase. */
static inline int svc_text_next_word(const char *s, size_t len, size_t *pos, size_t *start, size_t *wlen) {
    size_t i = *pos;
    while (i < len && !isalnum((unsigned char)s[i])) i++;
    if (i >= len) {
        *pos = len;
        return 0;
    }
    size_t j = i;
    while (j < len && isalnum((unsigned char)s[j])) j++;
    *start = i;
    *wlen = j - i;
    *pos = j;
    return 1;
}

/* Next space-separated field of s[0..len) from *pos (spaces and tabs separate); like
 * svc_text_next_word. */
static inline int svc_text_next_field(const char *s, size_t len, size_t *pos, size_t *start, size_t *flen) {
    size_t i = *pos;
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i >= len) {
        *pos = len;
        return 0;
    }
    size_t j = i;
    while (j < len && s[j] != ' ' && s[j] != '\t') j++;
    *start = i;
    *flen = j - i;
    *pos = j;
    return 1;
}

/* Copy a request into a NUL-terminated heap string with one trailing "\n" or "\r\n" removed.
 * Returns NULL when memory runs out or the request holds a NUL or another line break. */
static inline char *svc_text_request_line(const uint8_t *req, size_t len) {
    if (len && req[len - 1] == '\n') len--;
    if (len && req[len - 1] == '\r') len--;
    for (size_t i = 0; i < len; i++)
        if (req[i] == '\0' || req[i] == '\n' || req[i] == '\r') return NULL;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    memcpy(s, req, len);
    s[len] = '\0';
    return s;
}

/* --- formatted appends -------------------------------------------------------------------- */
/* Format `v` with the fewest digits (up to 17) that read back as exactly `v`. */
static inline void svc_text_fmt_double(char *out, size_t n, double v) {
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

/* Append a NUL-terminated string to `b`. */
static inline int svc_text_append_str(svc_buf *b, const char *s) { return svc_buf_append(b, s, strlen(s)); }

/* printf-append to a buffer (at most 1023 bytes per call); SVC_OK or SVC_ERR. */
static inline int svc_buf_printf(svc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int svc_buf_printf(svc_buf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(tmp)) return SVC_ERR;
    return svc_buf_append(b, tmp, (size_t)n);
}

/* --- clock -------------------------------------------------------------------------------- */
/* Now in nanoseconds from the injected clock, or CLOCK_MONOTONIC when none was injected. */
static inline uint64_t svc_env_now(const svc_env *env) {
    if (env && env->now) return env->now(env->clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* --- sectioned state ---------------------------------------------------------------------- */
/* Append one section: u64 little-endian length, then the bytes. */
static inline int svc_section_begin(svc_buf *out, size_t *mark) {
    uint8_t z[8] = {0};
    *mark = out->len;
    return svc_buf_append(out, z, 8);
}
/* Patch the length of the section started at `mark` to cover everything appended since. */
static inline void svc_section_end(svc_buf *out, size_t mark) {
    svc_le64_put(out->data + mark, (uint64_t)(out->len - mark - 8));
}
/* Read the next section of [*p, end) into *sec and *slen; SVC_ERR if the length overruns. */
static inline int svc_section_next(const uint8_t **p, const uint8_t *end, const uint8_t **sec, size_t *slen) {
    if ((size_t)(end - *p) < 8) return SVC_ERR;
    uint64_t n = svc_le64_get(*p);
    if (n > (uint64_t)(end - *p) - 8) return SVC_ERR;
    *sec = *p + 8;
    *slen = (size_t)n;
    *p += 8 + n;
    return SVC_OK;
}

/* --- replication logs -------------------------------------------------------------------- */
/* drain_log's move: append `log` to `out` and empty `log` (keeping its memory for the next
 * records). SVC_ERR when memory runs out, both unchanged. */
static inline int svc_log_drain(svc_buf *log, svc_buf *out) {
    if (log->len == 0) return SVC_OK;
    if (svc_buf_append(out, log->data, log->len) != SVC_OK) return SVC_ERR;
    svc_buf_reset(log);
    return SVC_OK;
}
/* The log to hand a new collection: `log` when the environment asks for replication, else NULL
 * (nothing recorded). */
static inline svc_buf *svc_log_for(const svc_env *env, svc_buf *log) {
    return env && env->replicate ? log : NULL;
}

#endif
