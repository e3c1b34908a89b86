/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private helpers shared by the text-speaking services (bm25, nids, recommend, knn, bayes,
 * top_ranker, sql): config values that need a heap copy or strict parsing, word tokenising,
 * request-line splitting, number formatting and little-endian packing. Internal to libe3svc:
 * everything here is `static inline`, so no symbol leaves the including file.
 */
#ifndef E3SVC_SVC_TEXT_H
#define E3SVC_SVC_TEXT_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/svc.h"

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

/* Parse the whole of `s` as a finite double. Returns 1 and sets *out, or 0 when malformed. */
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

/* Format `v` with the fewest digits (up to 17) that read back as exactly `v`. */
static inline void svc_text_fmt_double(char *out, size_t n, double v) {
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

/* Append a NUL-terminated string to `b`. */
static inline int svc_text_append_str(svc_buf *b, const char *s) { return svc_buf_append(b, s, strlen(s)); }

/* Little-endian stores and loads. */
static inline void svc_text_put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void svc_text_put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void svc_text_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t svc_text_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t svc_text_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t svc_text_get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
/* A double as its IEEE-754 bit pattern, little-endian (8 bytes). */
static inline void svc_text_put_f64(uint8_t *p, double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    svc_text_put_u64(p, u);
}
static inline double svc_text_get_f64(const uint8_t *p) {
    uint64_t u = svc_text_get_u64(p);
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

#endif
