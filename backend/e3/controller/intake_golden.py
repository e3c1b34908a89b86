"""Golden batches for the C++ intake of the ingest front (agents/e3-ingest/src/front_intake.cc).

The compiled ingest front takes the place of `HeartbeatIntake.accept` (docs/controller-scale-out.md, sections
1-2, step 6 of section 10), so for the same node table and batches it must give what the Python intake gives
with an energy ledger and rollups: the same accepted heartbeats with byte-identical live JSON items, the same
rejections with the same reasons, the same rollup rows (as COPY lines) and the same backlog. This module is
the contract: `golden_ops()` drives the REAL `HeartbeatIntake` (TrackedNode nodes, an EnergyLedger,
RollupSteps, fixed clocks) through a scripted sequence, and records each input with Python's outcome:

- node table changes, each as the whole entry after it (what the front's `upsert_node` is given): a
  registration (a new TrackedNode, its latest timestamp kept only when the same agent and credential register
  it again, as AgentHub.register does), a power override or a lease epoch changed in place (as
  power_readings and the lease take-over do), a removal;
- batches: the serialized HeartbeatBatch, the agent and credential that sent it, the wall clock (ns) and the
  monotonic clock (s) of that call, and Python's outcome: every accepted heartbeat's index, (cluster id, node
  id) and live item; every rejection (index, node id as sent, reason); the heartbeats the quick check doubted
  (index and `agents.heartbeat_problem`'s reason, or null), found as e3.heartbeat_golden finds them: the same
  heartbeat given alone to a fresh intake, whose `doubted` count says whether accept asked heartbeat_problem;
  and the SmartNIC heartbeats' detection samples (the fields controller.orchestrator reads);
- takes of the rollups (every row's COPY line, as services.telemetry_rollups writes them) and of the backlog.

The script holds what the intake treats specially: an unregistered node, a text that is no UUID, other
spellings of a registered node's UUID, a node of another agent or of another credential, stale and newer
lease epochs, out-of-order and equal timestamps, heartbeats the quick check doubts (refused by the rules, or
within 1 ms of a timestamp bound and so accepted, or refused afterwards as out of order), heartbeats of the
same node after a doubted one in the batch, a non-ASCII instance id (the C++ check doubts it, Python's does
not), instance ids JSON must escape, a power override while fresh and once expired, re-registrations (same
agent under a new epoch; another agent and epoch; another cluster, taken before and after its next
heartbeat), a removal, steps crossed within and across batches, an empty batch, then seeded random traffic.

agents/e3-ingest's test_front_intake replays it through ingest::FrontIntake; tests/setup/
test_intake_golden_current.py fails when this output no longer matches the checked-in fixture. It lives in
e3.controller, not e3.services beside the other generators: it runs controller.heartbeat_intake, which
e3.services may not import (tests/test_architecture.py).

Regenerate (from backend/):
    python -m e3.controller.intake_golden ../agents/e3-ingest/tests/golden/intake.json
"""

import json
import random
import sys
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone

from e3.controller.agent_hub import TrackedNode
from e3.controller.heartbeat_intake import (NOT_REGISTERED, OUT_OF_ORDER, STALE_EPOCH, HeartbeatIntake,
                                            heartbeat_dict, out_of_order)
from e3.energy.ledger import EnergyLedger
from e3.generated_files import write_main
from e3.orchestrator.detection import SMARTNIC
from e3.rollup.steps import RollupSteps
from e3.rpc.pb import agent_pb2
from e3.services import agents
from e3.services.telemetry_rollups import instance_line, node_line

FIXTURE = "agents/e3-ingest/tests/golden/intake.json"  # from the repository's root
COMMAND = "python -m e3.controller.intake_golden ../agents/e3-ingest/tests/golden/intake.json"  # from backend/
SEED = 20261127
_NS, _MS = 1_000_000_000, 1_000_000
_START_NS = 1_795_780_800_123_456_789  # 2026-11-27T12:00:00.123456789+00:00: the true time when the run starts
_LAG_NS = 40 * _MS  # the controller's wall clock runs this far ahead of the agents' (their heartbeats' age)
_RANDOM_BATCHES = 24

AGENT_A, AGENT_B = "agent-a", "agent-b"
TOKEN_A = uuid.UUID("5a1d7c3e-0f24-4b6a-8e91-2c3d4e5f6a70")
TOKEN_B = uuid.UUID("6b2e8d4f-1a35-4c7b-9fa2-3d4e5f6a7b81")
HOST = "host"  # a node's kind; SMARTNIC the other (the intake samples those for detection)
_SOURCES = (agent_pb2.POWER_SOURCE_RAPL, agent_pb2.POWER_SOURCE_IPMI, agent_pb2.POWER_SOURCE_MODEL)
_PROBE_NODE = uuid.UUID("7d3f9e50-2b46-4d8c-a0b3-4e5f6a7b8c92")
_PROBE_AGENT = "probe-agent"


class _Agent:
    """One node as its agent drives it: its id, cluster, kind, counters, instances and latest timestamp."""

    def __init__(self, node_id: str, cluster_id: str, kind: str, instances: Sequence[str], rng: random.Random):
        self.node_id, self.cluster_id, self.kind = uuid.UUID(node_id), uuid.UUID(cluster_id), kind
        self.instances = list(instances)
        self.counters = [rng.randrange(0, 1 << 40) for _ in range(4)]  # rx/tx bytes, rx/tx packets
        self.ts = 0  # its latest heartbeat's timestamp, ns
        self.source = _SOURCES[len(instances) % 3]


def _quick(hb: agent_pb2.Heartbeat, wall_ns: int) -> bool:
    """Whether the intake's quick check passes `hb` at `wall_ns` (it did not ask heartbeat_problem): the heartbeat
    alone, under a probe node's id, in a fresh intake, as e3.heartbeat_golden decides it."""
    probe = agent_pb2.Heartbeat()
    probe.CopyFrom(hb)
    probe.node_id = str(_PROBE_NODE)
    nodes = {_PROBE_NODE: TrackedNode(_PROBE_NODE, _PROBE_NODE, "probe", _PROBE_AGENT, 0.0)}
    intake = HeartbeatIntake(nodes, lambda: 0.0, lambda: wall_ns)
    intake.accept(_PROBE_AGENT, [probe])
    return intake.doubted == 0


class _Run:
    """The real intake with a ledger and rollups over a node table, and the ops recorded as they run."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.nodes: dict[uuid.UUID, TrackedNode] = {}
        self.ledger, self.rollups = EnergyLedger(), RollupSteps()
        self.true_ns, self.now = _START_NS, 1000.0  # the agents' time; the controller's monotonic clock
        self.wall_ns = self.true_ns + _LAG_NS
        self.intake = HeartbeatIntake(self.nodes, lambda: self.now, lambda: self.wall_ns, energy=self.ledger,
                                      rollups=self.rollups)
        self.ops: list[dict] = []
        self.sequence = 0

    # ---- time ----
    def tick(self, ms: float) -> None:
        """Let `ms` milliseconds pass on every clock."""
        self.true_ns += int(ms * _MS)
        self.wall_ns = self.true_ns + _LAG_NS
        self.now += ms / 1000

    # ---- the node table ----
    def _entry(self, op: str, case: str, tracked: TrackedNode) -> None:
        override, token = tracked.power_override, tracked.token_id
        self.ops.append(dict(op=op, case=case, node_id=str(tracked.node_id), cluster_id=str(tracked.cluster_id),
                             agent_id=tracked.agent_id, token_id="" if token is None else str(token),
                             kind=tracked.kind, lease_epoch=tracked.lease_epoch,
                             override=None if override is None else list(override)))

    def register(self, case: str, node: _Agent, agent_id: str, token_id: uuid.UUID | None, epoch: int) -> None:
        """The node's agent registers it: a new TrackedNode, as AgentHub.register makes it."""
        held = self.nodes.get(node.node_id)
        same_agent = held is not None and held.agent_id == agent_id and held.token_id == token_id
        tracked = TrackedNode(node.node_id, node.cluster_id, f"n-{str(node.node_id)[:4]}", agent_id, self.now,
                              kind=node.kind, token_id=token_id, latest_ts_ns=held.latest_ts_ns if same_agent else 0)
        tracked.lease_epoch = epoch
        self.nodes[node.node_id] = tracked
        self._entry("upsert", case, tracked)

    def override(self, case: str, node: _Agent, watts: float, source: str, valid_s: float) -> float:
        """A power reading for the node, valid for `valid_s` from now (power_readings sets it in place); returns
        its valid-until."""
        tracked = self.nodes[node.node_id]
        tracked.power_override = (watts, source, self.now + valid_s)
        self._entry("upsert", case, tracked)
        return tracked.power_override[2]

    def epoch(self, case: str, node: _Agent, epoch: int) -> None:
        """The lease taken over under a new epoch (AgentHub._lease_lapsed sets it in place)."""
        tracked = self.nodes[node.node_id]
        tracked.lease_epoch = epoch
        self._entry("upsert", case, tracked)

    def remove(self, case: str, node: _Agent) -> None:
        self.nodes.pop(node.node_id)
        self.ops.append(dict(op="remove", case=case, node_id=str(node.node_id)))

    # ---- heartbeats ----
    def beat(self, node: _Agent, advance_ms: float | None = None, ts_ns: int | None = None, text: str | None = None,
             epoch: int = 0, **fields) -> agent_pb2.Heartbeat:
        """The node's next heartbeat: `advance_ms` after its latest, or at `ts_ns`, or (neither given) at the
        agents' time less up to 30 ms (at least 1 ms after its latest); its node id as `text` (default: the
        canonical UUID); ordinary random figures but `fields`."""
        rng = self.rng
        if ts_ns is None and advance_ms is None:
            ts_ns = max(node.ts + _MS, self.true_ns - rng.randrange(0, 30 * _MS))
        elif ts_ns is None:
            ts_ns = node.ts + int(advance_ms * _MS)
        if ts_ns > node.ts:
            node.ts = ts_ns
            node.counters = [c + rng.randrange(0, 5_000_000) for c in node.counters]
        rx_bytes, tx_bytes, rx_packets, tx_packets = node.counters
        hb = agent_pb2.Heartbeat(node_id=str(node.node_id) if text is None else text, timestamp_unix_ns=ts_ns,
                                 queue_length=rng.randrange(0, 64), rx_bytes=rx_bytes, tx_bytes=tx_bytes,
                                 rx_packets=rx_packets, tx_packets=tx_packets, cpu_utilization=rng.random(),
                                 power_watts=rng.uniform(8.0, 420.0), power_source=node.source, lease_epoch=epoch)
        instances = fields.pop("instances", node.instances)
        for iid in instances:
            if rng.random() < 0.2:  # idle this period
                hb.instances.add(instance_id=iid, exec_time_ema_us=rng.uniform(1.0, 90.0),
                                 cpu_share=rng.random() * 0.05)
                continue
            requests = rng.randrange(1, 500)
            lat_avg = rng.uniform(5.0, 900.0)
            hb.instances.add(instance_id=iid, requests_completed=requests, exec_time_us=rng.uniform(1.0, 200.0),
                             exec_time_ema_us=rng.uniform(1.0, 200.0), cpu_share=rng.random() * 0.6,
                             latency_count=max(0, requests - rng.randrange(0, 3)), latency_avg_us=lat_avg,
                             latency_p99_us=lat_avg * rng.uniform(1.0, 4.0))
        for name, value in fields.items():
            setattr(hb, name, value)
        return hb

    def accept(self, case: str, agent_id: str, token_id: uuid.UUID | None, heartbeats: Iterable) -> None:
        """The batch through the real intake, as the front will see it (parsed back from its bytes)."""
        self.sequence += 1
        data = agent_pb2.HeartbeatBatch(agent_id=agent_id, sequence=self.sequence,
                                        heartbeats=list(heartbeats)).SerializeToString(deterministic=True)
        batch = agent_pb2.HeartbeatBatch.FromString(data)
        hbs = list(batch.heartbeats)
        encoded, rejections = self.intake.accept(agent_id, hbs, token_id)
        refused = {index: reason for index, _, reason in rejections}
        accepted = [i for i in range(len(hbs)) if i not in refused]
        if len(accepted) != encoded.accepted:
            raise AssertionError(f"{case}: {encoded.accepted} accepted, but {len(refused)} of {len(hbs)} refused")
        doubted = []
        for i, hb in enumerate(hbs):
            if refused.get(i) == NOT_REGISTERED or _quick(hb, self.wall_ns):
                continue
            wall = datetime.fromtimestamp(self.wall_ns / _NS, timezone.utc)  # as accept makes it
            problem = agents.heartbeat_problem(heartbeat_dict(hb), wall)
            outcome = refused.get(i)
            if problem is not None and outcome != problem:
                raise AssertionError(f"{case}[{i}]: heartbeat_problem says {problem!r}, accept {outcome!r}")
            if problem is None and outcome is not None and not outcome.startswith((STALE_EPOCH, OUT_OF_ORDER)):
                raise AssertionError(f"{case}[{i}]: doubted, fine by the rules, then refused as {outcome!r}")
            doubted.append([i, problem])
        samples, pending = [], list(encoded.smartnics)
        for i in accepted:
            if pending and pending[0][1] == hbs[i]:
                tracked, hb = pending.pop(0)
                samples.append([i, str(tracked.node_id), hb.timestamp_unix_ns / 1e9,  # as controller.orchestrator
                                hb.queue_length, hb.rx_bytes, hb.tx_bytes,
                                [[s.instance_id, s.exec_time_us, s.exec_time_ema_us, s.cpu_share, s.requests_completed]
                                 for s in hb.instances]])
        if pending:
            raise AssertionError(f"{case}: SmartNIC heartbeats not matched to their index")
        items = [[i, cid, nid, live] for i, (cid, nid), live in zip(accepted, encoded.nodes, encoded.live_items)]
        self.ops.append(dict(op="accept", case=case, agent_id=agent_id,
                             token_id="" if token_id is None else str(token_id), wall_ns=self.wall_ns, now=self.now,
                             batch=data.hex(),
                             expect=dict(accepted=encoded.accepted, items=items,
                                         rejections=[list(r) for r in rejections], doubted=doubted,
                                         samples=samples)))

    def take(self, case: str) -> None:
        untaken = self.rollups.untaken_rows
        node_rows, instance_rows = self.rollups.take()
        self.ops.append(dict(op="take", case=case, untaken_rows=untaken, nodes=[node_line(r) for r in node_rows],
                             instances=[instance_line(r) for r in instance_rows]))

    def backlog(self, case: str) -> None:
        self.ops.append(dict(op="backlog", case=case, seconds=self.intake.take_backlog_s()))


def golden_ops(seed: int = SEED) -> list[dict]:
    """The scripted run's ops with Python's outcomes (see the module's doc)."""
    rng = random.Random(seed)
    run = _Run(rng)
    host = _Agent("3f2a1b4c-5d6e-4f70-8192-a3b4c5d6e7f8", "0b9e4d2c-8a61-4f3e-b7c5-1d2e3f4a5b6c", HOST,
                  ["kv-0", 'we"ird\\id'], rng)
    nic = _Agent("00c1d2e3-f405-4617-8829-3a4b5c6d7e8f", "0b9e4d2c-8a61-4f3e-b7c5-1d2e3f4a5b6c", SMARTNIC,
                 ["fw-0", "nat-1", "lb-2"], rng)
    bare = _Agent("9e8d7c6b-5a49-4837-a625-14f3e2d1c0b9", "1c0f5e3d-9b72-4a4f-c8d6-2e3f4a5b6c7d", HOST, [], rng)
    other = _Agent("aa11bb22-cc33-4d44-8e55-ff6677889900", "1c0f5e3d-9b72-4a4f-c8d6-2e3f4a5b6c7d", SMARTNIC,
                   ["ids-0"], rng)
    ahead = _Agent("b7c8d9e0-f1a2-4b3c-9d4e-5f60718293a4", "0b9e4d2c-8a61-4f3e-b7c5-1d2e3f4a5b6c", HOST, ["~"], rng)
    stranger = uuid.UUID("c0ffee00-1234-4abc-9def-0123456789ab")
    for node in (host, nic, bare, other, ahead):
        node.ts = run.true_ns - rng.randrange(0, 30) * _MS

    run.register("register", host, AGENT_A, TOKEN_A, 3)
    run.register("register", nic, AGENT_A, TOKEN_A, 5)
    run.register("register", bare, AGENT_A, None, 0)
    run.register("register", other, AGENT_B, TOKEN_B, 1)
    run.register("register", ahead, AGENT_A, TOKEN_A, 2)
    run.accept("empty batch", AGENT_A, TOKEN_A, [])
    run.backlog("nothing accepted yet")

    run.tick(50)
    text, digits = str(nic.node_id), str(nic.node_id).replace("-", "")  # its UUID begins with "00"
    run.accept("who may send", AGENT_A, TOKEN_A, [
        run.beat(host), run.beat(nic),
        run.beat(host, text=str(stranger)),  # not registered at all
        run.beat(host, text="not-a-uuid"),
        run.beat(other),  # agent-b's node
        run.beat(bare),  # registered without a credential: agent-a sends under TOKEN_A
        # other spellings uuid.UUID reads as the same node
        run.beat(nic, 5, text=text.upper()), run.beat(nic, 5, text="{" + text + "}"),
        run.beat(nic, 5, text="urn:uuid:" + text), run.beat(nic, 5, text=digits),
        run.beat(nic, 5, text="0x" + text[2:]), run.beat(nic, 5, text=" " + digits[1:]),
        run.beat(nic, 5, text="+" + digits[1:]), run.beat(nic, 5, text=digits[0] + "_" + digits[2:]),
        # and ones it does not
        run.beat(nic, 5, text="-" + digits[1:]), run.beat(nic, 5, text=digits[:31]),
        run.beat(nic, 5, text="_" + digits[1:]), run.beat(nic, 5, text=text + "0"),
    ])
    run.accept("no credential", AGENT_A, None, [run.beat(bare), run.beat(host)])
    run.tick(20)
    run.accept("the other agent", AGENT_B, TOKEN_B, [run.beat(other), run.beat(other, 7), run.beat(nic)])
    run.backlog("after three batches")

    run.tick(300)
    run.accept("lease epochs", AGENT_A, TOKEN_A, [
        run.beat(host, epoch=2), run.beat(host, epoch=3), run.beat(host, epoch=0), run.beat(host, epoch=4),
        run.beat(nic, epoch=4), run.beat(nic, epoch=5),
    ])
    run.tick(400)
    latest = nic.ts
    run.accept("order", AGENT_A, TOKEN_A, [
        run.beat(nic, 100), run.beat(nic, ts_ns=nic.ts), run.beat(nic, ts_ns=latest - 3 * _MS - 123_456),
        run.beat(nic, ts_ns=nic.ts + 1), run.beat(host, ts_ns=host.ts - 2 * _NS), run.beat(host),
    ])
    run.take("a take")

    run.tick(600)
    second_end = (host.ts // _NS + 1) * _NS
    run.accept("a step's last nanosecond, then the next step", AGENT_A, TOKEN_A, [
        run.beat(host, ts_ns=second_end - 1), run.beat(host, ts_ns=second_end), run.beat(host, 7.8125)])
    run.tick(400)
    ahead_ts = ahead.ts
    run.accept("doubted", AGENT_A, TOKEN_A, [
        run.beat(nic, cpu_utilization=1.5),  # refused by the rules
        run.beat(nic),  # after a doubted heartbeat of its node
        run.beat(host),
        run.beat(ahead, ts_ns=run.wall_ns + agents.MAX_CLOCK_AHEAD_S * _NS - _MS // 2),  # within 1 ms: accepted
        run.beat(ahead, ts_ns=run.true_ns - 5 * _MS),  # then older than it: out of order
        run.beat(host, 3, instances=["kv-0", "café"]),  # the C++ check doubts a non-ASCII id, Python's does not
        run.beat(bare),  # another credential's: refused before any check
        run.beat(host, 3, power_source=0),
        run.beat(host, 3),
        run.beat(nic, ts_ns=run.wall_ns - agents.MAX_AGE_S * _NS + _MS // 2),  # within 1 ms, then out of order
        run.beat(other, instances=["ids-0", ""]),  # another agent's: refused before any check
    ])
    ahead.ts = ahead_ts
    run.backlog("with a heartbeat ahead of the wall clock: 0")

    run.tick(250)
    valid_until = run.override("power override", host, 212.5, "ipmi-split", 1.0)
    run.accept("overridden", AGENT_A, TOKEN_A, [run.beat(host), run.beat(nic), run.beat(host, 10)])
    run.tick(700)
    run.accept("still overridden", AGENT_A, TOKEN_A, [run.beat(host), run.beat(host, 150)])
    run.tick(300)
    run.now = valid_until  # the override's valid-until: no longer fresh
    run.accept("override expired", AGENT_A, TOKEN_A, [run.beat(host), run.beat(nic)])
    run.take("after the override")

    run.tick(200)
    run.epoch("lease taken over", host, 7)
    run.accept("after the take-over", AGENT_A, TOKEN_A, [run.beat(host, epoch=3), run.beat(host, epoch=7)])
    run.register("the same agent again", host, AGENT_A, TOKEN_A, 8)  # its override goes, its latest stays
    run.accept("registered again", AGENT_A, TOKEN_A, [run.beat(host, ts_ns=host.ts), run.beat(host, 20)])

    run.tick(350)
    nic_latest = nic.ts
    run.register("moved to another agent", nic, AGENT_B, TOKEN_B, 6)
    run.accept("the old agent", AGENT_A, TOKEN_A, [run.beat(nic)])
    run.accept("the new agent", AGENT_B, TOKEN_B, [
        run.beat(nic, ts_ns=nic_latest - 500 * _MS, epoch=6),  # before the old latest: the latest went with it
        run.beat(nic, epoch=5), run.beat(nic, epoch=6), run.beat(other),
    ])
    run.backlog("after the move")

    run.tick(450)
    run.accept("before its move", AGENT_A, None, [run.beat(bare)])
    bare.cluster_id = uuid.UUID("2d1e6f4a-0c83-4b5a-9d07-3f4a5b6c7d8e")
    run.register("another cluster", bare, AGENT_A, None, 1)
    run.take("before its next heartbeat")  # its steps still carry the old cluster
    run.tick(300)
    run.accept("in its new cluster", AGENT_A, None, [run.beat(bare), run.beat(bare, 600)])
    run.take("after it")
    run.remove("removed", bare)
    run.accept("once removed", AGENT_A, None, [run.beat(bare)])
    run.register("back", bare, AGENT_A, None, 2)
    run.accept("back", AGENT_A, None, [run.beat(bare, ts_ns=bare.ts - 50 * _MS), run.beat(bare)])

    run.register("ahead, to another agent", ahead, AGENT_B, TOKEN_B, 3)  # its latest far ahead goes
    run.accept("ahead, by its new agent", AGENT_B, TOKEN_B, [run.beat(ahead)])

    # Seeded traffic: steps crossed within and across batches, now and then a late or equal heartbeat.
    senders = {AGENT_A: [(host, TOKEN_A), (bare, None)],
               AGENT_B: [(nic, TOKEN_B), (other, TOKEN_B), (ahead, TOKEN_B)]}
    for k in range(_RANDOM_BATCHES):
        run.tick(rng.uniform(80, 700))
        agent_id = rng.choice(sorted(senders))
        token_id = rng.choice([t for _, t in senders[agent_id]])
        beats = []
        for _ in range(rng.randrange(1, 6)):
            node = rng.choice([n for n, t in senders[agent_id] if t == token_id])
            shape = rng.random()
            if shape < 0.06:
                beats.append(run.beat(node, ts_ns=node.ts))
            elif shape < 0.12:
                beats.append(run.beat(node, ts_ns=node.ts - rng.randrange(1, 900) * _MS))
            else:
                beats.append(run.beat(node))
        run.accept(f"random{k:02d}", agent_id, token_id, beats)
        if rng.random() < 0.25:
            run.take(f"random{k:02d}")
        if rng.random() < 0.2:
            run.backlog(f"random{k:02d}")
    run.take("the rest")
    run.take("nothing left")
    run.backlog("the rest")
    run.backlog("none since")
    return run.ops


def _uuid_text(text: str) -> str | None:
    try:
        return str(uuid.UUID(text))
    except ValueError:
        return None


def formats() -> dict:
    """Edge cases of the texts the intake makes, beyond the run's: [instance id, json.dumps(id)], [behind_ns,
    out_of_order(behind_ns)], [a node id as sent, str(uuid.UUID(it)) or null]."""
    ids = ["kv-0", 'we"ird\\id', "~", " ", "a\tb\nc\rd\be\ff", "\x00\x01\x1f", "\x7f", "café", "数据-2", "a\u0301",
           "\U0001F600", "\u00a0", "\u2028", "\ufeffid", "\uffff", "\ue000", "\U000E0001", "\U0010FFFF", "é" * 64]
    behind = [0, 1, 499, 500, 501, 62_500, 187_500, 999_999, 1_000_000, 123_456_789, 86_400 * _NS, (1 << 53) + 1,
              (1 << 62), (1 << 63) - 1]
    node = "00c1d2e3-f405-4617-8829-3a4b5c6d7e8f"
    digits = node.replace("-", "")
    texts = [node, node.upper(), "{" + node + "}", "{{" + node + "}", "}" + node + "{", "urn:uuid:" + node,
             "uuid:urn:" + node, "uurn:uid:" + node, "urn:" + node, node[:8] + "urn:" + node[8:], digits,
             "0x" + digits[2:], "0X" + digits[2:], "0x_" + digits[3:], " " + digits[1:], digits[1:] + "\t",
             "\x1c" + digits[1:], "\x0b" + digits[1:], "+" + digits[1:], "-" + digits[1:], "-" + "0" * 31,
             digits[0] + "_" + digits[2:], "_" + digits[1:], digits[:31] + "_", digits[:15] + "__" + digits[17:],
             "0_x" + digits[3:], "+0x" + digits[3:], "- " + digits[2:], digits[:31], digits + "0", "", "-" * 40,
             "not-a-uuid", node[:35] + "g", node[:35] + "é", "{" + digits + "}-", "urn:uuid:{" + node + "}"]
    return dict(json=[[i, json.dumps(i)] for i in ids],
                out_of_order=[[n, out_of_order(n)] for n in behind],
                uuids=[[t, _uuid_text(t)] for t in texts])


def golden_text() -> str:
    """The fixture: a head, the formats, then one op per line (a change shows as a readable diff)."""
    head = dict(generator=f"{COMMAND} (backend/e3/controller/intake_golden.py); do not edit",
                max_interval_s=EnergyLedger().max_interval_s, step_s=RollupSteps().step_s, formats=formats())
    ops = ",\n".join(json.dumps(op, separators=(",", ":")) for op in golden_ops())
    return json.dumps(head, separators=(",", ":"))[:-1] + ',"ops":[\n' + ops + "\n]}\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the fixture to the path given (argv[0]); usage on a wrong argument count."""
    return write_main(argv, COMMAND, golden_text)


if __name__ == "__main__":
    sys.exit(main())
