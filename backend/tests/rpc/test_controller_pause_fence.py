"""A controller paused past its lease (SIGSTOP, then SIGCONT) sends nothing under the lease it lost (issue 22, "Bad
input"): a command issued while it was stopped goes out only once it has taken the node back under a new epoch,
if nobody took it meanwhile; if its agent moved to another controller, its old stream ends FAILED_PRECONDITION
`lease_lapsed` with nothing sent, and the other controller delivers the command. Real `e3 controller` processes;
the agent is this test speaking the agent protocol."""

import os
import queue
import signal
import threading
import time
import uuid

import grpc
from helpers import agent_auth as auth
from helpers import start_process, stop_process, wait_until
from sqlalchemy import select

from e3.core.db import session_scope
from e3.core.embedded import free_tcp_port
from e3.models import ComputeNode, node_leases
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


def _controller(backing_services, log_name):
    port = free_tcp_port()
    proc = start_process(["controller", "--port", str(port)], backing_services, log_name,
                         lambda log: b"controller listening" in log, E3_CONTROLLER_LEASE_MS=str(LEASE_MS),
                         E3_CONTROLLER_RENEW_MS="250")
    return proc, port


def _log(backing_services, name: str) -> bytes:
    return (backing_services["root"] / name).read_bytes()


def _lease(node_id: str) -> tuple:
    with session_scope() as session:
        row = session.execute(select(node_leases.c.controller_id, node_leases.c.epoch)
                              .where(node_leases.c.node_id == uuid.UUID(node_id))).one()
        return tuple(row)


def test_a_controller_paused_past_its_lease_sends_nothing_under_it_and_takes_back_what_nobody_took(
        backing_services, lab, agent_token):
    controller, port = _controller(backing_services, "paused-controller.log")
    node_name = next(n["name"] for n in lab if n["kind"] == "host")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            first = _register(stub, agent_token, node_name)
            reader = CommandReader(stub, agent_token, first)
            sent = _issue(first.node_id)
            command = reader.received.get(timeout=10)  # a working stream: the command arrives at once
            assert (command.version, command.lease_epoch) == (sent, first.lease_epoch)
            holder_before, _ = _lease(first.node_id)

            os.kill(controller.pid, signal.SIGSTOP)
            try:
                time.sleep(3 * LEASE_MS / 1000)  # well past its lease
                late = _issue(first.node_id)  # committed and NOTIFYed while the controller cannot act
            finally:
                os.kill(controller.pid, signal.SIGCONT)

            # nobody took the node meanwhile: the controller comes back as a new one, takes the node over under a
            # new epoch, and only then sends the late command, carrying that epoch, on the same stream
            command = reader.received.get(timeout=10)
            holder, epoch = _lease(first.node_id)
            assert command.version == late and command.lease_epoch == epoch > first.lease_epoch
            assert holder != holder_before
            reader.call.cancel()
    finally:
        os.kill(controller.pid, signal.SIGCONT)
        stop_process(controller)
    log = (backing_services["root"] / "paused-controller.log").read_text()
    assert "its lease lapsed" in log
    # its own pause is not its node's silence: the node was not taken down for it on resuming
    assert "its nodes' silence meanwhile is not counted" in log


def test_a_controller_paused_while_its_node_moved_sends_it_nothing_on_resuming(backing_services, lab, agent_token):
    paused, paused_port = _controller(backing_services, "paused-a.log")
    other, other_port = _controller(backing_services, "other-b.log")
    node_name = next(n["name"] for n in lab if n["kind"] == "host")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{paused_port}") as a, \
                grpc.insecure_channel(f"127.0.0.1:{other_port}") as b:
            at_a = agent_pb2_grpc.AgentServiceStub(a)
            first = _register(at_a, agent_token, node_name)
            reader = CommandReader(at_a, agent_token, first)
            sent = _issue(first.node_id)
            assert reader.received.get(timeout=10).version == sent  # the stream is open
            wait_until(lambda: b" leads: " in _log(backing_services, "paused-a.log"), what="the first one leading")
            os.kill(paused.pid, signal.SIGSTOP)
            paused_at = time.monotonic()
            try:
                # the other breaks the paused leader's lock once its lease has expired, and leads
                wait_until(lambda: b" leads: " in _log(backing_services, "other-b.log"), timeout=3 * LEASE_MS / 1000,
                           what="the other one leading while the leader is paused")
                assert b"whose lease has expired" in _log(backing_services, "other-b.log")
                time.sleep(max(0.0, paused_at + 3 * LEASE_MS / 1000 - time.monotonic()))  # well past its lease
                # meanwhile its agent registers at the other controller (as one does when its controller
                # stops answering), and a command is issued
                moved = _register(agent_pb2_grpc.AgentServiceStub(b), agent_token, node_name)
                assert moved.lease_epoch > first.lease_epoch
                late = _issue(first.node_id)
            finally:
                os.kill(paused.pid, signal.SIGCONT)

            # the paused one sends nothing on its old stream: it ends FAILED_PRECONDITION, saying why (its lease
            # lapsed, or the node is at another controller now: whichever it finds first)
            code, details = reader.ended.get(timeout=10)
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "register again" in details, (code, details)
            assert reader.received.empty(), "a controller that lost the node sent it a command"
            # the other one delivers it, under its epoch
            at_b = CommandReader(agent_pb2_grpc.AgentServiceStub(b), agent_token, moved, applied_version=sent)
            command = at_b.received.get(timeout=10)
            assert (command.version, command.lease_epoch) == (late, moved.lease_epoch)
            at_b.call.cancel()
            # resumed, the old leader finds its session ended: it leads no more
            wait_until(lambda: b"no longer leading" in _log(backing_services, "paused-a.log"), what="the lead given up")
    finally:
        for proc in (paused, other):
            os.kill(proc.pid, signal.SIGCONT)
            stop_process(proc)
