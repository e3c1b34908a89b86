// SPDX-License-Identifier: Apache-2.0
//
// The front's TelemetryTail (see tail_service.h). A call's state while the controller authorizes it (the
// Authorize call's context, a child of the caller's so that a cancellation reaches it, and its messages) lives in
// the Authorize callback, which reads the tail and finishes the call.
#include "tail_service.h"

#include <cstdio>
#include <memory>
#include <utility>

namespace ingest {
namespace {

struct Authorization {
    std::unique_ptr<grpc::ClientContext> context;
    e3::internal::v1::AuthorizeRequest request;
    e3::internal::v1::AuthorizeResponse response;
};

} // namespace

// Python's repr of a str, for ASCII text (other bytes are kept as they are).
std::string no_heartbeats_message(const std::string &node_id) {
    const bool double_quoted = node_id.find('\'') != std::string::npos && node_id.find('"') == std::string::npos;
    const char quote = double_quoted ? '"' : '\'';
    std::string text = "this controller holds no heartbeats of node ";
    text += quote;
    for (const char c : node_id) {
        const unsigned char byte = static_cast<unsigned char>(c);
        if (c == '\\' || c == quote) {
            text += '\\';
            text += c;
        } else if (c == '\n') {
            text += "\\n";
        } else if (c == '\r') {
            text += "\\r";
        } else if (c == '\t') {
            text += "\\t";
        } else if (byte < 0x20 || byte == 0x7f) {
            char escaped[5];
            std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
            text += escaped;
        } else {
            text += c;
        }
    }
    text += quote;
    return text;
}

grpc::ServerUnaryReactor *TailService::Tail(grpc::CallbackServerContext *context,
                                            const e3::internal::v1::TailRequest *request,
                                            e3::internal::v1::TailResponse *response) {
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    auto call = std::make_shared<Authorization>();
    const auto &metadata = context->client_metadata();
    const auto authorization = metadata.find("authorization");
    if (authorization != metadata.end())
        call->request.set_authorization(std::string(authorization->second.data(), authorization->second.size()));
    call->request.set_scope(kTailScope);
    call->context = grpc::ClientContext::FromCallbackServerContext(*context);
    Authorization *const asked = call.get();
    link_->authorize(asked->context.get(), &asked->request, &asked->response,
                     [this, call = std::move(call), request, response, reactor](grpc::Status status) mutable {
                         call.reset(); // the Authorize call is over: its context goes before the caller's call ends
                         reactor->Finish(status.ok() ? read(*request, response) : status);
                     });
    return reactor;
}

grpc::Status TailService::read(const e3::internal::v1::TailRequest &request,
                               e3::internal::v1::TailResponse *response) const {
    RawTail::Read held;
    if (!link_->tail().read(request.node_id(), request.since_unix_ns(), request.until_unix_ns(), request.limit(),
                            &held))
        return grpc::Status(grpc::StatusCode::NOT_FOUND, no_heartbeats_message(request.node_id()));
    response->mutable_heartbeats_json()->Reserve(static_cast<int>(held.items.size()));
    for (std::string &item : held.items) response->add_heartbeats_json(std::move(item));
    response->set_holds_since_unix_ns(held.holds_since_ns);
    response->set_window_s(window_s_);
    return grpc::Status::OK;
}

} // namespace ingest
