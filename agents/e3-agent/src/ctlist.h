/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctlist: the controllers an agent may talk to (docs/controller-scale-out.md, section 3). --controller
 * takes a comma-separated list; each agent prefers the address at hash(cluster "/" server) mod N (32-bit
 * FNV-1a: stable across builds and machines), so a server's agents (host and SmartNICs, one fault
 * domain) land on one controller. A walk tries the preferred address, then the next ones (wrapping
 * around); only once every address failed in a row does the caller back off (backoff.h). Pure: no
 * globals, no I/O.
 */
#ifndef E3AGENT_CTLIST_H
#define E3AGENT_CTLIST_H

#include <stddef.h>
#include <stdint.h>

#define CTL_OK 0
#define CTL_ERR -1
#define CTL_ERRBUF_LEN 256
#define CTL_MAX_ADDRESSES 16  /* controllers in one list */
#define CTL_ADDRESS_LEN 256   /* bytes of one address + NUL */
#define CTL_JITTER_MS 100     /* at most this between two addresses of one walk */

typedef struct ctl_list {
    size_t n;                                        /* addresses used, 1..CTL_MAX_ADDRESSES */
    char addresses[CTL_MAX_ADDRESSES][CTL_ADDRESS_LEN]; /* in the order given */
} ctl_list;

/* Split `spec` ("host:port[,host:port...]") into `out`, each item trimmed of surrounding blanks. CTL_ERR
 * with `err` (CTL_ERRBUF_LEN bytes) on an empty item (or an empty spec), more than CTL_MAX_ADDRESSES
 * items, or an item of CTL_ADDRESS_LEN bytes or more. */
int ctl_parse(const char *spec, ctl_list *out, char *err);

/* 32-bit FNV-1a of `cluster` "/" `server`. */
uint32_t ctl_hash(const char *cluster, const char *server);

/* The index an agent of `server` in `cluster` prefers among `n` (> 0) addresses: ctl_hash mod n. */
size_t ctl_preferred(const char *cluster, const char *server, size_t n);

/* Where a walk through the list stands. */
typedef struct ctl_walk {
    size_t n;         /* addresses in the list */
    size_t preferred; /* where every pass starts */
    size_t step;      /* 0..n-1: how far past the preferred address the next attempt is */
} ctl_walk;

/* A walk over `n` addresses starting at `preferred`. */
void ctl_walk_init(ctl_walk *w, size_t n, size_t preferred);

/* The index of the address to try now. */
size_t ctl_walk_current(const ctl_walk *w);

/* The current address failed: move to the next one. Returns 1 when that completes a pass in which every
 * address failed (the walk is back at the preferred one: back off before it), else 0. */
int ctl_walk_failed(ctl_walk *w);

/* The current address took the agent (it registered): the next pass starts at the preferred one again. */
void ctl_walk_restart(ctl_walk *w);

#endif
