/* SPDX-License-Identifier: Apache-2.0 */
/* power: RAPL from powercap-shaped trees of real files — package + dram zones counted, core and
 * psys not, several packages, a counter wrap-around; a counter that vanishes gives the model's
 * figure labelled model (logged once), counters back give RAPL again from a fresh baseline; a
 * reset gives no negative watts; no interval yet gives the model, never 0 W rapl; the model
 * fallback when the root is absent. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "power.h"

#define J 1000000ull /* µJ per J */
#define S 1000000000ull /* ns per s */

static uint64_t g_now_ns; /* the fake clock */
static uint64_t fake_clock(void *ctx) {
    (void)ctx;
    return g_now_ns;
}

/* ---- the agent's stderr, captured into a file to count its log lines -------------------------- */

static char g_log_path[] = "/tmp/e3agent-power-log-XXXXXX";
static int g_saved_stderr = -1;

/* On exit (a failed CHECK included) show what was captured on the real stderr. */
static void dump_log(void) {
    fflush(stderr);
    dup2(g_saved_stderr, STDERR_FILENO);
    FILE *f = fopen(g_log_path, "r");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof(line), f)) fputs(line, stderr);
        fclose(f);
    }
    unlink(g_log_path);
}

static void capture_stderr(void) {
    int fd = mkstemp(g_log_path);
    CHECK(fd >= 0);
    g_saved_stderr = dup(STDERR_FILENO);
    CHECK(g_saved_stderr >= 0 && dup2(fd, STDERR_FILENO) >= 0);
    close(fd);
    atexit(dump_log);
}

/* Lines of the captured log containing `needle`. */
static int log_lines(const char *needle) {
    fflush(stderr);
    FILE *f = fopen(g_log_path, "r");
    CHECK(f);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof(line), f))
        if (strstr(line, needle)) n++;
    fclose(f);
    return n;
}

/* ---- fake powercap trees ------------------------------------------------------------------------ */

static void write_text(const char *dir, const char *file, const char *text) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
}

static void write_num(const char *dir, const char *file, unsigned long long v) {
    char text[32];
    snprintf(text, sizeof(text), "%llu\n", v);
    write_text(dir, file, text);
}

/* A zone directory `parent`/`zone` (its path into `out`) named `name`; max_uj 0: no range file. */
static void make_zone(const char *parent, const char *zone, const char *name, uint64_t energy_uj, uint64_t max_uj,
                      char *out, size_t out_len) {
    snprintf(out, out_len, "%s/%s", parent, zone);
    CHECK(mkdir(out, 0700) == 0);
    char text[64];
    snprintf(text, sizeof(text), "%s\n", name);
    write_text(out, "name", text);
    write_num(out, "energy_uj", energy_uj);
    if (max_uj) write_num(out, "max_energy_range_uj", max_uj);
}

/* /sys/class/powercap lists every zone flat, as a symlink to its device directory. */
static void link_zone(const char *class_dir, const char *zone, const char *target) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", class_dir, zone);
    CHECK(symlink(target, path) == 0);
}

/* rm -r `path` (no symlink is followed). */
static void remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        CHECK(d);
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
            char child[1024];
            snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
            remove_tree(child);
        }
        closedir(d);
        CHECK(rmdir(path) == 0);
    } else {
        CHECK(unlink(path) == 0);
    }
}

static int near(double a, double b) {
    return a - b < 1e-9 && b - a < 1e-9;
}

/* ---- the cases ---------------------------------------------------------------------------------- */

static const pwr_config base_cfg = {.server_type = "Beefy", .idle_w = 100.0, .peak_w = 200.0, .now = fake_clock};

/* The committed fixture (flat: a package and its core sub-zone). */
static void committed_fixture(void) {
    char err[PWR_ERRBUF_LEN];
    pwr_sample s;
    pwr_config cfg = base_cfg;
    cfg.powercap_root = E3AGENT_FIXTURES "/powercap";
    g_now_ns = 1000;
    pwr_meter *m = pwr_new(&cfg, err);
    CHECK(m);
    CHECK_EQ_INT(pwr_source_of(m), PWR_SOURCE_RAPL);
    CHECK(strcmp(pwr_source_name(PWR_SOURCE_RAPL), "rapl") == 0);
    /* no time since the baseline: no interval, so the model's figure labelled model, not 0 W rapl */
    CHECK_EQ_INT(pwr_read(m, 0.25, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
    CHECK(near(s.watts, 125.0));
    /* a second later, counters still: an honest 0 W rapl */
    g_now_ns += S;
    CHECK_EQ_INT(pwr_read(m, 0.5, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_RAPL);
    CHECK(near(s.watts, 0.0));
    pwr_free(m);
}

/* Two packages, laid out as sysfs does: nested device directories, and the class directory
 * (the root) holding a symlink per zone. */
static void packages_and_dram(void) {
    char err[PWR_ERRBUF_LEN];
    pwr_sample s;
    char top[] = "/tmp/e3agent-powercap-XXXXXX";
    CHECK(mkdtemp(top));
    char dev[600], root[600];
    snprintf(dev, sizeof(dev), "%s/devices", top);
    snprintf(root, sizeof(root), "%s/class", top);
    CHECK(mkdir(dev, 0700) == 0 && mkdir(root, 0700) == 0);
    char pkg0[700], core0[800], dram0[800], pkg1[700], dram1[800], psys[700];
    make_zone(dev, "intel-rapl:0", "package-0", 10 * J, 100 * J, pkg0, sizeof(pkg0));
    make_zone(pkg0, "intel-rapl:0:0", "core", 0, 100 * J, core0, sizeof(core0));
    make_zone(pkg0, "intel-rapl:0:1", "dram", 47 * J, 50 * J, dram0, sizeof(dram0));
    make_zone(dev, "intel-rapl:1", "package-1", 20 * J, 100 * J, pkg1, sizeof(pkg1));
    make_zone(pkg1, "intel-rapl:1:0", "dram", 30 * J, 100 * J, dram1, sizeof(dram1));
    make_zone(dev, "intel-rapl:2", "psys", 0, 100 * J, psys, sizeof(psys));
    link_zone(root, "intel-rapl:0", "../devices/intel-rapl:0");
    link_zone(root, "intel-rapl:0:0", "../devices/intel-rapl:0/intel-rapl:0:0");
    link_zone(root, "intel-rapl:0:1", "../devices/intel-rapl:0/intel-rapl:0:1");
    link_zone(root, "intel-rapl:1", "../devices/intel-rapl:1");
    link_zone(root, "intel-rapl:1:0", "../devices/intel-rapl:1/intel-rapl:1:0");
    link_zone(root, "intel-rapl:2", "../devices/intel-rapl:2");

    pwr_config cfg = base_cfg;
    cfg.powercap_root = root;
    g_now_ns = 0;
    pwr_meter *m = pwr_new(&cfg, err);
    CHECK(m);
    CHECK_EQ_INT(pwr_source_of(m), PWR_SOURCE_RAPL);

    /* +1 s: packages 5 + 3 J, drams 2 + 1 J = 11 W; core (inside package 0) and psys (the whole
     * platform) must not count; each dram is counted once though listed twice */
    g_now_ns = S;
    write_num(pkg0, "energy_uj", 15 * J);
    write_num(core0, "energy_uj", 99 * J);
    write_num(dram0, "energy_uj", 49 * J);
    write_num(pkg1, "energy_uj", 23 * J);
    write_num(dram1, "energy_uj", 31 * J);
    write_num(psys, "energy_uj", 99 * J);
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_RAPL);
    CHECK(near(s.watts, 11.0));
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK); /* no time passed: the previous value */
    CHECK(near(s.watts, 11.0) && s.source == PWR_SOURCE_RAPL);

    /* +0.5 s: dram 0 wraps at its own 50 J range: (50 - 49) + 3 = 4 J; package 0 +1 J -> 10 W */
    g_now_ns += S / 2;
    write_num(dram0, "energy_uj", 3 * J);
    write_num(pkg0, "energy_uj", 16 * J);
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_RAPL);
    CHECK(near(s.watts, 10.0));
    CHECK_EQ_INT(s.at_ns, g_now_ns);

    /* dram 1's counter vanishes: the model's figure, labelled model, said once on stderr */
    char path[900];
    snprintf(path, sizeof(path), "%s/energy_uj", dram1);
    CHECK(unlink(path) == 0);
    int to_model = log_lines("rapl -> model"), to_rapl = log_lines("model -> rapl");
    for (int i = 0; i < 3; i++) {
        g_now_ns += S;
        err[0] = '\0';
        CHECK_EQ_INT(pwr_read(m, 0.5, &s, err), PWR_OK);
        CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
        CHECK(near(s.watts, 150.0));
        CHECK(strstr(err, "intel-rapl:1:0/energy_uj"));
    }
    CHECK_EQ_INT(log_lines("rapl -> model"), to_model + 1);
    CHECK_EQ_INT(log_lines("intel-rapl:1:0/energy_uj"), 1); /* the reason names the file */
    CHECK_EQ_INT(log_lines("model -> rapl"), to_rapl);

    /* back, after package 0 burnt 50 J during the gap: that reading is a fresh baseline (the
     * model, labelled model), never watts across the gap; the next one is RAPL again */
    write_num(dram1, "energy_uj", 40 * J);
    write_num(pkg0, "energy_uj", 66 * J);
    g_now_ns += S;
    CHECK_EQ_INT(pwr_read(m, 0.25, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
    CHECK(near(s.watts, 125.0));
    CHECK_EQ_INT(log_lines("model -> rapl"), to_rapl + 1);
    CHECK_EQ_INT(pwr_read(m, 0.25, &s, err), PWR_OK); /* no time since the fresh baseline */
    CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
    g_now_ns += 2 * S; /* +2 s: package 1 +6 J, dram 1 +2 J -> 4 W */
    write_num(pkg1, "energy_uj", 29 * J);
    write_num(dram1, "energy_uj", 42 * J);
    CHECK_EQ_INT(pwr_read(m, 0.25, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_RAPL);
    CHECK(near(s.watts, 4.0));
    CHECK_EQ_INT(log_lines("rapl -> model"), to_model + 1);
    CHECK_EQ_INT(log_lines("model -> rapl"), to_rapl + 1);
    pwr_free(m);
    remove_tree(top);
}

/* A counter that goes backwards and cannot have wrapped: a reset, never negative watts. */
static void counter_reset(void) {
    char err[PWR_ERRBUF_LEN];
    pwr_sample s;
    char root[] = "/tmp/e3agent-powercap-XXXXXX";
    CHECK(mkdtemp(root));
    char pkg[600], dram[700];
    make_zone(root, "intel-rapl:0", "package-0", 50 * J, 0, pkg, sizeof(pkg)); /* range unknown */
    make_zone(pkg, "intel-rapl:0:0", "dram", 80 * J, 60 * J, dram, sizeof(dram)); /* beyond its range */
    pwr_config cfg = base_cfg;
    cfg.powercap_root = root;
    g_now_ns = 0;
    pwr_meter *m = pwr_new(&cfg, err);
    CHECK(m && pwr_source_of(m) == PWR_SOURCE_RAPL);
    g_now_ns = S; /* +1 s: package +2 J, dram +1 J */
    write_num(pkg, "energy_uj", 52 * J);
    write_num(dram, "energy_uj", 81 * J);
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK(near(s.watts, 3.0) && s.source == PWR_SOURCE_RAPL);

    int resets = log_lines("(a reset)");
    g_now_ns += S; /* the package's counter goes back to 1 J: no wrap possible without a range */
    write_num(pkg, "energy_uj", 1 * J);
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
    CHECK(near(s.watts, 100.0));
    CHECK_EQ_INT(log_lines("(a reset)"), resets + 1);
    g_now_ns += S; /* measured again from the reset: package +4 J, dram +2 J */
    write_num(pkg, "energy_uj", 5 * J);
    write_num(dram, "energy_uj", 83 * J);
    CHECK_EQ_INT(pwr_read(m, 0.0, &s, err), PWR_OK);
    CHECK(near(s.watts, 6.0) && s.source == PWR_SOURCE_RAPL);

    g_now_ns += S; /* dram goes back from 83 J, above its 60 J range: a reset, not a wrap */
    write_num(dram, "energy_uj", 10 * J);
    CHECK_EQ_INT(pwr_read(m, 1.0, &s, err), PWR_OK);
    CHECK_EQ_INT(s.source, PWR_SOURCE_MODEL);
    CHECK(near(s.watts, 200.0));
    CHECK_EQ_INT(log_lines("(a reset)"), resets + 2);
    pwr_free(m);
    remove_tree(root);
}

/* A zone to count that cannot be read at start: no RAPL at all (a partial sum would read low). */
static void unreadable_at_start(void) {
    char err[PWR_ERRBUF_LEN];
    char root[] = "/tmp/e3agent-powercap-XXXXXX";
    CHECK(mkdtemp(root));
    char pkg[600], dram[700], path[800];
    make_zone(root, "intel-rapl:0", "package-0", 5 * J, 100 * J, pkg, sizeof(pkg));
    make_zone(pkg, "intel-rapl:0:2", "dram", 5 * J, 100 * J, dram, sizeof(dram));
    snprintf(path, sizeof(path), "%s/energy_uj", dram);
    CHECK(unlink(path) == 0);
    pwr_config cfg = base_cfg;
    cfg.powercap_root = root;
    int before = log_lines("RAPL not used");
    pwr_meter *m = pwr_new(&cfg, err);
    CHECK(m);
    CHECK_EQ_INT(pwr_source_of(m), PWR_SOURCE_MODEL);
    CHECK_EQ_INT(log_lines("RAPL not used"), before + 1);
    pwr_free(m);
    remove_tree(root);
}

static void model_only(void) {
    char err[PWR_ERRBUF_LEN];
    pwr_sample s;
    pwr_config cfg = base_cfg;
    /* root absent -> the model: idle + (peak - idle) x utilisation */
    cfg.powercap_root = "/nonexistent/powercap";
    pwr_meter *m = pwr_new(&cfg, err);
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
}

int main(void) {
    capture_stderr();
    committed_fixture();
    packages_and_dram();
    counter_reset();
    unreadable_at_start();
    model_only();
    return 0;
}
