"""Telemetry rollups keep the counts: whatever the heartbeats (late ones, refused as out of order, counter resets,
a source change, steps and writes cut anywhere, a node counted by two controllers in one step), the stored rows
add up to exactly the requests, latency counts and heartbeats that were accepted, to the energy ledger's joules,
and to the traffic the agents' counters grew by."""

import asyncio
import random
import time
import uuid
from collections import Counter, defaultdict

import pytest
from sqlalchemy import func, select

from e3.controller.agent_hub import TrackedNode
from e3.controller.heartbeat_intake import HeartbeatIntake
from e3.controller.rollup_writer import RollupWriter
from e3.core.db import session_scope
from e3.energy.ledger import EnergyLedger
from e3.models import instance_rollups, node_rollups
from e3.rollup.steps import RollupSteps
from e3.rpc.pb import agent_pb2
from e3.services import telemetry_rollups

_NS = 1_000_000_000
SOURCES = (agent_pb2.POWER_SOURCE_RAPL, agent_pb2.POWER_SOURCE_MODEL)
ODD_ID = 'we"ird\\id N°1'  # an instance id is any printable text: a backslash, a quote, not ASCII


class Feed:
    """Random heartbeats of two nodes into an intake with a ledger and rollups, and what they should add up to."""

    def __init__(self, seed: int, steps: RollupSteps | None = None, nodes: dict | None = None):
        self.rng = random.Random(seed)
        self.nodes = nodes or {(i := uuid.uuid4()): TrackedNode(i, uuid.uuid4(), "n", "agent", 0.0) for _ in range(2)}
        self.ledger, self.steps = EnergyLedger(), steps or RollupSteps()
        self.now_ns = time.time_ns()
        self.intake = HeartbeatIntake(self.nodes, time.monotonic, lambda: self.now_ns, energy=self.ledger,
                                      rollups=self.steps)
        start = (self.now_ns // _NS - 120) + 0.37  # two minutes ago, mid-second
        self.clock = {n: start for n in self.nodes}
        self.counters = {n: [1000, 2000, 10, 20] for n in self.nodes}
        self.source = {n: SOURCES[0] for n in self.nodes}
        self.expect_node = defaultdict(Counter)  # node -> heartbeats, requests, rx growth ...
        self.expect_instance = defaultdict(Counter)  # (node, instance) -> heartbeats, requests, latency_count
        self.expect_step = Counter()  # (node, second) -> heartbeats
        self.first = set(self.nodes)  # nodes whose next heartbeat is their first: no counter growth
        self.late = 0  # heartbeats refused as out of order

    def beat(self, node: uuid.UUID) -> tuple[agent_pb2.Heartbeat, bool]:
        """A heartbeat of the node, and whether it is late (older than the node's latest: to be refused)."""
        rng = self.rng
        late = rng.random() < 0.08 and node not in self.first
        if late:  # older than the node's latest (a replay, a clock stepped back): refused, it counts for nothing
            ts, counters = self.clock[node] - rng.uniform(0.0, 0.9), [c // 2 for c in self.counters[node]]
        else:
            self.clock[node] += rng.choice((0.05, 0.05, 0.05, 0.05, 0.31, 1.7))
            ts = self.clock[node]
            if rng.random() < 0.05:  # the agent restarted: counters from 0 (seen as a restart: below the last)
                grown = [rng.randrange(0, max(1, min(500, c))) for c in self.counters[node]]
                self.counters[node] = list(grown)
            else:
                grown = [rng.randrange(0, 5000) for _ in range(4)]
                self.counters[node] = [c + g for c, g in zip(self.counters[node], grown)]
            if node not in self.first:
                for name, g in zip(("rx_bytes", "tx_bytes", "rx_packets", "tx_packets"), grown):
                    self.expect_node[node][name] += g
            self.first.discard(node)
            counters = self.counters[node]
            if rng.random() < 0.05:
                self.source[node] = SOURCES[1] if self.source[node] == SOURCES[0] else SOURCES[0]
        hb = agent_pb2.Heartbeat(node_id=str(node), timestamp_unix_ns=round(ts * _NS), queue_length=rng.randrange(64),
                                 rx_bytes=counters[0], tx_bytes=counters[1], rx_packets=counters[2],
                                 tx_packets=counters[3], cpu_utilization=rng.random(),
                                 power_watts=rng.uniform(10, 40), power_source=self.source[node])
        for iid in rng.sample(("a", "b", "c"), rng.randrange(4)):
            stats = hb.instances.add(instance_id=iid, requests_completed=rng.randrange(200),
                                     exec_time_us=rng.uniform(1, 90), cpu_share=rng.uniform(0, 0.3),
                                     latency_count=rng.randrange(200), latency_avg_us=rng.uniform(5, 500),
                                     latency_p99_us=rng.uniform(500, 900))
            if not late:
                key = self.expect_instance[(node, iid)]
                key["heartbeats"] += 1
                key["requests"] += stats.requests_completed
                key["latency_count"] += stats.latency_count
                self.expect_node[node]["requests"] += stats.requests_completed
        if not late:
            self.expect_node[node]["heartbeats"] += 1
            self.expect_step[(node, int(hb.timestamp_unix_ns // _NS))] += 1
        return hb, late

    def run(self, beats: int, take_every: float = 0.1, take_at_end: bool = True) -> list:
        """Feed `beats` heartbeats in batches; take the rollups' deltas now and then (`take_every`: the chance
        after a batch) and at the end. Returns the pieces taken."""
        pieces, fed = [], 0
        while fed < beats:
            batch = [self.beat(self.rng.choice(list(self.nodes))) for _ in range(self.rng.randrange(1, 6))]
            encoded, rejected = self.intake.accept("agent", [hb for hb, _ in batch])
            assert [i for i, _, _ in rejected] == [i for i, (_, late) in enumerate(batch) if late]
            assert all(reason.startswith("out of order: ") for _, _, reason in rejected)
            assert encoded.accepted == len(batch) - len(rejected)
            self.late += len(rejected)
            fed += len(batch)
            if self.rng.random() < take_every:
                pieces.append(self.steps.take())
        if take_at_end:
            pieces.append(self.steps.take())
        return pieces


def _sum_pieces(pieces):
    nodes, instances, steps = defaultdict(Counter), defaultdict(Counter), Counter()
    joules = Counter()
    for node_rows, instance_rows in pieces:
        for r in node_rows:
            n = nodes[uuid.UUID(r.node_id)]
            for name in ("heartbeats", "requests", "rx_bytes", "tx_bytes", "rx_packets", "tx_packets"):
                n[name] += getattr(r, name)
            joules[uuid.UUID(r.node_id)] += r.joules
            steps[(uuid.UUID(r.node_id), r.start)] += r.heartbeats
        for r in instance_rows:
            i = instances[(uuid.UUID(r.node_id), r.instance_id)]
            for name in ("heartbeats", "requests", "latency_count"):
                i[name] += getattr(r, name)
    return nodes, instances, steps, joules


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rollup_pieces_add_up_to_the_heartbeats_whatever_the_order_and_cuts(seed):
    feed = Feed(seed)
    pieces = feed.run(600)
    assert len(pieces) > 5 and feed.late > 10  # the steps were cut into several writes; late ones were sent
    nodes, instances, steps, joules = _sum_pieces(pieces)
    assert nodes == feed.expect_node
    assert instances == feed.expect_instance
    assert steps == feed.expect_step  # each heartbeat in the step of its own second
    for node_id in feed.nodes:
        assert joules[node_id] == pytest.approx(feed.ledger.nodes[str(node_id)].joules, rel=1e-9)
        assert joules[node_id] > 0


def test_a_steps_source_is_mixed_when_its_heartbeats_disagree_and_maxima_are_the_highest():
    steps = RollupSteps()
    node = steps.node("n1", "c1")
    node.add(100.1, 0.05, 1.0, "rapl", 20.0, 3, 0.2, 0, 0, 0, 0, [("i", 5, 0.1, 10.0, 5, 100.0, 700.0)])
    node.add(100.2, 0.05, 1.5, "ipmi-split", 30.0, 9, 0.1, 0, 0, 0, 0, [("i", 1, 0.1, 30.0, 1, 400.0, 800.0)])
    [row], [inst] = steps.take()
    assert (row.power_source, row.power_watts_max, row.queue_len_max, row.cpu_util_max) == ("mixed", 30.0, 9, 0.2)
    assert (row.queue_len_sum, row.power_watts_sum, row.joules) == (12, 50.0, 2.5)
    assert (inst.latency_p99_max, inst.latency_count, inst.requests) == (800.0, 6, 6)
    assert inst.latency_us_sum / inst.latency_count == pytest.approx(150.0)  # count-weighted mean
    assert inst.exec_time_us_sum / inst.requests == pytest.approx((10.0 * 5 + 30.0 * 1) / 6)  # request-weighted
    assert steps.take() == ([], [])  # taken: nothing is handed over twice


def _stored():
    """Σ of the stored rows per node, per (node, instance) and per (node, step)."""
    with session_scope() as session:
        nodes = {r.node_id: r for r in session.execute(
            select(node_rollups.c.node_id, func.sum(node_rollups.c.heartbeats).label("heartbeats"),
                   func.sum(node_rollups.c.requests).label("requests"), func.sum(node_rollups.c.joules).label("joules"),
                   func.sum(node_rollups.c.rx_bytes).label("rx_bytes"), func.count().label("rows"))
            .group_by(node_rollups.c.node_id))}
        instances = {(r.node_id, r.instance_id): (r.heartbeats, r.requests, r.latency_count) for r in session.execute(
            select(instance_rollups.c.node_id, instance_rollups.c.instance_id,
                   func.sum(instance_rollups.c.heartbeats).label("heartbeats"),
                   func.sum(instance_rollups.c.requests).label("requests"),
                   func.sum(instance_rollups.c.latency_count).label("latency_count"))
            .group_by(instance_rollups.c.node_id, instance_rollups.c.instance_id))}
        steps = {(r.node_id, int(r.ts.timestamp())): r.heartbeats for r in session.execute(
            select(node_rollups.c.node_id, node_rollups.c.ts, node_rollups.c.heartbeats))}
    return nodes, instances, steps


def test_stored_rollups_written_in_pieces_hold_exactly_what_was_accepted(backing_services, monkeypatch):
    feed = Feed(7)
    writer = RollupWriter(feed.steps, retry_s=0.01)
    real_add = telemetry_rollups.add_rollups
    calls = Counter()

    def failing_every_third(*args, **kwargs):  # the database refusing now and then: batches are held, not lost
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise OSError("database restarting")
        return real_add(*args, **kwargs)

    monkeypatch.setattr(telemetry_rollups, "add_rollups", failing_every_third)

    async def feed_and_write():
        for _ in range(12):
            feed.run(60, take_every=0, take_at_end=False)  # the writer takes
            await writer.flush()
        monkeypatch.setattr(telemetry_rollups, "add_rollups", real_add)
        await writer.flush()

    asyncio.run(feed_and_write())
    assert writer.failures > 0 and writer.pending_rows == 0
    nodes, instances, steps = _stored()
    for node_id, expected in feed.expect_node.items():
        stored = nodes[node_id]
        assert (stored.heartbeats, stored.requests, stored.rx_bytes) == (
            expected["heartbeats"], expected["requests"], expected["rx_bytes"])
        assert stored.joules == pytest.approx(feed.ledger.nodes[str(node_id)].joules, rel=1e-9)
    assert instances == {(n, i): (e["heartbeats"], e["requests"], e["latency_count"])
                         for (n, i), e in feed.expect_instance.items()}
    assert steps == dict(feed.expect_step)  # each step one row, its pieces added


def test_a_node_counted_by_two_controllers_in_one_step_is_stored_as_the_sum(backing_services):
    node_id, cluster_id = str(uuid.uuid4()), str(uuid.uuid4())
    second = time.time() // 1 - 30
    pieces = []
    for source, watts, queue in (("rapl", 20.0, 4), ("model", 25.0, 2)):  # controller A, then B after the move
        steps = RollupSteps()
        steps.node(node_id, cluster_id).add(second + 0.4, 0.05, watts * 0.05, source, watts, queue, 0.5, 0, 0, 0, 0,
                                            [(ODD_ID, 10, 0.2, 30.0, 10, 200.0, 400.0)])
        pieces.append(steps.take())
    for nodes, instances in pieces:
        with session_scope() as session:
            telemetry_rollups.add_rollups(session, nodes, instances, telemetry_rollups.days_of(nodes))
    with session_scope() as session:
        row = session.execute(select(node_rollups)).one()
        inst = session.execute(select(instance_rollups)).one()
    assert (row.heartbeats, row.requests, row.power_source, row.queue_len_max, row.power_watts_max) == (
        2, 20, "mixed", 4, 25.0)
    assert row.joules == pytest.approx(2.25)
    assert (inst.heartbeats, inst.requests, inst.latency_count, inst.latency_p99_max) == (2, 20, 20, 400.0)
    assert inst.instance_id == ODD_ID  # stored as the agent named it, through COPY's escaping


@pytest.mark.parametrize("seed", [4, 5])
def test_the_fronts_pieces_handed_between_two_writes_are_stored_as_one_row_a_step(backing_services, seed):
    """With the ingest front, its takes arrive as rows (RollupSteps.hand); several can wait for one write, holding
    pieces of the same steps: the write must hold each step once (one INSERT cannot touch a row twice), summed."""
    feed = Feed(seed)
    handed = RollupSteps()
    writer = RollupWriter(handed, retry_s=0.01)

    async def hand_and_write():
        for _ in range(6):
            for nodes, instances in feed.run(80, take_every=0.3):  # the front's takes, several a write
                handed.hand(nodes, instances)
            await writer.flush()

    asyncio.run(hand_and_write())
    assert writer.failures == 0 and handed.untaken_rows == 0
    nodes, instances, steps = _stored()
    assert {n: (s.heartbeats, s.requests) for n, s in nodes.items()} == {
        n: (e["heartbeats"], e["requests"]) for n, e in feed.expect_node.items()}
    assert instances == {(n, i): (e["heartbeats"], e["requests"], e["latency_count"])
                         for (n, i), e in feed.expect_instance.items()}
    assert steps == dict(feed.expect_step)
