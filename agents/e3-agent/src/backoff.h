/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backoff: reconnect delays for the controller link: 100 ms doubling to 5 s, with "equal
 * jitter" (half the delay fixed, half random) so agents restarted together do not reconnect in
 * lockstep. Pure: the caller supplies the randomness.
 */
#ifndef E3AGENT_BACKOFF_H
#define E3AGENT_BACKOFF_H

#include <stdint.h>

#define BO_INITIAL_MS 100  /* first delay before jitter, ms */
#define BO_MAX_MS 5000     /* delay cap before jitter, ms */

typedef struct bo_state {
    uint32_t base_ms; /* next delay before jitter (0: BO_INITIAL_MS) */
} bo_state;

/* Back to the first delay (after a success). */
void bo_reset(bo_state *b);

/* The next delay in ms, in [base/2, base], from random bits `rnd`; doubles base up to BO_MAX_MS. */
uint32_t bo_next(bo_state *b, uint32_t rnd);

#endif
