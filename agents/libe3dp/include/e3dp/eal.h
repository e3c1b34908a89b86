/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eal: how E3's DPDK programs (e3-nic, and e3-agent on its host link) start and leave DPDK's
 * EAL. Every one runs two lcores, 0 (the agent runtime) and 1 (the poll loop), floating over the
 * machine's CPUs, with no hugepages, no PCI, no telemetry and a --file-prefix of its own (so
 * several run side by side on one machine), then the program's vdevs and the user's --eal words.
 *
 * dp_eal_args_* are pure (library e3dppkt, tested without DPDK); dp_remove_runtime_dir is plain
 * POSIX; dp_eal_cleanup and dp_frame_pool_new need DPDK (library e3dp).
 */
#ifndef E3DP_EAL_H
#define E3DP_EAL_H

#include <stddef.h>

#include "e3dp/dp.h"

#define DP_EAL_MAX_ARGS 48     /* argv entries, the terminating NULL excluded */
#define DP_EAL_STORAGE 2048    /* bytes of argument text */
#define DP_EAL_MEMORY_MB 256   /* -m: enough for a pool of 7K frames and a few rings */
/* The frame pool's ring: relaxed tail sync, for the reason the egress rings have it (e3dp/poll.h,
 * DP_EGRESS_RING_FLAGS): the engine's workers take and give back frames from plain threads, which have
 * no lcore and so no per-lcore cache, each going to the pool's ring itself. */
#define DP_FRAME_POOL_OPS "ring_mt_rts"
/* The most frames a pool whose ring has `slots` slots (a power of two: a pool of n frames gets
 * rte_align32pow2(n + 1)) can hold without losing any. An RTS ring lets a consumer's tail lag its head by
 * up to capacity / 8 (HTD_MAX, rte_ring_rts.h): while the workers take frames, the ring looks that much
 * fuller than it is, and DPDK's mempool put drops the frames of a cache flush that does not fit (seen: a
 * pool of 8191 in 8192 slots kept 7039 after a busy run; test_egress_ring). */
#define DP_FRAME_POOL_MAX(slots) ((slots) - 1u - ((slots) - 1u) / 8u)

struct rte_mempool;

/* What the fixed part of the arguments depends on. */
typedef struct dp_eal_config {
    const char *program;      /* argv[0], e.g. "e3-nic" */
    long ncpu;                /* the machine's CPUs: lcores 0-1 float over 0..ncpu-1 */
    unsigned memory_mb;       /* -m, MB (0: DP_EAL_MEMORY_MB) */
    const char *file_prefix;  /* --file-prefix, or NULL: "<prefix_stem>-<pid>" */
    const char *prefix_stem;  /* e.g. "e3nic" */
    int real_devices;         /* 1: PCI devices are used (no --no-huge, no --no-pci) */
} dp_eal_config;

/* An EAL argv under construction: argv[0..argc) point into storage, argv[argc] is NULL. */
typedef struct dp_eal_args {
    int argc;                             /* entries used */
    char *argv[DP_EAL_MAX_ARGS + 1];      /* for rte_eal_init */
    char storage[DP_EAL_STORAGE];         /* their text */
    size_t used;                          /* bytes of storage used */
} dp_eal_args;

/* Start `a` with the fixed arguments: program, --lcores (0-1)@(0-N), --no-huge, --no-pci
 * (both left out with c->real_devices: a PCI NIC needs hugepages for DMA), -m MB, --no-telemetry,
 * --log-level *:warning, --file-prefix P. DP_ERR with `err` if it does not fit. */
int dp_eal_args_init(dp_eal_args *a, const dp_eal_config *c, char *err);

/* Append "--vdev <formatted>". DP_ERR with `err` if it does not fit. */
int dp_eal_args_vdev(dp_eal_args *a, char *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append `words` (space-separated, e.g. a --eal option's value) one argument each; NULL or ""
 * adds nothing. DP_ERR with `err` if they do not fit. */
int dp_eal_args_words(dp_eal_args *a, const char *words, char *err);

/* Remove the EAL's runtime directory `dir` and the files in it, so a process's config, fbarray
 * and socket files never outlive it. "" or NULL or a missing directory: nothing to do. */
void dp_remove_runtime_dir(const char *dir);

/* The program's pool of `frames` frame buffers (DP_FRAME_POOL_OPS, a per-lcore cache of `cache`), or
 * NULL with `err`; refused when `frames` is above DP_FRAME_POOL_MAX of its ring (it would lose frames).
 * Library e3dp. */
struct rte_mempool *dp_frame_pool_new(const char *name, unsigned frames, unsigned cache, char *err);

/* rte_eal_cleanup, then remove its runtime directory (dp_remove_runtime_dir). Call once, after
 * every port was closed and every DPDK object freed. Library e3dp. */
void dp_eal_cleanup(void);

#endif
