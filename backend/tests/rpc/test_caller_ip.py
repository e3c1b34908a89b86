"""Register's addresses come from the caller's IP: a TCP caller's own `x-e3-peer` metadata names nothing (only the
ingest front, over the controller's unix socket, may name its caller that way: tests/integration/
test_ingest_front_local.py)."""

import uuid

from helpers import agent_auth

from e3.core.db import session_scope
from e3.models import ComputeNode
from e3.rpc.pb import agent_pb2


def test_a_tcp_callers_x_e3_peer_is_ignored(stub, lab, agent_token):
    host = next(n for n in lab if n["kind"] == "host")
    answer = stub.Register(agent_pb2.RegisterRequest(agent_id="agent-spoof", node=agent_pb2.NodeIdentity(
        name=host["name"], cluster_name="lab")), metadata=[*agent_auth(agent_token), ("x-e3-peer", "10.66.6.6")],
        timeout=10)
    with session_scope() as session:
        node = session.get(ComputeNode, uuid.UUID(answer.node_id))
        assert (node.address, node.control_address) == ("127.0.0.1", "127.0.0.1")
