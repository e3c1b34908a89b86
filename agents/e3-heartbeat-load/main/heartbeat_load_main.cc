// SPDX-License-Identifier: Apache-2.0
//
// e3-heartbeat-load --spec FILE [--channels N]: the streaming half of `e3 bench ingest`'s load generator
// (backend/e3/bench/heartbeat_loadgen.py registers the agents and writes the spec). Reads the spec, opens every
// stream over N channels (separate TCP connections), runs their ticks and their calls' completions on this thread
// (event_loop.h) until each stream has its summary or has failed, then prints the figures as JSON on stdout and
// one line on stderr. Exit 0 when every stream got its summary, 1 when one failed, 2 on bad options or a bad spec.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "load_report.h"
#include "load_spec.h"
#include "stream_call.h"
#include "event_loop.h"

namespace {

constexpr const char kUsage[] =
    "usage: e3-heartbeat-load --spec FILE [--channels N]\n"
    "  --spec FILE     the load: target, token, period, end, streams and their batches (README.md)\n"
    "  --channels N    gRPC channels (TCP connections) the streams are spread over, 1 to 256 (default 2)\n";

constexpr int kMaxChannels = 256;

struct Options {
    const char *spec = nullptr;
    int channels = 2;
};

// 0: parsed; 1: --help; 2: bad (the message printed).
int parse_options(int argc, char **argv, Options *out) {
    auto bad = [](const std::string &what) {
        std::fprintf(stderr, "e3-heartbeat-load: %s\n%s", what.c_str(), kUsage);
        return 2;
    };
    for (int k = 1; k < argc; ++k) {
        const std::string option = argv[k];
        if (option == "--help" || option == "-h") return 1;
        if (option != "--spec" && option != "--channels") return bad("unknown option " + option);
        if (k + 1 >= argc) return bad(option + " needs a value");
        const std::string value = argv[++k];
        if (option == "--spec") {
            if (value.empty()) return bad("--spec needs a file name");
            out->spec = argv[k];
            continue;
        }
        char *end = nullptr;
        errno = 0;
        const long channels = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || errno != 0 || channels < 1 || channels > kMaxChannels)
            return bad("--channels " + value + ": expected a number from 1 to " + std::to_string(kMaxChannels));
        out->channels = static_cast<int>(channels);
    }
    if (out->spec == nullptr) return bad("--spec FILE is required");
    return 0;
}

bool read_text(const char *path, std::string *out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream text;
    text << in.rdbuf();
    *out = text.str();
    return !in.bad();
}

double cpu_seconds() {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

} // namespace

int main(int argc, char **argv) {
    Options options;
    const int parsed = parse_options(argc, argv, &options);
    if (parsed == 1) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (parsed != 0) return 2;

    std::string text, error;
    errno = 0;
    if (!read_text(options.spec, &text)) {
        std::fprintf(stderr, "e3-heartbeat-load: %s: cannot read it%s%s\n", options.spec, errno ? ": " : "",
                     errno ? std::strerror(errno) : "");
        return 2;
    }
    heartbeat_load::LoadSpec spec;
    if (!heartbeat_load::parse_load_spec(text, options.spec, &spec, &error)) {
        std::fprintf(stderr, "e3-heartbeat-load: %s\n", error.c_str());
        return 2;
    }
    text.clear();
    text.shrink_to_fit();

    const double cpu0 = cpu_seconds();
    // One channel each, told apart by an argument of their own so gRPC gives each its own connection.
    std::vector<std::unique_ptr<grpc::GenericStub>> services;
    for (int k = 0; k < options.channels; ++k) {
        grpc::ChannelArguments args;
        args.SetInt("e3.channel", k);
        services.push_back(std::make_unique<grpc::GenericStub>(
            grpc::CreateCustomChannel(spec.target, grpc::InsecureChannelCredentials(), args)));
    }
    heartbeat_load::EventLoop loop; // after the calls are gone (declared before them): their queue
    std::vector<std::unique_ptr<heartbeat_load::StreamCall>> calls;
    for (heartbeat_load::StreamSpec &stream : spec.streams)
        calls.push_back(std::make_unique<heartbeat_load::StreamCall>(&stream, spec, &loop));
    for (size_t k = 0; k < calls.size(); ++k) calls[k]->open(services[k % services.size()].get(), spec.token);
    loop.run(calls.size());

    std::vector<const heartbeat_load::StreamFigures *> figures;
    for (const auto &call : calls) figures.push_back(&call->figures());
    heartbeat_load::LoadReport report = heartbeat_load::sum_up(spec, figures);
    report.cpu_s = cpu_seconds() - cpu0;
    std::printf("%s\n", heartbeat_load::report_json(report).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", heartbeat_load::report_line(report).c_str());
    return report.failed_streams == 0 ? 0 : 1;
}
