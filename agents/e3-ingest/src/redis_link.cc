// SPDX-License-Identifier: Apache-2.0
//
// The front's writer of the live state to Redis (see redis_link.h): its configuration from the environment, the
// reply counting, and its thread over a non-blocking socket (poll, in slices short enough to notice a stop).
#include "redis_link.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace ingest {
namespace {

constexpr auto kIdleWait = std::chrono::milliseconds(5);         // the longest the loop waits for items
// Writes start at least this far apart: each node's latest item is one HSET field a write, so back-to-back small
// writes under load made Redis set every heartbeat (its CPU doubled, 11 -> 20% of a core at 85,000/s) for a lag
// gain of a few ms.
constexpr auto kWriteEvery = std::chrono::milliseconds(20);
constexpr auto kRetryAfter = std::chrono::seconds(1);            // LivePublisher's retry_s
constexpr auto kConnectTimeout = std::chrono::seconds(2);        // the connection and its AUTH / SELECT
constexpr auto kReplyTimeout = std::chrono::seconds(10);         // a write's replies
constexpr auto kStopGrace = std::chrono::seconds(1);             // the last write, once stopping
constexpr auto kPollSlice = std::chrono::milliseconds(100);      // a stop is noticed within this
constexpr auto kRefusalLogEvery = std::chrono::seconds(1);       // Redis's error replies logged at most this often

const char *value_of(const EnvLookup &env, const char *name) {
    const char *value = env(name);
    return value != nullptr && value[0] != '\0' ? value : nullptr;
}

// A whole decimal number from `min` to `max`.
bool parse_number(const char *text, long min, long max, long *out) {
    const char *end = text + std::strlen(text);
    long value = 0;
    const std::from_chars_result parsed = std::from_chars(text, end, value);
    if (parsed.ec != std::errc() || parsed.ptr != end || value < min || value > max) return false;
    *out = value;
    return true;
}

std::string os_error(const char *what) { return std::string(what) + ": " + std::strerror(errno); }

} // namespace

bool redis_config_from_env(const EnvLookup &env, RedisConfig *out, std::string *error) {
    *out = RedisConfig();
    const char *path = value_of(env, "E3_FRONT_REDIS_PATH"), *host = value_of(env, "E3_FRONT_REDIS_HOST");
    const char *port = value_of(env, "E3_FRONT_REDIS_PORT"), *username = value_of(env, "E3_FRONT_REDIS_USERNAME");
    const char *password = value_of(env, "E3_FRONT_REDIS_PASSWORD"), *db = value_of(env, "E3_FRONT_REDIS_DB");
    if (path != nullptr && host != nullptr) {
        *error = "E3_FRONT_REDIS_PATH and E3_FRONT_REDIS_HOST are both set: one Redis, by unix socket or by TCP";
        return false;
    }
    if (path == nullptr && host == nullptr) {
        const char *stray = port ? "E3_FRONT_REDIS_PORT" : username ? "E3_FRONT_REDIS_USERNAME" :
                            password ? "E3_FRONT_REDIS_PASSWORD" : db ? "E3_FRONT_REDIS_DB" : nullptr;
        if (stray == nullptr) return true; // the front writes no Redis
        *error = std::string(stray) + " is set without E3_FRONT_REDIS_PATH or E3_FRONT_REDIS_HOST";
        return false;
    }
    if (path != nullptr) {
        if (port != nullptr) {
            *error = "E3_FRONT_REDIS_PORT is set with E3_FRONT_REDIS_PATH (a unix socket has no port)";
            return false;
        }
        if (std::strlen(path) >= sizeof(sockaddr_un{}.sun_path)) {
            *error = "E3_FRONT_REDIS_PATH is longer than a unix socket's " +
                     std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " characters";
            return false;
        }
        out->path = path;
    } else {
        out->host = host;
        long number = 6379;
        if (port != nullptr && !parse_number(port, 1, 65535, &number)) {
            *error = std::string("E3_FRONT_REDIS_PORT is not a port (1 to 65535): '") + port + "'";
            return false;
        }
        out->port = static_cast<int>(number);
    }
    if (db != nullptr && !parse_number(db, 0, 1L << 30, &out->db)) {
        *error = std::string("E3_FRONT_REDIS_DB is not a database number (0 or more): '") + db + "'";
        return false;
    }
    if (username != nullptr) out->username = username;
    if (password != nullptr) out->password = password;
    out->enabled = true;
    return true;
}

std::string redis_target(const RedisConfig &config) {
    if (!config.path.empty()) return "unix:" + config.path;
    return (config.host.find(':') != std::string::npos ? "[" + config.host + "]" : config.host) + ":" +
           std::to_string(config.port);
}

std::string redis_command(std::initializer_list<std::string_view> args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (std::string_view arg : args) {
        out.append("$").append(std::to_string(arg.size())).append("\r\n");
        out.append(arg).append("\r\n");
    }
    return out;
}

// ---- replies ----------------------------------------------------------------------------------------------

void ReplyCounter::start(uint64_t replies) {
    expected_ = replies;
    lines_ = errors_ = 0;
    at_line_start_ = true;
    in_first_error_ = false;
    first_error_.clear();
}

void ReplyCounter::feed(const char *data, size_t size) {
    const char *const end = data + size;
    while (data < end) {
        if (at_line_start_ && *data == '-') {
            if (++errors_ == 1) in_first_error_ = true;
        }
        const char *newline = static_cast<const char *>(std::memchr(data, '\n', static_cast<size_t>(end - data)));
        const char *line_end = newline != nullptr ? newline : end;
        if (in_first_error_) {
            const char *cr = static_cast<const char *>(std::memchr(data, '\r', static_cast<size_t>(line_end - data)));
            const char *text_end = cr != nullptr ? cr : line_end;
            const size_t room = kMaxErrorText - first_error_.size();
            first_error_.append(data, std::min(room, static_cast<size_t>(text_end - data)));
            if (cr != nullptr || newline != nullptr) in_first_error_ = false;
        }
        if (newline == nullptr) {
            at_line_start_ = false;
            return;
        }
        ++lines_;
        at_line_start_ = true;
        data = newline + 1;
    }
}

// ---- the writer -------------------------------------------------------------------------------------------

RedisLink::RedisLink(RedisConfig config, LiveSource *source) : config_(std::move(config)), source_(source) {}

RedisLink::~RedisLink() { stop(); }

void RedisLink::start() { thread_ = std::thread(&RedisLink::run, this); }

void RedisLink::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!stopping_) stop_by_.store((Clock::now() + kStopGrace).time_since_epoch().count());
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void RedisLink::notify() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        news_ = true;
    }
    wake_.notify_one();
}

void RedisLink::run() {
    const std::string target = redis_target(config_);
    std::string commands, error;
    ReplyCounter replies;
    bool down = false;            // in an outage, logged at its start
    uint64_t dropped_in_outage = 0;
    Clock::time_point retry_at{}; // no connection tried before this
    if (!connect(&error)) {
        std::fprintf(stderr, "e3-ingest: cannot reach Redis at %s for the live state (%s); live updates are "
                             "dropped until it is reached (tried every 1 s)\n", target.c_str(), error.c_str());
        disconnect();
        down = true;
        retry_at = Clock::now() + kRetryAfter;
    }
    const auto take_replies = [&replies](const char *data, size_t size) {
        replies.feed(data, size);
        return replies.done();
    };
    while (true) {
        bool last;
        {
            std::lock_guard<std::mutex> lock(mu_);
            last = stopping_;
            news_ = false;
        }
        commands.clear();
        size_t items = 0;
        const Clock::time_point round_start = Clock::now();
        const uint32_t expected = source_->take_live(&commands, &items);
        if (items == 0) {
            if (last) break;
            std::unique_lock<std::mutex> lock(mu_);
            wake_.wait_for(lock, kIdleWait, [this] { return news_ || stopping_; });
            continue;
        }
        bool written = false;
        error = "Redis was unreachable moments ago";
        if (fd_ >= 0 || Clock::now() >= retry_at) {
            replies.start(expected);
            written = (fd_ >= 0 || connect(&error)) &&
                      converse(commands, take_replies, Clock::now() + kReplyTimeout, "no answer from Redis in 10 s",
                               &error);
            if (!written) retry_at = Clock::now() + kRetryAfter;
        }
        if (written) {
            sent_ += items;
            if (replies.errors() > 0) log_refusal(replies);
            if (down) {
                std::fprintf(stderr, "e3-ingest: Redis at %s is reached again; the live updates of %llu heartbeats "
                                     "were dropped meanwhile\n", target.c_str(),
                             static_cast<unsigned long long>(dropped_in_outage));
                down = false;
                dropped_in_outage = 0;
            }
        } else {
            disconnect();
            if (!down) {
                std::fprintf(stderr, "e3-ingest: writing the live state of %zu heartbeats to Redis at %s failed (%s); "
                                     "live updates are dropped until it is reached again (tried every 1 s)\n",
                             items, target.c_str(), error.c_str());
                down = true;
            }
            dropped_ += items;
            dropped_in_outage += items;
        }
        source_->live_done(items);
        if (last) break;
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait_until(lock, round_start + kWriteEvery, [this] { return stopping_; });
    }
    disconnect();
}

void RedisLink::log_refusal(const ReplyCounter &replies) {
    const Clock::time_point now = Clock::now();
    if (refusal_logged_ != Clock::time_point{} && now - refusal_logged_ < kRefusalLogEvery) return;
    refusal_logged_ = now;
    std::fprintf(stderr, "e3-ingest: Redis refused live-state commands (%s)\n", replies.first_error().c_str());
}

bool RedisLink::connect(std::string *error) {
    const Clock::time_point deadline = Clock::now() + kConnectTimeout;
    if (!config_.path.empty()) {
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd_ < 0) {
            *error = os_error("socket");
            return false;
        }
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, config_.path.c_str(), config_.path.size() + 1); // checked: it fits
        if (::connect(fd_, reinterpret_cast<const sockaddr *>(&address), sizeof(address)) != 0) {
            *error = os_error("connect");
            disconnect();
            return false;
        }
    } else if (!connect_tcp(deadline, error)) {
        return false;
    }
    std::string hello;
    size_t lines = 0;
    if (!config_.password.empty()) {
        hello += config_.username.empty() ? redis_command({"AUTH", config_.password})
                                          : redis_command({"AUTH", config_.username, config_.password});
        ++lines;
    }
    if (config_.db != 0) {
        hello += redis_command({"SELECT", std::to_string(config_.db)});
        ++lines;
    }
    if (lines == 0) return true;
    std::string answer;
    const auto take_lines = [&](const char *data, size_t size) {
        answer.append(data, size);
        return static_cast<size_t>(std::count(answer.begin(), answer.end(), '\n')) >= lines;
    };
    if (!converse(hello, take_lines, deadline, "no answer from Redis to AUTH / SELECT in 2 s", error)) {
        disconnect();
        return false;
    }
    for (size_t at = 0; at < answer.size();) { // each "+OK"; LivePublisher._connect's check
        const size_t end = answer.find('\n', at);
        if (answer[at] != '+') {
            const std::string line = answer.substr(at, std::min<size_t>(end - at, 200));
            *error = "Redis refused the connection setup: " + line.substr(0, line.find('\r'));
            disconnect();
            return false;
        }
        at = end == std::string::npos ? answer.size() : end + 1;
    }
    return true;
}

bool RedisLink::connect_tcp(Clock::time_point deadline, std::string *error) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const int rc = ::getaddrinfo(config_.host.c_str(), std::to_string(config_.port).c_str(), &hints, &found);
    if (rc != 0) {
        *error = std::string("cannot resolve ") + config_.host + ": " + ::gai_strerror(rc);
        return false;
    }
    *error = "no address";
    for (const addrinfo *at = found; at != nullptr; at = at->ai_next) {
        fd_ = ::socket(at->ai_family, at->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, at->ai_protocol);
        if (fd_ < 0) {
            *error = os_error("socket");
            continue;
        }
        if (::connect(fd_, at->ai_addr, at->ai_addrlen) != 0) {
            short revents = 0;
            if (errno != EINPROGRESS) {
                *error = os_error("connect");
                disconnect();
                continue;
            }
            if (!wait_io(POLLOUT, deadline, "no connection in 2 s", &revents, error)) {
                disconnect();
                continue;
            }
            int failure = 0;
            socklen_t size = sizeof(failure);
            if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &failure, &size) != 0 || failure != 0) {
                errno = failure != 0 ? failure : errno;
                *error = os_error("connect");
                disconnect();
                continue;
            }
        }
        const int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        break;
    }
    ::freeaddrinfo(found);
    return fd_ >= 0;
}

void RedisLink::disconnect() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

bool RedisLink::converse(const std::string &out, const std::function<bool(const char *, size_t)> &in,
                         Clock::time_point deadline, const char *late, std::string *error) {
    char chunk[1 << 16];
    size_t at = 0;
    bool done = false;
    while (!done) {
        short revents = 0;
        if (!wait_io(at < out.size() ? POLLIN | POLLOUT : POLLIN, deadline, late, &revents, error)) return false;
        if (at < out.size() && (revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
            const ssize_t n = ::send(fd_, out.data() + at, out.size() - at, MSG_NOSIGNAL);
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                *error = os_error("write");
                return false;
            }
            if (n > 0) at += static_cast<size_t>(n);
        }
        if ((revents & (POLLIN | POLLERR | POLLHUP)) != 0) {
            const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
            if (n == 0) {
                *error = "Redis closed the connection";
                return false;
            }
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                *error = os_error("read");
                return false;
            }
            if (n > 0) done = in(chunk, static_cast<size_t>(n)) && at == out.size();
        }
    }
    return true;
}

bool RedisLink::wait_io(short events, Clock::time_point deadline, const char *late, short *revents,
                        std::string *error) {
    while (true) {
        const Clock::time_point stop_by{Clock::duration(stop_by_.load())};
        const Clock::time_point by = std::min(deadline, stop_by);
        const Clock::time_point now = Clock::now();
        if (now >= by) {
            *error = by == stop_by ? "the front is stopping" : late;
            return false;
        }
        const auto slice = std::min<Clock::duration>(by - now, kPollSlice);
        pollfd watched{fd_, events, 0};
        const int ready = ::poll(&watched, 1,
                                 static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
        if (ready < 0 && errno != EINTR) {
            *error = os_error("poll");
            return false;
        }
        if (ready > 0) {
            *revents = watched.revents;
            return true;
        }
    }
}

} // namespace ingest
