"""The controller behind its compiled ingest front (E3_INGEST_FRONT=1, agents/e3-ingest): real e3-agent processes,
the real controller, API, worker, Postgres and Redis. Every call crosses the front unparsed: the agents register
(their control address is their own, named by the front in x-e3-peer), their heartbeats are counted in the rollups,
a deploy's commands reach them and are ACKed, the API reads the raw tail through the front; a caller's own
x-e3-peer is overwritten; the front speaks TLS with the controller's certificate; and the controller exits, saying
why, when its front is killed."""

import json
import os
import signal
import time
import uuid
from pathlib import Path

import grpc
import psutil
import pytest
from helpers import (REPO_ROOT, agent_auth, self_signed_certificate, start_process, stop_process, wait_for_job,
                     wait_until)
from local_trio import AGENT
from sqlalchemy import func, select

from e3.core.db import session_scope
from e3.core.embedded import free_tcp_port
from e3.models import Cluster, ComputeNode, node_rollups
from e3.rpc.pb import agent_pb2, agent_pb2_grpc

INGEST = REPO_ROOT / "build/agents/e3-ingest/e3-ingest"
KVS = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "front-kv"},
       "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 0}], "edges": []}}


@pytest.fixture
def controller_env() -> dict:
    if not INGEST.is_file():
        pytest.fail(f"{INGEST} is missing: `make test` builds it (make agents)")
    return dict(E3_INGEST_FRONT="1", E3_INGEST_BIN=str(INGEST))


def _front(controller) -> psutil.Process:
    return next(p for p in psutil.Process(controller.proc.pid).children() if p.name() == "e3-ingest")


def _addresses(cluster: str) -> list[tuple[str, str]]:
    with session_scope() as session:
        return [tuple(row) for row in session.execute(
            select(ComputeNode.address, ComputeNode.control_address).join(Cluster, Cluster.id == ComputeNode.cluster_id)
            .where(Cluster.name == cluster, ComputeNode.agent_id.is_not(None)))]


def _heartbeats(node_id: str) -> int:
    with session_scope() as session:
        return session.scalar(select(func.coalesce(func.sum(node_rollups.c.heartbeats), 0))
                              .where(node_rollups.c.node_id == uuid.UUID(node_id)))


def test_agents_work_through_the_front(client, controller, local_cluster):
    front = _front(controller)
    assert front.is_running() and any(c.laddr.port == int(controller.address.rsplit(":", 1)[1])
                                      for c in front.net_connections("tcp") if c.status == psutil.CONN_LISTEN)
    nodes = client.get("/api/v1/clusters/duo/nodes").json()["items"]
    assert len(nodes) == 2 and all(n["state"] == "up" and n["agent_id"] for n in nodes)
    # behind the front the controller's peer is its unix socket: the addresses come from x-e3-peer
    assert _addresses("duo") == [("127.0.0.1", "127.0.0.1")] * 2
    for node in nodes:
        wait_until(lambda: _heartbeats(node["id"]) > 0, timeout=15, what="the node's heartbeats in the rollups")

    # a deploy's commands cross the front to an agent, and its ACK back (the instance runs)
    assert client.post("/api/v1/applications", json=KVS).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "front-kv", "cluster": "duo"})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"

    def running():
        items = client.get(f"/api/v1/deployments/{r.json()['deployment_id']}/placement").json()["items"]
        assert not [i for i in items if i["state"] == "failed"], items
        return items if items and all(i["state"] == "running" for i in items) else None

    placed = wait_until(running, timeout=20, what="the kvs instance running (its deploy ACKed)")

    # the API asks the controller's raw tail through the front (TelemetryTail, forwarded with the caller's token)
    page = client.get(f"/api/v1/nodes/{placed[0]['node_id']}/telemetry").json()
    assert page["tail_status"] == "ok", page["tail_error"]
    assert page["tail"] and all(p["queue_len"] is not None for p in page["tail"])


def test_a_callers_own_x_e3_peer_is_overwritten_by_the_front(client, controller, make_token):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "type1-smartnic",
                                              "name": "lab"})
    assert r.status_code == 201, r.json()
    host = next(n for n in client.get("/api/v1/clusters/lab/nodes").json()["items"] if n["kind"] == "host")
    with grpc.insecure_channel(controller.address) as channel:
        answer = agent_pb2_grpc.AgentServiceStub(channel).Register(
            agent_pb2.RegisterRequest(agent_id="agent-spoof", node=agent_pb2.NodeIdentity(
                name=host["name"], cluster_name="lab")),
            metadata=[*agent_auth(make_token("agent")), ("x-e3-peer", "10.66.6.6")], timeout=10)
    assert answer.node_id == host["id"]
    assert _addresses("lab") == [("127.0.0.1", "127.0.0.1")]


def test_the_controller_exits_when_its_front_is_killed(controller, backing_services):
    front = _front(controller)
    os.kill(front.pid, signal.SIGKILL)
    deadline = time.monotonic() + 15
    while controller.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    log = (backing_services["root"] / "controller.log").read_text(errors="replace")
    assert controller.proc.returncode not in (None, 0), log[-2000:]
    assert f"e3-ingest (pid {front.pid}), the controller's front, exited with code -9" in log, log[-2000:]


def test_agents_register_over_tls_through_the_front(e3, client, backing_services, controller_env, tmp_path):
    """The front speaks TLS with the controller's own E3_CONTROLLER_TLS_CERT/KEY; a real agent trusting that
    certificate registers through it."""
    cert, key = self_signed_certificate(tmp_path)
    tls = dict(E3_CONTROLLER_TLS_CERT=str(cert), E3_CONTROLLER_TLS_KEY=str(key))
    port = free_tcp_port()
    proc = start_process(["controller", "--port", str(port)], backing_services, "controller-front-tls.log",
                         lambda log: b"controller listening" in log, **tls, **controller_env)
    env = dict(E3_DATA_DIR=str(tmp_path / "data"), E3_AGENT_BIN=str(AGENT), **tls)
    up = e3("cluster", "up", "--mode", "local", "--servers", "1", "--type", "beefy", "--name", "tls1",
            "--controller", f"127.0.0.1:{port}", "--output", "json", extra_env=env, check=False)
    agents = json.loads(up.stdout) if up.returncode == 0 else []
    try:
        assert up.returncode == 0, up.stderr + up.stdout
        assert b"(TLS) (ingest front)" in (backing_services["root"] / "controller-front-tls.log").read_bytes()
        nodes = client.get("/api/v1/clusters/tls1/nodes").json()["items"]
        assert nodes and all(n["state"] == "up" and n["agent_id"] for n in nodes)
        assert all("(TLS)" in Path(a["log"]).read_text() for a in agents)
    finally:
        e3("cluster", "down", "tls1", extra_env=env, check=False)
        for agent in agents:
            try:
                os.kill(agent["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
        stop_process(proc)
