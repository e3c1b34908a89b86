"""What placement algorithms take and give: plain data, no database, no web framework.

Every algorithm has the signature

    algorithm(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *,
              progress: ProgressFn | None = None, **options) -> Placement

and raises PlacementError when an instance cannot be placed. `nodes` carry what is already
reserved on them (`used`); algorithms reserve on the objects they are given, so callers pass
copies (`copy_nodes`) when they must keep the originals.
"""

import copy
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

RESOURCES = ("cpu_cores", "memory_mb", "bandwidth_mbps")
RESOURCE_UNITS = {"cpu_cores": "cores", "memory_mb": "MB", "bandwidth_mbps": "Mb/s"}

# Communication distance between two computing nodes, nearest first (paper §3.3, Algorithm 1).
LEVEL_SAME_NODE = 0  # co-located: in-process queues
LEVEL_SAME_SERVER = 1  # host <-> SmartNIC over PCIe
LEVEL_RACK_SMARTNIC = 2  # a SmartNIC of another server in the rack (through the ToR)
LEVEL_RACK_HOST = 3  # a host of another server in the rack
LEVEL_POD = 4  # another rack of the same FatTree pod
LEVEL_REMOTE = 5  # another pod
LEVELS = (LEVEL_SAME_NODE, LEVEL_SAME_SERVER, LEVEL_RACK_SMARTNIC, LEVEL_RACK_HOST, LEVEL_POD, LEVEL_REMOTE)

ProgressFn = Callable[[int, int], None]  # (instances placed, total)


@dataclass
class NodeCapacity:
    """A computing node as placement sees it: capacity, position, and what is already on it."""

    id: Hashable
    name: str
    kind: str  # host | smartnic
    server: Hashable  # the fault domain
    rack: Hashable
    cpu_cores: float
    memory_mb: int
    bandwidth_mbps: int
    pod: Hashable = 0
    server_type: str = ""  # catalogue server type, for power
    core_class: str = "beefy"  # beefy | wimpy
    used: dict[str, float] = field(default_factory=lambda: dict.fromkeys(RESOURCES, 0.0))
    # Runtime statistics (from heartbeats once agents report them; zero before).
    outstanding_requests: float = 0.0
    utilisation: float = 0.0  # 0..1

    def free(self, resource: str) -> float:
        return getattr(self, resource) - self.used[resource]

    def fits(self, demand: "InstanceRequest") -> bool:
        # A small epsilon keeps sums of fractional cores (0.25 + 0.25 + ...) from failing on rounding.
        return all(self.free(r) + 1e-9 >= demand.resource(r) for r in RESOURCES)

    def reserve(self, demand: "InstanceRequest") -> None:
        for r in RESOURCES:
            self.used[r] += demand.resource(r)

    def release(self, demand: "InstanceRequest") -> None:
        for r in RESOURCES:
            self.used[r] -= demand.resource(r)


def level_between(a: NodeCapacity, b: NodeCapacity) -> int:
    """How far `b` is from `a` (LEVEL_*). Levels 2 and 3 depend on what `b` is."""
    if a.id == b.id:
        return LEVEL_SAME_NODE
    if a.server == b.server:
        return LEVEL_SAME_SERVER
    if a.rack == b.rack:
        return LEVEL_RACK_SMARTNIC if b.kind == "smartnic" else LEVEL_RACK_HOST
    if a.pod == b.pod:
        return LEVEL_POD
    return LEVEL_REMOTE


def copy_nodes(nodes: Sequence[NodeCapacity]) -> list[NodeCapacity]:
    """Copies whose reservations can change without touching the originals."""
    clones = []
    for node in nodes:
        clone = copy.copy(node)
        clone.used = dict(node.used)
        clones.append(clone)
    return clones


@dataclass(frozen=True)
class InstanceRequest:
    """One shard replica to place, with its reservation and constraints."""

    dag_node: str
    service: str
    shard: int
    replica: int  # 0 is the primary, 1.. are backups
    platform: str  # host | smartnic | any
    cpu_cores: float
    memory_mb: int
    bandwidth_mbps: int
    request_bytes: int = 512

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.dag_node, self.shard, self.replica)

    @property
    def role(self) -> str:
        return "primary" if self.replica == 0 else "backup"

    @property
    def shard_key(self) -> tuple[str, int]:
        return (self.dag_node, self.shard)

    def resource(self, name: str) -> float:
        return getattr(self, name)

    def allows(self, node: NodeCapacity) -> bool:
        return self.platform == "any" or self.platform == node.kind

    def describe(self) -> str:
        role = "primary" if self.replica == 0 else f"backup {self.replica}"
        return f"{self.dag_node} ({self.service}) shard {self.shard} {role}"


InstanceKey = tuple[str, int, int]


@dataclass
class PlacementProblem:
    """A DAG expanded into instances, with the DAG's edges between its nodes (by DAG node id)."""

    instances: list[InstanceRequest]
    edges: list[tuple[str, str]]  # (from dag node, to dag node), in the direction of RPC flow
    anti_affinity: bool = False  # shards of one DAG node on distinct servers where possible
    # Instances already placed and kept where they are (incremental placement, re-placement).
    fixed: dict[InstanceKey, Hashable] = field(default_factory=dict)

    def dag_nodes(self) -> list[str]:
        """DAG node ids in the order their instances appear."""
        return list(dict.fromkeys(i.dag_node for i in self.instances))

    def sources(self) -> list[str]:
        """DAG nodes without an incoming edge, in instance order."""
        targets = {b for _, b in self.edges}
        return [n for n in self.dag_nodes() if n not in targets]


@dataclass
class Placement:
    """Where each instance goes (instance key -> node id), and how the algorithm got there."""

    algorithm: str
    assignments: dict[InstanceKey, Hashable]
    runtime_ms: float = 0.0  # the algorithm's own running time
    optimal: bool | None = None  # ILP: False when it stopped at its time cap with an incumbent
    details: dict = field(default_factory=dict)  # algorithm-specific figures (iterations, gap, ...)


class PlacementError(Exception):
    """No node can take an instance. `resource` names what ran out, when one thing did."""

    def __init__(self, message: str, instance: InstanceRequest, resource: str | None):
        super().__init__(message)
        self.message = message
        self.instance = instance
        self.resource = resource
