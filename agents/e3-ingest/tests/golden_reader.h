// SPDX-License-Identifier: Apache-2.0
//
// What the golden tests of e3-ingest read their fixtures with (tests/golden/, written by the Python generators
// named in each test): a small JSON reader, enough for the fixtures (numbers kept as their text, read as
// asked: exactly as integers, or by strtod, which rounds correctly, so Python's repr reads back to the same
// double), and hex to bytes (serialized protobuf messages).
#ifndef E3_INGEST_TESTS_GOLDEN_READER_H
#define E3_INGEST_TESTS_GOLDEN_READER_H

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace golden {

struct Json {
    enum Kind { null, boolean, number, string, array, object } kind = null;
    bool flag = false;
    std::string text; // a number's literal or a string's value
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> members;

    const Json &operator[](const std::string &key) const {
        for (const auto &[name, value] : members)
            if (name == key) return value;
        throw std::runtime_error("no member \"" + key + "\"");
    }
    const Json &operator[](size_t i) const { return items.at(i); }
    size_t size() const { return kind == array ? items.size() : members.size(); }
    const std::string &str() const {
        if (kind != string) throw std::runtime_error("not a string");
        return text;
    }
    int64_t integer() const {
        char *end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (kind != number || errno != 0 || *end != '\0') throw std::runtime_error("not an int64: " + text);
        return v;
    }
    uint64_t uint64() const {
        char *end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
        if (kind != number || errno != 0 || *end != '\0' || text[0] == '-')
            throw std::runtime_error("not a uint64: " + text);
        return v;
    }
    bool is_null() const { return kind == null; }
    double real() const { // strtod rounds correctly, so Python's repr reads back to the same double
        if (kind != number) throw std::runtime_error("not a number");
        if (text == "Infinity") return INFINITY;
        if (text == "-Infinity") return -INFINITY;
        if (text == "NaN") return NAN;
        return std::strtod(text.c_str(), nullptr);
    }
};

class Parser {
public:
    explicit Parser(const std::string &s) : s_(s) {}

    Json document() {
        Json v = value();
        space();
        if (at_ != s_.size()) fail("trailing text");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string &what) const {
        throw std::runtime_error("fixture: " + what + " at byte " + std::to_string(at_));
    }
    void space() {
        while (at_ < s_.size() && std::strchr(" \t\r\n", s_[at_]) != nullptr) ++at_;
    }
    bool take(const char *word) {
        const size_t n = std::strlen(word);
        if (s_.compare(at_, n, word) != 0) return false;
        at_ += n;
        return true;
    }
    void expect(char c) {
        space();
        if (at_ >= s_.size() || s_[at_] != c) fail(std::string("expected '") + c + "'");
        ++at_;
    }

    Json value() {
        space();
        if (at_ >= s_.size()) fail("unexpected end");
        Json v;
        const char c = s_[at_];
        if (c == '{') {
            v.kind = Json::object;
            ++at_;
            space();
            if (s_[at_] == '}') return ++at_, v;
            for (;;) {
                space();
                std::string key = string_text();
                expect(':');
                v.members.emplace_back(std::move(key), value());
                space();
                if (s_[at_] == '}') return ++at_, v;
                expect(',');
            }
        }
        if (c == '[') {
            v.kind = Json::array;
            ++at_;
            space();
            if (s_[at_] == ']') return ++at_, v;
            for (;;) {
                v.items.push_back(value());
                space();
                if (s_[at_] == ']') return ++at_, v;
                expect(',');
            }
        }
        if (c == '"') {
            v.kind = Json::string;
            v.text = string_text();
            return v;
        }
        if (take("true") || take("false")) {
            v.kind = Json::boolean;
            v.flag = s_[at_ - 1] == 'e' && s_[at_ - 2] == 'u';
            return v;
        }
        if (take("null")) return v;
        const size_t begin = at_; // a number, or Python's Infinity / -Infinity / NaN
        if (take("-Infinity") || take("Infinity") || take("NaN")) {
        } else {
            while (at_ < s_.size() && std::strchr("+-0123456789.eE", s_[at_]) != nullptr) ++at_;
        }
        if (at_ == begin) fail("unexpected character");
        v.kind = Json::number;
        v.text = s_.substr(begin, at_ - begin);
        return v;
    }

    unsigned hex4() {
        if (at_ + 4 > s_.size()) fail("short \\u escape");
        const unsigned v = static_cast<unsigned>(std::stoul(s_.substr(at_, 4), nullptr, 16));
        at_ += 4;
        return v;
    }

    std::string string_text() {
        if (s_[at_] != '"') fail("expected a string");
        ++at_;
        std::string out;
        for (;;) {
            if (at_ >= s_.size()) fail("unterminated string");
            const char c = s_[at_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            const char e = s_[at_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && take("\\u")) // a surrogate pair
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
                utf8(cp, out);
                break;
            }
            default: fail("bad escape");
            }
        }
    }

    static void utf8(unsigned cp, std::string &out) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    const std::string &s_;
    size_t at_ = 0;
};

inline bool unhex(const std::string &hex, std::string *out) {
    if (hex.size() % 2 != 0) return false;
    out->clear();
    for (size_t i = 0; i < hex.size(); i += 2) {
        int byte = 0;
        for (size_t j = i; j < i + 2; ++j) {
            const char c = hex[j];
            const int nibble = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (nibble < 0) return false;
            byte = byte * 16 + nibble;
        }
        out->push_back(static_cast<char>(byte));
    }
    return true;
}

// The fixture named by the test's one argument (`fixture`: its path in the usage), read whole into `text`;
// false, with the usage or the reason printed, when it cannot be (the test then exits 2).
inline bool read_fixture(int argc, char **argv, const char *fixture, std::string *text) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s %s\n", argv[0], fixture);
        return false;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return false;
    }
    std::stringstream read;
    read << in.rdbuf();
    *text = read.str();
    return true;
}

} // namespace golden

#endif
