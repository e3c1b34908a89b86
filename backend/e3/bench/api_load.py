"""REST API under load: read latency at a steady rate, how fast an overloaded API refuses, and whether any
request hangs when many arrive at once (issue 19; docs/reliability.md, "API under concurrency and load").

Everything runs on this machine, started here in a temporary directory and stopped at the end (also on
Ctrl-C or error): embedded Postgres and Redis, migrations and catalogue, a cluster and some applications,
a token, and `e3 api` (uvicorn) as its own process with its default limits unless given.

Sections, each an open loop (a request is sent at its scheduled time whether or not the earlier ones were
answered, so a slow server cannot slow the offered load down):
  - steady: REST reads (lists and single resources) at `rate` requests/s for `seconds`: latency percentiles.
  - overload: the same reads at `overload_rate` requests/s: the 503 refusals' latency (the admission limit's
    answer) beside the served requests'.
  - burst: `in_flight` requests (a tenth of them writes) sent at once: how many were answered, refused (503),
    failed, or hung (no answer within `hang_s`).
Latency is from the moment a request is sent to its answer, measured by the load generator, which shares the
machine's cores with the API and Postgres (reported beside the figures).
"""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from e3.bench.stack import cpu_s, postgres_cpu_s, start_backing_services, stop_backing_services, stop_process

TARGET_READ_P99_MS = 25.0  # at 200 requests/s
TARGET_REFUSAL_P99_MS = 10.0  # at 400 requests/s
TARGET_HANGS = 0  # up to 1,000 requests in flight
APPLICATIONS = 20
READS = ("/api/v1/applications?limit=20", "/api/v1/clusters", "/api/v1/applications/bench-app-3",
         "/api/v1/clusters/bench/nodes?limit=50", "/api/v1/jobs?limit=20")


@dataclass(frozen=True)
class ApiLoadConfig:
    seconds: float = 10.0
    rate: float = 200.0  # steady reads, requests/s
    overload_rate: float = 400.0
    in_flight: int = 1000  # the burst
    hang_s: float = 30.0  # a request unanswered this long hangs
    api_env: tuple[tuple[str, str], ...] = ()  # extra settings for `e3 api`, e.g. (("E3_API_QUEUE", "32"),)


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))], 2)


def _application(i: int) -> dict:
    return {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": f"bench-app-{i}"},
            "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "shards": 2},
                               {"id": "db", "service": "kvs", "shards": 2}], "edges": [{"from": "gw", "to": "db"}]}}


def _prepare(database_url: str) -> str:
    """Migrations, catalogue, a 40-server cluster, APPLICATIONS applications and a read/write token."""
    from e3.core import config, db

    os.environ["DATABASE_URL"] = database_url
    config.get_settings.cache_clear()
    db.forget_engines()
    from e3.core.security import SYSTEM
    from e3.schemas.cluster_spec import validate_cluster
    from e3.schemas.dag import validate_application
    from e3.services.applications import create_application
    from e3.services.bootstrap import prepare_database
    from e3.services.clusters import create_cluster
    from e3.services.tokens import create_token

    prepare_database(database_url)
    with db.session_scope() as session:
        create_cluster(session, validate_cluster({"generator": "fattree", "servers": 40, "server_type": "beefy",
                                                  "name": "bench"}), SYSTEM)
        for i in range(APPLICATIONS):
            create_application(session, validate_application(_application(i)), SYSTEM)
        _, token = create_token(session, "bench-api", ["read", "write"], SYSTEM)
    db.get_engine().dispose()
    return token


def _start_api(workdir: Path, database_url: str, redis_url: str, extra_env: dict) -> tuple[subprocess.Popen, str]:
    import httpx

    from e3.core.embedded import free_tcp_port

    port = free_tcp_port()
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, E3_DATA_DIR=str(workdir / "data"),
               **extra_env)
    log_path = workdir / "api.log"
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen([sys.executable, "-m", "e3", "api", "--port", str(port)], env=env,
                                stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            log = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"`e3 api` exited with {proc.returncode}: {log}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            stop_process(proc)
            raise RuntimeError("`e3 api` did not answer /healthz within 60 s")
        time.sleep(0.1)


class _Outcomes:
    """Each request's outcome: status (or 'hang' / 'error') and latency in ms."""

    def __init__(self):
        self.by_status: dict[str, list[float]] = {}
        self.late_ms: list[float] = []  # how late the generator sent a request after its scheduled time

    def add(self, status: str, ms: float) -> None:
        self.by_status.setdefault(status, []).append(ms)

    def summary(self) -> dict:
        served = [ms for s, v in self.by_status.items() if s.startswith(("2", "4")) for ms in v]
        refused = self.by_status.get("503", [])
        return dict(counts={s: len(v) for s, v in sorted(self.by_status.items())},
                    served=len(served), served_p50_ms=_pct(served, 50), served_p99_ms=_pct(served, 99),
                    served_max_ms=_pct(served, 100), refused=len(refused), refused_p50_ms=_pct(refused, 50),
                    refused_p99_ms=_pct(refused, 99), hangs=len(self.by_status.get("hang", [])),
                    errors=len(self.by_status.get("error", [])), sender_late_p99_ms=_pct(self.late_ms, 99))


class _Http:
    """A lean HTTP/1.1 client over keep-alive connections (asyncio streams): the load generator shares the
    cores with the API, and a full client library would spend more CPU per request than the API does."""

    def __init__(self, url: str, token: str):
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port, self.token = host, int(port), token
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(self, method: str, path: str, body: bytes = b"") -> int:
        """The answer's status; the connection goes back to the pool once the body is read."""
        conn = self.idle.pop() if self.idle else await asyncio.open_connection(self.host, self.port)
        reader, writer = conn
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        writer.write(head.encode() + body)
        try:
            status_line = await reader.readline()
            length, close = 0, False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and "close" in value.lower():
                    close = True
            await reader.readexactly(length)
            status = int(status_line.split()[1])
        except BaseException:
            writer.close()
            raise
        if close:
            writer.close()
        else:
            self.idle.append(conn)
        return status

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def _one(client: _Http, outcomes: _Outcomes, method: str, path: str, hang_s: float, body: bytes = b"") -> None:
    began = time.perf_counter()
    try:
        status = str(await asyncio.wait_for(client.request(method, path, body), hang_s))
    except asyncio.TimeoutError:
        status = "hang"
    except (OSError, ValueError, IndexError, asyncio.IncompleteReadError):
        status = "error"
    outcomes.add(status, (time.perf_counter() - began) * 1000)


async def _open_loop(url: str, token: str, rate: float, seconds: float, hang_s: float) -> dict:
    outcomes = _Outcomes()
    total = int(rate * seconds)
    client = _Http(url, token)
    try:
        await client.request("GET", READS[0])  # a warm connection and token before the clock starts
        start = time.perf_counter()
        tasks = []
        for i in range(total):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            outcomes.late_ms.append(max(0.0, -delay) * 1000)
            tasks.append(asyncio.create_task(_one(client, outcomes, "GET", READS[i % len(READS)], hang_s)))
        await asyncio.gather(*tasks)
        took = time.perf_counter() - start
    finally:
        client.close()
    return dict(outcomes.summary(), offered_rate=rate, seconds=seconds, requests=total,
                answered_rate=round(total / took, 1))


async def _burst(url: str, token: str, in_flight: int, hang_s: float) -> dict:
    outcomes = _Outcomes()
    client = _Http(url, token)
    try:
        start = time.perf_counter()
        tasks = []
        for i in range(in_flight):
            if i % 10 == 0:  # a write: a new application (distinct names: each one a 201 or a 503)
                body = json.dumps(_application(APPLICATIONS + i)).encode()
                tasks.append(_one(client, outcomes, "POST", "/api/v1/applications", hang_s, body))
            else:
                tasks.append(_one(client, outcomes, "GET", READS[i % len(READS)], hang_s))
        await asyncio.gather(*tasks)
        took = time.perf_counter() - start
    finally:
        client.close()
    return dict(outcomes.summary(), in_flight=in_flight, last_answer_s=round(took, 2))


def _api_cpu_s(api_proc) -> float:
    """CPU seconds of `e3 api` and of its worker processes (E3_API_WORKERS > 1)."""
    import psutil

    total = cpu_s(api_proc)
    for child in api_proc.children(recursive=True):
        try:
            total += cpu_s(child)
        except psutil.Error:
            pass
    return total


def run_api_load(cfg: ApiLoadConfig, report=print) -> dict:
    """One run; returns its figures. Everything started here is stopped before returning or raising."""
    import psutil

    workdir = Path(tempfile.mkdtemp(prefix="e3-bench-api-"))
    pg = redis = api = None
    try:
        report(f"starting Postgres and Redis in {workdir}")
        pg, redis, database_url, redis_url = start_backing_services(workdir)
        report(f"migrating, creating a cluster and {APPLICATIONS} applications")
        token = _prepare(database_url)
        api, url = _start_api(workdir, database_url, redis_url, dict(cfg.api_env))
        api_proc = psutil.Process(api.pid)
        postmaster = psutil.Process(int((workdir / "postgres" / "postmaster.pid").read_text().split()[0]))
        pids = dict(api=api.pid, postgres=postmaster.pid, redis=redis._process.pid)
        sections = {}
        for name, run in (("steady", lambda: _open_loop(url, token, cfg.rate, cfg.seconds, cfg.hang_s)),
                          ("overload", lambda: _open_loop(url, token, cfg.overload_rate, cfg.seconds, cfg.hang_s)),
                          ("burst", lambda: _burst(url, token, cfg.in_flight, cfg.hang_s))):
            report(f"section {name}")
            api_before, pg_before, wall_before = _api_cpu_s(api_proc), postgres_cpu_s(postmaster), time.perf_counter()
            sections[name] = asyncio.run(run())
            wall = time.perf_counter() - wall_before
            api_cpu = _api_cpu_s(api_proc) - api_before
            answered = sections[name].get("requests", sections[name].get("in_flight"))
            sections[name].update(api_cpu_pct=round(100 * api_cpu / wall, 1),
                                  # what a request costs the API, whatever share of the cores it was given
                                  api_cpu_ms_per_request=round(1000 * api_cpu / answered, 2),
                                  postgres_cpu_pct=round(100 * (postgres_cpu_s(postmaster) - pg_before) / wall, 1),
                                  load_average=round(os.getloadavg()[0], 2))
        from e3.core.config import Settings

        limits = Settings(**{k: v for k, v in cfg.api_env})
        return dict(sections=sections, cores=os.cpu_count(), config=asdict(cfg), workdir=str(workdir), pids=pids,
                    api_limits=dict(db_connections=limits.api_db_connections, queue=limits.api_queue,
                                    queue_wait_s=limits.api_queue_wait_s))
    finally:
        stop_process(api)
        stop_backing_services(pg, redis)
        shutil.rmtree(workdir, ignore_errors=True)
