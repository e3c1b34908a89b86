// SPDX-License-Identifier: Apache-2.0
//
// e3rpc: C shim over gRPC's synchronous C++ API for proto/e3/agent/v1/agent.proto (see e3rpc.h).
// Only translation lives here: C structs <-> protobuf messages, grpc::Status -> error text.
// No policy (retries, backoff, what to do with a command): that is the agent's business.
#include "e3rpc.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "e3/agent/v1/agent.grpc.pb.h"

namespace pb = e3::agent::v1;

struct e3rpc_client {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<pb::AgentService::Stub> stub;
    std::string bearer; // "Bearer <token>"
};

struct e3rpc_hb_stream {
    grpc::ClientContext ctx;
    pb::HeartbeatSummary summary;
    std::unique_ptr<grpc::ClientWriter<pb::HeartbeatBatch>> writer;
    uint64_t sequence = 0; // last batch number sent
    bool broken = false;   // a Write failed: only Finish is left
};

struct e3rpc_cmd_stream {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReader<pb::Command>> reader;
    bool finished = false; // Finish() was called
};

namespace {

void set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void set_error(char *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, E3RPC_ERRBUF_LEN, fmt, ap);
    va_end(ap);
}

const char *code_name(grpc::StatusCode c) {
    switch (c) {
    case grpc::OK: return "OK";
    case grpc::CANCELLED: return "CANCELLED";
    case grpc::UNKNOWN: return "UNKNOWN";
    case grpc::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::NOT_FOUND: return "NOT_FOUND";
    case grpc::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::ABORTED: return "ABORTED";
    case grpc::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::INTERNAL: return "INTERNAL";
    case grpc::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::DATA_LOSS: return "DATA_LOSS";
    case grpc::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "STATUS_UNKNOWN_CODE";
    }
}

// Fill `err` from a failed status; returns E3RPC_ERR.
int status_error(char *err, const char *what, const grpc::Status &st) {
    set_error(err, "%s: %s: %s", what, code_name(st.error_code()), st.error_message().c_str());
    return E3RPC_ERR;
}

void prepare(const e3rpc_client *c, grpc::ClientContext *ctx, uint32_t deadline_ms) {
    ctx->AddMetadata("authorization", c->bearer);
    if (deadline_ms)
        ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
}

std::string str(const char *s) {
    return s ? std::string(s) : std::string();
}

// Copy a std::string into a fresh NUL-terminated heap string (NULL when memory runs out).
char *dup(const std::string &s) {
    char *p = static_cast<char *>(malloc(s.size() + 1));
    if (p) {
        memcpy(p, s.data(), s.size());
        p[s.size()] = '\0';
    }
    return p;
}

void copy_id(char (&dst)[E3RPC_ID_LEN], const std::string &src) {
    snprintf(dst, sizeof(dst), "%s", src.c_str());
}

void to_proto(const e3rpc_heartbeat &in, pb::Heartbeat *out) {
    out->set_node_id(in.node_id);
    out->set_timestamp_unix_ns(in.timestamp_unix_ns);
    out->set_queue_length(in.queue_length);
    out->set_rx_bytes(in.rx_bytes);
    out->set_tx_bytes(in.tx_bytes);
    out->set_rx_packets(in.rx_packets);
    out->set_tx_packets(in.tx_packets);
    out->set_cpu_utilization(in.cpu_utilization);
    out->set_power_watts(in.power_watts);
    out->set_power_source(static_cast<pb::PowerSource>(in.power_source));
    out->set_lease_epoch(in.lease_epoch);
    size_t n = std::min<size_t>(in.n_instances, E3RPC_MAX_INSTANCES);
    for (size_t i = 0; i < n; i++) {
        const e3rpc_instance_stats &s = in.instances[i];
        pb::InstanceStats *o = out->add_instances();
        o->set_instance_id(s.instance_id);
        o->set_requests_completed(s.requests_completed);
        o->set_exec_time_us(s.exec_time_us);
        o->set_exec_time_ema_us(s.exec_time_ema_us);
        o->set_cpu_share(s.cpu_share);
        o->set_latency_count(s.latency_count);
        o->set_latency_avg_us(s.latency_avg_us);
        o->set_latency_p99_us(s.latency_p99_us);
    }
}

// Translate a Command; returns false when memory runs out.
bool from_proto(const pb::Command &in, e3rpc_command *out) {
    bool ok = true;
    auto s = [&ok](const std::string &v) {
        char *p = dup(v);
        ok = ok && p;
        return p;
    };
    out->version = in.version();
    out->node_id = s(in.node_id());
    out->lease_epoch = in.lease_epoch();
    switch (in.action_case()) {
    case pb::Command::kDeployInstance: {
        const pb::DeployInstance &d = in.deploy_instance();
        out->kind = E3RPC_CMD_DEPLOY;
        out->instance_id = s(d.instance_id());
        out->service_type = s(d.service_type());
        out->shard = d.shard();
        out->role = s(d.role());
        out->port = d.port();
        out->epoch = d.epoch();
        // Sorted so the service config string does not depend on map iteration order.
        std::vector<std::pair<std::string, std::string>> kv(d.config().begin(), d.config().end());
        std::sort(kv.begin(), kv.end());
        if (!kv.empty()) {
            out->config = static_cast<e3rpc_kv *>(calloc(kv.size(), sizeof(e3rpc_kv)));
            if (!out->config) return false;
            out->n_config = kv.size();
            for (size_t i = 0; i < kv.size(); i++) {
                out->config[i].key = s(kv[i].first);
                out->config[i].value = s(kv[i].second);
            }
        }
        break;
    }
    case pb::Command::kRemoveInstance:
        out->kind = E3RPC_CMD_REMOVE;
        out->instance_id = s(in.remove_instance().instance_id());
        break;
    case pb::Command::kExportState:
        out->kind = E3RPC_CMD_EXPORT_STATE;
        out->instance_id = s(in.export_state().instance_id());
        out->peer = s(in.export_state().destination());
        out->keep_serving = in.export_state().keep_serving() ? 1 : 0;
        out->backups = s(in.export_state().backups());
        out->epoch = in.export_state().epoch();
        break;
    case pb::Command::kImportState:
        out->kind = E3RPC_CMD_IMPORT_STATE;
        out->instance_id = s(in.import_state().instance_id());
        out->peer = s(in.import_state().source());
        out->listen_port = in.import_state().listen_port();
        out->epoch = in.import_state().epoch();
        break;
    case pb::Command::kConfirmImport:
        out->kind = E3RPC_CMD_CONFIRM_IMPORT;
        out->instance_id = s(in.confirm_import().instance_id());
        out->epoch = in.confirm_import().epoch();
        break;
    case pb::Command::kResumeInstance:
        out->kind = E3RPC_CMD_RESUME;
        out->instance_id = s(in.resume_instance().instance_id());
        out->epoch = in.resume_instance().epoch();
        break;
    case pb::Command::kPromoteInstance: {
        const pb::PromoteInstance &p = in.promote_instance();
        out->kind = E3RPC_CMD_PROMOTE;
        out->instance_id = s(p.instance_id());
        out->epoch = p.epoch();
        out->backups = s(p.backups());
        std::string replaces;
        for (const std::string &id : p.replaces()) replaces += (replaces.empty() ? "" : ",") + id;
        out->replaces = s(replaces);
        break;
    }
    case pb::Command::kSetRoutes: {
        out->kind = E3RPC_CMD_SET_ROUTES;
        const auto &routes = in.set_routes().routes();
        if (routes.empty()) break;
        out->routes = static_cast<e3rpc_route *>(calloc(routes.size(), sizeof(e3rpc_route)));
        if (!out->routes) return false;
        out->n_routes = routes.size();
        for (int i = 0; i < routes.size(); i++) {
            out->routes[i].instance_id = s(routes[i].instance_id());
            out->routes[i].address = s(routes[i].address());
            out->routes[i].port = routes[i].port();
        }
        break;
    }
    default:
        out->kind = E3RPC_CMD_UNKNOWN;
        break;
    }
    return ok;
}

} // namespace

extern "C" {

// E3_AGENT_KEEPALIVE_MS, or 1 s; a value that is not a number from 500 to 3,600,000 is ignored.
static int keepalive_period_ms() {
    const char *env = std::getenv("E3_AGENT_KEEPALIVE_MS");
    char *end = nullptr;
    long ms = env ? std::strtol(env, &end, 10) : 0;
    return env && *end == '\0' && ms >= 500 && ms <= 3600000 ? static_cast<int>(ms) : 1000;
}

// A ping's answer is read only when some thread polls the channel: the command thread does, blocked in its
// stream's Read, except while it carries out a command (a state export waits up to 10 s for its importer's OK);
// then only gRPC's backup poller reads, every 5 s by default, and a keepalive timeout shorter than that closed
// the link with the controller in the middle of the export. Polling every 100 ms keeps a 1 s timeout honest.
// Set at load time, before main starts any thread (setenv races with other threads' getenv) and before the first
// channel initialises gRPC, which reads it then; an operator's own value is kept.
static const bool channel_polled_often = setenv("GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS", "100", 0) == 0;

e3rpc_client *e3rpc_client_new(const char *target, const char *token, const char *tls_ca_pem, char *err) {
    if (!target || !*target || !token || !*token) {
        set_error(err, "e3rpc: target and token are required");
        return nullptr;
    }
    (void)channel_polled_often;
    grpc::ChannelArguments args;
    // Notice a frozen or vanished controller (streams are idle otherwise): a ping every E3_AGENT_KEEPALIVE_MS
    // (1 s), its answer within half that (at least 1 s), so a frozen controller is left about 2 s after it froze
    // (docs/agents.md, "The controller link"). The controller permits pings every 500 ms (e3/rpc/server.py),
    // else it would answer too_many_pings with GOAWAY. Pings go on while no heartbeat is sent (a long
    // --heartbeat-ms): no limit of pings without data.
    int keepalive_ms = keepalive_period_ms();
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, keepalive_ms);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, std::max(1000, keepalive_ms / 2));
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    auto *c = new (std::nothrow) e3rpc_client;
    if (!c) {
        set_error(err, "e3rpc: out of memory");
        return nullptr;
    }
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
    if (tls_ca_pem) {
        grpc::SslCredentialsOptions tls;
        tls.pem_root_certs = tls_ca_pem;
        credentials = grpc::SslCredentials(tls);
    }
    c->channel = grpc::CreateCustomChannel(target, credentials, args);
    c->stub = pb::AgentService::NewStub(c->channel);
    c->bearer = std::string("Bearer ") + token;
    return c;
}

void e3rpc_client_free(e3rpc_client *c) {
    delete c;
}

int e3rpc_health(e3rpc_client *c, uint32_t deadline_ms, char *err) {
    // No health stub is generated (the .proto is not ours): HealthCheckRequest{service=""} is
    // the empty message, and HealthCheckResponse{status=SERVING} encodes as field 1 = 1.
    grpc::GenericStub generic(c->channel);
    grpc::ClientContext ctx;
    prepare(c, &ctx, deadline_ms);
    grpc::Slice empty;
    grpc::ByteBuffer req(&empty, 1), resp;
    std::promise<grpc::Status> done;
    generic.UnaryCall(&ctx, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &req, &resp,
                      [&done](grpc::Status st) { done.set_value(std::move(st)); });
    grpc::Status st = done.get_future().get();
    if (!st.ok()) return status_error(err, "Health/Check", st);
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (resp.Dump(&slices).ok())
        for (const auto &sl : slices) bytes.append(reinterpret_cast<const char *>(sl.begin()), sl.size());
    if (bytes.size() == 2 && bytes[0] == 0x08 && bytes[1] == 0x01) return E3RPC_OK;
    set_error(err, "Health/Check: the controller is not SERVING");
    return E3RPC_ERR;
}

int e3rpc_register(e3rpc_client *c, const char *agent_id, const e3rpc_identity *node,
                   uint32_t deadline_ms, e3rpc_registration *out, char *err) {
    pb::RegisterRequest req;
    req.set_agent_id(str(agent_id));
    pb::NodeIdentity *id = req.mutable_node();
    id->set_name(str(node->name));
    id->set_kind(static_cast<pb::NodeKind>(node->kind));
    id->set_server_name(str(node->server_name));
    id->set_cluster_name(str(node->cluster_name));
    id->set_software_version(str(node->software_version));
    id->set_address(str(node->address));
    id->mutable_capacity()->set_cores(node->cores);
    id->mutable_capacity()->set_memory_mb(node->memory_mb);
    id->mutable_capacity()->set_bandwidth_mbps(node->bandwidth_mbps);
    pb::RegisterResponse resp;
    grpc::ClientContext ctx;
    prepare(c, &ctx, deadline_ms);
    grpc::Status st = c->stub->Register(&ctx, req, &resp);
    if (!st.ok()) return status_error(err, "Register", st);
    copy_id(out->node_id, resp.node_id());
    out->heartbeat_period_ms = resp.heartbeat_period_ms();
    out->lease_epoch = resp.lease_epoch();
    return E3RPC_OK;
}

int e3rpc_ack(e3rpc_client *c, const char *agent_id, const char *node_id, uint64_t version, int ok,
              const char *code, const char *message, uint32_t deadline_ms, char *err) {
    pb::CommandAck req;
    req.set_agent_id(str(agent_id));
    req.set_node_id(str(node_id));
    req.set_version(version);
    req.set_ok(ok != 0);
    if (!ok) {
        req.mutable_error()->set_code(str(code));
        req.mutable_error()->set_message(str(message));
    }
    pb::AckCommandResponse resp;
    grpc::ClientContext ctx;
    prepare(c, &ctx, deadline_ms);
    grpc::Status st = c->stub->AckCommand(&ctx, req, &resp);
    return st.ok() ? E3RPC_OK : status_error(err, "AckCommand", st);
}

e3rpc_hb_stream *e3rpc_hb_open(e3rpc_client *c, char *err) {
    auto *s = new (std::nothrow) e3rpc_hb_stream;
    if (!s) {
        set_error(err, "e3rpc: out of memory");
        return nullptr;
    }
    prepare(c, &s->ctx, 0); // lives as long as the agent: no deadline
    s->writer = c->stub->StreamHeartbeats(&s->ctx, &s->summary);
    if (!s->writer) {
        delete s;
        set_error(err, "StreamHeartbeats: cannot start the call");
        return nullptr;
    }
    return s;
}

int e3rpc_hb_send(e3rpc_hb_stream *s, const char *agent_id, const e3rpc_heartbeat *hbs, size_t n,
                  char *err) {
    if (s->broken) {
        set_error(err, "StreamHeartbeats: stream is broken");
        return E3RPC_ERR;
    }
    pb::HeartbeatBatch batch;
    batch.set_agent_id(str(agent_id));
    batch.set_sequence(s->sequence + 1);
    for (size_t i = 0; i < n; i++) to_proto(hbs[i], batch.add_heartbeats());
    if (!s->writer->Write(batch)) {
        // The status is only known after Finish; the caller closes the stream to learn it.
        s->broken = true;
        set_error(err, "StreamHeartbeats: write failed (stream closed or broken)");
        return E3RPC_ERR;
    }
    s->sequence++;
    return E3RPC_OK;
}

void e3rpc_hb_cancel(e3rpc_hb_stream *s) {
    if (s) s->ctx.TryCancel();
}

int e3rpc_hb_close(e3rpc_hb_stream *s, uint32_t deadline_ms, e3rpc_hb_summary *out, char *err) {
    // A stream has no deadline of its own (it lives for hours), so a watchdog cancels Finish if
    // the controller does not answer in time.
    std::mutex m;
    std::condition_variable cv;
    bool finished = false;
    std::thread watchdog([&] {
        std::unique_lock<std::mutex> lk(m);
        if (!cv.wait_for(lk, std::chrono::milliseconds(deadline_ms), [&] { return finished; }))
            s->ctx.TryCancel();
    });
    if (!s->broken) s->writer->WritesDone();
    grpc::Status st = s->writer->Finish();
    {
        std::lock_guard<std::mutex> lk(m);
        finished = true;
    }
    cv.notify_one();
    watchdog.join();
    int rc = E3RPC_OK;
    if (!st.ok()) {
        rc = status_error(err, "StreamHeartbeats", st);
    } else if (out) {
        out->accepted = s->summary.accepted();
        out->rejected = s->summary.rejected();
        out->first_rejection[0] = '\0';
        if (s->summary.rejections_size() > 0)
            snprintf(out->first_rejection, sizeof(out->first_rejection), "%s",
                     s->summary.rejections(0).reason().c_str());
    }
    delete s;
    return rc;
}

e3rpc_cmd_stream *e3rpc_cmd_open(e3rpc_client *c, const char *agent_id, const char *node_id,
                                 uint64_t applied_version, uint64_t lease_epoch, char *err) {
    auto *s = new (std::nothrow) e3rpc_cmd_stream;
    if (!s) {
        set_error(err, "e3rpc: out of memory");
        return nullptr;
    }
    pb::StreamCommandsRequest req;
    req.set_agent_id(str(agent_id));
    req.set_node_id(str(node_id));
    req.set_applied_version(applied_version);
    req.set_lease_epoch(lease_epoch);
    prepare(c, &s->ctx, 0);
    s->reader = c->stub->StreamCommands(&s->ctx, req);
    if (!s->reader) {
        delete s;
        set_error(err, "StreamCommands: cannot start the call");
        return nullptr;
    }
    return s;
}

int e3rpc_cmd_next(e3rpc_cmd_stream *s, e3rpc_command **out, char *err) {
    *out = nullptr;
    if (s->finished) {
        set_error(err, "StreamCommands: stream already ended");
        return E3RPC_ERR;
    }
    pb::Command cmd;
    if (!s->reader->Read(&cmd)) {
        s->finished = true;
        grpc::Status st = s->reader->Finish();
        if (st.ok()) {
            set_error(err, "StreamCommands: the controller ended the stream");
            return E3RPC_ERR;
        }
        return status_error(err, "StreamCommands", st);
    }
    auto *c = static_cast<e3rpc_command *>(calloc(1, sizeof(e3rpc_command)));
    if (!c || !from_proto(cmd, c)) {
        e3rpc_command_free(c);
        set_error(err, "e3rpc: out of memory");
        return E3RPC_ERR;
    }
    *out = c;
    return E3RPC_OK;
}

void e3rpc_cmd_cancel(e3rpc_cmd_stream *s) {
    if (s) s->ctx.TryCancel();
}

void e3rpc_cmd_close(e3rpc_cmd_stream *s) {
    if (!s) return;
    if (!s->finished) {
        s->ctx.TryCancel();
        pb::Command ignored;
        while (s->reader->Read(&ignored)) {
        }
        s->reader->Finish();
    }
    delete s;
}

void e3rpc_command_free(e3rpc_command *c) {
    if (!c) return;
    free(c->node_id);
    free(c->instance_id);
    free(c->service_type);
    free(c->role);
    free(c->peer);
    free(c->backups);
    free(c->replaces);
    for (size_t i = 0; i < c->n_config; i++) {
        free(c->config[i].key);
        free(c->config[i].value);
    }
    free(c->config);
    for (size_t i = 0; i < c->n_routes; i++) {
        free(c->routes[i].instance_id);
        free(c->routes[i].address);
    }
    free(c->routes);
    free(c);
}

} // extern "C"
