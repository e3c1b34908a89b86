// SPDX-License-Identifier: Apache-2.0
//
// One ProxyCall per call: a server reactor (the agent's side) and a client reactor (the controller's
// side) over one state. Two pumps move messages: requests (server read -> client write -> server read)
// and responses (client read -> server write -> client read), each with one message in flight, so gRPC's
// flow control holds on both hops. The client reactor carries one hold per pump: its OnDone (the
// controller's status) comes only once neither pump can touch the client stream again, and the server
// side is finished from there, so neither stream is used after its end. StreamHeartbeats, with a link, goes
// to its own reactor instead (heartbeat_stream.h).
#include "proxy.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "heartbeat_stream.h"
#include "ingest_peer.h"

namespace ingest {
namespace {

// Headers gRPC and HTTP/2 set on each hop themselves; forwarding them would duplicate or contradict.
bool hop_by_hop(const std::string &key) {
    return key.empty() || key[0] == ':' || key.rfind("grpc-", 0) == 0 || key == "content-type" || key == "te" ||
           key == "user-agent" || key == "host" || key == kPeerMetadata ||
           key.rfind(kFrontMetadataPrefix, 0) == 0;
}

std::string text(grpc::string_ref ref) { return std::string(ref.data(), ref.size()); }

class ProxyCall {
public:
    ProxyCall(grpc::GenericCallbackServerContext *server_ctx, grpc::GenericStub *stub, BackendLink *link)
        : server_ctx_(server_ctx), link_(link), method_(server_ctx->method()), server_(this), client_(this) {
        // Deadline and cancellation propagate from the agent's call to the forwarded one.
        client_ctx_ = grpc::ClientContext::FromCallbackServerContext(*server_ctx);
        for (const auto &[key, value] : server_ctx->client_metadata()) {
            std::string name = text(key);
            if (!hop_by_hop(name)) client_ctx_->AddMetadata(name, text(value));
        }
        char ip[64];
        if (ingest_peer_ip(server_ctx->peer().c_str(), ip, sizeof(ip)) == 0) client_ctx_->AddMetadata(kPeerMetadata, ip);
        stub->PrepareBidiStreamingCall(client_ctx_.get(), method_, grpc::StubOptions(), &client_);
        client_.AddMultipleHolds(2); // the request pump's and the response pump's
        request_state_ = RequestState::reading;
        server_.StartRead(&request_);
        client_.StartCall();
    }

    grpc::ServerGenericBidiReactor *server_reactor() { return &server_; }

private:
    enum class RequestState { reading, writing, ended };

    class ServerSide final : public grpc::ServerGenericBidiReactor {
    public:
        explicit ServerSide(ProxyCall *call) : call_(call) {}
        void OnReadDone(bool ok) override { call_->request_read(ok); }
        void OnWriteDone(bool ok) override { call_->response_written(ok); }
        void OnCancel() override { call_->client_ctx_->TryCancel(); }
        void OnDone() override { call_->release(); }

    private:
        ProxyCall *call_;
    };

    class ClientSide final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
    public:
        explicit ClientSide(ProxyCall *call) : call_(call) {}
        void OnReadInitialMetadataDone(bool ok) override { call_->headers_received(ok); }
        void OnReadDone(bool ok) override { call_->response_read(ok); }
        void OnWriteDone(bool ok) override { call_->request_written(ok); }
        void OnDone(const grpc::Status &status) override { call_->backend_done(status); }

    private:
        ProxyCall *call_;
    };

    // ---- the request pump (agent -> controller) --------------------------------------------------

    void request_read(bool ok) {
        std::unique_lock<std::mutex> lock(mu_);
        if (request_state_ == RequestState::ended) return; // the controller ended the call meanwhile
        if (!ok) {                                         // the agent half-closed (or went away)
            request_state_ = RequestState::ended;
            lock.unlock();
            client_.StartWritesDone();
            client_.RemoveHold();
            return;
        }
        request_state_ = RequestState::writing;
        lock.unlock();
        client_.StartWrite(&request_);
    }

    void request_written(bool ok) {
        std::unique_lock<std::mutex> lock(mu_);
        if (!ok || responses_ended_) {
            request_state_ = RequestState::ended;
            lock.unlock();
            client_.RemoveHold();
            return;
        }
        request_state_ = RequestState::reading;
        lock.unlock();
        server_.StartRead(&request_);
    }

    // The controller sends nothing more: a request pump waiting for the agent's next message lets go of
    // the client stream now (its read still completes, into a call that ignores it), so the status is not
    // held back until the agent writes again or half-closes.
    void end_request_pump_if_idle() {
        std::unique_lock<std::mutex> lock(mu_);
        responses_ended_ = true;
        if (request_state_ != RequestState::reading) return; // a write in flight ends it in request_written
        request_state_ = RequestState::ended;
        lock.unlock();
        client_.RemoveHold();
    }

    // ---- the response pump (controller -> agent) -------------------------------------------------

    void headers_received(bool ok) {
        if (!ok) { // no headers: the call failed, its status follows in backend_done
            responses_ended();
            return;
        }
        for (const auto &[key, value] : client_ctx_->GetServerInitialMetadata()) {
            std::string name = text(key);
            if (!hop_by_hop(name)) server_ctx_->AddInitialMetadata(name, text(value));
        }
        server_.StartSendInitialMetadata();
        client_.StartRead(&response_);
    }

    void response_read(bool ok) {
        if (!ok) {
            responses_ended();
            return;
        }
        server_.StartWrite(&response_);
    }

    void response_written(bool ok) {
        if (!ok) { // the agent is gone: so is the call
            client_ctx_->TryCancel();
            responses_ended();
            return;
        }
        client_.StartRead(&response_);
    }

    void responses_ended() {
        end_request_pump_if_idle();
        client_.RemoveHold();
    }

    // ---- the end ---------------------------------------------------------------------------------

    void backend_done(const grpc::Status &status) {
        for (const auto &[key, value] : client_ctx_->GetServerTrailingMetadata()) {
            std::string name = text(key);
            if (name == kFrontNodeMetadata && link_ != nullptr) apply_node_change(value);
            if (!hop_by_hop(name)) server_ctx_->AddTrailingMetadata(name, text(value));
        }
        server_.Finish(status); // code, message and binary details as the controller sent them
        release();
    }

    // The controller's node table change riding on its answer (a Register's), applied before the agent has it.
    void apply_node_change(grpc::string_ref value) {
        e3::internal::v1::NodeTableChange change;
        if (!change.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
            std::fprintf(stderr, "e3-ingest: %s of %s is not a NodeTableChange; ignored\n", kFrontNodeMetadata,
                         method_.c_str());
            return;
        }
        link_->apply_answered(change);
    }

    // Both reactors' OnDone: the last one frees the call.
    void release() {
        if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

    grpc::GenericCallbackServerContext *server_ctx_;
    BackendLink *link_; // null: no node table to apply changes to
    std::unique_ptr<grpc::ClientContext> client_ctx_;
    const std::string method_; // the client call refers to it until its end
    ServerSide server_;
    ClientSide client_;
    grpc::ByteBuffer request_;  // the agent's message in flight to the controller
    grpc::ByteBuffer response_; // the controller's message in flight to the agent
    std::mutex mu_;             // guards request_state_ and responses_ended_
    RequestState request_state_ = RequestState::reading;
    bool responses_ended_ = false;
    std::atomic<int> references_{2};
};

} // namespace

std::shared_ptr<grpc::Channel> backend_channel(const std::string &target) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16384);
    args.SetMaxReceiveMessageSize(-1); // the agent's own limit applies to what the controller sends
    return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

grpc::ServerGenericBidiReactor *ProxyService::CreateReactor(grpc::GenericCallbackServerContext *ctx) {
    if (link_ != nullptr && ctx->method() == kStreamHeartbeatsMethod) return HeartbeatStream::start(ctx, link_);
    return (new ProxyCall(ctx, &stub_, link_))->server_reactor();
}

} // namespace ingest
