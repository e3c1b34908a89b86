// SPDX-License-Identifier: Apache-2.0
//
// The Redis commands of a delivery's live items, as backend/e3/controller/live_publisher.py's _write makes them
// (byte for byte): per cluster, in the order its first item came, one `HSET e3:latest:<cluster>` with each of its
// nodes' latest item (nodes in the order their first item came), then one `PUBLISH e3:live` of
// `{"type": "heartbeats", "heartbeats": [<every item, in order>]}`. Made in the front so that the Python
// controller only writes them to its Redis connection (building them was a fifth of its time).
#ifndef E3_INGEST_LIVE_COMMANDS_H
#define E3_INGEST_LIVE_COMMANDS_H

#include <cstdint>
#include <string>

#include "e3/internal/v1/front.pb.h"

namespace ingest {

// Sets `delivery`'s live_commands and live_replies from its item columns (nothing when it has none).
void set_live_commands(e3::internal::v1::Delivery *delivery);

} // namespace ingest

#endif
