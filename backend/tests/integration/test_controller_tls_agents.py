"""Real e3-agent processes and a controller on TLS (E3_CONTROLLER_TLS_CERT/KEY): `e3 cluster up` hands its
agents the certificate to trust (--tls-ca) and they register over TLS; agents started without it cannot
register, and `e3 cluster up` says so and fails."""

import json
import os
import signal
from pathlib import Path

import pytest
from helpers import self_signed_certificate, start_process, stop_process
from local_trio import AGENT

from e3.core.embedded import free_tcp_port


@pytest.fixture
def tls_controller(backing_services, tmp_path):
    """A controller on TLS with a self-signed certificate for 127.0.0.1; yields its address and the TLS env."""
    cert, key = self_signed_certificate(tmp_path)
    tls = dict(E3_CONTROLLER_TLS_CERT=str(cert), E3_CONTROLLER_TLS_KEY=str(key))
    port = free_tcp_port()
    proc = start_process(["controller", "--port", str(port)], backing_services, "controller-tls.log",
                         lambda log: b"controller listening" in log, **tls)
    yield f"127.0.0.1:{port}", tls
    stop_process(proc)


def _cluster_up(e3, controller: str, env: dict, name: str):
    return e3("cluster", "up", "--mode", "local", "--servers", "1", "--type", "beefy", "--name", name,
              "--controller", controller, "--output", "json", extra_env=env, check=False)


def _kill(agents: list[dict]) -> None:
    for agent in agents:
        try:
            os.kill(agent["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_issue19_item5_real_agents_register_over_tls_and_plaintext_ones_cannot(e3, client, tls_controller, tmp_path):
    address, tls = tls_controller
    env = dict(E3_DATA_DIR=str(tmp_path / "data"), E3_AGENT_BIN=str(AGENT), **tls)
    up = _cluster_up(e3, address, env, "tls1")
    agents = json.loads(up.stdout) if up.returncode == 0 else []
    try:
        assert up.returncode == 0, up.stderr + up.stdout
        nodes = client.get("/api/v1/clusters/tls1/nodes").json()["items"]
        assert nodes and all(n["state"] == "up" and n["agent_id"] for n in nodes)
        assert all("(TLS)" in Path(a["log"]).read_text() for a in agents)
    finally:
        e3("cluster", "down", "tls1", extra_env=env, check=False)
        _kill(agents)

    plain = dict(E3_DATA_DIR=str(tmp_path / "plain"), E3_AGENT_BIN=str(AGENT))
    refused = _cluster_up(e3, address, plain, "plain1")
    try:
        assert refused.returncode != 0, refused.stdout
        assert "register" in (refused.stderr + refused.stdout)
        nodes = client.get("/api/v1/clusters/plain1/nodes").json()["items"]
        assert nodes and all(n["agent_id"] is None for n in nodes), nodes  # no agent ever registered one
    finally:
        e3("cluster", "down", "plain1", extra_env=plain, check=False)
