// SPDX-License-Identifier: Apache-2.0
//
// The front's Redis writer (src/redis_link.cc): its configuration from E3_FRONT_REDIS_* (none: off; unix; TCP with
// its default port; a bad port, database or combination refused with the variable named); a command's bytes; the
// replies counted by lines across chunks cut anywhere, the first error line kept; and the writer itself against a
// unix socket answering as Redis would (AUTH and SELECT first, then the commands written whole, the replies read),
// and against none (what it took dropped and counted, done with all the same).
#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "redis_link.h"

namespace {

bool config(const std::map<std::string, std::string> &env, ingest::RedisConfig *out, std::string *error) {
    return ingest::redis_config_from_env(
        [&env](const char *name) {
            const auto found = env.find(name);
            return found == env.end() ? static_cast<const char *>(nullptr) : found->second.c_str();
        },
        out, error);
}

bool refused(const std::map<std::string, std::string> &env, const char *naming) {
    ingest::RedisConfig out;
    std::string error;
    return !config(env, &out, &error) && error.find(naming) != std::string::npos;
}

void configuration() {
    ingest::RedisConfig out;
    std::string error;
    CHECK(config({}, &out, &error) && !out.enabled);
    CHECK(config({{"E3_FRONT_REDIS_HOST", ""}}, &out, &error) && !out.enabled); // empty: unset

    CHECK(config({{"E3_FRONT_REDIS_PATH", "/run/redis.sock"}, {"E3_FRONT_REDIS_PASSWORD", "pw"}}, &out, &error));
    CHECK(out.enabled && out.path == "/run/redis.sock" && out.host.empty() && out.password == "pw" && out.db == 0);
    CHECK(ingest::redis_target(out) == "unix:/run/redis.sock");

    CHECK(config({{"E3_FRONT_REDIS_HOST", "127.0.0.1"}}, &out, &error));
    CHECK(out.enabled && out.path.empty() && out.host == "127.0.0.1" && out.port == 6379 && out.password.empty());
    CHECK(config({{"E3_FRONT_REDIS_HOST", "::1"}, {"E3_FRONT_REDIS_PORT", "6380"}, {"E3_FRONT_REDIS_USERNAME", "u"},
                  {"E3_FRONT_REDIS_PASSWORD", "p"}, {"E3_FRONT_REDIS_DB", "3"}}, &out, &error));
    CHECK(out.port == 6380 && out.username == "u" && out.password == "p" && out.db == 3);
    CHECK(ingest::redis_target(out) == "[::1]:6380");

    CHECK(refused({{"E3_FRONT_REDIS_HOST", "h"}, {"E3_FRONT_REDIS_PORT", "x"}}, "E3_FRONT_REDIS_PORT is not a port"));
    CHECK(refused({{"E3_FRONT_REDIS_HOST", "h"}, {"E3_FRONT_REDIS_PORT", "0"}}, "E3_FRONT_REDIS_PORT"));
    CHECK(refused({{"E3_FRONT_REDIS_HOST", "h"}, {"E3_FRONT_REDIS_PORT", "65536"}}, "E3_FRONT_REDIS_PORT"));
    CHECK(refused({{"E3_FRONT_REDIS_HOST", "h"}, {"E3_FRONT_REDIS_PORT", "80 "}}, "E3_FRONT_REDIS_PORT"));
    CHECK(refused({{"E3_FRONT_REDIS_HOST", "h"}, {"E3_FRONT_REDIS_DB", "-1"}}, "E3_FRONT_REDIS_DB"));
    CHECK(refused({{"E3_FRONT_REDIS_HOST", "h"}, {"E3_FRONT_REDIS_PATH", "/p"}}, "both set"));
    CHECK(refused({{"E3_FRONT_REDIS_PATH", "/p"}, {"E3_FRONT_REDIS_PORT", "1"}}, "E3_FRONT_REDIS_PORT"));
    CHECK(refused({{"E3_FRONT_REDIS_PASSWORD", "p"}}, "E3_FRONT_REDIS_PASSWORD is set without"));
    CHECK(refused({{"E3_FRONT_REDIS_PATH", std::string(200, 'p')}}, "longer than"));
}

void commands() {
    CHECK(ingest::redis_command({"AUTH", "user", "pw"}) == "*3\r\n$4\r\nAUTH\r\n$4\r\nuser\r\n$2\r\npw\r\n");
    CHECK(ingest::redis_command({"SELECT", "12"}) == "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n");
}

void feed(ingest::ReplyCounter *counter, const std::string &text) { counter->feed(text.data(), text.size()); }

void replies() {
    ingest::ReplyCounter counter;
    counter.start(3);
    CHECK(!counter.done());
    feed(&counter, ":1");
    feed(&counter, "\r");
    CHECK(!counter.done());
    feed(&counter, "\n-");                   // an error line starting at the chunk's end
    CHECK(counter.errors() == 1 && !counter.done());
    feed(&counter, "WRONGTYPE Operation ag");
    feed(&counter, "ainst a key\r\n-ERR second\r");
    CHECK(counter.errors() == 2 && !counter.done());
    feed(&counter, "\n");
    CHECK(counter.done() && counter.first_error() == "-WRONGTYPE Operation against a key");

    counter.start(2); // starts over
    CHECK(!counter.done() && counter.errors() == 0 && counter.first_error().empty());
    feed(&counter, ":12\r\n:-1\r\n"); // a negative integer is no error: only a line's first byte counts
    CHECK(counter.done() && counter.errors() == 0);

    counter.start(1);
    feed(&counter, "-" + std::string(300, 'e') + "\r\n"); // the first error's text kept to 200 characters
    CHECK(counter.done() && counter.first_error().size() == ingest::ReplyCounter::kMaxErrorText);
}

// Hands `commands` (of `items` items, `replies` replies) once, then nothing.
class Source : public ingest::LiveSource {
public:
    Source(std::string commands, size_t items, uint32_t replies)
        : commands_(std::move(commands)), items_(items), replies_(replies) {}
    uint32_t take_live(std::string *commands, size_t *items) override {
        if (taken_.exchange(true)) {
            *items = 0;
            return 0;
        }
        commands->append(commands_);
        *items = items_;
        return replies_;
    }
    void live_done(size_t items) override { done_ += items; }
    size_t done() const { return done_.load(); }

private:
    const std::string commands_;
    const size_t items_;
    const uint32_t replies_;
    std::atomic<bool> taken_{false};
    std::atomic<size_t> done_{0};
};

bool read_exactly(int fd, size_t size, std::string *out) {
    out->clear();
    char chunk[4096];
    while (out->size() < size) {
        const ssize_t n = ::read(fd, chunk, std::min(sizeof(chunk), size - out->size()));
        if (n <= 0) return false;
        out->append(chunk, static_cast<size_t>(n));
    }
    return true;
}

void wait_for(const Source &source, size_t items) {
    for (int i = 0; i < 500 && source.done() < items; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void writer() {
    const std::string path = "/tmp/e3ingest-test-redis-" + std::to_string(::getpid()) + ".sock";
    ::unlink(path.c_str());
    const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path.c_str());
    CHECK(::bind(listener, reinterpret_cast<const sockaddr *>(&address), sizeof(address)) == 0);
    CHECK(::listen(listener, 1) == 0);

    const std::string hello = ingest::redis_command({"AUTH", "user", "pw"}) + ingest::redis_command({"SELECT", "2"});
    const std::string written = ingest::redis_command({"HSET", "e3:latest:c", "n", "{}"}) +
                                ingest::redis_command({"PUBLISH", "e3:live", "{\"heartbeats\": [{}]}"});
    std::string heard_hello, heard_written;
    std::thread redis([&] { // Redis's side: AUTH and SELECT answered, then the two commands, in pieces
        const int fd = ::accept(listener, nullptr, nullptr);
        if (fd < 0) return;
        if (read_exactly(fd, hello.size(), &heard_hello)) CHECK(::write(fd, "+OK\r\n+OK\r\n", 10) == 10);
        if (read_exactly(fd, written.size(), &heard_written)) {
            CHECK(::write(fd, ":1\r", 3) == 3);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            CHECK(::write(fd, "\n-ERR no\r\n", 10) == 10);
        }
        char rest[16];
        static_cast<void>(::read(fd, rest, sizeof(rest))); // until the writer closes
        ::close(fd);
    });
    ingest::RedisConfig config;
    config.enabled = true;
    config.path = path;
    config.username = "user";
    config.password = "pw";
    config.db = 2;
    Source source(written, 3, 2);
    {
        ingest::RedisLink link(config, &source);
        link.start();
        link.notify();
        wait_for(source, 3);
        CHECK(source.done() == 3 && link.sent() == 3 && link.dropped() == 0);
        link.stop();
    }
    redis.join();
    CHECK(heard_hello == hello && heard_written == written);
    ::close(listener);
    ::unlink(path.c_str());

    // No Redis there: what it takes is dropped, counted, and done with all the same.
    Source unheard(written, 4, 2);
    ingest::RedisLink link(config, &unheard);
    link.start();
    wait_for(unheard, 4);
    CHECK(unheard.done() == 4 && link.dropped() == 4 && link.sent() == 0);
}

} // namespace

int main() {
    configuration();
    commands();
    replies();
    writer();
    return 0;
}
