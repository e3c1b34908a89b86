// SPDX-License-Identifier: Apache-2.0
//
// The front's generic service: StreamHeartbeats terminated here (heartbeat_stream.h, over the link to the
// controller, backend_link.h), every other call, whatever its method, forwarded unparsed to the controller (gRPC's
// generic callback API on both sides), messages one at a time in each direction. The methods of a service the
// server registers (TelemetryTail, tail_service.h) never come here.
#ifndef E3_INGEST_PROXY_H
#define E3_INGEST_PROXY_H

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "backend_link.h"

namespace ingest {

// Metadata key the front sets to the caller's IP; one the caller sent is dropped, never forwarded.
inline constexpr const char kPeerMetadata[] = "x-e3-peer";
// Metadata keys between the front and the controller only, dropped both ways. The controller's answer to a call
// may carry a node table change (a serialized NodeTableChange: a Register's node), applied by the front.
inline constexpr const char kFrontMetadataPrefix[] = "x-e3-front-";
inline constexpr const char kFrontNodeMetadata[] = "x-e3-front-node-bin";

// The channel to the controller's unix socket, with the same small HTTP/2 windows as the listening side,
// so a slow controller pushes back on the agent through the front instead of queueing in it.
std::shared_ptr<grpc::Channel> backend_channel(const std::string &target);

// A generic service forwarding each call to `stub`'s channel: request and response metadata (but
// HTTP/2 and grpc- headers, and x-e3-front-*) both ways, plus x-e3-peer; messages with flow control (a
// message is read from one side only once the previous one was written to the other); the status, details and
// trailing metadata back (an x-e3-front-node-bin applied to `link`'s node table first, so the agent's next
// heartbeat finds its node); the deadline and a cancellation on either side to the other. With a `link`,
// StreamHeartbeats is not forwarded but terminated here.
class ProxyService final : public grpc::CallbackGenericService {
public:
    ProxyService(std::shared_ptr<grpc::Channel> backend, BackendLink *link)
        : stub_(std::move(backend)), link_(link) {}
    grpc::ServerGenericBidiReactor *CreateReactor(grpc::GenericCallbackServerContext *ctx) override;

private:
    grpc::GenericStub stub_;
    BackendLink *link_; // null: every call forwarded
};

} // namespace ingest

#endif
