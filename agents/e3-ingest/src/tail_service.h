// SPDX-License-Identifier: Apache-2.0
//
// e3.internal.v1.TelemetryTail served by the front itself (proto/e3/internal/v1/telemetry.proto), on its public
// port beside the proxy: the raw tail it keeps (raw_tail.h, filled by the link, backend_link.h), as the Python
// controller's rpc/tail_servicer.py answers when it runs without its front. The caller's `authorization` must
// grant `read`: the controller decides (IngestBackend.Authorize, asynchronously: no gRPC thread waits for it), and
// its refusal (UNAUTHENTICATED, PERMISSION_DENIED, or a failed call's status) is the caller's status as it came.
// Then NOT_FOUND when the front holds no heartbeats of the node, else the node's heartbeats in
// (since_unix_ns, until_unix_ns], the newest `limit`, with the oldest held and the window (`--tail-window-s`).
#ifndef E3_INGEST_TAIL_SERVICE_H
#define E3_INGEST_TAIL_SERVICE_H

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>

#include "backend_link.h"
#include "e3/internal/v1/telemetry.grpc.pb.h"

namespace ingest {

inline constexpr const char kTailScope[] = "read";

// tail_servicer's NOT_FOUND message: "this controller holds no heartbeats of node <the id as Python's repr>".
std::string no_heartbeats_message(const std::string &node_id);

class TailService final : public e3::internal::v1::TelemetryTail::CallbackService {
public:
    TailService(BackendLink *link, uint32_t window_s) : link_(link), window_s_(window_s) {}

    grpc::ServerUnaryReactor *Tail(grpc::CallbackServerContext *context, const e3::internal::v1::TailRequest *request,
                                   e3::internal::v1::TailResponse *response) override;

private:
    // The tail's answer to an authorized request.
    grpc::Status read(const e3::internal::v1::TailRequest &request, e3::internal::v1::TailResponse *response) const;

    BackendLink *const link_;
    const uint32_t window_s_;
};

} // namespace ingest

#endif
