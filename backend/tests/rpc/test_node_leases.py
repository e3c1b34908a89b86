"""Node leases through the real controller: Register answers the node's lease epoch, a new controller taking the
node raises it, its commands carry it, and what an agent sends under an older epoch is refused (a heartbeat with a
reason, counted; a command stream FAILED_PRECONDITION naming the current epoch)."""

import asyncio
import uuid

import grpc
import pytest
from helpers import agent_auth as auth
from test_agent_service import batch, heartbeat, names, register

from e3.core.db import in_session
from e3.models import ComputeNode
from e3.rpc.pb import agent_pb2, agent_pb2_grpc
from e3.services import commands


def test_a_new_controller_raises_the_nodes_epoch_and_refuses_what_is_sent_under_the_old_one(start_controller, lab,
                                                                                             agent_token):
    name = names(lab, "smartnic")[0]
    first = start_controller()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{first.port}") as channel:
            old = register(agent_pb2_grpc.AgentServiceStub(channel), agent_token, name, agent_id="agent-1")
    finally:
        first.stop()
    second = start_controller()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{second.port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            new = register(stub, agent_token, name, agent_id="agent-1")
            assert (old.lease_epoch, new.lease_epoch) == (1, 2)  # the node changed controller
            assert register(stub, agent_token, name, agent_id="agent-1").lease_epoch == 2  # a reconnect keeps it

            stale, current = heartbeat(new.node_id), heartbeat(new.node_id)
            stale.lease_epoch, current.lease_epoch = 1, 2
            summary = stub.StreamHeartbeats(iter([batch("agent-1", 1, stale, current)]), metadata=auth(agent_token),
                                            timeout=10)
            assert (summary.accepted, summary.rejected) == (1, 1)
            assert summary.rejections[0].reason == "stale lease epoch: 1, the node's lease is at epoch 2 (register again)"
            assert second.controller.hub.rejected["stale_epoch"] == 1

            with pytest.raises(grpc.RpcError) as refused:
                next(stub.StreamCommands(agent_pb2.StreamCommandsRequest(
                    agent_id="agent-1", node_id=new.node_id, lease_epoch=1), metadata=auth(agent_token), timeout=10))
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "epoch 2" in refused.value.details()

            second.call(_issue_routes(new.node_id))
            stream = stub.StreamCommands(agent_pb2.StreamCommandsRequest(
                agent_id="agent-1", node_id=new.node_id, lease_epoch=2), metadata=auth(agent_token), timeout=10)
            command = next(stream)
            assert command.lease_epoch == 2  # every command carries the epoch its controller holds
            stream.cancel()
    finally:
        second.stop()


async def _issue_routes(node_id: str) -> None:
    """A command for the node, as the worker or the API would issue one."""
    def issue(session):
        node = session.get(ComputeNode, uuid.UUID(node_id))
        commands.issue(session, node.cluster_id, node.id, "set_routes", {"routes": []})

    await asyncio.to_thread(in_session, issue)
