// SPDX-License-Identifier: Apache-2.0
//
// The front's only service this increment: every call, whatever its method, forwarded unparsed to the
// controller (gRPC's generic callback API on both sides), messages one at a time in each direction.
#ifndef E3_INGEST_PROXY_H
#define E3_INGEST_PROXY_H

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace ingest {

// Metadata key the front sets to the caller's IP; one the caller sent is dropped, never forwarded.
inline constexpr const char kPeerMetadata[] = "x-e3-peer";

// The channel to the controller's unix socket, with the same small HTTP/2 windows as the listening side,
// so a slow controller pushes back on the agent through the front instead of queueing in it.
std::shared_ptr<grpc::Channel> backend_channel(const std::string &target);

// A generic service forwarding each call to `stub`'s channel: request and response metadata (but
// HTTP/2 and grpc- headers) both ways, plus x-e3-peer; messages with flow control (a message is read
// from one side only once the previous one was written to the other); the status, details and trailing
// metadata back; the deadline and a cancellation on either side to the other.
class ProxyService final : public grpc::CallbackGenericService {
public:
    explicit ProxyService(std::shared_ptr<grpc::Channel> backend) : stub_(std::move(backend)) {}
    grpc::ServerGenericBidiReactor *CreateReactor(grpc::GenericCallbackServerContext *ctx) override;

private:
    grpc::GenericStub stub_;
};

} // namespace ingest

#endif
