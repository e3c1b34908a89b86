"""Agent identity (issue 19, finding 5) with real e3-agent processes (`e3 cluster up --mode local`) and the real
controller: another agent credential, knowing a node's agent id, cannot take the node over (the real agent keeps
running it and answering its commands); each server's agents get their own bound token, revoked at `down`."""

import time
import uuid

import grpc
import pytest
from helpers import agent_auth, wait_until
from sqlalchemy import func, select

from e3.core.db import session_scope
from e3.models import ComputeNode, NodeCommand, node_rollups
from e3.rpc.pb import agent_pb2, agent_pb2_grpc
from e3.services import commands


def _refused(call):
    with pytest.raises(grpc.RpcError) as err:
        call()
    return err.value.code(), err.value.details()


def _command_state(node_id, version):
    with session_scope() as session:
        return session.scalar(select(NodeCommand.state).where(NodeCommand.node_id == node_id,
                                                              NodeCommand.version == version))


@pytest.mark.chaos
def test_issue19_item5_another_credential_cannot_take_over_a_real_agents_node(client, controller, local_cluster,
                                                                              make_token):
    node = client.get("/api/v1/clusters/duo/nodes").json()["items"][0]  # as admin: its agent id is shown
    agent_id, node_id = node["agent_id"], node["id"]
    assert agent_id and node["address"] == "127.0.0.1"
    impostor = agent_auth(make_token("agent", name="impostor"))
    with grpc.insecure_channel(controller.address) as channel:
        stub = agent_pb2_grpc.AgentServiceStub(channel)
        calls = {
            "register": lambda: stub.Register(agent_pb2.RegisterRequest(agent_id=agent_id, node=agent_pb2.NodeIdentity(
                name=node["name"], cluster_name="duo", address="10.66.6.6")), metadata=impostor, timeout=10),
            "heartbeats": lambda: stub.StreamHeartbeats(iter([agent_pb2.HeartbeatBatch(
                agent_id=agent_id, sequence=1, heartbeats=[agent_pb2.Heartbeat(
                    node_id=node_id, timestamp_unix_ns=time.time_ns(), queue_length=4242, power_watts=1,
                    power_source=agent_pb2.POWER_SOURCE_MODEL)])]), metadata=impostor, timeout=10),
            "commands": lambda: next(stub.StreamCommands(agent_pb2.StreamCommandsRequest(
                agent_id=agent_id, node_id=node_id), metadata=impostor, timeout=10)),
            "ack": lambda: stub.AckCommand(agent_pb2.CommandAck(agent_id=agent_id, node_id=node_id, version=999999,
                                                                ok=True), metadata=impostor, timeout=10),
        }
        for what, call in calls.items():
            code, details = _refused(call)
            assert code == grpc.StatusCode.PERMISSION_DENIED and agent_id not in details, (what, code, details)

    # the real agent still runs the node: its command stream answers a command issued now
    with session_scope() as session:
        row = session.get(ComputeNode, uuid.UUID(node_id))
        version = commands.issue(session, row.cluster_id, row.id, "set_routes", dict(routes=[]))
    wait_until(lambda: _command_state(uuid.UUID(node_id), version) == "acked", timeout=15, what="the agent's ACK")
    after = client.get("/api/v1/clusters/duo/nodes").json()["items"][0]
    assert (after["agent_id"], after["address"], after["state"]) == (agent_id, "127.0.0.1", "up")
    with session_scope() as session:
        assert not session.scalar(select(func.count()).select_from(node_rollups).where(node_rollups.c.queue_len_max == 4242))


def test_issue19_item5_each_servers_agents_have_their_own_token_revoked_at_down(client, e3, local_cluster):
    def tokens():
        return [t for t in client.get("/api/v1/tokens", params={"limit": 1000}).json()["items"]
                if t["name"].startswith("local-duo.")]

    servers = sorted({n["server"] for n in client.get("/api/v1/clusters/duo/nodes").json()["items"]})
    cluster_id = client.get("/api/v1/clusters/duo").json()["id"]
    issued = tokens()
    assert sorted(t["servers"][0] for t in issued) == servers and all(len(t["servers"]) == 1 for t in issued)
    assert {t["cluster_id"] for t in issued} == {cluster_id} and all(t["revoked_at"] is None for t in issued)

    e3("cluster", "down", "duo", extra_env=local_cluster["env"])
    assert len(tokens()) == len(servers) and all(t["revoked_at"] for t in tokens())
