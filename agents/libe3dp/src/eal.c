/* SPDX-License-Identifier: Apache-2.0 */
/* eal: dp_eal_cleanup and dp_frame_pool_new (see e3dp/eal.h); the rest is in eal_args.c (no DPDK). */
#include "e3dp/eal.h"

#include <limits.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

struct rte_mempool *dp_frame_pool_new(const char *name, unsigned frames, unsigned cache, char *err) {
    unsigned slots = rte_align32pow2(frames + 1);
    if (frames > DP_FRAME_POOL_MAX(slots)) {
        dp_set_error(err, "mempool %s: %u frames in a ring of %u slots would lose frames (RTS head-tail distance): "
                     "at most %u", name, frames, slots, DP_FRAME_POOL_MAX(slots));
        return NULL;
    }
    struct rte_mempool *mp = rte_pktmbuf_pool_create_by_ops(name, frames, cache, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                            (int)rte_socket_id(), DP_FRAME_POOL_OPS);
    if (!mp) dp_set_error(err, "mempool %s (%s): %s", name, DP_FRAME_POOL_OPS, rte_strerror(rte_errno));
    return mp;
}

void dp_eal_cleanup(void) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir()); /* gone after the cleanup */
    rte_eal_cleanup();
    dp_remove_runtime_dir(dir);
}
