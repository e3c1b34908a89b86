"""What placement algorithms take and give: plain data, no database, no web framework."""

from collections.abc import Hashable
from dataclasses import dataclass, field

RESOURCES = ("cpu_cores", "memory_mb", "bandwidth_mbps")
RESOURCE_UNITS = {"cpu_cores": "cores", "memory_mb": "MB", "bandwidth_mbps": "Mb/s"}


@dataclass
class NodeCapacity:
    """A computing node as placement sees it: capacity and what is already reserved on it."""

    id: Hashable
    name: str
    kind: str  # host | smartnic
    server: Hashable  # the fault domain
    rack: Hashable
    cpu_cores: float
    memory_mb: int
    bandwidth_mbps: int
    used: dict[str, float] = field(default_factory=lambda: dict.fromkeys(RESOURCES, 0.0))

    def free(self, resource: str) -> float:
        return getattr(self, resource) - self.used[resource]

    def fits(self, demand: "InstanceRequest") -> bool:
        # A small epsilon keeps sums of fractional cores (0.25 + 0.25 + ...) from failing on rounding.
        return all(self.free(r) + 1e-9 >= demand.resource(r) for r in RESOURCES)

    def reserve(self, demand: "InstanceRequest") -> None:
        for r in RESOURCES:
            self.used[r] += demand.resource(r)


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


@dataclass
class Placement:
    """Where each instance goes: instance key -> node id."""

    algorithm: str
    assignments: dict[tuple[str, int, int], Hashable]


class PlacementError(Exception):
    """No node can take an instance. `resource` names what ran out, when one thing did."""

    def __init__(self, message: str, instance: InstanceRequest, resource: str | None):
        super().__init__(message)
        self.message = message
        self.instance = instance
        self.resource = resource
