"""The addressing plan of an emulated SmartNIC rack: pure data, no I/O.

One network namespace per server (`e3-<c>-s<i>`) and one for the top-of-rack switch (`e3-<c>-tor`).
Every SmartNIC wire port is a veth pair between the ToR and the server namespace. The ToR routes a
SmartNIC's IP over that NIC's first port and the host's IP by an ECMP multipath route over all of the
server's ports. The root namespace reaches the rack over an uplink veth; agents in the server
namespaces reach the controller over a management bridge in the root namespace. See docs/rack.md.

Addresses (server i is 1-based, NIC k and port p are 0-based):

    host of server i            10.3.<i>.1
    NIC k of server i           10.3.<i>.<10+k>
    uplink, root / ToR end      10.3.0.1/30 / 10.3.0.2/30     (whole rack: 10.3.0.0/16)
    management bridge           <net>.1/24 (`e3mgmt`), server i: <net>.<100+i>/24

The management network <net> is the first of MGMT_NETWORKS that is free on the machine (rack_addresses,
checked by rack_network.mgmt_network()); 10.255.0.0/24 on most machines.
"""

import hashlib
import ipaddress
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from e3 import catalog

# Wire ports per SmartNIC, by server type. A type1 server has one Cavium LiquidIO II with its two
# 10Gb ports; a type2 server has four LiquidIO IIs of which one port each is cabled (4 per server).
PORTS_PER_NIC: dict[str, int] = {"type1-smartnic": 2, "type2-smartnic": 1}

CLUSTER_NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,15}$")
MAX_SERVERS = 50
IFNAME_MAX = 15  # IFNAMSIZ - 1

RACK_PREFIX = "10.3.0.0/16"
UPLINK_ROOT_IP = "10.3.0.1"
UPLINK_TOR_IP = "10.3.0.2"
UPLINK_PREFIXLEN = 30
UPLINK_TOR_IFNAME = "up"

MGMT_BRIDGE = "e3mgmt"
# Candidates for the management network, first free one wins. Each a /24, small on purpose: the /16 it
# used to be covered this machine's DNS resolver (10.255.255.53) and cut the machine's name resolution.
MGMT_NETWORKS = ("10.255.0.0/24", "10.254.0.0/24", "10.253.0.0/24", "10.252.0.0/24")
MGMT_SERVER_BASE = 100  # server i's management address is the network's host 100 + i
MGMT_IFNAME = "mgmt"

MEMIF_ROOT = "/run/e3"
DPDK_RUNTIME_ROOT = "/var/run/dpdk"


@dataclass(frozen=True)
class PortPlan:
    """One wire port of a server: a veth pair between the ToR and the server namespace."""

    index: int  # 0-based across the server's NICs, in NIC order
    nic_index: int
    server_ifname: str  # p<p>, in the server namespace; opened by the emulated NIC (DPDK af_packet)
    tor_ifname: str  # t<i>p<p>, in the ToR namespace
    server_mac: str  # 02:e3:02:<i>:<p>:00
    tor_mac: str  # 02:e3:01:<i>:<p>:00


@dataclass(frozen=True)
class NicPlan:
    """One emulated SmartNIC of a server."""

    name: str  # nic<k>
    node: str  # s<i>/nic<k>
    index: int
    ip: str
    ports: list[int]  # indices into ServerPlan.ports; the first one carries the NIC's own IP
    file_prefix: str  # DPDK --file-prefix: runtime files live in /var/run/dpdk/<file_prefix>
    memif_socket: str  # memif socket between this NIC and the host's e3-agent


@dataclass(frozen=True)
class ServerPlan:
    """One server: its namespace, host and management addresses, NICs and wire ports."""

    name: str  # s<i>
    index: int  # 1-based
    ns: str
    node: str  # s<i>/host
    host_ip: str
    mgmt_ip: str
    mgmt_ifname: str  # management veth end in the server namespace
    mgmt_root_ifname: str  # its peer in the root namespace, attached to the management bridge
    host_file_prefix: str  # DPDK --file-prefix of the host's e3-agent (its memif links)
    nics: list[NicPlan]
    ports: list[PortPlan]


@dataclass(frozen=True)
class UplinkPlan:
    """The veth pair joining the root namespace to the ToR."""

    root_ifname: str
    tor_ifname: str
    root_ip: str
    tor_ip: str
    prefixlen: int
    rack_prefix: str  # routed from the root namespace via tor_ip


@dataclass(frozen=True)
class RackPlan:
    """A whole rack: ToR, uplink, management network and servers."""

    cluster: str
    server_type: str
    tor_ns: str
    uplink: UplinkPlan
    mgmt_bridge: str
    mgmt_gateway: str
    mgmt_prefixlen: int
    memif_dir: str
    servers: list[ServerPlan]

    @property
    def mgmt_network(self) -> str:
        """The management network, e.g. "10.255.0.0/24"."""
        return str(ipaddress.ip_interface(f"{self.mgmt_gateway}/{self.mgmt_prefixlen}").network)

    def namespaces(self) -> list[str]:
        """Every namespace of the rack, the ToR's first."""
        return [self.tor_ns] + [s.ns for s in self.servers]

    def nics(self) -> list[NicPlan]:
        """Every SmartNIC of the rack, in server order."""
        return [nic for s in self.servers for nic in s.nics]

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-ready data (see from_dict)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RackPlan":
        """The plan back from to_dict()'s data."""
        servers = [
            ServerPlan(
                **{
                    **s,
                    "nics": [NicPlan(**n) for n in s["nics"]],
                    "ports": [PortPlan(**p) for p in s["ports"]],
                }
            )
            for s in data["servers"]
        ]
        return cls(**{**data, "uplink": UplinkPlan(**data["uplink"]), "servers": servers})

    def to_json(self) -> str:
        """The plan as a JSON document (see from_json)."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str) -> "RackPlan":
        """The plan back from to_json()'s document."""
        return cls.from_dict(json.loads(text))


def short_id(cluster: str) -> str:
    """8 hex characters derived from the cluster name, to keep root-namespace interface names short."""
    return hashlib.sha256(cluster.encode()).hexdigest()[:8]


def uplink_root_ifname(cluster: str) -> str:
    """Root-namespace end of the uplink: `e3u` + short_id (11 characters)."""
    return f"e3u{short_id(cluster)}"


def mgmt_root_ifname(cluster: str, server: int) -> str:
    """Root-namespace end of server i's management veth: `e3m` + short_id + i (at most 13 characters)."""
    return f"e3m{short_id(cluster)}{server}"


def port_mac(side: int, server: int, port: int) -> str:
    """Locally administered MAC of a wire port end: side 1 = ToR, 2 = server."""
    return f"02:e3:{side:02x}:{server:02x}:{port:02x}:00"


def validate(cluster: str, servers: int, server_type: str) -> None:
    """Raise ValueError naming the field if the cluster name, server count or server type is unusable."""
    if not isinstance(cluster, str) or not CLUSTER_NAME_RE.match(cluster):
        raise ValueError(
            f"cluster: {cluster!r} is not a valid rack cluster name "
            "(a lowercase letter, then up to 15 lowercase letters, digits or '-')"
        )
    if isinstance(servers, bool) or not isinstance(servers, int) or not 1 <= servers <= MAX_SERVERS:
        raise ValueError(f"servers: {servers!r} is out of range (1..{MAX_SERVERS})")
    if server_type not in PORTS_PER_NIC:
        raise ValueError(f"server_type: {server_type!r} is not a SmartNIC type ({', '.join(PORTS_PER_NIC)})")


def mgmt_gateway(mgmt_network: str) -> str:
    """The bridge's (and the controller's) address on management network `mgmt_network`: its first host."""
    return str(ipaddress.ip_network(mgmt_network).network_address + 1)


def _server_plan(cluster: str, i: int, nic_count: int, ports_per_nic: int, memif_dir: str,
                 mgmt_network: ipaddress.IPv4Network) -> ServerPlan:
    ns = f"e3-{cluster}-s{i}"
    ports = [
        PortPlan(
            index=p,
            nic_index=p // ports_per_nic,
            server_ifname=f"p{p}",
            tor_ifname=f"t{i}p{p}",
            server_mac=port_mac(2, i, p),
            tor_mac=port_mac(1, i, p),
        )
        for p in range(nic_count * ports_per_nic)
    ]
    nics = [
        NicPlan(
            name=f"nic{k}",
            node=f"s{i}/nic{k}",
            index=k,
            ip=f"10.3.{i}.{10 + k}",
            ports=[p.index for p in ports if p.nic_index == k],
            file_prefix=f"{ns}-nic{k}",
            memif_socket=f"{memif_dir}/s{i}-nic{k}.sock",
        )
        for k in range(nic_count)
    ]
    return ServerPlan(
        name=f"s{i}",
        index=i,
        ns=ns,
        node=f"s{i}/host",
        host_ip=f"10.3.{i}.1",
        mgmt_ip=str(mgmt_network.network_address + MGMT_SERVER_BASE + i),
        mgmt_ifname=MGMT_IFNAME,
        mgmt_root_ifname=mgmt_root_ifname(cluster, i),
        host_file_prefix=f"{ns}-host",
        nics=nics,
        ports=ports,
    )


def plan_rack(cluster: str, servers: int, server_type: str, mgmt_network: str = MGMT_NETWORKS[0]) -> RackPlan:
    """The addressing plan of a rack of `servers` servers of `server_type` (NIC count from the catalogue), its
    management network on `mgmt_network` (a /24 or larger: rack_network.mgmt_network() says which is free)."""
    validate(cluster, servers, server_type)
    mgmt = ipaddress.ip_network(mgmt_network)
    if mgmt.num_addresses < MGMT_SERVER_BASE + MAX_SERVERS + 2:
        raise ValueError(f"mgmt_network: {mgmt_network} is too small for {MAX_SERVERS} servers (a /24 or larger)")
    types = catalog.server_types()
    if server_type not in types:
        raise ValueError(f"server_type: {server_type!r} is not in the catalogue")
    nic_count = types[server_type].smartnics
    memif_dir = f"{MEMIF_ROOT}/{cluster}"
    return RackPlan(
        cluster=cluster,
        server_type=server_type,
        tor_ns=f"e3-{cluster}-tor",
        uplink=UplinkPlan(
            root_ifname=uplink_root_ifname(cluster),
            tor_ifname=UPLINK_TOR_IFNAME,
            root_ip=UPLINK_ROOT_IP,
            tor_ip=UPLINK_TOR_IP,
            prefixlen=UPLINK_PREFIXLEN,
            rack_prefix=RACK_PREFIX,
        ),
        mgmt_bridge=MGMT_BRIDGE,
        mgmt_gateway=mgmt_gateway(mgmt_network),
        mgmt_prefixlen=mgmt.prefixlen,
        memif_dir=memif_dir,
        servers=[_server_plan(cluster, i, nic_count, PORTS_PER_NIC[server_type], memif_dir, mgmt)
                 for i in range(1, servers + 1)],
    )
