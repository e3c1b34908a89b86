"""Agent identity (issue 19, finding 5) against the real controller: a node is its registering credential's.
Another agent credential, even knowing the agent id, cannot register the node, heartbeat for it, read its
commands or ACK them (PERMISSION_DENIED, nothing stored, the real agent's streams undisturbed); refusals name
no agent id; an ACK of a version never sent is refused; read-scope answers carry no agent ids; a revoked
credential is refused at once and its open streams end; a bound credential runs only its servers' nodes."""

import queue
import threading
import time
import uuid

import grpc
import pytest
import redis
from helpers import agent_auth as auth
from helpers import latest_state
from helpers import wait_until
from sqlalchemy import func, select

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, NodeCommand, node_rollups
from e3.rpc.pb import agent_pb2
from e3.services import commands

MARK = 4242  # the queue length the impostor's heartbeats carry


def _register(stub, token, node_name, agent_id, address="10.0.0.7"):
    return stub.Register(agent_pb2.RegisterRequest(agent_id=agent_id, node=agent_pb2.NodeIdentity(
        name=node_name, cluster_name="lab", address=address, software_version="test")), metadata=auth(token),
        timeout=10).node_id


def _beat(node_id, queue_length=1):
    return agent_pb2.Heartbeat(node_id=node_id, timestamp_unix_ns=time.time_ns(), queue_length=queue_length,
                               power_watts=50, power_source=agent_pb2.POWER_SOURCE_MODEL)


def _refusal(call):
    with pytest.raises(grpc.RpcError) as err:
        call()
    return err.value.code(), err.value.details()


class Agent:
    """A node's agent: registered, heartbeating every 50 ms and reading its command stream until stop()."""

    def __init__(self, stub, token, node_name, agent_id):
        self.stub, self.token, self.agent_id = stub, token, agent_id
        self.node_id = _register(stub, token, node_name, agent_id)
        self.commands: queue.Queue = queue.Queue()
        self.heartbeats_ended: list = []
        self.commands_ended: list = []
        self.running = threading.Event()
        self.running.set()
        self.stream = stub.StreamCommands(agent_pb2.StreamCommandsRequest(agent_id=agent_id, node_id=self.node_id),
                                          metadata=auth(token))
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._heartbeat, daemon=True).start()

    def _read(self):
        try:
            for command in self.stream:
                self.commands.put(command)
            self.commands_ended.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            self.commands_ended.append(exc.code())

    def _heartbeat(self):
        def batches():
            sequence = 0
            while self.running.is_set():
                sequence += 1
                yield agent_pb2.HeartbeatBatch(agent_id=self.agent_id, sequence=sequence,
                                               heartbeats=[_beat(self.node_id)])
                time.sleep(0.05)
        try:
            self.stub.StreamHeartbeats(batches(), metadata=auth(self.token))
            self.heartbeats_ended.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            self.heartbeats_ended.append(exc.code())

    def ack(self, version, token=None, agent_id=None):
        self.stub.AckCommand(agent_pb2.CommandAck(agent_id=agent_id or self.agent_id, node_id=self.node_id,
                                                  version=version, ok=True),
                             metadata=auth(token or self.token), timeout=10)

    def stop(self):
        self.running.clear()
        self.stream.cancel()


@pytest.fixture
def agents():
    started = []
    yield started
    for agent in started:
        agent.stop()


def _issue_command(node_id) -> int:
    with session_scope() as session:
        row = session.get(ComputeNode, uuid.UUID(node_id))
        return commands.issue(session, row.cluster_id, row.id, "set_routes", dict(routes=[]))


def _command_state(node_id, version):
    with session_scope() as session:
        return session.scalar(select(NodeCommand.state).where(NodeCommand.node_id == uuid.UUID(node_id),
                                                              NodeCommand.version == version))


def _events(kind):
    with session_scope() as session:
        return [e.data for e in session.scalars(select(Event).where(Event.kind == kind).order_by(Event.id))]


def _rows_with_queue(node_id, queue_length):
    with session_scope() as session:
        return session.scalar(select(func.count()).select_from(node_rollups).where(
            node_rollups.c.node_id == uuid.UUID(node_id), node_rollups.c.queue_len_max == queue_length))


def _marked_rows(node_id):
    return _rows_with_queue(node_id, MARK)


def _host(lab, index=0):
    return [n["name"] for n in lab if n["kind"] == "host"][index]


def test_issue19_item5_another_credential_cannot_register_heartbeat_read_commands_or_ack_for_a_node(
        stub, lab, agent_token, make_token, agents, backing_services):
    victim = Agent(stub, agent_token, _host(lab), "victim-agent-1")
    agents.append(victim)
    impostor = make_token("agent", name="impostor")
    node = victim.node_id

    # registering the live node again, at another address, with the victim's agent id
    code, details = _refusal(lambda: _register(stub, impostor, _host(lab), "victim-agent-1", address="10.66.6.6"))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "victim-agent-1" not in details
    with session_scope() as session:
        row = session.get(ComputeNode, uuid.UUID(node))
        assert (row.address, row.agent_id) == ("10.0.0.7", "victim-agent-1")

    # heartbeats for it, under the victim's agent id: refused, none stored, its live state untouched
    code, details = _refusal(lambda: stub.StreamHeartbeats(iter([agent_pb2.HeartbeatBatch(
        agent_id="victim-agent-1", sequence=1, heartbeats=[_beat(node, MARK)])]), metadata=auth(impostor), timeout=10))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "victim-agent-1" not in details
    time.sleep(0.3)  # the writer flushes within 50 ms: a stored row would be there now
    assert _marked_rows(node) == 0
    live = latest_state(redis.Redis.from_url(backing_services["redis_url"]), node)
    assert live is None or live["queue_len"] != MARK

    # its command stream: refused, and the victim's stream is not ended (it still receives commands)
    code, details = _refusal(lambda: next(stub.StreamCommands(agent_pb2.StreamCommandsRequest(
        agent_id="victim-agent-1", node_id=node), metadata=auth(impostor), timeout=10)))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "victim-agent-1" not in details
    version = _issue_command(node)
    assert victim.commands.get(timeout=10).version == version
    assert victim.stream.is_active() and victim.commands_ended == [] and victim.heartbeats_ended == []

    # ACKing its command (and a version that does not exist): refused, nothing recorded
    for bogus in (version, 999999):
        code, details = _refusal(lambda: victim.ack(bogus, token=impostor))
        assert code == grpc.StatusCode.PERMISSION_DENIED and "victim-agent-1" not in details
    assert _command_state(node, version) == "pending" and _events("command.ack") == []

    victim.ack(version)  # the real agent's ACK still counts
    assert _command_state(node, version) == "acked"
    with session_scope() as session:
        assert session.get(ComputeNode, uuid.UUID(node)).state == "up"


def test_issue19_item5_an_ack_of_a_version_never_sent_is_refused_and_nothing_stored(stub, lab, agent_token, agents):
    agent = Agent(stub, agent_token, _host(lab), "acker")
    agents.append(agent)
    version = _issue_command(agent.node_id)
    assert agent.commands.get(timeout=10).version == version
    code, details = _refusal(lambda: agent.ack(999999))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "999999" in details
    assert _events("command.ack") == [] and _command_state(agent.node_id, version) == "pending"
    agent.ack(version)
    assert [e["version"] for e in _events("command.ack")] == [version]


def test_issue19_item5_read_scope_answers_carry_no_agent_ids(stub, lab, agent_token, agents, client, anon_client,
                                                             make_token):
    agents.append(Agent(stub, agent_token, _host(lab), "secret-agent-id"))
    reader = {"Authorization": f"Bearer {make_token('read', name='viewer')}"}
    for path in ("/api/v1/clusters/lab", "/api/v1/clusters/lab/nodes?limit=100", "/api/v1/events?limit=1000",
                 "/api/v1/clusters/lab/layout"):
        r = anon_client.get(path, headers=reader)
        assert r.status_code == 200 and "secret-agent-id" not in r.text, path
    shown = {n["name"]: n["agent_id"] for n in client.get("/api/v1/clusters/lab/nodes?limit=100").json()["items"]}
    assert shown[_host(lab)] == "secret-agent-id"  # an admin still sees which agent runs the node


def test_issue19_item5_a_revoked_credential_is_refused_at_once_and_its_open_streams_end(stub, lab, client, agents):
    created = client.post("/api/v1/tokens", json={"name": "host-agent", "scopes": ["agent"]}).json()
    agent = Agent(stub, created["token"], _host(lab), "soon-revoked")
    agents.append(agent)
    version = _issue_command(agent.node_id)
    assert agent.commands.get(timeout=10).version == version  # its command stream is open

    assert client.delete(f"/api/v1/tokens/{created['id']}").status_code == 200
    code, _ = _refusal(lambda: _register(stub, created["token"], _host(lab), "soon-revoked"))
    assert code == grpc.StatusCode.UNAUTHENTICATED  # a new call, at once
    # the streams opened before the revocation end within the watch's period (1 s)
    wait_until(lambda: agent.commands_ended and agent.heartbeats_ended, timeout=5, what="both streams ended")
    assert agent.commands_ended == [grpc.StatusCode.UNAUTHENTICATED]
    assert agent.heartbeats_ended == [grpc.StatusCode.UNAUTHENTICATED]

    # the revoked credential's node can now be handed to a new one
    successor = client.post("/api/v1/tokens", json={"name": "host-agent-2", "scopes": ["agent"]}).json()["token"]
    assert _register(stub, successor, _host(lab), "successor") == agent.node_id


def test_issue19_item5_a_bound_credential_runs_only_the_nodes_of_its_servers(stub, lab, client):
    servers = sorted({n["server"] for n in lab})
    bound = client.post("/api/v1/tokens", json={"name": "s0-agent", "scopes": ["agent"], "cluster": "lab",
                                                 "servers": [servers[0]]})
    assert bound.status_code == 201 and bound.json()["servers"] == [servers[0]]
    token = bound.json()["token"]
    assert _register(stub, token, f"{servers[0]}/host", "s0")
    code, details = _refusal(lambda: _register(stub, token, f"{servers[1]}/host", "s0"))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "s0-agent" in details

    refused = client.post("/api/v1/tokens", json={"name": "x", "scopes": ["agent"], "cluster": "nowhere"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "cluster"
    refused = client.post("/api/v1/tokens", json={"name": "x", "scopes": ["agent"], "cluster": "lab",
                                                   "servers": ["no-such-server"]})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "servers"
    refused = client.post("/api/v1/tokens", json={"name": "x", "scopes": ["read"], "cluster": "lab"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "cluster"


def test_a_batch_naming_another_credentials_node_is_refused_and_only_that_heartbeat_counted_forbidden(
        stub, controller, lab, agent_token, make_token, agents):
    victim = Agent(stub, agent_token, _host(lab), "victim-agent-1")
    agents.append(victim)
    impostor = make_token("agent", name="impostor")
    own = _register(stub, impostor, _host(lab, 1), "impostor-agent")
    hub = controller.controller.hub
    before = hub.rejected["forbidden"]
    code, _ = _refusal(lambda: stub.StreamHeartbeats(iter([agent_pb2.HeartbeatBatch(
        agent_id="impostor-agent", sequence=1, heartbeats=[_beat(own, 7), _beat(victim.node_id, MARK)])]),
        metadata=auth(impostor), timeout=10))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    # the victim's node's heartbeat, not the impostor's own (behind the ingest front, counted in its next delivery)
    wait_until(lambda: hub.rejected["forbidden"] - before == 1, timeout=5, what="one heartbeat counted forbidden")
    assert _marked_rows(victim.node_id) == 0
    wait_until(lambda: _rows_with_queue(own, 7) == 1)  # the impostor's own node's heartbeat was kept
