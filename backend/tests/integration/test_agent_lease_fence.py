"""The lease fence at the agent (docs/controller-scale-out.md, "Node leases and fencing"), on the wire: a real
e3-agent process against a stand-in AgentService that hands out lease epochs, which today's controller does not
do yet (it sends 0, unchecked). The agent sends the epoch it learnt from Register in StreamCommands and in its
heartbeats, NACKs `stale_controller` (through AckCommand) a command naming a lower one and does not apply it,
applies an equal or higher one and from then on sends the higher epoch, and keeps it across a reconnect to a
controller that answers Register with less."""

import queue
import socket
import subprocess
import threading
import uuid
from concurrent import futures

import grpc
import pytest
from helpers import stop_process, wait_until

from e3.core.embedded import free_tcp_port
from e3.dataplane import udp
from e3.emulation.binaries import agent_binary
from e3.rpc.pb import agent_pb2, agent_pb2_grpc

NODE_ID = str(uuid.uuid4())


class StandInController(agent_pb2_grpc.AgentServiceServicer):
    """Answers Register with `lease_epoch`, records what the agent sends, streams the commands put in `commands`."""

    def __init__(self, lease_epoch: int):
        self.lease_epoch = lease_epoch
        self.commands: queue.Queue = queue.Queue()
        self.stream_requests: list = []  # every StreamCommandsRequest, in order
        self.heartbeat_epochs: list[int] = []  # Heartbeat.lease_epoch of every heartbeat, in order
        self.acks: dict[int, agent_pb2.CommandAck] = {}
        self.end_command_stream = threading.Event()

    def Register(self, request, context):
        return agent_pb2.RegisterResponse(node_id=NODE_ID, heartbeat_period_ms=50, lease_epoch=self.lease_epoch)

    def StreamHeartbeats(self, request_iterator, context):
        accepted = 0
        for batch in request_iterator:
            self.heartbeat_epochs.extend(hb.lease_epoch for hb in batch.heartbeats)
            accepted += len(batch.heartbeats)
        return agent_pb2.HeartbeatSummary(accepted=accepted)

    def StreamCommands(self, request, context):
        self.stream_requests.append(request)
        while context.is_active() and not self.end_command_stream.is_set():
            try:
                yield self.commands.get(timeout=0.05)
            except queue.Empty:
                pass
        self.end_command_stream.clear()

    def AckCommand(self, request, context):
        self.acks[request.version] = request
        return agent_pb2.AckCommandResponse()

    def send(self, version: int, lease_epoch: int, **action) -> agent_pb2.CommandAck:
        self.acks.pop(version, None)  # a version sent again (by its owner, after a fenced copy) is answered anew
        self.commands.put(agent_pb2.Command(version=version, node_id=NODE_ID, lease_epoch=lease_epoch, **action))
        return wait_until(lambda: self.acks.get(version), timeout=10, what=f"the outcome of command {version}")

    def heartbeats_at(self, lease_epoch: int) -> bool:
        """The agent's latest heartbeats name `lease_epoch`."""
        return self.heartbeat_epochs[-3:] == [lease_epoch] * 3


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _deploy(port: int) -> dict:
    return dict(deploy_instance=agent_pb2.DeployInstance(instance_id="kv", service_type="kvs", role="primary",
                                                          port=port, epoch=1))


def _serves(port: int) -> bool:
    try:
        return udp.send("127.0.0.1", port, b"PUT k 1", timeout_s=0.5).body == b"OK"
    except udp.RequestFailed:
        return False


@pytest.fixture
def stand_in():
    controller = StandInController(lease_epoch=5)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    agent_pb2_grpc.add_AgentServiceServicer_to_server(controller, server)
    port = free_tcp_port()
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    controller.address = f"127.0.0.1:{port}"
    yield controller
    server.stop(grace=None)


@pytest.fixture
def agent(stand_in, tmp_path):
    log = tmp_path / "agent.log"
    proc = subprocess.Popen([str(agent_binary()), "--controller", stand_in.address, "--token", "t",
                             "--cluster", "fence", "--node", "s0/host", "--address", "127.0.0.1"],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    yield proc
    stop_process(proc)


def test_agent_fences_commands_of_a_controller_below_the_nodes_lease_epoch(stand_in, agent):
    # Register said 5: the command stream and the heartbeats name it
    wait_until(lambda: stand_in.stream_requests, timeout=15, what="the agent's StreamCommands")
    assert stand_in.stream_requests[0].lease_epoch == 5
    wait_until(lambda: stand_in.heartbeats_at(5), what="heartbeats at lease epoch 5")

    # a late command of the controller at epoch 4: NACKed, naming both epochs, and not applied
    port = _free_udp_port()
    ack = stand_in.send(1, 4, **_deploy(port))
    assert not ack.ok and ack.error.code == "stale_controller", ack
    assert "epoch 5" in ack.error.message and "lease epoch 4" in ack.error.message, ack.error.message
    assert not _serves(port)

    # the owner (epoch 5) delivers that version again: applied, the instance serves; 0: unchecked, applied
    assert stand_in.send(1, 5, **_deploy(port)).ok
    assert _serves(port)
    assert stand_in.send(2, 0, set_routes=agent_pb2.SetRoutes()).ok

    # higher: applied, and the heartbeats name it from then on; the epoch below it is now stale
    assert stand_in.send(3, 7, set_routes=agent_pb2.SetRoutes()).ok
    wait_until(lambda: stand_in.heartbeats_at(7), what="heartbeats at lease epoch 7")
    ack = stand_in.send(4, 6, remove_instance=agent_pb2.RemoveInstance(instance_id="kv"))
    assert not ack.ok and ack.error.code == "stale_controller", ack
    assert _serves(port)  # not removed

    # a reconnect to a controller answering Register with less keeps the highest epoch seen
    stand_in.lease_epoch = 3
    stand_in.end_command_stream.set()
    wait_until(lambda: len(stand_in.stream_requests) == 2, timeout=15, what="the agent's reconnect")
    assert stand_in.stream_requests[1].lease_epoch == 7
    assert stand_in.stream_requests[1].applied_version == 3  # the fenced version 4 is not handled
    assert agent.poll() is None
