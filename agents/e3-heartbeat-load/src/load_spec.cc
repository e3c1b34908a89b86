// SPDX-License-Identifier: Apache-2.0
//
// The spec file's parser (load_spec.h): strict, each mistake named with its line.
#include "load_spec.h"

#include <cstddef>
#include <utility>

namespace heartbeat_load {
namespace {

constexpr const char kHeader[] = "e3-heartbeat-load 1";

std::vector<std::string> fields_of(const std::string &line) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
        const size_t space = line.find(' ', start);
        fields.push_back(line.substr(start, space == std::string::npos ? std::string::npos : space - start));
        if (space == std::string::npos) return fields;
        start = space + 1;
    }
}

// A non-negative decimal integer that fits in int64_t, digits only.
bool parse_int(const std::string &text, int64_t *out) {
    if (text.empty() || text.size() > 19) return false;
    uint64_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (value > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(value);
    return true;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool parse_hex(const std::string &text, std::string *out) {
    if (text.empty() || text.size() % 2 != 0) return false;
    out->resize(text.size() / 2);
    for (size_t k = 0; k < out->size(); ++k) {
        const int high = hex_digit(text[2 * k]), low = hex_digit(text[2 * k + 1]);
        if (high < 0 || low < 0) return false;
        (*out)[k] = static_cast<char>(high << 4 | low);
    }
    return true;
}

class Parser {
public:
    Parser(const std::string &name, LoadSpec *out, std::string *error) : name_(name), out_(out), error_(error) {}

    bool line(const std::string &text) {
        ++line_;
        if (line_ == 1) return text == kHeader || fail("expected the header '" + std::string(kHeader) + "'");
        if (text.empty()) return fail("empty line");
        const std::vector<std::string> fields = fields_of(text);
        for (const std::string &field : fields)
            if (field.empty()) return fail("empty field (fields are separated by one space)");
        const std::string &record = fields[0];
        if (record == "target" || record == "token") return text_setting(fields);
        if (record == "period_ns" || record == "end_unix_ns") return number_setting(fields);
        if (record == "stream") return stream(fields);
        if (record == "batch") return batch(fields);
        if (record == "troubled") return troubled(fields);
        if (record == "window") return window(fields);
        return fail("unknown record '" + record + "'");
    }

    bool end() {
        if (line_ == 0) return fail("empty spec (expected the header '" + std::string(kHeader) + "')");
        if (!stream_done()) return false;
        for (const char *record : {"target", "token", "period_ns", "end_unix_ns"})
            if (!seen(record)) return fail(std::string("no '") + record + "' record");
        if (out_->streams.empty()) return fail("no stream");
        return true;
    }

private:
    enum class Last { other, batch, troubled, window };

    bool fail(const std::string &what) {
        *error_ = name_ + ":" + std::to_string(line_) + ": " + what;
        return false;
    }

    bool arity(const std::vector<std::string> &fields, size_t values, const char *form) {
        return fields.size() == values + 1 || fail("expected '" + std::string(form) + "'");
    }

    bool seen(const std::string &record) {
        for (const std::string &done : settings_)
            if (done == record) return true;
        return false;
    }

    bool once(const std::string &record) {
        if (seen(record)) return fail("a second '" + record + "' record");
        settings_.push_back(record);
        last_ = Last::other;
        return true;
    }

    bool text_setting(const std::vector<std::string> &fields) {
        const bool target = fields[0] == "target";
        if (!arity(fields, 1, target ? "target HOST:PORT" : "token TOKEN") || !once(fields[0])) return false;
        (target ? out_->target : out_->token) = fields[1];
        return true;
    }

    bool number_setting(const std::vector<std::string> &fields) {
        const bool period = fields[0] == "period_ns";
        if (!arity(fields, 1, period ? "period_ns NS" : "end_unix_ns NS") || !once(fields[0])) return false;
        int64_t value = 0;
        if (!parse_int(fields[1], &value) || value == 0)
            return fail(fields[0] + " " + fields[1] + ": expected a positive integer");
        (period ? out_->period_ns : out_->end_unix_ns) = value;
        return true;
    }

    // The stream before this line has at least one batch.
    bool stream_done() {
        if (!out_->streams.empty() && out_->streams.back().batches.empty()) {
            line_ = stream_line_;
            return fail("stream without a batch");
        }
        return true;
    }

    bool stream(const std::vector<std::string> &fields) {
        if (!arity(fields, 1, "stream FIRST_TICK_UNIX_NS") || !stream_done()) return false;
        StreamSpec spec;
        if (!parse_int(fields[1], &spec.first_tick_ns) || spec.first_tick_ns == 0)
            return fail("stream " + fields[1] + ": expected a positive integer (wall clock, ns)");
        out_->streams.push_back(std::move(spec));
        stream_line_ = line_;
        last_ = Last::other;
        return true;
    }

    // A body and its offsets (hex, o1,o2,...): `heartbeats` offsets, each at a 9-byte varint inside it.
    bool body(const std::string &hex, const std::string &offsets, int heartbeats, WireBody *out) {
        if (!parse_hex(hex, &out->bytes)) return fail("bad hex body");
        for (const std::string &item : split_commas(offsets)) {
            int64_t offset = 0;
            if (!parse_int(item, &offset)) return fail("offset '" + item + "': expected a non-negative integer");
            const size_t at = static_cast<size_t>(offset);
            if (out->bytes.size() < kTimestampBytes || at > out->bytes.size() - kTimestampBytes)
                return fail("offset " + item + ": offset+9 is past the body's end (" +
                            std::to_string(out->bytes.size()) + " bytes)");
            if (!timestamp_varint_at(out->bytes, at)) return fail("offset " + item + ": no 9-byte varint there");
            out->offsets.push_back(at);
        }
        if (out->offsets.size() != static_cast<size_t>(heartbeats))
            return fail(std::to_string(out->offsets.size()) + " offsets for " + std::to_string(heartbeats) +
                        " heartbeats");
        return true;
    }

    static std::vector<std::string> split_commas(const std::string &text) {
        std::vector<std::string> items;
        size_t start = 0;
        for (;;) {
            const size_t comma = text.find(',', start);
            items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            if (comma == std::string::npos) return items;
            start = comma + 1;
        }
    }

    bool batch(const std::vector<std::string> &fields) {
        if (!arity(fields, 3, "batch HEARTBEATS HEX_BODY O1,O2,...")) return false;
        if (out_->streams.empty()) return fail("batch before any stream");
        int64_t heartbeats = 0;
        if (!parse_int(fields[1], &heartbeats) || heartbeats == 0 || heartbeats > 1000)
            return fail("batch of '" + fields[1] + "' heartbeats: expected 1 to 1000");
        WireBatch wire;
        wire.heartbeats = static_cast<int>(heartbeats);
        if (!body(fields[2], fields[3], wire.heartbeats, &wire.quiet)) return false;
        out_->streams.back().batches.push_back(std::move(wire));
        last_ = Last::batch;
        return true;
    }

    bool troubled(const std::vector<std::string> &fields) {
        if (!arity(fields, 2, "troubled HEX_BODY O1,O2,...")) return false;
        if (last_ != Last::batch) return fail("troubled not right after a batch");
        WireBatch &wire = out_->streams.back().batches.back();
        if (!body(fields[1], fields[2], wire.heartbeats, &wire.troubled)) return false;
        wire.has_troubled = true;
        last_ = Last::troubled;
        return true;
    }

    bool window(const std::vector<std::string> &fields) {
        if (!arity(fields, 2, "window FROM_UNIX_NS TO_UNIX_NS")) return false;
        if (last_ != Last::troubled && last_ != Last::window) return fail("window not after a troubled record");
        Window window;
        if (!parse_int(fields[1], &window.from_ns) || !parse_int(fields[2], &window.to_ns))
            return fail("window " + fields[1] + " " + fields[2] + ": expected two integers (wall clock, ns)");
        if (window.to_ns < window.from_ns) return fail("window ends before it starts");
        out_->streams.back().batches.back().windows.push_back(window);
        last_ = Last::window;
        return true;
    }

    const std::string &name_;
    LoadSpec *out_;
    std::string *error_;
    int line_ = 0;
    int stream_line_ = 0;
    Last last_ = Last::other;
    std::vector<std::string> settings_;
};

} // namespace

bool parse_load_spec(const std::string &text, const std::string &name, LoadSpec *out, std::string *error) {
    *out = LoadSpec();
    Parser parser(name, out, error);
    size_t start = 0;
    while (start < text.size()) {
        const size_t newline = text.find('\n', start);
        const size_t stop = newline == std::string::npos ? text.size() : newline;
        if (!parser.line(text.substr(start, stop - start))) return false;
        start = stop + 1;
    }
    return parser.end();
}

} // namespace heartbeat_load
