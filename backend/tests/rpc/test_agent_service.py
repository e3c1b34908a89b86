"""Agents against the real controller: register, stream heartbeats, get refused for the right reasons,
go suspect then down when silent, keep a command stream open and have their ACK/NACKs recorded."""

import json
import threading
import time
import uuid

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers import agent_auth as auth
from helpers import latest_state
from helpers import wait_until
from sqlalchemy import func, select

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, instance_rollups, node_rollups
from e3.rpc.pb import agent_pb2, agent_pb2_grpc
from e3.services import commands


def register(stub, token, node_name, agent_id=None, cluster="lab", kind=agent_pb2.NODE_KIND_UNSPECIFIED, server=""):
    request = agent_pb2.RegisterRequest(agent_id=agent_id or str(uuid.uuid4()), node=agent_pb2.NodeIdentity(
        name=node_name, kind=kind, cluster_name=cluster, server_name=server, software_version="test-agent 0"))
    return stub.Register(request, metadata=auth(token), timeout=10)


def heartbeat(node_id: str, queue_length=3, instances=1, power_source=agent_pb2.POWER_SOURCE_MODEL, cpu=0.4,
              ts_ns=None) -> agent_pb2.Heartbeat:
    return agent_pb2.Heartbeat(
        node_id=node_id, timestamp_unix_ns=ts_ns or time.time_ns(), queue_length=queue_length, rx_bytes=5120,
        tx_bytes=4096, rx_packets=10, tx_packets=8, cpu_utilization=cpu, power_watts=17.5, power_source=power_source,
        instances=[agent_pb2.InstanceStats(instance_id=f"inst-{i}", requests_completed=100, exec_time_us=41.0,
                                           exec_time_ema_us=40.0, cpu_share=0.1) for i in range(instances)])


def batch(agent_id, sequence, *beats):
    return agent_pb2.HeartbeatBatch(agent_id=agent_id, sequence=sequence, heartbeats=list(beats))


def names(lab, kind):
    return [n["name"] for n in lab if n["kind"] == kind]


def events(kind=None):
    with session_scope() as session:
        query = select(Event).order_by(Event.id)
        if kind:
            query = query.where(Event.kind == kind)
        return [(e.kind, e.subject, e.data) for e in session.scalars(query)]


def node_state(node_id):
    with session_scope() as session:
        return session.get(ComputeNode, uuid.UUID(node_id)).state


def stored_rows(node_id=None):
    """Heartbeats stored: counted in the rollups (all nodes', or one's)."""
    with session_scope() as session:
        query = select(func.coalesce(func.sum(node_rollups.c.heartbeats), 0))
        if node_id:
            query = query.where(node_rollups.c.node_id == uuid.UUID(node_id))
        return session.scalar(query)


def rollup_sums(node_id):
    """Σ over the node's rollup rows: heartbeats, its instances' requests, queue maximum."""
    with session_scope() as session:
        nodes = session.execute(select(func.sum(node_rollups.c.heartbeats), func.sum(node_rollups.c.requests),
                                       func.max(node_rollups.c.queue_len_max))
                                .where(node_rollups.c.node_id == uuid.UUID(node_id))).one()
        instances = session.scalar(select(func.sum(instance_rollups.c.requests))
                                   .where(instance_rollups.c.node_id == uuid.UUID(node_id)))
    return (*nodes, instances)


def code_of(call):
    with pytest.raises(grpc.RpcError) as err:
        call()
    return err.value.code(), err.value.details()


# --- Register ---------------------------------------------------------------------------------------

def test_register_returns_the_node_id_and_period_and_marks_it_up(stub, lab, agent_token):
    host = next(n for n in lab if n["kind"] == "host")
    with session_scope() as session:
        session.get(ComputeNode, uuid.UUID(host["id"])).state = "down"
    answer = register(stub, agent_token, host["name"], kind=agent_pb2.NODE_KIND_HOST)
    assert answer.node_id == host["id"] and answer.heartbeat_period_ms == 50
    assert node_state(answer.node_id) == "up"
    kinds = [k for k, subject, _ in events() if subject == f"node/{host['id']}"]
    assert kinds == ["node.registered", "node.up"]


def test_register_refusals_name_the_reason(stub, lab, agent_token, make_token):
    host, nic = names(lab, "host")[0], names(lab, "smartnic")[0]
    code, _ = code_of(lambda: register(stub, "e3_not-a-token", host))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    code, _ = code_of(lambda: stub.Register(agent_pb2.RegisterRequest(agent_id="a", node=agent_pb2.NodeIdentity(
        name=host, cluster_name="lab")), timeout=10))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    code, details = code_of(lambda: register(stub, make_token("read", "write", "deploy"), host))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "agent" in details
    code, details = code_of(lambda: register(stub, agent_token, host, cluster="nowhere"))
    assert code == grpc.StatusCode.NOT_FOUND and "cluster 'nowhere'" in details
    code, details = code_of(lambda: register(stub, agent_token, "no-such-server/host"))
    assert code == grpc.StatusCode.NOT_FOUND and "no-such-server/host" in details
    code, details = code_of(lambda: register(stub, agent_token, nic, kind=agent_pb2.NODE_KIND_HOST))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "smartnic" in details
    code, details = code_of(lambda: register(stub, agent_token, host, server="elsewhere"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and f"on server '{host.split('/')[0]}', not 'elsewhere'" in details

    first = register(stub, agent_token, host, agent_id="agent-1")
    assert register(stub, agent_token, host, agent_id="agent-1").node_id == first.node_id  # reconnect: fine
    code, details = code_of(lambda: register(stub, agent_token, host, agent_id="agent-2"))
    assert code == grpc.StatusCode.ALREADY_EXISTS and "agent-1" not in details  # no id to impersonate it with


# --- Heartbeats -------------------------------------------------------------------------------------

def test_heartbeats_reach_postgres_and_the_latest_state_reaches_redis(stub, lab, agent_token, backing_services):
    agent = "agent-hb"
    ids = [register(stub, agent_token, name, agent_id=agent).node_id for name in names(lab, "smartnic")[:2]]
    r = redis.Redis.from_url(backing_services["redis_url"])
    pubsub = r.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe("e3:live")
    wait_until(lambda: r.pubsub_numsub("e3:live")[0][1] >= 1, what="subscription")
    summary = stub.StreamHeartbeats(iter([batch(agent, seq, *(heartbeat(i, queue_length=seq) for i in ids))
                                          for seq in (1, 2, 3)]), metadata=auth(agent_token), timeout=10)
    assert (summary.accepted, summary.rejected) == (6, 0)
    assert stored_rows() == 6 and all(stored_rows(i) == 3 for i in ids)
    # the summary came once they were written, rollups too: 3 heartbeats of 100 requests each, queue at most 3
    assert all(rollup_sums(i) == (3, 300, 3, 300) for i in ids)
    live = latest_state(r, ids[0])
    assert live["queue_len"] == 3 and live["power_source"] == "model"
    assert live["instances"][0]["exec_ema_us"] == 40.0
    messages = []

    def three_messages():
        if (message := pubsub.get_message(timeout=0.1)) is not None:
            messages.append(message)
        return len(messages) >= 3

    wait_until(three_messages, what="3 live messages")
    first = json.loads(messages[0]["data"])
    assert first["type"] == "heartbeats" and {h["node_id"] for h in first["heartbeats"]} == set(ids)
    pubsub.close()


def test_bad_heartbeats_are_refused_with_reasons_and_good_ones_in_the_same_stream_kept(stub, lab, agent_token):
    mine = register(stub, agent_token, names(lab, "smartnic")[0], agent_id="mine").node_id
    theirs = register(stub, agent_token, names(lab, "smartnic")[1], agent_id="theirs").node_id
    poisoned = heartbeat(mine)
    poisoned.instances[0].instance_id = "inst\x00-0"  # JSON would carry it; Postgres jsonb would not
    batches = [
        batch("mine", 1,
              heartbeat(mine),                                                   # 0 good
              heartbeat(str(uuid.uuid4())),                                      # 1 unknown node
              heartbeat(theirs),                                                 # 2 another agent's node
              heartbeat(mine, power_source=agent_pb2.POWER_SOURCE_UNSPECIFIED),  # 3 no power source
              heartbeat(mine, instances=65),                                     # 4 too many instances
              heartbeat(mine, cpu=1.5),                                          # 5 malformed
              heartbeat("not-a-uuid"),                                           # 6 malformed id
              heartbeat(mine, ts_ns=1),                                          # 7 timestamp from 1970
              poisoned),                                                         # 8 NUL in an instance id
        batch("mine", 2, *(heartbeat(mine) for _ in range(1001))),               # oversized batch
        batch("mine", 3, heartbeat(mine, queue_length=9)),                       # good, after all that
    ]
    summary = stub.StreamHeartbeats(iter(batches), metadata=auth(agent_token), timeout=20)
    assert (summary.accepted, summary.rejected) == (2, 8 + 1001)
    reasons = {(r.sequence, r.index): r.reason for r in summary.rejections}
    assert len(summary.rejections) == 100  # the first 100 are reported
    assert "not registered" in reasons[1, 1] and "not registered" in reasons[1, 2]
    assert "power_source" in reasons[1, 3]
    assert "65 instances" in reasons[1, 4]
    assert "cpu_utilization" in reasons[1, 5]
    assert "not registered" in reasons[1, 6]
    assert "timestamp" in reasons[1, 7]
    assert "printable" in reasons[1, 8]
    assert "1001 heartbeats" in reasons[2, 0]
    assert stored_rows(mine) == 2 and stored_rows(theirs) == 0


def test_a_replayed_or_older_heartbeat_is_refused_as_out_of_order_and_counted(stub, lab, agent_token, controller):
    node = register(stub, agent_token, names(lab, "smartnic")[0], agent_id="replayer").node_id
    now = time.time_ns()
    first, replay, older, newer = (heartbeat(node, queue_length=1, ts_ns=now), heartbeat(node, queue_length=2, ts_ns=now),
                                   heartbeat(node, queue_length=3, ts_ns=now - 10**8),
                                   heartbeat(node, queue_length=4, ts_ns=now + 10**8))
    summary = stub.StreamHeartbeats(iter([batch("replayer", 1, first), batch("replayer", 2, replay, older, newer)]),
                                    metadata=auth(agent_token), timeout=10)
    assert (summary.accepted, summary.rejected) == (2, 2)
    reasons = {(r.sequence, r.index): r.reason for r in summary.rejections}
    assert reasons[2, 0].startswith("out of order") and "100.000 ms" in reasons[2, 1]
    assert stored_rows(node) == 2  # the replay's figures are not counted twice
    assert controller.controller.hub.rejected["out_of_order"] == 2  # what /metrics exports, by reason


def test_unauthenticated_heartbeat_stream_is_refused(stub, lab):
    code, _ = code_of(lambda: stub.StreamHeartbeats(iter([]), metadata=auth("e3_bogus"), timeout=10))
    assert code == grpc.StatusCode.UNAUTHENTICATED


def test_a_silent_node_turns_suspect_then_down_and_back_up(stub, channel, lab, agent_token):
    agent = "agent-silent"
    node = register(stub, agent_token, names(lab, "host")[0], agent_id=agent).node_id
    stub.StreamHeartbeats(iter([batch(agent, 1, heartbeat(node))]), metadata=auth(agent_token), timeout=10)
    seen = []
    wait_until(lambda: seen.append(node_state(node)) or seen[-1] == "down", what="down")
    assert "suspect" in seen and seen.index("suspect") < seen.index("down")
    subject = f"node/{node}"
    assert [k for k, s, _ in events() if s == subject and k != "node.registered"] == ["node.suspect", "node.down"]
    # It speaks again, on a stream it keeps open as an agent does: up, with an event.
    seen_up = threading.Event()

    def speaking():
        yield batch(agent, 1, heartbeat(node))
        seen_up.wait(10)

    stream = threading.Thread(target=lambda: stub.StreamHeartbeats(speaking(), metadata=auth(agent_token), timeout=20))
    stream.start()
    wait_until(lambda: node_state(node) == "up", what="up again")
    seen_up.set()
    stream.join()
    assert events("node.up")[-1][1] == subject
    # Its stream ended and it is silent: down (after the lost-connection grace). Down means its agent is
    # gone: another agent may now take the node over.
    wait_until(lambda: node_state(node) == "down", what="down again")
    assert register(stub, agent_token, names(lab, "host")[0], agent_id="replacement").node_id == node


def test_a_controller_behind_its_agents_counts_silence_from_the_heartbeats_it_takes(stub, lab, agent_token):
    """Heartbeats that reach the intake a second after they were sent (a controller behind its agents: they waited
    in its sockets, and a stream's turn comes in bursts) move the time silence is judged at a second back: a node
    whose heartbeats come 0.4 s apart (more than the 150 ms that make it suspect) stays up; silent for good, it
    still goes down."""
    busy, quiet = names(lab, "host")[:2]
    late = register(stub, agent_token, busy, agent_id="behind-late").node_id
    stop_late, stop_sparse, sparse_silent = threading.Event(), threading.Event(), threading.Event()

    def beats(agent, node, every_s, stop, age_ns=0, silent=None):
        sequence = 0
        while not stop.is_set():
            if silent is None or not silent.is_set():
                sequence += 1
                yield batch(agent, sequence, heartbeat(node, ts_ns=time.time_ns() - age_ns))
            time.sleep(every_s)

    streams = [threading.Thread(target=lambda: stub.StreamHeartbeats(
        beats("behind-late", late, 0.05, stop_late, age_ns=1_000_000_000), metadata=auth(agent_token), timeout=30))]
    streams[0].start()
    try:
        time.sleep(0.5)  # ten of its heartbeats taken: the controller knows it is behind
        sparse = register(stub, agent_token, quiet, agent_id="behind-sparse").node_id
        streams.append(threading.Thread(target=lambda: stub.StreamHeartbeats(
            beats("behind-sparse", sparse, 0.4, stop_sparse, age_ns=1_000_000_000, silent=sparse_silent),
            metadata=auth(agent_token), timeout=30)))
        streams[1].start()
        seen, until = set(), time.monotonic() + 3.0
        while time.monotonic() < until:
            seen |= {("late", node_state(late)), ("sparse", node_state(sparse))}
            time.sleep(0.05)
        assert seen == {("late", "up"), ("sparse", "up")}, seen
        sparse_silent.set()  # its stream stays open, it sends nothing: down once the backlog is counted in
        wait_until(lambda: node_state(sparse) == "down", timeout=10, what="the silent node down")
        assert node_state(late) == "up"
    finally:
        stop_late.set()
        stop_sparse.set()
        for stream in streams:
            stream.join()
    assert [k for k, s, _ in events() if s == f"node/{sparse}" and k != "node.registered"] == \
        ["node.suspect", "node.down"]


def test_health_service_answers_serving(channel, controller):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "e3.agent.v1.AgentService"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


# --- Commands ---------------------------------------------------------------------------------------

def test_command_stream_stays_open_and_acks_and_nacks_are_recorded(stub, lab, agent_token):
    agent = "agent-cmd"
    node = register(stub, agent_token, names(lab, "smartnic")[0], agent_id=agent).node_id
    stream = stub.StreamCommands(agent_pb2.StreamCommandsRequest(agent_id=agent, node_id=node),
                                 metadata=auth(agent_token))
    received, ended = [], []

    def read():
        try:
            received.extend(stream)
        except grpc.RpcError as exc:
            ended.append(exc.code())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.3)
    assert stream.is_active() and received == []  # nothing pushed yet, and not closed either
    with session_scope() as session:  # two commands to answer (an ACK of a version never sent is refused)
        row = session.get(ComputeNode, uuid.UUID(node))
        for _ in range(2):
            commands.issue(session, row.cluster_id, row.id, "set_routes", dict(routes=[]))
    wait_until(lambda: len(received) == 2, what="the two commands on the stream")

    stub.AckCommand(agent_pb2.CommandAck(agent_id=agent, node_id=node, version=1, ok=True), metadata=auth(agent_token))
    stub.AckCommand(agent_pb2.CommandAck(agent_id=agent, node_id=node, version=2, ok=False, error=agent_pb2.ErrorDetail(
        code="port_in_use", message="port 7000 is taken")), metadata=auth(agent_token))
    assert [(k, d["version"]) for k, _, d in events() if k.startswith("command.")] == [("command.ack", 1),
                                                                                       ("command.nack", 2)]
    assert events("command.nack")[0][2]["error_code"] == "port_in_use"
    code, _ = code_of(lambda: stub.AckCommand(agent_pb2.CommandAck(agent_id="someone-else", node_id=node, version=3,
                                                                   ok=True), metadata=auth(agent_token)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    code, _ = code_of(lambda: stub.AckCommand(agent_pb2.CommandAck(agent_id=agent, node_id=node, version=3, ok=False),
                                              metadata=auth(agent_token)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT  # a NACK without an error detail

    stream.cancel()
    reader.join(5)
    assert [c.version for c in received] == [1, 2] and ended == [grpc.StatusCode.CANCELLED]



def test_a_restarted_controller_takes_down_a_node_whose_agent_never_comes_back(start_controller, lab, agent_token):
    first = start_controller()
    with grpc.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        stub = agent_pb2_grpc.AgentServiceStub(channel)
        node = register(stub, agent_token, names(lab, "host")[0], agent_id="gone").node_id
        stub.StreamHeartbeats(iter([batch("gone", 1, heartbeat(node))]), metadata=auth(agent_token), timeout=10)
    first.stop()  # the node was not down when the controller went away, and its agent never returns
    assert node_state(node) in ("up", "suspect")  # suspect already if its ended stream was noticed
    second = start_controller()
    try:
        wait_until(lambda: node_state(node) == "down", timeout=10, what="the orphaned node down")
    finally:
        second.stop()
