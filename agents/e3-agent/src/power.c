/* SPDX-License-Identifier: Apache-2.0 */
/*
 * power: RAPL powercap reader and the linear model.
 *
 * Zones counted (see power.h): the root's package zones "intel-rapl:<n>" whose `name` starts
 * with "package", and each one's sub-zones "intel-rapl:<n>:<m>" whose `name` is "dram".
 * /sys/class/powercap lists every zone flat (symlinks) and each package's directory holds its
 * sub-zones as well: both places are looked at, and a sub-zone found in both counts once.
 * Every reading reads all counted zones or none: a partial sum would read low and still say
 * rapl. On most kernels energy_uj is root-only.
 */
#include "power.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alog.h"
#include "e3svc/errbuf.h"

#define PWR_PATH_LEN 512      /* bytes */
#define PWR_ZONE_NAME_LEN 64  /* bytes: "intel-rapl:<n>" or "intel-rapl:<n>:<m>" */
#define PWR_ZONE_PREFIX "intel-rapl:"

typedef struct pwr_zone {
    char zone[PWR_ZONE_NAME_LEN];    /* "intel-rapl:0" (package) or "intel-rapl:0:2" (its dram) */
    char energy_path[PWR_PATH_LEN];  /* .../<zone>/energy_uj */
    uint64_t max_range_uj;           /* counter wraps after this many µJ (0: unknown) */
    uint64_t last_uj;                /* counter at the baseline, µJ */
} pwr_zone;

struct pwr_meter {
    pwr_source source;               /* set-up source: RAPL (zones found and readable) or model */
    double idle_w, peak_w;           /* model figures, W */
    pwr_clock_fn now;                /* clock */
    void *clock_ctx;                 /* passed to now() */
    pwr_zone zones[PWR_MAX_ZONES];   /* counted zones: packages and their dram zones */
    size_t n_zones;                  /* entries used */
    bool have_baseline;              /* zones[].last_uj and last_ns hold a reading to measure from */
    bool have_rapl_w;                /* last_rapl_w was measured since that baseline */
    bool unreadable;                 /* the previous reading could not read a counter (logged) */
    uint64_t last_ns;                /* time of the baseline, ns */
    double last_rapl_w;              /* previous RAPL result, W */
};

E3_DEFINE_SET_ERROR(pwr_set_error, PWR_ERRBUF_LEN, PWR_ERR)

static uint64_t pwr_mono_ns(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Read one unsigned decimal from `path`. Returns PWR_OK, or PWR_ERR with the reason in `why`. */
static int pwr_read_u64(const char *path, uint64_t *out, char *why) {
    FILE *f = fopen(path, "r");
    if (!f) return pwr_set_error(why, "cannot read %s: %s", path, strerror(errno));
    unsigned long long v;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    if (!ok) return pwr_set_error(why, "%s holds no counter", path);
    *out = (uint64_t)v;
    return PWR_OK;
}

/* The first word of `dir`/`zone`/name into `out` (`len` bytes). Returns PWR_OK or PWR_ERR. */
static int pwr_read_name(const char *dir, const char *zone, char *out, size_t len) {
    char path[PWR_PATH_LEN];
    int w = snprintf(path, sizeof(path), "%s/%s/name", dir, zone);
    if (w < 0 || (size_t)w >= sizeof(path)) return PWR_ERR;
    FILE *f = fopen(path, "r");
    if (!f) return PWR_ERR;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok) return PWR_ERR;
    out[strcspn(out, " \t\r\n")] = '\0';
    return PWR_OK;
}

/* "intel-rapl:<n>" -> 1, "intel-rapl:<n>:<m>" -> 2 (digits only), with `*package` = n; else 0. */
static int pwr_zone_depth(const char *name, unsigned long *package) {
    size_t n = strlen(PWR_ZONE_PREFIX);
    if (strncmp(name, PWR_ZONE_PREFIX, n) != 0) return 0;
    const char *c = name + n;
    for (int depth = 1; depth <= 2; depth++) {
        if (*c < '0' || *c > '9') return 0;
        char *end;
        unsigned long v = strtoul(c, &end, 10);
        if (depth == 1) *package = v;
        if (*end == '\0') return depth;
        if (*end != ':') return 0;
        c = end + 1;
    }
    return 0;
}

/* Count zone `zone` of directory `dir`, reading its counter as the baseline, unless it is
 * counted already. Returns PWR_OK, or PWR_ERR with the reason in `why`. */
static int pwr_add_zone(pwr_meter *m, const char *dir, const char *zone, char *why) {
    for (size_t i = 0; i < m->n_zones; i++)
        if (strcmp(m->zones[i].zone, zone) == 0) return PWR_OK;
    if (m->n_zones == PWR_MAX_ZONES) return pwr_set_error(why, "more than %d RAPL zones under %s", PWR_MAX_ZONES, dir);
    pwr_zone *z = &m->zones[m->n_zones];
    char path[PWR_PATH_LEN];
    int w1 = snprintf(z->zone, sizeof(z->zone), "%s", zone);
    int w2 = snprintf(z->energy_path, sizeof(z->energy_path), "%s/%s/energy_uj", dir, zone);
    int w3 = snprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", dir, zone);
    if (w1 < 0 || (size_t)w1 >= sizeof(z->zone) || w2 < 0 || (size_t)w2 >= sizeof(z->energy_path) || w3 < 0 ||
        (size_t)w3 >= sizeof(path))
        return pwr_set_error(why, "path of RAPL zone %s/%s too long", dir, zone);
    if (pwr_read_u64(z->energy_path, &z->last_uj, why) != PWR_OK) return PWR_ERR;
    if (pwr_read_u64(path, &z->max_range_uj, NULL) != PWR_OK) z->max_range_uj = 0;
    m->n_zones++;
    return PWR_OK;
}

/* Count package `package`'s dram sub-zones listed in directory `dir` (absent: none). Returns
 * PWR_OK, or PWR_ERR with the reason in `why`. */
static int pwr_add_dram_zones(pwr_meter *m, const char *dir, unsigned long package, char *why) {
    DIR *d = opendir(dir);
    if (!d) return PWR_OK;
    int rc = PWR_OK;
    struct dirent *de;
    while (rc == PWR_OK && (de = readdir(d)) != NULL) {
        unsigned long owner;
        char name[32];
        if (pwr_zone_depth(de->d_name, &owner) != 2 || owner != package) continue;
        if (pwr_read_name(dir, de->d_name, name, sizeof(name)) != PWR_OK || strcmp(name, "dram") != 0)
            continue; /* core, uncore: inside the package's counter */
        rc = pwr_add_zone(m, dir, de->d_name, why);
    }
    closedir(d);
    return rc;
}

/* Find the zones to count under `root` and read them once as the baseline. Returns PWR_OK (no
 * zone at all: no RAPL here), or PWR_ERR with the reason in `why` and no zone counted. */
static int pwr_probe_rapl(pwr_meter *m, const char *root, char *why) {
    DIR *d = opendir(root);
    if (!d) return PWR_OK;
    int rc = PWR_OK;
    struct dirent *de;
    while (rc == PWR_OK && (de = readdir(d)) != NULL) {
        unsigned long package;
        char name[32], package_dir[PWR_PATH_LEN];
        if (pwr_zone_depth(de->d_name, &package) != 1) continue;
        if (pwr_read_name(root, de->d_name, name, sizeof(name)) != PWR_OK || strncmp(name, "package", 7) != 0)
            continue; /* psys: the whole platform, packages included */
        int w = snprintf(package_dir, sizeof(package_dir), "%s/%s", root, de->d_name);
        if (w < 0 || (size_t)w >= sizeof(package_dir)) {
            rc = pwr_set_error(why, "path of RAPL zone %s/%s too long", root, de->d_name);
            break;
        }
        rc = pwr_add_zone(m, root, de->d_name, why);
        if (rc == PWR_OK) rc = pwr_add_dram_zones(m, package_dir, package, why); /* nested layout */
        if (rc == PWR_OK) rc = pwr_add_dram_zones(m, root, package, why);        /* flat layout */
    }
    closedir(d);
    if (rc != PWR_OK) m->n_zones = 0;
    return rc;
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
    char why[PWR_ERRBUF_LEN];
    if (root[0] && pwr_probe_rapl(m, root, why) != PWR_OK)
        alog(ALOG_WARN, "power: RAPL not used, the model instead: %s", why);
    m->source = m->n_zones ? PWR_SOURCE_RAPL : PWR_SOURCE_MODEL;
    m->have_baseline = m->n_zones > 0;
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

/* Make `cur` (read at `now`) the baseline the next reading measures from. */
static void pwr_set_baseline(pwr_meter *m, const uint64_t *cur, uint64_t now) {
    for (size_t i = 0; i < m->n_zones; i++) m->zones[i].last_uj = cur[i];
    m->last_ns = now;
    m->have_baseline = true;
}

/* Energy of zone `z` from its baseline to `cur`, µJ, into `uj`. Returns PWR_ERR if the counter
 * went backwards and cannot have wrapped (a reset: nothing can be measured across it). */
static int pwr_zone_delta(const pwr_zone *z, uint64_t cur, double *uj) {
    if (cur >= z->last_uj)
        *uj = (double)(cur - z->last_uj);
    else if (z->max_range_uj >= z->last_uj) /* wrapped: up to the range, then from 0 */
        *uj = (double)(z->max_range_uj - z->last_uj) + (double)cur;
    else
        return PWR_ERR;
    return PWR_OK;
}

int pwr_read(pwr_meter *m, double utilisation, pwr_sample *out, char *err) {
    uint64_t now = m->now(m->clock_ctx);
    double u = utilisation < 0 ? 0 : utilisation > 1 ? 1 : utilisation;
    /* the model's figure: the answer unless a RAPL interval is measured below */
    *out = (pwr_sample){.watts = m->idle_w + (m->peak_w - m->idle_w) * u, .source = PWR_SOURCE_MODEL, .at_ns = now};
    if (m->source == PWR_SOURCE_MODEL) return PWR_OK;

    uint64_t cur[PWR_MAX_ZONES];
    char why[PWR_ERRBUF_LEN];
    for (size_t i = 0; i < m->n_zones; i++) {
        if (pwr_read_u64(m->zones[i].energy_path, &cur[i], why) == PWR_OK) continue;
        if (!m->unreadable)
            alog(ALOG_WARN, "power: rapl -> model: %s; heartbeats carry the model's figure until the RAPL "
                 "counters read again", why);
        m->unreadable = true;
        m->have_baseline = false; /* never measure across the gap */
        m->have_rapl_w = false;
        pwr_set_error(err, "power: %s", why);
        return PWR_OK;
    }
    if (m->unreadable) {
        alog(ALOG_WARN, "power: model -> rapl: the RAPL counters read again; RAPL resumes from a fresh "
             "baseline (the model until the next reading)");
        m->unreadable = false;
    }
    if (!m->have_baseline) {
        pwr_set_baseline(m, cur, now);
        pwr_set_error(err, "power: RAPL baseline just taken: no interval to measure yet");
        return PWR_OK;
    }
    if (now <= m->last_ns) { /* no time passed: the previous RAPL figure, if there is one */
        if (m->have_rapl_w)
            *out = (pwr_sample){.watts = m->last_rapl_w, .source = PWR_SOURCE_RAPL, .at_ns = now};
        else
            pwr_set_error(err, "power: no time since the RAPL baseline: no interval to measure yet");
        return PWR_OK;
    }
    double total_uj = 0;
    for (size_t i = 0; i < m->n_zones; i++) {
        double uj;
        if (pwr_zone_delta(&m->zones[i], cur[i], &uj) != PWR_OK) {
            alog(ALOG_WARN, "power: RAPL counter %s went back from %llu to %llu uJ without a wrap (a reset): "
                 "the model for this reading, RAPL resumes from a fresh baseline", m->zones[i].energy_path,
                 (unsigned long long)m->zones[i].last_uj, (unsigned long long)cur[i]);
            pwr_set_baseline(m, cur, now);
            m->have_rapl_w = false;
            pwr_set_error(err, "power: RAPL counter %s was reset", m->zones[i].energy_path);
            return PWR_OK;
        }
        total_uj += uj;
    }
    m->last_rapl_w = total_uj / ((double)(now - m->last_ns) / 1e3); /* µJ per µs = W */
    m->have_rapl_w = true;
    pwr_set_baseline(m, cur, now);
    *out = (pwr_sample){.watts = m->last_rapl_w, .source = PWR_SOURCE_RAPL, .at_ns = now};
    return PWR_OK;
}
