// SPDX-License-Identifier: Apache-2.0
//
// heartbeat_load::parse_load_spec: a good spec read in full (settings, streams, batches with their bodies and
// offsets, a troubled form and its windows); each bad spec refused with "<file>:<line>: <what is wrong>" naming
// the line at fault.
#include <cstdio>
#include <string>

#include "check.h"
#include "load_spec.h"

namespace {

using heartbeat_load::LoadSpec;

// A body of 2 + 9 + 2 + 9 bytes: two 9-byte varints, at offsets 2 and 13.
const std::string kBody = "0a00" "818283848586878809" "1a00" "818283848586878809";
const std::string kTroubledBody = "0a01" "818283848586878809" "1a01" "818283848586878809";
const std::string kHead = "e3-heartbeat-load 1\n"
                          "target 127.0.0.1:50051\n"
                          "token s3cret\n"
                          "period_ns 50000000\n"
                          "end_unix_ns 1790000005000000000\n";

bool parse(const std::string &text, LoadSpec *spec, std::string *error) {
    return heartbeat_load::parse_load_spec(text, "load.spec", spec, error);
}

void good_spec() {
    const std::string text = kHead + "stream 1790000000012500000\n"
                                     "batch 2 " + kBody + " 2,13\n"
                                     "troubled " + kTroubledBody + " 2,13\n"
                                     "window 1790000001000000000 1790000002000000000\n"
                                     "window 1790000003000000000 1790000004000000000\n"
                                     "batch 2 " + kBody + " 2,13\n"
                                     "stream 1790000000037500000\n"
                                     "batch 2 " + kBody + " 2,13";  // no newline at the end
    LoadSpec spec;
    std::string error;
    if (!parse(text, &spec, &error)) std::fprintf(stderr, "%s\n", error.c_str());
    CHECK(error.empty());
    CHECK(spec.target == "127.0.0.1:50051");
    CHECK(spec.token == "s3cret");
    CHECK_EQ_INT(spec.period_ns, 50000000);
    CHECK_EQ_INT(spec.end_unix_ns, 1790000005000000000LL);
    CHECK_EQ_INT(spec.streams.size(), 2);
    CHECK_EQ_INT(spec.streams[0].first_tick_ns, 1790000000012500000LL);
    CHECK_EQ_INT(spec.streams[1].first_tick_ns, 1790000000037500000LL);
    CHECK_EQ_INT(spec.streams[0].batches.size(), 2);
    CHECK_EQ_INT(spec.streams[1].batches.size(), 1);
    const heartbeat_load::WireBatch &first = spec.streams[0].batches[0];
    CHECK_EQ_INT(first.heartbeats, 2);
    CHECK_EQ_INT(first.quiet.bytes.size(), 22);
    CHECK_MEM(first.quiet.bytes.data(), "\x0a\x00\x81\x82\x83\x84\x85\x86\x87\x88\x09\x1a\x00", 13);
    CHECK_EQ_INT(first.quiet.offsets.size(), 2);
    CHECK_EQ_INT(first.quiet.offsets[0], 2);
    CHECK_EQ_INT(first.quiet.offsets[1], 13);
    CHECK(first.has_troubled);
    CHECK_EQ_INT(first.troubled.bytes[1], 1);
    CHECK_EQ_INT(first.windows.size(), 2);
    CHECK_EQ_INT(first.windows[0].from_ns, 1790000001000000000LL);
    CHECK_EQ_INT(first.windows[1].to_ns, 1790000004000000000LL);
    CHECK_EQ_INT(first.sequence, 0);
    CHECK(!spec.streams[0].batches[1].has_troubled);
    CHECK(spec.streams[0].batches[1].windows.empty());
    // Upper-case hex is hex too.
    LoadSpec again;
    const std::string mixed = kHead + "stream 1790000000012500000\nbatch 2 0A00818283848586878809"
                                      "1A00818283848586878809 2,13\n";
    CHECK(parse(mixed, &again, &error));
    CHECK_EQ_INT(static_cast<uint8_t>(again.streams[0].batches[0].quiet.bytes[11]), 0x1a);
}

// `text` is refused, the error naming `line` and saying `what`.
void refused(const std::string &text, int line, const std::string &what) {
    LoadSpec spec;
    std::string error;
    const bool ok = parse(text, &spec, &error);
    const std::string prefix = "load.spec:" + std::to_string(line) + ": ";
    if (ok || error.rfind(prefix, 0) != 0 || error.find(what) == std::string::npos) {
        std::fprintf(stderr, "want '%s...%s', got %s '%s'\n", prefix.c_str(), what.c_str(), ok ? "ok" : "error",
                     error.c_str());
        CHECK(false);
    }
}

void bad_specs() {
    const std::string stream = "stream 1790000000012500000\n";
    const std::string batch = "batch 2 " + kBody + " 2,13\n";
    refused("", 0, "empty spec");
    refused("target 127.0.0.1:1\n", 1, "expected the header");
    refused("e3-heartbeat-load 2\n", 1, "expected the header");
    refused(kHead + "bogus 1\n", 6, "unknown record 'bogus'");
    refused(kHead + stream + "batch 2 " + kBody.substr(1) + " 2,13\n", 7, "bad hex body");
    refused(kHead + stream + "batch 2 " + "zz" + kBody + " 2,13\n", 7, "bad hex body");
    refused(kHead + stream + "batch 2 " + kBody + " 2,14\n", 7, "offset 14: offset+9 is past the body's end");
    refused(kHead + stream + "batch 2 " + kBody + " 2,3\n", 7, "offset 3: no 9-byte varint there");
    refused(kHead + stream + "batch 2 " + kBody + " 2,x\n", 7, "offset 'x'");
    refused(kHead + stream + "batch 3 " + kBody + " 2,13\n", 7, "2 offsets for 3 heartbeats");
    refused(kHead + stream + "batch 2 " + kBody + "\n", 7, "expected 'batch HEARTBEATS HEX_BODY O1,O2,...'");
    refused(kHead + batch, 6, "batch before any stream");
    refused(kHead + stream + batch + "troubled " + kBody + " 2\n", 8, "1 offsets for 2 heartbeats");
    refused(kHead + stream + "troubled " + kBody + " 2,13\n", 7, "troubled not right after a batch");
    refused(kHead + stream + batch + "window 1 2\n", 8, "window not after a troubled record");
    refused(kHead + stream + batch + "troubled " + kBody + " 2,13\nwindow 5 4\n", 9, "window ends before it starts");
    refused(kHead + stream + batch + "troubled " + kBody + " 2,13\ntroubled " + kBody + " 2,13\n", 9,
            "troubled not right after a batch");
    refused("e3-heartbeat-load 1\ntoken t\nperiod_ns 1\nend_unix_ns 2\n" + stream + batch, 6, "no 'target' record");
    refused("e3-heartbeat-load 1\ntarget a:1\ntoken t\nperiod_ns 1\n" + stream + batch, 6, "no 'end_unix_ns'");
    refused(kHead, 5, "no stream");
    refused(kHead + "target 127.0.0.1:2\n", 6, "a second 'target' record");
    refused(kHead + stream + "stream 1790000000013500000\n" + batch, 6, "stream without a batch");
    refused(kHead + stream + batch + stream, 8, "stream without a batch");
    refused(kHead + "stream soon\n", 6, "stream soon: expected a positive integer");
    refused("e3-heartbeat-load 1\nperiod_ns -5\n", 2, "period_ns -5: expected a positive integer");
    refused("e3-heartbeat-load 1\nperiod_ns 0\n", 2, "period_ns 0: expected a positive integer");
    refused("e3-heartbeat-load 1\nend_unix_ns 99999999999999999999\n", 2, "expected a positive integer");
    refused(kHead + stream + "batch  2 " + kBody + " 2,13\n", 7, "empty field");
    refused(kHead + "\n" + stream + batch, 6, "empty line");
    refused(kHead + "token\n", 6, "expected 'token TOKEN'");
}

} // namespace

int main() {
    good_spec();
    bad_specs();
    std::puts("test_load_spec: ok");
    return 0;
}
