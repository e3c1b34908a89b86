/* SPDX-License-Identifier: Apache-2.0 */
/*
 * power: the node's power draw for heartbeats. Sources, in order of preference:
 *   1. RAPL through the Linux powercap sysfs tree: the package domains `intel-rapl:<n>` under a
 *      root (default /sys/class/powercap); watts = sum over packages of Δenergy_uj / Δt, with
 *      wrap-around handled through each domain's max_energy_range_uj;
 *   2. a model: idle + (peak - idle) x utilisation, with the idle/peak watts of the server type
 *      (paper Table 4) given in the config.
 * The reading says which source produced it. IPMI/DCMI (what the paper measured with) is NOT
 * implemented here. RAPL covers CPU packages only (not DRAM/NIC/PSU losses): it reads lower than
 * wall power.
 */
#ifndef E3AGENT_POWER_H
#define E3AGENT_POWER_H

#include <stddef.h>
#include <stdint.h>

#define PWR_OK 0
#define PWR_ERR -1
#define PWR_ERRBUF_LEN 256                          /* size of the error buffers callers pass */
#define PWR_DEFAULT_ROOT "/sys/class/powercap"      /* powercap sysfs root */
#define PWR_MAX_PACKAGES 16                         /* package domains read */

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

/* Create a meter. Uses RAPL if at least one readable package domain exists under the root
 * (taking the first energy reading as baseline), else the model. Fails if the model figures
 * are invalid (negative, or peak < idle), since the model is the fallback. */
pwr_meter *pwr_new(const pwr_config *cfg, char *err);

/* Free the meter (NULL is fine). */
void pwr_free(pwr_meter *m);

/* The source this meter reads. */
pwr_source pwr_source_of(const pwr_meter *m);

/* "rapl" / "model". */
const char *pwr_source_name(pwr_source s);

/* Take a reading. RAPL: average watts since the previous reading (the first call: since
 * pwr_new; if no time has passed, the previous value). Model: from `utilisation` (clamped to
 * 0..1). Returns PWR_ERR if a RAPL counter cannot be read (the meter stays on RAPL). Not
 * thread-safe: one reader. */
int pwr_read(pwr_meter *m, double utilisation, pwr_sample *out, char *err);

#endif
