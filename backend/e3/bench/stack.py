"""What the benchmarks share: a database prepared with a cluster and an agent token, the controller
process started and waited for, processes stopped, CPU time read with psutil."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def cpu_s(proc) -> float:
    t = proc.cpu_times()
    return t.user + t.system


class CpuClock:
    """A process's CPU seconds, read while it lives and kept once it is gone (a benchmark that kills it)."""

    def __init__(self, proc):
        self.proc, self.last = proc, 0.0

    def read(self) -> float:
        import psutil

        try:
            self.last = cpu_s(self.proc)
        except psutil.Error:
            pass
        return self.last


def postgres_cpu_s(postmaster) -> float:
    """Postmaster + live backends + exited (reaped) backends."""
    import psutil

    total = 0.0
    try:
        t = postmaster.cpu_times()
        total = t.user + t.system + t.children_user + t.children_system
        for child in postmaster.children(recursive=True):
            try:
                total += cpu_s(child)
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return total


def wait_controller(proc: subprocess.Popen, port: int, log_path: Path, timeout: float = 60.0) -> None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the controller exited with {proc.returncode}: "
                                   f"{log_path.read_text(errors='replace')[-2000:]}")
            try:
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == \
                        health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the controller did not answer within {timeout:.0f} s")
            time.sleep(0.1)


def stop_process(proc: subprocess.Popen | None, grace_s: float = 15.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def start_backing_services(workdir: Path) -> tuple:
    """Embedded Postgres and Redis under workdir/postgres and workdir/redis: (postgres, redis, database_url,
    redis_url). The caller stops both (stop_backing_services); a Redis that fails to start stops Postgres."""
    from e3.core.embedded import EmbeddedPostgres, EmbeddedRedis

    pg = EmbeddedPostgres(workdir / "postgres")
    database_url = pg.start()
    try:
        redis = EmbeddedRedis(workdir / "redis")
        redis_url = redis.start()
    except BaseException:
        pg.stop()
        raise
    return pg, redis, database_url, redis_url


def stop_backing_services(pg, redis) -> None:
    if redis:
        redis.stop()
    if pg:
        pg.stop()


def setup_database(database_url: str, servers: int, cluster: str,
                   server_type: str = "type2-smartnic") -> tuple[str, list]:
    """Migrations + catalogue, the cluster (services layer), an agent token; the agents' node names."""
    from e3.core import config, db

    os.environ["DATABASE_URL"] = database_url
    config.get_settings.cache_clear()
    db.forget_engines()
    from sqlalchemy import select

    from e3.services.bootstrap import prepare_database
    from e3.core.db import session_scope
    from e3.core.security import SYSTEM
    from e3.models import ComputeNode, Server
    from e3.schemas.cluster_spec import validate_cluster
    from e3.services.clusters import create_cluster
    from e3.services.tokens import create_token

    prepare_database(database_url)
    with session_scope() as session:
        spec = validate_cluster({"generator": "fattree", "servers": servers, "server_type": server_type,
                                 "name": cluster})
        create_cluster(session, spec, SYSTEM)
        _, token = create_token(session, "bench-agents", ["agent"], SYSTEM)
    with session_scope() as session:
        rows = session.execute(select(Server.name, ComputeNode.name, ComputeNode.kind)
                               .join(Server, ComputeNode.server_id == Server.id)
                               .order_by(Server.name, ComputeNode.index)).all()
    db.get_engine().dispose()
    agents: dict[str, list] = {}
    for server, name, kind in rows:
        agents.setdefault(server, []).append((name, kind))
    return token, list(agents.items())


def start_controller(workdir: Path, database_url: str, redis_url: str, period_ms: int,
                     front: bool = False, name: str = "controller",
                     extra_env: dict | None = None) -> tuple[subprocess.Popen, int]:
    """`e3 controller` as its own process (so its CPU is measured apart) on a free port, with the given
    heartbeat period (and behind its ingest front, its child, if `front`), and `extra_env` added to its environment;
    returns it once it answers its health check, and the port. Log: workdir/<name>.log."""
    from e3.core.embedded import free_tcp_port

    port = free_tcp_port()
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, E3_DATA_DIR=str(workdir / "data"),
               E3_HEARTBEAT_PERIOD_MS=str(period_ms), E3_DOWN_AFTER_MS=str(max(1000, 4 * period_ms)),
               E3_INGEST_FRONT="1" if front else "0")
    env.update(extra_env or {})
    log_path = workdir / f"{name}.log"
    with open(log_path, "wb") as log_file:
        controller = subprocess.Popen([sys.executable, "-m", "e3", "controller", "--port", str(port)], env=env,
                                      stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_controller(controller, port, log_path)
    except BaseException:
        stop_process(controller)
        raise
    return controller, port
