"""A controller paused past its lease (SIGSTOP, then SIGCONT) sends nothing on resuming (issue 22, "Bad input"): a
command issued while it was stopped does not go down the stream it had open, which ends FAILED_PRECONDITION
`lease_lapsed`; the agent registers again, under a higher lease epoch, and gets the command then. A real
`e3 controller` process; the agent is this test speaking the agent protocol."""

import os
import queue
import signal
import threading
import time
import uuid

import grpc
from helpers import agent_auth as auth
from helpers import start_process, stop_process, wait_until

from e3.core.db import session_scope
from e3.core.embedded import free_tcp_port
from e3.models import ComputeNode
from e3.rpc.pb import agent_pb2, agent_pb2_grpc
from e3.services import commands

LEASE_MS = 1000


def _register(stub, token, node_name) -> agent_pb2.RegisterResponse:
    return stub.Register(agent_pb2.RegisterRequest(agent_id="paused-agent", node=agent_pb2.NodeIdentity(
        name=node_name, cluster_name="lab", address="10.0.0.9", software_version="test")), metadata=auth(token),
        timeout=10)


def _issue(node_id: str) -> int:
    with session_scope() as session:
        row = session.get(ComputeNode, uuid.UUID(node_id))
        return commands.issue(session, row.cluster_id, row.id, "set_routes", dict(routes=[]))


class CommandReader:
    """A StreamCommands call read on a thread: its commands in `received`, its end in `ended` (code, details)."""

    def __init__(self, stub, token, registered: agent_pb2.RegisterResponse, applied_version: int = 0):
        self.received: queue.Queue = queue.Queue()
        self.ended: queue.Queue = queue.Queue()
        self.call = stub.StreamCommands(agent_pb2.StreamCommandsRequest(
            agent_id="paused-agent", node_id=registered.node_id, applied_version=applied_version,
            lease_epoch=registered.lease_epoch), metadata=auth(token))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for command in self.call:
                self.received.put(command)
            self.ended.put((grpc.StatusCode.OK, ""))
        except grpc.RpcError as exc:
            self.ended.put((exc.code(), exc.details()))


def test_a_controller_paused_past_its_lease_sends_nothing_on_resuming(backing_services, lab, agent_token):
    port = free_tcp_port()
    controller = start_process(["controller", "--port", str(port)], backing_services, "paused-controller.log",
                               lambda log: b"controller listening" in log, E3_CONTROLLER_LEASE_MS=str(LEASE_MS),
                               E3_CONTROLLER_RENEW_MS="250")
    node_name = next(n["name"] for n in lab if n["kind"] == "host")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            first = _register(stub, agent_token, node_name)
            reader = CommandReader(stub, agent_token, first)
            sent = _issue(first.node_id)
            command = reader.received.get(timeout=10)  # a working stream: the command arrives at once
            assert (command.version, command.lease_epoch) == (sent, first.lease_epoch)

            os.kill(controller.pid, signal.SIGSTOP)
            try:
                time.sleep(3 * LEASE_MS / 1000)  # well past its lease
                late = _issue(first.node_id)  # committed and NOTIFYed while the controller cannot act
            finally:
                os.kill(controller.pid, signal.SIGCONT)

            code, details = reader.ended.get(timeout=10)
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "lease lapsed" in details, (code, details)
            assert reader.received.empty(), "a command went out after the lease had lapsed"

            again = wait_until(lambda: _register_or_none(stub, agent_token, node_name), timeout=10,
                               what="registering again after the lapse")
            assert again.node_id == first.node_id and again.lease_epoch > first.lease_epoch
            resumed = CommandReader(stub, agent_token, again, applied_version=sent)
            command = resumed.received.get(timeout=10)
            assert (command.version, command.lease_epoch) == (late, again.lease_epoch)
            resumed.call.cancel()
    finally:
        os.kill(controller.pid, signal.SIGCONT)
        stop_process(controller)
    log = (backing_services["root"] / "paused-controller.log").read_text()
    assert "its lease lapsed" in log


def _register_or_none(stub, token, node_name):
    try:
        return _register(stub, token, node_name)
    except grpc.RpcError:
        return None
