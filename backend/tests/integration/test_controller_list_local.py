"""An agent given a list of controllers (`e3 cluster up --controller A,B`, docs/agents.md "Controller list") with
the real controller and a real e3-agent: it prefers the address at FNV-1a(cluster/server) mod N, moves on at once
when that one does not answer, and stays connected with a 1 s keepalive (E3_AGENT_KEEPALIVE_MS) without the
controller sending GOAWAY (too_many_pings)."""

import json
import os
import signal
import time

import pytest
from local_trio import AGENT

from e3.core.embedded import free_tcp_port

SERVER = "r0000-s00"  # the one server of a 1-server fattree cluster
CONNECTED_S = 20  # a controller refusing the agent's keepalive pings sends GOAWAY after ~5 of them


def _fnv1a(text: str) -> int:
    h = 2166136261
    for byte in text.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def _cluster_preferring(index: int, n: int) -> str:
    """A cluster name whose server SERVER's agents prefer address `index` of `n` (the documented hash)."""
    return next(name for name in (f"ctl{i}" for i in range(100)) if _fnv1a(f"{name}/{SERVER}") % n == index)


@pytest.fixture
def cluster_up(e3, tmp_path):
    """cluster_up(name, controllers): `e3 cluster up --mode local` of one beefy server; its agent's row and log.
    Taken down at the end, whatever happened."""
    clusters, pids = [], []

    def up(name: str, controllers: str) -> dict:
        env = dict(E3_DATA_DIR=str(tmp_path / f"data-{name}"), E3_AGENT_BIN=str(AGENT), E3_AGENT_KEEPALIVE_MS="1000")
        clusters.append((name, env))
        out = e3("cluster", "up", "--mode", "local", "--servers", "1", "--type", "beefy", "--name", name,
                 "--controller", controllers, "--output", "json", extra_env=env)
        [agent] = json.loads(out.stdout)
        pids.append(agent["pid"])
        return agent

    yield up
    for name, env in clusters:
        e3("cluster", "down", name, extra_env=env, check=False)
    for pid in pids:  # never leave an agent behind
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _node(client, cluster: str) -> dict:
    [node] = [n for n in client.get(f"/api/v1/clusters/{cluster}/nodes").json()["items"] if n["kind"] == "host"]
    return node


def test_an_agent_whose_preferred_controller_is_down_registers_at_the_next(client, controller, cluster_up):
    nobody = f"127.0.0.1:{free_tcp_port()}"  # nothing listens there
    name = _cluster_preferring(0, 2)
    agent = cluster_up(name, f"{nobody},{controller.address}")

    assert _node(client, name)["server"] == SERVER
    log = open(agent["log"]).read()
    assert f"2 controllers, preferred {nobody} (hash of {name}/{SERVER})" in log
    assert f"controller {nobody}: attempt 1: Register: UNAVAILABLE" in log
    assert f"moving to {controller.address}" in log
    assert f"controller {controller.address}: registered here (preferred {nobody})" in log
    time.sleep(1)  # heartbeats flow to the controller it moved to
    assert _node(client, name)["state"] == "up"


# A heartbeat every 30 s leaves the connection quiet: the agent's keepalive pings go out every second, which a
# gRPC server refuses by default (at 50 ms, what the controller sends back keeps resetting the agent's ping
# timer: it hardly pings).
@pytest.mark.parametrize("controller_env", [dict(E3_HEARTBEAT_PERIOD_MS="30000", E3_DOWN_AFTER_MS="100000")])
def test_an_agent_listed_first_and_preferred_stays_connected_with_its_keepalive(client, controller, cluster_up):
    nobody = f"127.0.0.1:{free_tcp_port()}"
    name = _cluster_preferring(0, 2)
    agent = cluster_up(name, f"{controller.address},{nobody}")

    time.sleep(CONNECTED_S)
    log = open(agent["log"]).read()
    assert f"2 controllers, preferred {controller.address}" in log
    assert f"controller {controller.address}: registered here (preferred {controller.address})" in log
    assert f"controller {nobody}" not in log and f"to {nobody}" not in log, log  # never tried
    assert "too_many_pings" not in log and "GOAWAY" not in log, log
    assert log.count("e3-agent: registered") == 1, log  # its streams never broke
    assert _node(client, name)["state"] == "up"
