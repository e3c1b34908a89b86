/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private helpers shared by the part-A services and the reliable collections: little-endian
 * encoding, a seeded 64-bit hash, a tokenizer for the text wire formats, formatted appends,
 * the injected clock, and length-prefixed sections for multi-collection state exports.
 * Everything is static inline; nothing here is part of the public interface.
 */
#ifndef E3SVC_SVC_UTIL_H
#define E3SVC_SVC_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e3svc/svc.h"

/* --- little-endian encoding --------------------------------------------------------------- */
static inline void svc_le32_put(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void svc_le64_put(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
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

/* --- hashing ------------------------------------------------------------------------------ */
/* splitmix64 finaliser: a bijective 64-bit mixer. */
static inline uint64_t svc_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}
/* Seeded 64-bit hash of n bytes (FNV-1a over the bytes, seed folded in, splitmix64 finish).
 * Different seeds give (practically) independent hash functions. */
static inline uint64_t svc_hash64(const void *data, size_t n, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ULL ^ svc_mix64(seed + 0x9e3779b97f4a7c15ULL);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return svc_mix64(h ^ n);
}

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

#endif
