"""The embedded Redis `e3 up` starts (issue 19's local hardening): only clients with its generated password get
in, CONFIG does not exist for them, and what it held survives a kill -9 (append-only file in its data dir)."""

import os
import signal
import time

import pytest
import redis

from e3.core.embedded import EmbeddedRedis


@pytest.fixture
def embedded_redis(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


def test_issue19_embedded_redis_refuses_unauthenticated_clients_and_config(embedded_redis, tmp_path):
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=embedded_redis.port).ping()  # no password
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=embedded_redis.port, password="guess").ping()
    client = redis.Redis.from_url(embedded_redis.url)
    assert client.ping()
    with pytest.raises(redis.ResponseError, match="unknown command"):
        client.config_get("requirepass")
    with pytest.raises(redis.ResponseError, match="unknown command"):
        client.config_set("dir", "/tmp")
    conf = tmp_path / "redis" / "redis.conf"  # the password is in a file only its owner reads, not on a command line
    assert oct(conf.stat().st_mode & 0o777) == "0o600"
    assert embedded_redis.password not in " ".join(open(f"/proc/{embedded_redis.pid}/cmdline").read().split("\0"))
    assert "bind 127.0.0.1" in conf.read_text().splitlines()


@pytest.mark.chaos
def test_issue19_embedded_redis_keeps_its_data_port_and_password_across_a_kill(embedded_redis):
    url = embedded_redis.url
    redis.Redis.from_url(url).rpush("celery", "a queued job")
    time.sleep(1.5)  # the append-only file is synced every second
    os.kill(embedded_redis.pid, signal.SIGKILL)
    time.sleep(0.2)
    assert embedded_redis.exit_code() == -signal.SIGKILL
    started = time.monotonic()
    assert embedded_redis.start() == url  # the same port and password: clients reconnect as they were
    print(f"\nembedded Redis restarted after kill -9 in {time.monotonic() - started:.2f} s")
    assert redis.Redis.from_url(url).lrange("celery", 0, -1) == [b"a queued job"]
