"""What a placement implies for agent-run nodes: versioned commands on each node's stream, ACKs and
NACKs shown on the deployment's instances, replay after a reconnect, removal on deletion."""

import queue
import threading
import time
import uuid

import grpc
import pytest
from helpers import agent_auth, wait_for_job, wait_until

from e3.rpc.pb import agent_pb2

GATEWAY_KVS = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "gw-kvs"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "config": {"keys": "k1", "rate": "500"}},
                       {"id": "kv", "service": "kvs", "replicas": 0}],
             "edges": [{"from": "gw", "to": "kv"}]},
}


@pytest.fixture
def duo(client):
    """A cluster `duo` of two beefy servers (one host node each): their node names."""
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "beefy",
                                              "name": "duo"})
    assert r.status_code == 201, r.json()
    return [n["name"] for n in client.get("/api/v1/clusters/duo/nodes").json()["items"]]


class FakeAgent:
    """Just enough of an agent to read a node's command stream (the real one is tested with e3-agent)."""

    def __init__(self, stub, token, node_name, address="127.0.0.1"):
        self.stub, self.token, self.agent_id = stub, token, f"agent-{uuid.uuid4().hex[:8]}"
        self.node_id = stub.Register(agent_pb2.RegisterRequest(agent_id=self.agent_id, node=agent_pb2.NodeIdentity(
            name=node_name, cluster_name="duo", address=address)), metadata=agent_auth(token), timeout=10).node_id
        self.commands: queue.Queue = queue.Queue()
        self.stream = None
        self.alive = threading.Event()
        self.alive.set()
        threading.Thread(target=self._heartbeat, daemon=True).start()  # else the node goes down

    def _heartbeat(self):
        def batches():
            sequence = 0
            while self.alive.wait(0) and not time.sleep(0.05):
                sequence += 1
                yield agent_pb2.HeartbeatBatch(agent_id=self.agent_id, sequence=sequence, heartbeats=[
                    agent_pb2.Heartbeat(node_id=self.node_id, timestamp_unix_ns=time.time_ns(), power_watts=90,
                                        power_source=agent_pb2.POWER_SOURCE_MODEL)])
        try:
            self.stub.StreamHeartbeats(batches(), metadata=agent_auth(self.token))
        except grpc.RpcError:
            pass

    def open(self, applied_version=0):
        self.stream = self.stub.StreamCommands(agent_pb2.StreamCommandsRequest(
            agent_id=self.agent_id, node_id=self.node_id, applied_version=applied_version),
            metadata=agent_auth(self.token))
        threading.Thread(target=self._read, args=(self.stream,), daemon=True).start()
        return self

    def _read(self, stream):
        try:
            for command in stream:
                self.commands.put(command)
        except grpc.RpcError:
            pass

    def take(self, n, timeout=15.0) -> list:
        return [self.commands.get(timeout=timeout) for _ in range(n)]

    def ack(self, version, error=None):
        self.stub.AckCommand(agent_pb2.CommandAck(
            agent_id=self.agent_id, node_id=self.node_id, version=version, ok=error is None,
            error=agent_pb2.ErrorDetail(code=error[0], message=error[1]) if error else None),
            metadata=agent_auth(self.token), timeout=10)

    def close(self):
        if self.stream is not None:
            self.stream.cancel()

    def stop(self):
        self.close()
        self.alive.clear()


def deploy(client, cluster="duo") -> str:
    assert client.post("/api/v1/applications", json=GATEWAY_KVS).status_code in (200, 201)
    r = client.post("/api/v1/deployments", json={"application": "gw-kvs", "cluster": cluster, "algorithm": "hcm"})
    assert r.status_code == 202, r.json()
    job = wait_for_job(client, r.json()["job_id"])
    assert job["state"] == "succeeded", (job["message"], job.get("error"))
    return r.json()["deployment_id"]


def placement(client, deployment_id) -> dict:
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    return {i["dag_node"]: i for i in items}


def by_node(agents, placed) -> dict:
    """DAG node id -> the fake agent whose node runs it."""
    return {dag: next(a for a in agents if a.node_id == i["node_id"]) for dag, i in placed.items()}


def test_a_placement_becomes_deploy_and_route_commands_and_acks_show_on_the_deployment(
        client, stub, duo, agent_token, worker):
    agents = [FakeAgent(stub, agent_token, name).open() for name in duo]
    deployment_id = deploy(client)
    placed = placement(client, deployment_id)
    assert {i["state"] for i in placed.values()} == {"deploying"}
    runs = by_node(agents, placed)

    got = {}
    for agent in set(runs.values()) | set(agents):
        deploys = sum(1 for i in placed.values() if i["node_id"] == agent.node_id)
        got[agent] = agent.take(deploys + 1)  # its deploys, then the route table
    for agent, commands in got.items():
        assert [c.version for c in commands] == list(range(1, len(commands) + 1))
        assert [c.WhichOneof("action") for c in commands][-1] == "set_routes"
        routes = {r.instance_id: (r.address, r.port) for r in commands[-1].set_routes.routes}
        assert routes == {i["id"]: ("127.0.0.1", i["port"]) for i in placed.values()}

    gw_deploy = next(c.deploy_instance for c in got[runs["gw"]] if c.deploy_instance.instance_id == placed["gw"]["id"])
    assert gw_deploy.service_type == "api_gateway" and gw_deploy.port == placed["gw"]["port"]
    assert dict(gw_deploy.config) == {"keys": "k1", "rate": "500", "e3.downstream": placed["kv"]["id"],
                                      "e3.forward_if": "ALLOW"}  # a refused request goes no further
    kv_deploy = next(c for c in got[runs["kv"]] if c.deploy_instance.instance_id == placed["kv"]["id"])
    assert dict(kv_deploy.deploy_instance.config) == {}
    assert placed["gw"]["port"] != placed["kv"]["port"]  # both on 127.0.0.1

    gw_version = next(c.version for c in got[runs["gw"]] if c.deploy_instance.instance_id == placed["gw"]["id"])
    runs["gw"].ack(gw_version)
    runs["kv"].ack(kv_deploy.version, error=("port_in_use", f"port {kv_deploy.deploy_instance.port} is taken"))
    placed = placement(client, deployment_id)
    assert placed["gw"]["state"] == "running" and placed["gw"]["error"] is None
    assert placed["kv"]["state"] == "failed"
    taken = f"port {kv_deploy.deploy_instance.port} is taken"
    assert placed["kv"]["error"] == {"code": "port_in_use", "message": taken}
    assert client.get(f"/api/v1/deployments/{deployment_id}").json()["instance_states"] == {"running": 1, "failed": 1}
    for agent in agents:
        agent.stop()


def test_a_reopened_stream_gets_only_newer_commands_and_a_new_agent_gets_them_all(
        client, stub, duo, agent_token, worker):
    agents = [FakeAgent(stub, agent_token, name).open() for name in duo]
    deploy(client)
    first = agents[0].take(1)[0]
    remaining = []
    while not remaining or remaining[-1].WhichOneof("action") != "set_routes":
        remaining += agents[0].take(1)
    total = 1 + len(remaining)
    agents[0].close()

    agents[0].commands = queue.Queue()
    agents[0].open(applied_version=1)
    assert [c.version for c in agents[0].take(total - 1)] == list(range(2, total + 1))
    assert first.version == 1

    with pytest.raises(grpc.RpcError) as err:  # the old agent is alive, so the node is not free yet
        FakeAgent(stub, agent_token, duo[0])
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
    agents[0].stop()  # the process dies; once its node is down, a new agent may take it over
    fresh = wait_until(lambda: _try_register(stub, agent_token, duo[0]), what="node free for a new agent")
    assert [c.version for c in fresh.open().take(total)] == list(range(1, total + 1))
    for agent in (fresh, agents[1]):
        agent.stop()


def _try_register(stub, token, node_name):
    try:
        return FakeAgent(stub, token, node_name)
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.ALREADY_EXISTS:
            raise
        return None


def test_instances_on_a_node_that_registers_later_are_deployed_when_it_registers(client, stub, duo, agent_token,
                                                                                  worker):
    deployment_id = deploy(client)
    assert {i["state"] for i in placement(client, deployment_id).values()} == {"placed"}  # no agents yet
    agents = [FakeAgent(stub, agent_token, name) for name in duo]
    placed = wait_until(lambda: (p := placement(client, deployment_id)) and
                        all(i["state"] == "deploying" for i in p.values()) and p, what="instances deploying")
    for agent in agents:
        agent.open()
    runs = by_node(agents, placed)
    deploys = [c for c in runs["gw"].take(1) if c.WhichOneof("action") == "deploy_instance"]
    assert deploys and deploys[0].deploy_instance.instance_id in {i["id"] for i in placed.values()}
    for agent in agents:
        agent.stop()


def test_deleting_a_deployment_removes_its_instances_from_the_agents(client, stub, duo, agent_token, worker):
    agents = [FakeAgent(stub, agent_token, name).open() for name in duo]
    deployment_id = deploy(client)
    placed = placement(client, deployment_id)
    runs = by_node(agents, placed)
    for agent in agents:
        n = sum(1 for i in placed.values() if i["node_id"] == agent.node_id) + 1
        for command in agent.take(n):
            if command.WhichOneof("action") == "deploy_instance":
                agent.ack(command.version)
    assert client.delete(f"/api/v1/deployments/{deployment_id}").status_code == 204
    on_gw_node = {i["id"] for i in placed.values() if i["node_id"] == runs["gw"].node_id}
    removed = runs["gw"].take(len(on_gw_node) + 1)
    assert [c.WhichOneof("action") for c in removed] == ["remove_instance"] * len(on_gw_node) + ["set_routes"]
    assert {c.remove_instance.instance_id for c in removed[:-1]} == on_gw_node
    assert list(removed[-1].set_routes.routes) == []
    for agent in agents:
        agent.stop()


def test_register_refuses_an_address_that_is_not_an_ip(stub, duo, agent_token):
    with pytest.raises(grpc.RpcError) as err:
        FakeAgent(stub, agent_token, duo[0], address="not-an-ip")
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "not-an-ip" in err.value.details()


def test_a_primary_is_told_where_its_backups_are(client, stub, duo, agent_token, worker):
    replicated = {**GATEWAY_KVS, "metadata": {"name": "kv-backed"},
                  "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 1},
                                     {"id": "ids", "service": "nids", "replicas": 1}], "edges": []}}
    assert client.post("/api/v1/applications", json=replicated).status_code == 201
    agents = [FakeAgent(stub, agent_token, name).open() for name in duo]
    r = client.post("/api/v1/deployments", json={"application": "kv-backed", "cluster": "duo"})
    assert wait_for_job(client, r.json()["job_id"])["state"] == "succeeded"
    items = client.get(f"/api/v1/deployments/{r.json()['deployment_id']}/placement").json()["items"]
    primary, backup = (next(i for i in items if i["role"] == role and i["dag_node"] == "kv")
                       for role in ("primary", "backup"))
    assert primary["node_id"] != backup["node_id"]  # a backup never shares its primary's server
    deploys = {c.deploy_instance.instance_id: c.deploy_instance for a in agents
               for c in a.take(1 + sum(i["node_id"] == a.node_id for i in items))
               if c.WhichOneof("action") == "deploy_instance"}
    assert dict(deploys[primary["id"]].config) == {"e3.backups": backup["id"]}
    assert dict(deploys[backup["id"]].config) == {} and deploys[backup["id"]].role == "backup"
    nids_primary = next(i for i in items if i["role"] == "primary" and i["dag_node"] == "ids")
    assert dict(deploys[nids_primary["id"]].config) == {}  # stateless: nothing to replicate
    for agent in agents:
        agent.stop()
