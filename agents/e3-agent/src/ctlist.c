/* SPDX-License-Identifier: Apache-2.0 */
#include "ctlist.h"

#include <stdarg.h>
#include <string.h>

#include "e3svc/errbuf.h"

static int ctl_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static E3_DEFINE_SET_ERROR(ctl_error, CTL_ERRBUF_LEN, CTL_ERR)

int ctl_parse(const char *spec, ctl_list *out, char *err) {
    memset(out, 0, sizeof(*out));
    const char *item = spec ? spec : "";
    for (size_t i = 1;; i++) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        const char *s = item;
        while (len && (*s == ' ' || *s == '\t')) s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        if (!len) return ctl_error(err, "address %zu is empty (give host:port[,host:port...]): \"%s\"", i, spec ? spec : "");
        if (out->n == CTL_MAX_ADDRESSES) return ctl_error(err, "more than %d addresses", CTL_MAX_ADDRESSES);
        if (len >= CTL_ADDRESS_LEN)
            return ctl_error(err, "address %zu is %zu characters long (at most %d)", i, len, CTL_ADDRESS_LEN - 1);
        memcpy(out->addresses[out->n], s, len);
        out->addresses[out->n++][len] = '\0';
        if (!comma) return CTL_OK;
        item = comma + 1;
    }
}

#define CTL_FNV_OFFSET 2166136261u
#define CTL_FNV_PRIME 16777619u

static uint32_t ctl_fnv1a(uint32_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * CTL_FNV_PRIME;
    return h;
}

uint32_t ctl_hash(const char *cluster, const char *server) {
    return ctl_fnv1a(ctl_fnv1a(ctl_fnv1a(CTL_FNV_OFFSET, cluster ? cluster : ""), "/"), server ? server : "");
}

size_t ctl_preferred(const char *cluster, const char *server, size_t n) {
    return n ? ctl_hash(cluster, server) % n : 0;
}

void ctl_walk_init(ctl_walk *w, size_t n, size_t preferred) {
    w->n = n ? n : 1;
    w->preferred = preferred % w->n;
    w->step = 0;
}

size_t ctl_walk_current(const ctl_walk *w) {
    return (w->preferred + w->step) % w->n;
}

int ctl_walk_failed(ctl_walk *w) {
    if (++w->step < w->n) return 0;
    w->step = 0;
    return 1;
}

void ctl_walk_restart(ctl_walk *w) {
    w->step = 0;
}
