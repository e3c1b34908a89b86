"""The feasibility rules every placement algorithm shares, and the bookkeeping they need.

An instance may go on a node when

1. platform: the node's kind is the instance's platform (or the platform is `any`);
2. capacity: the node has room for its cores, memory and bandwidth on top of what is already
   reserved there (`NodeCapacity.used`, which includes other deployments' load);
3. fault domains: no other replica of the same shard (primary or backup) is on the node's
   server, so one server failure never takes a whole shard down;
4. anti-affinity (only when `PlacementProblem.anti_affinity`): no instance of another shard of
   the same DAG node is on the node's server either. This is a hard rule: when it cannot be
   met the placement fails with resource "anti_affinity" rather than quietly relaxing it.

Rules 3 and 4 are both "the server must not be in this set"; `PlacementState.blocked(inst)`
gives that set and `can_host(inst, node, blocked)` checks all four rules.
"""

from collections import defaultdict
from collections.abc import Callable, Container, Hashable, Iterable

from e3.placement.model import (RESOURCE_UNITS, RESOURCES, InstanceKey, InstanceRequest, NodeCapacity,
                                PlacementError, PlacementProblem, ProgressFn)

# NodeCapacity.fits's tolerance: sums of fractional cores (0.25 + 0.25 + ...) must not fail on rounding.
EPSILON = 1e-9


def has_room(node: NodeCapacity, inst: InstanceRequest) -> bool:
    """Rule 2 alone: NodeCapacity.fits, spelled out because it runs millions of times."""
    used = node.used
    return (node.cpu_cores - used["cpu_cores"] + EPSILON >= inst.cpu_cores
            and node.memory_mb - used["memory_mb"] + EPSILON >= inst.memory_mb
            and node.bandwidth_mbps - used["bandwidth_mbps"] + EPSILON >= inst.bandwidth_mbps)


def can_host(inst: InstanceRequest, node: NodeCapacity, placed_domains: Container[Hashable]) -> bool:
    """Whether `node` may take `inst` now: platform, capacity, and a server not in `placed_domains`.

    `placed_domains` is the set of servers `inst` must avoid, normally `PlacementState.blocked(inst)`
    (servers holding its shard's other replicas, and with anti-affinity its DAG node's other shards).
    """
    return (inst.platform == "any" or inst.platform == node.kind) and node.server not in placed_domains \
        and has_room(node, inst)


class PlacementState:
    """Which servers hold replicas of each shard and instances of each DAG node, and where each instance is.

    Servers are counted rather than just collected, so fixed placements that already break a
    rule (two replicas on one server, placed before the rule existed) can still be recorded and
    removed again without corrupting the sets.
    """

    def __init__(self, anti_affinity: bool = False):
        self.anti_affinity = anti_affinity
        self.assignments: dict[InstanceKey, Hashable] = {}
        self._shard_servers: dict[tuple[str, int], dict[Hashable, int]] = defaultdict(dict)
        self._dag_node_servers: dict[str, dict[Hashable, int]] = defaultdict(dict)

    def shard_servers(self, inst: InstanceRequest) -> Container[Hashable]:
        """Servers holding a replica of `inst`'s shard (its own, once it is placed)."""
        return self._shard_servers[inst.shard_key]

    def dag_node_servers(self, inst: InstanceRequest) -> Container[Hashable]:
        """Servers holding any instance of `inst`'s DAG node."""
        return self._dag_node_servers[inst.dag_node]

    def blocked(self, inst: InstanceRequest) -> Container[Hashable]:
        """The servers `inst` may not use (rules 3 and 4). A live view, not a copy: do not keep it.

        With anti-affinity every instance of a DAG node needs its own server, and the DAG node's
        servers include the shard's, so one set answers both rules without building a union.
        """
        return self._dag_node_servers[inst.dag_node] if self.anti_affinity else self._shard_servers[inst.shard_key]

    def add(self, inst: InstanceRequest, node: NodeCapacity) -> None:
        """Record `inst` on `node` (the caller reserves the capacity)."""
        self.assignments[inst.key] = node.id
        for counts in (self._shard_servers[inst.shard_key], self._dag_node_servers[inst.dag_node]):
            counts[node.server] = counts.get(node.server, 0) + 1

    def remove(self, inst: InstanceRequest, node: NodeCapacity) -> None:
        """Forget `inst` on `node` (the caller releases the capacity)."""
        del self.assignments[inst.key]
        for counts in (self._shard_servers[inst.shard_key], self._dag_node_servers[inst.dag_node]):
            counts[node.server] -= 1
            if not counts[node.server]:
                del counts[node.server]

    def explain(self, inst: InstanceRequest, nodes: Iterable[NodeCapacity]) -> PlacementError:
        """Why no node can take `inst` under the rules as they stand."""
        return explain_no_fit(inst, nodes, self.shard_servers(inst),
                              dag_node_servers=self.dag_node_servers(inst) if self.anti_affinity else None)


def explain_no_fit(inst: InstanceRequest, nodes: Iterable[NodeCapacity], taken: Container[Hashable], *,
                   dag_node_servers: Container[Hashable] | None = None) -> PlacementError:
    """Say why nothing fits: no node of the platform, not enough fault domains, anti-affinity, or which
    resource ran out (the first of cores, memory, bandwidth that no eligible node has enough of).

    `taken` are the servers holding the shard's other replicas; `dag_node_servers`, given only when
    anti-affinity applies, those holding the DAG node's other shards. Scans every node: call it only
    once placement has failed.
    """
    where = "computing" if inst.platform == "any" else inst.platform
    on_platform = [n for n in nodes if inst.allows(n)]
    if not on_platform:
        return PlacementError(f"{inst.describe()}: the cluster has no {where} node that is up (or suspect)", inst, None)
    eligible = [n for n in on_platform if n.server not in taken]
    if not eligible:
        return PlacementError(
            f"{inst.describe()}: replicas of a shard need distinct servers, and every server with a "
            f"{where} node already holds a replica of this shard", inst, "fault_domains")
    if dag_node_servers is not None:
        eligible = [n for n in eligible if n.server not in dag_node_servers]
        if not eligible:
            return PlacementError(
                f"{inst.describe()}: anti-affinity puts the shards of {inst.dag_node} on distinct servers, and "
                f"every server with a {where} node it may use already holds an instance of {inst.dag_node}",
                inst, "anti_affinity")
    short = [r for r in RESOURCES if max(n.free(r) for n in eligible) + EPSILON < inst.resource(r)]
    if short:
        r = short[0]
        best = max(n.free(r) for n in eligible)
        unit = RESOURCE_UNITS[r]
        return PlacementError(
            f"{inst.describe()}: out of {r.removesuffix('_mb').removesuffix('_mbps').replace('_', ' ')}: "
            f"needs {inst.resource(r):g} {unit}, at most {max(best, 0):g} {unit} free on any {where} node "
            f"it may use", inst, r)
    return PlacementError(
        f"{inst.describe()}: no single {where} node has room for its cores, memory and bandwidth together",
        inst, "combined")


def to_place(problem: PlacementProblem) -> list[InstanceRequest]:
    """The problem's instances that are not fixed, in problem order."""
    return [inst for inst in problem.instances if inst.key not in problem.fixed]


class Progress:
    """Calls `progress(done, total)` every `every` instances and once at the end."""

    def __init__(self, progress: ProgressFn | None, total: int, every: int = 50):
        self._fn: Callable[[int, int], None] | None = progress
        self.total, self.every, self.done = total, max(1, every), 0

    def tick(self) -> None:
        self.done += 1
        if self._fn and (self.done % self.every == 0 or self.done == self.total):
            self._fn(self.done, self.total)


def full_assignments(problem: PlacementProblem, state: PlacementState) -> dict[InstanceKey, Hashable]:
    """Every instance's node, in problem order (fixed ones included)."""
    return {inst.key: state.assignments[inst.key] for inst in problem.instances}
