"""Server power for the cost model: Table 4 idle watts, host power proportional to load, SmartNICs always on.

Pure: reads only the catalogue (the paper's Tables 1 and 4 as package data). The rules and
their sources are in docs/placement-cost-model.md; in short:

- every server counted draws its Table 4 idle watts;
- a beefy host adds Table 4 (peak - idle) x its load relative to the knee, capped at 1
  (the paper's hosts put unused cores to sleep, §2.3, and are power proportional, §5.1 Figure 8);
- a wimpy host (cnMIPS) or a SmartNIC (LiquidIO, cnMIPS) has no per-core sleep states (§2.3,
  §5.1), so any instance on it makes it draw its full active power whatever the load: a wimpy
  host its Table 4 (peak - idle), a SmartNIC the highest Table 1 SmartNIC active watts among the
  services placed on it.
"""

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from e3 import catalog
from e3.catalog import ServerType
from e3.placement.model import NodeCapacity


@dataclass(frozen=True)
class ServerPower:
    """One server's predicted wall power, split the way the rules above compute it (W)."""

    server: Hashable
    server_type: str
    server_type_assumed: bool  # the nodes named no catalogue type; guessed from their shape
    idle_watts: float
    host_watts: float  # active, above idle
    smartnic_watts: float  # active, above idle, all of the server's SmartNICs

    @property
    def power_watts(self) -> float:
        return self.idle_watts + self.host_watts + self.smartnic_watts


def resolve_server_type(server_nodes: Sequence[NodeCapacity]) -> tuple[ServerType, bool]:
    """The catalogue type of a server's nodes, or a guess from their shape (and True) when none is named.

    Guess: one SmartNIC -> type1-smartnic, several -> type2-smartnic, none -> wimpy or beefy by the
    host's core class. Clusters built from the catalogue always name their type.
    """
    types = catalog.server_types()
    named = next((n.server_type for n in server_nodes if n.server_type), "")
    if named in types:
        return types[named], False
    nics = sum(1 for n in server_nodes if n.kind == "smartnic")
    if nics:
        return types["type1-smartnic" if nics == 1 else "type2-smartnic"], True
    wimpy = any(n.core_class == "wimpy" for n in server_nodes)
    return types["wimpy" if wimpy else "beefy"], True


def host_active_watts(server_type: ServerType, core_class: str, utilisation: float, placed: bool) -> float:
    """Host power above idle: proportional to load for beefy cores, all-or-nothing for wimpy ones."""
    span = server_type.peak_watts - server_type.idle_watts
    if core_class == "wimpy":
        return float(span) if placed else 0.0
    return span * min(max(utilisation, 0.0), 1.0)


def smartnic_active_watts(services: Iterable[str]) -> float:
    """A SmartNIC with any instance keeps all 12 cores polling: the highest Table 1 active watts of its services."""
    table = catalog.service_types()
    return max((table[s].calibration["smartnic"].active_watts for s in services), default=0.0)


def node_active_watts(node: NodeCapacity, server_type: ServerType, utilisation: float, services: set[str]) -> float:
    """One computing node's power above idle: a SmartNIC by its services, a host by its load."""
    if node.kind == "smartnic":
        return smartnic_active_watts(services)
    return host_active_watts(server_type, node.core_class, utilisation, bool(services))


def server_power(server: Hashable, server_nodes: Sequence[NodeCapacity], utilisation: dict[Hashable, float],
                 services: dict[Hashable, set[str]]) -> ServerPower:
    """Predicted power of one server from its nodes' load (1.0 = the knee) and the services placed on each."""
    stype, assumed = resolve_server_type(server_nodes)
    host = nic = 0.0
    for node in server_nodes:
        watts = node_active_watts(node, stype, utilisation.get(node.id, 0.0), services.get(node.id, set()))
        if node.kind == "smartnic":
            nic += watts
        else:
            host += watts
    return ServerPower(server=server, server_type=stype.name, server_type_assumed=assumed,
                       idle_watts=float(stype.idle_watts), host_watts=host, smartnic_watts=nic)
