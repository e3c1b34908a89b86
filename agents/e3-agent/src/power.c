/* SPDX-License-Identifier: Apache-2.0 */
/*
 * power: RAPL powercap reader and the linear model.
 *
 * Package domains are the root's entries named exactly "intel-rapl:<n>" (sub-domains such as
 * "intel-rapl:0:0" — core, uncore, dram — are inside the package's energy already). On most
 * kernels energy_uj is root-only; an unreadable counter means "no RAPL", and the model is used.
 */
#include "power.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e3svc/errbuf.h"

#define PWR_PATH_LEN 512 /* bytes */

typedef struct pwr_domain {
    char energy_path[PWR_PATH_LEN]; /* .../intel-rapl:<n>/energy_uj */
    uint64_t max_range_uj;          /* counter wraps after this many µJ (0: unknown) */
    uint64_t last_uj;               /* previous reading, µJ */
} pwr_domain;

struct pwr_meter {
    pwr_source source;                     /* RAPL or model */
    double idle_w, peak_w;                 /* model figures, W */
    pwr_clock_fn now;                      /* clock */
    void *clock_ctx;                       /* passed to now() */
    pwr_domain domains[PWR_MAX_PACKAGES];  /* RAPL package domains */
    size_t n_domains;                      /* entries used */
    uint64_t last_ns;                      /* time of the previous RAPL reading, ns */
    double last_w;                         /* previous RAPL result, W */
};

E3_DEFINE_SET_ERROR(pwr_set_error, PWR_ERRBUF_LEN, PWR_ERR)

static uint64_t pwr_mono_ns(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Read one unsigned decimal from `path`. Returns PWR_OK or PWR_ERR. */
static int pwr_read_u64(const char *path, uint64_t *out) {
    FILE *f = fopen(path, "r");
    if (!f) return PWR_ERR;
    unsigned long long v;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    if (!ok) return PWR_ERR;
    *out = (uint64_t)v;
    return PWR_OK;
}

/* 1 if `name` is "intel-rapl:<digits>" with nothing after. */
static int pwr_is_package(const char *name) {
    const char *p = "intel-rapl:";
    size_t n = strlen(p);
    if (strncmp(name, p, n) != 0 || name[n] == '\0') return 0;
    for (const char *c = name + n; *c; c++)
        if (*c < '0' || *c > '9') return 0;
    return 1;
}

static void pwr_probe_rapl(pwr_meter *m, const char *root) {
    DIR *d = opendir(root);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && m->n_domains < PWR_MAX_PACKAGES) {
        if (!pwr_is_package(de->d_name)) continue;
        pwr_domain *dom = &m->domains[m->n_domains];
        char path[PWR_PATH_LEN];
        int w = snprintf(dom->energy_path, sizeof(dom->energy_path), "%s/%s/energy_uj", root, de->d_name);
        if (w < 0 || (size_t)w >= sizeof(dom->energy_path)) continue;
        if (pwr_read_u64(dom->energy_path, &dom->last_uj) != PWR_OK) continue; /* unreadable: skip */
        w = snprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", root, de->d_name);
        if (w < 0 || (size_t)w >= sizeof(path) || pwr_read_u64(path, &dom->max_range_uj) != PWR_OK)
            dom->max_range_uj = 0;
        m->n_domains++;
    }
    closedir(d);
}

pwr_meter *pwr_new(const pwr_config *cfg, char *err) {
    if (!cfg || !(cfg->idle_w >= 0) || !(cfg->peak_w >= cfg->idle_w)) {
        pwr_set_error(err, "power: model needs 0 <= idle_w <= peak_w (server type %s)",
                      cfg && cfg->server_type ? cfg->server_type : "?");
        return NULL;
    }
    pwr_meter *m = calloc(1, sizeof(*m));
    if (!m) {
        pwr_set_error(err, "power: out of memory");
        return NULL;
    }
    m->idle_w = cfg->idle_w;
    m->peak_w = cfg->peak_w;
    m->now = cfg->now ? cfg->now : pwr_mono_ns;
    m->clock_ctx = cfg->clock_ctx;
    const char *root = cfg->powercap_root ? cfg->powercap_root : PWR_DEFAULT_ROOT;
    if (root[0]) pwr_probe_rapl(m, root);
    m->source = m->n_domains ? PWR_SOURCE_RAPL : PWR_SOURCE_MODEL;
    m->last_ns = m->now(m->clock_ctx);
    return m;
}

void pwr_free(pwr_meter *m) {
    free(m);
}

pwr_source pwr_source_of(const pwr_meter *m) {
    return m->source;
}

const char *pwr_source_name(pwr_source s) {
    switch (s) {
    case PWR_SOURCE_RAPL: return "rapl";
    case PWR_SOURCE_MODEL: return "model";
    }
    return "unknown";
}

int pwr_read(pwr_meter *m, double utilisation, pwr_sample *out, char *err) {
    uint64_t now = m->now(m->clock_ctx);
    if (m->source == PWR_SOURCE_MODEL) {
        double u = utilisation < 0 ? 0 : utilisation > 1 ? 1 : utilisation;
        *out = (pwr_sample){.watts = m->idle_w + (m->peak_w - m->idle_w) * u,
                            .source = PWR_SOURCE_MODEL, .at_ns = now};
        return PWR_OK;
    }
    uint64_t cur[PWR_MAX_PACKAGES];
    for (size_t i = 0; i < m->n_domains; i++)
        if (pwr_read_u64(m->domains[i].energy_path, &cur[i]) != PWR_OK)
            return pwr_set_error(err, "power: cannot read %s", m->domains[i].energy_path);
    if (now > m->last_ns) {
        double uj = 0;
        for (size_t i = 0; i < m->n_domains; i++) {
            pwr_domain *d = &m->domains[i];
            if (cur[i] >= d->last_uj)
                uj += (double)(cur[i] - d->last_uj);
            else if (d->max_range_uj >= d->last_uj) /* wrapped: up to the range, then from 0 */
                uj += (double)(d->max_range_uj - d->last_uj) + (double)cur[i];
            /* else: a counter reset we cannot measure across; count nothing */
            d->last_uj = cur[i];
        }
        m->last_w = uj / ((double)(now - m->last_ns) / 1e3); /* µJ per µs = W */
        m->last_ns = now;
    }
    *out = (pwr_sample){.watts = m->last_w, .source = PWR_SOURCE_RAPL, .at_ns = now};
    return PWR_OK;
}
