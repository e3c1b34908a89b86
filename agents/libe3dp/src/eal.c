/* SPDX-License-Identifier: Apache-2.0 */
/* eal: dp_eal_cleanup (see e3dp/eal.h); the rest is in eal_args.c (no DPDK). */
#include "e3dp/eal.h"

#include <limits.h>
#include <stdio.h>

#include <rte_eal.h>

void dp_eal_cleanup(void) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir()); /* gone after the cleanup */
    rte_eal_cleanup();
    dp_remove_runtime_dir(dir);
}
