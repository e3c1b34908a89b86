"""The controller's running account of energy, per node and instance (docs/energy.md "Energy history").

Two things are kept from the heartbeats as they arrive:

- **cumulative totals** per node (joules by source, heartbeats, the latest watts) and per instance (joules
  by source, requests), for Prometheus' counters (`/metrics`);
- **open steps** of the energy history: per node, per step of `step_s` seconds (aligned to multiples of it
  since the epoch), the node's joules, the time covered, its heartbeats, its highest watts, and per
  instance the CPU seconds it used and the requests it completed. `close()` hands the steps that ended as
  rows (one per node, one per instance) for the controller to store (controller.energy_rollups).

**A heartbeat's energy** is its `power_watts` times the interval since the node's previous heartbeat, at
most `max_interval_s`: the first heartbeat a controller hears from a node, and one older than the node's
latest, have no interval (0 J; their requests still count). A longer silence is charged `max_interval_s`
at the new heartbeat's watts, not the whole silence: nobody measured it. The heartbeat counts, whole, in
the step holding its timestamp. So a step's joules are exactly the sum of its heartbeats' energies
(tested to 1e-9 relative), and the node's cumulative joules the sum over every step.

**Attribution happens when a step closes** (e3.energy.attribution, over the step): the node's energy is
split into idle (its idle watts x the seconds covered) and dynamic; dynamic goes to the instances by their
CPU seconds in the step (each heartbeat's `cpu_share` x its interval), idle by their reserved cores. Doing
it per step rather than per heartbeat keeps the per-heartbeat cost to a few additions (the controller takes
~100,000 heartbeats/s at full scale); the price is that an instance's share is its mean over the step.
Instance joules reach the totals when the step closes: they lag the node's by up to a step plus the grace.

A step's source is its heartbeats' source, or `mixed` when the node changed source within it (an IPMI
reading that came or went); the totals keep joules per source, so the instances' share of a mixed step
is divided among the sources in the node's proportions.

Pure: no database, no clock (times are the heartbeats' own, seconds since the epoch). Used from one
thread (the controller's event loop).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from e3.energy.attribution import InstanceUsage, NodeInterval, attribute
from e3.energy.history_policy import ROLLUP_STEP_S

STEP_S = ROLLUP_STEP_S  # the energy history's step (rollup bucket)
MAX_INTERVAL_S = 1.0  # the longest interval one heartbeat's energy covers (20 heartbeat periods)
MIXED = "mixed"


@dataclass
class InstanceTotals:
    """One instance since the controller started: what its node's closed steps gave it."""

    node_id: str
    joules_by_source: dict[str, float] = field(default_factory=dict)
    requests: int = 0
    labels: tuple[str, str, str] | None = None  # (deployment_id, application, dag_node), once the controller knows


class _Step:
    """One node's open step. Its energy by source is kept as a total and the source it is being drawn from
    (`source`); the other sources' parts are set aside (`earlier`) only when the source changes, which is
    rare, so that counting a heartbeat touches no dictionary."""

    __slots__ = ("start", "end", "joules", "seconds", "heartbeats", "watts_max", "cpu_seconds", "source",
                 "earlier", "earlier_joules", "instances")

    def __init__(self, start: float, step_s: float, source: str):
        self.start, self.end = start, start + step_s
        self.joules = self.seconds = self.watts_max = self.cpu_seconds = self.earlier_joules = 0.0
        self.heartbeats = 0
        self.source = source
        self.earlier: dict[str, float] = {}  # joules drawn from other sources before `source`
        self.instances: dict[str, list] = {}  # instance id -> [cpu seconds, requests]

    def switch(self, source: str) -> None:
        """The node now draws from `source`: set aside what the previous one gave."""
        part = self.joules - self.earlier_joules
        self.earlier[self.source] = self.earlier.get(self.source, 0.0) + part
        self.earlier_joules = self.joules
        self.source = source

    @property
    def by_source(self) -> dict[str, float]:
        out = dict(self.earlier)
        out[self.source] = out.get(self.source, 0.0) + (self.joules - self.earlier_joules)
        return out


_NO_STEP = _Step(float("inf"), 0.0, "")  # holds no time: the first heartbeat looks its step up


class NodeTotals:
    """One node: its cumulative totals, and its open steps (add a heartbeat with `add`)."""

    __slots__ = ("node_id", "cluster_id", "kind", "name", "watts", "interval", "_closed", "_closed_heartbeats",
                 "_last_t", "_step", "_steps", "_step_s", "_max_interval_s")

    def __init__(self, node_id: str, cluster_id: str, kind: str, name: str, step_s: float, max_interval_s: float):
        self.node_id, self.cluster_id, self.kind, self.name = node_id, cluster_id, kind, name
        self.watts = 0.0  # the latest heartbeat's
        self.interval = 0.0  # the seconds the latest heartbeat counted was charged for (its energy's interval)
        self._closed: dict[str, float] = {}  # joules by source of the closed steps
        self._closed_heartbeats = 0
        self._last_t = 0.0  # the latest heartbeat's time; 0: none yet
        self._step = _NO_STEP  # the step the latest heartbeat fell in (most heartbeats do too)
        self._steps: dict[float, _Step] = {}  # open steps by start
        self._step_s, self._max_interval_s = step_s, max_interval_s

    @property
    def joules_by_source(self) -> dict[str, float]:
        """Cumulative joules since the controller started, by source."""
        out = dict(self._closed)
        for step in self._steps.values():
            for source, joules in step.by_source.items():
                out[source] = out.get(source, 0.0) + joules
        return out

    @property
    def joules(self) -> float:
        return sum(self.joules_by_source.values())

    @property
    def heartbeats(self) -> int:
        return self._closed_heartbeats + sum(s.heartbeats for s in self._steps.values())

    @property
    def source(self) -> str:
        """The latest heartbeat's source ("" before the first)."""
        return self._step.source

    def add(self, t: float, watts: float, source: str, cpu_utilization: float, instances: Iterable) -> float:
        """Count one heartbeat at `t` (seconds since the epoch) drawing `watts`, from `source`, its node's CPU
        at `cpu_utilization` (0..1); `instances`: (instance id, requests completed, cpu share, ...) of each
        (agent.proto's InstanceStats; further items are ignored). Returns the joules it was charged; the
        interval they cover is `interval` after the call."""
        last = self._last_t
        if t > last:
            self._last_t = t
            dt = t - last
            if dt > self._max_interval_s:
                dt = self._max_interval_s if last else 0.0  # last == 0: the node's first heartbeat
        else:
            dt = 0.0
        self.interval = dt
        step = self._step
        if not step.start <= t < step.end or (source is not step.source and source != step.source):
            step = self._step_at(t, source)
        joules = watts * dt
        step.joules += joules
        step.seconds += dt
        step.cpu_seconds += cpu_utilization * dt
        step.heartbeats += 1
        if watts > step.watts_max:
            step.watts_max = watts
        self.watts = watts
        used = step.instances
        for iid, requests, cpu_share, *_ in instances:
            acc = used.get(iid)
            if acc is None:
                used[iid] = [cpu_share * dt, requests]
            else:
                acc[0] += cpu_share * dt
                acc[1] += requests
        return joules

    def _step_at(self, t: float, source: str) -> _Step:
        """The open step holding `t`, drawing from `source` from now on (made, or switched, if need be)."""
        step = self._step
        if not step.start <= t < step.end:
            start = t - t % self._step_s
            step = self._steps.get(start)
            if step is None:
                step = self._steps[start] = _Step(start, self._step_s, source)
            self._step = step
        if source is not step.source and source != step.source:
            step.switch(source)
        return step

    def add_rollup(self, node, instances: Iterable) -> None:
        """Count the heartbeats of a 1 s rollup row the ingest front took (`node`: e3.rollup.steps.NodeRollup;
        `instances`: its InstanceRollup rows), as `add` counted them one by one: the row's joules, seconds and
        heartbeats, its highest watts, each instance's CPU seconds and requests. Two figures differ from `add`'s:
        the node's CPU seconds are its mean utilisation × the seconds covered (a rollup keeps Σ utilisation, not Σ
        utilisation × interval: equal when the heartbeats' intervals are), and `watts` is the row's mean, not its
        latest heartbeat's. A row in a step `close` already closed opens it again (its rows are pieces the energy
        history sums)."""
        if node.last_ts > self._last_t:
            self._last_t = node.last_ts
        step = self._step_at(float(node.start), node.power_source)
        step.joules += node.joules
        step.seconds += node.seconds
        if node.heartbeats:
            step.cpu_seconds += node.cpu_util_sum / node.heartbeats * node.seconds
            self.watts = node.power_watts_sum / node.heartbeats
        step.heartbeats += node.heartbeats
        if node.power_watts_max > step.watts_max:
            step.watts_max = node.power_watts_max
        used = step.instances
        for inst in instances:
            acc = used.get(inst.instance_id)
            if acc is None:
                used[inst.instance_id] = [inst.cpu_seconds, inst.requests]
            else:
                acc[0] += inst.cpu_seconds
                acc[1] += inst.requests

    def _closing(self, step: _Step) -> None:
        """`step` closes: its figures join the closed totals."""
        del self._steps[step.start]
        if self._step is step:
            self._step = _NO_STEP
        for source, joules in step.by_source.items():
            self._closed[source] = self._closed.get(source, 0.0) + joules
        self._closed_heartbeats += step.heartbeats


@dataclass(frozen=True)
class EnergyRow:
    """One row of the energy history: a node's step (`instance_id` None) or an instance's share of it."""

    start: float  # the step's start, seconds since the epoch
    step_s: int
    cluster_id: str
    node_id: str
    instance_id: str | None
    joules: float
    idle_joules: float
    unattributed_joules: float  # node rows: what no instance got; 0 on an instance's
    requests: int
    seconds: float  # the time the step's heartbeats covered
    heartbeats: int
    watts_max: float  # the node's highest heartbeat watts in the step
    source: str  # rapl | ipmi | ipmi-split | model | mixed


class EnergyLedger:
    """Every node's account (`nodes`), every instance's totals (`instances`), the heartbeats counted."""

    def __init__(self, step_s: int = STEP_S, max_interval_s: float = MAX_INTERVAL_S):
        if step_s <= 0 or max_interval_s <= 0:
            raise ValueError("step_s and max_interval_s must be > 0")
        self.step_s, self.max_interval_s = step_s, max_interval_s
        self.nodes: dict[str, NodeTotals] = {}
        self.instances: dict[str, InstanceTotals] = {}

    @property
    def heartbeats(self) -> int:
        return sum(n.heartbeats for n in self.nodes.values())

    def account(self, node_id: str, cluster_id: str, kind: str, name: str) -> NodeTotals:
        """The node's account, made on first use (kept across its agent's registrations)."""
        node = self.nodes.get(node_id)
        if node is None:
            node = self.nodes[node_id] = NodeTotals(node_id, cluster_id, kind, name, self.step_s,
                                                    self.max_interval_s)
        else:
            node.cluster_id, node.kind, node.name = cluster_id, kind, name
        return node

    def closable(self, before: float) -> tuple[set[str], set[str]]:
        """The nodes with a step ending at or before `before`, and the instances in those steps: what
        `close` will need the idle watts and reservations of."""
        nodes, instances = set(), set()
        for node in self.nodes.values():
            for step in node._steps.values():
                if step.end <= before:
                    nodes.add(node.node_id)
                    instances.update(step.instances)
        return nodes, instances

    def close(self, before: float, idle_watts: Callable[[str], float],
              reserved_cores: Callable[[str], float | None], node_ids: Iterable[str] | None = None) -> list[EnergyRow]:
        """Close every step that ended at or before `before` (seconds since the epoch; pass `float("inf")`
        to close them all), attribute each, add the instances' shares to their totals, and return the rows:
        per step, the node's row, then its instances' (in the order they first reported).
        `idle_watts(node_id)`: the node's idle draw; `reserved_cores(instance_id)`: its reservation or None.
        `node_ids`: those nodes' steps only (the caller closes a few at a time between turns of its event loop)."""
        rows: list[EnergyRow] = []
        nodes = self.nodes.values() if node_ids is None else [self.nodes[n] for n in node_ids if n in self.nodes]
        for node in nodes:
            done = [s for s in node._steps.values() if s.end <= before]
            for step in sorted(done, key=lambda s: s.start):
                node._closing(step)
                rows.extend(self._rows(node, step, idle_watts(node.node_id), reserved_cores))
        return rows

    def _rows(self, node: NodeTotals, step: _Step, idle_watts: float,
              reserved_cores: Callable[[str], float | None]) -> list[EnergyRow]:
        by_source = step.by_source
        sources = [s for s, j in by_source.items() if j > 0] or list(by_source)
        source = sources[0] if len(sources) == 1 else MIXED
        usages = tuple(InstanceUsage(iid, min(1.0, cpu / step.seconds) if step.seconds > 0 else 0.0, requests,
                                     reserved_cores(iid))
                       for iid, (cpu, requests) in step.instances.items())
        if step.seconds > 0:
            energy = attribute(NodeInterval(node.node_id, step.joules, step.seconds, idle_watts, source, usages,
                                            min(1.0, step.cpu_seconds / step.seconds)))
            shares = {e.instance_id: (e.joules, e.idle_joules) for e in energy.instances}
            idle, unattributed = energy.idle_joules, energy.unattributed_joules
        else:  # only heartbeats without an interval: no energy to share
            shares, idle, unattributed = {}, 0.0, 0.0
        start = step.start
        rows = [EnergyRow(start, self.step_s, node.cluster_id, node.node_id, None, step.joules, idle, unattributed,
                          sum(u.requests for u in usages), step.seconds, step.heartbeats, step.watts_max, source)]
        for usage in usages:
            joules, idle_joules = shares.get(usage.instance_id, (0.0, 0.0))
            rows.append(EnergyRow(start, self.step_s, node.cluster_id, node.node_id, usage.instance_id, joules,
                                  idle_joules, 0.0, usage.requests, step.seconds, step.heartbeats, step.watts_max,
                                  source))
            totals = self.instances.get(usage.instance_id)
            if totals is None:
                totals = self.instances[usage.instance_id] = InstanceTotals(node.node_id)
            totals.node_id = node.node_id  # it may have moved (migrated): its totals go on, on the new node
            totals.requests += usage.requests
            _share_by_source(totals.joules_by_source, joules, by_source, step.joules)
        return rows


def _share_by_source(into: dict[str, float], joules: float, by_source: dict[str, float], total: float) -> None:
    """Add `joules` to `into`, divided among the sources as the step's energy was."""
    if total <= 0:
        if joules:
            source = next(iter(by_source), MIXED)
            into[source] = into.get(source, 0.0) + joules
        return
    for source, part in by_source.items():
        if part:
            into[source] = into.get(source, 0.0) + joules * part / total
