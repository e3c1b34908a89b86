/* SPDX-License-Identifier: Apache-2.0 */
/*
 * power: the node's power draw for heartbeats. Sources, in order of preference:
 *   1. RAPL through the Linux powercap sysfs tree (default root /sys/class/powercap): every
 *      package zone `intel-rapl:<n>` (its `name` starts with "package"; a "psys" platform zone
 *      would count the packages twice) plus each package's `dram` sub-zone `intel-rapl:<n>:<m>`
 *      (on servers DRAM has its own counter, outside the package's: Kepler and Scaphandre add
 *      package + dram). core/uncore sub-zones are inside the package's counter and are never
 *      counted. watts = sum over zones of Δenergy_uj / Δt, with wrap-around handled through each
 *      zone's max_energy_range_uj;
 *   2. a model: idle + (peak - idle) x utilisation, with the idle/peak watts of the server type
 *      (paper Table 4) given in the config.
 * Each reading says which source produced it: a RAPL meter gives the model's figure, labelled
 * model, for any reading it cannot measure honestly (a counter unreadable, no interval yet, a
 * counter reset), and logs each rapl <-> model transition once on stderr. IPMI/DCMI (what the
 * paper measured with) is NOT implemented here. RAPL covers CPU packages and DRAM only (not
 * NIC/PSU losses): it reads lower than wall power.
 */
#ifndef E3AGENT_POWER_H
#define E3AGENT_POWER_H

#include <stddef.h>
#include <stdint.h>

#define PWR_OK 0
#define PWR_ERR -1
#define PWR_ERRBUF_LEN 256                          /* size of the error buffers callers pass */
#define PWR_DEFAULT_ROOT "/sys/class/powercap"      /* powercap sysfs root */
#define PWR_MAX_PACKAGES 16                         /* package zones read */
#define PWR_MAX_ZONES (2 * PWR_MAX_PACKAGES)        /* zones read: each package and its dram zone */

typedef enum pwr_source {
    PWR_SOURCE_RAPL = 1,  /* powercap energy counters */
    PWR_SOURCE_MODEL = 2, /* idle/peak linear model */
} pwr_source;

typedef uint64_t (*pwr_clock_fn)(void *ctx); /* nanoseconds, monotonic */

typedef struct pwr_config {
    const char *powercap_root; /* NULL: PWR_DEFAULT_ROOT; "" disables RAPL */
    const char *server_type;   /* label of the model's figures, e.g. "Beefy" (may be NULL) */
    double idle_w;             /* model: watts at 0% utilisation */
    double peak_w;             /* model: watts at 100% utilisation, >= idle_w */
    pwr_clock_fn now;          /* NULL: CLOCK_MONOTONIC */
    void *clock_ctx;           /* passed to now() */
} pwr_config;

typedef struct pwr_sample {
    double watts;       /* average power since the previous reading, W */
    pwr_source source;  /* which source produced it */
    uint64_t at_ns;     /* clock at the reading, ns */
} pwr_sample;

typedef struct pwr_meter pwr_meter; /* opaque */

/* Write a formatted reason into `err` (PWR_ERRBUF_LEN bytes, may be NULL); returns PWR_ERR. */
int pwr_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Create a meter. Uses RAPL if at least one package zone exists under the root and every zone
 * it would count (packages and their dram zones) can be read (taking that reading as the
 * baseline), else the model (logging why on stderr when zones exist but cannot be read: a partial
 * sum would read low and still say rapl). Fails if the model figures are invalid (negative, or
 * peak < idle), since the model is the fallback. */
pwr_meter *pwr_new(const pwr_config *cfg, char *err);

/* Free the meter (NULL is fine). */
void pwr_free(pwr_meter *m);

/* The source this meter was set up with (a RAPL meter's readings may still fall back to the
 * model one by one: the sample says which source produced it). */
pwr_source pwr_source_of(const pwr_meter *m);

/* "rapl" / "model". */
const char *pwr_source_name(pwr_source s);

/* Take a reading. Model: from `utilisation` (clamped to 0..1). RAPL: average watts over every
 * counted zone since the previous reading (the first call: since pwr_new; if no time has passed,
 * the previous RAPL value). A RAPL meter gives the model's figure with source PWR_SOURCE_MODEL
 * instead when it cannot measure the interval honestly:
 *   - a counter cannot be read: logs "power: rapl -> model: <reason>" once, and keeps giving
 *     the model until every counter reads again; that reading ("power: model -> rapl" logged
 *     once) becomes a fresh baseline, so no watts are ever computed across the gap;
 *   - no interval yet (just after a resume, or no time passed since a fresh baseline);
 *   - a counter went backwards and cannot have wrapped (its value was above its range, or the
 *     range is unknown): a reset; logged, and the reading becomes a fresh baseline.
 * Never negative watts. Returns PWR_OK with `out` filled; when a RAPL meter's reading is the
 * model's, `err` (may be NULL) gets the reason. Not thread-safe: one reader. */
int pwr_read(pwr_meter *m, double utilisation, pwr_sample *out, char *err);

#endif
