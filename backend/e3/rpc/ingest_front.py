"""The controller's compiled ingest front (agents/e3-ingest, docs/agents.md "Ingest front"): `e3 controller` starts it
as its child on the public address(es) when E3_INGEST_FRONT is on, and serves on a unix socket behind it. The
front terminates the agents' heartbeat streams (checking, counting and encoding each heartbeat; the controller is
handed the rest through e3.internal.v1.IngestBackend, rpc.front_servicer), keeps their raw tail, which it serves
itself as e3.internal.v1.TelemetryTail (each caller authorized by the controller, IngestBackend.Authorize), and
forwards every other call unparsed, adding `x-e3-peer` (the caller's IP). Given the controller's Redis, it writes the
live state there itself (E3_FRONT_REDIS_* in its environment: front_redis_env), so that it reaches Redis without
waiting for the controller's loop."""

import asyncio
import logging
import os
import re
import signal
import socket
from pathlib import Path

log = logging.getLogger(__name__)
READY = re.compile(r"^e3-ingest: listening on port (\d+)")
READY_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0
MAX_UNIX_PATH = 107  # sun_path's 108 bytes with the NUL
MAX_TAIL_ITEMS = 100_000  # the most raw heartbeats a node the front keeps (its --tail-items)
FRONT_REDIS_ENV = ("E3_FRONT_REDIS_PATH", "E3_FRONT_REDIS_HOST", "E3_FRONT_REDIS_PORT", "E3_FRONT_REDIS_USERNAME",
                   "E3_FRONT_REDIS_PASSWORD", "E3_FRONT_REDIS_DB")


def front_redis_env(redis_url: str | None) -> dict[str, str]:
    """The front's E3_FRONT_REDIS_* for `redis_url` (agents/e3-ingest/src/redis_link.h), parsed as LivePublisher
    connects: a unix socket's path, or host and port; username, password and database when given. Empty (the front
    writes no Redis; the controller writes what it hands over) without a URL, or for TLS (rediss://), which the front
    cannot speak. In the environment, not on the command line: the password must not show in `ps`."""
    if not redis_url:
        return {}
    from redis.connection import SSLConnection, parse_url

    opts = parse_url(redis_url)
    if opts.get("connection_class") is SSLConnection:
        log.info("the ingest front does not write Redis itself: it cannot speak TLS (%s); the controller writes the "
                 "live state it hands over", redis_url.split("://", 1)[0] + "://")
        return {}
    if "path" in opts:
        env = {"E3_FRONT_REDIS_PATH": opts["path"]}
    else:
        env = {"E3_FRONT_REDIS_HOST": str(opts.get("host", "localhost")),
               "E3_FRONT_REDIS_PORT": str(opts.get("port", 6379))}
    if opts.get("password"):
        env["E3_FRONT_REDIS_PASSWORD"] = str(opts["password"])
        if opts.get("username"):
            env["E3_FRONT_REDIS_USERNAME"] = str(opts["username"])
    if opts.get("db"):
        env["E3_FRONT_REDIS_DB"] = str(opts["db"])
    return env


def socket_path(data_dir: Path, port: int, pid: int) -> Path:
    """unix:<data dir>/controller-<port>.sock the Python server binds behind the front (port 0: the pid names it,
    the kernel picking the port only once the front binds). RuntimeError if the path is too long for a socket or a
    live controller already serves on it (binding would steal its socket)."""
    path = data_dir / (f"controller-{port}.sock" if port else f"controller-pid{pid}.sock")
    if len(str(path)) > MAX_UNIX_PATH:
        raise RuntimeError(f"{path} is longer than a unix socket's {MAX_UNIX_PATH} characters: set E3_DATA_DIR to a "
                           "shorter directory")
    if path.exists():
        probe = socket.socket(socket.AF_UNIX)
        try:
            probe.connect(str(path))
        except OSError:
            pass  # a stale one (its controller died): gRPC replaces it
        else:
            raise RuntimeError(f"another controller serves on {path} (port {port} is taken)")
        finally:
            probe.close()
    return path


class IngestFront:
    """The e3-ingest child process: start() launches it and waits for its ready line, exited() completes with its
    exit status when it ends, stop() ends it. Its raw tail keeps `tail_items` heartbeats a node (at most
    MAX_TAIL_ITEMS; 0: none), said to cover `tail_window_s` seconds: the controller's RawTail's per_node and
    window_s. Given `redis_url` (the controller's), it writes the live state there itself unless that is TLS
    (`writes_redis`)."""

    def __init__(self, binary: Path, hosts: list[str], port: int, backend: Path,
                 tls_cert: Path | None = None, tls_key: Path | None = None, rollup_flush_ms: int = 1000,
                 tail_items: int = 0, tail_window_s: int = 0, redis_url: str | None = None):
        self.args = [str(binary)]
        for host in hosts:
            self.args += ["--listen", f"[{host}]:{port}" if ":" in host and not host.startswith("[") else
                          f"{host}:{port}"]
        self.args += ["--backend", f"unix:{backend}", "--parent-pid", str(os.getpid()),
                      "--rollup-flush-ms", str(rollup_flush_ms), "--tail-items", str(min(tail_items, MAX_TAIL_ITEMS)),
                      "--tail-window-s", str(tail_window_s)]
        if tls_cert is not None:
            self.args += ["--tls-cert", str(tls_cert), "--tls-key", str(tls_key)]
        redis_env = front_redis_env(redis_url)
        self.writes_redis = bool(redis_env)
        self.env = {k: v for k, v in os.environ.items() if k not in FRONT_REDIS_ENV} | redis_env
        self.proc: asyncio.subprocess.Process | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    async def start(self) -> int:
        """Start the front; the port it listens on once it printed its ready line. RuntimeError if it exits first or
        prints none within READY_TIMEOUT_S. Its stderr is this process's (the controller's log). It dies with this
        process (--parent-pid: it sets PR_SET_PDEATHSIG itself, as core.processes.die_with_parent would between fork
        and exec, which a process running grpcio cannot do: grpcio's fork handlers abort the child)."""
        self.proc = await asyncio.create_subprocess_exec(*self.args, stdout=asyncio.subprocess.PIPE, env=self.env)
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), READY_TIMEOUT_S)
        except asyncio.TimeoutError:
            await self.stop()
            raise RuntimeError(f"e3-ingest printed no ready line within {READY_TIMEOUT_S:g} s") from None
        ready = READY.match(line.decode(errors="replace"))
        if not ready:
            code = await self.proc.wait() if not line else None
            await self.stop()
            raise RuntimeError(f"e3-ingest did not start ({' '.join(self.args)}): "
                               f"{f'exited with code {code}' if code is not None else line.decode().strip()}")
        return int(ready.group(1))

    async def exited(self) -> int:
        return await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT_S)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
