"""A server's measured wall power (IPMI DCMI) split into its host and SmartNIC nodes (docs/energy.md
"Server to node split").

IPMI measures the whole server: host, SmartNICs, fans, power supply. No meter sees a SmartNIC alone, so:

- each SmartNIC is charged its modelled watts: its idle share (a Type 1 SmartNIC server's Table 4 idle
  minus a beefy server's, 98 - 83 = 15 W: one LiquidIO) plus, with any instance on it, the highest Table 1
  SmartNIC active watts among its services. Its utilisation does not change that: LiquidIO cores have no
  sleep states and poll whatever the load (paper §2.3, §5.1; the same rule as e3.placement.power_model);
- the host gets the rest, so the parts add up to the reading;
- clamp: when the SmartNICs' model exceeds the reading (a reading taken at a low moment, a model too high
  for this card), the host gets 0, never a negative figure, and the SmartNICs share the whole reading in
  proportion to their modelled watts. The split says `clamped`.

The server's figure keeps the source `ipmi`; each node's is `ipmi-split`, so nobody mistakes a share for a
measurement of that node. Pure: catalogue figures only.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from e3 import catalog
from e3.placement.power_model import smartnic_active_watts

SERVER_SOURCE = "ipmi"
NODE_SOURCE = "ipmi-split"


@dataclass(frozen=True)
class SmartNicLoad:
    """A SmartNIC node of the server and the microservice types running on it (catalogue names)."""

    node_id: str
    services: frozenset[str] = frozenset()


@dataclass(frozen=True)
class NodePower:
    node_id: str
    kind: str  # host | smartnic
    watts: float
    modelled_watts: float | None  # a SmartNIC's model figure before any clamp; None for the host
    source: str = NODE_SOURCE


@dataclass(frozen=True)
class ServerSplit:
    server_watts: float
    source: str  # SERVER_SOURCE
    clamped: bool  # the SmartNICs' model exceeded the reading: the host got 0, the NICs were scaled down
    nodes: tuple[NodePower, ...]  # the host first, then the SmartNICs in the order given


def smartnic_idle_watts() -> float:
    """One LiquidIO's idle draw: Table 4's Type 1 SmartNIC server idle minus the beefy server's."""
    types = catalog.server_types()
    return float(types["type1-smartnic"].idle_watts - types["beefy"].idle_watts)


def node_idle_watts(kind: str, server_idle_watts: float, smartnics_on_server: int) -> float:
    """A node's modelled idle draw: a SmartNIC's idle share, or its server's Table 4 idle minus its SmartNICs'
    shares for the host (never below 0). The same rule gives the emulated agents their idle watts."""
    if kind == "smartnic":
        return smartnic_idle_watts()
    return max(0.0, server_idle_watts - smartnic_idle_watts() * smartnics_on_server)


def smartnic_model_watts(nic: SmartNicLoad) -> float:
    """A SmartNIC's modelled wall power: idle share plus its services' Table 1 active watts when it runs any."""
    return smartnic_idle_watts() + smartnic_active_watts(nic.services)


def split_server(server_watts: float, host_node_id: str, smartnics: Iterable[SmartNicLoad]) -> ServerSplit:
    """Split one IPMI reading of a server into its host and SmartNICs (module doc)."""
    if not server_watts >= 0:
        raise ValueError(f"server_watts: must be >= 0 (got {server_watts})")
    nics = list(smartnics)
    modelled = [smartnic_model_watts(n) for n in nics]
    total = sum(modelled)
    clamped = total > server_watts
    scale = server_watts / total if clamped else 1.0
    nic_parts = [NodePower(n.node_id, "smartnic", m * scale, m) for n, m in zip(nics, modelled)]
    host = 0.0 if clamped else server_watts - total
    return ServerSplit(server_watts, SERVER_SOURCE, clamped, (NodePower(host_node_id, "host", host, None), *nic_parts))
