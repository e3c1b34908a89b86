"""A node's energy over an interval, shared among its instances, Kepler-style (docs/energy.md "Attribution").

Pure: figures in, figures out; no database, no clock. The inputs are what a heartbeat carries (the node's
watts and their source, each instance's `cpu_share` and `requests_completed`, the node's `cpu_utilization`)
plus what the controller knows (the node's idle watts, each instance's reserved cores).

The rule:

- **Idle and dynamic.** idle = the node's idle watts x the interval, dynamic = the rest. A reading below
  idle (a measured source on a node whose modelled idle is too high, or a meter's noise) is all idle:
  dynamic is 0, never negative, and the node is flagged `below_idle`.
- **Dynamic by CPU time.** Each instance's CPU time in the interval is its `cpu_share` of the node's CPU;
  it gets dynamic x cpu_share / busy, where busy = max(node cpu_utilization, sum of the shares). The CPU the
  node used for itself (agent, kernel) keeps its part as unattributed, as Kepler's "system processes" do.
- **Idle by reserved cores.** An instance holds its reserved cores whether it runs or not, so idle goes to
  the node's instances in proportion to their reservations. Fallback when a reservation is unknown (or all
  are 0): equal shares.
- **Nothing lost.** What no instance gets (all of it on a node without instances) stays with the node as
  `unattributed_joules`: instances + unattributed = the node's joules (tested to 1e-9 relative).

Rollups (DAG node, application, cluster) are sums that return (joules, requests) pairs; joules per request is
computed from them elsewhere (e3.energy.joules).
"""

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar


@dataclass(frozen=True)
class InstanceUsage:
    """One instance on a node over the interval, as its heartbeat's InstanceStats reports it."""

    instance_id: str
    cpu_share: float  # share of the node's CPU it used, 0..1
    requests: int = 0  # requests completed in the interval
    reserved_cores: float | None = None  # its reservation (catalogue cpu_cores); None: unknown


@dataclass(frozen=True)
class NodeInterval:
    """One node's energy over an interval and who ran on it."""

    node_id: str
    joules: float  # the node's energy over the interval, J (watts x seconds); >= 0
    seconds: float  # the interval, s; > 0
    idle_watts: float  # the node's idle draw (model figure for its type, or a measured idle), W; >= 0
    source: str  # where `joules` came from: rapl | ipmi | ipmi-split | model
    instances: tuple[InstanceUsage, ...] = ()
    cpu_utilization: float | None = None  # the node's own CPU utilisation, 0..1; None: unknown

    @classmethod
    def from_watts(cls, node_id: str, watts: float, seconds: float, idle_watts: float, source: str,
                   instances: Iterable[InstanceUsage] = (), cpu_utilization: float | None = None) -> "NodeInterval":
        """From a mean power over the interval (a heartbeat's power_watts)."""
        return cls(node_id, watts * seconds, seconds, idle_watts, source, tuple(instances), cpu_utilization)


@dataclass(frozen=True)
class InstanceEnergy:
    """What one instance is charged for one node interval."""

    instance_id: str
    node_id: str
    idle_joules: float
    dynamic_joules: float
    requests: int
    source: str  # the node's source: an instance's joules are as measured as its node's

    @property
    def joules(self) -> float:
        return self.idle_joules + self.dynamic_joules


@dataclass(frozen=True)
class NodeEnergy:
    """One node interval, attributed."""

    node_id: str
    joules: float
    idle_joules: float
    dynamic_joules: float
    unattributed_joules: float  # what no instance was charged (its idle without instances, its own CPU)
    below_idle: bool  # the reading was under idle watts x interval: all of it counted as idle
    source: str
    instances: tuple[InstanceEnergy, ...]


def _validate(node: NodeInterval) -> None:
    if not node.seconds > 0:
        raise ValueError(f"seconds: must be > 0 (got {node.seconds})")
    if not node.joules >= 0:
        raise ValueError(f"joules: must be >= 0 (got {node.joules})")
    if not node.idle_watts >= 0:
        raise ValueError(f"idle_watts: must be >= 0 (got {node.idle_watts})")
    for usage in node.instances:
        if not 0 <= usage.cpu_share <= 1:
            raise ValueError(f"cpu_share: must be in 0..1 (instance {usage.instance_id}: {usage.cpu_share})")
        if usage.reserved_cores is not None and not usage.reserved_cores >= 0:
            raise ValueError(f"reserved_cores: must be >= 0 (instance {usage.instance_id}: {usage.reserved_cores})")


def idle_weights(instances: tuple[InstanceUsage, ...]) -> list[float]:
    """Each instance's part of the idle energy: its reserved cores over the node's total, or equal parts when
    any reservation is unknown or they are all 0. Sums to 1 (empty for no instances)."""
    if not instances:
        return []
    reserved = [u.reserved_cores for u in instances]
    if all(r is not None for r in reserved) and sum(reserved) > 0:
        total = sum(reserved)
        return [r / total for r in reserved]
    return [1.0 / len(instances)] * len(instances)


def attribute(node: NodeInterval) -> NodeEnergy:
    """Split one node interval into its instances' joules and an unattributed remainder (module doc)."""
    _validate(node)
    idle_budget = node.idle_watts * node.seconds
    below_idle = node.joules < idle_budget
    idle = min(node.joules, idle_budget)
    dynamic = node.joules - idle  # 0 below idle

    shares = [u.cpu_share for u in node.instances]
    busy = max(sum(shares), node.cpu_utilization or 0.0)
    # the share of the busy CPU first (a ratio of like magnitudes): dynamic * s would underflow for a tiny share
    dynamic_parts = [dynamic * (s / busy) for s in shares] if busy > 0 else [0.0] * len(shares)
    idle_parts = [idle * w for w in idle_weights(node.instances)]

    charged = tuple(InstanceEnergy(u.instance_id, node.node_id, i, d, u.requests, node.source)
                    for u, i, d in zip(node.instances, idle_parts, dynamic_parts))
    # Computed from the shares rather than as joules - sum(charged), so rounding never shows as a negative
    # remainder; the parts still add up to the node to within float rounding (tests check 1e-9).
    idle_left = 0.0 if node.instances else idle
    dynamic_left = dynamic * (1.0 - sum(shares) / busy) if busy > 0 else dynamic
    return NodeEnergy(node.node_id, node.joules, idle, dynamic, idle_left + max(dynamic_left, 0.0), below_idle,
                      node.source, charged)


# --- rollups ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InstanceRef:
    """Where an instance belongs, for rollups."""

    application: str
    dag_node: str
    counts_requests: bool  # an entry primary: its requests are the application's requests


@dataclass(frozen=True)
class EnergyTotal:
    """A sum of joules and requests, and the sources the joules came from."""

    joules: float = 0.0
    requests: int = 0
    sources: frozenset[str] = frozenset()

    def __add__(self, other: "EnergyTotal") -> "EnergyTotal":
        return EnergyTotal(self.joules + other.joules, self.requests + other.requests, self.sources | other.sources)


K = TypeVar("K", bound=Hashable)


def _sum_by(parts: Iterable[tuple[K, EnergyTotal]]) -> dict[K, EnergyTotal]:
    out: dict[K, EnergyTotal] = {}
    for key, total in parts:
        out[key] = out.get(key, EnergyTotal()) + total
    return out


def _instances(nodes: Iterable[NodeEnergy]) -> Iterable[InstanceEnergy]:
    return (i for n in nodes for i in n.instances)


def _rollup(nodes: Iterable[NodeEnergy], refs: Mapping[str, InstanceRef],
            key: Callable[[InstanceRef], K], requests: Callable[[InstanceRef, InstanceEnergy], int]
            ) -> dict[K, EnergyTotal]:
    """Instances without a ref (not in the controller's view any more) are left out: their joules stay in
    the nodes' and the cluster's totals."""
    return _sum_by((key(ref), EnergyTotal(i.joules, requests(ref, i), frozenset({i.source})))
                   for i in _instances(nodes) if (ref := refs.get(i.instance_id)) is not None)


def by_instance(nodes: Iterable[NodeEnergy]) -> dict[str, EnergyTotal]:
    """Per instance, over every interval given (an instance may appear in several)."""
    return _sum_by((i.instance_id, EnergyTotal(i.joules, i.requests, frozenset({i.source})))
                   for i in _instances(nodes))


def by_dag_node(nodes: Iterable[NodeEnergy], refs: Mapping[str, InstanceRef]) -> dict[tuple[str, str], EnergyTotal]:
    """Per (application, DAG node): its instances' joules and the requests they completed."""
    return _rollup(nodes, refs, lambda r: (r.application, r.dag_node), lambda r, i: i.requests)


def by_application(nodes: Iterable[NodeEnergy], refs: Mapping[str, InstanceRef]) -> dict[str, EnergyTotal]:
    """Per application: all its instances' joules; requests only from its entry primaries (a request that
    crosses five DAG nodes is one request of the application, not five)."""
    return _rollup(nodes, refs, lambda r: r.application, lambda r, i: i.requests if r.counts_requests else 0)


def cluster_total(nodes: Iterable[NodeEnergy], refs: Mapping[str, InstanceRef]) -> EnergyTotal:
    """The whole cluster: every node's joules, unattributed included; requests of every application."""
    nodes = list(nodes)
    requests = sum(i.requests for i in _instances(nodes)
                   if (ref := refs.get(i.instance_id)) is not None and ref.counts_requests)
    return EnergyTotal(sum(n.joules for n in nodes), requests, frozenset(n.source for n in nodes))
