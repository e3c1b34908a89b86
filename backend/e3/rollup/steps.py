"""Telemetry rollups: each node's and instance's heartbeats summed into steps of `step_s` seconds
(docs/controller-scale-out.md §1; stored in `node_rollups` and `instance_rollups`).

The controller stores a rollup row per node and step, and one per instance on it, instead of a row per
50 ms heartbeat. Every figure of a row is a **sum, a count or a maximum**, so a step's row can be written
in pieces and the pieces added: `take()` hands over, as deltas, every step touched since the previous
`take()`, and the writer adds them to what is stored (services.telemetry_rollups). A late heartbeat, a step
split between two writes, or a node that moved between controllers mid-step all merge exactly; no step
ever has to be "closed". Means are read as sum / count; a p99 is kept as the highest per-heartbeat p99 of
the step (an upper bound of the step's p99, as the live channel labels it) beside the count-weighted sum
of the p99s.

What each heartbeat adds (its step is the one holding its timestamp):

- node: 1 heartbeat; `seconds` and `joules` as the energy ledger charged it (e3.energy.ledger: the
  interval since the node's previous heartbeat, capped; 0 for the first and for one not newer than the
  latest); its queue length and CPU utilisation (sum and max); its watts (sum and max); the growth of the
  agent's cumulative rx/tx counters since the node's previous heartbeat (a counter lower than the one
  before is an agent restart: it counts from 0; the first heartbeat and one not newer than the latest add
  nothing, since there is nothing to subtract); the requests of its instances;
- instance: 1 heartbeat; its requests; exec time × requests; cpu share × the interval (CPU seconds);
  latency count; latency mean × count; p99 (max, and × count).

So Σ requests, latency counts and heartbeats over the rows equal the sums over the heartbeats exactly, and
Σ joules the ledger's total (tests/services/test_rollup_conservation.py).

Pure: no database, no clock. Used from one thread (the controller's event loop), once per heartbeat.
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace

STEP_S = 1  # seconds: the dashboard's, the orchestrator's and the paper's plots are per second
MIXED = "mixed"


@dataclass(frozen=True)
class NodeRollup:
    """What a node's heartbeats of one step added since the previous take (columns of `node_rollups`)."""

    node_id: str
    cluster_id: str
    start: int  # the step's start, seconds since the epoch
    step_s: int
    heartbeats: int
    seconds: float
    joules: float
    power_source: str  # rapl | ipmi | ipmi-split | model | mixed
    power_watts_sum: float
    power_watts_max: float
    queue_len_sum: int
    queue_len_max: int
    cpu_util_sum: float
    cpu_util_max: float
    rx_bytes: int
    tx_bytes: int
    rx_packets: int
    tx_packets: int
    requests: int
    last_ts: float  # the latest heartbeat's time in the step


@dataclass(frozen=True)
class InstanceRollup:
    """What an instance's figures in its node's heartbeats of one step added (columns of `instance_rollups`)."""

    instance_id: str
    node_id: str
    cluster_id: str
    start: int
    step_s: int
    heartbeats: int
    requests: int
    exec_time_us_sum: float  # Σ mean exec time × requests
    cpu_seconds: float  # Σ cpu share × interval
    latency_count: int
    latency_us_sum: float  # Σ mean latency × count
    latency_p99_max: float
    latency_p99_weighted_sum: float  # Σ p99 × count


# How two pieces of one step's row merge (as telemetry_rollups merges a piece into the stored row): these columns
# are added, these kept at their highest; the power source stays when equal, else is MIXED.
NODE_ADDED = ("heartbeats", "seconds", "joules", "power_watts_sum", "queue_len_sum", "cpu_util_sum", "rx_bytes",
              "tx_bytes", "rx_packets", "tx_packets", "requests")
NODE_MAXED = ("power_watts_max", "queue_len_max", "cpu_util_max", "last_ts")
INSTANCE_ADDED = ("heartbeats", "requests", "exec_time_us_sum", "cpu_seconds", "latency_count", "latency_us_sum",
                  "latency_p99_weighted_sum")
INSTANCE_MAXED = ("latency_p99_max",)


def _merge(held, piece, added: tuple[str, ...], maxed: tuple[str, ...], **more):
    return replace(held, **{name: getattr(held, name) + getattr(piece, name) for name in added},
                   **{name: max(getattr(held, name), getattr(piece, name)) for name in maxed}, **more)


def merge_node_rows(held: NodeRollup, piece: NodeRollup) -> NodeRollup:
    """Two pieces of one node's step as one row."""
    return _merge(held, piece, NODE_ADDED, NODE_MAXED,
                  power_source=held.power_source if held.power_source == piece.power_source else MIXED)


def merge_instance_rows(held: InstanceRollup, piece: InstanceRollup) -> InstanceRollup:
    return _merge(held, piece, INSTANCE_ADDED, INSTANCE_MAXED)


class _InstanceStep:
    __slots__ = ("heartbeats", "requests", "exec_sum", "cpu_seconds", "lat_n", "lat_sum", "p99_max", "p99_wsum")

    def __init__(self):
        self.heartbeats = self.requests = self.lat_n = 0
        self.exec_sum = self.cpu_seconds = self.lat_sum = self.p99_max = self.p99_wsum = 0.0


class _NodeStep:
    __slots__ = ("heartbeats", "seconds", "joules", "source", "watts_sum", "watts_max", "queue_sum", "queue_max",
                 "cpu_sum", "cpu_max", "rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "requests", "last_ts",
                 "instances")

    def __init__(self, source: str):
        self.heartbeats = self.queue_sum = self.queue_max = self.requests = 0
        self.rx_bytes = self.tx_bytes = self.rx_packets = self.tx_packets = 0
        self.seconds = self.joules = self.watts_sum = self.watts_max = self.cpu_sum = self.cpu_max = 0.0
        self.last_ts = 0.0
        self.source = source
        self.instances: dict[str, _InstanceStep] = {}


def _growth(now: int, before: int) -> int:
    """How much a cumulative counter grew; a lower value is a restarted agent counting from 0."""
    return now - before if now >= before else now


class NodeSteps:
    """One node's steps touched since the last take, and what the next heartbeat's counters subtract."""

    __slots__ = ("node_id", "cluster_id", "step_s", "_steps", "_last_t", "_counters", "_untaken")

    def __init__(self, node_id: str, cluster_id: str, step_s: int, untaken: list[int] | None = None):
        self.node_id, self.cluster_id, self.step_s = node_id, cluster_id, step_s
        self._untaken = untaken if untaken is not None else [0]  # rows not taken yet, shared by every node
        self._steps: dict[int, _NodeStep] = {}
        self._last_t = 0.0  # the latest heartbeat's time; 0: none yet
        self._counters: tuple[int, int, int, int] | None = None  # its rx/tx bytes/packets

    def add(self, t: float, seconds: float, joules: float, source: str, watts: float, queue_len: int,
            cpu_util: float, rx_bytes: int, tx_bytes: int, rx_packets: int, tx_packets: int,
            instances: Iterable) -> None:
        """Count one heartbeat at `t` (seconds since the epoch) whose interval the energy ledger took as
        `seconds`, charging `joules`. `instances`: (instance id, requests, cpu share, exec time µs,
        latency count, latency mean µs, latency p99 µs) of each."""
        start = int(t // self.step_s) * self.step_s
        step = self._steps.get(start)
        if step is None:
            step = self._steps[start] = _NodeStep(source)
            self._untaken[0] += 1
        elif source != step.source:
            step.source = MIXED
        if t > self._last_t:
            self._last_t = t
            before = self._counters
            self._counters = (rx_bytes, tx_bytes, rx_packets, tx_packets)
            if before is not None:
                step.rx_bytes += _growth(rx_bytes, before[0])
                step.tx_bytes += _growth(tx_bytes, before[1])
                step.rx_packets += _growth(rx_packets, before[2])
                step.tx_packets += _growth(tx_packets, before[3])
        step.heartbeats += 1
        step.seconds += seconds
        step.joules += joules
        step.watts_sum += watts
        if watts > step.watts_max:
            step.watts_max = watts
        step.queue_sum += queue_len
        if queue_len > step.queue_max:
            step.queue_max = queue_len
        step.cpu_sum += cpu_util
        if cpu_util > step.cpu_max:
            step.cpu_max = cpu_util
        if t > step.last_ts:
            step.last_ts = t
        used = step.instances
        for iid, requests, cpu_share, exec_us, lat_n, lat_avg_us, lat_p99_us in instances:
            acc = used.get(iid)
            if acc is None:
                acc = used[iid] = _InstanceStep()
                self._untaken[0] += 1
            acc.heartbeats += 1
            acc.requests += requests
            acc.exec_sum += exec_us * requests
            acc.cpu_seconds += cpu_share * seconds
            acc.lat_n += lat_n
            acc.lat_sum += lat_avg_us * lat_n
            acc.p99_wsum += lat_p99_us * lat_n
            if lat_p99_us > acc.p99_max:
                acc.p99_max = lat_p99_us
            step.requests += requests

    def take(self) -> tuple[list[NodeRollup], list[InstanceRollup]]:
        """The deltas of every step touched since the last take, oldest step first; forgets them."""
        steps, self._steps = self._steps, {}
        nodes, instances = [], []
        for start in sorted(steps):
            s = steps[start]
            nodes.append(NodeRollup(self.node_id, self.cluster_id, start, self.step_s, s.heartbeats, s.seconds,
                                    s.joules, s.source, s.watts_sum, s.watts_max, s.queue_sum, s.queue_max,
                                    s.cpu_sum, s.cpu_max, s.rx_bytes, s.tx_bytes, s.rx_packets, s.tx_packets,
                                    s.requests, s.last_ts))
            instances.extend(InstanceRollup(iid, self.node_id, self.cluster_id, start, self.step_s, i.heartbeats,
                                            i.requests, i.exec_sum, i.cpu_seconds, i.lat_n, i.lat_sum, i.p99_max,
                                            i.p99_wsum)
                             for iid, i in s.instances.items())
        self._untaken[0] -= len(nodes) + len(instances)
        return nodes, instances


class RollupSteps:
    """Every node's steps (`node(...)` once per node, then `NodeSteps.add` per heartbeat; `take()` per write)."""

    def __init__(self, step_s: int = STEP_S):
        if step_s <= 0:
            raise ValueError("step_s must be > 0")
        self.step_s = step_s
        self.nodes: dict[str, NodeSteps] = {}
        self._untaken = [0]  # rows the next take() hands over, counted as steps open (the writer's backpressure)
        # rows made elsewhere, untaken, by their key: pieces of one step merge (one write takes a key once)
        self._handed_nodes: dict[tuple, NodeRollup] = {}
        self._handed_instances: dict[tuple, InstanceRollup] = {}

    @property
    def untaken_rows(self) -> int:
        return self._untaken[0]

    def node(self, node_id: str, cluster_id: str) -> NodeSteps:
        """The node's steps, made on first use (kept across its agent's registrations: the counters go on)."""
        steps = self.nodes.get(node_id)
        if steps is None:
            steps = self.nodes[node_id] = NodeSteps(node_id, cluster_id, self.step_s, self._untaken)
        else:
            steps.cluster_id = cluster_id
        return steps

    def hand(self, nodes: list[NodeRollup], instances: list[InstanceRollup]) -> None:
        """Rows the ingest front made from the heartbeats it took (controller.front_delivery): the next take()
        hands them over with the others."""
        for row in nodes:
            self._hand(self._handed_nodes, (row.node_id, row.start), row, merge_node_rows)
        for row in instances:
            self._hand(self._handed_instances, (row.instance_id, row.node_id, row.start), row, merge_instance_rows)

    def _hand(self, held: dict, key: tuple, row, merge) -> None:
        before = held.get(key)
        if before is None:
            held[key] = row
            self._untaken[0] += 1
        else:
            held[key] = merge(before, row)

    def take(self) -> tuple[list[NodeRollup], list[InstanceRollup]]:
        """Every node's deltas since the last take (the handed rows first)."""
        nodes, instances = list(self._handed_nodes.values()), list(self._handed_instances.values())
        self._handed_nodes, self._handed_instances = {}, {}
        self._untaken[0] -= len(nodes) + len(instances)
        for steps in self.nodes.values():
            n, i = steps.take()
            nodes.extend(n)
            instances.extend(i)
        return nodes, instances
