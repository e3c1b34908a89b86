// SPDX-License-Identifier: Apache-2.0
//
// The front's own connection to Redis, for the live state (live_commands.h's commands: HSET e3:latest:<cluster>
// and PUBLISH e3:live), so that it reaches Redis without waiting for the Python controller's loop. As
// backend/e3/controller/live_publisher.py does it: one connection (unix socket or TCP, TCP_NODELAY), AUTH
// [username] password and SELECT db when asked; the commands written whole, the replies read by counting lines
// (every reply to HSET and PUBLISH is one line; an error line is logged); if Redis cannot be reached, what was
// taken is dropped (counted) and the connection tried again after 1 s: the live view lags, the database copy is
// what counts. Where it is: E3_FRONT_REDIS_* in the environment (not the command line: a password must not show in
// `ps`); none of them, and the front writes no Redis (the controller does, from the commands in its deliveries).
#ifndef E3_INGEST_REDIS_LINK_H
#define E3_INGEST_REDIS_LINK_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace ingest {

// Where the front writes the live state, and as whom.
struct RedisConfig {
    bool enabled = false;  // false: no E3_FRONT_REDIS_* set, the front writes no Redis
    std::string path;      // a unix socket ("": TCP to host:port)
    std::string host;
    int port = 6379;
    std::string username;  // AUTH's, with the password ("": AUTH <password> alone)
    std::string password;  // "": no AUTH
    long db = 0;           // SELECT'ed when not 0
};

// The environment's value of a name (null: unset), as getenv.
using EnvLookup = std::function<const char *(const char *)>;

// The configuration from E3_FRONT_REDIS_PATH (a unix socket) or E3_FRONT_REDIS_HOST with E3_FRONT_REDIS_PORT (1 to
// 65535; 6379 if unset), and E3_FRONT_REDIS_USERNAME, E3_FRONT_REDIS_PASSWORD, E3_FRONT_REDIS_DB (0 or more; 0 if
// unset). An empty value counts as unset. None set: true, `out` disabled. False with a one-line reason naming the
// variable in `error` for: both PATH and HOST, a bad PORT or DB, or any of the others without PATH or HOST.
bool redis_config_from_env(const EnvLookup &env, RedisConfig *out, std::string *error);

// "unix:<path>" or "<host>:<port>", for messages (never the password).
std::string redis_target(const RedisConfig &config);

// One Redis command in the Redis protocol: an array of bulk strings.
std::string redis_command(std::initializer_list<std::string_view> args);

// The replies to a write of commands counted as they come, in chunks cut anywhere: every reply to HSET, PUBLISH,
// AUTH and SELECT is one line (":<n>", "+OK", or "-<error>"), so a reply is a "\n"; an error is a line starting
// with "-", of which the first is kept (from its "-" to its "\r", at most kMaxErrorText characters).
class ReplyCounter {
public:
    static constexpr size_t kMaxErrorText = 200;

    // Expects `replies` replies, forgetting what came before.
    void start(uint64_t replies);
    void feed(const char *data, size_t size);
    bool done() const { return lines_ >= expected_; }
    uint64_t errors() const { return errors_; }
    const std::string &first_error() const { return first_error_; }

private:
    uint64_t expected_ = 0, lines_ = 0, errors_ = 0;
    bool at_line_start_ = true;
    bool in_first_error_ = false; // the first error line is being read
    std::string first_error_;
};

// Where the live commands come from (the front's pending delivery, under its link's lock) and go back to.
class LiveSource {
public:
    virtual ~LiveSource() = default;
    // The live commands built since the previous call, appended to `commands`, with their items' count in `items`;
    // returns how many replies Redis gives them (0 without items).
    virtual uint32_t take_live(std::string *commands, size_t *items) = 0;
    // `items` of a take are done with: written, or dropped.
    virtual void live_done(size_t items) = 0;
};

// The writer: a thread of its own with one connection. Its loop takes the live commands from `source`, writes
// them (every byte, however many writes that takes) and reads their replies, then takes again; with nothing to
// take it waits for notify() (at most 5 ms). A connection error, or no answer within 10 s, ends the connection:
// logged once an outage (and once again when Redis is reached again, with what was dropped); what was taken is
// dropped, as what is taken until the connection is tried again, 1 s later. It connects once at start() too, so
// that a Redis out of reach shows in the log at once.
class RedisLink {
public:
    RedisLink(RedisConfig config, LiveSource *source);
    ~RedisLink(); // stop()
    RedisLink(const RedisLink &) = delete;
    RedisLink &operator=(const RedisLink &) = delete;

    void start();
    // What is left is taken and written once more (within 1 s, best effort), then the thread ends. Idempotent.
    void stop();
    // Items came: the loop takes them now rather than at its next look.
    void notify();

    uint64_t sent() const { return sent_.load(); }       // items written
    uint64_t dropped() const { return dropped_.load(); } // items dropped (Redis out of reach)

private:
    using Clock = std::chrono::steady_clock;

    void run();
    bool connect(std::string *error);
    bool connect_tcp(Clock::time_point deadline, std::string *error);
    void disconnect();
    // Writes `out` whole while handing what comes back to `in` (true: all it waits for came), until `in` has it;
    // false with `error` on a connection error, or when `deadline` (or the stop's) passes (`late`: what to say).
    bool converse(const std::string &out, const std::function<bool(const char *, size_t)> &in,
                  Clock::time_point deadline, const char *late, std::string *error);
    // Waits for `events` on the connection; false at the deadline (or the stop's) or on a poll error.
    bool wait_io(short events, Clock::time_point deadline, const char *late, short *revents, std::string *error);
    void log_refusal(const ReplyCounter &replies);

    const RedisConfig config_;
    LiveSource *const source_;
    int fd_ = -1; // the loop's thread's only
    Clock::time_point refusal_logged_{};

    std::mutex mu_;
    std::condition_variable wake_;
    bool news_ = false, stopping_ = false;
    std::atomic<Clock::rep> stop_by_{Clock::time_point::max().time_since_epoch().count()};
    std::atomic<uint64_t> sent_{0}, dropped_{0};
    std::thread thread_;
};

} // namespace ingest

#endif
