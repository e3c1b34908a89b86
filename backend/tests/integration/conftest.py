"""Clusters of real agents for the integration tests: a controller and a local duo (2 local agents), the local
trio (a controller and 3 local agents with gw -> kvs placed and running, local_trio.py) and emulated racks
(root: `e3 cluster up --mode rack`)."""

import json
import os
import signal

import pytest
from helpers import start_process, stop_process, wait_for_job, wait_until
from local_trio import AGENT, APP, running

from e3.emulation import rack_cluster
from e3.core.embedded import free_tcp_port
from e3.emulation import rack_network
from e3.emulation.rack_plan import plan_rack


@pytest.fixture
def controller_env() -> dict:
    """More environment for the controller (a test overrides it, e.g. with a shorter export interval)."""
    return {}


@pytest.fixture
def controller(backing_services, controller_env, monkeypatch):
    """A real `e3 controller` process; `restart()` stops it and starts a new one on the same port. The
    in-process API (`client`) asks it for raw tails, as an API configured with its address would."""
    from e3.api import controller_tail

    if not AGENT.is_file():
        pytest.fail(f"{AGENT} is missing: `make test` builds it (make agents)")
    port = free_tcp_port()

    class Controller:
        address = f"127.0.0.1:{port}"

        def start(self):
            self.proc = start_process(["controller", "--port", str(port)], backing_services, "controller.log",
                                      lambda log: b"controller listening" in log, **controller_env)

        def restart(self):
            stop_process(self.proc)
            self.start()

    running = Controller()
    running.start()
    monkeypatch.setattr(controller_tail, "controller_target", lambda: running.address)
    yield running
    stop_process(running.proc)


@pytest.fixture
def local_cluster(e3, controller, tmp_path):
    """`e3 cluster up --mode local --servers 2 --type beefy`; yields the CLI's answer; `e3 cluster down` after."""
    env = dict(E3_DATA_DIR=str(tmp_path / "data"), E3_AGENT_BIN=str(AGENT))
    up = e3("cluster", "up", "--mode", "local", "--servers", "2", "--type", "beefy", "--name", "duo",
            "--controller", controller.address, "--output", "json", extra_env=env)
    agents = json.loads(up.stdout)
    yield dict(agents=agents, env=env)
    e3("cluster", "down", "duo", extra_env=env, check=False)
    for agent in agents:  # never leave an agent behind, even when the test failed half-way
        try:
            os.kill(agent["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def agent_env() -> dict:
    """More environment for the trio's agents (a test overrides it, e.g. with a test-only fault hook)."""
    return {}


@pytest.fixture
def trio_app() -> dict:
    """The application the trio runs (a test overrides it, e.g. with more backups)."""
    return APP


@pytest.fixture
def controller_route():
    """The address the trio's agents dial for the controller at `address` (a test overrides it, e.g. with a
    proxy that can cut one agent off)."""
    return lambda address: address


@pytest.fixture
def trio(e3, worker, backing_services, tmp_path, client, agent_env, trio_app, controller_route):
    """A controller and 3 local agents (their environment plus `agent_env`, dialling the controller through
    `controller_route`); `trio_app` (gw -> kvs) placed and running."""
    if not AGENT.is_file():
        pytest.fail(f"{AGENT} is missing: `make test` builds it (make agents)")
    port = free_tcp_port()
    controller = start_process(["controller", "--port", str(port)], backing_services, "controller.log",
                               lambda log: b"controller listening" in log)
    env = dict(E3_DATA_DIR=str(tmp_path / "data"), E3_AGENT_BIN=str(AGENT), **agent_env)
    agents = []
    try:
        up = e3("cluster", "up", "--mode", "local", "--servers", "3", "--type", "beefy", "--name", "trio",
                "--controller", controller_route(f"127.0.0.1:{port}"), "--output", "json", extra_env=env)
        agents = json.loads(up.stdout)
        assert client.post("/api/v1/applications", json=trio_app).status_code == 201
        r = client.post("/api/v1/deployments", json={"application": trio_app["metadata"]["name"], "cluster": "trio"})
        assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
        deployment_id = r.json()["deployment_id"]
        placed = wait_until(lambda: running(client, deployment_id), timeout=30, what="instances running")
        yield dict(placed=placed, deployment_id=deployment_id, env=env, agents=agents)
    finally:
        e3("cluster", "down", "trio", extra_env=env, check=False)
        for agent in agents:
            try:
                os.kill(agent["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
        stop_process(controller)


@pytest.fixture
def rack_controller(backing_services):
    """The controller on loopback and on the rack's management bridge."""
    rack_network.ensure_mgmt_bridge()
    port = free_tcp_port()
    proc = start_process(["controller", "--host", f"127.0.0.1,{rack_network.rack_mgmt_gateway()}", "--port", str(port)],
                         backing_services, "controller-rack.log", lambda log: b"controller listening" in log)
    yield f"127.0.0.1:{port}"
    stop_process(proc)
    rack_network.remove_mgmt_bridge_if_unused()


@pytest.fixture
def rack_of(e3, rack_controller, tmp_path):
    """rack_of(name, servers): an emulated rack of type1-smartnic servers registered with `rack_controller`;
    its programs (node, kind, pid, ...), env and folder. Taken down at the end, whatever happened."""
    started = []

    def up(name: str, servers: int, server_type: str = "type1-smartnic") -> dict:
        env = dict(E3_DATA_DIR=str(tmp_path / f"data-{name}"))
        started.append((name, servers, server_type, env))
        out = e3("cluster", "up", "--mode", "rack", "--servers", str(servers), "--type", server_type, "--name", name,
                 "--controller", rack_controller, "--output", "json", extra_env=env)
        return dict(programs=json.loads(out.stdout), env=env, folder=rack_cluster.folder(name))

    yield up
    for name, servers, server_type, env in started:
        e3("cluster", "down", name, extra_env=env, check=False)
        rack_network.destroy(plan_rack(name, servers, server_type))  # whatever `down` left, if it failed
