/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of libe3svc: byte buffers, the error setter, config-string parsing. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/errbuf.h"
#include "e3svc/svc.h"

/* Append `n` bytes; grows geometrically. SVC_ERR (buffer unchanged) on overflow or OOM. */
int svc_buf_append(svc_buf *b, const void *bytes, size_t n) {
    if (n == 0) return SVC_OK;
    if (n > SIZE_MAX - b->len) return SVC_ERR;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) {
            if (cap > SIZE_MAX / 2) {
                cap = b->len + n;
                break;
            }
            cap *= 2;
        }
        uint8_t *d = realloc(b->data, cap);
        if (!d) return SVC_ERR;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    return SVC_OK;
}

/* Empty `b`, keeping its memory. */
void svc_buf_reset(svc_buf *b) { b->len = 0; }

/* Free `b`'s memory and leave it empty and reusable. */
void svc_buf_free(svc_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

/* Format into `err` (SVC_ERRBUF_LEN bytes, may be NULL); always returns SVC_ERR. */
E3_DEFINE_SET_ERROR(svc_set_error, SVC_ERRBUF_LEN, SVC_ERR)

/* Find `key` in "k1=v1;k2=v2" (spaces around keys and values ignored). On success points *val at
 * the value and *vlen at its length (trailing spaces trimmed) and returns 1; else 0. */
static int config_find(const char *config, const char *key, const char **val, size_t *vlen) {
    if (!config || !key) return 0;
    size_t klen = strlen(key);
    const char *p = config;
    while (*p) {
        while (*p == ' ' || *p == ';') p++;
        const char *ks = p;
        while (*p && *p != '=' && *p != ';') p++;
        const char *ke = p;
        while (ke > ks && ke[-1] == ' ') ke--;
        if (*p != '=') continue; /* entry without '=': skip */
        p++;
        while (*p == ' ') p++;
        const char *vs = p;
        while (*p && *p != ';') p++;
        const char *ve = p;
        while (ve > vs && ve[-1] == ' ') ve--;
        if ((size_t)(ke - ks) == klen && memcmp(ks, key, klen) == 0) {
            *val = vs;
            *vlen = (size_t)(ve - vs);
            return 1;
        }
    }
    return 0;
}

/* Integer value of `key` (decimal, or 0x hex); `dflt` when missing or not a whole number. */
long svc_config_long(const char *config, const char *key, long dflt) {
    char buf[64];
    if (!svc_config_str(config, key, buf, sizeof(buf)) || !buf[0]) return dflt;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 0);
    if (errno || *end) return dflt;
    return v;
}

/* Floating value of `key`; `dflt` when missing or malformed. */
double svc_config_double(const char *config, const char *key, double dflt) {
    char buf[64];
    if (!svc_config_str(config, key, buf, sizeof(buf)) || !buf[0]) return dflt;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || *end) return dflt;
    return v;
}

/* Copy `key`'s value into out[n] (truncated, NUL-terminated); 1 if found, else 0 and out = "". */
int svc_config_str(const char *config, const char *key, char *out, size_t n) {
    const char *v;
    size_t vl;
    if (n) out[0] = '\0';
    if (!config_find(config, key, &v, &vl)) return 0;
    if (n == 0) return 1;
    if (vl >= n) vl = n - 1;
    memcpy(out, v, vl);
    out[vl] = '\0';
    return 1;
}
