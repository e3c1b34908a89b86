"""What to do about a detection: which microservice leaves the SmartNIC, and for which host (paper §3.4).

Pure: `decide(detection, view)` reads a `ClusterView` and returns a `Decision` or a `NoDecision`
saying why nothing moves; the caller carries the migration out (and calls
`Detector.cool_down`).

Which instance: the paper moves "the microservice with the highest CPU utilization" to the host.
For host starvation that is the NIC's movable instance with the highest CPU share in the latest
heartbeat; for overload, the overloaded instance itself when it may move, else the same rule.
When that instance fits on no host, the next by CPU share is tried, and so on. An instance may
move when it is not pinned, not migrating already, its DAG constraint allows a host (`any` or
`host`) and so does the catalogue (sql is host-only, so never on a NIC to begin with).

Which host: the nearest with room, by HCM's communication levels (`Topology.levels`, searched for
a host-only copy of the instance's reservation): the host of the same server (PCIe), then the
rack's other hosts, then the pod's, then anywhere. Within a level HCM's `find_best_fit` picks
(tightest fit, then runtime statistics, then topology order). The fault-domain rule holds: no
server that has another replica of the instance's shard. Nodes that are down are not in the
view's topology, so they are never chosen.
"""

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from e3 import catalog
from e3.orchestrator.detection import OVERLOAD, Detection
from e3.placement.hcm import find_best_fit
from e3.placement.model import (LEVEL_POD, LEVEL_RACK_HOST, LEVEL_RACK_SMARTNIC, LEVEL_REMOTE, LEVEL_SAME_NODE,
                                LEVEL_SAME_SERVER, InstanceRequest, NodeCapacity, copy_nodes)
from e3.placement.topology import Topology

LEVEL_NAMES = {LEVEL_SAME_NODE: "same node", LEVEL_SAME_SERVER: "same server", LEVEL_RACK_SMARTNIC: "rack",
               LEVEL_RACK_HOST: "rack", LEVEL_POD: "pod", LEVEL_REMOTE: "remote"}


@dataclass(frozen=True, slots=True)
class InstanceView:
    """One instance as the decision sees it: where it is, its reservation, and its latest CPU share."""

    id: str
    node_id: Hashable
    service: str
    cpu_cores: float
    memory_mb: int
    bandwidth_mbps: int
    cpu_share: float = 0.0  # of its node's CPU, 0..1, from the latest heartbeat
    deployment: Hashable = ""
    dag_node: str = ""
    shard: int = 0
    replica: int = 0  # 0 is the primary
    platform: str = "any"  # the DAG's constraint: host | smartnic | any
    pinned: bool = False  # kept where it is by the operator
    migrating: bool = False  # a migration of it is under way

    @property
    def role(self) -> str:
        return "primary" if self.replica == 0 else "backup"

    def why_not_movable(self) -> str | None:
        """Why this instance may not move to a host, or None when it may."""
        if self.pinned:
            return "pinned"
        if self.migrating:
            return "already migrating"
        if self.platform not in ("any", "host"):
            return f"constrained to {self.platform}"
        svc = catalog.service_types().get(self.service)
        if svc is not None and "host" not in svc.platforms:
            return f"{self.service} may not run on a host"
        return None


class ClusterView:
    """A read-only snapshot for decisions: the nodes that are up (with their reservations, which must
    already include every instance's) and the instances on them.

    Built once per change of placement, not per decision: the topology index is what makes a decision
    O(log nodes). The nodes are copied, so later changes by the caller do not leak in.
    """

    def __init__(self, nodes: Sequence[NodeCapacity], instances: Iterable[InstanceView], down: Iterable[Hashable] = (),
                 unavailable: Iterable[Hashable] = ()):
        down = set(down)
        self.topology = Topology(copy_nodes([n for n in nodes if n.id not in down]))
        self.down = frozenset(down)
        # not up, not down (suspect: its heartbeats are late): a detection's source still (the heartbeats that made
        # the detection came from it), never a target
        self.unavailable = frozenset(unavailable)
        self.instances: dict[str, InstanceView] = {}
        self._on_node: dict[Hashable, list[InstanceView]] = {}
        self._shard: dict[tuple, list[InstanceView]] = {}
        for inst in instances:
            self.instances[inst.id] = inst
            self._on_node.setdefault(inst.node_id, []).append(inst)
            self._shard.setdefault((inst.deployment, inst.dag_node, inst.shard), []).append(inst)

    def on_node(self, node_id: Hashable) -> list[InstanceView]:
        return self._on_node.get(node_id, [])

    def begin_migration(self, decision: "Decision") -> None:
        """The caller's bookkeeping once it acts on `decision`: the instance is migrating and its reservation
        is held on the target, so the next decision sees both without rebuilding the view (O(log nodes)).
        The source keeps its reservation until the migration ends and the view is rebuilt."""
        inst = self.instances[decision.instance_id]
        moving = replace(inst, migrating=True)
        self.instances[inst.id] = moving
        for group in (self._on_node[inst.node_id], self._shard[(inst.deployment, inst.dag_node, inst.shard)]):
            group[group.index(inst)] = moving
        target = self.topology.node(decision.target_node_id)
        self.topology.reserve(target, _host_demand(inst))

    def replica_servers(self, inst: InstanceView) -> set[Hashable]:
        """Servers holding the other replicas of `inst`'s shard (the fault-domain rule keeps it off them)."""
        out = set()
        for other in self._shard.get((inst.deployment, inst.dag_node, inst.shard), ()):
            node = self.topology.get(other.node_id) if other.id != inst.id else None
            if node is not None:
                out.add(node.server)
        return out


@dataclass(frozen=True, slots=True)
class Decision:
    instance_id: str
    source_node_id: Hashable
    target_node_id: Hashable
    reason: str  # the detection's kind
    level: int  # LEVEL_* of the target as seen from the source
    detail: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NoDecision:
    reason: str  # for the event log
    node_id: Hashable
    detail: dict = field(default_factory=dict)


def candidates(detection: Detection, view: ClusterView) -> tuple[list[InstanceView], dict[str, str]]:
    """The node's instances that may move, in the order to try them, and why each other one may not.

    CPU shares come from the heartbeat that completed the detection (`detail["cpu_shares"]`) when it
    has them, else from the view: the view is rebuilt per placement change, not per heartbeat.
    """
    shares = detection.detail.get("cpu_shares") or {}
    movable, refused = [], {}
    for inst in view.on_node(detection.node_id):
        why = inst.why_not_movable()
        if why:
            refused[inst.id] = why
        else:
            movable.append((inst.id == detection.instance_id and detection.kind == OVERLOAD,
                            shares.get(inst.id, inst.cpu_share), inst))
    movable.sort(key=lambda m: (not m[0], -m[1], m[2].id))
    return [m[2] for m in movable], refused


def _host_demand(inst: InstanceView) -> InstanceRequest:
    return InstanceRequest(dag_node=inst.dag_node, service=inst.service, shard=inst.shard, replica=inst.replica,
                           platform="host", cpu_cores=inst.cpu_cores, memory_mb=inst.memory_mb,
                           bandwidth_mbps=inst.bandwidth_mbps)


def nearest_host(inst: InstanceView, source: NodeCapacity, view: ClusterView) -> tuple[NodeCapacity, int] | None:
    """The host nearest `source` that can take `inst` (room, fault domains), with its level; None if none can."""
    demand = _host_demand(inst)
    for level, found in view.topology.levels(source, demand, blocked=view.replica_servers(inst), avoid=source.id):
        if view.unavailable:  # levels 4-5 list one rack: if its only room is on such nodes, the level's other racks
            found = [n for n in found if n.id not in view.unavailable]  # are not tried (the next level is)
        node = find_best_fit(demand, found, view.topology)
        if node is not None:
            return node, level
    return None


def decide(detection: Detection, view: ClusterView) -> Decision | NoDecision:
    """Which instance leaves the detected node and for which host (module docstring), or why none does."""
    node_id = detection.node_id
    source = view.topology.get(node_id)
    if source is None:
        why = "down" if node_id in view.down else "not in the cluster view"
        return NoDecision(f"node {node_id} is {why}", node_id)
    if source.kind == "host":
        return NoDecision(f"node {node_id} is a host: there is no nearer host to move to", node_id)
    movable, refused = candidates(detection, view)
    if not movable:
        return NoDecision(f"no instance on node {node_id} may move to a host", node_id, {"refused": refused})
    for tried, inst in enumerate(movable):
        found = nearest_host(inst, source, view)
        if found is not None:
            target, level = found
            shares = detection.detail.get("cpu_shares") or {}
            return Decision(inst.id, node_id, target.id, detection.kind, level, {
                "level_name": LEVEL_NAMES[level], "service": inst.service,
                "cpu_share": shares.get(inst.id, inst.cpu_share),
                "role": inst.role, "skipped_no_room": [i.id for i in movable[:tried]], "refused": refused})
    return NoDecision(f"no host has room for any movable instance of node {node_id}", node_id,
                      {"tried": [i.id for i in movable], "refused": refused})

