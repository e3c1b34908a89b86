/* SPDX-License-Identifier: Apache-2.0 */
/* eal_args: the EAL's fixed arguments (lcores floating over the CPUs, no hugepages and no PCI
 * unless real devices are used, the file prefix given or "<stem>-<pid>"), vdevs and extra words
 * in order, refusal when they do not fit, and the runtime directory's removal. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "e3dp/eal.h"

/* Is `a` followed by `b` somewhere in argv? */
static int has_pair(const dp_eal_args *e, const char *a, const char *b) {
    for (int i = 0; i + 1 < e->argc; i++)
        if (strcmp(e->argv[i], a) == 0 && strcmp(e->argv[i + 1], b) == 0) return 1;
    return 0;
}

int main(void) {
    static dp_eal_args e;
    char err[DP_ERRBUF_LEN], want[64];
    dp_eal_config c = {.program = "e3-agent", .ncpu = 8, .prefix_stem = "e3-agent"};
    CHECK_EQ_INT(dp_eal_args_init(&e, &c, err), DP_OK);
    CHECK(strcmp(e.argv[0], "e3-agent") == 0);
    CHECK(has_pair(&e, "--lcores", "(0-1)@(0-7)"));
    CHECK(has_pair(&e, "--no-huge", "--no-pci"));
    CHECK(has_pair(&e, "-m", "256"));
    snprintf(want, sizeof(want), "e3-agent-%ld", (long)getpid());
    CHECK(has_pair(&e, "--file-prefix", want));
    CHECK_EQ_INT(dp_eal_args_vdev(&e, err, "net_memif%d,role=client,socket=%s", 1, "/tmp/x.sock"), DP_OK);
    CHECK(has_pair(&e, "--vdev", "net_memif1,role=client,socket=/tmp/x.sock"));
    int before = e.argc;
    CHECK_EQ_INT(dp_eal_args_words(&e, " --log-level  eal:debug ", err), DP_OK);
    CHECK_EQ_INT(e.argc, before + 2);
    CHECK(has_pair(&e, "--log-level", "eal:debug"));
    CHECK(e.argv[e.argc] == NULL);
    CHECK_EQ_INT(dp_eal_args_words(&e, NULL, err), DP_OK);

    c = (dp_eal_config){.program = "e3-nic", .ncpu = 1, .memory_mb = 128, .file_prefix = "p1", .prefix_stem = "x"};
    CHECK_EQ_INT(dp_eal_args_init(&e, &c, err), DP_OK);
    CHECK(has_pair(&e, "--lcores", "(0-1)@0"));
    CHECK(has_pair(&e, "-m", "128"));
    CHECK(has_pair(&e, "--file-prefix", "p1"));
    CHECK(has_pair(&e, "--no-huge", "--no-pci"));

    c.real_devices = 1; /* a PCI NIC: hugepages and the PCI bus stay on */
    CHECK_EQ_INT(dp_eal_args_init(&e, &c, err), DP_OK);
    for (int i = 0; i < e.argc; i++) CHECK(strcmp(e.argv[i], "--no-huge") != 0 && strcmp(e.argv[i], "--no-pci") != 0);
    CHECK(has_pair(&e, "-m", "128"));
    int rc = DP_OK;
    for (int i = 0; i < DP_EAL_MAX_ARGS && rc == DP_OK; i++) rc = dp_eal_args_words(&e, "--x", err);
    CHECK_EQ_INT(rc, DP_ERR);
    CHECK(strstr(err, "too many") != NULL);
    CHECK(e.argc <= DP_EAL_MAX_ARGS && e.argv[e.argc] == NULL);

    char dir[] = "/tmp/e3dp-test-eal-XXXXXX", file[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(file, sizeof(file), "%s/config", dir);
    FILE *f = fopen(file, "w");
    CHECK(f);
    fclose(f);
    dp_remove_runtime_dir(dir);
    struct stat sb;
    CHECK(stat(dir, &sb) != 0);
    dp_remove_runtime_dir(dir); /* gone: nothing to do */
    dp_remove_runtime_dir("");
    return 0;
}
