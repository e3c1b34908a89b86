"""Small helpers shared by tests (not fixtures)."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest


def wait_for_job(client, job_id: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/api/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed"):
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} still {job['state']} after {timeout}s: {job}")
        time.sleep(0.1)


def deploy_on_new_cluster(client, cluster: str, app: dict, servers: int = 3,
                          server_type: str = "type1-smartnic") -> str:
    """Create a FatTree cluster and the application, deploy it with HCM (a real worker) and return the
    deployment's id once placed."""
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": servers,
                                                 "server_type": server_type, "name": cluster}).status_code == 201
    assert client.post("/api/v1/applications", json=app).status_code == 201
    accepted = client.post("/api/v1/deployments", json={"application": app["metadata"]["name"],
                                                         "cluster": cluster}).json()
    assert wait_for_job(client, accepted["job_id"])["state"] == "succeeded"
    return accepted["deployment_id"]


REPO_ROOT = Path(__file__).resolve().parents[2]


def agent_auth(token: str) -> list[tuple[str, str]]:
    """gRPC metadata authenticating an agent."""
    return [("authorization", f"Bearer {token}")]


def wait_until(predicate, timeout: float = 10.0, what: str = "condition"):
    """Poll `predicate` until it returns something true; returns that."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout}s")
        time.sleep(0.02)
    return result


def process_alive(pid: int) -> bool:
    """The process runs (a zombie, exited but not yet reaped, does not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _child_env(services: dict, **extra) -> dict:
    return {**os.environ, "DATABASE_URL": services["database_url"], "REDIS_URL": services["redis_url"], **extra}


def stop_process(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_process(args: list[str], services: dict, log_name: str, ready, **env: str) -> subprocess.Popen:
    """Start `python -m e3 ARGS` against the test services (with `env` added to its environment); wait until
    ready(log_bytes) is true."""
    log = services["root"] / log_name
    proc = subprocess.Popen([sys.executable, "-m", "e3", *args], env=_child_env(services, **env),
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not ready(log.read_bytes()):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_process(proc)
            pytest.fail(f"`e3 {' '.join(args)}` did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    return proc


def _intake(beats, wall_ns: int | None = None):
    """An intake as the controller's (energy ledger and rollups) with every node of `beats` tracked as run by
    agent "agent", the controller's clock at `wall_ns` (default: now)."""
    import uuid

    from e3.controller.agent_hub import TrackedNode
    from e3.controller.heartbeat_intake import HeartbeatIntake
    from e3.energy.ledger import EnergyLedger
    from e3.rollup.steps import RollupSteps

    nodes = {}
    for hb in beats:
        node_id = uuid.UUID(hb.node_id)
        nodes.setdefault(node_id, TrackedNode(node_id, uuid.uuid4(), "n", "agent", 0.0))
    return HeartbeatIntake(nodes, time.monotonic, lambda: wall_ns or time.time_ns(), energy=EnergyLedger(),
                           rollups=RollupSteps())


def encode_heartbeats(beats, wall_ns: int | None = None):
    """Heartbeat messages (agent_pb2) as the controller's intake encodes them (see _intake). All must be
    accepted."""
    encoded, rejections = _intake(beats, wall_ns).accept("agent", beats)
    assert not rejections, rejections
    return encoded


def store_heartbeats(beats, wall_ns: int | None = None) -> None:
    """Store heartbeats the way the controller does: taken by its intake, their rollups added
    (services.telemetry_rollups)."""
    from e3.core.db import session_scope
    from e3.services import telemetry_rollups

    intake = _intake(beats, wall_ns)
    _, rejections = intake.accept("agent", beats)
    assert not rejections, rejections
    nodes, instances = intake.rollups.take()
    with session_scope() as session:
        telemetry_rollups.add_rollups(session, nodes, instances, telemetry_rollups.days_of(nodes))


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (PEM files in `folder`), as an operator would make one
    for the controller."""
    cert, key = folder / "controller.crt", folder / "controller.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=e3-test",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def latest_state(r, node_id: str) -> dict | None:
    """The node's latest heartbeat as the controller keeps it in Redis (`e3:latest:<cluster>`), or None."""
    import json
    import uuid

    from e3.core.db import session_scope
    from e3.models import ComputeNode

    with session_scope() as session:
        cluster_id = session.get(ComputeNode, uuid.UUID(node_id)).cluster_id
    item = r.hget(f"e3:latest:{cluster_id}", node_id)
    return json.loads(item) if item else None


def insert_rollups(rows: list[dict]) -> None:
    """Energy rollup rows as the controller writes them (models.energy_rollup): each dict gives ts, cluster_id,
    node_id, joules, requests, source and optionally instance_id, application, counts_requests (an entry
    primary's row), seconds, watts_max."""
    from sqlalchemy import insert

    from e3.core.db import session_scope
    from e3.energy.history_policy import ROLLUP_STEP_S
    from e3.models import energy_rollups

    defaults = dict(step_s=ROLLUP_STEP_S, instance_id=None, deployment_id=None, application=None, dag_node=None,
                    idle_joules=0.0, unattributed_joules=0.0, seconds=float(ROLLUP_STEP_S), heartbeats=200,
                    watts_max=0.0, counts_requests=False)
    with session_scope() as session:
        session.execute(insert(energy_rollups), [{**defaults, **row} for row in rows])


@contextmanager
def app_serving_ui(monkeypatch, dist: Path) -> Iterator:
    """A TestClient of a fresh app that serves the UI from `dist` (its static files mounted at `/` when
    `dist/index.html` exists, else the placeholder page)."""
    from fastapi.testclient import TestClient

    from e3.api.main import create_app
    from e3.core.config import get_settings

    monkeypatch.setenv("E3_FRONTEND_DIST", str(dist))
    get_settings.cache_clear()
    try:
        with TestClient(create_app()) as c:
            yield c
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def assert_generated_current(path, regenerated: str, what: str, regenerate: str) -> None:
    """A checked-in generated file (`path`, a Path) holds exactly `regenerated`; else an AssertionError naming
    the first differing line, `what` made it, and the command that `regenerate`s it."""
    assert path.is_file(), f"{path} is missing; make it: {regenerate}"
    current = path.read_text(encoding="utf-8")
    if current != regenerated:
        old, new = current.splitlines(), regenerated.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        raise AssertionError(f"{path.name} is not what {what} gives now (first difference at line {first + 1}): the "
                             f"Python rules it is made from changed. Regenerate it: {regenerate}")
