/* SPDX-License-Identifier: Apache-2.0 */
#include "backoff.h"

void bo_reset(bo_state *b) {
    b->base_ms = BO_INITIAL_MS;
}

uint32_t bo_next(bo_state *b, uint32_t rnd) {
    uint32_t base = b->base_ms ? b->base_ms : BO_INITIAL_MS;
    uint32_t half = base / 2;
    b->base_ms = base >= BO_MAX_MS / 2 ? BO_MAX_MS : base * 2;
    return half + rnd % (base - half + 1);
}
