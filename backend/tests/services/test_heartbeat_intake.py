"""Heartbeat intake: the quick validation agrees with agents.heartbeat_problem, the encodings carry the
heartbeat, a slow database makes streams wait without losing anything, and a dropped rollup partition is
recreated."""

import asyncio
import json
import math
import threading
import time
import uuid
from datetime import datetime, timezone

import redis
from sqlalchemy import func, select

from e3.core.db import session_scope
from e3.energy.ledger import EnergyLedger
from e3.models import node_rollups
from e3.orchestrator.membership import MembershipPolicy
from e3.rollup.steps import RollupSteps
from e3.rpc.pb import agent_pb2
from e3.services import agents, telemetry_rollups
from e3.services.agent_credentials import AgentCredential
from e3.controller.agent_hub import AgentHub, TrackedNode
from e3.controller.heartbeat_intake import HeartbeatIntake, heartbeat_dict
from e3.controller.rollup_writer import RollupWriter


def _beat(node_id, ts_ns=None, **fields) -> agent_pb2.Heartbeat:
    instances = fields.pop("instances", None)
    hb = agent_pb2.Heartbeat(node_id=str(node_id), timestamp_unix_ns=ts_ns or time.time_ns(), queue_length=7,
                             rx_bytes=5120, tx_bytes=4096, rx_packets=10, tx_packets=8, cpu_utilization=0.25,
                             power_watts=17.5, power_source=agent_pb2.POWER_SOURCE_RAPL)
    for k, v in fields.items():
        setattr(hb, k, v)
    for inst in instances if instances is not None else [dict(instance_id="inst-0")]:
        hb.instances.add(**{**dict(requests_completed=100, exec_time_us=41.5, exec_time_ema_us=40.0, cpu_share=0.1),
                            **inst})
    return hb


def _nodes(agent_id="agent-a", count=2):
    nodes = {}
    for _ in range(count):
        node_id = uuid.uuid4()
        nodes[node_id] = TrackedNode(node_id, uuid.uuid4(), "n", agent_id, 0.0)
    return nodes


def test_quick_check_refuses_exactly_what_heartbeat_problem_refuses_with_its_reasons():
    nodes = _nodes()
    mine, theirs = list(nodes)
    nodes[theirs].agent_id = "agent-b"
    intake = HeartbeatIntake(nodes, lambda: 42.0, time.time_ns)
    now = time.time_ns()
    beats = [
        _beat(mine, ts_ns=now - (agents.MAX_AGE_S - 2) * 10**9),  # older than the next of its node's accepted
        _beat(theirs),
        _beat(uuid.uuid4()),
        _beat("not-a-uuid"),
        _beat(mine, ts_ns=1),
        _beat(mine, ts_ns=now - (agents.MAX_AGE_S + 5) * 10**9),
        _beat(mine, ts_ns=now + (agents.MAX_CLOCK_AHEAD_S + 5) * 10**9),
        _beat(mine, ts_ns=now - (agents.MAX_AGE_S - 5) * 10**9),  # old but allowed
        _beat(mine, queue_length=2**31),
        _beat(mine, rx_bytes=2**63),
        _beat(mine, tx_packets=2**64 - 1),
        _beat(mine, power_source=agent_pb2.POWER_SOURCE_UNSPECIFIED),
        _beat(mine, power_watts=math.nan),
        _beat(mine, power_watts=-1.0),
        _beat(mine, power_watts=math.inf),
        _beat(mine, cpu_utilization=1.5),
        _beat(mine, cpu_utilization=math.nan),
        _beat(mine, cpu_utilization=1.0, power_watts=0.0),  # bounds are allowed
        _beat(mine, instances=[dict(instance_id=f"i{k}") for k in range(65)]),
        _beat(mine, instances=[dict(instance_id=f"i{k}") for k in range(64)]),
        _beat(mine, instances=[dict(instance_id="")]),
        _beat(mine, instances=[dict(instance_id="x" * 65)]),
        _beat(mine, instances=[dict(instance_id="ok"), dict(instance_id="bad", exec_time_us=math.nan)]),
        _beat(mine, instances=[dict(instance_id="bad", exec_time_ema_us=-0.5)]),
        _beat(mine, instances=[dict(instance_id="bad", requests_completed=2**63)]),
        _beat(mine, instances=[dict(instance_id="bad", cpu_share=1.01)]),
        _beat(mine, instances=[dict(instance_id="bad", latency_avg_us=math.nan)]),
        _beat(mine, instances=[dict(instance_id="bad", latency_p99_us=math.inf)]),
        _beat(mine, instances=[dict(instance_id="bad", latency_count=2**63)]),
        _beat(mine, instances=[]),
    ]
    encoded, rejections = intake.accept("agent-a", beats)
    wall = datetime.now(timezone.utc)
    expected = {}
    for i, hb in enumerate(beats):
        if i in (1, 2, 3):
            expected[i] = "node not registered by this agent"
        elif problem := agents.heartbeat_problem(heartbeat_dict(hb), wall):
            expected[i] = problem
    assert {i: reason for i, _, reason in rejections} == expected
    assert [node for i, node, _ in rejections if i == 3] == ["not-a-uuid"]
    assert encoded.accepted == len(beats) - len(expected) == 5
    assert nodes[mine].last_seen == 42.0 and nodes[theirs].last_seen == 0.0


def test_the_encodings_carry_the_heartbeat():
    nodes = _nodes()
    node_id = next(iter(nodes))
    ts_ns = 1_763_700_000_123_456_789  # 2025-11-21T04:40:00.123456Z
    intake = HeartbeatIntake(nodes, time.monotonic, lambda: ts_ns + 10**9)
    hb = _beat(node_id, ts_ns=ts_ns, instances=[dict(instance_id='we"ird\\id', requests_completed=3, latency_count=2,
                                                     latency_avg_us=812.5, latency_p99_us=1504.0)])
    later = agent_pb2.Heartbeat()
    later.CopyFrom(hb)
    later.timestamp_unix_ns += 1_000_000
    encoded, rejections = intake.accept("agent-a", [hb, later])
    assert not rejections and encoded.accepted == 2
    live = json.loads(encoded.live_items[0])
    assert list(live)[:2] == ["node_id", "ts"]  # the bench's lag probe reads these two first
    assert live["node_id"] == str(node_id) and live["cluster_id"] == str(nodes[node_id].cluster_id)
    assert live["ts"] == "2025-11-21T04:40:00.123456+00:00" and live["queue_len"] == 7
    assert live["power_source"] == "rapl" and live["power_watts"] == 17.5
    assert live["instances"] == [{"id": 'we"ird\\id', "requests": 3, "exec_us": 41.5, "exec_ema_us": 40.0,
                                  "cpu_share": 0.1, "lat_n": 2, "lat_avg_us": 812.5, "lat_p99_us": 1504.0}]
    assert encoded.nodes == [(str(nodes[node_id].cluster_id), str(node_id))] * 2  # where Redis keeps it


def test_a_heartbeat_not_after_the_nodes_latest_is_refused_as_out_of_order():
    nodes = _nodes()
    node_id = next(iter(nodes))
    now = time.time_ns()
    intake = HeartbeatIntake(nodes, time.monotonic, lambda: now, energy=EnergyLedger(), rollups=RollupSteps())
    first, rejections = intake.accept("agent-a", [_beat(node_id, ts_ns=now - 10**9)])
    assert first.accepted == 1 and not rejections
    replay, clock_back, fresh = (_beat(node_id, ts_ns=now - 10**9), _beat(node_id, ts_ns=now - 2 * 10**9),
                                 _beat(node_id, ts_ns=now - 10**9 + 50_000_000))
    encoded, rejections = intake.accept("agent-a", [replay, clock_back, fresh])
    assert encoded.accepted == 1  # the newer one only
    assert [(i, reason) for i, _, reason in rejections] == [
        (0, "out of order: timestamp 0.000 ms at or before the node's latest accepted heartbeat"),
        (1, "out of order: timestamp 1000.000 ms at or before the node's latest accepted heartbeat")]
    steps, _ = intake.rollups.take()
    assert sum(s.heartbeats for s in steps) == 2  # never counted: the replay's figures are not added twice


def _batch(agent_id, nodes, sequence):
    return agent_pb2.HeartbeatBatch(agent_id=agent_id, sequence=sequence,
                                    heartbeats=[_beat(node_id) for node_id in nodes])


def _stored_heartbeats() -> int:
    with session_scope() as session:
        return session.scalar(select(func.coalesce(func.sum(node_rollups.c.heartbeats), 0)))


def test_a_slow_database_makes_the_stream_wait_and_nothing_is_lost(backing_services, monkeypatch):
    from e3.rpc.servicer import AgentServicer

    released = threading.Event()
    real_add = telemetry_rollups.add_rollups

    def slow_add(*args, **kwargs):  # a database that takes seconds to answer
        released.wait(20)
        return real_add(*args, **kwargs)

    monkeypatch.setattr(telemetry_rollups, "add_rollups", slow_add)

    async def scenario():
        hub = AgentHub(MembershipPolicy(), backing_services["redis_url"])
        hub.rollup_writer = RollupWriter(hub.rollups, every_s=0.01, max_pending_rows=10)
        hub.nodes.update(_nodes("agent-a", 5))

        async def anyone(authorization, how_to_send):  # the credential the nodes were registered under (none)
            return AgentCredential(None, "anyone", None, None)

        hub.authenticate = anyone
        hub.rollup_writer.start()
        consumed = 0

        async def batches():
            nonlocal consumed
            for seq in range(1, 41):  # 40 batches x 5 heartbeats: 10 rollup rows a step, the writer's limit
                consumed = seq
                yield _batch("agent-a", list(hub.nodes), seq)

        class Context:
            def invocation_metadata(self):
                return ()

        call = asyncio.create_task(AgentServicer(hub).StreamHeartbeats(batches(), Context()))
        await asyncio.sleep(0.5)
        stalled_at = consumed
        assert not call.done() and stalled_at < 40  # the stream stopped reading
        assert hub.rollup_writer.pending_rows >= 10
        released.set()
        summary = await asyncio.wait_for(call, 20)
        stored = await asyncio.to_thread(_stored_heartbeats)  # before the writer's stop could add anything
        await hub.rollup_writer.stop()
        await hub.live.close()
        await hub.redis.aclose()
        return summary, stalled_at, stored

    summary, stalled_at, stored = asyncio.run(scenario())
    assert stalled_at <= 6
    assert (summary.accepted, summary.rejected) == (200, 0)
    assert stored == 200  # every accepted heartbeat was in the rollups before the summary came back


def test_a_partition_dropped_behind_the_writer_is_recreated(backing_services):
    nodes = _nodes("agent-a", 3)
    intake = HeartbeatIntake(nodes, time.monotonic, time.time_ns, energy=EnergyLedger(), rollups=RollupSteps())

    async def scenario():
        writer = RollupWriter(intake.rollups, retry_s=0.01)
        intake.accept("agent-a", [_beat(n) for n in nodes])
        await writer.flush()
        with session_scope() as session:  # e.g. retention on another controller, or an operator
            telemetry_rollups.drop_partitions_before(session, datetime.fromtimestamp(time.time() + 2 * 86400,
                                                                                      timezone.utc))
        intake.accept("agent-a", [_beat(n) for n in nodes])
        await asyncio.wait_for(writer.flush(), 20)
        await writer.stop()
        return writer

    writer = asyncio.run(scenario())
    assert writer.failures >= 1 and writer.pending_rows == 0
    assert _stored_heartbeats() == 3  # the second batch's, in a recreated partition
    with session_scope() as session:
        stored = session.execute(select(node_rollups).limit(1)).mappings().one()
        assert stored["power_source"] == "rapl" and stored["queue_len_max"] == 7
        telemetry_rollups.drop_partitions_before(session, datetime.fromtimestamp(time.time() + 2 * 86400,
                                                                                  timezone.utc))


def test_live_publisher_sets_the_latest_state_and_publishes(backing_services):
    nodes = _nodes("agent-a", 2)
    intake = HeartbeatIntake(nodes, time.monotonic, time.time_ns)
    r = redis.Redis.from_url(backing_services["redis_url"])
    pubsub = r.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe("e3:live")

    async def scenario():
        from e3.controller.live_publisher import LivePublisher

        feed = LivePublisher(backing_services["redis_url"])
        for q in (1, 2):
            encoded, _ = intake.accept("agent-a", [_beat(n, queue_length=q) for n in nodes])
            feed.add(encoded.nodes, encoded.live_items)
        await feed.close()
        return feed

    feed = asyncio.run(scenario())
    assert feed.sent == 4 and feed.dropped == 0
    for node_id, node in nodes.items():  # each node's latest heartbeat, in its cluster's hash
        latest = json.loads(r.hget(f"e3:latest:{node.cluster_id}", str(node_id)))
        assert latest["queue_len"] == 2 and latest["node_id"] == str(node_id)
    seen = []
    deadline = time.monotonic() + 5
    while len(seen) < 4 and time.monotonic() < deadline:
        if (message := pubsub.get_message(timeout=0.1)) is not None:
            body = json.loads(message["data"])
            assert body["type"] == "heartbeats"
            seen.extend(body["heartbeats"])
    assert sorted(h["queue_len"] for h in seen) == [1, 1, 2, 2]
    pubsub.close()
