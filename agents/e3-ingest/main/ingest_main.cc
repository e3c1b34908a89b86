// SPDX-License-Identifier: Apache-2.0
//
// e3-ingest: the controller's compiled front (docs/controller-scale-out.md, section 2). `e3 controller` starts it as
// its child on the public address(es) when E3_INGEST_FRONT is on. It terminates the agents' StreamHeartbeats
// (src/heartbeat_stream.h) and hands the controller what they bring through its IngestBackend service on the
// controller's unix socket (src/backend_link.h), keeping their raw tail, which it serves as
// e3.internal.v1.TelemetryTail (src/tail_service.h); it forwards every other call there (src/proxy.h). With
// E3_FRONT_REDIS_* in its environment it writes the live state to Redis itself (src/redis_link.h). Start-up order:
// arguments, the Redis configuration, TLS files, the listening server, the link's threads, the ready line on stdout
// (the parent waits for it), then SIGINT/SIGTERM to stop: the server shuts down first (2 s for the streams under way
// to be answered, the link still delivering), then the link; orphaned (the controller died), it exits at once.
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/prctl.h>
#include <unistd.h>

#include "backend_link.h"
#include "ingest_args.h"
#include "proxy.h"
#include "redis_link.h"
#include "tail_service.h"

namespace {

constexpr int kPingMinIntervalMs = 500; // as the Python controller: half the agents' 1 s keepalive

bool read_file(const char *path, std::string *out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream text;
    text << in.rdbuf();
    *out = text.str();
    return true;
}

// The listening side's credentials: TLS from the controller's own PEM files, or plaintext.
bool server_credentials(const ingest_args &args, std::shared_ptr<grpc::ServerCredentials> *out) {
    if (!args.tls_cert[0]) {
        *out = grpc::InsecureServerCredentials();
        return true;
    }
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    if (!read_file(args.tls_key, &pair.private_key)) {
        std::fprintf(stderr, "e3-ingest: cannot read --tls-key %s\n", args.tls_key);
        return false;
    }
    if (!read_file(args.tls_cert, &pair.cert_chain)) {
        std::fprintf(stderr, "e3-ingest: cannot read --tls-cert %s\n", args.tls_cert);
        return false;
    }
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back(pair);
    *out = grpc::SslServerCredentials(options);
    return true;
}

} // namespace

namespace {

// Whether the controller that started the front has died: reparented away from it, or (PR_SET_PDEATHSIG's signal
// can arrive while the kernel still shows it as the parent) a zombie or gone in /proc.
bool parent_gone(pid_t parent) {
    if (getppid() != parent) return true;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", static_cast<long>(parent));
    FILE *stat = std::fopen(path, "r");
    if (stat == nullptr) return true;
    char line[512];
    const bool read = std::fgets(line, sizeof line, stat) != nullptr;
    std::fclose(stat);
    const char *state = read ? std::strrchr(line, ')') : nullptr; // "pid (comm) S ...": the state follows the name
    return state != nullptr && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

} // namespace

int main(int argc, char **argv) {
    ingest_args args;
    char err[INGEST_ERRBUF_LEN] = "";
    int rc = ingest_args_parse(argc, argv, &args, err);
    if (rc == INGEST_HELP) {
        std::fputs(ingest_usage, stdout);
        return 0;
    }
    if (rc != INGEST_OK) {
        std::fprintf(stderr, "e3-ingest: %s\n%s", err, ingest_usage);
        return 2;
    }

    ingest::RedisConfig redis;
    std::string redis_error;
    if (!ingest::redis_config_from_env([](const char *name) { return std::getenv(name); }, &redis, &redis_error)) {
        std::fprintf(stderr, "e3-ingest: %s\n", redis_error.c_str());
        return 2;
    }

    // Block the stop signals before gRPC starts its threads, so only sigwait below receives them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    // Die with the controller, asked for here rather than between its fork and exec: a fork of a process
    // running grpcio with a preexec_fn aborts in grpcio's fork handlers. Checked after asking, so a parent
    // that ended just before is not missed.
    if (args.parent_pid) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != static_cast<pid_t>(args.parent_pid)) {
            std::fprintf(stderr, "e3-ingest: its parent, process %ld, is gone\n", args.parent_pid);
            return 1;
        }
    }

    std::shared_ptr<grpc::ServerCredentials> credentials;
    if (!server_credentials(args, &credentials)) return 1;

    const std::shared_ptr<grpc::Channel> backend = ingest::backend_channel(args.backend);
    ingest::BackendLink link(backend, std::chrono::milliseconds(args.rollup_flush_ms),
                             static_cast<size_t>(args.tail_items), redis);
    ingest::ProxyService proxy(backend, &link);
    ingest::TailService tail(&link, static_cast<uint32_t>(args.tail_window_s));
    grpc::ServerBuilder builder;
    // The Python controller's options (backend/e3/rpc/server.py): the agents' 1 s keepalive pings are
    // allowed and never counted as abuse; small HTTP/2 windows, so flow control pushes back within
    // ~16 KB a stream instead of buffering seconds of heartbeats here.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, kPingMinIntervalMs);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16384);
    builder.RegisterService(&tail); // its one method here; every method no service registers goes to the proxy
    builder.RegisterCallbackGenericService(&proxy);
    int bound_ports[INGEST_MAX_LISTEN] = {0};
    for (int i = 0; i < args.listen_count; i++) builder.AddListeningPort(args.listen[i], credentials, &bound_ports[i]);
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    for (int i = 0; server && i < args.listen_count; i++) {
        if (bound_ports[i] == 0) {
            std::fprintf(stderr, "e3-ingest: cannot listen on %s\n", args.listen[i]);
            server->Shutdown();
            return 1;
        }
    }
    if (!server) {
        std::fprintf(stderr, "e3-ingest: cannot listen on %s\n", args.listen[0]);
        return 1;
    }
    link.start();
    if (redis.enabled)
        std::fprintf(stderr, "e3-ingest: writes the live state to Redis at %s itself\n",
                     ingest::redis_target(redis).c_str());

    std::printf("e3-ingest: listening on port %d (%s), forwarding to %s\n", bound_ports[0],
                args.tls_cert[0] ? "TLS" : "plaintext", args.backend);
    std::fflush(stdout);

    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    // Orphaned (its controller died: PR_SET_PDEATHSIG's SIGTERM), nothing can answer the streams or take a delivery
    // any more: the front exits at once, its connections reset, so that the agents move to another controller now.
    // A graceful stop took 2 s (the streams' grace) and more (the last delivery's deadline) before they noticed.
    if (args.parent_pid > 0 && parent_gone(static_cast<pid_t>(args.parent_pid))) {
        std::fprintf(stderr, "e3-ingest: its controller (pid %ld) is gone: exiting now\n", args.parent_pid);
        std::fflush(stderr);
        std::_Exit(1);
    }
    std::fprintf(stderr, "e3-ingest: stopping (signal %d)\n", signal_number);
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    link.stop();
    return 0;
}
