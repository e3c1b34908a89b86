/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the data plane's frame parser (`make fuzz`, not in CI): any bytes are
 * classified without reading outside the frame (ASan checks), and what is accepted is consistent:
 * a UDP payload lies inside the frame and within the limit; a drop has a named reason. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e3dp/pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *frame = malloc(size ? size : 1); /* exact size: ASan flags any read past the end */
    if (!frame) return 0;
    memcpy(frame, data, size);
    dp_parsed p;
    dp_parse(frame, size, DP_MAX_PAYLOAD, &p);
    if (p.kind == DP_KIND_UDP &&
        (p.payload < frame || p.payload + p.payload_len > frame + size || p.payload_len > DP_MAX_PAYLOAD))
        abort();
    if (p.kind == DP_KIND_DROP && (p.reason == DP_DROP_NONE || strcmp(dp_drop_name(p.reason), "unknown") == 0))
        abort();
    free(frame);
    return 0;
}
