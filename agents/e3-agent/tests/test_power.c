/* SPDX-License-Identifier: Apache-2.0 */
/* power: RAPL from a powercap-shaped fixture (including a counter wrap-around, and sub-domains
 * ignored), and the model fallback when the root is absent. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "power.h"

static uint64_t g_now_ns; /* the fake clock */
static uint64_t fake_clock(void *ctx) {
    (void)ctx;
    return g_now_ns;
}

static void write_num(const char *dir, const char *file, unsigned long long v) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fprintf(f, "%llu\n", v);
    fclose(f);
}

static int near(double a, double b) {
    return a - b < 1e-9 && b - a < 1e-9;
}

int main(void) {
    char err[PWR_ERRBUF_LEN];
    pwr_sample s;
    pwr_config cfg = {.server_type = "Beefy", .idle_w = 100.0, .peak_w = 200.0, .now = fake_clock};

    /* the committed fixture: one package (the sub-domain is ignored), counters still -> 0 W */
    cfg.powercap_root = E3AGENT_FIXTURES "/powercap";
    g_now_ns = 1000;
    pwr_meter *m = pwr_new(&cfg, err);
    CHECK(m);
    CHECK_EQ_INT(pwr_source_of(m), PWR_SOURCE_RAPL);
    CHECK(strcmp(pwr_source_name(PWR_SOURCE_RAPL), "rapl") == 0);
    g_now_ns += 1000000000ull;
    CHECK_EQ_INT(pwr_read(m, 0.5, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_RAPL);
    CHECK(near(s.watts, 0.0));
    pwr_free(m);

    /* a copy whose counters move: 5 W, then a wrap-around worth 8 W */
    char root[] = "/tmp/e3agent-powercap-XXXXXX";
    CHECK(mkdtemp(root));
    char dom[600], sub[600];
    snprintf(dom, sizeof(dom), "%s/intel-rapl:0", root);
    snprintf(sub, sizeof(sub), "%s/intel-rapl:0:0", root);
    CHECK(mkdir(dom, 0700) == 0 && mkdir(sub, 0700) == 0);
    write_num(dom, "max_energy_range_uj", 100000000ull);
    write_num(dom, "energy_uj", 90000000ull);
    write_num(sub, "max_energy_range_uj", 100000000ull);
    write_num(sub, "energy_uj", 0);
    cfg.powercap_root = root;
    g_now_ns = 0;
    m = pwr_new(&cfg, err);
    CHECK(m);
    CHECK_EQ_INT(pwr_source_of(m), PWR_SOURCE_RAPL);
    g_now_ns = 1000000000ull; /* +1 s, +5 J */
    write_num(dom, "energy_uj", 95000000ull);
    write_num(sub, "energy_uj", 99000000ull); /* must not count */
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK(near(s.watts, 5.0));
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK); /* no time passed: previous value */
    CHECK(near(s.watts, 5.0));
    g_now_ns += 500000000ull; /* +0.5 s; wrapped: (100 - 95) + 3 = 8 J -> 16 W */
    write_num(dom, "energy_uj", 3000000ull);
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK(near(s.watts, 16.0));
    CHECK_EQ_INT(s.at_ns, g_now_ns);
    /* a counter that vanishes is an error, not a silent switch of source */
    char path[700];
    snprintf(path, sizeof(path), "%s/energy_uj", dom);
    CHECK(unlink(path) == 0);
    g_now_ns += 1000000000ull;
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_ERR);
    pwr_free(m);
    snprintf(path, sizeof(path), "%s/max_energy_range_uj", dom);
    unlink(path);
    snprintf(path, sizeof(path), "%s/energy_uj", sub);
    unlink(path);
    snprintf(path, sizeof(path), "%s/max_energy_range_uj", sub);
    unlink(path);
    rmdir(sub);
    rmdir(dom);
    rmdir(root);

    /* root absent -> the model: idle + (peak - idle) x utilisation */
    cfg.powercap_root = "/nonexistent/powercap";
    m = pwr_new(&cfg, err);
    CHECK(m);
    CHECK_EQ_INT(pwr_source_of(m), PWR_SOURCE_MODEL);
    CHECK_EQ_INT(pwr_read(m, 0.25, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
    CHECK(near(s.watts, 125.0));
    CHECK_EQ_INT(pwr_read(m, 7.0, &s, err), PWR_OK); /* clamped */
    CHECK(near(s.watts, 200.0));
    CHECK(strcmp(pwr_source_name(PWR_SOURCE_MODEL), "model") == 0);
    pwr_free(m);

    /* "" disables RAPL; invalid model figures are refused */
    cfg.powercap_root = "";
    m = pwr_new(&cfg, err);
    CHECK(m && pwr_source_of(m) == PWR_SOURCE_MODEL);
    pwr_free(m);
    cfg.peak_w = 50.0;
    CHECK(pwr_new(&cfg, err) == NULL);
    return 0;
}
